//! The SSB benchmarks over the star-join engine: `ssb run` / `ssb query` (queries on one
//! tier, [`run`]), `ssb tiers` (every query on every tier of the machine, SIGMOD'21
//! Fig. 14, [`tiers`]) and `ssb breakdown` (the Table 1 ladder, [`breakdown`]). Each
//! returns a typed result document (JSON via serde, read back by the report); the CLI
//! only parses, shows progress and prints.
//!
//! - [`data`]: where the database is (`--data`, or generated once per `--sf`) and how it is
//!   opened on a tier (warm: checksums verified and prefaulted; cold: pages dropped), as
//!   an engine session (`pmolap_engine::Session`: opened once, it translates SQL against
//!   its schema and runs the queries; this crate times and repeats them).
//! - [`run`]: timed repetitions of queries, per-query figures, the `ssb run` document.
//! - [`tiers`]: the machine's tiers for a database, the Fig. 14 and Table 1 documents.

pub mod answer;
pub mod data;
pub mod run;
pub mod tiers;
pub mod validate;
pub mod workload;

pub use answer::{answer, Answer, Answers};
pub use data::{database_dir, open_database, DataOptions};
pub use run::{run, Queries, QueryFigures, Reps, RunConfig, RunReport, RunSetting};
pub use tiers::{
    breakdown, chosen_tiers, tiers, BreakdownReport, LadderStep, TierChoice, TierResult,
    TiersConfig, TiersReport,
};
pub use workload::{
    check_ssb_database, given_or_recorded, recording_overhead, ssb_workload, translate,
    RecordingTimes,
};
