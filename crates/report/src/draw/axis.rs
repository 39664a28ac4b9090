//! Axes and numbers on them: an f64 axis with exactly the given ticks ([`Ticked`]), one
//! row per bar ([`Rows`]), tick placement and labels for byte sizes, thread counts and
//! nanoseconds, and short counts (`1.23M`).

use std::collections::BTreeSet;

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::prelude::Ranged;

use super::XAxis;
use pmolap_results::size::format_size;

pub(crate) fn tick_label(axis: XAxis, v: f64) -> String {
    match axis {
        XAxis::Log2Bytes => format_size(2f64.powf(v).round() as u64),
        XAxis::Linear => {
            if (v - v.round()).abs() < 1e-9 {
                format!("{}", v.round() as i64)
            } else {
                format!("{v}")
            }
        }
        XAxis::Log10Ns => {
            let ns = 10f64.powf(v);
            // Three significant digits at most.
            let mag = 10f64.powi(ns.log10().floor() as i32 - 2);
            let r = (ns / mag).round() * mag;
            if r >= 1000.0 {
                format!("{}k", ((r / 1000.0) * 100.0).round() / 100.0)
            } else if r >= 1.0 {
                format!("{}", r.round() as u64)
            } else {
                format!("{r:.2}")
            }
        }
    }
}

/// (low, high, tick positions) of the x axis.
pub(crate) fn x_range(axis: XAxis, xs: &[f64]) -> (f64, f64, Vec<f64>) {
    let min = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    match axis {
        XAxis::Log2Bytes => {
            let (lo, hi) = (min.ceil() as i64, max.floor() as i64);
            let step = ((hi - lo) / 16 + 1).max(1);
            let ticks = (lo..=hi).step_by(step as usize).map(|v| v as f64).collect();
            (min - 0.4, max + 0.4, ticks)
        }
        XAxis::Linear => {
            let distinct: BTreeSet<i64> = xs.iter().map(|x| x.round() as i64).collect();
            let hi = max + (max * 0.04).max(0.5);
            let ticks = if distinct.len() <= 14 && is_spread(&distinct, max) {
                distinct.into_iter().map(|v| v as f64).collect()
            } else {
                let step = [
                    1.0, 2.0, 4.0, 5.0, 8.0, 10.0, 16.0, 20.0, 25.0, 32.0, 50.0, 64.0, 100.0,
                    128.0, 256.0,
                ]
                .into_iter()
                .find(|s| max / s <= 12.0)
                .unwrap_or((max / 10.0).ceil());
                (0..)
                    .map(|i| i as f64 * step)
                    .take_while(|v| *v <= max)
                    .collect()
            };
            (0.0, hi, ticks)
        }
        XAxis::Log10Ns => {
            let span = (max - min).max(0.2);
            let (lo, hi) = (min - 0.04 * span, max + 0.04 * span);
            let in_range = |mults: &[f64]| -> Vec<f64> {
                let mut t = Vec::new();
                for e in (lo.floor() as i32)..=(hi.ceil() as i32) {
                    for m in mults {
                        let v = (m * 10f64.powi(e)).log10();
                        if v >= lo && v <= hi {
                            t.push(v);
                        }
                    }
                }
                t
            };
            let mut ticks = in_range(&[1.0, 2.0, 5.0]);
            if ticks.len() < 5 {
                let fine = in_range(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
                if fine.len() <= 14 {
                    ticks = fine;
                }
            } else if ticks.len() > 12 {
                ticks = in_range(&[1.0]);
            }
            // No two labels on top of each other.
            let mut kept: Vec<f64> = Vec::new();
            for t in ticks {
                if kept.last().is_none_or(|last| t - last >= 0.05 * (hi - lo)) {
                    kept.push(t);
                }
            }
            let ticks = kept;
            (lo, hi, ticks)
        }
    }
}

/// Whether measured thread counts make good ticks (not crowded at the low end).
fn is_spread(values: &BTreeSet<i64>, max: f64) -> bool {
    let v: Vec<i64> = values.iter().copied().collect();
    let min_gap = v.windows(2).map(|w| w[1] - w[0]).min().unwrap_or(1) as f64;
    min_gap / max.max(1.0) >= 0.025
}

pub(crate) fn y_label(v: f64, y_max: f64) -> String {
    if y_max >= 20.0 {
        format!("{v:.0}")
    } else if y_max >= 2.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// A linear f64 axis with exactly the given ticks (labels come from a formatter).
#[derive(Debug, Clone)]
pub(crate) struct Ticked {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
}

impl Ticked {
    pub(crate) fn new(lo: f64, hi: f64, ticks: Vec<f64>) -> Ticked {
        let hi = if hi > lo { hi } else { lo + 1.0 };
        Ticked { lo, hi, ticks }
    }
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let f = (value - self.lo) / (self.hi - self.lo);
        (f64::from(limit.0) + f * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

/// The y axis of a bar chart: one row per bar at 0, 1, ..., n - 1 (ticks at the rows).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rows(pub(crate) i32);

impl Ranged for Rows {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let f = (value + 0.5) / f64::from(self.0.max(1));
        (f64::from(limit.0) + f * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            (0..self.0).map(f64::from).collect()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        -0.5..f64::from(self.0) - 0.5
    }
}

/// 1234567 → "1.23M", 12345 → "12.3k", 12.3 → "12.3".
pub(crate) fn count(v: f64) -> String {
    let (x, suffix) = if v >= 1e9 {
        (v / 1e9, "G")
    } else if v >= 1e6 {
        (v / 1e6, "M")
    } else if v >= 1e3 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let s = if x >= 100.0 || (suffix.is_empty() && (x - x.round()).abs() < 1e-9) {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    };
    format!("{s}{suffix}")
}

/// An axis label: [`count`] without trailing zeros ("1k", not "1.00k").
pub(crate) fn tick(v: f64) -> String {
    let s = count(v);
    let (num, suffix) = s.split_at(s.trim_end_matches(char::is_alphabetic).len());
    let num = if num.contains('.') {
        num.trim_end_matches('0').trim_end_matches('.')
    } else {
        num
    };
    format!("{num}{suffix}")
}

/// A unit for q/s values up to `max`: (divisor, axis words).
pub(crate) fn qps_unit(max: f64) -> (f64, &'static str) {
    if max >= 2e6 {
        (1e6, "million queries/s")
    } else if max >= 2e4 {
        (1e3, "thousand queries/s")
    } else {
        (1.0, "queries/s")
    }
}
