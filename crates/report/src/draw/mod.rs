//! Drawing figures with plotters, the same way onto an SVG string (the report, `.svg`
//! files) and an RGB buffer (`.png` files): the figure types ([`Figure`]), the shared
//! style (embedded font, palette, title and subtitle) and saving.
//!
//! Text is laid out with an embedded DejaVu Sans (plotters' `ab_glyph` backend: no
//! system fonts needed); SVG text names the `sans-serif` family.

pub(crate) mod axis;
pub(crate) mod bars;
pub(crate) mod grouped;
pub(crate) mod heat;
pub(crate) mod lines;
pub(crate) mod palette;
pub(crate) mod scatter;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{register_font, FontStyle};

use crate::error::{DrawResult, Error, Result};
pub(crate) use bars::{Bar, BarFigure};
pub(crate) use grouped::GroupedBars;
pub(crate) use heat::HeatFigure;
pub(crate) use lines::{LineFigure, Series, XAxis};
pub(crate) use scatter::ScatterFigure;

/// DejaVu Sans (Bitstream Vera license, see `assets/DejaVuSans-LICENSE.txt`).
static FONT_BYTES: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");
pub(crate) const FONT: &str = "sans-serif";
/// At most this many lines per chart (the palette has ten colours); the rest are left
/// out, and the chart says so.
pub(crate) const MAX_SERIES: usize = 10;

/// Registers the embedded font (once).
pub(crate) fn ensure_font() -> Result<()> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    if *REGISTERED.get_or_init(|| register_font(FONT, FontStyle::Normal, FONT_BYTES).is_ok()) {
        Ok(())
    } else {
        Err(Error::Draw {
            what: "text".into(),
            why: "the embedded font DejaVuSans.ttf could not be loaded".into(),
        })
    }
}

/// One figure: what it shows, how to draw it, and its caption in the report.
#[derive(Debug)]
pub(crate) enum Figure {
    Lines(LineFigure),
    Heat(HeatFigure),
    Bars(BarFigure),
    Grouped(GroupedBars),
    Scatter(ScatterFigure),
}

impl Figure {
    /// The file name without extension (unique within one document's figures).
    pub(crate) fn stem(&self) -> &str {
        match self {
            Figure::Lines(f) => &f.stem,
            Figure::Heat(f) => &f.stem,
            Figure::Bars(f) => &f.stem,
            Figure::Grouped(f) => &f.stem,
            Figure::Scatter(f) => &f.stem,
        }
    }

    pub(crate) fn stem_mut(&mut self) -> &mut String {
        match self {
            Figure::Lines(f) => &mut f.stem,
            Figure::Heat(f) => &mut f.stem,
            Figure::Bars(f) => &mut f.stem,
            Figure::Grouped(f) => &mut f.stem,
            Figure::Scatter(f) => &mut f.stem,
        }
    }

    /// What was measured, where, and which paper figure it corresponds to.
    pub(crate) fn caption(&self) -> &str {
        match self {
            Figure::Lines(f) => &f.caption,
            Figure::Heat(f) => &f.caption,
            Figure::Bars(f) => &f.caption,
            Figure::Grouped(f) => &f.caption,
            Figure::Scatter(f) => &f.caption,
        }
    }

    fn size(&self) -> (u32, u32) {
        match self {
            Figure::Lines(_) => (1100, 640),
            Figure::Heat(f) => f.size(),
            Figure::Bars(f) => (1200, (150 + 34 * f.bars.len() as u32).max(560)),
            Figure::Grouped(f) => f.size(),
            Figure::Scatter(_) => (1000, 760),
        }
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        match self {
            Figure::Lines(f) => lines::draw_lines(root, f),
            Figure::Heat(f) => heat::draw_heat(root, f),
            Figure::Bars(f) => bars::draw_bars(root, f),
            Figure::Grouped(f) => grouped::draw_grouped(root, f),
            Figure::Scatter(f) => scatter::draw_scatter(root, f),
        }
    }

    /// The figure as an SVG document (`<svg …>…</svg>`, no XML declaration): for the
    /// report inline, and for `.svg` files.
    pub(crate) fn to_svg(&self) -> Result<String> {
        ensure_font()?;
        let mut text = String::new();
        {
            let root = SVGBackend::with_string(&mut text, self.size()).into_drawing_area();
            self.draw(&root).map_err(|e| Error::Draw {
                what: self.stem().to_string(),
                why: e.0,
            })?;
        }
        Ok(text)
    }

    /// Draws the figure as `<stem>.png` and `<stem>.svg` in `dir`: each is rendered in
    /// memory and published whole (staged beside its name, then renamed), so a failure
    /// leaves no partial file behind and its message names the path.
    pub(crate) fn save(&self, dir: &Path) -> Result<Vec<PathBuf>> {
        ensure_font()?;
        let (w, h) = self.size();
        let png = dir.join(format!("{}.png", self.stem()));
        let mut rgb = vec![0u8; w as usize * h as usize * 3];
        {
            let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
            self.draw(&root).map_err(|e| Error::Draw {
                what: png.display().to_string(),
                why: e.0,
            })?;
        }
        pmolap_os::durable::publish_file(&png, &crate::png::encode_rgb(&rgb, w, h))?;
        let svg = dir.join(format!("{}.svg", self.stem()));
        pmolap_os::durable::publish_file(&svg, self.to_svg()?.as_bytes())?;
        Ok(vec![png, svg])
    }
}

