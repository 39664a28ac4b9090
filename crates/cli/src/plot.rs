//! `pmolap plot RESULTS.json -o DIR`: PNG and SVG figures from a membench results file.
//!
//! Made from the JSON alone (DESIGN.md: results are data). For every group of runs with
//! the same benchmark name, operation, access mode, pattern and tier (plus any other
//! parameter that varies within it, e.g. the persist instruction), it draws what the data
//! supports:
//!
//! * `<group>-bw-vs-size`: bandwidth vs access size (log2 axis), one line per thread count
//!   (SIGMOD'21 Fig. 3/7);
//! * `<group>-bw-vs-threads`: bandwidth vs threads, one line per access size, or per
//!   pinning when pinning varies (Fig. 4);
//! * `<group>-heatmap`: threads × access size, colour and printed value = median GiB/s
//!   (Fig. 8);
//! * `<name>-latency-cdf`: the latency CDF of each latency run (log ns axis).
//!
//! Mixed runs get their read and write bandwidth plotted separately. Points are the
//! medians over repetitions (`summary`). Text is drawn with an embedded DejaVu Sans
//! (plotters' `ab_glyph` backend: no system fonts needed).

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{bail, Context, Result};
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{register_font, FontStyle};
use serde::Deserialize;
use serde::Serialize;

use pmolap_bench::membench::Run;
use pmolap_bench::size::format_size;

/// DejaVu Sans (Bitstream Vera license, see `assets/DejaVuSans-LICENSE.txt`).
static FONT_BYTES: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");
const FONT: &str = "sans-serif";
/// At most this many lines per chart; the rest are left out (and the chart says so).
const MAX_SERIES: usize = 10;

/// Reads a membench results file and writes PNG and SVG plots of it into `out_dir`
/// (created if missing). Returns the files written. `out_dir` is checked first: it
/// must be a directory this user can write in, or one that can be created.
pub fn run(results: &Path, out_dir: &Path) -> Result<Vec<PathBuf>> {
    crate::membench_cmd::check_output(&out_dir.join("plot.png"))
        .with_context(|| format!("cannot write plots into {}", out_dir.display()))?;
    let name = results.display();
    let text =
        fs::read_to_string(results).with_context(|| format!("cannot read results file {name}"))?;
    if serde_json::from_str::<serde_json::Value>(&text).is_ok_and(|v| v["kind"] == "elfbench") {
        return crate::plot_elf::run(results, out_dir);
    }
    if serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| {
            v.get("kind")
                .and_then(|k| k.as_str())
                .map(|k| k == "iobench")
        })
        == Some(true)
    {
        return crate::plot_io::run(results, out_dir);
    }
    let doc: Doc = serde_json::from_str(&text)
        .with_context(|| format!("{name} is not a membench results file"))?;
    if let Some(kind) = doc.kind.as_deref() {
        if kind != "membench" {
            bail!("{name} holds `{kind}` results; pmolap plot draws membench results");
        }
    }
    let cpu = doc
        .machine
        .as_ref()
        .and_then(|m| m.get("cpu_model"))
        .and_then(|v| v.as_str())
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let figures = figures(&doc.runs, cpu);
    if figures.is_empty() {
        bail!(
            "nothing to plot in {name}: {} run(s), but no group has two or more access sizes or thread counts, \
             and no run measured latency",
            doc.runs.len()
        );
    }
    fs::create_dir_all(out_dir)
        .with_context(|| format!("cannot create output directory {}", out_dir.display()))?;
    ensure_font()?;
    let mut written = Vec::new();
    for fig in &figures {
        written.extend(write_figure(fig, out_dir)?);
    }
    Ok(written)
}

/// The part of a results document the plots need (the machine section is read loosely,
/// so that plots survive changes to it).
#[derive(Deserialize)]
struct Doc {
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    machine: Option<serde_json::Value>,
    runs: Vec<Run>,
}

pub(crate) fn ensure_font() -> Result<()> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    if *REGISTERED.get_or_init(|| register_font(FONT, FontStyle::Normal, FONT_BYTES).is_ok()) {
        Ok(())
    } else {
        bail!("the embedded font DejaVuSans.ttf could not be loaded")
    }
}

// ---------------------------------------------------------------------------------------
// What to draw
// ---------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum XAxis {
    /// x = log2(bytes), labels 64B, 4K, 1M...
    Log2Bytes,
    /// x = value (threads).
    Linear,
    /// x = log10(ns).
    Log10Ns,
}

