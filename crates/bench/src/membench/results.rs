//! The membench result document: config, machine metadata and per-repetition figures.
//! Plots and CSV are made from this alone.

use serde::{Deserialize, Serialize};

use crate::machine::Machine;
use crate::membench::config::Params;

/// The format version this build writes and the newest it reads (documents written
/// before the field existed are version 1).
pub const FORMAT_VERSION: u32 = 1;

fn version_1() -> u32 {
    1
}

/// Everything one `pmolap membench` invocation measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Results {
    /// Always `"membench"`.
    pub kind: String,
    /// [`FORMAT_VERSION`] of the writer.
    #[serde(default = "version_1")]
    pub format_version: u32,
    pub pmolap_version: String,
    /// Seconds since the Unix epoch when the run started.
    pub started_unix: u64,
    pub machine: Machine,
    /// The config file the sweep came from, if any.
    pub config_file: Option<String>,
    /// True when the sweep was interrupted (SIGINT/SIGTERM): `runs` holds only what
    /// finished (the last run possibly with fewer repetitions than `params.reps`).
    #[serde(default)]
    pub partial: bool,
    pub runs: Vec<Run>,
}

/// One point of a sweep: one parameter combination, measured `reps` times.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Run {
    /// The benchmark's name in the config (or `cli`).
    pub name: String,
    pub params: Params,
    /// The kernel that ran, e.g. `avx2`.
    pub kernel: String,
    /// What the region turned out to be (residency, huge pages, durability, warnings).
    pub region: pmolap_tier::region::RegionInfo,
    /// The regions of the parallel groups (`params.parallel`), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parallel_regions: Vec<pmolap_tier::region::RegionInfo>,
    /// The NUMA node the threads were placed on (None: anywhere).
    #[serde(default)]
    pub thread_node: Option<u32>,
    pub reps: Vec<Rep>,
    pub summary: Summary,
}

/// One repetition.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Rep {
    /// Thread groups that ran at the same time (one for read or write, two for mixed).
    pub groups: Vec<GroupResult>,
    /// Sum of the groups' bandwidths, GiB/s.
    pub bandwidth_gib_s: f64,
    /// Latency figures, for latency runs.
    pub latency: Option<Latency>,
}

/// One thread group's figures within a repetition.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GroupResult {
    /// `read` or `write`.
    pub role: String,
    pub threads: usize,
    /// The tier the group accessed.
    #[serde(default)]
    pub tier: Option<String>,
    /// The NUMA node the group's threads were placed on (None: anywhere).
    #[serde(default)]
    pub thread_node: Option<u32>,
    pub bytes: u64,
    /// Wall time from the group's common start to its last thread's end.
    pub seconds: f64,
    pub bandwidth_gib_s: f64,
    pub per_thread: Vec<ThreadResult>,
}

/// One thread's figures.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ThreadResult {
    pub thread: usize,
    /// The CPUs the thread was allowed to run on (empty: unpinned).
    pub cpus: Vec<usize>,
    pub bytes: u64,
    pub seconds: f64,
    pub bandwidth_gib_s: f64,
}

/// Latency of dependent loads (pointer chase), in nanoseconds per load.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Latency {
    pub samples: u64,
    /// Loads per timed sample (each sample is `loads_per_sample` dependent loads).
    pub loads_per_sample: u64,
    pub min_ns: f64,
    pub mean_ns: f64,
    pub p50_ns: f64,
    pub p90_ns: f64,
    pub p99_ns: f64,
    pub p999_ns: f64,
    pub max_ns: f64,
    /// (latency ns, cumulative fraction) points of the CDF.
    pub cdf: Vec<(f64, f64)>,
    /// Bandwidth of the streaming threads while the chase ran (loaded latency).
    pub load_bandwidth_gib_s: Option<f64>,
}

/// Medians over the repetitions.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Summary {
    pub bandwidth_gib_s_median: f64,
    pub bandwidth_gib_s_min: f64,
    pub bandwidth_gib_s_max: f64,
    pub read_gib_s_median: Option<f64>,
    pub write_gib_s_median: Option<f64>,
    pub latency_p50_ns_median: Option<f64>,
}