/// Makes the stems of `figs` unique (`x`, `x-2`, `x-3`, ...).
pub(crate) fn unique_stems(figs: &mut [Figure]) {
    let mut seen = std::collections::HashSet::new();
    for fig in figs {
        let stem = fig.stem_mut();
        let base = stem.clone();
        let mut n = 2;
        while !seen.insert(stem.clone()) {
            *stem = format!("{base}-{n}");
            n += 1;
        }
    }
}

/// Tableau 10.
pub(crate) const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];
pub(crate) const GRID: RGBColor = RGBColor(225, 225, 225);
pub(crate) const GREY: RGBColor = RGBColor(90, 90, 90);

pub(crate) fn centered(size: u32) -> TextStyle<'static> {
    (FONT, size)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Center))
}

/// Subtitle parts are joined with this.
pub(crate) const SEP: &str = " · ";

/// Draws the title (shrunk to fit) and the subtitle (wrapped onto a second line if need
/// be) at the top of `root`; returns the area below them.
pub(crate) fn draw_heading<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    subtitle: &str,
) -> DrawResult<DrawingArea<DB, Shift>>
where
    DB::ErrorType: 'static,
{
    let (w, _) = root.dim_in_pixel();
    // Text laid out in a figure is bounded however long a document's fields are.
    let title = crate::markup::clip_to(title, crate::markup::MAX_TEXT_CHARS);
    let title = title.as_ref();
    let subtitle = crate::markup::clip_to(subtitle, crate::markup::MAX_TEXT_CHARS);
    let width = |text: &str, size: u32| -> DrawResult<u32> {
        Ok(root.estimate_text_size(text, &centered(size))?.0 + 24)
    };
    let mut title_size = 24;
    while title_size > 12 && width(title, title_size)? > w {
        title_size -= 1;
    }
    // Greedy wrap of the subtitle's parts onto as few lines as fit (at most three).
    let sub_size = 15;
    let mut lines: Vec<String> = Vec::new();
    for part in subtitle.split(SEP) {
        match lines.last_mut() {
            Some(line) if width(&format!("{line}{SEP}{part}"), sub_size)? <= w => {
                line.push_str(SEP);
                line.push_str(part);
            }
            _ => lines.push(part.to_string()),
        }
    }
    if lines.len() > 3 {
        let rest = lines.split_off(2).join(SEP);
        lines.push(rest);
    }
    let cx = (w / 2) as i32;
    root.draw(&Text::new(title, (cx, 22), centered(title_size)))?;
    let mut y = 50;
    for line in &lines {
        let mut size = sub_size;
        while size > 9 && width(line, size)? > w {
            size -= 1;
        }
        root.draw(&Text::new(
            line.as_str(),
            (cx, y),
            centered(size).color(&GREY),
        ))?;
        y += 20;
    }
    Ok(root.split_vertically(y + 4).1)
}

/// Clears `root` and draws the title and subtitle; returns the width and the area below.
pub(crate) fn begin<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    subtitle: &str,
) -> DrawResult<(u32, DrawingArea<DB, Shift>)>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let (w, _) = root.dim_in_pixel();
    Ok((w, draw_heading(root, title, subtitle)?))
}

/// Splits `body` into the plot and, on its right, a legend wide enough for `labels`
/// (plus `pad` pixels for the key), at most a third of the width.
pub(crate) fn split_legend<'a, DB: DrawingBackend>(
    body: &DrawingArea<DB, Shift>,
    labels: impl Iterator<Item = &'a str>,
    pad: u32,
) -> DrawResult<(DrawingArea<DB, Shift>, DrawingArea<DB, Shift>)>
where
    DB::ErrorType: 'static,
{
    let (w, _) = body.dim_in_pixel();
    let text = text_style(15, HPos::Left);
    let mut widest = 0;
    for l in labels {
        widest = widest.max(body.estimate_text_size(l, &text)?.0);
    }
    let legend_w = (widest + pad).clamp(120, w / 3);
    Ok(body.split_horizontally(w - legend_w))
}

/// A table header from its column names.
pub(crate) fn header(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

/// Text in the embedded font at `size`, anchored at `h` and the vertical centre.
pub(crate) fn text_style(size: u32, h: HPos) -> TextStyle<'static> {
    (FONT, size)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(h, VPos::Center))
}

/// Lower-case letters, digits and single dashes.
pub(crate) fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() || c == '.' {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_matches(|c| c == '-' || c == '.').replace('.', "_");
    if out.is_empty() {
        "plot".into()
    } else {
        out
    }
}

/// `s` with its first letter in upper case.
pub(crate) fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
}
