//! The placements a user compares (placement paper §6): everything on the slow tier, only
//! the data vectors, only the dictionaries, and the advised placement of every budget and
//! target of the grid ([`crate::advice::grid`]) — each with the advised model's predicted
//! relative time. The budget and target placements are exactly what `place advise`
//! writes for the same workload, profile and options.

use pmolap_store::StructureKind;
use serde::{Deserialize, Serialize};

use crate::advice::{grid, AdviceOptions, Advisor};
use crate::error::Result;
use crate::model::Assignment;
use crate::profile::Profile;
use crate::share::SlowShare;
use crate::workload::Workload;

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
    /// Predicted `(T_DRAM + t) / T_DRAM` (pages dropped before each query).
    pub relative: f64,
    /// An advised placement that is a baseline the model predicted faster than the
    /// solver's optimum at the same DRAM bytes ([`crate::Advisor::solve`]): its kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// The OS-alone advice: the DRAM bytes it leaves to the page cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_cache_dram_bytes: Option<u64>,
}

/// Every scenario of the module docs for `w` on `profile`'s tier under `o`.
pub fn scenarios(w: &Workload, profile: &Profile, o: &AdviceOptions) -> Result<Vec<Scenario>> {
    let model = o.model()?;
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
            baseline: None,
            page_cache_dram_bytes: None,
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
    let advisor = Advisor::new(w, profile, o)?;
    for goal in grid() {
        let s = advisor.solve(goal)?;
        let mut sc = scenario(goal.to_string(), s.assignment)?;
        sc.baseline = s.baseline;
        sc.page_cache_dram_bytes = s.page_cache_dram_bytes;
        out.push(sc);
    }
    Ok(out)
}
