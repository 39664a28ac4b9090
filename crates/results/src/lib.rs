//! pmolap's result documents, the bottom of the results layer: every producer (membench,
//! iobench, the SSB and placement runs, Elf, the Dash hash table, PostgreSQL TPC-H, the
//! demo) writes one of these types and the report reads them, so neither depends on the
//! other (DESIGN.md: results are data).
//!
//! - [`Header`]: the fields every document starts with (kind, format version, pmolap
//!   version, partial, [`Machine`]), flattened into each document.
//! - [`kind`]: one constant per document kind with the newest format version this build
//!   reads and writes; [`kind::ALL`] lists them.
//! - One module per kind with its typed document: [`membench`], [`iobench`], [`ssb`]
//!   (run, tiers, breakdown), [`place`] (validate), [`demo`], [`topology`], [`pg`],
//!   [`hashbench`], [`elfbench`]. Parts whose type belongs to a crate above this one (the
//!   engine's query run and thread layout, the placement workload, the topology snapshot)
//!   are type parameters, read as plain JSON ([`Detail`]) by default.
//! - [`placefiles`]: read views of the placement advisor's workload, profile and
//!   placement documents (owned and validated by `pmolap-place`).
//! - [`stats`]: run-to-run spread (median, min–max) and the one "within noise" rule.
//! - [`publish`]: a document written whole and durably as pretty JSON.
//!
//! Every field name and format version is the one the producers wrote before these types
//! moved here, so old documents read (`crates/report/tests/roundtrip.rs` reads and writes
//! back the fixtures and the dated documents under docs/). The header's fields now come
//! first in each JSON object; documents that never wrote `partial` (`hashbench`) write
//! it as `false`.
#![forbid(unsafe_code)]

pub mod demo;
pub mod elfbench;
pub mod error;
pub mod hashbench;
mod header;
pub mod iobench;
pub mod kind;
pub mod machine;
pub mod membench;
pub mod names;
pub mod pg;
pub mod place;
pub mod placefiles;
pub mod size;
pub mod ssb;
pub mod stats;
pub mod topology;

use std::path::Path;

pub use error::{Error, Result};
pub use header::Header;
pub use kind::Kind;
pub use machine::Machine;

/// A part of a document whose type belongs to the crate that produced it (the engine's
/// query run or layout, the placement workload): readers that do not know the type read
/// it as plain JSON.
pub type Detail = serde_json::Value;

/// Writes `doc` as pretty JSON to `path`, whole and durably (the file appears complete or
/// not at all: [`pmolap_os::durable::publish_file`]).
pub fn publish<T: serde::Serialize + ?Sized>(path: &Path, doc: &T) -> Result<()> {
    let bytes = serde_json::to_vec_pretty(doc).map_err(|e| Error::Serialise {
        path: path.to_path_buf(),
        source: e,
    })?;
    pmolap_os::durable::publish_file(path, &bytes)?;
    Ok(())
}
