//! The SSB result documents: `ssb-run` (queries on one tier), `ssb-tiers` (every query on
//! every tier, SIGMOD'21 Fig. 14) and `ssb-breakdown` (the Table 1 ladder). The engine's
//! per-query run and thread layout are type parameters (`pmolap_bench::ssb` fills them
//! with the engine's types; readers that do not need them read [`Detail`]).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use pmolap_tier::TierClass;

use crate::header::Header;
use crate::stats::{Ratio, Spread};
use crate::Detail;

/// The format version of the SSB result documents.
pub const FORMAT_VERSION: u32 = crate::kind::SSB_RUN.format_version;

/// Per-query figures of a run; `Run` is the engine's last run of the query
/// (`pmolap_engine::QueryRun`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct QueryFigures<Run = Detail> {
    pub id: String,
    pub median_ms: f64,
    pub times_ms: Vec<f64>,
    pub rows: usize,
    /// Median of planning (predicates, join filters) and of the probe, ms.
    pub plan_ms: f64,
    pub probe_ms: f64,
    pub fact_bytes: u64,
    /// Packed fact bytes the query reads / median time.
    pub gbps: f64,
    pub last: Run,
}

impl<Run> QueryFigures<Run> {
    /// The median and min–max of the timed runs (`None` when none finished).
    pub fn spread(&self) -> Option<Spread> {
        Spread::of(&self.times_ms)
    }
}

/// The configuration of an `ssb run`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunConfig {
    pub data: PathBuf,
    pub tier: String,
    pub reps: usize,
    pub threads: usize,
    pub pin: String,
    pub stripe: bool,
    pub replicate_dims: bool,
    pub morsel_rows: usize,
    pub join_index: String,
    /// The bit kernels that unpacked and tested the packed ids (`avx512+vbmi`, `avx512`, `avx2`,
    /// `portable`; absent in documents from before they existed).
    #[serde(default)]
    pub bits_kernel: String,
    /// How the database's files were kept between runs (`warm` in documents from before
    /// the setting existed).
    #[serde(default)]
    pub setting: RunSetting,
}

/// How an `ssb run` keeps the database's files: opened once, checksums verified and every
/// page read in (`warm`); reopened before every timed run with every database file's
/// pages dropped from the page cache (`cold`); or opened once with its pages dropped and
/// the queries run inside a memory cgroup of SIZE bytes, bounding the page cache
/// (`cache:SIZE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum RunSetting {
    #[default]
    Warm,
    Cold,
    Cache {
        bytes: u64,
    },
}

impl std::str::FromStr for RunSetting {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        if s == "warm" {
            return Ok(RunSetting::Warm);
        }
        match s.parse::<crate::place::Setting>() {
            Ok(crate::place::Setting::Cold) => Ok(RunSetting::Cold),
            Ok(crate::place::Setting::Cache { bytes }) => Ok(RunSetting::Cache { bytes }),
            Err(_) if !s.starts_with("cache:") => Err(format!(
                "setting `{s}`: use `warm` (opened once, every page read in), `cold` (pages dropped before each run) or `cache:SIZE` (page cache bounded by a memory cgroup)"
            )),
            Err(e) => Err(e),
        }
    }
}

impl std::fmt::Display for RunSetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunSetting::Warm => f.write_str("warm"),
            RunSetting::Cold => f.write_str("cold"),
            RunSetting::Cache { bytes } => write!(f, "cache:{bytes}"),
        }
    }
}

/// The result document of `ssb run` / `ssb query`; `Layout` is the engine's thread and
/// data layout (`pmolap_engine::Layout`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunReport<Run = Detail, Layout = Detail> {
    /// Kind `ssb-run`; `partial` when the run was interrupted: only the queries listed
    /// finished.
    #[serde(flatten)]
    pub header: Header,
    pub config: RunConfig,
    pub layout: Layout,
    /// Notes on switches that did nothing here (one NUMA node, ...).
    pub notes: Vec<String>,
    pub queries: Vec<QueryFigures<Run>>,
}

/// A tier an SSB database can run on: its name, the placement (`home`: the table files
/// where they are; else a tier spec), and whether pages are dropped before each run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TierChoice {
    pub name: String,
    pub spec: String,
    pub cold: bool,
    #[serde(default)]
    pub class: TierClass,
}

