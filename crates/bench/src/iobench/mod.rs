//! iobench: the drop-in storage workloads of DaMoN'21 §3 (table scan, buffer manager,
//! logging) over I/O paths (pread/pwrite, O_DIRECT, mmap+msync, pmem-style MAP_SYNC +
//! flush, io_uring), one file per thread or pages striped over several directories.

pub mod config;
pub mod files;
pub mod results;
pub mod run;

pub use config::{Args, Config, Params};
pub use results::{Results, Run};
pub use run::{describe, run_all, validate_all, RunOptions};
