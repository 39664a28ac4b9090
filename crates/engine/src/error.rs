//! The engine's one error type.

use thiserror::Error;

/// Everything that can go wrong planning or running a query.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// The column store failed (a missing or damaged table, a placement it cannot do).
    #[error(transparent)]
    Store(#[from] pmolap_store::Error),

    /// A tier operation (a region, pinning, topology) failed.
    #[error(transparent)]
    Tier(#[from] pmolap_os::Error),

    /// A query description that is malformed or does not fit the database.
    #[error("{0}")]
    Query(String),

    /// A database directory that cannot be used.
    #[error("{0}")]
    Database(String),

    /// An execution option that cannot be carried out.
    #[error("{0}")]
    Options(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
