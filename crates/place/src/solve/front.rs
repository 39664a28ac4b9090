//! The two-tier solver: the exact Pareto front of (bytes on the slow tier ↑, extra time
//! `t` ↓) over all placements, by the Nemhauser–Ullmann (1969) list algorithm, and
//! budget and target mode read off it. A front counts the bytes on the slow tier by a
//! [`Weight`]: every byte (budget mode: the most bytes off DRAM) or the bytes of the
//! structures the workload accesses (target mode: a target is a share of the accessed
//! bytes, as the placement paper counts; never-accessed data costs nothing, and counting
//! it would meet "target 50 %" at SF 1 without moving one accessed byte).
//!
//! Why it is exact. Let `P_k` be the Pareto-optimal (bytes, cost) points over subsets
//! of the first `k` items (items: the structures, columns or tables that move as one).
//! If subset `S` of items `1..=k` is Pareto-optimal, then `S \ {k}` is Pareto-optimal
//! among subsets of `1..k` — otherwise the subset dominating it, plus item `k` when `S`
//! has it, would dominate `S` (costs and bytes are additive). Hence
//! `P_k ⊆ P_{k-1} ∪ (P_{k-1} + item_k)`, and filtering the merged lists of the two
//! (both sorted by cost) for dominated points gives exactly `P_k`. Costs are integer ps
//! and bytes integers, so every comparison is exact; the result is the complete front,
//! one representative placement per distinct (bytes, cost) point.
//!
//! Why the modes are answered exactly by the front. Budget mode: an optimal placement
//! `S` (most bytes with cost <= B) is either on the front or dominated by a front point
//! `F` with bytes(F) >= bytes(S) and cost(F) <= cost(S) <= B, so `F` is optimal too; the
//! last front point with cost <= B is therefore optimal (and the cheapest such). Target
//! mode is symmetric: the first front point with bytes >= target. (This needs no upper
//! bound on the slow tier's bytes; with capacities use [`crate::solve::mip`].)
//!
//! Items of zero cost and positive size are on the slow tier in every front point (they
//! add bytes for free), items of zero size stay on DRAM, and so do items that cost time
//! but add nothing to the weight (a never-accessed group the model still prices, by the
//! accessed bytes); none of them enters the lists.
//! Greedy orders by cost per byte give only the front's convex hull, not the front.

use crate::error::{Error, Result};
use crate::model::{Assignment, Model};
use crate::profile::Profile;
use crate::solve::{
    budget_ps, check_size, costs_ps, groups, target_bytes, unit_bytes, Granularity, Solution,
    MAX_FRONT_ENTRIES,
};
use crate::workload::Workload;

/// One unit that moves as a whole: its structures (workload indices), total bytes, the
/// bytes of its accessed structures, and total extra cost on the slow tier in ps (sum of
/// its structures' rounded costs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub structures: Vec<usize>,
    pub bytes: u64,
    pub accessed_bytes: u64,
    pub cost_ps: u64,
}

/// What a front's points count on the slow tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weight {
    /// Every byte: budget mode (the most bytes off DRAM within the budget).
    Bytes,
    /// The bytes of the structures the workload accesses
    /// ([`crate::workload::StructureLoad::accessed`]): target mode.
    Accessed,
}

impl Weight {
    fn of(self, it: &Item) -> u64 {
        match self {
            Weight::Bytes => it.bytes,
            Weight::Accessed => it.accessed_bytes,
        }
    }
}

/// A two-tier placement problem: DRAM and one slow tier without a capacity limit.
#[derive(Debug, Clone)]
pub struct TwoTierProblem {
    items: Vec<Item>,
    n_structures: usize,
    total_bytes: u64,
    accessed_bytes: u64,
    t_dram_ns: f64,
}

