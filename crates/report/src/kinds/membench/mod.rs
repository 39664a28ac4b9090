//! Figures of membench results (SIGMOD'21 §3–§5, Figs 3–13). For every group of runs
//! with the same benchmark name, operation, access mode, pattern and tier (plus any other
//! parameter that varies within it, e.g. the persist instruction), what the data
//! supports:
//!
//! * bandwidth vs access size (log2 axis), one line per thread count (Fig. 3 read,
//!   Fig. 7 write, Figs 12/13 random);
//! * bandwidth vs threads, one line per access size, or per pinning when pinning varies
//!   (Fig. 4 read, Fig. 9 write);
//! * the threads × access size heatmap, colour and printed value = median GiB/s (Fig. 8);
//! * per benchmark name, the latency CDF of each latency run (log ns axis).
//!
//! Mixed runs get their read and write bandwidth drawn separately (Fig. 11). Points are
//! the medians over repetitions (`summary`).

mod charts;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use pmolap_results::membench::{Results, Run};
use pmolap_results::size::format_size;

use crate::draw::{capitalized, header, slug, Figure, Series, MAX_SERIES};
use crate::markup::{capped, Table};
use charts::{heatmaps, latency_chart, size_chart, threads_chart};

/// Every figure the runs of `doc` support.
pub(crate) fn figures(doc: &Results) -> Vec<Figure> {
    let cpu = crate::markup::clip(doc.header.machine.cpu_model.trim());
    let mut figs = figures_of(&doc.runs, Some(cpu.as_str()).filter(|s| !s.is_empty()));
    crate::draw::unique_stems(&mut figs);
    figs
}

/// A run with the parameters that decide where it is plotted, as words.
struct Facts<'a> {
    run: &'a Run,
    op: String,
    pattern: String,
    mode: String,
    tier: String,
    pinning: String,
    /// Parameters that split a group into separate charts when they vary within it.
    extras: Vec<(&'static str, String)>,
}

impl<'a> Facts<'a> {
    fn of(run: &'a Run) -> Facts<'a> {
        let p = &run.params;
        let distribution = word(&p.distribution);
        let distribution = if distribution == "zipf" {
            format!("zipf s={}", p.zipf_s)
        } else {
            distribution
        };
        Facts {
            run,
            op: word(&p.operation),
            pattern: word(&p.pattern),
            mode: word(&p.access_mode),
            tier: p.tier.to_string(),
            pinning: word(&p.pinning),
            extras: vec![
                ("persist", word(&p.persist)),
                ("sfence", if p.sfence { "on".into() } else { "off".into() }),
                ("distribution", distribution),
                ("write threads", p.write_threads.to_string()),
                (
                    "thread node",
                    p.thread_node
                        .map_or_else(|| "any".to_string(), |n| n.to_string()),
                ),
                ("range", format_size(p.memory_range)),
                ("huge pages", word(&p.huge_pages)),
                ("kernel", p.kernel.clone()),
            ],
        }
    }

    fn extra(&self, key: &str) -> String {
        self.extras
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    }

    /// Whether a parameter that is the same for the whole chart is worth a word in the
    /// subtitle.
    fn worth_showing(&self, key: &str, value: &str) -> bool {
        match key {
            "persist" | "sfence" => self.op == "write" || self.op == "mixed",
            "distribution" => self.pattern == "random",
            "write threads" => self.op == "mixed",
            "thread node" => value != "any",
            "kernel" => value != "auto",
            _ => true,
        }
    }
}

/// A serde enum's (or value's) wire name, e.g. `nt-store`.
fn word<T: Serialize + std::fmt::Debug>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(serde_json::Value::Null) => "none".into(),
        Ok(other) => other.to_string(),
        Err(_) => format!("{v:?}"),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Metric {
    Total,
    Read,
    Write,
}

impl Metric {
    fn value(self, run: &Run) -> Option<f64> {
        let v = match self {
            Metric::Total => Some(run.summary.bandwidth_gib_s_median),
            Metric::Read => run
                .summary
                .read_gib_s_median
                .or_else(|| role_median(run, "read")),
            Metric::Write => run
                .summary
                .write_gib_s_median
                .or_else(|| role_median(run, "write")),
        };
        v.filter(|v| v.is_finite() && *v >= 0.0)
    }
}

fn role_median(run: &Run, role: &str) -> Option<f64> {
    let mut v: Vec<f64> = run
        .reps
        .iter()
        .flat_map(|r| r.groups.iter())
        .filter(|g| g.role == role)
        .map(|g| g.bandwidth_gib_s)
        .collect();
    median(&mut v)
}

fn median(v: &mut [f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// One chart's runs and what they share.
struct Group<'a> {
    runs: Vec<&'a Facts<'a>>,
    /// Slug parts naming the group.
    slug: Vec<String>,
    name: String,
    op: String,
    tier: String,
    pattern: String,
    /// Words for the subtitle.
    notes: Vec<String>,
    pin_varies: bool,
    /// Threads placed on a NUMA node (near/far access).
    numa: bool,
    cpu: Option<String>,
}

/// Which kind of chart a caption is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Chart {
    Size,
    Threads,
    Pinning,
    Heat,
}

impl Group<'_> {
    /// The SIGMOD'21 figure a chart of this group corresponds to.
    fn paper_figure(&self, chart: Chart) -> String {
        let mut fig = match (self.op.as_str(), self.pattern.as_str(), chart) {
            ("mixed", _, _) => "Fig. 11 (mixed read/write bandwidth)",
            ("read", "random", _) => "Fig. 12 (random read bandwidth)",
            ("write", "random", _) => "Fig. 13 (random write bandwidth)",
            ("read", _, Chart::Pinning) => "Fig. 4 (read bandwidth by pinning)",
            ("write", _, Chart::Pinning) => "Fig. 9 (write bandwidth by pinning)",
            ("write", _, Chart::Heat) => "Fig. 8 (write bandwidth by access size and threads)",
            ("write", _, _) => "Fig. 7 (write bandwidth by access size and threads)",
            _ => "Fig. 3 (read bandwidth by access size and threads)",
        }
        .to_string();
        if self.numa {
            fig.push_str(if self.op == "write" {
                "; threads on one NUMA node as in Fig. 10 (multi-socket writes)"
            } else {
                "; threads on one NUMA node as in Figs 5/6 (NUMA effects)"
            });
        }
        fig
    }

