//! Figures and tables of `pmolap hash bench` (kind `hashbench`): the Dash persistent hash
//! table's lookup and insert throughput per tier and thread count, with the two
//! `std::collections::HashMap` baselines measured in DRAM in the same run, its load
//! factor, and the time to reopen a table after a crash (Dash, VLDB'20; the hash joins
//! through Dash of SIGMOD'21 §6.2).

use pmolap_results::hashbench::{HashBenchReport, ThreadPoint};

use crate::draw::grouped::BarSeries;
use crate::draw::{header, Figure, GroupedBars, SEP};
use crate::markup::Table;

/// One measured structure: its label and its per-thread-count points.
fn structures(doc: &HashBenchReport) -> Vec<(String, &[ThreadPoint])> {
    let mut out: Vec<(String, &[ThreadPoint])> = doc
        .dash
        .iter()
        .map(|d| {
            (
                format!("Dash on {} ({} keys)", d.tier, d.keys),
                d.points.as_slice(),
            )
        })
        .collect();
    out.extend(doc.baselines.iter().map(|b| {
        // "SipHash-1-3 (std default)" -> "SipHash-1-3": legends stay short.
        let hasher = b.hasher.split(" (").next().unwrap_or(&b.hasher);
        (format!("{} ({hasher}, DRAM)", b.name), b.points.as_slice())
    }));
    out
}

fn subtitle(doc: &HashBenchReport) -> String {
    [
        format!("{} keys (DRAM, baselines)", doc.params.keys),
        format!("seed {}", doc.params.seed),
        format!("{} logical CPUs", doc.header.machine.logical_cpus),
        crate::markup::clip(doc.header.machine.cpu_model.trim()),
    ]
    .join(SEP)
}

fn threads(doc: &HashBenchReport) -> Vec<usize> {
    let mut t: Vec<usize> = structures(doc)
        .iter()
        .flat_map(|(_, p)| p.iter().map(|x| x.threads))
        .collect();
    t.sort_unstable();
    t.dedup();
    t
}

/// Positive lookups and inserts (million operations per second) per structure and
/// thread count.
pub(crate) fn figures(doc: &HashBenchReport) -> Vec<Figure> {
    let threads = threads(doc);
    if threads.is_empty() {
        return Vec::new();
    }
    let categories: Vec<String> = threads
        .iter()
        .map(|t| format!("{t} thread{}", if *t == 1 { "" } else { "s" }))
        .collect();
    let tiers: Vec<&str> = doc.dash.iter().map(|d| d.tier.as_str()).collect();
    let metric = |f: fn(&ThreadPoint) -> f64| -> Vec<BarSeries> {
        structures(doc)
            .into_iter()
            .map(|(label, pts)| BarSeries {
                label,
                values: threads
                    .iter()
                    .map(|t| pts.iter().find(|p| p.threads == *t).map(f))
                    .collect(),
            })
            .collect()
    };
    vec![
        Figure::Grouped(GroupedBars {
            stem: "hashbench-lookups".into(),
            title: format!(
                "Dash lookups per tier ({}) vs std HashMap",
                tiers.join(", ")
            ),
            subtitle: subtitle(doc),
            x_desc: "lookup threads".into(),
            y_desc: "million positive lookups/s".into(),
            categories: categories.clone(),
            series: metric(|p| p.positive_lookup_mops),
            reference: None,
            caption: format!(
                "Million positive lookups per second (every key present, random order) of the \
                 Dash extendible hash table on each tier ({}), split among the threads, and of \
                 std HashMap in DRAM with the same keys in the same run (SipHash and Dash's \
                 own hash). Dash is the hash table SIGMOD'21 §6.2 joins through on PMem \
                 (Dash, VLDB'20, Fig. 10: lookups scale with threads); this machine has no \
                 PMem, so its file tiers persist by msync.",
                tiers.join(", ")
            ),
        }),
        Figure::Grouped(GroupedBars {
            stem: "hashbench-inserts".into(),
            title: format!(
                "Dash inserts per tier ({}) vs std HashMap",
                tiers.join(", ")
            ),
            subtitle: subtitle(doc),
            x_desc: "insert threads".into(),
            y_desc: "million inserts/s".into(),
            categories,
            series: metric(|p| p.insert_mops),
            reference: None,
            caption: "Million inserts per second into an empty table (Dash's writers are \
                      serialised by its writer lock; the HashMap baselines insert from one \
                      thread whatever the column), each insert made durable as the tier \
                      allows (none in DRAM, msync on a file). Dash VLDB'20 Fig. 10 reports \
                      inserts on PMem; SIGMOD'21 §6.2 builds its join tables this way."
                .into(),
        }),
    ]
}

/// Two decimals, or four where that would read 0.00 (inserts on a disk file).
fn f2(v: f64) -> String {
    if v != 0.0 && v.abs() < 0.01 {
        format!("{v:.4}")
    } else {
        format!("{v:.2}")
    }
}

/// Throughput per structure and thread count, the table of each tier (load factor,
/// splits, persist points), Dash over HashMap in DRAM, and the recovery times.
pub(crate) fn tables(doc: &HashBenchReport) -> Vec<Table> {
    let mut rows = Vec::new();
    for (label, pts) in structures(doc) {
        for p in pts {
            rows.push(vec![
                label.clone(),
                p.threads.to_string(),
                f2(p.insert_mops),
                f2(p.positive_lookup_mops),
                f2(p.negative_lookup_mops),
            ]);
        }
    }
    let throughput = Table {
        head: header(&[
            "structure",
            "threads",
            "inserts (M/s)",
            "positive lookups (M/s)",
            "negative lookups (M/s)",
        ]),
        rows,
    };
    let per_tier = Table {
        head: header(&[
            "Dash tier",
            "durability",
            "keys",
            "load factor",
            "fill at split",
            "splits",
            "persist points / insert",
        ]),
        rows: doc
            .dash
            .iter()
            .map(|d| {
                vec![
                    d.tier.clone(),
                    d.durability.clone(),
                    d.keys.to_string(),
                    format!("{:.3}", d.load_factor),
                    format!("{:.3}", d.fill_at_split),
                    d.splits.to_string(),
                    f2(d.persist_points_per_insert),
                ]
            })
            .collect(),
    };
    let mut out = vec![throughput, per_tier];
    if !doc.dram_ratios.is_empty() {
        out.push(Table {
            head: header(&[
                "threads",
                "baseline (DRAM)",
                "Dash / baseline, positive lookups",
            ]),
            rows: doc
                .dram_ratios
                .iter()
                .map(|r| {
                    vec![
                        r.threads.to_string(),
                        r.baseline.clone(),
                        format!("{:.2}×", r.dash_over_baseline_positive),
                    ]
                })
                .collect(),
        });
    }
    if !doc.recovery.is_empty() {
        out.push(Table {
            head: header(&[
                format!(
                    "recovery after a crash (in {})",
                    doc.params.recovery_dir.display()
                )
                .as_str(),
                "segments",
                "file (MB)",
                "open (ms)",
                "first lookup (ms)",
                "recover every segment (ms)",
            ]),
            rows: doc
                .recovery
                .iter()
                .map(|r| {
                    vec![
                        format!("{} items", r.items),
                        r.segments.to_string(),
                        format!("{:.1}", r.file_bytes as f64 / 1e6),
                        format!("{:.3}", r.open_ms),
                        format!("{:.3}", r.first_lookup_ms),
                        format!("{:.1}", r.recover_all_ms),
                    ]
                })
                .collect(),
        });
    }
    out
}
