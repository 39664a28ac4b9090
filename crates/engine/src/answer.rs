//! The answer of a query and what its run did: the values of result rows ([`OutValue`],
//! [`Double`]) and the run's report ([`QueryRun`] with its plan steps, joins and
//! execution figures), as result documents carry them.

use pmolap_store::Value;
use serde::{Deserialize, Serialize};

use crate::joinindex::JoinIndexInfo;

/// A value of a result row.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum OutValue {
    Null,
    Int(i64),
    Str(String),
    /// A double (`AVG`).
    Float(Double),
}

/// A double ordered and compared by [`f64::total_cmp`] (result rows sort and compare).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Double(pub f64);

impl PartialEq for Double {
    fn eq(&self, o: &Self) -> bool {
        self.0.total_cmp(&o.0).is_eq()
    }
}

impl Eq for Double {}

impl PartialOrd for Double {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Double {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0)
    }
}

impl From<Value<'_>> for OutValue {
    fn from(v: Value<'_>) -> Self {
        match v {
            Value::Int(i) => OutValue::Int(i),
            Value::Str(s) => OutValue::Str(s.to_string()),
        }
    }
}

/// What planning found out about one join, for reports.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JoinReport {
    pub dim: String,
    pub index: JoinIndexInfo,
    /// Set when this query built the index (ms); absent when it was cached.
    pub index_build_ms: Option<f64>,
    pub dim_rows: usize,
    pub dim_rows_passing: usize,
    pub groups: usize,
    /// The filter — `bitmap` (a bit per fact value id), `range` (contiguous value ids) or
    /// none (every key passes) — and `lookup` when group codes are carried; `eliminated`
    /// when the join neither filters nor carries
    /// (every fact key passes and nothing is carried).
    pub filter: String,
    pub filter_bytes: usize,
}

/// What one execution did.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExecStats {
    pub probe_ms: f64,
    pub morsels: usize,
    /// Fact rows surviving every step.
    pub rows_qualifying: u64,
    pub groups: usize,
    /// Bytes of join filters copied per node (replication), this run.
    pub replicated_bytes: u64,
}

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
    /// The names of the answer's columns, in the order of each row's values: the select
    /// list (an aggregate's alias or its expression as written, a group-by column's
    /// name). Absent from older documents.
    #[serde(default)]
    pub columns: Vec<String>,
    pub rows: Vec<Vec<OutValue>>,
    /// The positions (in `columns`, from 0) of the exact DECIMAL columns, whose values
    /// are their digits at their scale as text (`"12.50"`, [`OutValue::Str`]): answers
    /// printed as JSON write them as numbers. Absent where there is none (and from older
    /// documents).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decimal_columns: Vec<usize>,
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
