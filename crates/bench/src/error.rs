//! The bench crate's error type.

use std::path::PathBuf;

/// Everything that can go wrong configuring or running a benchmark. One line each.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An error from the tier layer (mapping, NUMA, pinning, kernels).
    #[error(transparent)]
    Tier(#[from] pmolap_os::Error),

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

    /// The column store refused (a table that cannot be written or opened).
    #[error(transparent)]
    Store(#[from] pmolap_store::Error),

    /// Generating or loading SSB data failed.
    #[error(transparent)]
    SsbData(#[from] pmolap_ssb::Error),

    /// A workload, profile or placement document that cannot be used.
    #[error(transparent)]
    Place(#[from] pmolap_place::Error),

    /// An SSB run that cannot be carried out as asked, described in one line.
    #[error("{0}")]
    Ssb(String),

    /// The system refused a worker thread (thread or memory limit).
    #[error("cannot start benchmark thread {} of {total}: {source} (run fewer threads)", started + 1)]
    Spawn {
        started: usize,
        total: usize,
        #[source]
        source: std::io::Error,
    },

    /// A worker thread panicked (a bug; reported instead of propagated).
    #[error("a benchmark thread failed: {0}")]
    Thread(String),
}

impl Error {
    /// An I/O error on `path`; a full filesystem, a quota or the file-size limit
    /// (`ulimit -f`: EFBIG) becomes the tier layer's out-of-room error, which says so.
    pub fn io(path: &std::path::Path, source: std::io::Error) -> Error {
        if pmolap_os::signal::is_out_of_room(&source) {
            return Error::Tier(pmolap_os::Error::NoRoom {
                path: path.to_path_buf(),
                source,
            });
        }
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// The bench crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
