//! pmolap's placement advisor, after the placement paper
//! (`placement-cost-model-pvldb22`): tier access-cost [`Profile`]s (the paper's Table 2
//! built in, CXL and far-NUMA what-if profiles derived from published figures in
//! [`whatif`], or measured here), the slowdown [`Model`] of Eq. 2–6 over a [`Workload`]'s
//! per-structure access counters, [`Advisor`] (the one solver every command shares,
//! with [`AdviceOptions`]) and [`Accuracy`] (an advice's measured error), and placement
//! solving — the exact Pareto front for
//! two tiers, and a MIP for three or more tiers with capacities — written as
//! [`PlacementFile`]s. `docs/placement.md` describes the model, the solvers and the
//! JSON formats.

#![forbid(unsafe_code)]

pub mod accuracy;
pub mod advice;
pub mod baselines;
pub mod calibration;
pub mod error;
mod files;
pub mod lru;
pub mod model;
pub mod pagecache;
pub mod pages;
pub mod placement;
pub mod profile;
pub mod readahead;
pub mod scenarios;
pub mod schedule;
pub mod share;
pub mod solve;
pub mod whatif;
pub mod workload;

pub use accuracy::{Accuracy, AccuracyRecord, MeasuredError};
pub use advice::{advise, grid, AdviceOptions, Advisor, CacheBand, Goal, BUDGETS, TARGETS};
pub use error::{Error, Result};
pub use files::{Tagged, MAX_DOCUMENT_BYTES};
pub use model::{Assignment, Model, ModelOptions, PageBasis, Prediction, TierShare};
pub use placement::PlacementFile;
pub use profile::{
    Access, CostEntry, PageCosts, Profile, Source, StreamCost, Variant, BUILTIN_PROFILES,
    REFERENCE_TIER,
};
pub use scenarios::{scenarios, Scenario};
pub use share::SlowShare;
pub use solve::{
    pareto_front, pareto_front_by, solve_budget, solve_target, solve_tiers, FrontPoint,
    Granularity, Objective, ParetoFront, Solution, TierProblem, TwoTierProblem, Weight,
};
pub use workload::{
    Encoding, PageContext, QueryLoad, StoreTable, StructureLoad, StructurePages, Workload,
};
