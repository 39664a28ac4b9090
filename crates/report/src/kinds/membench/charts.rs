//! The membench charts of one group of runs: bandwidth vs access size, vs threads, the
//! threads × access size heatmap, and the latency CDF of a benchmark's latency runs.

use std::collections::{BTreeMap, BTreeSet};

use pmolap_results::size::format_size;

use super::{cap, mean, metric_word, plural, stem, y_desc, Chart, Facts, Group, Metric};
use crate::draw::{slug, HeatFigure, LineFigure, Series, XAxis, SEP};

pub(super) fn size_chart(g: &Group, metric: Metric) -> Option<LineFigure> {
    let mut acc: BTreeMap<(usize, &str), BTreeMap<u64, Vec<f64>>> = BTreeMap::new();
    for f in &g.runs {
        if let Some(v) = metric.value(f.run) {
            let pin = if g.pin_varies { f.pinning.as_str() } else { "" };
            acc.entry((f.run.params.threads, pin))
                .or_default()
                .entry(f.run.params.access_size)
                .or_default()
                .push(v);
        }
    }
    let sizes: BTreeSet<u64> = acc.values().flat_map(|m| m.keys().copied()).collect();
    if sizes.len() < 2 {
        return None;
    }
    let series: Vec<Series> = acc
        .into_iter()
        .map(|((threads, pin), pts)| Series {
            label: with_pin(format!("{threads} thread{}", plural(threads)), pin),
            points: pts
                .into_iter()
                .map(|(s, v)| ((s.max(1) as f64).log2(), mean(&v)))
                .collect(),
        })
        .collect();
    let (series, note) = cap(series, "thread counts");
    let thread_word = if g.op == "mixed" {
        "read threads"
    } else {
        "threads"
    };
    let mut notes = g.notes.clone();
    notes.extend(
        note.map(|n| format!("{n} (see the heatmap)").replace("thread counts", thread_word)),
    );
    Some(LineFigure {
        stem: stem(&g.slug, metric, "bw-vs-size"),
        title: format!(
            "{}: {} bandwidth vs access size on {}",
            g.name,
            metric_word(&g.op, metric),
            g.tier
        ),
        subtitle: notes.join(SEP),
        x_desc: "access size (bytes, log2 scale)".into(),
        y_desc: y_desc(metric),
        x_axis: XAxis::Log2Bytes,
        y_max: None,
        markers: true,
        series,
        caption: g.caption(
            &format!(
                "{} bandwidth by access size, one line per thread count",
                metric_word(&g.op, metric)
            ),
            Chart::Size,
        ),
    })
}

fn with_pin(label: String, pin: &str) -> String {
    if pin.is_empty() {
        label
    } else {
        format!("{label}, pinning {pin}")
    }
}

pub(super) fn threads_chart(g: &Group, metric: Metric) -> Option<LineFigure> {
    let mut acc: BTreeMap<(u64, &str), BTreeMap<usize, Vec<f64>>> = BTreeMap::new();
    for f in &g.runs {
        if let Some(v) = metric.value(f.run) {
            let pin = if g.pin_varies { f.pinning.as_str() } else { "" };
            acc.entry((f.run.params.access_size, pin))
                .or_default()
                .entry(f.run.params.threads)
                .or_default()
                .push(v);
        }
    }
    let threads: BTreeSet<usize> = acc.values().flat_map(|m| m.keys().copied()).collect();
    if threads.len() < 2 {
        return None;
    }
    let sizes: BTreeSet<u64> = acc.keys().map(|k| k.0).collect();
    let mut notes = g.notes.clone();
    if sizes.len() == 1 {
        notes.insert(
            1,
            format!("access size {}", format_size(*sizes.first().unwrap_or(&0))),
        );
    }
    let mut keys: Vec<(u64, &str)> = acc.keys().copied().collect();
    // Like Fig. 4: with one access size and several pinnings, one line per pinning.
    keys.sort_by_key(|&(s, p)| (p, s));
    let series: Vec<Series> = keys
        .into_iter()
        .map(|key| {
            let (size, pin) = key;
            let label = match (sizes.len() == 1, pin.is_empty()) {
                (true, false) => format!("pinning {pin}"),
                _ => with_pin(format!("{} access", format_size(size)), pin),
            };
            let pts = acc.remove(&key).unwrap_or_default();
            Series {
                label,
                points: pts.into_iter().map(|(t, v)| (t as f64, mean(&v))).collect(),
            }
        })
        .collect();
    let (series, note) = cap(series, "lines");
    notes.extend(note);
    Some(LineFigure {
        stem: stem(&g.slug, metric, "bw-vs-threads"),
        title: format!(
            "{}: {} bandwidth vs threads on {}",
            g.name,
            metric_word(&g.op, metric),
            g.tier
        ),
        subtitle: notes.join(SEP),
        x_desc: if g.op == "mixed" {
            "read threads".into()
        } else {
            "threads".into()
        },
        y_desc: y_desc(metric),
        x_axis: XAxis::Linear,
        y_max: None,
        markers: true,
        series,
        caption: g.caption(
            &format!(
                "{} bandwidth by thread count, one line per {}",
                metric_word(&g.op, metric),
                if g.pin_varies {
                    "pinning"
                } else {
                    "access size"
                }
            ),
            if g.pin_varies {
                Chart::Pinning
            } else {
                Chart::Threads
            },
        ),
    })
}

