//! pmolap's characterisation benchmarks: `membench` (bandwidth and latency of memory
//! tiers by access size, threads, pinning, NUMA placement, read/write/mixed/random, as in
//! SIGMOD'21 §3–§5 and PerMA-Bench) and `iobench` (the drop-in storage workloads of
//! DaMoN'21 §3 over I/O paths), and the SSB benchmarks over the star-join engine (`ssb`:
//! queries on a tier, every tier of the machine, the Table 1 ladder).
#![forbid(unsafe_code)]

pub mod error;
pub mod iobench;
/// Machine metadata (defined in `pmolap_results::machine`, with the result documents).
pub mod machine {
    pub use pmolap_results::machine::*;
}
pub mod membench;
/// Byte sizes (defined in `pmolap_results::size`: the report formats them too).
pub use pmolap_results::size;
pub mod ssb;
pub mod sweep;
pub mod threads;
pub mod tierprofile;

pub use error::{Error, Result};
