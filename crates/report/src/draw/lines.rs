//! Line charts: series of (x, y) points over a log2-bytes, linear or log10-ns x axis,
//! with the legend beside the plot.

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::HPos;

use super::axis::{tick_label, x_range, y_label, Ticked};
use super::palette::series_colours;
use super::{begin, split_legend, text_style, FONT, GRID};
use crate::error::DrawResult;

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
    /// The report's caption: what, where, which paper figure.
    pub(crate) caption: String,
}

/// A chart on `area` with x axis `x` (labels from `x_fmt`), y from 0 to `y_max`, both
/// described, and a grid (vertical lines only with `x_mesh`).
pub(crate) fn value_chart<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    x: Ticked,
    y_max: f64,
    (x_desc, y_desc): (&str, &str),
    x_fmt: &dyn Fn(&f64) -> String,
    x_mesh: bool,
) -> DrawResult<ChartContext<'a, DB, Cartesian2d<Ticked, RangedCoordf64>>>
where
    DB::ErrorType: 'static,
{
    let mut chart = ChartBuilder::on(area)
        .margin_left(10)
        .margin_right(16)
        .margin_top(8)
        .margin_bottom(10)
        .x_label_area_size(52)
        .y_label_area_size(72)
        .build_cartesian_2d(x, 0f64..y_max)?;
    let y_fmt = |v: &f64| y_label(*v, y_max);
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(x_desc)
        .y_desc(y_desc)
        .x_label_formatter(x_fmt)
        .y_label_formatter(&y_fmt)
        .y_labels(10)
        .label_style((FONT, 16))
        .axis_desc_style((FONT, 18))
        .bold_line_style(GRID)
        .max_light_lines(0);
    if !x_mesh {
        mesh.disable_x_mesh();
    }
    mesh.draw()?;
    Ok(chart)
}

pub(crate) fn draw_lines<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    fig: &LineFigure,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let (_, body) = begin(root, &fig.title, &fig.subtitle)?;
    let (plot, legend) = split_legend(&body, fig.series.iter().map(|s| s.label.as_str()), 60)?;
    let text = text_style(15, HPos::Left);

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

    let axis = fig.x_axis;
    let mut chart = value_chart(
        &plot,
        Ticked::new(x0, x1, ticks),
        y_max,
        (&fig.x_desc, &fig.y_desc),
        &|v| tick_label(axis, *v),
        true,
    )?;

    let labels: Vec<&str> = fig.series.iter().map(|s| s.label.as_str()).collect();
    let colours = series_colours(&labels);
    for (i, s) in fig.series.iter().enumerate() {
        let c = colours[i];
        chart.draw_series(LineSeries::new(s.points.iter().copied(), c.stroke_width(2)))?;
        if fig.markers {
            chart.draw_series(s.points.iter().map(|&p| Circle::new(p, 4, c.filled())))?;
        }
    }

    // Legend beside the plot, top-aligned with it.
    for (i, s) in fig.series.iter().enumerate() {
        let c = colours[i];
        let y = 20 + 24 * i as i32;
        legend.draw(&PathElement::new(vec![(4, y), (32, y)], c.stroke_width(2)))?;
        if fig.markers {
            legend.draw(&Circle::new((18, y), 4, c.filled()))?;
        }
        legend.draw(&Text::new(
            super::palette::legend_label(&s.label),
            (40, y),
            text.clone(),
        ))?;
    }
    root.present()?;
    Ok(())
}