pub(super) fn heatmaps(g: &Group, metric: Metric) -> Vec<HeatFigure> {
    let mut by_pin: BTreeMap<&str, BTreeMap<(usize, u64), Vec<f64>>> = BTreeMap::new();
    for f in &g.runs {
        if let Some(v) = metric.value(f.run) {
            let p = &f.run.params;
            by_pin
                .entry(f.pinning.as_str())
                .or_default()
                .entry((p.threads, p.access_size))
                .or_default()
                .push(v);
        }
    }
    let mut out = Vec::new();
    for (pin, cells) in by_pin {
        let threads: Vec<usize> = cells
            .keys()
            .map(|k| k.0)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let sizes: Vec<u64> = cells
            .keys()
            .map(|k| k.1)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        if threads.len() < 2 || sizes.len() < 2 {
            continue;
        }
        let grid = threads
            .iter()
            .map(|&t| {
                sizes
                    .iter()
                    .map(|&s| cells.get(&(t, s)).map(|v| mean(v)))
                    .collect()
            })
            .collect();
        let mut slug_parts = g.slug.clone();
        let mut notes = g.notes.clone();
        if g.pin_varies {
            slug_parts.push(format!("pin {pin}"));
            notes.insert(1, format!("pinning {pin}"));
        }
        let thread_word = if g.op == "mixed" {
            "read threads"
        } else {
            "threads"
        };
        out.push(HeatFigure {
            stem: stem(&slug_parts, metric, "heatmap"),
            title: format!(
                "{}: {} bandwidth (GiB/s) by {thread_word} and access size on {}",
                g.name,
                metric_word(&g.op, metric),
                g.tier
            ),
            subtitle: notes.join(SEP),
            x_desc: "access size (bytes)".into(),
            y_desc: thread_word.into(),
            x_labels: sizes.iter().map(|&s| format_size(s)).collect(),
            y_labels: threads.iter().map(|t| t.to_string()).collect(),
            cells: grid,
            caption: g.caption(
                &format!(
                    "{} bandwidth (median GiB/s) for every measured pair of {thread_word} and access size",
                    metric_word(&g.op, metric)
                ),
                Chart::Heat,
            ),
        });
    }
    out
}

