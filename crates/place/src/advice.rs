//! One solver, one meaning: [`AdviceOptions`] (the model's settings every command shares)
//! and [`Advisor`], the one function from (workload, profile, options, budget or target)
//! to a placement. `pmolap place advise` writes its placement, `place validate` measures
//! the placements it gives for the grid [`BUDGETS`] × [`TARGETS`], and `place whatif`
//! predicts them: the same model, the same I/O concurrency, the same `T_DRAM` (the
//! workload's; `docs/placement.md`, "One solver, one meaning").

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::fmt;

use crate::error::Result;
use crate::model::{Assignment, Model, ModelOptions};
use crate::profile::Profile;
use crate::solve::{
    pareto_front, pareto_front_by, target_bytes, Granularity, ParetoFront, Solution,
    TwoTierProblem, Weight,
};
use crate::workload::Workload;

/// The budgets (slowdown allowed, share of `T_DRAM`) `place validate` measures: the
/// paper's (§6), 0–50 %.
pub const BUDGETS: [f64; 6] = [0.0, 0.01, 0.05, 0.10, 0.20, 0.50];
/// The targets (share of the accessed bytes on the slow tier) `place validate`
/// measures: the paper's 25, 50, 75 % and 90 %.
pub const TARGETS: [f64; 4] = [0.25, 0.50, 0.75, 0.90];

/// What an advice asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Goal {
    /// Most bytes on the slow tier with the predicted extra time at most this share of
    /// `T_DRAM`.
    Budget(f64),
    /// Least predicted extra time with at least this share of the accessed bytes on the
    /// slow tier (every structure that costs nothing there goes too: never-accessed ones).
    Target(f64),
}

impl fmt::Display for Goal {
    /// `budget 10%`, `target 75%`: the name `place validate` gives the placement.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Goal::Budget(b) => write!(f, "budget {}%", b * 100.0),
            Goal::Target(t) => write!(f, "target {}%", t * 100.0),
        }
    }
}

/// The grid `place validate` measures, in order: every budget, then every target.
pub fn grid() -> impl Iterator<Item = Goal> {
    BUDGETS
        .into_iter()
        .map(Goal::Budget)
        .chain(TARGETS.into_iter().map(Goal::Target))
}

/// The settings an advice is solved and predicted with; the same in `advise`,
/// `validate` and `whatif`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdviceOptions {
    /// `S_LLC`: L3 plus every core's L2, bytes.
    pub llc_bytes: u64,
    /// What moves as one unit.
    pub granularity: Granularity,
    /// Eq. 6 on (false: the No-Cache ablation).
    pub cache_miss_ratio: bool,
    /// Dense lookups priced by class (false: the No-Dense ablation).
    pub dense_classes: bool,
    /// Workers sharing a page-granular tier's device: the workload's worker threads.
    pub io_threads: u32,
    /// The setting the advice is for: `None` pages dropped before each query (cold),
    /// `Some(C)` a page cache of `C` bytes kept between queries. The solvers price cold
    /// costs either way; [`Advisor::solve`] compares its optimum with the baselines at
    /// the same DRAM bytes under this setting.
    pub cache_bytes: Option<u64>,
}

/// The share of the page cache [`AdviceOptions::cache_band`] takes away and adds.
pub const CACHE_STEP: f64 = 0.1;

/// How far a prediction behind a bounded page cache moves when the cache the kernel
/// really gives is [`CACHE_STEP`] smaller or larger (its working memory, its reclaim
/// batches decide that): the relative times at `(1 − step)·C`, `C` and `(1 + step)·C`.
/// Behind a cache smaller than the slow working set the simulated miss curve has
/// cliffs where 10 % of cache moves the prediction 2–7× (docs/placement.md, "A second
/// look"): a prediction there is a range, not a figure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CacheBand {
    pub less: f64,
    pub at: f64,
    pub more: f64,
}

impl CacheBand {
    /// The widest ratio between the three above which [`CacheBand::on_cliff`] holds.
    pub const CLIFF_RATIO: f64 = 1.5;

    /// Whether 10 % of cache moves the prediction by more than [`Self::CLIFF_RATIO`]×.
    pub fn on_cliff(&self) -> bool {
        let (lo, hi) = self.range();
        Self::is_cliff(lo, hi)
    }

    /// Whether a range `lo..hi` of relative times is a cliff's.
    pub fn is_cliff(lo: f64, hi: f64) -> bool {
        lo > 0.0 && hi / lo > Self::CLIFF_RATIO
    }

