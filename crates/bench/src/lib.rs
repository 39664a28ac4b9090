//! pmolap's characterisation benchmarks: `membench` (bandwidth and latency of memory
//! tiers by access size, threads, pinning, NUMA placement, read/write/mixed/random, as in
//! SIGMOD'21 §3–§5 and PerMA-Bench).
#![forbid(unsafe_code)]

pub mod error;
pub mod machine;
pub mod membench;
pub mod size;

pub use error::{Error, Result};
