//! Run-to-run spread and the one "within noise" rule every figure uses (issue 34): a
//! timed figure is the median of its repetitions with their min–max range, and a
//! comparison between two figures is a finding only when their ranges do not overlap.
//!
//! Why min–max and not a bootstrap interval: pmolap's runs take 1–10 repetitions, where a
//! percentile bootstrap of the median degenerates to (nearly) the min–max range anyway,
//! and min–max is what a reader can check by eye in the JSON's `times_ms`. The method is
//! documented in docs/report.md ("Noise").
use serde::{Deserialize, Serialize};

/// The median (mean of the middle two for an even count); 0 for none. NaNs sort last.
pub fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let m = s.len() / 2;
    if s.len() % 2 == 1 {
        s[m]
    } else {
        (s[m - 1] + s[m]) / 2.0
    }
}

/// A timed figure: the median of `n` repetitions and their min–max range.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub n: usize,
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Spread {
    /// The spread of `samples` (finite values only; `None` when none is finite).
    pub fn of(samples: &[f64]) -> Option<Spread> {
        let v: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        Some(Spread {
            n: v.len(),
            median: median(&v),
            min: v.iter().copied().fold(f64::INFINITY, f64::min),
            max: v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        })
    }

    /// The range's half-width relative to the median (0.05 = ±5 %); 0 for one sample.
    pub fn relative_width(&self) -> f64 {
        if self.median == 0.0 {
            return 0.0;
        }
        (self.max - self.min) / 2.0 / self.median.abs()
    }

    /// `"12.3 ms (11.9–13.0, 5 reps)"`, or `"12.3 ms (1 rep)"`.
    pub fn display(&self, unit: &str) -> String {
        if self.n <= 1 {
            format!("{} {unit} (1 rep)", sig3(self.median))
        } else {
            format!(
                "{} {unit} ({}–{}, {} reps)",
                sig3(self.median),
                sig3(self.min),
                sig3(self.max),
                self.n
            )
        }
    }
}

impl Spread {
    /// The spread of a sum of figures (a total over queries): the sums of the medians,
    /// of the minima and of the maxima, with the fewest repetitions of any part; `None`
    /// for no parts.
    pub fn sum(parts: &[Spread]) -> Option<Spread> {
        let n = parts.iter().map(|p| p.n).min()?;
        Some(Spread {
            n,
            median: parts.iter().map(|p| p.median).sum(),
            min: parts.iter().map(|p| p.min).sum(),
            max: parts.iter().map(|p| p.max).sum(),
        })
    }

    /// The spread of a geometric mean of positive figures (Fig. 14's geomean over
    /// queries): the geomeans of the medians, minima and maxima, with the fewest
    /// repetitions of any part; `None` for no parts or a part that is not positive.
    /// The ratio of two such geomeans over the same queries is the geomean of the
    /// per-query ratios.
    pub fn geomean(parts: &[Spread]) -> Option<Spread> {
        let n = parts.iter().map(|p| p.n).min()?;
        if !parts.iter().all(|p| p.min > 0.0) {
            return None;
        }
        let g = |f: fn(&Spread) -> f64| {
            (parts.iter().map(|p| f(p).ln()).sum::<f64>() / parts.len() as f64).exp()
        };
        Some(Spread {
            n,
            median: g(|p| p.median),
            min: g(|p| p.min),
            max: g(|p| p.max),
        })
    }
}

/// Whether a difference between two figures is a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The two ranges do not overlap: the difference is outside run-to-run noise.
    Outside,
    /// The two ranges overlap: the difference is within noise, not a finding.
    WithinNoise,
    /// One side has a single repetition: there is no spread to judge by.
    Unknown,
}

impl Verdict {
    /// A short suffix for terminal and report text: `""`, `" (within noise)"`,
    /// `" (1 rep: noise unknown)"`.
    pub fn suffix(self) -> &'static str {
        match self {
            Verdict::Outside => "",
            Verdict::WithinNoise => " (within noise)",
            Verdict::Unknown => " (1 rep: noise unknown)",
        }
    }
}

