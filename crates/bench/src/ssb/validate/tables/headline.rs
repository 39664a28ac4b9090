//! The headline table of `place tables`: per setting, the most of the accessed bytes on
//! the slow tier within 10 % of DRAM (the placement paper's headline), measured and as
//! the advised model predicts it, over the rounds, with the placement behind each and
//! what the model's pick measured.

use std::collections::BTreeMap;
use std::fmt::Write;

use pmolap_results::place::ValidateReport;
use pmolap_results::stats::Spread;

use super::{head, pct, rel, row};

/// `budget 50% (2 of 3), target 75% (1 of 3)`: the placements behind a headline in
/// each round, most frequent first.
fn names<'a>(picked: impl Iterator<Item = Option<&'a str>>, rounds: usize) -> String {
    let mut n: BTreeMap<&str, usize> = BTreeMap::new();
    for p in picked {
        *n.entry(p.unwrap_or("none")).or_default() += 1;
    }
    let mut v: Vec<(&str, usize)> = n.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    v.iter()
        .map(|(p, k)| format!("{p} ({k} of {rounds})"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Table 1c, per setting: the headline measured and by the model (median over the
/// rounds, min–max), the placements behind them, and the measured relative time of the
/// model's pick (does the model's headline hold?).
pub(super) fn headline_table<W>(out: &mut String, settings: &[(String, Vec<&ValidateReport<W>>)]) {
    let _ = writeln!(
        out,
        "\n### Headline: the most of the accessed bytes on the slow tier within 10 % of DRAM (relative time ≤ 1.1; over the placements and baselines validated but the OS alone, whose DRAM is its page cache), measured and by the advised model\n"
    );
    head(
        out,
        &[
            "setting",
            "measured",
            "measured: placement (rounds)",
            "by the model",
            "model: placement (rounds)",
            "model's placement measured",
        ],
    );
    for (label, ds) in settings {
        let picks: Vec<_> = ds.iter().map(|d| d.headline_placements()).collect();
        let share = |v: Vec<f64>| pct(Spread::of(&v));
        row(
            out,
            &[
                label.clone(),
                share(
                    picks
                        .iter()
                        .filter_map(|p| p.0.map(|s| s.headline_fraction()))
                        .collect(),
                ),
                names(picks.iter().map(|p| p.0.map(|s| s.name.as_str())), ds.len()),
                share(
                    picks
                        .iter()
                        .filter_map(|p| p.1.map(|s| s.headline_fraction()))
                        .collect(),
                ),
                names(picks.iter().map(|p| p.1.map(|s| s.name.as_str())), ds.len()),
                rel(Spread::of(
                    &picks
                        .iter()
                        .filter_map(|p| p.1.map(|s| s.measured))
                        .collect::<Vec<_>>(),
                )),
            ],
        );
    }
}

#[cfg(test)]
mod tests {
    use super::names;

    #[test]
    fn names_count_the_rounds_most_frequent_first() {
        let picks = [Some("b"), None, Some("b"), Some("a")];
        assert_eq!(
            names(picks.into_iter(), 4),
            "b (2 of 4), a (1 of 4), none (1 of 4)"
        );
    }
}