impl TwoTierProblem {
    /// The items of `w` at granularity `g`, each with its bytes and its cost on
    /// `profile`'s tier under `model`.
    pub fn new(w: &Workload, model: &Model, profile: &Profile, g: Granularity) -> Result<Self> {
        check_size(w)?;
        let costs = model.costs(w, profile)?;
        let ps = costs_ps(w, &costs)?;
        let items: Vec<Item> = groups(w, g)
            .into_iter()
            .map(|structures| {
                let (bytes, accessed_bytes) = unit_bytes(w, &structures);
                Item {
                    bytes,
                    accessed_bytes,
                    cost_ps: structures.iter().map(|&i| ps[i]).sum(),
                    structures,
                }
            })
            .collect();
        Ok(TwoTierProblem {
            items,
            n_structures: w.structures.len(),
            total_bytes: w.total_bytes(),
            accessed_bytes: w.accessed_bytes(),
            t_dram_ns: w.t_dram_ns,
        })
    }

    /// The units that move as a whole, in workload order of first structure.
    pub fn items(&self) -> &[Item] {
        &self.items
    }

    pub fn total_bytes(&self) -> u64 {
        self.total_bytes
    }

    /// The bytes of the structures the workload accesses.
    pub fn accessed_bytes(&self) -> u64 {
        self.accessed_bytes
    }

    pub fn t_dram_ns(&self) -> f64 {
        self.t_dram_ns
    }
}

/// One point of the front: bytes on the slow tier, counted by the front's [`Weight`], and
/// the extra cost in ps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrontPoint {
    pub bytes: u64,
    pub cost_ps: u64,
}

impl FrontPoint {
    /// The extra CPU time in ns.
    pub fn t_ns(&self) -> f64 {
        self.cost_ps as f64 / 1000.0
    }
}

/// The complete Pareto front of a [`TwoTierProblem`] by one [`Weight`], sorted by
/// weight (and cost) ascending, from all-DRAM (cost 0) to everything on the slow tier,
/// with a placement for every point.
#[derive(Debug, Clone)]
pub struct ParetoFront {
    weight: Weight,
    points: Vec<FrontPoint>,
    /// Items on the slow tier in every point (zero cost).
    forced: Vec<usize>,
    /// The items the lists were built from, in processing order.
    order: Vec<usize>,
    /// Per processed item, per point of its list: `parent << 1 | took`.
    trace: Vec<u32>,
    /// Start of each processed item's list in `trace`.
    offsets: Vec<usize>,
    item_structures: Vec<Vec<usize>>,
    item_bytes: Vec<u64>,
    n_structures: usize,
    total_bytes: u64,
    /// The workload's bytes counted by `weight`: what a target is a share of.
    weight_total: u64,
    t_dram_ns: f64,
}

/// Computes the exact Pareto front of `p` over every byte ([`Weight::Bytes`]: budget
/// mode) in one pass.
pub fn pareto_front(p: &TwoTierProblem) -> Result<ParetoFront> {
    pareto_front_by(p, Weight::Bytes)
}

/// Computes the exact Pareto front of `p` with the bytes on the slow tier counted by
/// `weight` in one pass.
pub fn pareto_front_by(p: &TwoTierProblem, weight: Weight) -> Result<ParetoFront> {
    let mut forced = Vec::new();
    let mut order = Vec::new();
    let mut base = 0u64;
    for (i, it) in p.items.iter().enumerate() {
        if it.bytes == 0 {
            continue;
        }
        if it.cost_ps == 0 {
            forced.push(i);
            base += weight.of(it);
        } else if weight.of(it) > 0 {
            order.push(i);
        }
    }
    // Any order is exact. Smallest items first keeps the intermediate lists short:
    // subsets of small items span few distinct byte totals (on the SSB-shaped bench,
    // 5.6 M list entries in all against 27 M for cheapest-cost-per-byte first and 18 M
    // for largest first; examples/solve_bench.rs).
    order.sort_by_key(|&i| (weight.of(&p.items[i]), i));
    let mut cur = Lists {
        bytes: vec![base],
        cost: vec![0],
        len: 1,
    };
    let mut next = Lists::default();
    let mut scratch = Vec::new();
    let mut trace = Vec::new();
    let mut offsets = Vec::with_capacity(order.len());
    for (step, &k) in order.iter().enumerate() {
        // A safe point: SIGINT/SIGTERM stop a long front here (one step is at most
        // 2 · MAX_FRONT_ENTRIES / steps of work).
        pmolap_os::signal::check()?;
        let (w, c) = (weight.of(&p.items[k]), p.items[k].cost_ps);
        if 2 * cur.len >= (u32::MAX >> 1) as usize
            || trace.len().saturating_add(2 * cur.len) > MAX_FRONT_ENTRIES
        {
            return Err(Error::TooBig(format!(
                "the Pareto front of {} units had {} points after {step} of them ({} list entries, \
                 the bound is {MAX_FRONT_ENTRIES}): too many units of distinct sizes to solve \
                 exactly; try --granularity column or table (docs/placement.md, \"Bounds\")",
                order.len(),
                cur.len,
                trace.len()
            )));
        }
        offsets.push(trace.len());
        merge(&cur, w, c, &mut next, &mut scratch);
        trace.extend_from_slice(&scratch[..next.len]);
        std::mem::swap(&mut cur, &mut next);
    }
    Ok(ParetoFront {
        weight,
        points: cur.bytes[..cur.len]
            .iter()
            .zip(&cur.cost[..cur.len])
            .map(|(&bytes, &cost_ps)| FrontPoint { bytes, cost_ps })
            .collect(),
        forced,
        order,
        trace,
        offsets,
        item_structures: p.items.iter().map(|i| i.structures.clone()).collect(),
        item_bytes: p.items.iter().map(|i| i.bytes).collect(),
        n_structures: p.n_structures,
        total_bytes: p.total_bytes,
        weight_total: match weight {
            Weight::Bytes => p.total_bytes,
            Weight::Accessed => p.accessed_bytes,
        },
        t_dram_ns: p.t_dram_ns,
    })
}

