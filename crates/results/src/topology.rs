//! `topology.json` of `pmolap demo`: the machine, its tiers and the detailed topology.

use serde::{Deserialize, Serialize};

use pmolap_tier::TierInfo;

use crate::header::Header;
use crate::Detail;

/// The format version of the document.
pub const FORMAT_VERSION: u32 = crate::kind::TOPOLOGY.format_version;

/// The machine and its tiers; `Topology` is the detected topology
/// (`pmolap_tier::Topology`; readers that do not need it read [`Detail`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TopologyDoc<Topology = Detail> {
    /// Kind `topology`.
    #[serde(flatten)]
    pub header: Header,
    #[serde(default)]
    pub topology: Topology,
    pub tiers: Vec<TierInfo>,
}
