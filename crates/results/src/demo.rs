//! `demo.json`, the summary document of `pmolap demo`: which step did what, what it
//! skipped and why, and which result documents it wrote.

use serde::{Deserialize, Serialize};

use crate::header::Header;

/// The format version of the document.
pub const FORMAT_VERSION: u32 = crate::kind::DEMO.format_version;

/// What became of a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Done,
    /// Not possible on this machine (no such tier, no such CPU feature): `detail` says why.
    Skipped,
    /// It ran and failed: `detail` is the error.
    Failed,
    /// An interrupt (Ctrl-C) stopped it: what it finished is in its files (partial
    /// documents), `detail` says what stopped.
    Interrupted,
}

impl Status {
    /// The word the terminal and the report show.
    pub fn word(self) -> &'static str {
        match self {
            Status::Done => "done",
            Status::Skipped => "skipped",
            Status::Failed => "FAILED",
            Status::Interrupted => "interrupted",
        }
    }
}

/// One step of the demo.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StepRecord {
    pub name: String,
    pub status: Status,
    /// What it measured, or why it was skipped, or the error.
    pub detail: String,
    /// Result documents it wrote, relative to the output directory.
    pub files: Vec<String>,
    pub seconds: f64,
}

/// `demo.json`: the run as a whole.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DemoSummary {
    /// Kind `demo`; `partial` when an interrupt stopped the demo after a step.
    #[serde(flatten)]
    pub header: Header,
    pub sf: f64,
    pub steps: Vec<StepRecord>,
    /// The report, relative to the output directory, once written.
    pub report: Option<String>,
    pub seconds: f64,
}
