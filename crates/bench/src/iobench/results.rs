//! The iobench result document: config, machine and device metadata, per-repetition
//! figures. Plots are made from this alone.

use serde::{Deserialize, Serialize};

use crate::iobench::config::Params;
use crate::machine::Machine;

/// The format version this build writes and the newest it reads (documents written
/// before the field existed are version 1).
pub const FORMAT_VERSION: u32 = 1;

fn version_1() -> u32 {
    1
}

/// Everything one `pmolap iobench` invocation measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Results {
    /// Always `"iobench"`.
    pub kind: String,
    /// [`FORMAT_VERSION`] of the writer.
    #[serde(default = "version_1")]
    pub format_version: u32,
    pub pmolap_version: String,
    /// Seconds since the Unix epoch when the run started.
    pub started_unix: u64,
    pub machine: Machine,
    /// Every directory the runs used, with its filesystem and device.
    pub devices: Vec<Device>,
    /// The config file the sweep came from, if any.
    pub config_file: Option<String>,
    /// True when the sweep was interrupted (SIGINT/SIGTERM): `runs` holds only what
    /// finished (the last run possibly with fewer repetitions than `params.reps`).
    #[serde(default)]
    pub partial: bool,
    pub runs: Vec<Run>,
}

/// A directory files were put in, and what holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Device {
    pub path: String,
    /// Filesystem type (`ext4`, `xfs`, `tmpfs`, ...), if the mount is known.
    pub filesystem: Option<String>,
    pub mount_point: Option<String>,
    pub mount_options: Option<String>,
    /// The mounted block device (`/dev/nvme0n1p1`) or the tmpfs name.
    pub device: Option<String>,
    /// From `/sys/class/block/DEV/queue/rotational` (None: not a block device).
    pub rotational: Option<bool>,
    /// Mounted with DAX (fsdax): `MAP_SYNC` works, the page cache is bypassed.
    pub dax: bool,
    /// From `/sys/class/block/DEV/queue/logical_block_size` (None: not a block device).
    pub logical_block_size: Option<u64>,
}

/// One parameter combination, measured `reps` times.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Run {
    /// The benchmark's name in the config (or `cli`).
    pub name: String,
    pub params: Params,
    /// Files per thread (stripes), and their directories' devices.
    pub files_per_thread: usize,
    /// Things worth knowing about how this run could be done (one line each).
    pub notes: Vec<String>,
    pub reps: Vec<Rep>,
    pub summary: Summary,
}

/// One repetition.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Rep {
    pub bytes: u64,
    pub ops: u64,
    pub reads: u64,
    pub writes: u64,
    /// From the common start of all threads to the last one's end.
    pub seconds: f64,
    pub bandwidth_gib_s: f64,
    pub ops_per_s: f64,
    pub latency: Latency,
    pub per_thread: Vec<ThreadResult>,
}

/// One thread's figures.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ThreadResult {
    pub thread: usize,
    pub bytes: u64,
    pub ops: u64,
    pub seconds: f64,
    pub bandwidth_gib_s: f64,
}

/// Per-operation latency (page read/write or persisted log entry, incl. its persist),
/// in nanoseconds, over all threads.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Latency {
    pub mean_ns: f64,
    pub p50_ns: f64,
    pub p90_ns: f64,
    pub p99_ns: f64,
    pub p999_ns: f64,
    pub max_ns: f64,
}

/// Medians over the repetitions.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Summary {
    pub bandwidth_gib_s_median: f64,
    pub bandwidth_gib_s_min: f64,
    pub bandwidth_gib_s_max: f64,
    pub ops_per_s_median: f64,
    pub latency_p50_ns_median: f64,
    pub latency_p99_ns_median: f64,
}