pub(super) fn latency_chart(name: &str, runs: &[&Facts], cpu: Option<&str>) -> Option<LineFigure> {
    // Label parts that vary between the runs of this chart.
    type Part = fn(&Facts) -> String;
    // (key, label, worth a word in the subtitle when the same for all runs)
    let candidates: [(Part, Part, bool); 7] = [
        (
            |f| f.pattern.clone(),
            |f| format!("{} load", f.pattern),
            false,
        ),
        (
            |f| format_size(f.run.params.access_size),
            |f| format!("{} accesses", format_size(f.run.params.access_size)),
            false,
        ),
        (|f| f.mode.clone(), |f| format!("{} load", f.mode), false),
        (
            |f| f.pinning.clone(),
            |f| format!("pinning {}", f.pinning),
            true,
        ),
        (
            |f| format_size(f.run.params.memory_range),
            |f| format!("range {}", format_size(f.run.params.memory_range)),
            true,
        ),
        (
            |f| f.extra("thread node"),
            |f| format!("thread node {}", f.extra("thread node")),
            true,
        ),
        (
            |f| f.extra("huge pages"),
            |f| format!("huge pages {}", f.extra("huge pages")),
            true,
        ),
    ];
    let varies = |key: Part| runs.iter().map(|f| key(f)).collect::<BTreeSet<_>>().len() > 1;
    let varying: Vec<Part> = candidates
        .iter()
        .filter(|(k, _, _)| varies(*k))
        .map(|(_, l, _)| *l)
        .collect();
    let constant: Vec<Part> = candidates
        .iter()
        .filter(|(k, _, show)| *show && !varies(*k))
        .map(|(_, l, _)| *l)
        .collect();

    let mut series = Vec::new();
    let mut reps = 0;
    for f in runs {
        // The repetition with the median p50 stands for the run.
        let mut lats: Vec<_> = f
            .run
            .reps
            .iter()
            .filter_map(|r| r.latency.as_ref())
            .filter(|l| !l.cdf.is_empty())
            .collect();
        if lats.is_empty() {
            continue;
        }
        reps = reps.max(lats.len());
        lats.sort_by(|a, b| a.p50_ns.total_cmp(&b.p50_ns));
        let lat = lats[(lats.len() - 1) / 2];
        let points: Vec<(f64, f64)> = lat
            .cdf
            .iter()
            .filter(|(ns, q)| *ns > 0.0 && ns.is_finite() && q.is_finite())
            .map(|&(ns, q)| (ns.log10(), q))
            .collect();
        if points.is_empty() {
            continue;
        }
        let load = f.run.params.threads;
        let mut label = vec![
            f.tier.clone(),
            format!("{load} load thread{}", plural(load)),
        ];
        label.extend(varying.iter().map(|part| part(f)));
        let load_bw = lat
            .load_bandwidth_gib_s
            .or((load > 0).then_some(f.run.summary.bandwidth_gib_s_median));
        let stats = match load_bw {
            Some(bw) if load > 0 => format!("p50 {}, load {bw:.1} GiB/s", fmt_ns(lat.p50_ns)),
            _ => format!("p50 {}", fmt_ns(lat.p50_ns)),
        };
        series.push(Series {
            label: format!("{} ({stats})", label.join(", ")),
            points,
        });
    }
    if series.is_empty() {
        return None;
    }
    let (series, note) = cap(series, "runs");
    let tiers: Vec<&str> = runs
        .iter()
        .map(|f| f.tier.as_str())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let first = runs[0];
    let mut notes = vec!["dependent loads (pointer chase)".to_string()];
    notes.extend(
        constant
            .iter()
            .map(|part| part(first))
            .filter(|n| n != "thread node any"),
    );
    notes.push(format!("median-p50 repetition of {reps}"));
    notes.extend(note);
    notes.extend(cpu.map(str::to_string));
    Some(LineFigure {
        stem: slug(&format!("{name} latency cdf")),
        title: format!("{name}: load latency CDF on {}", tiers.join(", ")),
        subtitle: notes.join(SEP),
        x_desc: "latency per load (ns, log scale)".into(),
        y_desc: "cumulative fraction of loads".into(),
        x_axis: XAxis::Log10Ns,
        y_max: Some(1.0),
        markers: false,
        series,
        caption: format!(
            "Load latency CDF of dependent loads (pointer chase), benchmark `{name}` on {}{}, \
             one line per run ({} load threads, {}, the repetition with the median p50 of {}); \
             idle (0 load threads) and loaded latency. No figure of SIGMOD'21 shows latency \
             CDFs (its §2 quotes idle latencies); loaded latency follows PerMA-Bench.",
            tiers.join(", "),
            cpu.map_or(String::new(), |c| format!(" ({c})")),
            super::super::listed(&runs.iter().map(|f| f.run.params.threads).collect(), |t| t
                .to_string()),
            ranges_per_tier(runs),
            super::super::reps_of(&runs.iter().map(|f| f.run.reps.len()).collect()),
        ),
    })
}

/// The memory range the runs chased through: one for all, or each tier's when they
/// differ (a disk tier is often run on a smaller one).
fn ranges_per_tier(runs: &[&Facts]) -> String {
    let all: BTreeSet<u64> = runs.iter().map(|f| f.run.params.memory_range).collect();
    if all.len() == 1 {
        return format!("range {}", super::super::listed(&all, format_size));
    }
    let mut per: BTreeMap<String, BTreeSet<u64>> = BTreeMap::new();
    for f in runs {
        per.entry(crate::draw::palette::short_tier(&f.tier))
            .or_default()
            .insert(f.run.params.memory_range);
    }
    let parts: Vec<String> = per
        .iter()
        .map(|(t, r)| format!("{t} {}", super::super::listed(r, format_size)))
        .collect();
    format!("range per tier: {}", parts.join("; "))
}

fn fmt_ns(ns: f64) -> String {
    if ns >= 100.0 {
        format!("{ns:.0} ns")
    } else if ns >= 10.0 {
        format!("{ns:.1} ns")
    } else {
        format!("{ns:.2} ns")
    }
}
