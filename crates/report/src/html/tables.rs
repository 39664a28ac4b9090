//! Per document: a one-line summary, its notes (warnings of the runs, tiers left out),
//! and its figures as tables.

use std::path::Path;

use pmolap_bench::iobench::config::name;
use pmolap_bench::size::format_size;
use pmolap_bench::{iobench, membench};
use pmolap_index::elf::bench::results::BenchReport;

use super::{date, Table};
use crate::doc::Document;
use crate::draw::header;
use crate::ssb;

/// At most this many rows in a run table (the rest are counted).
const MAX_ROWS: usize = 400;

/// Kind, size and provenance of a document, in one line.
pub(super) fn summary(path: &Path, d: &Document) -> String {
    let started = d
        .started_unix()
        .map_or(String::new(), |t| format!(", started {}", date(t)));
    let what = match d {
        Document::Membench(r) => format!("{} runs{}", r.runs.len(), config(&r.config_file)),
        Document::Iobench(r) => format!("{} runs{}", r.runs.len(), config(&r.config_file)),
        Document::Elf(r) => format!(
            "{} rows × {} dims, index on {}",
            r.params.rows, r.params.dims, r.params.tier
        ),
        Document::SsbTiers(r) => {
            format!("{} tiers, data {}", r.tiers.len(), r.config.data.display())
        }
        Document::SsbBreakdown(r) => format!("query {}, {} rungs", r.query, r.steps.len()),
        Document::SsbRun(r) => format!("{} queries on {}", r.queries.len(), r.config.tier),
        Document::PlaceValidate(r) => format!(
            "{} placements, slow tier {} ({})",
            r.scenarios.len(),
            r.config.profile_tier,
            r.config.setting
        ),
        Document::Demo(r) => format!("{} steps", r.steps.len()),
        Document::Topology(r) => format!("{} tiers", r.tiers.len()),
        Document::HashBench(r) => format!(
            "Dash on {} tier(s), {} keys, threads {:?}, {} recovery size(s)",
            r.dash.len(),
            r.params.keys,
            r.params.threads,
            r.recovery.len()
        ),
        Document::PgTpch(r) => format!(
            "TPC-H SF {} on {} tiers, {} queries, {}",
            r.config.sf,
            r.tiers.len(),
            r.config.queries.len(),
            r.server.version
        ),
    };
    format!(
        "{} ({}): {what}{started}, pmolap {}",
        path.display(),
        d.kind(),
        d.pmolap_version()
    )
}

fn config(c: &Option<String>) -> String {
    c.as_ref().map_or(String::new(), |c| format!(" from {c}"))
}

/// Distinct notes of a document, in order.
pub(super) fn notes(d: &Document) -> Vec<String> {
    let all: Vec<String> = match d {
        Document::Membench(r) => r
            .runs
            .iter()
            .flat_map(|run| run.region.warnings.iter().cloned())
            .collect(),
        Document::Iobench(r) => r
            .runs
            .iter()
            .flat_map(|run| run.notes.iter().cloned())
            .collect(),
        Document::SsbTiers(r) => r.notes.clone(),
        Document::SsbBreakdown(r) => r.notes.clone(),
        Document::SsbRun(r) => r.notes.clone(),
        Document::PgTpch(r) => r
            .tiers
            .iter()
            .filter(|t| !t.cold_is_cold())
            .map(|t| format!("{}: {}", t.name, t.cold_note))
            .collect(),
        _ => Vec::new(),
    };
    let mut out: Vec<String> = Vec::new();
    for n in all {
        if !out.contains(&n) {
            out.push(n);
        }
    }
    out
}

/// The document's figures as numbers.
pub(super) fn tables(d: &Document) -> Vec<Table> {
    match d {
        Document::Membench(r) => vec![membench_table(r)],
        Document::Iobench(r) => vec![devices_table(r), iobench_table(r)],
        Document::Elf(r) => elf_tables(r),
        Document::SsbTiers(r) => vec![ssb::tiers_table(r)],
        Document::SsbBreakdown(r) => vec![ssb::breakdown_table(r)],
        Document::SsbRun(r) => vec![ssb::run_table(r)],
        Document::PlaceValidate(r) => crate::place::tables(r),
        Document::PgTpch(r) => crate::pg::tables(r),
        Document::HashBench(r) => crate::hashbench::tables(r),
        _ => Vec::new(),
    }
}

fn capped(mut rows: Vec<Vec<String>>, width: usize) -> Vec<Vec<String>> {
    if rows.len() > MAX_ROWS {
        let n = rows.len() - MAX_ROWS;
        rows.truncate(MAX_ROWS);
        let mut last = vec![format!("… {n} more runs in the file")];
        last.resize(width, String::new());
        rows.push(last);
    }
    rows
}

