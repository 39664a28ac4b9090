//! Heatmaps: a grid of cells (threads × access size), colour and printed value =
//! GiB/s, with a colour bar (SIGMOD'21 Fig. 8).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::axis::{y_label, Ticked};
use super::{begin, centered, FONT};
use crate::error::DrawResult;

#[derive(Debug)]
pub(crate) struct HeatFigure {
    pub(crate) stem: String,
    pub(crate) title: String,
    pub(crate) subtitle: String,
    pub(crate) x_desc: String,
    pub(crate) y_desc: String,
    pub(crate) x_labels: Vec<String>,
    pub(crate) y_labels: Vec<String>,
    /// `cells[y][x]`, GiB/s.
    pub(crate) cells: Vec<Vec<Option<f64>>>,
    /// The report's caption: what, where, which paper figure.
    pub(crate) caption: String,
}

impl HeatFigure {
    pub(crate) fn size(&self) -> (u32, u32) {
        let nx = self.x_labels.len() as u32;
        let ny = self.y_labels.len() as u32;
        (
            (nx * 58 + 300).clamp(900, 2400),
            (ny * 30 + 200).clamp(520, 1600),
        )
    }
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

pub(crate) fn draw_heat<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    fig: &HeatFigure,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let (w, body) = begin(root, &fig.title, &fig.subtitle)?;
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
