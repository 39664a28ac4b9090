//! Figures and tables of `pmolap place validate` (kind `place-validate`, the placement
//! paper's §6 comparison on this machine's real tiers): the Pareto plot of relative time
//! vs the share of the accessed bytes on the slow tier, measured (advised placements and
//! baselines) and predicted by each model variant; the predicted-vs-measured scatter of
//! the advised model (the paper's Fig. 7/10 shape, per setting); the headline (the most
//! accessed data on the slow tier within 10 % of DRAM, measured and by the model); the
//! per-placement table with the error summary and the advice against the baselines.

use pmolap_results::place::{Predicted, ValidateReport, BASELINE_KINDS};

use crate::draw::{header, Figure, LineFigure, ScatterFigure, Series, XAxis, SEP};
use crate::markup::Table;

/// The headline sentence.
pub(crate) fn headline_text(doc: &ValidateReport) -> String {
    let p = |v: Option<f64>| v.map_or_else(|| "none".into(), |x| format!("{:.1} %", 100.0 * x));
    let (m, model) = doc.headline();
    format!(
        "{} of the accessed data on the slow tier within 10 % of DRAM, measured ({} by the {} model)",
        p(m),
        p(model),
        doc.advised_model()
    )
}

/// The report's one-line summary of the document.
pub(crate) fn summary(doc: &ValidateReport) -> String {
    format!(
        "{} placements, {} baselines, slow tier {} ({}): {}",
        doc.scenarios.len(),
        doc.baselines.len(),
        doc.config.profile_tier,
        doc.config.setting,
        headline_text(doc)
    )
}

type Pick = fn(&Predicted) -> Option<f64>;

/// The model variants drawn, with their labels.
const VARIANTS: [(&str, Pick); 4] = [
    ("predicted: paper's model", |p| Some(p.paper)),
    ("predicted: page model", |p| p.page),
    ("predicted: no CMR", |p| Some(p.no_cmr)),
    ("predicted: no dense", |p| Some(p.no_dense)),
];

/// The Pareto plot: one series measured, one per model variant, points in order of the
/// slow share (the budget and target placements trace the front; the three paper
/// configurations sit among them).
pub(crate) fn figures(doc: &ValidateReport) -> Vec<Figure> {
    if doc.scenarios.is_empty() {
        return Vec::new();
    }
    let pts = |f: &dyn Fn(&pmolap_results::place::ScenarioResult) -> Option<f64>| {
        let mut v: Vec<(f64, f64)> = doc
            .scenarios
            .iter()
            .filter_map(|s| f(s).map(|y| (100.0 * s.headline_fraction(), y)))
            .collect();
        v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
        v
    };
    let mut series = vec![Series {
        label: "measured".into(),
        points: pts(&|s| Some(s.measured)),
    }];
    for (label, pick) in VARIANTS {
        let p = pts(&|s| pick(&s.predicted));
        if !p.is_empty() {
            series.push(Series {
                label: label.into(),
                points: p,
            });
        }
    }
    for kind in BASELINE_KINDS {
        let mut points: Vec<(f64, f64)> = doc
            .baselines
            .iter()
            .filter(|b| b.kind == kind)
            .map(|b| (100.0 * b.result.headline_fraction(), b.result.measured))
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
        if !points.is_empty() {
            series.push(Series {
                label: format!("measured baseline: {kind}"),
                points,
            });
        }
    }
    let setting = doc.config.setting.to_string();
    let cpu = crate::markup::clip(doc.header.machine.cpu_model.trim());
    let mut out = vec![Figure::Lines(LineFigure {
        stem: format!("place-validate-{}", crate::draw::slug(&setting)),
        title: format!(
            "Placement: predicted vs measured ({setting}, slow tier {})",
            doc.config.profile_tier
        ),
        subtitle: [
            format!("{} queries", doc.config.queries.len()),
            format!("{} threads", doc.config.threads),
            format!("slow tier on {}", doc.config.slow_fs),
            cpu,
        ]
        .join(SEP),
        x_desc: if doc
            .scenarios
            .iter()
            .all(|s| s.slow_accessed_fraction.is_some())
        {
            "accessed bytes on the slow tier (%)".into()
        } else {
            "bytes on the slow tier (%)".into()
        },
        y_desc: "relative time (1 = all in DRAM)".into(),
        x_axis: XAxis::Linear,
        y_max: None,
        markers: true,
        series,
        caption: format!(
            "The placement paper's §6 comparison on this machine's real tiers: the paper's placements \
             (all slow, data vectors only, dictionaries only, budgets, targets) with the slow \
             structures on {} ({setting}), each point one placement; measured is the median \
             time over the all-DRAM median, measured in the same run; the baselines \
             (hottest by access density, dictionaries only, never-accessed only, the OS \
             alone) at the DRAM bytes of the advised placements, measured likewise. {}.",
            doc.config.slow_fs,
            headline_text(doc)
        ),
    })];
    out.extend(scatter(doc, &setting));
    out
}

