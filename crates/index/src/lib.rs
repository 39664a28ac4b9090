//! pmolap's index structures. So far: [`elf`], the Elf multi-dimensional index
//! (Broneske et al., ICDE 2017) in its linearized layout, kept persistent on any tier
//! (`docs/formats.md`, section "Elf index"), as studied in the selective-caching paper
//! (`/work/shared/papers/elf-selective-caching.txt`).
//!
//! What exists: building from rows or from the paper's uniform generator, exact-match,
//! window (range) and partial-match queries, a crash-safe persistent file format on any
//! `file:` tier, and opening that file onto any tier (DRAM copy = the paper's "hybrid
//! Elf").
//!
//! Not yet here (later sessions): the selective-caching variants (static caching of the
//! first levels, dynamic and probability-based caching), the `pmolap elf` CLI, the
//! benchmark of the paper's §V, baselines (e.g. a column scan), and the persistent hash
//! index (`hash/` in DESIGN.md).

#![forbid(unsafe_code)]

#[cfg(target_endian = "big")]
compile_error!("the Elf file format is little endian; big-endian targets are not supported");

pub mod elf;
pub mod error;

pub use elf::{Elf, WriteOptions};
pub use error::{Error, Result};
