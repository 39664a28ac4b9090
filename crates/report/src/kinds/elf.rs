//! Figures of `pmolap elf bench` results (kind `elfbench`, the selective-caching paper):
//! queries/s per caching variant for each query type with the column-scan and
//! sorted-projection baselines (Fig. 3's query part); the throughput over the query
//! stream per window (Fig. 4, warm and with the page cache dropped); queries/s vs the
//! fraction of tuples the exact-match keys come from (Fig. 5); and its tables.

use std::collections::BTreeMap;

use pmolap_results::elfbench::BenchReport;
use pmolap_results::size::format_size;

use crate::draw::axis::{count, qps_unit};
use crate::draw::{
    capitalized, header, slug, Bar, BarFigure, Figure, LineFigure, Series, XAxis, MAX_SERIES, SEP,
};
use crate::markup::Table;

/// Every figure `doc` supports.
pub(crate) fn figures(doc: &BenchReport) -> Vec<Figure> {
    let ctx = Ctx::new(doc);
    let mut out: Vec<Figure> = bar_figures(doc, &ctx)
        .into_iter()
        .map(Figure::Bars)
        .collect();
    out.extend(line_figures(doc, &ctx));
    out
}

/// What every chart's subtitle and caption say: data size, cache, machine.
struct Ctx {
    tier: String,
    notes: Vec<String>,
    cpu: String,
}

impl Ctx {
    fn new(doc: &BenchReport) -> Ctx {
        let p = &doc.params;
        let mut notes = vec![
            format!("{} rows × {} dims", count(p.rows as f64), p.dims),
            format!("cache {}", format_size(p.cache_bytes as u64).trim()),
        ];
        let cpu = crate::markup::clip(doc.header.machine.cpu_model.trim());
        if !cpu.is_empty() {
            notes.push(cpu.clone());
        }
        Ctx {
            tier: p.tier.clone(),
            notes,
            cpu,
        }
    }

    fn subtitle(&self, extra: &[String]) -> String {
        let mut v: Vec<String> = extra.to_vec();
        v.extend(self.notes.iter().cloned());
        v.join(SEP)
    }

    /// The report's caption: what, where, which figure of the paper.
    fn caption(&self, what: &str, tier: &str, paper: &str) -> String {
        format!(
            "{what}, on {tier}{}; {}. Corresponds to the selective-caching Elf paper's {paper}.",
            if self.cpu.is_empty() {
                String::new()
            } else {
                format!(" ({})", self.cpu)
            },
            self.notes[..2].join(", ")
        )
    }
}

fn query_words(kind: &str) -> String {
    match kind {
        "exact" => "exact-match".into(),
        "partial" => "partial-match".into(),
        k => k.into(),
    }
}

fn bar_figures(doc: &BenchReport, ctx: &Ctx) -> Vec<BarFigure> {
    let mut out = Vec::new();
    for qt in &doc.query_types {
        let kind = qt.query_type.as_str();
        let mut bars: Vec<Bar> = qt
            .variants
            .iter()
            .map(|v| Bar {
                label: v.variant.clone(),
                qps: v.qps,
                rel: v.relative_to_hybrid,
                baseline: false,
                hybrid: v.variant == "hybrid",
            })
            .collect();
        bars.extend(qt.baselines.iter().map(|b| Bar {
            label: format!("{} (baseline)", b.name),
            qps: b.qps,
            rel: None,
            baseline: true,
            hybrid: false,
        }));
        bars.retain(|b| b.qps.is_finite() && b.qps > 0.0);
        if bars.is_empty() {
            continue;
        }
        let extra = vec![format!("{} queries", count(qt.queries as f64))];
        out.push(BarFigure {
            stem: slug(&format!("elfbench-{kind}-qps-per-variant")),
            title: format!(
                "ELF {} queries: throughput per caching variant on {}",
                query_words(kind),
                qt.tier
            ),
            subtitle: ctx.subtitle(&extra),
            x_desc: "queries/s (label: q/s, × hybrid's q/s)".into(),
            unit: "q/s",
            bars,
            caption: ctx.caption(
                &format!(
                    "Throughput (queries/s) of {} queries per caching variant, with a column scan \
                     and a sorted projection of the same data as baselines",
                    query_words(kind)
                ),
                &qt.tier,
                "Fig. 3 (query performance of Elf)",
            ),
        });
    }
    out
}