#[derive(Debug, Clone)]
pub(crate) struct Series {
    pub(crate) label: String,
    /// In axis space (see [`XAxis`]).
    pub(crate) points: Vec<(f64, f64)>,
}

#[derive(Debug)]
pub(crate) struct LineFigure {
    pub(crate) stem: String,
    pub(crate) title: String,
    pub(crate) subtitle: String,
    pub(crate) x_desc: String,
    pub(crate) y_desc: String,
    pub(crate) x_axis: XAxis,
    /// Fixed top of the y axis (CDF: 1); otherwise from the data.
    pub(crate) y_max: Option<f64>,
    pub(crate) markers: bool,
    pub(crate) series: Vec<Series>,
}

#[derive(Debug)]
pub(crate) struct HeatFigure {
    stem: String,
    title: String,
    subtitle: String,
    x_desc: String,
    y_desc: String,
    x_labels: Vec<String>,
    y_labels: Vec<String>,
    /// `cells[y][x]`, GiB/s.
    cells: Vec<Vec<Option<f64>>>,
}

#[derive(Debug)]
pub(crate) enum Figure {
    Lines(LineFigure),
    Heat(HeatFigure),
}

impl Figure {
    fn stem(&self) -> &str {
        match self {
            Figure::Lines(f) => &f.stem,
            Figure::Heat(f) => &f.stem,
        }
    }

    fn size(&self) -> (u32, u32) {
        match self {
            Figure::Lines(_) => (1100, 640),
            Figure::Heat(f) => {
                let nx = f.x_labels.len() as u32;
                let ny = f.y_labels.len() as u32;
                (
                    (nx * 58 + 300).clamp(900, 2400),
                    (ny * 30 + 200).clamp(520, 1600),
                )
            }
        }
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB::ErrorType: 'static,
    {
        match self {
            Figure::Lines(f) => draw_lines(root, f),
            Figure::Heat(f) => draw_heat(root, f),
        }
    }
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
    /// Words for the subtitle.
    notes: Vec<String>,
    pin_varies: bool,
}

/// Everything worth drawing for these runs.
fn figures(runs: &[Run], cpu: Option<&str>) -> Vec<Figure> {
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
                notes,
                pin_varies: pins.len() > 1,
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

    // File names must not collide.
    let mut seen = HashSet::new();
    for fig in &mut out {
        let stem = match fig {
            Figure::Lines(f) => &mut f.stem,
            Figure::Heat(f) => &mut f.stem,
        };
        let base = stem.clone();
        let mut n = 2;
        while !seen.insert(stem.clone()) {
            *stem = format!("{base}-{n}");
            n += 1;
        }
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

/// Lower-case letters, digits and single dashes.
pub(crate) fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() || c == '.' {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_matches(|c| c == '-' || c == '.').replace('.', "_");
    if out.is_empty() {
        "plot".into()
    } else {
        out
    }
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

fn size_chart(g: &Group, metric: Metric) -> Option<LineFigure> {
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
    })
}

fn with_pin(label: String, pin: &str) -> String {
    if pin.is_empty() {
        label
    } else {
        format!("{label}, pinning {pin}")
    }
}

fn threads_chart(g: &Group, metric: Metric) -> Option<LineFigure> {
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
    })
}

fn heatmaps(g: &Group, metric: Metric) -> Vec<HeatFigure> {
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
        });
    }
    out
}

fn latency_chart(name: &str, runs: &[&Facts], cpu: Option<&str>) -> Option<LineFigure> {
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
    })
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

// ---------------------------------------------------------------------------------------
// Drawing
// ---------------------------------------------------------------------------------------

pub(crate) fn write_figure(fig: &Figure, dir: &Path) -> Result<Vec<PathBuf>> {
    save_figure(
        dir,
        fig.stem(),
        fig.size(),
        |r| fig.draw(r),
        |r| fig.draw(r),
    )
}

