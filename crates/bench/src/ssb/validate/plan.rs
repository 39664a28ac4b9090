//! What a validation run measures, in which order: the advised placements and the
//! baselines beside them ([`plan_baselines`], [`interleave`]), and how each is run.

use pmolap_place::{baselines, Assignment, Workload};

/// How a placement is run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Procedure {
    /// The run's setting (cold, or behind the setting's cgroup limit).
    Setting,
    /// Behind a page cache bounded to this many bytes (plus the working memory): the OS
    /// alone.
    Cache(u64),
}

/// One placement to measure.
pub(super) struct Planned {
    pub name: String,
    pub assignment: Assignment,
    pub procedure: Procedure,
    /// For a baseline: its kind, DRAM bytes and the advised placements it stands beside.
    pub baseline: Option<(String, u64, Vec<String>)>,
}

/// The page cache an OS-alone run (everything on the slow tier) is bounded to: the DRAM
/// bytes it stands for plus the setting's cache, and never less than the smallest bound
/// `cache:SIZE` takes ([`pmolap_results::place::MIN_CACHE_BYTES`]). Below that the
/// queries' own memory, which shares the group's limit with the page cache, varies by
/// more than the bound and the kernel's OOM killer ends the run without a word
/// (2026-11-28, clean-clone CI: the OS alone at ~0 MiB of DRAM cold, a limit of 1.35 MB,
/// killed). A placement advised with a few MiB of DRAM is compared with an OS alone that
/// had more: the comparison errs in the baseline's favour.
pub(super) fn os_alone_cache(dram: u64, setting_cache: u64) -> u64 {
    (dram + setting_cache).max(pmolap_results::place::MIN_CACHE_BYTES)
}

/// The baselines at the DRAM bytes of every advised placement of `chosen`, each distinct
/// one once (with every advised placement it stands beside).
pub(super) fn plan_baselines(
    w: &Workload,
    chosen: &[pmolap_place::Scenario],
    setting_cache: u64,
    cgroups: bool,
) -> Vec<Planned> {
    let total = w.total_bytes();
    let mut out: Vec<Planned> = Vec::new();
    let mut add = |kind: &str, a: Assignment, p: Procedure, dram: u64, for_: &str| {
        if let Some(b) = out.iter_mut().find(|b| {
            b.procedure == p
                && b.assignment == a
                && b.baseline.as_ref().is_some_and(|x| x.0 == kind)
        }) {
            if let Some((_, _, v)) = &mut b.baseline {
                v.push(for_.to_string());
            }
            return;
        }
        out.push(Planned {
            name: format!("{kind} @ {:.1} MiB DRAM", dram as f64 / (1 << 20) as f64),
            assignment: a,
            procedure: p,
            baseline: Some((kind.to_string(), dram, vec![for_.to_string()])),
        });
    };
    for s in chosen
        .iter()
        .filter(|s| s.name.starts_with("budget") || s.name.starts_with("target"))
    {
        let dram = s
            .page_cache_dram_bytes
            .unwrap_or(total.saturating_sub(s.share.bytes));
        add(
            "hottest",
            baselines::hottest(w, dram),
            Procedure::Setting,
            dram,
            &s.name,
        );
        add(
            "dictionaries",
            baselines::dictionaries(w, dram),
            Procedure::Setting,
            dram,
            &s.name,
        );
        if let Some(a) = baselines::never_accessed(w, dram) {
            add("never accessed", a, Procedure::Setting, dram, &s.name);
        }
        if cgroups {
            add(
                "os alone",
                Assignment::all(w.structures.len(), 1),
                Procedure::Cache(os_alone_cache(dram, setting_cache)),
                dram,
                &s.name,
            );
        }
    }
    out
}

/// The advised placements in their order, each followed by the baselines first planned
/// beside it ([`plan_baselines`]), so an advice and its baselines are measured minutes
/// apart at most, not the advice in the first half of the run and the baselines in the
/// second. Each run's ratio is paired with the all-DRAM reference, yet the same placement
/// measured early and late in one run differed by more than that pairing removes (SF 10,
/// 2026-11-28 02:49, `budget 0%` and the identical `never accessed` baseline: 1.00–1.05
/// against 0.97–1.01 in every round).
pub(super) fn interleave(advised: Vec<Planned>, baselines: Vec<Planned>) -> Vec<Planned> {
    let mut rest: Vec<Option<Planned>> = baselines.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(advised.len() + rest.len());
    for a in advised {
        let name = a.name.clone();
        out.push(a);
        for b in rest.iter_mut() {
            if b.as_ref().is_some_and(|b| {
                b.baseline
                    .as_ref()
                    .and_then(|(_, _, beside)| beside.first())
                    == Some(&name)
            }) {
                out.extend(b.take());
            }
        }
    }
    out.extend(rest.into_iter().flatten());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_os_alone_run_is_never_bounded_below_the_smallest_cache() {
        let min = pmolap_results::place::MIN_CACHE_BYTES;
        assert_eq!(os_alone_cache(0, 0), min);
        assert_eq!(os_alone_cache(1 << 20, 2 << 20), min);
        assert_eq!(os_alone_cache(min, 1), min + 1);
        assert_eq!(os_alone_cache(30 << 20, 64 << 20), 94 << 20);
    }

    #[test]
    fn each_advice_is_measured_just_before_its_baselines() {
        let planned = |name: &str, beside: &[&str]| Planned {
            name: name.into(),
            assignment: Assignment::all(1, 0),
            procedure: Procedure::Setting,
            baseline: (!beside.is_empty()).then(|| {
                (
                    "hottest".to_string(),
                    0,
                    beside.iter().map(|b| b.to_string()).collect(),
                )
            }),
        };
        let advised = vec![
            planned("all slow", &[]),
            planned("budget 0%", &[]),
            planned("budget 1%", &[]),
            planned("target 25%", &[]),
        ];
        let baselines = vec![
            // Shared by two advised placements: after the first.
            planned("hottest @ 9", &["budget 0%", "target 25%"]),
            planned("hottest @ 8", &["budget 1%"]),
            planned("os alone @ 9", &["budget 0%"]),
            // Beside nothing advised (cannot happen): kept, last.
            planned("stray", &["budget 7%"]),
        ];
        let order: Vec<String> = interleave(advised, baselines)
            .into_iter()
            .map(|p| p.name)
            .collect();
        assert_eq!(
            order,
            [
                "all slow",
                "budget 0%",
                "hottest @ 9",
                "os alone @ 9",
                "budget 1%",
                "hottest @ 8",
                "target 25%",
                "stray"
            ]
        );
    }
}
