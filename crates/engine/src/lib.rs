//! pmolap's star-join engine (SIGMOD'21 §6): the SSB queries — or any query of their
//! shape, given as data ([`query`]) — over the domain-encoded column store, on whichever
//! tiers its structures were placed.
//!
//! - [`session`]: a database opened once, its thread layout and bit kernels; SQL
//!   scripts parsed, planned, run and answered on it ([`Session`]).
//! - [`query`]: the query model (YAML/JSON) and the 13 SSB queries as data.
//! - [`sql`]: star-join SQL (a script of `;`-separated statements) into that model.
//! - [`db`]: a directory of tables, opened under a placement; join indexes cached.
//! - [`joinindex`]: dense-array or hash join indexes over dimension keys.
//! - [`plan`](mod@plan): predicates → value-id sets, dimensions → join filters by fact value id.
//! - [`exec`]: morsel-driven parallel probe and aggregation, with the Table 1 switches.
//! - [`answer`]: result values and the report of a run.
//! - `typed`: DECIMAL and DATE columns — literals read and answers written at their type.

#![forbid(unsafe_code)]

pub mod answer;
pub mod db;
pub mod error;
pub mod exec;
pub mod joinindex;
pub mod plan;
pub mod query;
pub mod session;
pub mod sql;
mod typed;

pub use answer::{Double, ExecStats, JoinReport, OutValue, QueryRun, StepReport};
pub use db::Database;
pub use error::{Error, Result};
pub use exec::{execute, ExecOptions, Layout, StripedFact};
pub use plan::{plan, Plan};
pub use query::{parse_queries, select_ssb, ssb_queries, Query};
pub use session::{run_query, Session};
pub use sql::Script;
