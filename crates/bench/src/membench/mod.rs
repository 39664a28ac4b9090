//! membench: bandwidth and latency of a memory tier by operation, pattern, access mode
//! and size, threads, pinning and NUMA placement (SIGMOD'21 §3–§5, PerMA-Bench).

pub mod config;
pub mod csv;
mod latency;
pub mod results;
pub mod run;

pub use config::{Args, Config, Params};
pub use results::{Results, Run};
pub use run::{describe, run_all, validate_all, RunOptions};