/// A staircase of points in reusable buffers: the first `len` entries are valid.
#[derive(Default)]
struct Lists {
    bytes: Vec<u64>,
    cost: Vec<u64>,
    len: usize,
}

/// Grows `v` to at least `n` entries (contents beyond what is written are stale).
fn ensure<T: Copy + Default>(v: &mut Vec<T>, n: usize) {
    if v.len() < n {
        v.resize(n, T::default());
    }
}

/// One Nemhauser–Ullmann step: merges the staircase `cur` (cost and bytes strictly
/// ascending, first point of cost 0) with itself shifted by the item `(w, c)` (`c > 0`)
/// into `next`, keeping the non-dominated points; `scratch[..next.len]` gets each kept
/// point's `parent << 1 | took`.
///
/// The loop is branch-free: every candidate is written and the length advances only
/// when the candidate has more bytes than every point kept before it (candidates come
/// by cost ascending, so that is exactly "not dominated").
fn merge(cur: &Lists, w: u64, c: u64, next: &mut Lists, scratch: &mut Vec<u32>) {
    let n = cur.len;
    let (pb, pc) = (&cur.bytes[..n], &cur.cost[..n]);
    ensure(&mut next.bytes, 2 * n);
    ensure(&mut next.cost, 2 * n);
    ensure(scratch, 2 * n);
    let (nbs, ncs, tr) = (&mut next.bytes[..], &mut next.cost[..], &mut scratch[..]);
    // The all-reference point (cost 0) is always first and kept.
    nbs[0] = pb[0];
    ncs[0] = pc[0];
    tr[0] = 0;
    let (mut i, mut j, mut len, mut last) = (1usize, 0usize, 1usize, pb[0]);
    while i < n && j < n {
        let (bi, ci) = (pb[i], pc[i]);
        let (bj, cj) = (pb[j] + w, pc[j] + c);
        // By cost ascending; on equal cost larger bytes first; on a full tie the point
        // without the item.
        let from_i = ci < cj || (ci == cj && bi >= bj);
        let (b, cost, code) = if from_i {
            (bi, ci, (i as u32) << 1)
        } else {
            (bj, cj, (j as u32) << 1 | 1)
        };
        i += from_i as usize;
        j += !from_i as usize;
        nbs[len] = b;
        ncs[len] = cost;
        tr[len] = code;
        len += (b > last) as usize;
        last = last.max(b);
    }
    // Left-over unshifted points are dominated by the last shifted point (more bytes,
    // and it came first by cost); left-over shifted points are kept once they pass
    // `last`, and then all of them (bytes ascending).
    while j < n {
        let b = pb[j] + w;
        nbs[len] = b;
        ncs[len] = pc[j] + c;
        tr[len] = (j as u32) << 1 | 1;
        len += (b > last) as usize;
        last = last.max(b);
        j += 1;
    }
    next.len = len;
}