/// (label, queries per window, q/s per window) → one progression chart.
fn progression(
    stem: String,
    title: String,
    subtitle_extra: Vec<String>,
    runs: Vec<(String, f64, Vec<f64>)>,
    caption: String,
    ctx: &Ctx,
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
        caption,
    }))
}

fn line_figures(doc: &BenchReport, ctx: &Ctx) -> Vec<Figure> {
    let mut out = Vec::new();
    // Fig. 4, with the page cache dropped first.
    let cold: Vec<_> = doc
        .cold
        .iter()
        .map(|c| {
            (
                c.variant.clone(),
                c.window_queries as f64,
                c.qps_per_window.clone(),
            )
        })
        .collect();
    let cold_tier = doc.cold.first().map_or_else(
        || format!("{} (page cache dropped)", ctx.tier),
        |c| c.tier.clone(),
    );
    out.extend(progression(
        "elfbench-cold-progression".into(),
        format!("ELF exact-match throughput over the query stream, cold: {cold_tier}"),
        vec!["index file's pages dropped from the page cache before each variant".into()],
        cold,
        ctx.caption(
            "Exact-match throughput per window of the query stream, the index file's pages \
             dropped from the page cache before each variant (cold start)",
            &cold_tier,
            "Fig. 4 (throughput progression of cached Elf variants)",
        ),
        ctx,
    ));
    // Fig. 4, warm, per query type.
    for qt in &doc.query_types {
        let kind = qt.query_type.as_str();
        let runs: Vec<_> = qt
            .variants
            .iter()
            .map(|v| {
                (
                    v.variant.clone(),
                    v.window_queries as f64,
                    v.qps_per_window.clone(),
                )
            })
            .collect();
        out.extend(progression(
            slug(&format!("elfbench-{kind}-progression")),
            format!(
                "ELF {} throughput over the query stream on {}",
                query_words(kind),
                qt.tier
            ),
            vec![],
            runs,
            ctx.caption(
                &format!(
                    "{} throughput per window of the query stream, warm page cache",
                    capitalized(&query_words(kind))
                ),
                &qt.tier,
                "Fig. 4 (throughput progression of cached Elf variants)",
            ),
            ctx,
        ));
    }
    out.extend(selectivity_figure(doc, ctx));
    out
}

/// Fig. 5: q/s vs the fraction of tuples the keys come from, one line per variant.
fn selectivity_figure(doc: &BenchReport, ctx: &Ctx) -> Option<Figure> {
    let mut lines: BTreeMap<String, (usize, Vec<(f64, f64)>)> = BTreeMap::new();
    let mut order = 0;
    let mut sel_tier = ctx.tier.clone();
    for s in &doc.selectivity {
        sel_tier = s.tier.clone();
        for v in &s.variants {
            let e = lines.entry(v.variant.clone()).or_insert_with(|| {
                order += 1;
                (order, Vec::new())
            });
            e.1.push((s.fraction_of_tuples * 100.0, v.qps));
        }
    }
    let mut lines: Vec<_> = lines.into_iter().collect();
    lines.sort_by_key(|(_, (o, _))| *o);
    if !lines.iter().any(|(_, (_, p))| p.len() >= 2) {
        return None;
    }
    let max = lines
        .iter()
        .flat_map(|(_, (_, p))| p.iter().map(|x| x.1))
        .fold(0.0f64, f64::max);
    let (div, unit) = qps_unit(max);
    let mut extra = vec!["exact-match keys drawn from a fraction of the tuples".to_string()];
    if lines.len() > MAX_SERIES {
        extra.push(format!("{MAX_SERIES} of {} variants shown", lines.len()));
    }
    Some(Figure::Lines(LineFigure {
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
        caption: ctx.caption(
            "Exact-match throughput by the fraction of the tuples the keys are drawn from, \
             one line per caching variant",
            &sel_tier,
            "Fig. 5 (throughput of Elf variants varying the selectivity)",
        ),
    }))
}

/// Build figures, and every variant of every query type.
pub(super) fn tables(r: &BenchReport) -> Vec<Table> {
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
