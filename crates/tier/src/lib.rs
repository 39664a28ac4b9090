//! Memory tiers: where bytes live and how to reach them fast and durably.
//!
//! A [`TierSpec`] names a tier (`dram`, `dram:node=N`, `file:PATH`, `devdax:PATH`); a
//! [`Region`] is a page-aligned mapping on one. [`Topology`] says what the machine has,
//! [`cpu`] which instructions the CPU offers, [`kernel`] holds the SIMD read/write
//! kernels membench measures with, [`persist`] the flush instructions, and [`pin`]
//! places threads. mmap, NUMA system calls, SIMD and cache-line flush instructions live
//! here, each `unsafe` block with a `// SAFETY:` line (the kernels on packed value ids
//! are `pmolap-kernels`, one layer up; signals, locks, durable publish and input bounds
//! `pmolap-os`, one layer down).

pub mod alloc;
pub mod cpu;
pub mod frames;
pub mod io;
pub mod kernel;
pub mod owner;
pub mod persist;
pub mod pin;
pub mod region;
pub mod spec;
pub mod tiers;
pub mod topology;

pub use cpu::CpuFeatures;
pub use persist::{Durability, PersistMode};
pub use pin::Pinning;
/// Tier operations fail with the platform error of `pmolap-os`.
pub use pmolap_os::{Error, Result};
pub use region::{AtomicRegion, ExistingFile, MemView, ReadOnlyRegion, Region, RegionOptions};
pub use spec::TierSpec;
pub use tiers::{TierClass, TierInfo};
pub use topology::Topology;
