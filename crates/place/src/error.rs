//! The placement crate's error type: one variant per way loading, modelling or solving
//! can fail. Every message is one line; file errors name the file and the item at fault.

use std::path::PathBuf;

/// Everything that can go wrong in the placement advisor.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing a workload, profile or placement file failed.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// A file that is not valid JSON for its document type.
    #[error("{}: {message}", path.display())]
    Json { path: PathBuf, message: String },

    /// A document (workload, profile, placement) with an invalid item. `file` is the
    /// file name, or `<memory>` for a document built in code.
    #[error("{file}: {item}: {problem}")]
    Invalid {
        file: String,
        item: String,
        problem: String,
    },

    /// A profile made for another version of the store's format than the workload's.
    #[error(
        "{file}: profile `{tier}` is for store format version {profile_version}, the workload is from version {workload_version}"
    )]
    VersionMismatch {
        file: String,
        tier: String,
        profile_version: u32,
        workload_version: u32,
    },

    /// The model needs a cost the profile does not have (an access type with counts on
    /// a structure variant the profile never measured).
    #[error("profile `{tier}` has no cost for {key}, needed by {structure} ({count} accesses)")]
    MissingCost {
        tier: String,
        key: String,
        structure: String,
        count: u64,
    },

    /// A budget, target or capacity no placement can meet.
    #[error("infeasible: {0}")]
    Infeasible(String),

    /// An argument outside its domain (a negative budget, a target above 1, ...).
    #[error("{0}")]
    Argument(String),

    /// Reading an input file through `pmolap_os::input` failed (too big, endless, a
    /// FIFO with no writer, not UTF-8, not JSON), or a long solve was interrupted
    /// (SIGINT/SIGTERM; `pmolap_os::Error::Interrupted`).
    #[error(transparent)]
    Tier(#[from] pmolap_os::Error),

    /// A workload too big to solve within the documented bounds (structure count, or
    /// the size of the two-tier Pareto front; docs/placement.md, "Bounds").
    #[error("too big to solve: {0}")]
    TooBig(String),

    /// The MIP solver failed or could not prove optimality.
    #[error("MIP solver: {0}")]
    Solver(String),
}

impl Error {
    pub(crate) fn invalid(
        file: impl Into<String>,
        item: impl Into<String>,
        problem: impl Into<String>,
    ) -> Self {
        Error::Invalid {
            file: one_line(file.into()),
            item: one_line(item.into()),
            problem: one_line(problem.into()),
        }
    }
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// `s` with every control character written as an escape (`\n`, `\u{1b}`): names and
/// values a document brings into an error keep it one line.
pub(crate) fn one_line(s: String) -> String {
    if !s.chars().any(char::is_control) {
        return s;
    }
    s.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod one_line_tests {
    use super::*;

    #[test]
    fn errors_from_documents_stay_one_line() {
        let e = Error::invalid("w\n.json", "structure 0 (a\nb)", "bad\r\u{1b}");
        assert!(!e.to_string().contains(['\n', '\r', '\u{1b}']), "{e}");
        assert_eq!(one_line("plain".into()), "plain");
        let j = crate::files::parse_json::<crate::Workload>(
            std::path::Path::new("w.json"),
            "{\"\\ne\": 1}",
        )
        .unwrap_err();
        assert!(!j.to_string().contains('\n'), "{j}");
    }
}