    /// The report's caption of a chart: what was measured, where, which paper figure —
    /// the thread counts, the memory range and the repetitions as run.
    fn caption(&self, what: &str, chart: Chart) -> String {
        let threads: BTreeSet<usize> = self.runs.iter().map(|f| f.run.params.threads).collect();
        let ranges: BTreeSet<u64> = self
            .runs
            .iter()
            .map(|f| f.run.params.memory_range)
            .collect();
        let reps: BTreeSet<usize> = self.runs.iter().map(|f| f.run.reps.len()).collect();
        let what = capitalized(what);
        format!(
            "{what}: benchmark `{}`, {} runs ({} {}, range {}, {} each) on tier {}{}. \
             Corresponds to SIGMOD'21 {}.",
            self.name,
            self.runs.len(),
            if self.op == "mixed" {
                "read threads"
            } else {
                "threads"
            },
            super::listed(&threads, |t| t.to_string()),
            super::listed(&ranges, format_size),
            super::reps_of(&reps),
            self.tier,
            self.cpu
                .as_deref()
                .map_or(String::new(), |c| format!(" ({c})")),
            self.paper_figure(chart)
        )
    }
}

/// Everything worth drawing for these runs.
fn figures_of(runs: &[Run], cpu: Option<&str>) -> Vec<Figure> {
    let facts: Vec<Facts> = runs.iter().map(Facts::of).collect();
    let mut out = Vec::new();

    // Bandwidth charts, per (name, operation, access mode, pattern, tier).
    let mut base: BTreeMap<(&str, &str, &str, &str, &str), Vec<&Facts>> = BTreeMap::new();
    for f in facts.iter().filter(|f| f.op != "latency") {
        base.entry((
            f.run.name.as_str(),
            f.op.as_str(),
            f.mode.as_str(),
            f.pattern.as_str(),
            f.tier.as_str(),
        ))
        .or_default()
        .push(f);
    }
    for ((name, op, mode, pattern, tier), members) in &base {
        let n_extras = members[0].extras.len();
        let varying: Vec<usize> = (0..n_extras)
            .filter(|&i| {
                members
                    .iter()
                    .map(|f| &f.extras[i].1)
                    .collect::<BTreeSet<_>>()
                    .len()
                    > 1
            })
            .collect();
        let pins: BTreeSet<&str> = members.iter().map(|f| f.pinning.as_str()).collect();
        let mut split: BTreeMap<Vec<&str>, Vec<&Facts>> = BTreeMap::new();
        for &f in members {
            split
                .entry(varying.iter().map(|&i| f.extras[i].1.as_str()).collect())
                .or_default()
                .push(f);
        }
        for (values, runs) in split {
            let first = runs[0];
            let mut slug = vec![
                name.to_string(),
                op.to_string(),
                mode.to_string(),
                pattern.to_string(),
                tier.to_string(),
            ];
            let mut notes = vec![format!("{pattern}, {mode} access")];
            if pins.len() == 1 {
                notes.push(format!("pinning {}", first.pinning));
            }
            for (i, (key, value)) in first.extras.iter().enumerate() {
                if let Some(pos) = varying.iter().position(|&v| v == i) {
                    slug.push(format!("{key} {}", values[pos]));
                    notes.push(format!("{key} {}", values[pos]));
                } else if first.worth_showing(key, value) {
                    notes.push(format!("{key} {value}"));
                }
            }
            let reps = runs.iter().map(|f| f.run.reps.len()).max().unwrap_or(0);
            let isas: BTreeSet<&str> = runs.iter().map(|f| isa(f.run)).collect();
            if !isas.is_empty() {
                notes.push(format!(
                    "{} kernels",
                    isas.into_iter().collect::<Vec<_>>().join("/")
                ));
            }
            notes.push(format!("median of {reps} rep{}", plural(reps)));
            if let Some(cpu) = cpu {
                notes.push(cpu.to_string());
            }
            let group = Group {
                runs,
                slug,
                name: name.to_string(),
                op: op.to_string(),
                tier: tier.to_string(),
                pattern: pattern.to_string(),
                numa: first.extra("thread node") != "any",
                notes,
                pin_varies: pins.len() > 1,
                cpu: cpu.map(str::to_string),
            };
            let metrics: &[Metric] = if *op == "mixed" {
                &[Metric::Read, Metric::Write]
            } else {
                &[Metric::Total]
            };
            for &metric in metrics {
                out.extend(size_chart(&group, metric).map(Figure::Lines));
                out.extend(threads_chart(&group, metric).map(Figure::Lines));
                out.extend(heatmaps(&group, metric).into_iter().map(Figure::Heat));
            }
        }
    }

    // Latency CDFs, one chart per benchmark name.
    let mut by_name: BTreeMap<&str, Vec<&Facts>> = BTreeMap::new();
    for f in &facts {
        if f.run
            .reps
            .iter()
            .any(|r| r.latency.as_ref().is_some_and(|l| !l.cdf.is_empty()))
        {
            by_name.entry(&f.run.name).or_default().push(f);
        }
    }
    for (name, runs) in by_name {
        out.extend(latency_chart(name, &runs, cpu).map(Figure::Lines));
    }

    out
}

