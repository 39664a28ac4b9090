//! Plots of `pmolap elf bench` results (kind `elfbench`): queries/s per caching variant
//! for each query type, with the column-scan and sorted-projection baselines; the
//! throughput over the query stream per window (Fig. 4, warm and with the page cache
//! dropped); queries/s vs the fraction of tuples the exact-match keys come from (Fig. 5).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde_json::Value;

use crate::plot::{
    ensure_font, save_figure, slug, write_figure, Figure, LineFigure, Series, XAxis, SEP,
};

/// The family name under which `plot.rs` registers the embedded font.
const FONT: &str = "sans-serif";
/// At most this many lines per line chart (the palette has ten colours).
const MAX_SERIES: usize = 10;
const GRID: RGBColor = RGBColor(225, 225, 225);
const GREY: RGBColor = RGBColor(90, 90, 90);
const BAR: RGBColor = RGBColor(31, 119, 180);
const HYBRID: RGBColor = RGBColor(255, 127, 14);
const BASELINE: RGBColor = RGBColor(150, 150, 150);

/// Reads an elfbench results file and writes PNG and SVG plots into `out_dir`.
pub fn run(results: &Path, out_dir: &Path) -> Result<Vec<PathBuf>> {
    let name = results.display();
    let text =
        fs::read_to_string(results).with_context(|| format!("cannot read results file {name}"))?;
    let doc: Value =
        serde_json::from_str(&text).with_context(|| format!("{name} is not a JSON file"))?;
    if doc.get("kind").and_then(Value::as_str) != Some("elfbench") {
        bail!("{name} is not an elfbench results file (no \"kind\": \"elfbench\")");
    }
    let ctx = Context_::new(&doc);
    let bars = bar_figures(&doc, &ctx);
    let lines = line_figures(&doc, &ctx);
    if bars.is_empty() && lines.is_empty() {
        bail!("nothing to plot in {name}: no query types, windows or selectivities");
    }
    fs::create_dir_all(out_dir)
        .with_context(|| format!("cannot create output directory {}", out_dir.display()))?;
    ensure_font()?;
    let mut written = Vec::new();
    for fig in &bars {
        written.extend(write_bars(fig, out_dir)?);
    }
    for fig in &lines {
        written.extend(write_figure(fig, out_dir)?);
    }
    Ok(written)
}

/// What every chart's subtitle says: data size, cache, machine.
struct Context_ {
    tier: String,
    notes: Vec<String>,
}

impl Context_ {
    fn new(doc: &Value) -> Context_ {
        let p = &doc["params"];
        let tier = p["tier"]
            .as_str()
            .or_else(|| doc["build"]["tier"].as_str())
            .unwrap_or("?")
            .to_string();
        let mut notes = Vec::new();
        if let (Some(rows), Some(dims)) = (p["rows"].as_u64(), p["dims"].as_u64()) {
            notes.push(format!("{} rows × {dims} dims", count(rows as f64)));
        }
        if let Some(c) = p["cache_bytes"].as_u64() {
            notes.push(format!(
                "cache {}",
                pmolap_bench::size::format_size(c).trim()
            ));
        }
        if let Some(cpu) = doc["machine"]["cpu_model"].as_str() {
            if !cpu.trim().is_empty() {
                notes.push(cpu.trim().to_string());
            }
        }
        Context_ { tier, notes }
    }

    fn subtitle(&self, extra: &[String]) -> String {
        let mut v: Vec<String> = extra.to_vec();
        v.extend(self.notes.iter().cloned());
        v.join(SEP)
    }
}

/// 1234567 → "1.23M", 12345 → "12.3k", 12.3 → "12.3".
fn count(v: f64) -> String {
    let (x, suffix) = if v >= 1e9 {
        (v / 1e9, "G")
    } else if v >= 1e6 {
        (v / 1e6, "M")
    } else if v >= 1e3 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let s = if x >= 100.0 || (suffix.is_empty() && (x - x.round()).abs() < 1e-9) {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    };
    format!("{s}{suffix}")
}

/// An axis label: [`count`] without trailing zeros ("1k", not "1.00k").
fn tick(v: f64) -> String {
    let s = count(v);
    let (num, suffix) = s.split_at(s.trim_end_matches(char::is_alphabetic).len());
    let num = if num.contains('.') {
        num.trim_end_matches('0').trim_end_matches('.')
    } else {
        num
    };
    format!("{num}{suffix}")
}

