//! The demo crate's error type.

/// Everything that can stop the demo as a whole (a failing step is recorded instead).
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Tier(#[from] pmolap_os::Error),

    #[error(transparent)]
    Bench(#[from] pmolap_bench::Error),

    /// A result document could not be written.
    #[error(transparent)]
    Results(#[from] pmolap_results::Error),

    /// The demo cannot run as asked, described in one line.
    #[error("{0}")]
    Demo(String),
}

/// The demo crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
