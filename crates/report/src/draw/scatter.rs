//! Scatter plots of predicted against measured (the placement paper's Fig. 7/10 shape):
//! point series on linear axes, with the diagonal and a ±band around it.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::HPos;

use super::{begin, split_legend, text_style, FONT, GREY, GRID, PALETTE};
use crate::draw::Series;
use crate::error::DrawResult;

#[derive(Debug)]
pub(crate) struct ScatterFigure {
    pub(crate) stem: String,
    pub(crate) title: String,
    pub(crate) subtitle: String,
    pub(crate) x_desc: String,
    pub(crate) y_desc: String,
    /// The points, (x, y); each series its own colour.
    pub(crate) series: Vec<Series>,
    /// Draw y = x and the band y = x · (1 ± band) (0.1: ±10 %).
    pub(crate) band: f64,
    pub(crate) caption: String,
}

pub(crate) fn draw_scatter<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    fig: &ScatterFigure,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let (_, body) = begin(root, &fig.title, &fig.subtitle)?;
    let diag = format!("y = x, ±{:.0} %", 100.0 * fig.band);
    let labels = fig
        .series
        .iter()
        .map(|s| s.label.as_str())
        .chain(std::iter::once(diag.as_str()));
    let (plot, legend) = split_legend(&body, labels, 60)?;
    let text = text_style(15, HPos::Left);
    let top = fig
        .series
        .iter()
        .flat_map(|s| s.points.iter().flat_map(|p| [p.0, p.1]))
        .filter(|v| v.is_finite())
        .fold(1.0f64, f64::max)
        * 1.05;
    let mut chart = ChartBuilder::on(&plot)
        .margin_left(10)
        .margin_right(16)
        .margin_top(8)
        .margin_bottom(10)
        .x_label_area_size(52)
        .y_label_area_size(72)
        .build_cartesian_2d(0f64..top, 0f64..top)?;
    chart
        .configure_mesh()
        .x_desc(fig.x_desc.as_str())
        .y_desc(fig.y_desc.as_str())
        .label_style((FONT, 16))
        .axis_desc_style((FONT, 18))
        .bold_line_style(GRID)
        .max_light_lines(0)
        .draw()?;
    let grey = GREY.stroke_width(1);
    chart.draw_series(LineSeries::new(
        [(0.0, 0.0), (top, top)],
        GREY.stroke_width(2),
    ))?;
    for f in [1.0 - fig.band, 1.0 + fig.band] {
        chart.draw_series(LineSeries::new([(0.0, 0.0), (top, top * f)], grey))?;
    }
    for (i, s) in fig.series.iter().enumerate() {
        let c = PALETTE[i % PALETTE.len()];
        chart.draw_series(
            s.points
                .iter()
                .filter(|p| p.0.is_finite() && p.1.is_finite())
                .map(|&p| Circle::new(p, 4, c.filled())),
        )?;
    }
    for (i, s) in fig.series.iter().enumerate() {
        let c = PALETTE[i % PALETTE.len()];
        let y = 20 + 24 * i as i32;
        legend.draw(&Circle::new((18, y), 4, c.filled()))?;
        legend.draw(&Text::new(s.label.as_str(), (40, y), text.clone()))?;
    }
    let y = 20 + 24 * fig.series.len() as i32;
    legend.draw(&PathElement::new(
        vec![(4, y), (32, y)],
        GREY.stroke_width(2),
    ))?;
    legend.draw(&Text::new(diag.as_str(), (40, y), text))?;
    root.present()?;
    Ok(())
}