impl ParetoFront {
    /// The points, weight and cost strictly ascending.
    pub fn points(&self) -> &[FrontPoint] {
        &self.points
    }

    /// What the points' `bytes` count.
    pub fn weight(&self) -> Weight {
        self.weight
    }

    /// The items on the slow tier at point `i`, ascending.
    pub fn items_on_slow(&self, i: usize) -> Vec<usize> {
        let mut out = self.forced.clone();
        let mut idx = i;
        for s in (0..self.order.len()).rev() {
            let code = self.trace[self.offsets[s] + idx];
            if code & 1 == 1 {
                out.push(self.order[s]);
            }
            idx = (code >> 1) as usize;
        }
        out.sort_unstable();
        out
    }

    /// The placement of point `i` (tier 1 = the slow tier).
    pub fn assignment(&self, i: usize) -> Assignment {
        let mut a = Assignment::all(self.n_structures, 0);
        for k in self.items_on_slow(i) {
            for &s in &self.item_structures[k] {
                a.tier[s] = 1;
            }
        }
        a
    }

    /// Point `i` as a [`Solution`].
    pub fn solution(&self, i: usize) -> Solution {
        let p = self.points[i];
        let t_ns = p.t_ns();
        // The front's weight may count fewer bytes than move (never-accessed ones).
        let moved: u64 = self
            .items_on_slow(i)
            .iter()
            .map(|&k| self.item_bytes[k])
            .sum();
        debug_assert!(self.weight != Weight::Bytes || moved == p.bytes);
        Solution {
            assignment: self.assignment(i),
            bytes_per_tier: vec![self.total_bytes - moved, moved],
            bytes_moved: moved,
            t_ns,
            relative: (self.t_dram_ns + t_ns) / self.t_dram_ns,
            baseline: None,
            page_cache_dram_bytes: None,
        }
    }

    /// Budget mode: the point with the most bytes on the slow tier (by the front's
    /// weight) whose extra time is at most `budget · T_DRAM` (0.1 = 10 % more CPU time).
    pub fn budget_index(&self, budget: f64) -> Result<usize> {
        let b = budget_ps(budget, self.t_dram_ns)?;
        // Point 0 costs 0, so at least one point fits.
        Ok(self.points.partition_point(|p| p.cost_ps <= b) - 1)
    }

    /// Target mode: the point with the least extra time that has at least `target` of
    /// the bytes the front's weight counts on the slow tier (of the accessed bytes on a
    /// [`Weight::Accessed`] front, what [`solve_target`] and the advisor read).
    pub fn target_index(&self, target: f64) -> Result<usize> {
        let need = target_bytes(target, self.weight_total)?;
        let i = self.points.partition_point(|p| p.bytes < need);
        if i == self.points.len() {
            // Only zero-byte items can be missing from the last point, so this cannot
            // happen for need <= total; kept as a typed error, not a panic.
            return Err(Error::Infeasible(format!(
                "target {target}: at most {} of {} {} can move",
                self.points.last().map_or(0, |p| p.bytes),
                self.weight_total,
                match self.weight {
                    Weight::Bytes => "bytes",
                    Weight::Accessed => "accessed bytes",
                }
            )));
        }
        Ok(i)
    }
}

/// Budget mode on two tiers: most bytes on the slow tier with `t <= budget · T_DRAM`.
pub fn solve_budget(p: &TwoTierProblem, budget: f64) -> Result<Solution> {
    budget_ps(budget, p.t_dram_ns)?;
    let f = pareto_front(p)?;
    Ok(f.solution(f.budget_index(budget)?))
}

/// Target mode on two tiers: least `t` with at least `target` of the accessed bytes on
/// the slow tier (and every item that costs nothing there, never-accessed data
/// included).
pub fn solve_target(p: &TwoTierProblem, target: f64) -> Result<Solution> {
    target_bytes(target, p.accessed_bytes)?;
    let f = pareto_front_by(p, Weight::Accessed)?;
    Ok(f.solution(f.target_index(target)?))
}
