//! Horizontal bar charts: one bar per caching variant or baseline, with its value (and
//! its ratio to a reference) printed beside it; a log axis when values span more than
//! 30×.

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::HPos;

use super::axis::{count, tick, Rows};
use super::{begin, text_style, FONT, GRID};
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
    /// The unit printed beside each bar's value (`q/s`, `accesses`).
    pub(crate) unit: &'static str,
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
    let (_, body) = begin(root, &fig.title, &fig.subtitle)?;
    let min = fig.bars.iter().map(|b| b.qps).fold(f64::INFINITY, f64::min);
    let max = fig.bars.iter().map(|b| b.qps).fold(0.0, f64::max);
    let mut y_label_w = 100;
    for b in &fig.bars {
        y_label_w = y_label_w.max(
            root.estimate_text_size(&b.label, &text_style(15, HPos::Left))?
                .0,
        );
    }
    let mut builder = ChartBuilder::on(&body);
    builder
        .margin_left(10)
        .margin_right(20)
        .margin_top(8)
        .margin_bottom(10)
        .x_label_area_size(52)
        .y_label_area_size(y_label_w + 20);
    if max / min.max(1e-12) > 30.0 {
        // Log axis: whole decades, with room on the right for the value labels.
        let lo = 10f64.powf(min.log10().floor());
        let span = max.log10() - lo.log10();
        let hi = 10f64.powf(lo.log10() + span / 0.68);
        let x_desc = format!("{} (log scale)", fig.x_desc);
        bars_on(&mut builder, (lo..hi).log_scale(), fig, &x_desc, lo, &|q| {
            q * 1.15
        })?;
    } else {
        let hi = max * 1.45;
        bars_on(&mut builder, 0f64..hi, fig, &fig.x_desc, 0.0, &|q| {
            q + hi * 0.01
        })?;
    }
    root.present()?;
    Ok(())
}

/// The bars on an x axis `x` (linear or log): each from `x0` to its value, its value
/// printed at `label_x(value)`.
fn bars_on<DB, X>(
    builder: &mut ChartBuilder<'_, '_, DB>,
    x: X,
    fig: &BarFigure,
    x_desc: &str,
    x0: f64,
    label_x: &dyn Fn(f64) -> f64,
) -> DrawResult
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
    X: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
{
    let n = fig.bars.len() as i32;
    let label_of = |v: &f64| {
        let i = v.round() as i32;
        if (0..n).contains(&i) {
            fig.bars[(n - 1 - i) as usize].label.clone()
        } else {
            String::new()
        }
    };
    let mut chart = builder.build_cartesian_2d(x, Rows(n))?;
    let fmt = |v: &f64| tick(*v);
    chart
        .configure_mesh()
        .x_desc(x_desc)
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
        let i = f64::from(n - 1 - k as i32);
        let colour = if b.baseline {
            BASELINE
        } else if b.hybrid {
            HIGHLIGHT
        } else {
            BAR
        };
        chart.draw_series(std::iter::once(Rectangle::new(
            [(x0, i - 0.36), (b.qps, i + 0.36)],
            colour.filled(),
        )))?;
        let value = match b.rel {
            Some(r) => format!("{} {}, {r:.2}× hybrid", count(b.qps), fig.unit),
            None => format!("{} {}", count(b.qps), fig.unit),
        };
        chart.draw_series(std::iter::once(Text::new(
            value,
            (label_x(b.qps), i),
            text_style(14, HPos::Left),
        )))?;
    }
    Ok(())
}