/// The instruction set of the kernel that ran (`avx512` of `avx512: avx512 read 4096B ...`).
fn isa(run: &Run) -> &str {
    run.kernel.split([':', ' ']).next().unwrap_or("").trim()
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The operation, or for a mixed run the part plotted ("mixed-run read").
fn metric_word(op: &str, metric: Metric) -> String {
    match metric {
        Metric::Total => op.to_string(),
        Metric::Read => format!("{op}-run read"),
        Metric::Write => format!("{op}-run write"),
    }
}

fn metric_slug(metric: Metric) -> Option<&'static str> {
    match metric {
        Metric::Total => None,
        Metric::Read => Some("read"),
        Metric::Write => Some("write"),
    }
}

fn y_desc(metric: Metric) -> String {
    match metric {
        Metric::Total => "bandwidth (GiB/s)".into(),
        Metric::Read => "read bandwidth (GiB/s)".into(),
        Metric::Write => "write bandwidth (GiB/s)".into(),
    }
}

fn stem(parts: &[String], metric: Metric, suffix: &str) -> String {
    let mut all: Vec<&str> = parts.iter().map(String::as_str).collect();
    all.extend(metric_slug(metric));
    all.push(suffix);
    slug(&all.join(" "))
}

/// Keeps at most [`MAX_SERIES`] lines, evenly spread (first and last kept); says so.
fn cap(series: Vec<Series>, what: &str) -> (Vec<Series>, Option<String>) {
    let n = series.len();
    if n <= MAX_SERIES {
        return (series, None);
    }
    let keep: BTreeSet<usize> = (0..MAX_SERIES)
        .map(|i| i * (n - 1) / (MAX_SERIES - 1))
        .collect();
    let kept: Vec<Series> = series
        .into_iter()
        .enumerate()
        .filter(|(i, _)| keep.contains(i))
        .map(|(_, s)| s)
        .collect();
    let note = format!("showing {} of {n} {what}", kept.len());
    (kept, Some(note))
}

/// Every run, one row each.
pub(super) fn table(r: &Results) -> Table {
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
