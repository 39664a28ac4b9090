//! The platform error of pmolap-os and pmolap-tier: one variant per way an operation on
//! the operating system, a memory tier or the CPU can fail.

use std::path::PathBuf;

/// Everything that can go wrong while discovering, mapping, pinning or persisting memory,
/// locking or publishing files, or reading user input.
///
/// Every message is one line and names the thing that was wrong.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A tier spec string could not be parsed.
    #[error("bad tier spec `{spec}`: {reason}")]
    BadSpec { spec: String, reason: String },

    /// An I/O error on a named path.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// A path that had to exist does not.
    #[error("{}: no such file or directory", .0.display())]
    NotFound(PathBuf),

    /// Access to a path or device was refused.
    #[error("{}: permission denied ({hint})", path.display())]
    PermissionDenied { path: PathBuf, hint: String },

    /// A NUMA node was named that the machine does not have (or that has no memory).
    #[error("NUMA node {node} does not exist or has no memory (nodes with memory: {present})")]
    NoSuchNode { node: u32, present: String },

    /// A size beyond what the tier can hold.
    #[error("{tier}: {requested} bytes requested but only {available} bytes available")]
    TooLarge {
        tier: String,
        requested: u64,
        available: u64,
    },

    /// A CPU feature needed by an explicitly requested kernel or instruction is missing.
    #[error("this CPU lacks `{0}`, which the requested kernel or instruction needs")]
    MissingCpuFeature(&'static str),

    /// A system call failed.
    #[error("{op} failed: {source}")]
    Sys {
        op: &'static str,
        #[source]
        source: std::io::Error,
    },

    /// A sysfs/procfs file had content we could not parse.
    #[error("{}: cannot parse {what}: {reason}", path.display())]
    Parse {
        path: PathBuf,
        what: &'static str,
        reason: String,
    },

    /// A byte range outside a region.
    #[error("range {offset}+{len} is outside the region of {size} bytes")]
    OutOfBounds {
        offset: usize,
        len: usize,
        size: usize,
    },

    /// The machine or the process's privileges do not allow an operation (the message
    /// says which step and why).
    #[error("{0}")]
    Unsupported(String),

    /// A structure is locked by another process (the message names the holder).
    #[error("{0}")]
    Locked(String),

    /// A `file:` tier names an existing file that the command was not asked to overwrite.
    #[error("{}: already exists and is not scratch space; name a directory (pmolap makes its own temporary file there) or a new file (membench and iobench take --overwrite for a file that may be destroyed)", .0.display())]
    Exists(PathBuf),

    /// Out of room: a full filesystem, a quota, or the file-size limit (`ulimit -f`).
    #[error("{}: {source} (out of room: free space, quota or `ulimit -f`)", path.display())]
    NoRoom {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// SIGINT/SIGTERM arrived; the run stopped at a safe point.
    #[error("interrupted")]
    Interrupted,

    /// Any other invalid argument, described in one line.
    #[error("{0}")]
    Invalid(String),
}

/// The result type of pmolap-os and pmolap-tier.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Wraps an I/O error with the path it happened on, classifying not-found and
    /// permission errors into their own variants.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        let path = path.into();
        match source.kind() {
            std::io::ErrorKind::NotFound => Error::NotFound(path),
            std::io::ErrorKind::PermissionDenied => Error::PermissionDenied {
                path,
                hint: "check the file mode and group, or run as root".into(),
            },
            _ if crate::signal::is_out_of_room(&source) => Error::NoRoom { path, source },
            _ => Error::Io { path, source },
        }
    }

    /// The last OS error, attributed to a system call.
    pub fn last_os(op: &'static str) -> Self {
        Error::Sys {
            op,
            source: std::io::Error::last_os_error(),
        }
    }
}