/// Draws one figure as `<stem>.png` and `<stem>.svg` in `dir`: each is rendered in
/// memory and published whole (staged beside its name, then renamed), so a failure
/// leaves no partial file behind and its message names the path.
pub(crate) fn save_figure(
    dir: &Path,
    stem: &str,
    (w, h): (u32, u32),
    draw_png: impl FnOnce(&DrawingArea<BitMapBackend<'_>, Shift>) -> Result<()>,
    draw_svg: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> Result<()>,
) -> Result<Vec<PathBuf>> {
    let png = dir.join(format!("{stem}.png"));
    let mut rgb = vec![0u8; w as usize * h as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
        draw_png(&root).with_context(|| format!("cannot draw {}", png.display()))?;
    }
    pmolap_tier::durable::publish_file(&png, &encode_png(&rgb, w, h))?;
    let svg = dir.join(format!("{stem}.svg"));
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (w, h)).into_drawing_area();
        draw_svg(&root).with_context(|| format!("cannot draw {}", svg.display()))?;
    }
    pmolap_tier::durable::publish_file(&svg, text.as_bytes())?;
    Ok(vec![png, svg])
}

/// An 8-bit RGB PNG of `rgb` (`w` × `h` pixels, rows top to bottom): one IDAT chunk of
/// zlib-compressed unfiltered rows.
fn encode_png(rgb: &[u8], w: u32, h: u32) -> Vec<u8> {
    use std::io::Write as _;
    let row = w as usize * 3;
    let mut raw = Vec::with_capacity((row + 1) * h as usize);
    for line in rgb.chunks(row.max(1)) {
        raw.push(0); // filter type: none
        raw.extend_from_slice(line);
    }
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    // Writing into a Vec cannot fail.
    let idat = z
        .write_all(&raw)
        .and_then(|()| z.finish())
        .unwrap_or_default();
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&w.to_be_bytes());
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]); // 8 bits, RGB, deflate, no filter, no interlace
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    for (kind, data) in [
        (b"IHDR", &ihdr[..]),
        (b"IDAT", &idat[..]),
        (b"IEND", &[][..]),
    ] {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let start = out.len();
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        let crc = crc32(&out[start..]);
        out.extend_from_slice(&crc.to_be_bytes());
    }
    out
}

/// CRC-32 (IEEE), as PNG chunks carry.
fn crc32(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in bytes {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// Tableau 10.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];
const GRID: RGBColor = RGBColor(225, 225, 225);
const GREY: RGBColor = RGBColor(90, 90, 90);

fn centered(size: u32) -> TextStyle<'static> {
    (FONT, size)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Center))
}

/// Subtitle parts are joined with this.
pub(crate) const SEP: &str = " · ";

/// Draws the title (shrunk to fit) and the subtitle (wrapped onto a second line if need
/// be) at the top of `root`; returns the area below them.
fn draw_heading<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    subtitle: &str,
) -> Result<DrawingArea<DB, Shift>>
where
    DB::ErrorType: 'static,
{
    let (w, _) = root.dim_in_pixel();
    let width = |text: &str, size: u32| -> Result<u32> {
        Ok(root.estimate_text_size(text, &centered(size))?.0 + 24)
    };
    let mut title_size = 24;
    while title_size > 12 && width(title, title_size)? > w {
        title_size -= 1;
    }
    // Greedy wrap of the subtitle's parts onto as few lines as fit (at most three).
    let sub_size = 15;
    let mut lines: Vec<String> = Vec::new();
    for part in subtitle.split(SEP) {
        match lines.last_mut() {
            Some(line) if width(&format!("{line}{SEP}{part}"), sub_size)? <= w => {
                line.push_str(SEP);
                line.push_str(part);
            }
            _ => lines.push(part.to_string()),
        }
    }
    if lines.len() > 3 {
        let rest = lines.split_off(2).join(SEP);
        lines.push(rest);
    }
    let cx = (w / 2) as i32;
    root.draw(&Text::new(title, (cx, 22), centered(title_size)))?;
    let mut y = 50;
    for line in &lines {
        let mut size = sub_size;
        while size > 9 && width(line, size)? > w {
            size -= 1;
        }
        root.draw(&Text::new(
            line.as_str(),
            (cx, y),
            centered(size).color(&GREY),
        ))?;
        y += 20;
    }
    Ok(root.split_vertically(y + 4).1)
}

fn tick_label(axis: XAxis, v: f64) -> String {
    match axis {
        XAxis::Log2Bytes => format_size(2f64.powf(v).round() as u64),
        XAxis::Linear => {
            if (v - v.round()).abs() < 1e-9 {
                format!("{}", v.round() as i64)
            } else {
                format!("{v}")
            }
        }
        XAxis::Log10Ns => {
            let ns = 10f64.powf(v);
            // Three significant digits at most.
            let mag = 10f64.powi(ns.log10().floor() as i32 - 2);
            let r = (ns / mag).round() * mag;
            if r >= 1000.0 {
                format!("{}k", ((r / 1000.0) * 100.0).round() / 100.0)
            } else if r >= 1.0 {
                format!("{}", r.round() as u64)
            } else {
                format!("{r:.2}")
            }
        }
    }
}

