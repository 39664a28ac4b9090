//! The frames table of `place tables`: how the pages each placement read lay in physical
//! memory at the end of its runs (`pmolap_tier::frames`), the page cache's beside the
//! DRAM copies' and the reference's, and what the placements served from the page cache
//! measured (docs/placement.md, "Which frames serve a cached page").

use std::fmt::Write;

use pmolap_results::place::{ScenarioResult, ValidateReport};
use pmolap_results::stats::Spread;
use pmolap_tier::frames::Frames;

use super::{head, row};

/// Pages below this are too few for a share to mean anything.
const MIN_PAGES: u64 = 1024;

fn share(s: Option<Spread>) -> String {
    match s {
        None => "-".into(),
        Some(s) if s.n <= 1 => format!("{:.2}", s.median),
        Some(s) => format!("{:.2} ({:.2}–{:.2})", s.median, s.min, s.max),
    }
}

/// Served from the page cache: at least a tenth of the accessed bytes mapped from the
/// slow tier and not a byte read from the device during the timed runs.
fn served_from_cache(s: &ScenarioResult) -> bool {
    s.slow_accessed_fraction.is_some_and(|f| f >= 0.1)
        && s.io.as_ref().is_some_and(|io| io.read_bytes == 0.0)
}

/// Table 7, frames per setting (spread over every placement run with at least
/// [`MIN_PAGES`] such pages): the page cache's pages in large folios and in coalescable
/// groups, the DRAM copies' and the reference's coalescable groups, and the relative time
/// the placements served from the page cache measured. Left out where no document has a
/// census (the run could not read frame numbers).
pub(super) fn frames_table<W>(out: &mut String, settings: &[(String, Vec<&ValidateReport<W>>)]) {
    let has = settings
        .iter()
        .flat_map(|(_, ds)| ds.iter())
        .any(|d| d.scenarios.iter().any(|s| s.frames.is_some()));
    if !has {
        return;
    }
    let _ = writeln!(
        out,
        "\n### Frames: how the pages read lay in physical memory after each placement's runs (shares of the pages present; spread over the placement runs with at least {MIN_PAGES} such pages), and the placements served from the page cache (≥ 10 % of the accessed bytes mapped, nothing read from the device)\n"
    );
    head(
        out,
        &[
            "setting",
            "placement runs",
            "page cache: in large folios",
            "page cache: coalescable",
            "DRAM copies: coalescable",
            "reference: coalescable",
            "served from the page cache: measured",
        ],
    );
    for (label, ds) in settings {
        let runs: Vec<&ScenarioResult> = ds
            .iter()
            .flat_map(|d| d.scenarios.iter())
            .filter(|s| s.frames.is_some())
            .collect();
        let of = |pick: fn(&ScenarioResult) -> Option<Frames>, large: bool| {
            Spread::of(
                &runs
                    .iter()
                    .filter_map(|s| pick(s))
                    .filter(|f| f.present >= MIN_PAGES)
                    .filter_map(|f| {
                        if large {
                            f.large_folio_fraction()
                        } else {
                            Some(f.coalesced_fraction())
                        }
                    })
                    .collect::<Vec<_>>(),
            )
        };
        let mapped = |s: &ScenarioResult| s.frames.map(|f| f.mapped);
        let copies = |s: &ScenarioResult| s.frames.map(|f| f.copies);
        let reference = |s: &ScenarioResult| s.frames.map(|f| f.reference);
        let served = Spread::of(
            &runs
                .iter()
                .filter(|s| served_from_cache(s))
                .map(|s| s.measured)
                .collect::<Vec<_>>(),
        );
        row(
            out,
            &[
                label.clone(),
                runs.len().to_string(),
                share(of(mapped, true)),
                share(of(mapped, false)),
                share(of(copies, false)),
                share(of(reference, false)),
                match served {
                    None => "-".into(),
                    Some(s) => {
                        format!("{:.3}× ({:.3}–{:.3}, {} runs)", s.median, s.min, s.max, s.n)
                    }
                },
            ],
        );
    }
}
