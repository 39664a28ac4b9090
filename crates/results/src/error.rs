//! The results crate's error type.

use std::path::PathBuf;

/// What can go wrong writing or checking a result document.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The document could not be turned into JSON.
    #[error("{}: the result does not serialise: {source}", path.display())]
    Serialise {
        path: PathBuf,
        source: serde_json::Error,
    },
    /// A value of a document's settings that does not parse (one line naming it).
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Tier(#[from] pmolap_os::Error),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