    /// The lowest and highest of the three.
    pub fn range(&self) -> (f64, f64) {
        (
            self.less.min(self.at).min(self.more),
            self.less.max(self.at).max(self.more),
        )
    }
}

impl AdviceOptions {
    /// The full model for `w`: structure granularity, `S_LLC = llc_bytes`, I/O
    /// concurrency the workload's worker threads (1 where it does not record them).
    pub fn new(w: &Workload, llc_bytes: u64) -> Self {
        AdviceOptions {
            llc_bytes,
            granularity: Granularity::Structure,
            cache_miss_ratio: true,
            dense_classes: true,
            io_threads: w.threads.unwrap_or(1).max(1),
            cache_bytes: None,
        }
    }

    /// The model options: the page model wherever the profile has page costs (a
    /// page-granular tier), the paper's per-access model elsewhere; pages dropped before
    /// each query (the solvers price the cold costs; a bounded cache only changes a
    /// prediction, see [`AdviceOptions::predicting`]).
    pub fn model_options(&self) -> ModelOptions {
        ModelOptions {
            cache_miss_ratio: self.cache_miss_ratio,
            dense_classes: self.dense_classes,
            page_model: true,
            page_cache_bytes: None,
            io_threads: self.io_threads,
            ..ModelOptions::new(self.llc_bytes)
        }
    }

    /// The model the solvers use.
    pub fn model(&self) -> Result<Model> {
        Model::new(self.model_options())
    }

    /// The same model predicting behind a page cache of `cache` bytes kept between
    /// queries (`None`: cold).
    pub fn predicting(&self, cache: Option<u64>) -> Result<Model> {
        Model::new(ModelOptions {
            page_cache_bytes: cache,
            ..self.model_options()
        })
    }

    /// The relative time of placement `a` behind a page cache of `cache` bytes and of
    /// [`CACHE_STEP`] less and more ([`CacheBand`]).
    pub fn cache_band(
        &self,
        w: &Workload,
        profile: &Profile,
        a: &crate::model::Assignment,
        cache: u64,
    ) -> Result<CacheBand> {
        let at = |c: f64| -> Result<f64> {
            Ok(self
                .predicting(Some(c.round() as u64))?
                .predict(w, std::slice::from_ref(profile), a)?
                .relative)
        };
        let c = cache as f64;
        Ok(CacheBand {
            less: at(c * (1.0 - CACHE_STEP))?,
            at: at(c)?,
            more: at(c * (1.0 + CACHE_STEP))?,
        })
    }

    /// `page` when `profile` is priced by the page model, else `paper`.
    pub fn model_name(&self, profile: &Profile) -> &'static str {
        if profile.pages.is_some() {
            "page"
        } else {
            "paper"
        }
    }

    /// A digest (16 hex digits) of the workload, the profile and these options: the
    /// placements of two runs with the same key are the same.
    pub fn key(&self, w: &Workload, profile: &Profile) -> String {
        let this = format!(
            "{}|{}|{:?}|{}|{}|{}|{}",
            w.digest(),
            crate::files::digest(profile),
            self.granularity,
            self.llc_bytes,
            self.cache_miss_ratio,
            self.dense_classes,
            self.io_threads,
        );
        crate::files::digest(&this)
    }
}

/// The exact Pareto fronts of a workload on one slow tier under [`AdviceOptions`]: every
/// budget placement is read off the front by bytes, every target placement off the front
/// by accessed bytes (built on the first target), behind a bounded cache a budget is also
/// searched among the hottest-by-density placements; then each is checked against the
/// baselines.
#[derive(Debug, Clone)]
pub struct Advisor {
    problem: TwoTierProblem,
    front: ParetoFront,
    /// The front by accessed bytes ([`Weight::Accessed`]), built on the first target.
    target_front: OnceCell<ParetoFront>,
    workload: Workload,
    profile: Profile,
    options: AdviceOptions,
    /// [`hottest_order`](crate::baselines::hottest_order) of the workload.
    hottest: Vec<usize>,
    /// Relative times behind a bounded cache already predicted, by (candidate, cache
    /// bytes): the budgets' searches share most of their steps.
    predicted: RefCell<HashMap<(Candidate, u64), f64>>,
}

/// A placement a budget behind a bounded cache is searched among.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Candidate {
    /// The front's point `i`.
    Front(usize),
    /// The hottest `k` structures by access density in DRAM, the rest slow.
    Hottest(usize),
}

