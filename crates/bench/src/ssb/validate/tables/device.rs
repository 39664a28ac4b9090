//! The device's tables of `place tables`: what the slow tier did (bytes read, major
//! faults) against the page model, and the page costs the promise and each run priced
//! with.

use std::fmt::Write;

use pmolap_results::place::ValidateReport;
use pmolap_results::stats::Spread;

use super::{head, row};

fn mib(s: Option<Spread>) -> String {
    let mb = 1.0 / (1u64 << 20) as f64;
    match s {
        None => "-".into(),
        Some(s) if s.n <= 1 => format!("{:.1}", s.median * mb),
        Some(s) => format!("{:.1} ({:.1}–{:.1})", s.median * mb, s.min * mb, s.max * mb),
    }
}

fn count(s: Option<Spread>) -> String {
    match s {
        None => "-".into(),
        Some(s) if s.n <= 1 => format!("{:.0}", s.median),
        Some(s) => format!("{:.0} ({:.0}–{:.0})", s.median, s.min, s.max),
    }
}

/// Table 6, the slow tier's page costs: the promise's (the profile's, calibrated with the
/// workload's samples where it has them)
/// and the medians of the samples each run took of the database's files (what its
/// `predicted` used), per setting spread over the rounds. Left out where no document has
/// samples.
pub(super) fn calibration_table<W>(
    out: &mut String,
    settings: &[(String, Vec<&ValidateReport<W>>)],
) {
    let has = settings
        .iter()
        .flat_map(|(_, ds)| ds.iter())
        .any(|d| d.calibration.is_some());
    if !has {
        return;
    }
    let _ = writeln!(
        out,
        "\n### Page costs of the slow tier (ns): the promise's (the profile's, calibrated with the workload's samples) vs sampled beside every placement in the run (the prediction); median over the rounds, min–max\n"
    );
    head(
        out,
        &[
            "setting",
            "samples per round",
            "one stream, per page",
            "three streams, per page",
            "isolated fault, per page read",
            "fault on a small file",
        ],
    );
    type Pick = fn(&pmolap_results::place::PageSample) -> Option<f64>;
    let picks: [Pick; 4] = [
        |s| s.one_stream_ns,
        |s| s.three_streams_ns,
        |s| s.fault_page_ns,
        |s| s.fault_latency_ns,
    ];
    for (label, ds) in settings {
        let cals: Vec<&pmolap_results::place::Calibration> =
            ds.iter().filter_map(|d| d.calibration.as_ref()).collect();
        if cals.is_empty() {
            continue;
        }
        for (who, profile) in [("promise", true), ("in the run", false)] {
            let mut cells = vec![
                format!("{label}: {who}"),
                if profile {
                    "-".into()
                } else {
                    count(Spread::of(
                        &cals
                            .iter()
                            .map(|c| c.samples.len() as f64)
                            .collect::<Vec<_>>(),
                    ))
                },
            ];
            for f in picks {
                let v: Vec<f64> = cals
                    .iter()
                    .filter_map(|c| f(if profile { &c.profile } else { &c.used }))
                    .collect();
                cells.push(count(Spread::of(&v)));
            }
            row(out, &cells);
        }
    }
}

/// Table 5, what the device did against what the page model says it does: per setting and
/// placement (every measured one, baselines too), bytes read and major faults per pass
/// of the workload (sum over the queries of each query's median run), spread over the
/// rounds. Documents without the counters leave the table out.
pub(super) fn io_table<W>(out: &mut String, settings: &[(String, Vec<&ValidateReport<W>>)]) {
    let has = settings
        .iter()
        .flat_map(|(_, ds)| ds.iter())
        .any(|d| d.scenarios.iter().any(|s| s.io.is_some()));
    if !has {
        return;
    }
    let _ = writeln!(
        out,
        "\n### Bytes read from storage and major faults per workload pass: measured (`/proc/self/io` read_bytes, `ru_majflt`; median over the rounds, min–max) vs the page model\n"
    );
    head(
        out,
        &[
            "setting",
            "placement",
            "read MiB measured",
            "read MiB predicted",
            "predicted / measured",
            "major faults measured",
            "major faults predicted",
            "page cache MiB",
        ],
    );
    for (label, ds) in settings {
        let first = ds[0];
        let names = first
            .scenarios
            .iter()
            .map(|s| s.name.clone())
            .chain(first.baselines.iter().map(|b| b.result.name.clone()));
        for name in names {
            let results: Vec<&pmolap_results::place::ScenarioResult> = ds
                .iter()
                .filter_map(|d| {
                    d.scenarios
                        .iter()
                        .chain(d.baselines.iter().map(|b| &b.result))
                        .find(|s| s.name == name)
                })
                .collect();
            let pick = |f: &dyn Fn(&pmolap_results::place::ScenarioResult) -> Option<f64>| {
                Spread::of(&results.iter().filter_map(|r| f(r)).collect::<Vec<_>>())
            };
            let meas = pick(&|r| r.io.map(|i| i.read_bytes));
            let pred = pick(&|r| r.predicted_io.map(|i| i.read_bytes));
            let ratio = match (meas, pred) {
                (Some(m), Some(p)) if m.median > 0.0 => format!("{:.2}", p.median / m.median),
                (Some(_), Some(p)) if p.median == 0.0 => "1.00".into(),
                _ => "-".into(),
            };
            row(
                out,
                &[
                    label.clone(),
                    name.clone(),
                    mib(meas),
                    mib(pred),
                    ratio,
                    count(pick(&|r| r.io.map(|i| i.major_faults))),
                    count(pick(&|r| r.predicted_io.map(|i| i.major_faults))),
                    mib(pick(&|r| r.page_cache_bytes.map(|b| b as f64))),
                ],
            );
        }
    }
}
