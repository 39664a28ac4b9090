//! The one error type of `pmolap-index`: every message is one line naming the file (where
//! there is one) and the problem.

use std::path::PathBuf;

/// Errors of building, persisting, opening and querying indexes.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file system operation failed.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Allocating, mapping or persisting a region failed.
    #[error(transparent)]
    Tier(#[from] pmolap_os::Error),
    /// A result document could not be written or a setting of one does not parse.
    #[error(transparent)]
    Results(#[from] pmolap_results::Error),
    /// The file does not start with the Elf magic.
    #[error("{}: not an Elf index file (bad magic)", path.display())]
    NotElf { path: PathBuf },
    /// The file is an Elf index of a format version this build does not read.
    #[error("{}: Elf format version {found}, but this build reads version {supported}", path.display())]
    Version {
        path: PathBuf,
        found: u32,
        supported: u32,
    },
    /// A checksum did not match: the file is damaged.
    #[error("{}: {what} checksum mismatch (the file is damaged)", path.display())]
    Checksum { path: PathBuf, what: &'static str },
    /// The file is shorter than its header says.
    #[error("{}: truncated: {expected} bytes expected, {found} present", path.display())]
    Truncated {
        path: PathBuf,
        expected: u64,
        found: u64,
    },
    /// A header or payload field is impossible (checksums matched, contents do not).
    #[error("{}: damaged: {detail}", path.display())]
    Corrupt { path: PathBuf, detail: String },
    /// More dimensions than the layout encodes (or none).
    #[error("{dims} dimensions: the Elf layout encodes 1 to {max}")]
    Dimensions { dims: usize, max: usize },
    /// A value too wide for the layout (one bit of each value word is a marker).
    #[error("row {row}, dimension {dim}: value {value} exceeds the largest encodable value {max}")]
    ValueTooWide {
        row: usize,
        dim: usize,
        value: u32,
        max: u32,
    },
    /// Input rows of the wrong shape.
    #[error("bad input rows: {0}")]
    BadRows(String),
    /// The index would be larger than 31-bit offsets address, or too many rows for 31-bit TIDs.
    #[error("too large for the Elf layout: {0}")]
    TooLarge(String),
    /// A query that does not fit the index (wrong number of dimensions, empty bounds).
    #[error("bad query: {0}")]
    BadQuery(String),
    /// The file does not start with the Dash magic.
    #[error("{}: not a Dash hash table (bad magic)", path.display())]
    NotDash { path: PathBuf },
    /// A Dash table of a format version this build does not read.
    #[error("{}: Dash format version {found}, but this build reads version {supported}", path.display())]
    DashVersion {
        path: PathBuf,
        found: u64,
        supported: u64,
    },
    /// The hash table has no room left (its region is sized at creation).
    #[error("hash table full: {0}")]
    TableFull(String),
    /// Crash simulation: the table stopped at this persist point.
    #[error("simulated crash at persist point {0}")]
    CrashStop(u64),
    /// The benchmark's settings do not allow a run, or its variants disagree.
    #[error("elf bench: {0}")]
    Bench(String),
    /// `hash bench`'s settings do not allow a run, or a measurement went wrong.
    #[error("hash bench: {0}")]
    HashBench(String),
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}
