//! The placements a user compares (placement paper §6): everything on the slow tier, only
//! the data vectors, only the dictionaries, and the budget (0, 1, 5, 10, 20, 50 %) and
//! target (25, 50, 75 %) placements off one Pareto front — each with the model's
//! predicted relative time.

use pmolap_store::StructureKind;
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::model::{Assignment, Model};
use crate::profile::Profile;
use crate::share::SlowShare;
use crate::solve::{pareto_front, Granularity, TwoTierProblem};
use crate::workload::Workload;

/// The budgets (slowdown allowed, fraction of `T_DRAM`) the paper's evaluation uses.
pub const BUDGETS: [f64; 6] = [0.0, 0.01, 0.05, 0.10, 0.20, 0.50];
/// The targets (fraction of bytes on the slow tier) the paper's evaluation uses.
pub const TARGETS: [f64; 3] = [0.25, 0.50, 0.75];

/// One placement and what the model predicts for it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Scenario {
    /// `all slow`, `data vectors only`, `dictionaries only`, `budget 10%`, `target 75%`.
    pub name: String,
    pub assignment: Assignment,
    /// Share of the workload's bytes on the slow tier (never-accessed ones included).
    pub slow_fraction: f64,
    /// Bytes on the slow tier, over the accessed bytes and over all bytes.
    pub share: SlowShare,
    /// Predicted `(T_DRAM + t) / T_DRAM`.
    pub relative: f64,
}

/// Every scenario of the module docs for `w` on `profile`'s tier.
pub fn scenarios(
    w: &Workload,
    model: &Model,
    profile: &Profile,
    g: Granularity,
) -> Result<Vec<Scenario>> {
    let profiles = std::slice::from_ref(profile);
    let scenario = |name: String, a: Assignment| -> Result<Scenario> {
        let pred = model.predict(w, profiles, &a)?;
        let share = SlowShare::of(w, &a);
        Ok(Scenario {
            name,
            assignment: a,
            slow_fraction: share.fraction,
            share,
            relative: pred.relative,
        })
    };
    let only = |kind: StructureKind| Assignment {
        tier: w
            .structures
            .iter()
            .map(|s| usize::from(s.kind == kind))
            .collect(),
    };
    let mut out = vec![
        scenario("all slow".into(), Assignment::all(w.structures.len(), 1))?,
        scenario("data vectors only".into(), only(StructureKind::DataVector))?,
        scenario("dictionaries only".into(), only(StructureKind::Dictionary))?,
    ];
    let front = pareto_front(&TwoTierProblem::new(w, model, profile, g)?)?;
    for b in BUDGETS {
        let s = front.solution(front.budget_index(b)?);
        out.push(scenario(format!("budget {}%", b * 100.0), s.assignment)?);
    }
    for t in TARGETS {
        let s = front.solution(front.target_index(t)?);
        out.push(scenario(format!("target {}%", t * 100.0), s.assignment)?);
    }
    Ok(out)
}
