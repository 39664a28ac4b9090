//! Memory tiers: where bytes live and how to reach them fast and durably.
//!
//! A [`TierSpec`] names a tier (`dram`, `dram:node=N`, `file:PATH`, `devdax:PATH`); a
//! [`Region`] is a page-aligned mapping on one. [`Topology`] says what the machine has,
//! [`kernel`] holds the SIMD read/write kernels, [`persist`] the flush instructions, and
//! [`pin`] places threads. This is the only crate of pmolap with `unsafe` code: mmap,
//! NUMA system calls, SIMD and cache-line flush instructions live here, each `unsafe`
//! block with a `// SAFETY:` line.

pub mod alloc;
pub mod cgroup;
pub mod cpu;
pub mod durable;
pub mod error;
pub mod input;
pub mod io;
pub mod kernel;
pub mod lock;
pub mod machine;
pub mod owner;
pub mod persist;
pub mod pin;
pub mod region;
pub mod signal;
pub mod spec;
pub mod tiers;
pub mod topology;

pub use cpu::CpuFeatures;
pub use error::{Error, Result};
pub use lock::{FileLock, LockMode};
pub use persist::{Durability, PersistMode};
pub use pin::Pinning;
pub use region::{AtomicRegion, ExistingFile, MemView, Region, RegionOptions};
pub use spec::TierSpec;
pub use tiers::{TierClass, TierInfo};
pub use topology::Topology;
