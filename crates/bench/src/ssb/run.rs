//! Timed runs of star-join queries on one tier (`ssb run`, `ssb query`): each query is
//! warmed up once, then run `reps` times; per query the median and the plan of the last
//! run. After an interrupt the runs stop at the next query or repetition and the document
//! says it is partial.

use std::path::PathBuf;

use indicatif::ProgressBar;
use serde::{Deserialize, Serialize};

use pmolap_engine::{Layout, Query, QueryRun};
use pmolap_tier::Topology;

use super::data::{
    database_dir_noting, open_database, open_placed, ColdTier, DataOptions, Prepared,
};
use crate::error::{Error, Result};
use crate::machine::Machine;

/// Per-query figures of a run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct QueryFigures {
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
    pub last: QueryRun,
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
}

/// The result document of `ssb run` / `ssb query`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunReport {
    /// `ssb-run`.
    pub kind: String,
    pub format_version: u32,
    pub pmolap_version: String,
    /// True when the run was interrupted: only the queries listed finished.
    pub partial: bool,
    pub config: RunConfig,
    pub machine: Machine,
    pub layout: Layout,
    /// Notes on switches that did nothing here (one NUMA node, ...).
    pub notes: Vec<String>,
    pub queries: Vec<QueryFigures>,
}

/// The median of `v` (NaN when empty).
pub(crate) fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}

/// What queries run on: a prepared database (each query warmed up once, then timed), or
/// a cold disk (reopened cold before every timed run).
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    Warm(&'a Prepared),
    Cold(&'a ColdTier, &'a pmolap_engine::ExecOptions),
}

/// Runs each query `reps` times (after one warm-up run on a warm source), ticking `pb`
/// per run. After an interrupt it stops before the next run and returns the queries that
/// have at least one timed run.
pub fn run_queries(
    src: Source<'_>,
    queries: &[Query],
    reps: usize,
    pb: &ProgressBar,
) -> Result<Vec<QueryFigures>> {
    if reps == 0 {
        return Err(Error::Ssb("--reps must be at least 1".into()));
    }
    let mut out = Vec::new();
    for q in queries {
        if pmolap_tier::signal::interrupted() {
            break;
        }
        pb.set_message(format!("Q{}", q.label()));
        let mut runs = Vec::new();
        if let Source::Warm(p) = src {
            p.run(q)?;
        }
        for _ in 0..reps {
            if pmolap_tier::signal::interrupted() && !runs.is_empty() {
                break;
            }
            runs.push(match src {
                Source::Warm(p) => p.run(q)?,
                Source::Cold(c, exec) => c.cold_open(exec)?.run(q)?,
            });
            pb.inc(1);
        }
        let times: Vec<f64> = runs.iter().map(|r| r.total_ms).collect();
        let med = median(&times);
        let plan_ms = median(&runs.iter().map(|r| r.plan_ms).collect::<Vec<_>>());
        let probe_ms = median(&runs.iter().map(|r| r.probe_ms).collect::<Vec<_>>());
        let Some(last) = runs.pop() else {
            break;
        };
        out.push(QueryFigures {
            id: q.id.clone(),
            median_ms: med,
            times_ms: times,
            rows: last.rows.len(),
            plan_ms,
            probe_ms,
            fact_bytes: last.fact_bytes,
            gbps: last.fact_bytes as f64 / (med / 1e3) / 1e9,
            last,
        });
    }
    Ok(out)
}

/// `ssb run` / `ssb query`: `queries` on the database of `data`, every structure on
/// `tier`, `reps` timed runs each. `pb` shows progress (its length is set here).
pub fn run(
    data: &DataOptions,
    tier: &str,
    queries: &[Query],
    reps: usize,
    pb: &ProgressBar,
) -> Result<RunReport> {
    if reps == 0 {
        return Err(Error::Ssb("--reps must be at least 1".into()));
    }
    if let Some(f) = &data.placement {
        // A bad placement file fails before any database is built or opened.
        pmolap_place::PlacementFile::load(f)?;
    }
    let topo = Topology::detect()?;
    let dir = database_dir_noting(data, pb)?;
    let (db, tier) = match &data.placement {
        Some(f) => (open_placed(&dir, f)?, format!("placement:{}", f.display())),
        None => (open_database(&dir, tier, true)?, tier.to_string()),
    };
    let p = Prepared::new(db, &topo, data.exec.clone())?;
    pb.set_length((queries.len() * reps) as u64);
    let figs = run_queries(Source::Warm(&p), queries, reps, pb)?;
    let join_index = queries
        .first()
        .and_then(|q| q.joins.first())
        .map_or("auto".to_string(), |j| {
            format!("{:?}", j.index).to_lowercase()
        });
    Ok(RunReport {
        kind: super::KIND_RUN.into(),
        format_version: super::FORMAT_VERSION,
        pmolap_version: env!("CARGO_PKG_VERSION").into(),
        partial: pmolap_tier::signal::interrupted(),
        config: RunConfig {
            data: dir,
            tier,
            reps,
            threads: p.layout.threads,
            pin: p.layout.pin.to_string(),
            stripe: p.layout.striped,
            replicate_dims: p.layout.replicated,
            morsel_rows: data.exec.morsel_rows,
            join_index,
            bits_kernel: pmolap_tier::kernel::bits::active().name().to_string(),
        },
        machine: Machine::from_topology(&topo),
        notes: p.layout.notes.clone(),
        layout: p.layout.clone(),
        queries: figs,
    })
}
