//! pmolap's index structures. So far: [`elf`], the Elf multi-dimensional index
//! (Broneske et al., ICDE 2017) in its linearized layout, kept persistent on any tier
//! (`docs/formats.md`, section "Elf index"), as studied in the selective-caching paper
//! (`/work/shared/papers/elf-selective-caching.txt`).
//!
//! What exists: building from rows or from the paper's uniform generator, exact-match,
//! window (range) and partial-match queries, a crash-safe persistent file format on any
//! `file:` tier, opening that file onto any tier (DRAM copy = the paper's "hybrid Elf"),
//! the selective-caching variants as a query-time layer ([`elf::cache`]: PM-only, hybrid,
//! static levels, dynamic LRU / TinyLFU, probability-based, static + dynamic), and the
//! benchmark baselines ([`elf::baseline`]: column scan, sorted projection), and the
//! selective-caching benchmark of `pmolap elf bench` with its typed result document
//! ([`elf::bench`]).
//!
//! [`dash`]: the Dash persistent hash table (Lu et al., VLDB 2020) of `u64` keys and
//! values in a region on any tier, with lazy crash recovery, a consistency check and
//! its benchmark (`pmolap hash bench`).

#![forbid(unsafe_code)]

#[cfg(target_endian = "big")]
compile_error!("the Elf file format is little endian; big-endian targets are not supported");

pub mod dash;
pub mod elf;
pub mod error;

pub use elf::{Elf, WriteOptions};
pub use error::{Error, Result};
