//! pmolap's domain-encoded column store (the placement paper's §2.2): per column a sorted
//! dictionary, a bit-packed data vector of value ids and an optional inverted index, each
//! its own [`pmolap_tier::Region`] on the tier a [`Placement`] names; a persistent table
//! format with checksums and an atomic commit protocol (`docs/formats.md`); and per
//! structure access counters (§4.1) for the placement model.
//!
//! Modules: [`schema`] (types, values), [`dictionary`], [`datavector`] (ids packed in
//! the layout of `pmolap_kernels::bitpack`), [`inverted`] (the three structures),
//! [`counters`], [`placement`],
//! [`format`] (byte layouts), [`encode`] (value ids, dictionaries, frames), [`builder`]
//! (write + commit), [`tbl`] (`.tbl` loading),
//! [`table`] (open + read).

#![forbid(unsafe_code)]

#[cfg(target_endian = "big")]
compile_error!(
    "the pmolap column-store format is little endian; big-endian targets are not supported"
);

pub mod builder;
pub mod counters;
pub mod database;
pub mod datavector;
pub mod dictionary;
pub mod encode;
pub mod error;
pub mod format;
pub mod inverted;
pub mod pagelog;
pub mod placement;
pub mod rowref;
pub mod schema;
pub mod structure;
pub mod table;
pub mod tbl;

pub use builder::{TableBuilder, WriteOptions};
pub use counters::{AccessCounts, Counters};
pub use database::{
    resolve_table, DatabaseManifest, DatabaseSnapshot, DatabaseWriter, DbWriteOptions, TableRef,
};
pub use datavector::{Bitmap, DataVector};
pub use dictionary::Dictionary;
pub use error::{Error, Result};
pub use format::{ColumnEncoding, Manifest, StructureKind};
pub use inverted::InvertedIndex;
pub use pagelog::{PageLog, PageStep};
pub use placement::{Location, Placement};
pub use rowref::RowRef;
pub use schema::{ColumnDef, ColumnType, LogicalType, Schema, TypedColumn, Value};
pub use structure::StructureInfo;
pub use table::{
    read_manifest, Column, ColumnCounts, ColumnInfo, ColumnPages, OpenOptions, StructureDesc,
    Table, TableInfo,
};
pub use tbl::{load_tbl, read_tbl};