/// A unit for q/s values up to `max`: (divisor, axis words).
fn qps_unit(max: f64) -> (f64, &'static str) {
    if max >= 2e6 {
        (1e6, "million queries/s")
    } else if max >= 2e4 {
        (1e3, "thousand queries/s")
    } else {
        (1.0, "queries/s")
    }
}

fn query_words(kind: &str) -> String {
    match kind {
        "exact" => "exact-match".into(),
        "partial" => "partial-match".into(),
        k => k.into(),
    }
}

// ---------------------------------------------------------------------------------------
// Bars: q/s per variant and baseline
// ---------------------------------------------------------------------------------------

struct Bar {
    label: String,
    qps: f64,
    /// Relative to hybrid (variants only).
    rel: Option<f64>,
    baseline: bool,
    hybrid: bool,
}

struct BarFigure {
    stem: String,
    title: String,
    subtitle: String,
    x_desc: String,
    bars: Vec<Bar>,
}

fn bar_figures(doc: &Value, ctx: &Context_) -> Vec<BarFigure> {
    let mut out = Vec::new();
    for qt in doc["query_types"].as_array().into_iter().flatten() {
        let kind = qt["query_type"].as_str().unwrap_or("?");
        let tier = qt["tier"].as_str().unwrap_or(&ctx.tier);
        let mut bars = Vec::new();
        for v in qt["variants"].as_array().into_iter().flatten() {
            let (Some(label), Some(qps)) = (v["variant"].as_str(), v["qps"].as_f64()) else {
                continue;
            };
            bars.push(Bar {
                label: label.to_string(),
                qps,
                rel: v["relative_to_hybrid"].as_f64().filter(|r| r.is_finite()),
                baseline: false,
                hybrid: label == "hybrid",
            });
        }
        for b in qt["baselines"].as_array().into_iter().flatten() {
            let (Some(label), Some(qps)) = (b["name"].as_str(), b["qps"].as_f64()) else {
                continue;
            };
            bars.push(Bar {
                label: format!("{label} (baseline)"),
                qps,
                rel: None,
                baseline: true,
                hybrid: false,
            });
        }
        bars.retain(|b| b.qps.is_finite() && b.qps > 0.0);
        if bars.is_empty() {
            continue;
        }
        let mut extra = Vec::new();
        if let Some(n) = qt["queries"].as_u64() {
            extra.push(format!("{} queries", count(n as f64)));
        }
        out.push(BarFigure {
            stem: slug(&format!("elfbench-{kind}-qps-per-variant")),
            title: format!(
                "ELF {} queries: throughput per caching variant on {tier}",
                query_words(kind)
            ),
            subtitle: ctx.subtitle(&extra),
            x_desc: "queries/s (label: q/s, × hybrid's q/s)".into(),
            bars,
        });
    }
    out
}

fn write_bars(fig: &BarFigure, dir: &Path) -> Result<Vec<PathBuf>> {
    let size = (1200, (150 + 34 * fig.bars.len() as u32).max(560));
    save_figure(
        dir,
        &fig.stem,
        size,
        |r| draw_bars(r, fig),
        |r| draw_bars(r, fig),
    )
}

fn text_style(size: u32, h: HPos) -> TextStyle<'static> {
    (FONT, size)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(h, VPos::Center))
}

/// Title (shrunk to fit) and subtitle; returns the area below them.
fn heading<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    subtitle: &str,
) -> Result<DrawingArea<DB, Shift>>
where
    DB::ErrorType: 'static,
{
    let (w, _) = root.dim_in_pixel();
    let cx = (w / 2) as i32;
    let mut size = 24;
    while size > 12
        && root
            .estimate_text_size(title, &text_style(size, HPos::Center))?
            .0
            + 24
            > w
    {
        size -= 1;
    }
    root.draw(&Text::new(title, (cx, 22), text_style(size, HPos::Center)))?;
    let mut size = 15;
    while size > 9
        && root
            .estimate_text_size(subtitle, &text_style(size, HPos::Center))?
            .0
            + 24
            > w
    {
        size -= 1;
    }
    root.draw(&Text::new(
        subtitle,
        (cx, 50),
        text_style(size, HPos::Center).color(&GREY),
    ))?;
    Ok(root.split_vertically(66).1)
}

