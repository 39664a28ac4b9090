//! The one error type of `pmolap-report`: every message is one line, naming the file or
//! directory it is about.

use std::path::PathBuf;

/// Errors of reading result documents and drawing them.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or directory could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The input is not a pmolap result document (not JSON, no `kind`, an unknown kind,
    /// or fields that do not match its kind).
    #[error("{}: not a pmolap result: {why}", path.display())]
    NotAResult { path: PathBuf, why: String },
    /// A result written by a newer pmolap, in a format this build cannot read.
    #[error("{}: {kind} format version {found} is newer than this build reads ({supported}); use a newer pmolap", path.display())]
    NewerVersion {
        path: PathBuf,
        kind: String,
        found: u32,
        supported: u32,
    },
    /// A directory without any `*.json` file.
    #[error("{}: no result files (*.json) in this directory", path.display())]
    EmptyDir { path: PathBuf },
    /// Several inputs were named and none of them could be read as a result.
    #[error(
        "none of the inputs is a readable pmolap result ({count} skipped; the first: {first})"
    )]
    NothingRead { count: usize, first: String },
    /// No input was named at all.
    #[error("no result files given")]
    NoInput,
    /// The document is a result, but not one `pmolap plot` draws, or it holds too little.
    #[error("{}: {why}", path.display())]
    NothingToPlot { path: PathBuf, why: String },
    /// Drawing a figure failed.
    #[error("cannot draw {what}: {why}")]
    Draw { what: String, why: String },
    /// Writing an output failed.
    #[error(transparent)]
    Tier(#[from] pmolap_os::Error),
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

    /// The path the error is about (where it names one) and the rest of its line.
    pub(crate) fn split_path(self) -> (PathBuf, String) {
        let text = self.to_string();
        let path = match &self {
            Error::Io { path, .. }
            | Error::NotAResult { path, .. }
            | Error::NewerVersion { path, .. }
            | Error::EmptyDir { path }
            | Error::NothingToPlot { path, .. } => path.clone(),
            _ => return (PathBuf::new(), text),
        };
        let prefix = format!("{}: ", path.display());
        let why = text.strip_prefix(&prefix).unwrap_or(&text).to_string();
        (path, why)
    }

    pub(crate) fn not_a_result(path: impl Into<PathBuf>, why: impl Into<String>) -> Self {
        Error::NotAResult {
            path: path.into(),
            why: why.into(),
        }
    }
}

/// A plotters failure while drawing (turned into [`Error::Draw`] by the caller, who
/// knows what was drawn).
#[derive(Debug)]
pub(crate) struct DrawError(pub(crate) String);

impl<E: std::error::Error + Send + Sync> From<plotters::drawing::DrawingAreaErrorKind<E>>
    for DrawError
{
    fn from(e: plotters::drawing::DrawingAreaErrorKind<E>) -> Self {
        DrawError(e.to_string())
    }
}

/// The result type of drawing code.
pub(crate) type DrawResult<T = ()> = std::result::Result<T, DrawError>;
