//! The bench crate's error type.

use std::path::PathBuf;

/// Everything that can go wrong configuring or running a benchmark. One line each.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An error from the tier layer (mapping, NUMA, pinning, kernels).
    #[error(transparent)]
    Tier(#[from] pmolap_tier::Error),

    /// A config file that could not be read or parsed; `line` is 1-based when known.
    #[error("{}{}: {msg}", file.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Config {
        file: PathBuf,
        line: Option<usize>,
        msg: String,
    },

    /// A parameter combination that cannot run; names the benchmark and the problem.
    #[error("{bench}: {msg}")]
    Invalid { bench: String, msg: String },

    /// An I/O error on a named path.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// The star-join engine failed (a query, a database, an execution option).
    #[error(transparent)]
    Engine(#[from] pmolap_engine::Error),

    /// Generating or loading SSB data failed.
    #[error(transparent)]
    SsbData(#[from] pmolap_ssb::Error),

    /// An SSB run that cannot be carried out as asked, described in one line.
    #[error("{0}")]
    Ssb(String),

    /// A worker thread panicked (a bug; reported instead of propagated).
    #[error("a benchmark thread failed: {0}")]
    Thread(String),
}

/// The bench crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}
