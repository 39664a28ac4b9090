//! Figures and tables of the SSB documents: `ssb tiers` (SIGMOD'21 Fig. 14: each
//! query's time on every tier and its slowdown vs DRAM), `ssb breakdown` (the Table 1
//! ladder per tier) and `ssb run` (the queries on one tier).

use std::collections::BTreeSet;

use pmolap_results::ssb::{BreakdownReport, RunReport, TiersReport};
use pmolap_results::Machine;

use crate::draw::grouped::BarSeries;
use crate::draw::header;
use crate::draw::{Figure, GroupedBars, SEP};
use crate::markup::Table;

/// The CPU between `before` and `after`, or nothing when unknown.
fn with_cpu(m: &Machine, before: &str, after: &str) -> String {
    let cpu = crate::markup::clip(m.cpu_model.trim());
    if cpu.is_empty() {
        String::new()
    } else {
        format!("{before}{cpu}{after}")
    }
}

/// Fig. 14: median ms per query per tier, and the slowdown vs the first tier (DRAM).
pub(crate) fn tiers_figures(doc: &TiersReport) -> Vec<Figure> {
    let Some(base) = doc.tiers.first() else {
        return Vec::new();
    };
    let queries: Vec<String> = base.queries.iter().map(|q| q.id.clone()).collect();
    let value = |t: usize, id: &str, f: &dyn Fn(f64, f64) -> f64| {
        let q = doc.tiers[t].queries.iter().find(|q| q.id == id)?;
        let b = base.queries.iter().find(|b| b.id == id)?;
        Some(f(q.median_ms, b.median_ms)).filter(|v| v.is_finite())
    };
    let series = |from: usize, f: &dyn Fn(f64, f64) -> f64| -> Vec<BarSeries> {
        (from..doc.tiers.len())
            .map(|t| BarSeries {
                label: doc.tiers[t].tier.name.clone(),
                values: queries.iter().map(|id| value(t, id, f)).collect(),
            })
            .collect()
    };
    let names: Vec<&str> = doc.tiers.iter().map(|t| t.tier.name.as_str()).collect();
    let sub = format!(
        "data {}{SEP}{}{SEP}pinning {}{SEP}{}{}",
        doc.config.data.display(),
        threads_text(doc.config.threads, &doc.header.machine),
        doc.config.pin,
        reps_text(doc.config.reps, doc.config.reps_rule.as_deref()),
        with_cpu(&doc.header.machine, SEP, "")
    );
    let mut out = vec![Figure::Grouped(GroupedBars {
        stem: "ssb-tiers-ms".into(),
        title: format!("SSB: median query time per tier ({})", names.join(", ")),
        subtitle: sub.clone(),
        x_desc: "query".into(),
        y_desc: "median time (ms)".into(),
        categories: queries.clone(),
        series: series(0, &|q, _| q),
        reference: None,
        caption: format!(
            "Median time of each SSB query on every tier ({}){}. \
             Corresponds to SIGMOD'21 Fig. 14 (SSB performance, PMEM vs DRAM).",
            names.join(", "),
            with_cpu(&doc.header.machine, " (", ")")
        ),
    })];
    if doc.tiers.len() > 1 {
        let slowdowns = series(1, &|q, b| q / b);
        out.push(Figure::Grouped(GroupedBars {
            stem: "ssb-tiers-slowdown".into(),
            title: format!("SSB: slowdown vs {} per query", base.tier.name),
            subtitle: sub,
            x_desc: "query".into(),
            y_desc: format!("time / time on {}", base.tier.name),
            categories: queries.clone(),
            series: slowdowns,
            reference: Some(1.0),
            caption: format!(
                "Slowdown of each SSB query on each tier relative to {} (dashed: 1×){}. Corresponds to SIGMOD'21 Fig. 14 (the PMEM/DRAM ratio).",
                base.tier.name,
                with_cpu(&doc.header.machine, " (", ")")
            ),
        }));
    }
    out
}

/// Fig. 14 as numbers: ms per query and tier, and the geometric-mean slowdown.
pub(crate) fn tiers_table(doc: &TiersReport) -> Table {
    let mut head = vec!["query".to_string()];
    head.extend(doc.tiers.iter().map(|t| format!("{} (ms)", t.tier.name)));
    let ids: Vec<&str> = doc
        .tiers
        .first()
        .map(|b| b.queries.iter().map(|q| q.id.as_str()).collect())
        .unwrap_or_default();
    let mut rows: Vec<Vec<String>> = ids
        .iter()
        .map(|id| {
            let mut r = vec![id.to_string()];
            r.extend(doc.tiers.iter().map(|t| {
                t.queries
                    .iter()
                    .find(|q| q.id == *id)
                    .map_or("–".into(), |q| format!("{:.2}", q.median_ms))
            }));
            r
        })
        .collect();
    let mut geo = vec!["geomean slowdown".to_string()];
    geo.extend((0..doc.tiers.len()).map(|t| format!("{:.2}×", doc.geomean_slowdown(t))));
    rows.push(geo);
    Table { head, rows }
}