fn draw_bars<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, fig: &BarFigure) -> Result<()>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let body = heading(root, &fig.title, &fig.subtitle)?;
    let n = fig.bars.len() as i32;
    let min = fig.bars.iter().map(|b| b.qps).fold(f64::INFINITY, f64::min);
    let max = fig.bars.iter().map(|b| b.qps).fold(0.0, f64::max);
    let label_of = |v: &f64| {
        let i = v.round() as i32;
        if (0..n).contains(&i) {
            fig.bars[(n - 1 - i) as usize].label.clone()
        } else {
            String::new()
        }
    };
    let y_label_w = fig
        .bars
        .iter()
        .map(|b| {
            root.estimate_text_size(&b.label, &text_style(15, HPos::Left))
                .map(|s| s.0)
                .unwrap_or(200)
        })
        .max()
        .unwrap_or(100)
        + 20;
    let value_text = |b: &Bar| match b.rel {
        Some(r) => format!("{} q/s, {r:.2}× hybrid", count(b.qps)),
        None => format!("{} q/s", count(b.qps)),
    };
    let mut builder = ChartBuilder::on(&body);
    builder
        .margin_left(10)
        .margin_right(20)
        .margin_top(8)
        .margin_bottom(10)
        .x_label_area_size(52)
        .y_label_area_size(y_label_w);
    let bar_rect = |b: &Bar, i: i32, x0: f64| {
        let style = if b.baseline {
            BASELINE
        } else if b.hybrid {
            HYBRID
        } else {
            BAR
        };
        Rectangle::new(
            [(x0, f64::from(i) - 0.36), (b.qps, f64::from(i) + 0.36)],
            style.filled(),
        )
    };
    if max / min.max(1e-12) > 30.0 {
        // Log axis: whole decades, with room on the right for the value labels.
        let lo = 10f64.powf(min.log10().floor());
        let span = max.log10() - lo.log10();
        let hi = 10f64.powf(lo.log10() + span / 0.68);
        let mut chart = builder.build_cartesian_2d((lo..hi).log_scale(), Rows(n))?;
        let fmt = |v: &f64| tick(*v);
        chart
            .configure_mesh()
            .x_desc(format!("{} (log scale)", fig.x_desc))
            .y_desc("")
            .x_label_formatter(&fmt)
            .y_label_formatter(&label_of)
            .y_labels(n as usize)
            .label_style((FONT, 15))
            .axis_desc_style((FONT, 17))
            .bold_line_style(GRID)
            .max_light_lines(0)
            .disable_y_mesh()
            .draw()?;
        for (k, b) in fig.bars.iter().enumerate() {
            let i = n - 1 - k as i32;
            chart.draw_series(std::iter::once(bar_rect(b, i, lo)))?;
            chart.draw_series(std::iter::once(Text::new(
                value_text(b),
                (b.qps * 1.15, f64::from(i)),
                text_style(14, HPos::Left),
            )))?;
        }
    } else {
        let hi = max * 1.45;
        let mut chart = builder.build_cartesian_2d(0f64..hi, Rows(n))?;
        let fmt = |v: &f64| tick(*v);
        chart
            .configure_mesh()
            .x_desc(fig.x_desc.as_str())
            .y_desc("")
            .x_label_formatter(&fmt)
            .y_label_formatter(&label_of)
            .y_labels(n as usize)
            .label_style((FONT, 15))
            .axis_desc_style((FONT, 17))
            .bold_line_style(GRID)
            .max_light_lines(0)
            .disable_y_mesh()
            .draw()?;
        for (k, b) in fig.bars.iter().enumerate() {
            let i = n - 1 - k as i32;
            chart.draw_series(std::iter::once(bar_rect(b, i, 0.0)))?;
            chart.draw_series(std::iter::once(Text::new(
                value_text(b),
                (b.qps + hi * 0.01, f64::from(i)),
                text_style(14, HPos::Left),
            )))?;
        }
    }
    root.present()?;
    Ok(())
}

/// The y axis of a bar chart: one row per bar at 0, 1, ..., n - 1 (ticks at the rows).
#[derive(Debug, Clone, Copy)]
struct Rows(i32);

impl Ranged for Rows {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let f = (value + 0.5) / f64::from(self.0.max(1));
        (f64::from(limit.0) + f * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: plotters::coord::ranged1d::KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            (0..self.0).map(f64::from).collect()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        -0.5..f64::from(self.0) - 0.5
    }
}

