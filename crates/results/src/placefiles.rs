//! Read views of the placement advisor's own documents — the workload
//! ([`WorkloadDoc`]), a tier's cost profile ([`ProfileDoc`]) and a placement
//! ([`PlacementDoc`]) — for readers that do not depend on `pmolap-place`, which owns,
//! writes and validates them. The views type what the report draws and keep every other
//! field as it was (`rest`), so a view written back is the document read.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::Detail;

/// Fields a view does not type, kept as read.
pub type Rest = serde_json::Map<String, Detail>;

/// One structure of a workload: its size and accesses per access type.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WorkloadStructure {
    pub table: String,
    pub column: String,
    /// `dictionary`, `data_vector` or `inverted_index`.
    pub kind: String,
    pub bytes: u64,
    /// Logical accesses per access type (`scan`, `lookup`, `near_dense`, ...).
    pub counts: BTreeMap<String, u64>,
    #[serde(flatten)]
    pub rest: Rest,
}

impl WorkloadStructure {
    /// Accesses of every type.
    pub fn accesses(&self) -> u64 {
        self.counts.values().sum()
    }
}

/// A placement workload (`pmolap-workload`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WorkloadDoc {
    /// `place-workload` (absent in files written before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    pub format: String,
    pub version: u32,
    /// CPU time with every structure in DRAM, ns.
    pub t_dram_ns: f64,
    #[serde(default)]
    pub description: String,
    pub structures: Vec<WorkloadStructure>,
    /// Worker threads of the recorded run (absent: 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<u32>,
    #[serde(flatten)]
    pub rest: Rest,
}

/// One cost of a profile: extra ns per access over DRAM.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProfileCost {
    pub structure: String,
    pub variant: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bit_width: Option<u32>,
    pub access: String,
    pub extra_ns: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dram_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A slow tier's cost profile (`pmolap-profile`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProfileDoc {
    /// `place-profile` (absent in files written before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    pub format: String,
    pub version: u32,
    pub tier: String,
    /// Where the numbers come from (`{"kind": "measured_here", "machine": ...}` or a
    /// published citation).
    pub source: Detail,
    #[serde(default)]
    pub description: String,
    pub costs: Vec<ProfileCost>,
    /// Page-granular tiers: the cost of a page fault and of a sequential page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<Detail>,
    #[serde(flatten)]
    pub rest: Rest,
}

impl ProfileDoc {
    /// The source in a few words.
    pub fn source_text(&self) -> String {
        let field = |k: &str| self.source.get(k).and_then(Detail::as_str);
        match (field("kind"), field("machine"), field("citation")) {
            (Some("measured_here"), Some(m), _) => format!("measured here ({m})"),
            (_, _, Some(c)) => format!("published ({c})"),
            _ => self.source.to_string(),
        }
    }
}

/// One tier of a placement.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PlacementTierDoc {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity_bytes: Option<u64>,
}

/// One structure's tier.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PlacedStructureDoc {
    pub table: String,
    pub column: String,
    pub kind: String,
    pub tier: String,
}

/// A placement (`pmolap-placement`, `place advise -o`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PlacementDoc {
    /// `placement` (absent in files written before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    pub format: String,
    pub version: u32,
    pub tiers: Vec<PlacementTierDoc>,
    pub structures: Vec<PlacedStructureDoc>,
    /// The model's prediction when the placement was made (`t_ns`, `relative`,
    /// `bytes_moved`, `slow_share`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicted: Option<Detail>,
    /// How accurate the model was measured to be here, or that it was not validated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accuracy: Option<Detail>,
    #[serde(flatten)]
    pub rest: Rest,
}
