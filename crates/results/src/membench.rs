//! The membench result document (`kind` `membench`): machine metadata, per run its
//! parameters ([`Params`], as resolved from the config) and per-repetition figures.
//! Plots and CSV are made from this alone.

use serde::{Deserialize, Serialize};

use pmolap_tier::region::{HugePages, RegionInfo};
use pmolap_tier::{PersistMode, Pinning, TierSpec};

use crate::header::Header;

/// The format version this build writes and the newest it reads (documents written
/// before the field existed are version 1).
pub const FORMAT_VERSION: u32 = crate::kind::MEMBENCH.format_version;

/// What the threads do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Operation {
    Read,
    Write,
    /// A read group and a write group running at the same time, each reported.
    Mixed,
    /// Dependent random reads (pointer chase), optionally while `threads` threads stream.
    Latency,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pattern {
    Sequential,
    Random,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Distribution {
    Uniform,
    Zipf,
}

/// Grouped: threads interleave access-size chunks (one global sequential stream).
/// Individual: a disjoint part of the range per thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AccessMode {
    Grouped,
    Individual,
}

/// One fully resolved parameter combination.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Params {
    pub operation: Operation,
    pub pattern: Pattern,
    pub distribution: Distribution,
    pub zipf_s: f64,
    pub access_mode: AccessMode,
    /// Bytes per access (power of two, ≥ 64).
    pub access_size: u64,
    /// Threads (read threads for mixed, streaming load threads for latency).
    pub threads: usize,
    /// Write threads of a mixed run.
    pub write_threads: usize,
    pub pinning: Pinning,
    pub tier: TierSpec,
    /// Bytes of the region the threads work on.
    pub memory_range: u64,
    /// NUMA node the threads run on (near/far is this vs the tier's node).
    pub thread_node: Option<u32>,
    pub persist: PersistMode,
    pub sfence: bool,
    /// Run each repetition for this long (seconds)...
    pub duration_s: Option<f64>,
    /// ...or until this many bytes were accessed (per group).
    pub bytes: Option<u64>,
    pub reps: usize,
    pub huge_pages: HugePages,
    pub prefault: bool,
    /// One untimed pass over the range before the timed repetitions.
    pub warmup: bool,
    /// `auto`, `avx512`, `avx2` or `portable`.
    pub kernel: String,
    /// A `file:PATH` tier may name an existing file, whose content the run destroys
    /// (fill and writes); otherwise such a tier is refused.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub overwrite: bool,
    /// Further thread groups that run at the same time as this one, each on a region
    /// of its own (its own tier, range and thread node): the paper's multi-socket
    /// experiments (Figs 6 and 10). This run's duration/bytes and reps apply to all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parallel: Vec<Params>,
}

/// Seconds a repetition runs when neither `duration` nor `bytes` is given.
pub const DEFAULT_DURATION_S: f64 = 1.0;

/// Bytes per access of the streaming load threads of a latency run (at least).
pub const LOAD_BLOCK: u64 = 4096;

impl Default for Params {
    fn default() -> Self {
        Params {
            operation: Operation::Read,
            pattern: Pattern::Sequential,
            distribution: Distribution::Uniform,
            zipf_s: 0.99,
            access_mode: AccessMode::Individual,
            access_size: 4096,
            threads: 1,
            write_threads: 0,
            pinning: Pinning::Cores,
            tier: TierSpec::Dram { node: None },
            memory_range: 1 << 30,
            thread_node: None,
            persist: PersistMode::DEFAULT,
            sfence: true,
            duration_s: None,
            bytes: None,
            reps: 3,
            huge_pages: HugePages::Off,
            prefault: true,
            warmup: true,
            kernel: "auto".into(),
            overwrite: false,
            parallel: Vec::new(),
        }
    }
}

impl Params {
    /// Threads the run starts at once: every group's, and a latency run's chase thread.
    pub fn total_threads(&self) -> usize {
        let own =
            self.threads + self.write_threads + usize::from(self.operation == Operation::Latency);
        own + self
            .parallel
            .iter()
            .map(Params::total_threads)
            .sum::<usize>()
    }

    /// The thread groups of the run with their share of the range: one group, or the
    /// read and write halves of a mixed run.
    pub fn groups_and_ranges(&self) -> Vec<(&'static str, usize, u64)> {
        match self.operation {
            Operation::Read | Operation::Latency => vec![("read", self.threads, self.memory_range)],
            Operation::Write => vec![("write", self.threads, self.memory_range)],
            Operation::Mixed => vec![
                ("read", self.threads, self.memory_range / 2),
                ("write", self.write_threads, self.memory_range / 2),
            ],
        }
    }
}

/// Everything one `pmolap membench` invocation measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Results {
    /// Kind `membench`; `partial` when the sweep was interrupted (SIGINT/SIGTERM): `runs`
    /// then holds only what finished (the last run possibly with fewer repetitions than
    /// `params.reps`).
    #[serde(flatten)]
    pub header: Header,
    /// Seconds since the Unix epoch when the run started.
    pub started_unix: u64,
    /// The config file the sweep came from, if any.
    pub config_file: Option<String>,
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
    pub region: RegionInfo,
    /// The regions of the parallel groups (`params.parallel`), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parallel_regions: Vec<RegionInfo>,
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