/// One tier's figures.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TierResult<Run = Detail> {
    pub tier: TierChoice,
    pub queries: Vec<QueryFigures<Run>>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TiersConfig {
    pub data: PathBuf,
    /// Timed runs per query (the most, where `reps_rule` gives a range).
    pub reps: usize,
    /// How the number of timed runs was chosen, where it was a range with a time budget
    /// (the demo); absent for a plain count and in older documents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reps_rule: Option<String>,
    pub threads: usize,
    pub pin: String,
}

/// The result document of `ssb tiers` (Fig. 14).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TiersReport<Run = Detail> {
    /// Kind `ssb-tiers`; `partial` when interrupted: only the tiers (and queries) listed
    /// finished.
    #[serde(flatten)]
    pub header: Header,
    pub config: TiersConfig,
    /// Tiers left out and why.
    pub notes: Vec<String>,
    /// The first tier is the baseline (DRAM).
    pub tiers: Vec<TierResult<Run>>,
}

impl<Run> TiersReport<Run> {
    /// Median time on tier `t` / median on the first tier, per query both have.
    pub fn slowdowns(&self, t: usize) -> Vec<(String, f64)> {
        let (Some(base), Some(r)) = (self.tiers.first(), self.tiers.get(t)) else {
            return Vec::new();
        };
        r.queries
            .iter()
            .zip(&base.queries)
            .map(|(x, b)| (x.id.clone(), x.median_ms / b.median_ms))
            .collect()
    }

    /// The geometric mean of [`slowdowns`](Self::slowdowns).
    pub fn geomean_slowdown(&self, t: usize) -> f64 {
        let v = self.slowdowns(t);
        let s: f64 = v.iter().map(|(_, x)| x.ln()).sum();
        (s / v.len().max(1) as f64).exp()
    }

    /// Query `id` on tier `t` against the first tier, with the one noise rule
    /// (`stats::Ratio`); `None` when either side lacks the query.
    pub fn slowdown_ratio(&self, t: usize, id: &str) -> Option<Ratio> {
        let (base, r) = (self.tiers.first()?, self.tiers.get(t)?);
        let find = |q: &[QueryFigures<Run>]| q.iter().find(|x| x.id == id)?.spread();
        Ratio::of(&find(&r.queries)?, &find(&base.queries)?)
    }

    /// The geomean slowdown of tier `t` against the first tier over the queries both
    /// have (the value of [`geomean_slowdown`](Self::geomean_slowdown)), with its range
    /// and the noise verdict: the geomeans of both tiers' medians, minima and maxima
    /// compared by the one rule (`stats::Ratio`).
    pub fn geomean_ratio(&self, t: usize) -> Option<Ratio> {
        let (base, r) = (self.tiers.first()?, self.tiers.get(t)?);
        let mut a = Vec::new();
        let mut b = Vec::new();
        for (x, y) in r.queries.iter().zip(&base.queries) {
            a.push(x.spread()?);
            b.push(y.spread()?);
        }
        Ratio::of(&Spread::geomean(&a)?, &Spread::geomean(&b)?)
    }
}

/// One rung of the Table 1 ladder on one tier.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LadderStep {
    pub tier: String,
    pub step: String,
    pub threads: usize,
    pub pin: String,
    pub striped: bool,
    pub replicated: bool,
    pub notes: Vec<String>,
    pub median_ms: f64,
    pub speedup_vs_first: f64,
    /// Every timed run, ms (absent in documents from before issue 34).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub times_ms: Vec<f64>,
    /// The first rung's time over this one's with its range and noise verdict (absent
    /// for the first rung and in older documents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speedup: Option<Ratio>,
}

impl LadderStep {
    /// The median and min–max of the timed runs (`None` in older documents).
    pub fn spread(&self) -> Option<Spread> {
        Spread::of(&self.times_ms)
    }

    /// Whether this rung ran the same configuration as `prev` on the same tier: the same
    /// threads, pinning, striping and replication after the layout was made (striping
    /// and replication are no-ops on one NUMA node).
    pub fn same_configuration(&self, prev: &LadderStep) -> bool {
        self.tier == prev.tier
            && self.threads == prev.threads
            && self.pin == prev.pin
            && self.striped == prev.striped
            && self.replicated == prev.replicated
    }
}

/// The result document of `ssb breakdown` (Table 1).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BreakdownReport {
    /// Kind `ssb-breakdown`.
    #[serde(flatten)]
    pub header: Header,
    pub query: String,
    /// Timed runs per rung (the most, where `reps_rule` gives a range).
    pub reps: usize,
    /// As [`TiersConfig::reps_rule`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reps_rule: Option<String>,
    pub notes: Vec<String>,
    pub steps: Vec<LadderStep>,
}