/// (low, high, tick positions) of the x axis.
fn x_range(axis: XAxis, xs: &[f64]) -> (f64, f64, Vec<f64>) {
    let min = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    match axis {
        XAxis::Log2Bytes => {
            let (lo, hi) = (min.ceil() as i64, max.floor() as i64);
            let step = ((hi - lo) / 16 + 1).max(1);
            let ticks = (lo..=hi).step_by(step as usize).map(|v| v as f64).collect();
            (min - 0.4, max + 0.4, ticks)
        }
        XAxis::Linear => {
            let distinct: BTreeSet<i64> = xs.iter().map(|x| x.round() as i64).collect();
            let hi = max + (max * 0.04).max(0.5);
            let ticks = if distinct.len() <= 14 && is_spread(&distinct, max) {
                distinct.into_iter().map(|v| v as f64).collect()
            } else {
                let step = [
                    1.0, 2.0, 4.0, 5.0, 8.0, 10.0, 16.0, 20.0, 25.0, 32.0, 50.0, 64.0, 100.0,
                    128.0, 256.0,
                ]
                .into_iter()
                .find(|s| max / s <= 12.0)
                .unwrap_or((max / 10.0).ceil());
                (0..)
                    .map(|i| i as f64 * step)
                    .take_while(|v| *v <= max)
                    .collect()
            };
            (0.0, hi, ticks)
        }
        XAxis::Log10Ns => {
            let span = (max - min).max(0.2);
            let (lo, hi) = (min - 0.04 * span, max + 0.04 * span);
            let in_range = |mults: &[f64]| -> Vec<f64> {
                let mut t = Vec::new();
                for e in (lo.floor() as i32)..=(hi.ceil() as i32) {
                    for m in mults {
                        let v = (m * 10f64.powi(e)).log10();
                        if v >= lo && v <= hi {
                            t.push(v);
                        }
                    }
                }
                t
            };
            let mut ticks = in_range(&[1.0, 2.0, 5.0]);
            if ticks.len() < 5 {
                let fine = in_range(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
                if fine.len() <= 14 {
                    ticks = fine;
                }
            } else if ticks.len() > 12 {
                ticks = in_range(&[1.0]);
            }
            // No two labels on top of each other.
            let mut kept: Vec<f64> = Vec::new();
            for t in ticks {
                if kept.last().is_none_or(|last| t - last >= 0.05 * (hi - lo)) {
                    kept.push(t);
                }
            }
            let ticks = kept;
            (lo, hi, ticks)
        }
    }
}

/// Whether measured thread counts make good ticks (not crowded at the low end).
fn is_spread(values: &BTreeSet<i64>, max: f64) -> bool {
    let v: Vec<i64> = values.iter().copied().collect();
    let min_gap = v.windows(2).map(|w| w[1] - w[0]).min().unwrap_or(1) as f64;
    min_gap / max.max(1.0) >= 0.025
}

fn y_label(v: f64, y_max: f64) -> String {
    if y_max >= 20.0 {
        format!("{v:.0}")
    } else if y_max >= 2.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// A linear f64 axis with exactly the given ticks (labels come from a formatter).
#[derive(Debug, Clone)]
struct Ticked {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
}

impl Ticked {
    fn new(lo: f64, hi: f64, ticks: Vec<f64>) -> Ticked {
        let hi = if hi > lo { hi } else { lo + 1.0 };
        Ticked { lo, hi, ticks }
    }
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let f = (value - self.lo) / (self.hi - self.lo);
        (f64::from(limit.0) + f * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

fn draw_lines<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, fig: &LineFigure) -> Result<()>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let (w, _) = root.dim_in_pixel();
    let body = draw_heading(root, &fig.title, &fig.subtitle)?;

    let text = (FONT, 15)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    let mut legend_w = 0;
    for s in &fig.series {
        legend_w = legend_w.max(root.estimate_text_size(&s.label, &text)?.0);
    }
    let legend_w = (legend_w + 60).clamp(120, w / 3);
    let (plot, legend) = body.split_horizontally(w - legend_w);

    let xs: Vec<f64> = fig
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    let (x0, x1, ticks) = x_range(fig.x_axis, &xs);
    let y_top = fig
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0, f64::max);
    let y_max = fig
        .y_max
        .unwrap_or(if y_top > 0.0 { y_top * 1.1 } else { 1.0 });
    let y_max = if fig.y_max.is_some() {
        y_max + 0.02
    } else {
        y_max
    };

    let mut chart = ChartBuilder::on(&plot)
        .margin_left(10)
        .margin_right(16)
        .margin_top(8)
        .margin_bottom(10)
        .x_label_area_size(52)
        .y_label_area_size(72)
        .build_cartesian_2d(Ticked::new(x0, x1, ticks), 0f64..y_max)?;
    let axis = fig.x_axis;
    let x_fmt = |v: &f64| tick_label(axis, *v);
    let y_fmt = |v: &f64| y_label(*v, y_max);
    chart
        .configure_mesh()
        .x_desc(fig.x_desc.as_str())
        .y_desc(fig.y_desc.as_str())
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .y_labels(10)
        .label_style((FONT, 16))
        .axis_desc_style((FONT, 18))
        .bold_line_style(GRID)
        .max_light_lines(0)
        .draw()?;

    for (i, s) in fig.series.iter().enumerate() {
        let c = PALETTE[i % PALETTE.len()];
        chart.draw_series(LineSeries::new(s.points.iter().copied(), c.stroke_width(2)))?;
        if fig.markers {
            chart.draw_series(s.points.iter().map(|&p| Circle::new(p, 4, c.filled())))?;
        }
    }

    // Legend beside the plot, top-aligned with it.
    for (i, s) in fig.series.iter().enumerate() {
        let c = PALETTE[i % PALETTE.len()];
        let y = 20 + 24 * i as i32;
        legend.draw(&PathElement::new(vec![(4, y), (32, y)], c.stroke_width(2)))?;
        if fig.markers {
            legend.draw(&Circle::new((18, y), 4, c.filled()))?;
        }
        legend.draw(&Text::new(s.label.as_str(), (40, y), text.clone()))?;
    }
    root.present()?;
    Ok(())
}

/// Viridis, as in matplotlib.
fn viridis(t: f64) -> RGBColor {
    const STOPS: [(f64, f64, f64); 8] = [
        (68.0, 1.0, 84.0),
        (70.0, 50.0, 127.0),
        (54.0, 92.0, 141.0),
        (39.0, 127.0, 143.0),
        (31.0, 162.0, 136.0),
        (74.0, 194.0, 110.0),
        (160.0, 219.0, 57.0),
        (254.0, 232.0, 37.0),
    ];
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let x = t * (STOPS.len() - 1) as f64;
    let i = (x.floor() as usize).min(STOPS.len() - 2);
    let f = x - i as f64;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    let mix = |p: f64, q: f64| (p + (q - p) * f).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Three significant digits at most, four characters.
fn cell_text(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

fn draw_heat<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, fig: &HeatFigure) -> Result<()>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let (w, _) = root.dim_in_pixel();
    let body = draw_heading(root, &fig.title, &fig.subtitle)?;
    let (plot, bar) = body.split_horizontally(w - 110);

    let nx = fig.x_labels.len();
    let ny = fig.y_labels.len();
    let centers = |n: usize| (0..n).map(|i| i as f64 + 0.5).collect::<Vec<_>>();
    let (margin, x_area) = (10, 52);
    let mut chart = ChartBuilder::on(&plot)
        .margin(margin)
        .x_label_area_size(x_area)
        .y_label_area_size(72)
        .build_cartesian_2d(
            Ticked::new(0.0, nx as f64, centers(nx)),
            Ticked::new(0.0, ny as f64, centers(ny)),
        )?;
    let label_at = |labels: &[String], v: f64| {
        labels
            .get(v.floor().max(0.0) as usize)
            .cloned()
            .unwrap_or_default()
    };
    let x_fmt = |v: &f64| label_at(&fig.x_labels, *v);
    let y_fmt = |v: &f64| label_at(&fig.y_labels, *v);
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc(fig.x_desc.as_str())
        .y_desc(fig.y_desc.as_str())
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .label_style((FONT, 16))
        .axis_desc_style((FONT, 18))
        .draw()?;

    let v_max = fig
        .cells
        .iter()
        .flatten()
        .flatten()
        .copied()
        .fold(0.0, f64::max);
    let v_max = if v_max > 0.0 { v_max } else { 1.0 };
    let (pw, ph) = chart.plotting_area().dim_in_pixel();
    let (cw, ch) = (pw as f64 / nx as f64, ph as f64 / ny as f64);
    let font_size = (ch * 0.5).min(cw / 2.6).clamp(8.0, 20.0) as u32;
    for (j, row) in fig.cells.iter().enumerate() {
        for (i, v) in row.iter().enumerate() {
            let (x, y) = (i as f64, j as f64);
            let fill = v.map_or(RGBColor(238, 238, 238), |v| viridis(v / v_max));
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x, y), (x + 1.0, y + 1.0)],
                fill.filled(),
            )))?;
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x, y), (x + 1.0, y + 1.0)],
                WHITE.stroke_width(1),
            )))?;
            if let Some(v) = v {
                let ink = if v / v_max > 0.6 { BLACK } else { WHITE };
                let style = centered(font_size).color(&ink);
                chart.draw_series(std::iter::once(Text::new(
                    cell_text(*v),
                    (x + 0.5, y + 0.5),
                    style,
                )))?;
            }
        }
    }

    // Colour bar, aligned with the plotting area.
    let mut scale = ChartBuilder::on(&bar)
        .margin_top(margin)
        .margin_bottom(margin + x_area)
        .margin_left(8)
        .margin_right(8)
        .set_label_area_size(LabelAreaPosition::Right, 60)
        .build_cartesian_2d(0f64..1f64, 0f64..v_max)?;
    let y_fmt = |v: &f64| y_label(*v, v_max);
    scale
        .configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .y_desc("GiB/s")
        .y_label_formatter(&y_fmt)
        .y_labels(8)
        .label_style((FONT, 15))
        .axis_desc_style((FONT, 17))
        .draw()?;
    const STEPS: usize = 128;
    scale.draw_series((0..STEPS).map(|k| {
        let (a, b) = (k as f64 / STEPS as f64, (k + 1) as f64 / STEPS as f64);
        Rectangle::new(
            [(0.0, a * v_max), (1.0, b * v_max)],
            viridis((a + b) / 2.0).filled(),
        )
    }))?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {

    #[test]
    fn png_encoding_has_valid_chunks() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        let png = encode_png(&[255, 0, 0, 0, 255, 0], 2, 1);
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&png[12..16], b"IHDR");
        assert!(png.ends_with(&[0, 0, 0, 0, b'I', b'E', b'N', b'D', 0xAE, 0x42, 0x60, 0x82]));
    }
    use super::*;
    use serde_json::{json, Value};

    struct Spec {
        name: &'static str,
        op: &'static str,
        size: u64,
        threads: usize,
        write_threads: usize,
        pinning: &'static str,
        tier: &'static str,
    }

    /// A synthetic run: bandwidth rises with threads up to ~40 GiB/s and with access size.
    fn synthetic(s: Spec) -> Value {
        let pin_factor = match s.pinning {
            "none" => 0.3,
            "numa" => 0.9,
            _ => 1.0,
        };
        let size_factor = ((s.size as f64).log2() - 5.0) / 15.0;
        let bw = (s.threads as f64 * 4.5).min(40.0) * size_factor.min(1.0) * pin_factor;
        let (read, write) = if s.op == "mixed" {
            (Some(bw * 0.7), Some(bw * 0.2))
        } else {
            (None, None)
        };
        let latency = (s.op == "latency").then(|| {
            let tier_factor = if s.tier.starts_with("file") { 2.5 } else { 1.0 };
            let base = (90.0 + 12.0 * s.threads as f64) * tier_factor;
            let cdf: Vec<(f64, f64)> = (0..=20).map(|i| (base * (1.0 + (i as f64 / 20.0).powi(4) * 3.0), i as f64 / 20.0)).collect();
            json!({"samples": 1000, "loads_per_sample": 64, "min_ns": base, "mean_ns": base * 1.2,
                   "p50_ns": base * 1.2, "p90_ns": base * 2.0, "p99_ns": base * 3.5, "p999_ns": base * 3.9,
                   "max_ns": base * 4.0, "cdf": cdf, "load_bandwidth_gib_s": null})
        });
        let groups = if s.op == "mixed" {
            json!([
                {"role": "read", "threads": s.threads, "bytes": 1u64 << 30, "seconds": 0.1, "bandwidth_gib_s": read, "per_thread": []},
                {"role": "write", "threads": s.write_threads, "bytes": 1u64 << 28, "seconds": 0.1, "bandwidth_gib_s": write, "per_thread": []}
            ])
        } else {
            json!([{"role": if s.op == "write" { "write" } else { "read" }, "threads": s.threads, "bytes": 1u64 << 30,
                    "seconds": 0.1, "bandwidth_gib_s": bw, "per_thread": []}])
        };
        json!({
            "name": s.name,
            "params": {
                "operation": s.op, "pattern": "sequential", "distribution": "uniform", "zipf_s": 0.99,
                "access_mode": "individual", "access_size": s.size, "threads": s.threads,
                "write_threads": s.write_threads, "pinning": s.pinning, "tier": s.tier,
                "memory_range": 1u64 << 30, "thread_node": 0, "persist": "none", "sfence": false,
                "duration_s": null, "bytes": 1u64 << 30, "reps": 3, "huge_pages": "thp",
                "prefault": true, "warmup": true, "kernel": "auto"
            },
            "kernel": "avx2",
            "region": {
                "spec": s.tier, "len": 1u64 << 30, "mapped_len": 1u64 << 30, "durability": "volatile",
                "path": null, "map_sync": false, "huge_pages_requested": "thp", "huge_page_bytes": null,
                "prefaulted": true, "residency": null, "warnings": []
            },
            "reps": [{"groups": groups, "bandwidth_gib_s": bw, "latency": latency}],
            "summary": {
                "bandwidth_gib_s_median": bw, "bandwidth_gib_s_min": bw, "bandwidth_gib_s_max": bw,
                "read_gib_s_median": read, "write_gib_s_median": write,
                "latency_p50_ns_median": null
            }
        })
    }

    fn spec(name: &'static str, op: &'static str, size: u64, threads: usize) -> Spec {
        Spec {
            name,
            op,
            size,
            threads,
            write_threads: 0,
            pinning: "cores",
            tier: "dram:node=0",
        }
    }

    fn sample_runs() -> Vec<Value> {
        let mut runs = Vec::new();
        for &t in &[1, 2, 4, 8, 16] {
            for k in [6, 8, 10, 12, 14, 16, 20] {
                runs.push(synthetic(spec("seq-read", "read", 1 << k, t)));
            }
        }
        for pin in ["none", "numa", "cores"] {
            for &t in &[1, 4, 8, 18, 36] {
                runs.push(synthetic(Spec {
                    pinning: pin,
                    ..spec("pinning", "read", 4096, t)
                }));
            }
        }
        for &t in &[2, 4] {
            for k in [12, 16] {
                runs.push(synthetic(Spec {
                    write_threads: 2,
                    ..spec("mix", "mixed", 1 << k, t)
                }));
            }
        }
        for &t in &[0, 8] {
            runs.push(synthetic(spec("idle-vs-loaded", "latency", 64, t)));
            runs.push(synthetic(Spec {
                tier: "file:/dev/shm/x",
                ..spec("idle-vs-loaded", "latency", 64, t)
            }));
        }
        runs
    }

    fn write_doc(dir: &Path, runs: Vec<Value>) -> PathBuf {
        let doc = json!({"kind": "membench", "pmolap_version": "0.1.0", "started_unix": 0,
                         "machine": {"cpu_model": "Test CPU @ 2.0GHz"}, "config_file": null, "runs": runs});
        let path = dir.join("results.json");
        fs::write(&path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
        path
    }

    #[test]
    fn the_synthetic_runs_parse_as_real_runs() {
        for r in sample_runs() {
            serde_json::from_value::<Run>(r).unwrap();
        }
    }

    #[test]
    fn draws_every_supported_plot_as_png_and_svg() {
        let dir = tempfile::tempdir().unwrap();
        let input = write_doc(dir.path(), sample_runs());
        // `PMOLAP_PLOT_TEST_OUT=DIR` keeps the figures for a look.
        let out = std::env::var_os("PMOLAP_PLOT_TEST_OUT")
            .map_or_else(|| dir.path().join("plots"), PathBuf::from);
        let files = run(&input, &out).unwrap();
        let names: BTreeSet<String> = files
            .iter()
            .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        for stem in [
            "seq-read-read-individual-sequential-dram-node-0-bw-vs-size",
            "seq-read-read-individual-sequential-dram-node-0-bw-vs-threads",
            "seq-read-read-individual-sequential-dram-node-0-heatmap",
            "pinning-read-individual-sequential-dram-node-0-bw-vs-threads",
            "mix-mixed-individual-sequential-dram-node-0-read-bw-vs-size",
            "mix-mixed-individual-sequential-dram-node-0-write-bw-vs-threads",
            "mix-mixed-individual-sequential-dram-node-0-write-heatmap",
            "idle-vs-loaded-latency-cdf",
        ] {
            for ext in ["png", "svg"] {
                let name = format!("{stem}.{ext}");
                assert!(names.contains(&name), "{name} missing from {names:?}");
                assert!(
                    fs::metadata(out.join(&name)).unwrap().len() > 1000,
                    "{name} is (nearly) empty"
                );
            }
        }
        // One access size only: no bandwidth-vs-size chart, no heatmap.
        assert!(!names
            .iter()
            .any(|n| n.starts_with("pinning-") && (n.contains("size") || n.contains("heatmap"))));
        assert!(!names
            .iter()
            .any(|n| n.contains("latency") && n.contains("bw")));
        assert_eq!(files.len(), names.len());

        let png =
            fs::read(out.join("seq-read-read-individual-sequential-dram-node-0-bw-vs-size.png"))
                .unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let svg = fs::read_to_string(
            out.join("seq-read-read-individual-sequential-dram-node-0-bw-vs-size.svg"),
        )
        .unwrap();
        for text in [
            "access size (bytes, log2 scale)",
            "bandwidth (GiB/s)",
            "dram:node=0",
            "16 threads",
            "64B",
            "1M",
        ] {
            assert!(svg.contains(text), "SVG lacks {text:?}");
        }
        let svg = fs::read_to_string(
            out.join("pinning-read-individual-sequential-dram-node-0-bw-vs-threads.svg"),
        )
        .unwrap();
        for text in ["threads", "pinning none", "pinning cores", "access size 4K"] {
            assert!(svg.contains(text), "SVG lacks {text:?}");
        }
        let svg = fs::read_to_string(out.join("idle-vs-loaded-latency-cdf.svg")).unwrap();
        for text in [
            "latency per load (ns, log scale)",
            "cumulative fraction",
            "file:/dev/shm/x, 8 load threads",
        ] {
            assert!(svg.contains(text), "SVG lacks {text:?}");
        }
        let svg = fs::read_to_string(
            out.join("seq-read-read-individual-sequential-dram-node-0-heatmap.svg"),
        )
        .unwrap();
        assert!(
            svg.contains("GiB/s")
                && svg.lines().any(|l| l.trim() == "threads")
                && svg.contains("40.0")
        );
    }

    #[test]
    fn a_missing_or_garbled_file_is_one_line_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.json");
        let e = run(&missing, dir.path()).unwrap_err();
        let msg = e
            .chain()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(": ");
        assert!(msg.contains("nope.json") && !msg.contains('\n'), "{msg}");

        let garbled = dir.path().join("garbled.json");
        fs::write(&garbled, "{\"runs\": [1, 2").unwrap();
        let e = run(&garbled, dir.path()).unwrap_err();
        let msg = e
            .chain()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(": ");
        assert!(msg.contains("garbled.json") && !msg.contains('\n'), "{msg}");
    }

    #[test]
    fn a_single_point_is_nothing_to_plot() {
        let dir = tempfile::tempdir().unwrap();
        let input = write_doc(dir.path(), vec![synthetic(spec("one", "read", 4096, 4))]);
        let e = run(&input, &dir.path().join("plots")).unwrap_err();
        assert!(e.to_string().starts_with("nothing to plot in "), "{e}");
        assert!(!dir.path().join("plots").exists());
    }

    #[test]
    fn slugs_and_ticks() {
        assert_eq!(
            slug("seq read: dram:node=0 / file:/mnt/pmem0"),
            "seq-read-dram-node-0-file-mnt-pmem0"
        );
        assert_eq!(slug("zipf s=0.99"), "zipf-s-0_99");
        assert_eq!(tick_label(XAxis::Log2Bytes, 6.0), "64B");
        assert_eq!(tick_label(XAxis::Log2Bytes, 26.0), "64M");
        assert_eq!(tick_label(XAxis::Log10Ns, 200f64.log10()), "200");
        assert_eq!(tick_label(XAxis::Log10Ns, 1500f64.log10()), "1.5k");
        assert_eq!(tick_label(XAxis::Log10Ns, 200000f64.log10()), "200k");
        let (_, _, ticks) = x_range(XAxis::Log2Bytes, &[6.0, 26.0]);
        assert_eq!(ticks.first(), Some(&6.0));
        assert!(ticks.len() <= 15);
    }
}