/// Predicted (the advised model) against measured relative time: each (placement,
/// query), each placement's whole workload, and the baselines' whole workload.
fn scatter(doc: &ValidateReport, setting: &str) -> Option<Figure> {
    let model = doc.advised_model().to_string();
    let point = |p: &Predicted, measured: f64| p.of_model(&model).map(|x| (measured, x));
    let queries: Vec<(f64, f64)> = doc
        .scenarios
        .iter()
        .flat_map(|s| s.queries.iter())
        .filter_map(|q| point(&q.predicted, q.measured))
        .collect();
    if queries.is_empty() {
        return None;
    }
    let whole = doc
        .scenarios
        .iter()
        .filter_map(|s| point(&s.predicted, s.measured))
        .collect();
    let base: Vec<(f64, f64)> = doc
        .baselines
        .iter()
        .filter_map(|b| point(&b.result.predicted, b.result.measured))
        .collect();
    let mut series = vec![
        Series {
            label: "per query".into(),
            points: queries,
        },
        Series {
            label: "whole workload".into(),
            points: whole,
        },
    ];
    if !base.is_empty() {
        series.push(Series {
            label: "baselines (whole workload)".into(),
            points: base,
        });
    }
    Some(Figure::Scatter(ScatterFigure {
        stem: format!("place-scatter-{}", crate::draw::slug(setting)),
        title: format!("Placement: predicted vs measured relative time ({setting})"),
        subtitle: [
            format!("{} model", model),
            format!("slow tier on {}", doc.config.slow_fs),
            format!("{} threads", doc.config.threads),
        ]
        .join(SEP),
        x_desc: "measured relative time (1 = all in DRAM)".into(),
        y_desc: format!("predicted relative time ({} model)", model),
        series,
        band: 0.1,
        caption: format!(
            "The placement paper's Fig. 7/10 shape on this machine's tier ({setting}): each \
             point one query under one placement (or a placement's whole workload), the \
             advised model's prediction against the measured median over the all-DRAM \
             median; on the diagonal the prediction is exact, inside the band within 10 %."
        ),
    }))
}

fn f3(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |x| format!("{x:.3}"))
}

/// The per-placement table and the error summary.
pub(crate) fn tables(doc: &ValidateReport) -> Vec<Table> {
    let placements = Table {
        head: header(&[
            "placement",
            "slow % (accessed)",
            "slow % (all)",
            "measured",
            "paper",
            "no CMR",
            "no dense",
            "page",
        ]),
        rows: doc
            .scenarios
            .iter()
            .map(|s| {
                vec![
                    s.name.clone(),
                    s.slow_accessed_fraction
                        .map_or_else(|| "-".into(), |f| format!("{:.1}", 100.0 * f)),
                    format!("{:.1}", 100.0 * s.slow_fraction),
                    format!("{:.3}", s.measured),
                    f3(Some(s.predicted.paper)),
                    f3(Some(s.predicted.no_cmr)),
                    f3(Some(s.predicted.no_dense)),
                    f3(s.predicted.page),
                ]
            })
            .collect(),
    };
    let errors = Table {
        head: header(&[
            "model",
            "workload median |err|",
            "workload max |err|",
            "per-query median |err|",
            "per-query max |err|",
        ]),
        rows: doc
            .errors
            .iter()
            .map(|e| {
                vec![
                    e.model.clone(),
                    format!("{:.3}", e.workload_median),
                    format!("{:.3}", e.workload_max),
                    format!("{:.3}", e.query_median),
                    format!("{:.3}", e.query_max),
                ]
            })
            .collect(),
    };
    let mut out = vec![
        Table {
            head: header(&["headline"]),
            rows: vec![vec![headline_text(doc)]],
        },
        placements,
        errors,
    ];
    let cs = doc.comparisons();
    if !cs.is_empty() {
        let mut head = vec![
            "advised placement",
            "promised",
            "measured",
            "promise kept",
            "kept at the run's all-DRAM time (its ratio to the recorded)",
            "kept at the run's page costs and all-DRAM time (that promise)",
        ];
        head.extend(BASELINE_KINDS.iter().map(|k| match *k {
            "hottest" => "vs hottest",
            "dictionaries" => "vs dictionaries",
            "never accessed" => "vs never accessed",
            _ => "vs OS alone",
        }));
        out.push(Table {
            head: header(&head),
            rows: cs
                .iter()
                .map(|c| {
                    let mut r = vec![
                        c.placement.clone(),
                        format!("{:.3}", c.promised),
                        format!("{:.3}", c.measured),
                        if c.kept { "yes" } else { "no" }.into(),
                        match (c.kept_at_run, c.dram_ratio) {
                            (Some(k), Some(r)) => {
                                format!("{} ({r:.2}x)", if k { "yes" } else { "no" })
                            }
                            _ => "-".into(),
                        },
                        match (c.kept_at_run_costs, c.promised_at_run_costs) {
                            (Some(k), Some(p)) => {
                                format!("{} ({p:.3})", if k { "yes" } else { "no" })
                            }
                            _ => "-".into(),
                        },
                    ];
                    r.extend(
                        c.against
                            .iter()
                            .map(|(_, x)| x.map_or_else(|| "-".into(), |x| x.display())),
                    );
                    r
                })
                .collect(),
        });
    }
    out
}