impl Advisor {
    /// Builds the front of `w` on `profile`'s tier.
    pub fn new(w: &Workload, profile: &Profile, o: &AdviceOptions) -> Result<Self> {
        let problem = TwoTierProblem::new(w, &o.model()?, profile, o.granularity)?;
        Ok(Advisor {
            front: pareto_front(&problem)?,
            problem,
            target_front: OnceCell::new(),
            workload: w.clone(),
            profile: profile.clone(),
            options: *o,
            hottest: crate::baselines::hottest_order(w),
            predicted: RefCell::new(HashMap::new()),
        })
    }

    fn assignment(&self, c: Candidate) -> Assignment {
        match c {
            Candidate::Front(i) => self.front.assignment(i),
            Candidate::Hottest(k) => crate::baselines::keeping(&self.workload, &self.hottest, k),
        }
    }

    /// Whether the granularity allows `a`: every unit that moves as one on one tier.
    fn allowed(&self, a: &Assignment) -> bool {
        crate::solve::groups(&self.workload, self.options.granularity)
            .iter()
            .all(|g| g.iter().all(|&i| a.tier[i] == a.tier[g[0]]))
    }

    /// The relative time of `c` behind a page cache of `cache` bytes (memoized).
    fn relative_behind(&self, c: Candidate, cache: u64) -> Result<f64> {
        if let Some(&r) = self.predicted.borrow().get(&(c, cache)) {
            return Ok(r);
        }
        let r = self
            .options
            .predicting(Some(cache))?
            .predict(
                &self.workload,
                std::slice::from_ref(&self.profile),
                &self.assignment(c),
            )?
            .relative;
        self.predicted.borrow_mut().insert((c, cache), r);
        Ok(r)
    }

