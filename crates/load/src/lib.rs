//! `pmolap load`'s work: a user's star schema — `CREATE TABLE` statements with primary
//! and foreign keys ([`ddl`]) and one delimited text or Parquet file per table
//! ([`source`]: [`text`], `parquet` with the `parquet` feature) — checked
//! value by value ([`value`]), its dimensions put in an order derived from the data
//! ([`order`]) and written as one database generation published whole ([`load`]).
//! `pmolap ssb load` is this path too: `workloads/ssb/schema.sql` with the generator's
//! rows ([`load_tables`]) or dbgen's files.

#![forbid(unsafe_code)]

pub mod ddl;
pub mod load;
pub mod order;
#[cfg(feature = "parquet")]
pub mod parquet;
pub mod source;
pub mod text;
pub mod value;

pub use ddl::{parse_schema, ColType, ColumnSpec, ForeignKey, StarSchema, TableSpec};
pub use load::{
    load_files, load_star, load_tables, reopen_database, LoadOptions, LoadedTable, Origin, RowRefs,
    TableRows,
};
pub use text::store_schema;

use std::path::PathBuf;

/// What can go wrong in a load; every message is one line naming the file (and, for a
/// value, its line and column).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The schema file: a statement that is not a CREATE TABLE of the supported shape,
    /// a type outside the supported ones, keys that do not form a star.
    #[error("{0}")]
    Schema(String),
    /// A data file: a value that does not fit its column, a key problem, a missing file.
    #[error("{0}")]
    Data(String),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Store(#[from] pmolap_store::Error),
    #[error(transparent)]
    Os(#[from] pmolap_os::Error),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
