//! One module per result kind, each owning its document's figures and tables; the
//! functions here are the one place that dispatches on [`Document`] (the plot files and
//! the HTML page both come through them, so neither knows the kinds).

mod elf;
mod hashbench;
mod iobench;
mod membench;
mod pg;
mod place;
mod placefiles;
mod ssb;

use std::collections::BTreeSet;

use crate::doc::Document;
use crate::draw::{unique_stems, Figure};
use crate::markup::Table;

/// Every figure of `d` (none for the demo summary and topology documents).
pub(crate) fn figures(d: &Document) -> Vec<Figure> {
    let mut figs = match d {
        Document::Membench(r) => membench::figures(r),
        Document::Iobench(r) => iobench::figures(r),
        Document::Elf(r) => elf::figures(r),
        Document::SsbTiers(r) => ssb::tiers_figures(r),
        Document::SsbBreakdown(r) => ssb::breakdown_figures(r),
        Document::SsbRun(r) => ssb::run_figures(r),
        Document::PlaceValidate(r) => place::figures(r),
        Document::PgTpch(r) => pg::figures(r),
        Document::HashBench(r) => hashbench::figures(r),
        Document::PlaceWorkload(r) => placefiles::workload_figures(r),
        Document::Demo(_)
        | Document::Topology(_)
        | Document::PlaceProfile(_)
        | Document::Placement(_) => Vec::new(),
    };
    unique_stems(&mut figs);
    figs
}

/// Why `d` has no figure.
pub(crate) fn nothing_to_plot(d: &Document) -> String {
    match d {
        Document::Membench(r) => format!(
            "{} run(s), but no group has two or more access sizes or thread counts, \
             and no run measured latency",
            r.runs.len()
        ),
        Document::Iobench(r) => format!(
            "{} run(s), but no chart has two or more thread counts",
            r.runs.len()
        ),
        Document::Elf(_) => "no query types, windows or selectivities".into(),
        Document::SsbTiers(_) | Document::SsbBreakdown(_) | Document::SsbRun(_) => {
            "no query finished".into()
        }
        Document::PlaceValidate(_) => "no placement was measured".into(),
        Document::PgTpch(_) => "no query finished on every tier".into(),
        Document::HashBench(_) => "no thread count was measured".into(),
        Document::PlaceWorkload(_) => "no structure was accessed".into(),
        Document::PlaceProfile(_) | Document::Placement(_) => {
            format!(
                "a {} document is a table, not a measurement series",
                d.kind()
            )
        }
        Document::Demo(_) | Document::Topology(_) => {
            format!("a {} document holds no measurements to draw", d.kind())
        }
    }
}

/// What `d` holds, in a few words (its size and provenance; the page adds path, kind,
/// date and version).
pub(crate) fn summary(d: &Document) -> String {
    match d {
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
        Document::PlaceValidate(r) => place::summary(r),
        Document::Demo(r) => format!("{} steps", r.steps.len()),
        Document::Topology(r) => format!("{} tiers", r.tiers.len()),
        Document::HashBench(r) => format!(
            "Dash on {} tier(s), {} keys, threads {:?}, {} recovery size(s)",
            r.dash.len(),
            r.params.keys,
            r.params.threads,
            r.recovery.len()
        ),
        Document::PlaceWorkload(r) => placefiles::workload_summary(r),
        Document::PlaceProfile(r) => placefiles::profile_summary(r),
        Document::Placement(r) => placefiles::placement_summary(r),
        Document::PgTpch(r) => format!(
            "TPC-H SF {} on {} tiers, {} queries, {}",
            r.config.sf,
            r.tiers.len(),
            r.config.queries.len(),
            r.server.version
        ),
    }
}

fn config(c: &Option<String>) -> String {
    c.as_ref().map_or(String::new(), |c| format!(" from {c}"))
}

/// Distinct notes of a document, in order.
pub(crate) fn notes(d: &Document) -> Vec<String> {
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
pub(crate) fn tables(d: &Document) -> Vec<Table> {
    match d {
        Document::Membench(r) => vec![membench::table(r)],
        Document::Iobench(r) => iobench::tables(r),
        Document::Elf(r) => elf::tables(r),
        Document::SsbTiers(r) => vec![ssb::tiers_table(r)],
        Document::SsbBreakdown(r) => vec![ssb::breakdown_table(r)],
        Document::SsbRun(r) => vec![ssb::run_table(r)],
        Document::PlaceValidate(r) => place::tables(r),
        Document::PgTpch(r) => pg::tables(r),
        Document::HashBench(r) => hashbench::tables(r),
        Document::PlaceWorkload(r) => placefiles::workload_tables(r),
        Document::PlaceProfile(r) => placefiles::profile_tables(r),
        Document::Placement(r) => placefiles::placement_tables(r),
        Document::Demo(_) | Document::Topology(_) => Vec::new(),
    }
}

/// The placement headline of a `place-validate` document (the placement section's own
/// sentence), for the findings.
pub(crate) fn place_headline(r: &pmolap_results::place::ValidateReport) -> String {
    place::headline_text(r)
}

/// Values as a caption lists them: `1`, `1 and 2`, `1, 2 and 4`; more than six as the
/// first and last with the count (`1–64 (7 values)`).
pub(crate) fn listed<T: Ord + Copy>(set: &BTreeSet<T>, show: impl Fn(T) -> String) -> String {
    let v: Vec<String> = set.iter().map(|&x| show(x)).collect();
    match v.len() {
        0 => "none".into(),
        1 => v[0].clone(),
        n if n > 6 => format!("{}–{} ({n} values)", v[0], v[n - 1]),
        n => format!("{} and {}", v[..n - 1].join(", "), v[n - 1]),
    }
}

/// The repetitions of runs with `reps` each: `1 rep (noise unknown)`, `median of 5
/// reps`, `median of 1–3 reps`.
pub(crate) fn reps_of(reps: &BTreeSet<usize>) -> String {
    match (reps.first(), reps.last()) {
        (Some(1), Some(1)) => "1 rep (noise unknown)".into(),
        (Some(a), Some(b)) if a == b => format!("median of {a} reps"),
        (Some(a), Some(b)) => format!("median of {a}–{b} reps"),
        _ => "no reps".into(),
    }
}