// ---------------------------------------------------------------------------------------
// Lines: per-window progression (Fig. 4), selectivity (Fig. 5)
// ---------------------------------------------------------------------------------------

/// (label, queries per window, q/s per window) → one progression chart.
fn progression(
    stem: String,
    title: String,
    subtitle_extra: Vec<String>,
    runs: Vec<(String, f64, Vec<f64>)>,
    ctx: &Context_,
) -> Option<Figure> {
    let runs: Vec<_> = runs.into_iter().filter(|r| !r.2.is_empty()).collect();
    if runs.is_empty() || runs.iter().all(|r| r.2.len() < 2) {
        return None;
    }
    let max_q = runs
        .iter()
        .map(|r| r.1 * r.2.len() as f64)
        .fold(0.0, f64::max);
    let (x_div, x_desc) = if max_q >= 2e4 {
        (1e3, "queries processed (thousands)")
    } else {
        (1.0, "queries processed")
    };
    let max_qps = runs
        .iter()
        .flat_map(|r| r.2.iter())
        .fold(0.0f64, |a, b| a.max(*b));
    let (y_div, y_unit) = qps_unit(max_qps);
    let mut extra = subtitle_extra;
    if runs.len() > MAX_SERIES {
        extra.push(format!("{} of {} variants shown", MAX_SERIES, runs.len()));
    }
    let series = runs
        .into_iter()
        .take(MAX_SERIES)
        .map(|(label, w, qps)| Series {
            label,
            points: qps
                .iter()
                .enumerate()
                .map(|(i, q)| ((i + 1) as f64 * w / x_div, q / y_div))
                .collect(),
        })
        .collect();
    Some(Figure::Lines(LineFigure {
        stem,
        title,
        subtitle: ctx.subtitle(&extra),
        x_desc: x_desc.into(),
        y_desc: format!("throughput per window ({y_unit})"),
        x_axis: XAxis::Linear,
        y_max: None,
        markers: true,
        series,
    }))
}

fn window_run(v: &Value, label_key: &str) -> Option<(String, f64, Vec<f64>)> {
    let label = v[label_key].as_str()?.to_string();
    let w = v["window_queries"].as_f64()?;
    let qps: Vec<f64> = v["qps_per_window"]
        .as_array()?
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    Some((label, w, qps))
}

