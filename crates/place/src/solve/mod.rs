//! Placement solving (§5 of the placement paper): budget mode (most bytes off DRAM with
//! `t <= b · T_DRAM`) and target mode (least `t` with at least `target` of the accessed
//! bytes off DRAM, and everything that costs nothing there), at structure, column or
//! table granularity.
//!
//! - Two tiers ([`front`]): the exact Pareto front of (bytes on the slow tier, `t`) by
//!   the Nemhauser–Ullmann list algorithm, in one pass; both modes are read off it.
//! - Three or more tiers, or capacities ([`mip`]): a MIP through `good_lp` with its
//!   pure-Rust solver `microlp`, accepted only when the solver proves optimality.
//!
//! Costs are solved in integer picoseconds: each structure's `t_s` (ns) is rounded to
//! the nearest ps once, and all sums and comparisons after that are exact integer
//! arithmetic (so "optimal" is exact for the rounded costs; a total differs from the
//! model's real-valued `t` by at most 0.5 ps per structure).

pub mod front;
pub mod mip;

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::model::Assignment;
use crate::workload::Workload;

pub use front::{
    pareto_front, pareto_front_by, solve_budget, solve_target, FrontPoint, ParetoFront,
    TwoTierProblem, Weight,
};
pub use mip::{solve_tiers, Objective, TierProblem};

/// What moves together (defined with the documents that record it).
pub use pmolap_results::place::Granularity;

/// The structures of `w` grouped by `g`, groups in order of first appearance.
pub fn groups(w: &Workload, g: Granularity) -> Vec<Vec<usize>> {
    let mut index: HashMap<(&str, &str), usize> = HashMap::new();
    let mut out: Vec<Vec<usize>> = Vec::new();
    for (i, s) in w.structures.iter().enumerate() {
        let key = match g {
            Granularity::Structure => {
                out.push(vec![i]);
                continue;
            }
            Granularity::Column => (s.table.as_str(), s.column.as_str()),
            Granularity::Table => (s.table.as_str(), ""),
        };
        let k = *index.entry(key).or_insert_with(|| {
            out.push(Vec::new());
            out.len() - 1
        });
        out[k].push(i);
    }
    out
}

/// The bytes of the structures `members` of `w`: all of them, and those the workload
/// accesses ([`crate::workload::StructureLoad::accessed`]; what a target counts).
pub(crate) fn unit_bytes(w: &Workload, members: &[usize]) -> (u64, u64) {
    members
        .iter()
        .map(|&i| &w.structures[i])
        .fold((0, 0), |(all, acc), s| {
            (all + s.bytes, acc + if s.accessed() { s.bytes } else { 0 })
        })
}

/// The most structures a workload may have for the solvers (docs/placement.md,
/// "Bounds"): a real database has a few hundred (SSB at most 174); past this a workload is
/// refused with one line before any work.
pub const MAX_STRUCTURES: usize = 4096;

/// The most list entries the two-tier Pareto front may build over all its steps (each
/// costs 20 bytes: 4 of trace, 16 of list): 2^26, about 1.3 GB, a few seconds of work.
/// A front past it (many units of many distinct sizes) is refused naming a coarser
/// granularity; SSB at structure granularity needs about 6 M.
pub const MAX_FRONT_ENTRIES: usize = 1 << 26;

/// Fails when `w` has more than [`MAX_STRUCTURES`] structures.
pub(crate) fn check_size(w: &Workload) -> Result<()> {
    if w.structures.len() > MAX_STRUCTURES {
        return Err(Error::TooBig(format!(
            "the workload has {} structures, the solvers take at most {MAX_STRUCTURES} (docs/placement.md, \"Bounds\")",
            w.structures.len()
        )));
    }
    Ok(())
}

/// The costs of `w`'s structures (ns, workload order) in whole ps, refused when their
/// total reaches 2^63 ps (so every sum over them fits in 64 bits).
pub(crate) fn costs_ps(w: &Workload, costs: &[f64]) -> Result<Vec<u64>> {
    let ps = costs
        .iter()
        .zip(&w.structures)
        .map(|(&c, s)| to_ps(&s.id(), c))
        .collect::<Result<Vec<u64>>>()?;
    let total: u128 = ps.iter().map(|&p| p as u128).sum();
    if total >= (u64::MAX / 2) as u128 {
        return Err(Error::Argument(format!(
            "the workload's total extra cost ({} ns) is too large to solve in whole ps",
            total / 1000
        )));
    }
    Ok(ps)
}

/// A ns cost as integer picoseconds (rounded to nearest).
pub(crate) fn to_ps(what: &str, ns: f64) -> Result<u64> {
    let ps = (ns * 1000.0).round();
    if !(ps.is_finite() && ps >= 0.0 && ps < (u64::MAX / 4) as f64) {
        return Err(Error::Argument(format!(
            "{what}: cost {ns} ns is not a usable number (negative, not finite, or above 2^62 ps)"
        )));
    }
    Ok(ps as u64)
}

/// Float noise allowed when turning a budget or target into whole units.
const REL_EPS: f64 = 1e-12;

/// The largest whole number of ps within budget `b` (fraction of `T_DRAM`).
pub(crate) fn budget_ps(b: f64, t_dram_ns: f64) -> Result<u64> {
    if !(b.is_finite() && b >= 0.0) {
        return Err(Error::Argument(format!(
            "budget {b} is not a non-negative fraction of T_DRAM (0.1 = 10 % more CPU time)"
        )));
    }
    let x = b * t_dram_ns * 1000.0;
    Ok((x + x * REL_EPS).floor().min((u64::MAX / 2) as f64) as u64)
}

/// The smallest whole number of bytes that is at least `target` of `total`.
pub(crate) fn target_bytes(target: f64, total: u64) -> Result<u64> {
    if !(0.0..=1.0).contains(&target) {
        return Err(Error::Argument(format!(
            "target {target} is not a fraction of the bytes in 0..=1"
        )));
    }
    let x = target * total as f64;
    Ok(((x - x * REL_EPS).ceil() as u64).min(total))
}

/// A solved placement.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    /// Tier per structure of the workload (0 = reference tier).
    pub assignment: Assignment,
    /// Bytes per tier, reference tier first.
    pub bytes_per_tier: Vec<u64>,
    /// Bytes off the reference tier.
    pub bytes_moved: u64,
    /// The model's extra CPU time, ns (sum of the per-structure costs in whole ps),
    /// cold (pages dropped before each query) also where [`crate::Advisor`] chose a
    /// baseline behind a bounded cache (what it promises there is
    /// [`crate::AdviceOptions::cache_band`]'s).
    pub t_ns: f64,
    /// `(T_DRAM + t) / T_DRAM`.
    pub relative: f64,
    /// `None` for the solver's own optimum; else the baseline placement
    /// ([`crate::baselines`]) the model predicted faster at the same DRAM bytes and
    /// [`crate::Advisor`] returned instead (`hottest`, `dictionaries`, `never accessed`,
    /// `os alone`).
    pub baseline: Option<String>,
    /// The OS-alone baseline: the DRAM bytes it leaves to the page cache (every
    /// structure is on the slow tier); `None` otherwise.
    pub page_cache_dram_bytes: Option<u64>,
}

impl Solution {
    /// The page cache this placement is predicted behind in a setting of `cache` bytes:
    /// the OS alone gets its DRAM bytes as page cache too.
    pub fn cache_behind(&self, cache: u64) -> u64 {
        cache.saturating_add(self.page_cache_dram_bytes.unwrap_or(0))
    }
}