fn word<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => "?".into(),
    }
}

fn membench_table(r: &membench::Results) -> Table {
    let head = header(&[
        "benchmark",
        "operation",
        "pattern",
        "access",
        "size",
        "threads",
        "pinning",
        "tier",
        "kernel",
        "reps",
        "GiB/s (median)",
        "p50 ns",
    ]);
    let rows = r
        .runs
        .iter()
        .map(|run| {
            let p = &run.params;
            vec![
                run.name.clone(),
                word(&p.operation),
                word(&p.pattern),
                word(&p.access_mode),
                format_size(p.access_size),
                p.threads.to_string(),
                word(&p.pinning),
                p.tier.to_string(),
                run.kernel.clone(),
                run.reps.len().to_string(),
                format!("{:.2}", run.summary.bandwidth_gib_s_median),
                run.summary
                    .latency_p50_ns_median
                    .map_or("–".into(), |v| format!("{v:.1}")),
            ]
        })
        .collect();
    Table {
        rows: capped(rows, head.len()),
        head,
    }
}

fn devices_table(r: &iobench::Results) -> Table {
    Table {
        head: header(&[
            "directory",
            "filesystem",
            "device",
            "rotational",
            "DAX",
            "mount options",
        ]),
        rows: r
            .devices
            .iter()
            .map(|d| {
                let opt = |o: &Option<String>| o.clone().unwrap_or_else(|| "?".into());
                vec![
                    d.path.clone(),
                    opt(&d.filesystem),
                    opt(&d.device),
                    d.rotational
                        .map_or("–".into(), |r| if r { "yes" } else { "no" }.into()),
                    if d.dax { "yes" } else { "no" }.into(),
                    opt(&d.mount_options),
                ]
            })
            .collect(),
    }
}

fn iobench_table(r: &iobench::Results) -> Table {
    let head = header(&[
        "benchmark",
        "workload",
        "I/O path",
        "unit",
        "writes",
        "threads",
        "files/thread",
        "GiB/s (median)",
        "ops/s",
        "p50 µs",
        "p99 µs",
    ]);
    let rows = r
        .runs
        .iter()
        .map(|run| {
            let p = &run.params;
            let s = &run.summary;
            vec![
                run.name.clone(),
                name(&p.workload),
                name(&p.io),
                format_size(p.op_size()),
                format!("{:.0}%", p.write_ratio * 100.0),
                p.threads.to_string(),
                run.files_per_thread.to_string(),
                format!("{:.3}", s.bandwidth_gib_s_median),
                format!("{:.0}", s.ops_per_s_median),
                format!("{:.1}", s.latency_p50_ns_median / 1e3),
                format!("{:.1}", s.latency_p99_ns_median / 1e3),
            ]
        })
        .collect();
    Table {
        rows: capped(rows, head.len()),
        head,
    }
}

fn elf_tables(r: &BenchReport) -> Vec<Table> {
    let b = &r.build;
    let mib = |x: usize| format!("{:.1}", x as f64 / (1 << 20) as f64);
    let build = Table {
        head: header(&["structure", "build s", "MiB"]),
        rows: vec![
            vec![
                "Elf".into(),
                format!("{:.3}", b.elf_seconds),
                mib(b.elf_bytes),
            ],
            vec![
                "column scan".into(),
                format!("{:.3}", b.column_scan_seconds),
                mib(b.column_scan_bytes),
            ],
            vec![
                "sorted projection".into(),
                format!("{:.3}", b.sorted_projection_seconds),
                mib(b.sorted_projection_bytes),
            ],
        ],
    };
    let ratio = |x: Option<f64>| x.map_or("–".into(), |v| format!("{v:.2}×"));
    let variants = Table {
        head: header(&[
            "query type",
            "variant",
            "queries",
            "q/s",
            "× hybrid",
            "× column scan",
            "hit ratio",
            "DRAM MiB",
        ]),
        rows: r
            .query_types
            .iter()
            .flat_map(|qt| {
                qt.variants.iter().map(move |v| {
                    vec![
                        qt.query_type.clone(),
                        v.variant.clone(),
                        v.queries.to_string(),
                        format!("{:.0}", v.qps),
                        ratio(v.relative_to_hybrid),
                        ratio(v.speedup_over_column_scan),
                        format!("{:.3}", v.hit_ratio),
                        mib(v.dram_bytes),
                    ]
                })
            })
            .collect(),
    };
    vec![build, variants]
}
