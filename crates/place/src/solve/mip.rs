//! Placement over the reference tier and one or more slow tiers, each tier with an
//! optional capacity: a 0/1 MIP (one binary per unit and tier, each unit on exactly one
//! tier) built with `good_lp` and solved by its pure-Rust `microlp` backend.
//!
//! - Budget mode: maximise bytes off the reference tier subject to `t <= b · T_DRAM`
//!   and every capacity.
//! - Target mode: minimise `t` subject to at least `target` of the accessed bytes off
//!   the reference tier and every capacity; then every unit still on the reference tier
//!   that costs nothing on a slow tier with room moves there (never-accessed data: the
//!   same `t`, more bytes off DRAM), as on the two-tier front.
//!
//! "Proven optimal" here means: microlp's branch and bound finished with its optimality
//! proof (status `Optimal`, MIP gap 0) within the time limit — anything else is an error,
//! never a silently worse placement — and the placement it returns is then re-checked
//! in exact integer arithmetic (bytes, capacities, budget in whole ps). The proof holds
//! up to microlp's floating-point tolerances: bytes enter in units of the greatest
//! common divisor of the units' sizes (exact integers), costs as fractions of `T_DRAM`.

use std::time::Duration;

use good_lp::solvers::microlp::microlp;
use good_lp::{
    constraint, variable, Expression, ProblemVariables, ResolutionError, Solution as _,
    SolutionStatus, SolverModel, Variable, WithTimeLimit,
};

use crate::error::{Error, Result};
use crate::model::{Assignment, Model};
use crate::profile::{Profile, REFERENCE_TIER};
use crate::solve::{
    budget_ps, check_size, costs_ps, groups, target_bytes, unit_bytes, Granularity, Solution,
};
use crate::workload::Workload;

/// The default time limit of [`solve_tiers`].
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(60);

/// One unit that moves as a whole, with its cost on every tier (0 on the reference).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TierItem {
    pub structures: Vec<usize>,
    pub bytes: u64,
    /// The bytes of its structures the workload accesses.
    pub accessed_bytes: u64,
    /// Extra cost in ps per tier, reference tier first (always 0).
    pub cost_ps: Vec<u64>,
}

/// A placement problem over the reference tier and `profiles`' tiers with capacities.
#[derive(Debug, Clone)]
pub struct TierProblem {
    tiers: Vec<String>,
    capacity: Vec<Option<u64>>,
    items: Vec<TierItem>,
    n_structures: usize,
    total_bytes: u64,
    accessed_bytes: u64,
    t_dram_ns: f64,
}

/// What to optimise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Objective {
    /// Most bytes off the reference tier with `t <= budget · T_DRAM`.
    Budget(f64),
    /// Least `t` with at least `target` (0..=1) of the accessed bytes off the reference
    /// tier.
    Target(f64),
}

impl TierProblem {
    /// The units of `w` at granularity `g` with their costs on each of `profiles`'
    /// tiers; `capacities[k]` limits the bytes on tier `k` (0 = reference tier, then
    /// the profiles in order; `None` = unlimited).
    pub fn new(
        w: &Workload,
        model: &Model,
        profiles: &[Profile],
        capacities: &[Option<u64>],
        g: Granularity,
    ) -> Result<Self> {
        if capacities.len() != profiles.len() + 1 {
            return Err(Error::Argument(format!(
                "{} capacities for {} tiers (the reference tier and {} profiles)",
                capacities.len(),
                profiles.len() + 1,
                profiles.len()
            )));
        }
        if profiles.is_empty() {
            return Err(Error::Argument(
                "no slow tier: give at least one profile".into(),
            ));
        }
        let mut tiers = vec![REFERENCE_TIER.to_string()];
        for p in profiles {
            if tiers.contains(&p.tier) {
                return Err(Error::Argument(format!("tier `{}` named twice", p.tier)));
            }
            tiers.push(p.tier.clone());
        }
        check_size(w)?;
        let mut ps = Vec::with_capacity(profiles.len());
        for p in profiles {
            ps.push(costs_ps(w, &model.costs(w, p)?)?);
        }
        let items = groups(w, g)
            .into_iter()
            .map(|structures| {
                let (bytes, accessed_bytes) = unit_bytes(w, &structures);
                TierItem {
                    bytes,
                    accessed_bytes,
                    cost_ps: std::iter::once(0)
                        .chain(ps.iter().map(|c| structures.iter().map(|&i| c[i]).sum()))
                        .collect(),
                    structures,
                }
            })
            .collect();
        Ok(TierProblem {
            tiers,
            capacity: capacities.to_vec(),
            items,
            n_structures: w.structures.len(),
            total_bytes: w.total_bytes(),
            accessed_bytes: w.accessed_bytes(),
            t_dram_ns: w.t_dram_ns,
        })
    }

