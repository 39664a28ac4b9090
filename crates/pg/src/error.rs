//! The PostgreSQL benchmark's error type: one line each.

use std::path::PathBuf;

/// Everything that can go wrong setting up, loading or running TPC-H on PostgreSQL.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No PostgreSQL server binaries (`initdb`, `postgres`) on this machine.
    #[error("no PostgreSQL server binaries found ({looked}); install the `postgresql` package (Debian: apt-get install postgresql) or set PMOLAP_PG_BIN to the directory holding initdb and postgres")]
    NoServer { looked: String },

    /// A tier path that cannot hold a tablespace.
    #[error("tier {}: {why}", path.display())]
    Tier { path: PathBuf, why: String },

    /// An I/O error on a named path.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// A helper program (initdb, pg_ctl, psql, setpriv) failed.
    #[error("{what}: {detail}")]
    Command { what: String, detail: String },

    /// The server refused a statement or the connection broke.
    #[error("PostgreSQL, {context}: {detail}")]
    Pg { context: String, detail: String },

    /// The same query gave different answers on two tiers (or two repetitions).
    #[error("query Q{query}: answer digest {got} on {tier} differs from {expected} on {first_tier} (same data, same plan: an error)")]
    AnswerMismatch {
        query: u32,
        tier: String,
        got: String,
        first_tier: String,
        expected: String,
    },

    /// Options that cannot run, described in one line.
    #[error("{0}")]
    Invalid(String),

    /// The tier layer (signals, durable publish, topology).
    #[error(transparent)]
    Platform(#[from] pmolap_os::Error),
}

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn pg(context: impl Into<String>, e: postgres::Error) -> Error {
        // The server's own message (with its detail) is more useful than the client's
        // generic "db error".
        let detail = match e.as_db_error() {
            Some(db) => match db.detail() {
                Some(d) => format!("{} ({d})", db.message()),
                None => db.message().to_string(),
            },
            None => e.to_string(),
        };
        Error::Pg {
            context: context.into(),
            detail: detail.replace('\n', " "),
        }
    }

    /// Whether this is the interrupt (SIGINT/SIGTERM) surfacing at a safe point.
    pub fn is_interrupted(&self) -> bool {
        matches!(self, Error::Platform(pmolap_os::Error::Interrupted))
    }
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
