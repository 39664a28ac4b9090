//! The store crate's error type: one variant per way building, opening or reading a
//! column-store table can fail. Every message is one line and names the file at fault.

use std::path::PathBuf;

/// Everything that can go wrong in the column store.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A tier operation (mapping, capacity, persistence) failed.
    #[error(transparent)]
    Tier(#[from] pmolap_os::Error),

    /// An I/O error on a named path.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// A structure file or manifest that is damaged, truncated, foreign or inconsistent.
    #[error("{}: {problem}", path.display())]
    Corrupt { path: PathBuf, problem: String },

    /// The directory holds no committed table (no `MANIFEST`).
    #[error("{}: no column-store table here (no MANIFEST file)", .0.display())]
    NoTable(PathBuf),

    /// Writing the table would need more space than the tier has (or the configured cap).
    #[error(
        "{}: out of space: the table needs {needed} bytes but only {available} bytes are available; nothing was published",
        dir.display()
    )]
    OutOfSpace {
        dir: PathBuf,
        needed: u64,
        available: u64,
    },

    /// A `.tbl` line that cannot be loaded.
    #[error("{}:{line}: {problem}", path.display())]
    Tbl {
        path: PathBuf,
        line: u64,
        problem: String,
    },

    /// A database directory that cannot be used as asked, described in one line.
    #[error("{0}")]
    Database(String),

    /// A value, column or schema that does not fit what was asked.
    #[error("{0}")]
    Schema(String),

    /// A placement that cannot be carried out.
    #[error("placement: {0}")]
    Placement(String),

    /// A broken internal invariant (a bug), described in one line.
    #[error("internal error: {0}")]
    Internal(String),

    /// A step of publishing a table failed; nothing of it was published.
    #[error("{}: building the table failed, nothing was published: {source}", dir.display())]
    Build {
        dir: PathBuf,
        #[source]
        source: Box<Error>,
    },
}

/// The store crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn corrupt(path: impl Into<PathBuf>, problem: impl Into<String>) -> Self {
        Error::Corrupt {
            path: path.into(),
            problem: problem.into(),
        }
    }
}
