//! Figures and tables of `pmolap place validate` (kind `place-validate`, the placement
//! paper's §6 comparison on this machine's real tiers): the Pareto plot of relative time
//! vs the share of bytes on the slow tier, measured and predicted by each model variant,
//! and the per-placement table with the error summary.

use pmolap_results::place::{Predicted, ValidateReport};

use crate::draw::{header, Figure, LineFigure, Series, XAxis, SEP};
use crate::markup::Table;

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
    let setting = doc.config.setting.to_string();
    let cpu = crate::markup::clip(doc.header.machine.cpu_model.trim());
    vec![Figure::Lines(LineFigure {
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
             time over the all-DRAM median, measured in the same run.",
            doc.config.slow_fs
        ),
    })]
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
    vec![placements, errors]
}