/// A ratio of two figures (`a / b`, e.g. a tier's time over DRAM's) with the verdict of
/// the one rule: outside noise only when the two min–max ranges do not overlap.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Ratio {
    /// median(a) / median(b).
    pub ratio: f64,
    /// The ratio's range from the extremes: min(a)/max(b) .. max(a)/min(b).
    pub low: f64,
    pub high: f64,
    pub verdict: Verdict,
}

impl Ratio {
    /// `a / b`; `None` when b's median is not positive.
    pub fn of(a: &Spread, b: &Spread) -> Option<Ratio> {
        if b.median <= 0.0 || b.min <= 0.0 {
            return None;
        }
        let verdict = if a.n < 2 || b.n < 2 {
            Verdict::Unknown
        } else if a.max < b.min || b.max < a.min {
            Verdict::Outside
        } else {
            Verdict::WithinNoise
        };
        Some(Ratio {
            ratio: a.median / b.median,
            low: a.min / b.max,
            high: a.max / b.min,
            verdict,
        })
    }

    /// Whether the difference is a finding (outside noise).
    pub fn is_finding(&self) -> bool {
        self.verdict == Verdict::Outside
    }

    /// `"1.42x"` plus the verdict's suffix.
    pub fn display(&self) -> String {
        format!("{:.2}x{}", self.ratio, self.verdict.suffix())
    }
}

/// Three significant digits, no exponent for the magnitudes pmolap prints.
pub fn sig3(x: f64) -> String {
    let a = x.abs();
    if a >= 100.0 || a == 0.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_odd_even_empty() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
    }

    #[test]
    fn spread_ignores_non_finite() {
        let s = Spread::of(&[2.0, f64::NAN, 1.0, 4.0]).unwrap();
        assert_eq!((s.n, s.median, s.min, s.max), (3, 2.0, 1.0, 4.0));
        assert!(Spread::of(&[f64::NAN]).is_none());
        assert_eq!(s.display("ms"), "2.00 ms (1.00–4.00, 3 reps)");
    }

    #[test]
    fn overlapping_ranges_are_within_noise() {
        let a = Spread::of(&[8.14, 7.0, 9.0]).unwrap();
        let b = Spread::of(&[5.43, 5.0, 8.0]).unwrap();
        let r = Ratio::of(&a, &b).unwrap();
        assert_eq!(r.verdict, Verdict::WithinNoise);
        assert!(!r.is_finding());
        assert!(r.display().ends_with("(within noise)"));
    }

    #[test]
    fn separate_ranges_are_a_finding() {
        let a = Spread::of(&[20.0, 21.0, 22.0]).unwrap();
        let b = Spread::of(&[10.0, 10.5, 11.0]).unwrap();
        let r = Ratio::of(&a, &b).unwrap();
        assert_eq!(r.verdict, Verdict::Outside);
        assert!((r.ratio - 21.0 / 10.5).abs() < 1e-12);
        assert!((r.low - 20.0 / 11.0).abs() < 1e-12 && (r.high - 2.2).abs() < 1e-12);
        assert_eq!(r.display(), "2.00x");
    }

    #[test]
    fn sums_and_geomeans_keep_the_ranges() {
        let a = Spread::of(&[1.0, 2.0, 3.0]).unwrap();
        let b = Spread::of(&[4.0, 8.0, 8.0, 4.0, 8.0]).unwrap();
        let s = Spread::sum(&[a, b]).unwrap();
        assert_eq!((s.n, s.median, s.min, s.max), (3, 10.0, 5.0, 11.0));
        let g = Spread::geomean(&[a, b]).unwrap();
        assert!((g.median - 4.0).abs() < 1e-12 && (g.min - 2.0).abs() < 1e-12);
        assert!(Spread::sum(&[]).is_none() && Spread::geomean(&[]).is_none());
        let z = Spread::of(&[0.0, 1.0]).unwrap();
        assert!(Spread::geomean(&[a, z]).is_none());
    }

    #[test]
    fn one_rep_is_unknown_and_zero_base_has_no_ratio() {
        let a = Spread::of(&[2.0]).unwrap();
        let b = Spread::of(&[1.0, 1.1]).unwrap();
        assert_eq!(Ratio::of(&a, &b).unwrap().verdict, Verdict::Unknown);
        let z = Spread::of(&[0.0, 0.0]).unwrap();
        assert!(Ratio::of(&a, &z).is_none());
    }
}