    /// Tier names, reference tier first.
    pub fn tiers(&self) -> &[String] {
        &self.tiers
    }

    /// Capacity per tier in bytes (`None` = unlimited).
    pub fn capacities(&self) -> &[Option<u64>] {
        &self.capacity
    }

    pub fn items(&self) -> &[TierItem] {
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

    /// The [`Solution`] of one item-to-tier choice (`tier_of_item[i]` for item `i`).
    pub fn solution_of(&self, tier_of_item: &[usize]) -> Solution {
        let mut a = Assignment::all(self.n_structures, 0);
        let mut bytes = vec![0u64; self.tiers.len()];
        let mut cost = 0u64;
        for (it, &k) in self.items.iter().zip(tier_of_item) {
            bytes[k] += it.bytes;
            cost += it.cost_ps[k];
            for &s in &it.structures {
                a.tier[s] = k;
            }
        }
        let t_ns = cost as f64 / 1000.0;
        Solution {
            assignment: a,
            bytes_moved: self.total_bytes - bytes[0],
            bytes_per_tier: bytes,
            t_ns,
            relative: (self.t_dram_ns + t_ns) / self.t_dram_ns,
            baseline: None,
            page_cache_dram_bytes: None,
        }
    }
}

/// Solves `p` for `objective` to proven optimality within [`DEFAULT_TIME_LIMIT`].
pub fn solve_tiers(p: &TierProblem, objective: Objective) -> Result<Solution> {
    solve_tiers_within(p, objective, DEFAULT_TIME_LIMIT)
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// As [`solve_tiers`] with a time limit: a solver that has not proven optimality by
/// then is an error.
pub fn solve_tiers_within(
    p: &TierProblem,
    objective: Objective,
    limit: Duration,
) -> Result<Solution> {
    let k = p.tiers.len();
    // Exact pre-checks, so that their errors name what is wrong.
    let (b_ps, need) = match objective {
        Objective::Budget(b) => (Some(budget_ps(b, p.t_dram_ns)?), 0),
        Objective::Target(t) => (None, target_bytes(t, p.accessed_bytes)?),
    };
    let room: Option<u64> = p
        .capacity
        .iter()
        .try_fold(0u64, |acc, c| c.map(|c| acc.saturating_add(c)));
    if let Some(room) = room {
        if room < p.total_bytes {
            return Err(Error::Infeasible(format!(
                "the tiers' capacities add up to {room} bytes, the workload has {} bytes",
                p.total_bytes
            )));
        }
    }
    let unit = p
        .items
        .iter()
        .fold(0, |g, it| gcd(gcd(g, it.bytes), it.accessed_bytes))
        .max(1);
    let units = |b: u64| (b / unit) as f64;
    let t_ps = (p.t_dram_ns * 1000.0).max(1.0);

    let mut vars = ProblemVariables::new();
    let x: Vec<Vec<Variable>> = p
        .items
        .iter()
        .map(|_| (0..k).map(|_| vars.add(variable().binary())).collect())
        .collect();
    let mut moved = Expression::from(0.0);
    let mut accessed = Expression::from(0.0);
    let mut time = Expression::from(0.0);
    for (it, xs) in p.items.iter().zip(&x) {
        for (&x, &c) in xs.iter().zip(&it.cost_ps).skip(1) {
            moved += units(it.bytes) * x;
            accessed += units(it.accessed_bytes) * x;
            time += (c as f64 / t_ps) * x;
        }
    }
    let mut model = match objective {
        Objective::Budget(_) => vars.maximise(moved.clone()),
        Objective::Target(_) => vars.minimise(time.clone()),
    }
    .using(microlp)
    .with_time_limit(limit.as_secs_f64());
    for xs in &x {
        let one: Expression = xs.iter().copied().sum();
        model = model.with(constraint!(one == 1.0));
    }
    for (j, cap) in p.capacity.iter().enumerate() {
        if let Some(cap) = cap {
            let on: Expression = p
                .items
                .iter()
                .zip(&x)
                .map(|(it, xs)| units(it.bytes) * xs[j])
                .sum();
            model = model.with(constraint!(on <= units(*cap)));
        }
    }
    match (objective, b_ps) {
        (Objective::Budget(_), Some(b)) => {
            model = model.with(constraint!(time <= b as f64 / t_ps));
        }
        _ => {
            model = model.with(constraint!(accessed >= need.div_ceil(unit) as f64));
        }
    }
    let what = match objective {
        Objective::Budget(b) => format!("budget {b}"),
        Objective::Target(t) => format!("target {t}"),
    };
    let sol = model.solve().map_err(|e| match e {
        ResolutionError::Infeasible => Error::Infeasible(format!(
            "no placement meets {what} within the tiers' capacities"
        )),
        e => Error::Solver(e.to_string()),
    })?;
    if !matches!(sol.status(), SolutionStatus::Optimal) {
        return Err(Error::Solver(format!(
            "no optimality proof for {what} within {:.1} s",
            limit.as_secs_f64()
        )));
    }
    let mut choice: Vec<usize> = x
        .iter()
        .map(|xs| {
            (0..k)
                .max_by(|&a, &b| sol.value(xs[a]).total_cmp(&sol.value(xs[b])))
                .unwrap_or(0)
        })
        .collect();
    if matches!(objective, Objective::Target(_)) {
        fill_free(p, &mut choice);
    }
    let s = p.solution_of(&choice);
    // Exact re-check of what the floating-point solver returned.
    let cost: u64 = p
        .items
        .iter()
        .zip(&choice)
        .map(|(it, &j)| it.cost_ps[j])
        .sum();
    for (j, cap) in p.capacity.iter().enumerate() {
        if let Some(cap) = cap {
            if s.bytes_per_tier[j] > *cap {
                return Err(Error::Solver(format!(
                    "solution puts {} bytes on `{}` (capacity {cap}): solver tolerance",
                    s.bytes_per_tier[j], p.tiers[j]
                )));
            }
        }
    }
    let accessed_moved: u64 = p
        .items
        .iter()
        .zip(&choice)
        .filter(|&(_, &j)| j != 0)
        .map(|(it, _)| it.accessed_bytes)
        .sum();
    if b_ps.is_some_and(|b| cost > b) || accessed_moved < need {
        return Err(Error::Solver(format!(
            "solution misses {what} by the solver's tolerance"
        )));
    }
    Ok(s)
}

/// Moves every item on the reference tier that costs nothing on some slow tier with room
/// for it there (the first such tier): the same `t`, more bytes off the reference tier.
fn fill_free(p: &TierProblem, choice: &mut [usize]) {
    let mut used = vec![0u64; p.tiers.len()];
    for (it, &j) in p.items.iter().zip(choice.iter()) {
        used[j] += it.bytes;
    }
    for (it, j) in p.items.iter().zip(choice.iter_mut()) {
        if *j != 0 || it.bytes == 0 {
            continue;
        }
        let room = |k: usize| p.capacity[k].is_none_or(|c| used[k] + it.bytes <= c);
        if let Some(k) = (1..p.tiers.len()).find(|&k| it.cost_ps[k] == 0 && room(k)) {
            used[0] -= it.bytes;
            used[k] += it.bytes;
            *j = k;
        }
    }
}
