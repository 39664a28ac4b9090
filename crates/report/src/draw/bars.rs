//! Horizontal bar charts: one bar per caching variant or baseline, with its value (and
//! its ratio to a reference) printed beside it; a log axis when values span more than
//! 30×.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::HPos;

use super::axis::{count, tick, Rows};
use super::{draw_heading, text_style, FONT, GRID};
use crate::error::DrawResult;

const BAR: RGBColor = RGBColor(31, 119, 180);
const HIGHLIGHT: RGBColor = RGBColor(255, 127, 14);
const BASELINE: RGBColor = RGBColor(150, 150, 150);

#[derive(Debug)]
pub(crate) struct Bar {
    pub(crate) label: String,
    pub(crate) qps: f64,
    /// Relative to hybrid (variants only).
    pub(crate) rel: Option<f64>,
    pub(crate) baseline: bool,
    pub(crate) hybrid: bool,
}

#[derive(Debug)]
pub(crate) struct BarFigure {
    pub(crate) stem: String,
    pub(crate) title: String,
    pub(crate) subtitle: String,
    pub(crate) x_desc: String,
    pub(crate) bars: Vec<Bar>,
    /// The report's caption: what, where, which paper figure.
    pub(crate) caption: String,
}

pub(crate) fn draw_bars<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    fig: &BarFigure,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let body = draw_heading(root, &fig.title, &fig.subtitle)?;
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
            HIGHLIGHT
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
