//! The `hashbench` document of `pmolap hash bench`: insert, positive and negative lookup
//! throughput and load factor of the Dash table at 1..N threads on each tier, the
//! `std::collections::HashMap` baselines in DRAM, and the time to reopen a table after a
//! crash.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use pmolap_tier::TierSpec;

use crate::error::{Error, Result};
use crate::header::Header;

/// The `kind` of the document.
pub const KIND: &str = crate::kind::HASHBENCH.name;
/// The format version this build writes and the newest it reads.
pub const FORMAT_VERSION: u32 = crate::kind::HASHBENCH.format_version;

/// One tier to run on, with how many keys (persisting every update costs a system call
/// per persist point on a page-cache file, so file tiers usually get fewer keys).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TierRunSpec {
    pub tier: String,
    pub keys: usize,
}

impl TierRunSpec {
    /// Parses `TIER` or `TIER@KEYS`; without `@KEYS`, `default_keys`.
    pub fn parse(s: &str, default_keys: usize) -> Result<TierRunSpec> {
        let (tier, keys) = match s.rsplit_once('@') {
            Some((t, k)) => (
                t,
                k.parse()
                    .map_err(|_| Error::Invalid(format!("`{s}`: `{k}` is not a key count")))?,
            ),
            None => (s, default_keys),
        };
        tier.parse::<TierSpec>()?;
        if keys == 0 {
            return Err(Error::Invalid(format!("`{s}`: at least one key")));
        }
        Ok(TierRunSpec {
            tier: tier.to_string(),
            keys,
        })
    }
}

/// The benchmark's settings.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HashBenchParams {
    /// Keys of the DRAM runs and of the HashMap baselines.
    pub keys: usize,
    pub tiers: Vec<TierRunSpec>,
    pub threads: Vec<usize>,
    /// Table sizes (items) of the recovery measurement; empty: none.
    pub recovery_items: Vec<usize>,
    /// Directory for the recovery measurement's table files.
    pub recovery_dir: PathBuf,
    pub seed: u64,
    /// Each lookup phase is timed this many times; the median counts (documents written
    /// before the option existed timed once).
    #[serde(default = "one")]
    pub reps: usize,
    #[serde(skip)]
    pub out: Option<PathBuf>,
}

fn one() -> usize {
    1
}

/// Throughput at one thread count.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ThreadPoint {
    pub threads: usize,
    /// Million inserts per second (writers are serialised by the table's writer lock).
    pub insert_mops: f64,
    pub positive_lookup_mops: f64,
    pub negative_lookup_mops: f64,
    /// Million positive / negative lookups per second over the repetitions: median and
    /// min–max (absent in documents from before issue 34).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub positive_lookup: Option<crate::stats::Spread>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub negative_lookup: Option<crate::stats::Spread>,
}

/// The Dash table on one tier.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TierResult {
    pub tier: String,
    /// How updates are made durable there (none, msync, cache-line flush).
    pub durability: String,
    pub keys: usize,
    pub points: Vec<ThreadPoint>,
    /// Items / slots of all segments after the inserts.
    pub load_factor: f64,
    /// Average fill of a segment when it split (the load factor a split was forced at).
    pub fill_at_split: f64,
    pub splits: u64,
    pub persist_points_per_insert: f64,
}

/// A `std::collections::HashMap<u64, u64>` in DRAM (the same keys): inserts from one
/// thread, lookups from many on the shared, read-only map.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BaselineResult {
    pub name: String,
    pub hasher: String,
    pub keys: usize,
    pub points: Vec<ThreadPoint>,
}

/// Reopening a table after a crash.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RecoveryResult {
    pub items: usize,
    pub file_bytes: u64,
    /// Opening the file: map, check the header, bump the epoch (the crash recovery proper).
    pub open_ms: f64,
    /// The first lookup, which recovers its segment.
    pub first_lookup_ms: f64,
    /// Recovering every segment (what lazy recovery spreads over later accesses).
    pub recover_all_ms: f64,
    pub segments: u64,
}

/// Dash positive lookups over a HashMap's, at one thread count.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Ratio {
    pub threads: usize,
    pub baseline: String,
    pub dash_over_baseline_positive: f64,
    /// The same ratio with its range and the noise verdict (`stats::Ratio`; absent in
    /// documents from before issue 34).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub positive: Option<crate::stats::Ratio>,
}

/// Everything one `pmolap hash bench` measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HashBenchReport {
    /// Kind `hashbench` (written only when every measurement finished: never partial).
    #[serde(flatten)]
    pub header: Header,
    pub started_unix: u64,
    pub params: HashBenchParams,
    pub dash: Vec<TierResult>,
    pub baselines: Vec<BaselineResult>,
    pub dram_ratios: Vec<Ratio>,
    pub recovery: Vec<RecoveryResult>,
}
