//! Grouped vertical bar charts: one group per category (an SSB query, a rung of the
//! Table 1 ladder), one coloured bar per series (a tier) in each group, the legend
//! beside the plot, and optionally a dashed reference line (slowdown 1×). Bars too short
//! to read (under 5 % of the axis) carry their value.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::HPos;

use super::axis::Ticked;
use super::lines::value_chart;
use super::palette::series_colours;
use super::{begin, split_legend, text_style};
use crate::error::DrawResult;

/// Bars shorter than this share of the axis carry their value as a label.
pub(crate) const SMALL_BAR: f64 = 0.05;

/// One series: a value (or none: not measured) per category.
#[derive(Debug, Clone)]
pub(crate) struct BarSeries {
    pub(crate) label: String,
    pub(crate) values: Vec<Option<f64>>,
}

#[derive(Debug)]
pub(crate) struct GroupedBars {
    pub(crate) stem: String,
    pub(crate) title: String,
    pub(crate) subtitle: String,
    pub(crate) x_desc: String,
    pub(crate) y_desc: String,
    pub(crate) categories: Vec<String>,
    pub(crate) series: Vec<BarSeries>,
    /// A horizontal dashed line at this value (e.g. 1.0 for slowdowns).
    pub(crate) reference: Option<f64>,
    /// The report's caption: what, where, which paper figure.
    pub(crate) caption: String,
}

impl GroupedBars {
    pub(crate) fn size(&self) -> (u32, u32) {
        let bars = (self.categories.len() * self.series.len().max(1)) as u32;
        (
            (bars * 14 + self.categories.len() as u32 * 16 + 420).clamp(900, 2200),
            620,
        )
    }
}

pub(crate) fn draw_grouped<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    fig: &GroupedBars,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let (_, body) = begin(root, &fig.title, &fig.subtitle)?;
    let (plot, legend) = split_legend(&body, fig.series.iter().map(|s| s.label.as_str()), 48)?;
    let text = text_style(15, HPos::Left);

    let n = fig.categories.len();
    let top = fig
        .series
        .iter()
        .flat_map(|s| s.values.iter().flatten())
        .copied()
        .filter(|v| v.is_finite())
        .fold(fig.reference.unwrap_or(0.0), f64::max);
    let y_max = if top > 0.0 { top * 1.1 } else { 1.0 };
    let centers: Vec<f64> = (0..n).map(|i| i as f64 + 0.5).collect();
    let x_fmt = |v: &f64| {
        fig.categories
            .get(v.floor().max(0.0) as usize)
            .cloned()
            .unwrap_or_default()
    };
    let mut chart = value_chart(
        &plot,
        Ticked::new(0.0, n as f64, centers),
        y_max,
        (&fig.x_desc, &fig.y_desc),
        &x_fmt,
        false,
    )?;

    let k = fig.series.len().max(1) as f64;
    let width = 0.8 / k;
    let labels: Vec<&str> = fig.series.iter().map(|s| s.label.as_str()).collect();
    let colours = series_colours(&labels);
    for (j, s) in fig.series.iter().enumerate() {
        let c = colours[j];
        chart.draw_series(s.values.iter().enumerate().filter_map(|(i, v)| {
            let v = (*v).filter(|v| v.is_finite() && *v >= 0.0)?;
            let x0 = i as f64 + 0.1 + j as f64 * width;
            Some(Rectangle::new(
                [(x0, 0.0), (x0 + width * 0.92, v)],
                c.filled(),
            ))
        }))?;
    }
    // Bars that span orders of magnitude (a disk tier's 0.001 M/s beside DRAM's 1 M/s):
    // the short ones carry their value, so none is invisible (issue 34, item 4).
    let small = y_max * SMALL_BAR;
    for (j, s) in fig.series.iter().enumerate() {
        let style = text_style(11, HPos::Center);
        chart.draw_series(s.values.iter().enumerate().filter_map(|(i, v)| {
            let v = (*v).filter(|v| v.is_finite() && *v >= 0.0 && *v < small)?;
            let x = i as f64 + 0.1 + (j as f64 + 0.46) * width;
            Some(Text::new(
                pmolap_results::stats::sig3(v),
                (x, v + y_max * 0.02),
                style.clone(),
            ))
        }))?;
    }
    if let Some(r) = fig.reference {
        chart.draw_series(DashedLineSeries::new(
            vec![(0.0, r), (n as f64, r)],
            6,
            4,
            BLACK.stroke_width(1),
        ))?;
    }
    for (j, s) in fig.series.iter().enumerate() {
        let c = colours[j];
        let y = 20 + 24 * j as i32;
        legend.draw(&Rectangle::new([(4, y - 7), (28, y + 7)], c.filled()))?;
        legend.draw(&Text::new(
            super::palette::legend_label(&s.label),
            (36, y),
            text.clone(),
        ))?;
    }
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::draw::Figure;

    fn figure(values: Vec<Option<f64>>) -> Figure {
        Figure::Grouped(GroupedBars {
            stem: "t".into(),
            title: "t".into(),
            subtitle: String::new(),
            x_desc: "x".into(),
            y_desc: "y".into(),
            categories: vec!["a".into(), "b".into()],
            series: vec![BarSeries {
                label: "disk".into(),
                values,
            }],
            reference: None,
            caption: String::new(),
        })
    }

    #[test]
    fn bars_too_short_to_see_carry_their_value() {
        let svg = figure(vec![Some(0.987), Some(0.00123)]).to_svg().unwrap();
        assert!(
            svg.contains(">\n0.001\n<"),
            "the 0.00123 bar is not labelled"
        );
        assert!(!svg.contains(">\n0.987\n<"), "a readable bar got a label");
        let even = figure(vec![Some(0.987), Some(0.876)]).to_svg().unwrap();
        assert!(!even.contains(">\n0.876\n<"));
    }
}