/// Table 1: median ms per rung, one bar per tier.
pub(crate) fn breakdown_figures(doc: &BreakdownReport) -> Vec<Figure> {
    let mut rungs: Vec<String> = Vec::new();
    let mut tiers: Vec<String> = Vec::new();
    for s in &doc.steps {
        if !rungs.contains(&s.step) {
            rungs.push(s.step.clone());
        }
        if !tiers.contains(&s.tier) {
            tiers.push(s.tier.clone());
        }
    }
    if rungs.is_empty() {
        return Vec::new();
    }
    let series = tiers
        .iter()
        .map(|t| BarSeries {
            label: t.clone(),
            values: rungs
                .iter()
                .map(|r| {
                    doc.steps
                        .iter()
                        .find(|s| &s.tier == t && &s.step == r)
                        .map(|s| s.median_ms)
                })
                .collect(),
        })
        .collect();
    let threads: BTreeSet<usize> = doc.steps.iter().map(|s| s.threads).collect();
    vec![Figure::Grouped(GroupedBars {
        stem: "ssb-breakdown".into(),
        title: format!("SSB Q{}: the optimisation ladder per tier", doc.query),
        subtitle: format!(
            "{}{SEP}threads {}{}",
            reps_text(doc.reps, doc.reps_rule.as_deref()),
            threads
                .iter()
                .map(|&t| if t == 0 {
                    doc.header.machine.logical_cpus.to_string()
                } else {
                    t.to_string()
                })
                .collect::<Vec<_>>()
                .join("/"),
            with_cpu(&doc.header.machine, SEP, "")
        ),
        x_desc: "rung (each adds to the one before)".into(),
        y_desc: "median time (ms)".into(),
        categories: rungs,
        series,
        reference: None,
        caption: format!(
            "Median time of SSB Q{} at each rung of the ladder (1 thread, all threads, + pinning, \
             + striping and replication) on every tier{}. Corresponds to SIGMOD'21 Table 1 \
             (optimisation of Q2.1).",
            doc.query,
            with_cpu(&doc.header.machine, " (", ")")
        ),
    })]
}

/// Table 1 as numbers, with what each rung did (or why it was a no-op).
pub(crate) fn breakdown_table(doc: &BreakdownReport) -> Table {
    Table {
        head: header(&[
            "tier",
            "rung",
            "threads",
            "pin",
            "striped",
            "replicated",
            "ms",
            "speedup",
            "notes",
        ]),
        rows: doc
            .steps
            .iter()
            .map(|s| {
                vec![
                    s.tier.clone(),
                    s.step.clone(),
                    s.threads.to_string(),
                    s.pin.clone(),
                    yes_no(s.striped),
                    yes_no(s.replicated),
                    format!("{:.2}", s.median_ms),
                    format!("{:.2}×", s.speedup_vs_first),
                    s.notes.join("; "),
                ]
            })
            .collect(),
    }
}

fn yes_no(b: bool) -> String {
    if b { "yes" } else { "no" }.into()
}

/// The queries of one `ssb run`: median ms per query.
pub(crate) fn run_figures(doc: &RunReport) -> Vec<Figure> {
    if doc.queries.is_empty() {
        return Vec::new();
    }
    let c = &doc.config;
    vec![Figure::Grouped(GroupedBars {
        stem: "ssb-run".into(),
        title: format!("SSB queries on {}", c.tier),
        subtitle: format!(
            "{}{SEP}pinning {}{SEP}{}{}",
            threads_text(c.threads, &doc.header.machine),
            c.pin,
            reps_text(c.reps, None),
            with_cpu(&doc.header.machine, SEP, "")
        ),
        x_desc: "query".into(),
        y_desc: "median time (ms)".into(),
        categories: doc.queries.iter().map(|q| q.id.clone()).collect(),
        series: vec![BarSeries {
            label: c.tier.clone(),
            values: doc.queries.iter().map(|q| Some(q.median_ms)).collect(),
        }],
        reference: None,
        caption: format!(
            "Median time of each SSB query on tier {}{} ({}, pinning {}). One tier of \
             SIGMOD'21 Fig. 14.",
            c.tier,
            with_cpu(&doc.header.machine, " (", ")"),
            threads_text(c.threads, &doc.header.machine),
            c.pin
        ),
    })]
}

/// Per query: ms, plan and probe ms, rows, GB/s.
pub(crate) fn run_table(doc: &RunReport) -> Table {
    Table {
        head: header(&["query", "median ms", "plan ms", "probe ms", "rows", "GB/s"]),
        rows: doc
            .queries
            .iter()
            .map(|q| {
                vec![
                    q.id.clone(),
                    format!("{:.2}", q.median_ms),
                    format!("{:.2}", q.plan_ms),
                    format!("{:.2}", q.probe_ms),
                    q.rows.to_string(),
                    format!("{:.2}", q.gbps),
                ]
            })
            .collect(),
    }
}

/// Threads as a number: 0 (one per CPU) is the machine's logical CPU count.
fn threads_text(threads: usize, m: &pmolap_results::Machine) -> String {
    if threads == 0 {
        format!("{} threads (one per CPU)", m.logical_cpus)
    } else {
        format!("{threads} threads")
    }
}

/// The repetitions: the rule where a time budget chose them (the documents' `reps` is
/// then the most), else the count.
fn reps_text(reps: usize, rule: Option<&str>) -> String {
    match rule {
        Some(r) => format!("median of {r}"),
        None if reps == 1 => "1 rep (noise unknown)".into(),
        None => format!("median of {reps} reps"),
    }
}
