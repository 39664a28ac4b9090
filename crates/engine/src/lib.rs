//! pmolap's star-join engine (SIGMOD'21 §6): the SSB queries — or any query of their
//! shape, given as data ([`query`]) — over the domain-encoded column store, on whichever
//! tiers its structures were placed.
//!
//! - [`query`]: the query model (YAML/JSON) and the 13 SSB queries as data.
//! - [`db`]: a directory of tables, opened under a placement; join indexes cached.
//! - [`joinindex`]: dense-array or hash join indexes over dimension keys.
//! - [`plan`](mod@plan): predicates → value-id sets, dimensions → join filters by fact value id.
//! - [`exec`]: morsel-driven parallel probe and aggregation, with the Table 1 switches.

#![forbid(unsafe_code)]

pub mod db;
pub mod error;
pub mod exec;
pub mod joinindex;
pub mod plan;
pub mod query;
pub mod sql;

use serde::{Deserialize, Serialize};

pub use db::Database;
pub use error::{Error, Result};
pub use exec::{execute, ExecOptions, ExecStats, Layout, StripedFact};
pub use plan::{plan, Double, JoinReport, OutValue, Plan};
pub use query::{parse_queries, select_ssb, ssb_queries, Query};

/// One step of a plan, for reports.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StepReport {
    pub what: String,
    pub column: String,
    pub test: String,
    pub selectivity: f64,
}

/// A query run: its rows and what planning and execution did.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct QueryRun {
    pub id: String,
    pub rows: Vec<Vec<OutValue>>,
    pub plan_ms: f64,
    pub probe_ms: f64,
    pub total_ms: f64,
    pub fact_rows: usize,
    /// Bytes of the packed fact columns the query reads (0 when it was answered without
    /// a scan: an empty join filter or predicate, or aggregates from the dictionaries).
    pub fact_bytes: u64,
    pub steps: Vec<StepReport>,
    pub joins: Vec<JoinReport>,
    pub group_domain: u64,
    pub exec: ExecStats,
}

/// Plans and executes `query` on `db`.
pub fn run_query(
    db: &Database,
    query: &Query,
    layout: &Layout,
    striped: &StripedFact,
    opts: &ExecOptions,
    region: &pmolap_tier::RegionOptions,
) -> Result<QueryRun> {
    let t0 = std::time::Instant::now();
    let p = plan(db, query)?;
    let (rows, exec) = execute(&p, layout, striped, opts, region)?;
    let steps = p
        .steps
        .iter()
        .map(|s| StepReport {
            what: s.what.clone(),
            column: p.cols[s.col].name.clone(),
            test: match s.test {
                plan::Test::Range { .. } => "range",
                plan::Test::Bits(_) if s.hull.is_some() => "ranges, then bitmap",
                plan::Test::Bits(_) => "bitmap",
                plan::Test::Ranges(_) => "ranges",
                plan::Test::Lookup(_) => "lookup",
                plan::Test::Code { .. } => "group code",
            }
            .to_string(),
            selectivity: s.selectivity,
        })
        .collect();
    Ok(QueryRun {
        id: query.id.clone(),
        rows,
        plan_ms: p.plan_ms,
        probe_ms: exec.probe_ms,
        total_ms: t0.elapsed().as_secs_f64() * 1e3,
        fact_rows: p.fact_rows,
        fact_bytes: if exec.morsels == 0 { 0 } else { p.fact_bytes() },
        steps,
        joins: p.joins.clone(),
        group_domain: p.group_domain,
        exec,
    })
}
