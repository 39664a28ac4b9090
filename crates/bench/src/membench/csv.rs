//! CSV export of membench results: one row per run, repetition and thread group.

use std::path::Path;

use crate::error::{Error, Result};
use crate::membench::config::name;
use crate::membench::results::Results;

/// Column names, in order.
pub const HEADER: [&str; 22] = [
    "name",
    "operation",
    "pattern",
    "distribution",
    "access_mode",
    "access_size",
    "threads",
    "write_threads",
    "pinning",
    "tier",
    "memory_range",
    "persist",
    "sfence",
    "kernel",
    "rep",
    "role",
    "group_threads",
    "bytes",
    "seconds",
    "bandwidth_gib_s",
    "latency_p50_ns",
    "latency_p99_ns",
];

/// Writes `results` as CSV to `path`, published whole (staged beside it, then renamed
/// over it): an old file there stays intact until the new one is complete.
pub fn write_csv(results: &Results, path: &Path) -> Result<()> {
    pmolap_os::durable::publish_file(path, &to_csv(results, path)?)?;
    Ok(())
}

/// `results` as CSV text; `path` names the output in errors.
pub fn to_csv(results: &Results, path: &Path) -> Result<Vec<u8>> {
    let io = |e: csv::Error| Error::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    };
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(HEADER).map_err(io)?;
    for run in &results.runs {
        let p = &run.params;
        let fixed = [
            run.name.clone(),
            name(&p.operation),
            name(&p.pattern),
            name(&p.distribution),
            name(&p.access_mode),
            p.access_size.to_string(),
            p.threads.to_string(),
            p.write_threads.to_string(),
            p.pinning.to_string(),
            p.tier.to_string(),
            p.memory_range.to_string(),
            p.persist.to_string(),
            p.sfence.to_string(),
            run.kernel.clone(),
        ];
        for (i, rep) in run.reps.iter().enumerate() {
            let lat = |f: fn(&crate::membench::results::Latency) -> f64| {
                rep.latency
                    .as_ref()
                    .map(|l| format!("{:.2}", f(l)))
                    .unwrap_or_default()
            };
            let rows: Vec<[String; 5]> = if rep.groups.is_empty() {
                vec![[
                    "latency".into(),
                    p.threads.to_string(),
                    String::new(),
                    String::new(),
                    format!("{:.4}", rep.bandwidth_gib_s),
                ]]
            } else {
                rep.groups
                    .iter()
                    .map(|g| {
                        [
                            g.role.clone(),
                            g.threads.to_string(),
                            g.bytes.to_string(),
                            format!("{:.6}", g.seconds),
                            format!("{:.4}", g.bandwidth_gib_s),
                        ]
                    })
                    .collect()
            };
            for row in rows {
                let mut rec: Vec<String> = fixed.to_vec();
                rec.push(i.to_string());
                rec.extend(row);
                rec.push(lat(|l| l.p50_ns));
                rec.push(lat(|l| l.p99_ns));
                w.write_record(&rec).map_err(io)?;
            }
        }
    }
    w.into_inner().map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    })
}