    /// Whether `c`'s promise behind a page cache of `cache` bytes — the highest of its
    /// [`CacheBand`], as `advise` states it — is at most `limit`; the three predictions
    /// are made only until one exceeds it (the smaller cache first, usually the highest).
    fn keeps_behind(&self, c: Candidate, cache: u64, limit: f64) -> Result<bool> {
        let x = cache as f64;
        for size in [x * (1.0 - CACHE_STEP), x, x * (1.0 + CACHE_STEP)] {
            if self.relative_behind(c, size.round() as u64)? > limit {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The last of `0..n` for which `keeps(i)` holds, by bisection, given that it holds
    /// for 0; the relative times along the front and along the hottest placements rise
    /// with the bytes moved but not strictly everywhere (a cache's miss curve has
    /// steps), so this is the last one the bisection meets, not always the last of all.
    fn last_kept(n: usize, keeps: &mut dyn FnMut(usize) -> Result<bool>) -> Result<usize> {
        if keeps(n - 1)? {
            return Ok(n - 1);
        }
        let (mut lo, mut hi) = (0, n - 1);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if keeps(mid)? {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Ok(lo)
    }

    /// Budget mode behind a page cache of `cache` bytes kept between queries: the
    /// placement with the most bytes on the slow tier whose promise (the highest
    /// prediction at 10 % less, the same and 10 % more cache) is within `budget`, among
    /// the front's points (solved with cold costs) and the hottest-by-density placements
    /// (what a page cache keeps is what is hot, which the cold front does not rank):
    /// each searched by bisection ([`Self::last_kept`]). All DRAM keeps every budget, so
    /// one always exists. Ties go to the front.
    fn cached_budget(&self, budget: f64, cache: u64) -> Result<Solution> {
        let limit = (1.0 + budget) * (1.0 + 1e-9);
        let n = self.front.points().len();
        let i = Self::last_kept(n, &mut |i| {
            self.keeps_behind(Candidate::Front(i), cache, limit)
        })?;
        let n = self.hottest.len() + 1;
        // Keeping k structures in DRAM: k = n - 1 - j, so j rises with the bytes moved.
        let j = Self::last_kept(n, &mut |j| {
            self.keeps_behind(Candidate::Hottest(n - 1 - j), cache, limit)
        })?;
        let front = self.front.solution(i);
        let hot = self.assignment(Candidate::Hottest(n - 1 - j));
        let moved = crate::SlowShare::of(&self.workload, &hot).bytes;
        // A hottest placement is by structure: at a coarser granularity only where it
        // moves whole units.
        if moved <= front.bytes_moved || !self.allowed(&hot) {
            return Ok(front);
        }
        let p = self.options.model()?.predict(
            &self.workload,
            std::slice::from_ref(&self.profile),
            &hot,
        )?;
        let w = &self.workload;
        Ok(Solution {
            bytes_per_tier: vec![w.total_bytes() - moved, moved],
            bytes_moved: moved,
            t_ns: p.t_ns,
            relative: p.relative,
            assignment: hot,
            baseline: Some("hottest".into()),
            page_cache_dram_bytes: None,
        })
    }

    /// The front by accessed bytes, built once.
    fn target_front(&self) -> Result<&ParetoFront> {
        if let Some(f) = self.target_front.get() {
            return Ok(f);
        }
        let f = pareto_front_by(&self.problem, Weight::Accessed)?;
        Ok(self.target_front.get_or_init(|| f))
    }

    /// The placement for `goal`: the front's point (proven optimal for the rounded cold
    /// costs) — for a budget behind a bounded cache, the placement
    /// [`Self::cached_budget`] finds, whose promise in that setting is within the budget —
    /// unless a baseline at the same DRAM bytes that the granularity allows ([`crate::baselines`]: hottest
    /// by access density, dictionaries, never-accessed, and — behind a bounded cache —
    /// the OS alone) with at least as many bytes off DRAM is predicted faster by the
    /// same model in the advice's setting ([`AdviceOptions::cache_bytes`]); then that
    /// baseline, named in [`Solution::baseline`]. So the advice is never predicted
    /// slower than a baseline: where a baseline measures faster, the model is wrong.
    /// (A budget's baseline behind a bounded cache must also keep the budget with its
    /// promise.)
    pub fn solve(&self, goal: Goal) -> Result<Solution> {
        let cache = self.options.cache_bytes;
        let mut best = match (goal, cache) {
            (Goal::Budget(b), Some(c)) => self.cached_budget(b, c)?,
            (Goal::Budget(b), None) => self.front.solution(self.front.budget_index(b)?),
            (Goal::Target(t), _) => {
                let f = self.target_front()?;
                f.solution(f.target_index(t)?)
            }
        };
        // A target's baseline must meet the target too.
        let need_accessed = match goal {
            Goal::Target(t) => target_bytes(t, self.workload.accessed_bytes())?,
            Goal::Budget(_) => 0,
        };
        // Behind a bounded cache a budget's baseline must keep its promise too.
        let limit = match (goal, cache) {
            (Goal::Budget(b), Some(_)) => Some((1.0 + b) * (1.0 + 1e-9)),
            _ => None,
        };
        let w = &self.workload;
        let ps = std::slice::from_ref(&self.profile);
        let model = self.options.predicting(cache)?;
        let mut best_t = model.predict(w, ps, &best.assignment)?.t_ns;
        let dram = w.total_bytes().saturating_sub(best.bytes_moved);
        for (kind, a) in crate::baselines::candidates(w, dram, cache.is_some()) {
            if !self.allowed(&a) {
                continue;
            }
            let share = crate::SlowShare::of(w, &a);
            let moved = share.bytes;
            if moved < best.bytes_moved || share.accessed_bytes < need_accessed {
                continue;
            }
            let p = match kind {
                crate::baselines::OS_ALONE => self
                    .options
                    .predicting(Some(cache.unwrap_or(0).saturating_add(dram)))?
                    .predict(w, ps, &a)?,
                _ => model.predict(w, ps, &a)?,
            };
            // Strictly faster beyond rounding: ties keep the solver's placement.
            let faster = p.t_ns < best_t - 1e-6 * best_t.abs().max(1.0);
            let keeps = match (limit, cache) {
                (Some(l), Some(c)) if faster => {
                    let c = match kind {
                        crate::baselines::OS_ALONE => c.saturating_add(dram),
                        _ => c,
                    };
                    self.options.cache_band(w, &self.profile, &a, c)?.range().1 <= l
                }
                _ => true,
            };
            if faster && keeps {
                best_t = p.t_ns;
                // The solution's figures are cold, as the front's are (the placement
                // file and `advise` state the cache's separately): behind the cache a
                // baseline won, cold it may not have.
                let cold = match cache {
                    Some(_) => self.options.model()?.predict(w, ps, &a)?,
                    None => p,
                };
                best = Solution {
                    bytes_per_tier: vec![w.total_bytes() - moved, moved],
                    bytes_moved: moved,
                    t_ns: cold.t_ns,
                    relative: cold.relative,
                    assignment: a,
                    baseline: Some(kind.to_string()),
                    page_cache_dram_bytes: (kind == crate::baselines::OS_ALONE).then_some(dram),
                };
            }
        }
        Ok(best)
    }
}

/// The placement of `w` on `profile`'s tier for `goal`: what `place advise` writes and
/// `place validate` measures.
pub fn advise(w: &Workload, profile: &Profile, o: &AdviceOptions, goal: Goal) -> Result<Solution> {
    Advisor::new(w, profile, o)?.solve(goal)
}
