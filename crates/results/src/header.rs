//! [`Header`]: the fields every result document starts with.

use serde::{Deserialize, Serialize};

use crate::kind::Kind;
use crate::machine::Machine;

/// Documents written before `format_version` existed are version 1.
fn version_1() -> u32 {
    1
}

/// The common header of every result document, flattened into it
/// (`#[serde(flatten)]`): its fields appear at the document's top level.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Header {
    /// Which document this is ([`crate::kind`]).
    pub kind: String,
    /// The writer's format version of this kind (absent in the oldest documents: 1).
    #[serde(default = "version_1")]
    pub format_version: u32,
    /// The pmolap version that wrote it.
    pub pmolap_version: String,
    /// True when the run was interrupted (SIGINT/SIGTERM): only what finished is in it.
    #[serde(default)]
    pub partial: bool,
    /// What the results were measured on.
    pub machine: Machine,
}

impl Header {
    /// The header of a `kind` document written by this build.
    pub fn new(kind: Kind, machine: Machine, partial: bool) -> Header {
        Header {
            kind: kind.name.into(),
            format_version: kind.format_version,
            pmolap_version: env!("CARGO_PKG_VERSION").into(),
            partial,
            machine,
        }
    }
}