fn line_figures(doc: &Value, ctx: &Context_) -> Vec<Figure> {
    let mut out = Vec::new();
    // Fig. 4, with the page cache dropped first.
    let cold: Vec<_> = doc["cold"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| window_run(v, "variant"))
        .collect();
    let cold_tier = doc["cold"][0]["tier"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| format!("{} (page cache dropped)", ctx.tier));
    if let Some(f) = progression(
        "elfbench-cold-progression".into(),
        format!("ELF exact-match throughput over the query stream, cold: {cold_tier}"),
        vec!["index file's pages dropped from the page cache before each variant".into()],
        cold,
        ctx,
    ) {
        out.push(f);
    }
    // Fig. 4, warm, per query type.
    for qt in doc["query_types"].as_array().into_iter().flatten() {
        let kind = qt["query_type"].as_str().unwrap_or("?");
        let tier = qt["tier"].as_str().unwrap_or(&ctx.tier);
        let runs: Vec<_> = qt["variants"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| window_run(v, "variant"))
            .collect();
        if let Some(f) = progression(
            slug(&format!("elfbench-{kind}-progression")),
            format!(
                "ELF {} throughput over the query stream on {tier}",
                query_words(kind)
            ),
            vec![],
            runs,
            ctx,
        ) {
            out.push(f);
        }
    }
    // Fig. 5: q/s vs fraction of tuples.
    let mut lines: BTreeMap<String, (usize, Vec<(f64, f64)>)> = BTreeMap::new();
    let mut order = 0;
    let mut sel_tier = ctx.tier.clone();
    for s in doc["selectivity"].as_array().into_iter().flatten() {
        let Some(f) = s["fraction_of_tuples"].as_f64() else {
            continue;
        };
        if let Some(t) = s["tier"].as_str() {
            sel_tier = t.to_string();
        }
        for v in s["variants"].as_array().into_iter().flatten() {
            let (Some(name), Some(q)) = (v["variant"].as_str(), v["qps"].as_f64()) else {
                continue;
            };
            let e = lines.entry(name.to_string()).or_insert_with(|| {
                order += 1;
                (order, Vec::new())
            });
            e.1.push((f * 100.0, q));
        }
    }
    let mut lines: Vec<_> = lines.into_iter().collect();
    lines.sort_by_key(|(_, (o, _))| *o);
    if lines.iter().any(|(_, (_, p))| p.len() >= 2) {
        let max = lines
            .iter()
            .flat_map(|(_, (_, p))| p.iter().map(|x| x.1))
            .fold(0.0f64, f64::max);
        let (div, unit) = qps_unit(max);
        let mut extra = vec!["exact-match keys drawn from a fraction of the tuples".to_string()];
        if lines.len() > MAX_SERIES {
            extra.push(format!("{MAX_SERIES} of {} variants shown", lines.len()));
        }
        out.push(Figure::Lines(LineFigure {
            stem: "elfbench-qps-vs-selectivity".into(),
            title: format!("ELF exact-match throughput vs selectivity on {sel_tier}"),
            subtitle: ctx.subtitle(&extra),
            x_desc: "fraction of tuples queried (%)".into(),
            y_desc: format!("throughput ({unit})"),
            x_axis: XAxis::Linear,
            y_max: None,
            markers: true,
            series: lines
                .into_iter()
                .take(MAX_SERIES)
                .map(|(label, (_, mut points))| {
                    points.sort_by(|a, b| a.0.total_cmp(&b.0));
                    Series {
                        label,
                        points: points.into_iter().map(|(x, y)| (x, y / div)).collect(),
                    }
                })
                .collect(),
        }));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn renders_synthetic_elfbench() {
        let variant = |name: &str, qps: f64| {
            json!({"variant": name, "qps": qps, "relative_to_hybrid": qps / 1000.0,
                   "window_queries": 100, "qps_per_window": [qps * 0.5, qps, qps * 1.1]})
        };
        let doc = json!({
            "kind": "elfbench",
            "machine": {"cpu_model": "Test CPU"},
            "params": {"rows": 10000, "dims": 4, "tier": "dram", "cache_bytes": 1048576},
            "build": {"tier": "dram"},
            "query_types": [
                {"query_type": "exact", "tier": "dram", "queries": 300,
                 "variants": [variant("pm", 1200.0), variant("hybrid", 1000.0)],
                 "baselines": [{"name": "column-scan", "qps": 2.0},
                               {"name": "sorted-projection", "qps": 50.0}]},
                {"query_type": "range", "tier": "dram", "queries": 30,
                 "variants": [variant("pm", 40.0), variant("hybrid", 35.0)],
                 "baselines": [{"name": "column-scan", "qps": 20.0}]},
            ],
            "selectivity": [
                {"fraction_of_tuples": 0.1, "tier": "dram",
                 "variants": [{"variant": "pm", "qps": 900.0}, {"variant": "hybrid", "qps": 800.0}]},
                {"fraction_of_tuples": 1.0, "tier": "dram",
                 "variants": [{"variant": "pm", "qps": 700.0}, {"variant": "hybrid", "qps": 750.0}]},
            ],
            "cold": [variant("pm", 500.0), variant("hybrid", 600.0)],
        });
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("r.json");
        fs::write(&input, serde_json::to_string(&doc).unwrap()).unwrap();
        let out = dir.path().join("plots");
        let files = run(&input, &out).unwrap();
        for stem in [
            "elfbench-exact-qps-per-variant",
            "elfbench-range-qps-per-variant",
            "elfbench-cold-progression",
            "elfbench-exact-progression",
            "elfbench-qps-vs-selectivity",
        ] {
            for ext in ["png", "svg"] {
                let f = out.join(format!("{stem}.{ext}"));
                assert!(f.exists(), "{} missing", f.display());
                assert!(files.contains(&f));
            }
        }
        let svg = fs::read_to_string(out.join("elfbench-qps-vs-selectivity.svg")).unwrap();
        assert!(svg.contains("fraction of tuples queried"));
        let svg = fs::read_to_string(out.join("elfbench-exact-qps-per-variant.svg")).unwrap();
        assert!(svg.contains("queries/s"));
        assert!(svg.contains("column-scan (baseline)"));
        // Not an elfbench file.
        fs::write(&input, r#"{"kind": "membench"}"#).unwrap();
        assert!(run(&input, &out).is_err());
    }
}
