//! The iobench result document (`kind` `iobench`): machine and device metadata, per run
//! its parameters ([`Params`], as resolved from the config) and per-repetition figures.
//! Plots are made from this alone.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::header::Header;

/// The format version this build writes and the newest it reads (documents written
/// before the field existed are version 1).
pub const FORMAT_VERSION: u32 = crate::kind::IOBENCH.format_version;

/// The database workload (DaMoN'21 §3.3–§3.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Workload {
    /// Sequential page reads of a per-thread file into one DRAM page buffer.
    TableScan,
    /// Random page-ins and page-outs within the data files through a DRAM buffer pool.
    BufferManager,
    /// Per-thread log of entries, each persisted before the next.
    Logging,
}

/// How pages reach the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IoPath {
    /// `pread`/`pwrite` (+ `fdatasync` to persist) through the page cache.
    Pread,
    /// `pread`/`pwrite` on a file opened with `O_DIRECT` (+ `fdatasync`).
    Direct,
    /// `mmap` + `memcpy` (+ `msync` to persist).
    Mmap,
    /// `MAP_SYNC` mapping of a file on a DAX filesystem: stores + cache-line flush +
    /// fence, no system call (libpmem2-style).
    Pmem,
    /// io_uring reads/writes (+ linked `fdatasync`) with `queue_depth` requests in flight.
    IoUring,
    /// io_uring on a file opened with `O_DIRECT`.
    IoUringDirect,
}

impl IoPath {
    pub fn is_direct(self) -> bool {
        matches!(self, IoPath::Direct | IoPath::IoUringDirect)
    }
    pub fn is_mapped(self) -> bool {
        matches!(self, IoPath::Mmap | IoPath::Pmem)
    }
    pub fn is_uring(self) -> bool {
        matches!(self, IoPath::IoUring | IoPath::IoUringDirect)
    }
}

/// Where a log lives (logging workload).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LogFile {
    /// A newly created, empty file per repetition: every entry appends.
    New,
    /// A preallocated file written in full beforehand (recycled), overwritten in place.
    Recycled,
}

/// The `posix_fadvise` hint given to the data files before a repetition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Readahead {
    /// No hint (the kernel's default readahead).
    Normal,
    /// `POSIX_FADV_SEQUENTIAL` (larger readahead window).
    Sequential,
    /// `POSIX_FADV_RANDOM` (readahead off).
    Random,
}

/// One fully resolved parameter combination.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Params {
    pub workload: Workload,
    pub io: IoPath,
    /// Directories the files go to; with more than one, each thread's pages are
    /// striped round-robin over them (a log goes to directory `thread % n`).
    pub paths: Vec<PathBuf>,
    pub threads: usize,
    /// Bytes per page (table scan, buffer manager).
    pub page_size: u64,
    /// Bytes of data file per thread (over all stripes).
    pub file_size: u64,
    /// Share of buffer-manager operations that are page-outs, 0..=1 (0.2: every fifth).
    pub write_ratio: f64,
    /// Bytes of the DRAM buffer pool per thread (buffer manager).
    pub pool_size: u64,
    /// Bytes per log entry (logging).
    pub entry_size: u64,
    pub log_file: LogFile,
    /// Bytes of a recycled log file per thread (entries wrap around at its end).
    pub log_size: u64,
    /// Requests in flight per thread (io_uring paths).
    pub queue_depth: u32,
    /// Persist every page-out (`fdatasync`, `msync`, or flush + fence). Log entries are
    /// always persisted.
    pub sync: bool,
    /// `fdatasync` + `POSIX_FADV_DONTNEED` on every file before each repetition, so no
    /// repetition reads pages cached by an earlier one.
    pub drop_cache: bool,
    /// Rewrite the data files with fresh random bytes before each repetition (untimed).
    pub scramble: bool,
    /// Fault the mapping in before timing (mmap and pmem paths).
    pub prefault: bool,
    pub readahead: Readahead,
    /// Bytes per thread a repetition moves (default: one pass over the file or log).
    pub bytes: Option<u64>,
    /// Stop a repetition after this many seconds at the latest.
    pub duration_s: Option<f64>,
    pub reps: usize,
    pub seed: u64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            workload: Workload::TableScan,
            io: IoPath::Pread,
            paths: vec![std::env::temp_dir()],
            threads: 1,
            page_size: 4096,
            file_size: 256 << 20,
            write_ratio: 0.0,
            pool_size: 16 << 20,
            entry_size: 128,
            log_file: LogFile::Recycled,
            log_size: 64 << 20,
            queue_depth: 1,
            sync: true,
            drop_cache: true,
            scramble: false,
            prefault: false,
            readahead: Readahead::Normal,
            bytes: None,
            duration_s: None,
            reps: 3,
            seed: 42,
        }
    }
}

impl Params {
    /// Bytes a thread moves per repetition: `bytes`, or one pass over its file (table
    /// scan, buffer manager) or its log.
    pub fn bytes_per_thread(&self) -> u64 {
        self.bytes.unwrap_or(match self.workload {
            Workload::Logging => self.log_size,
            _ => self.file_size,
        })
    }

    /// The unit of one operation: a page or a log entry.
    pub fn op_size(&self) -> u64 {
        match self.workload {
            Workload::Logging => self.entry_size,
            _ => self.page_size,
        }
    }
}

/// Everything one `pmolap iobench` invocation measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Results {
    /// Kind `iobench`; `partial` when the sweep was interrupted (SIGINT/SIGTERM): `runs`
    /// then holds only what finished (the last run possibly with fewer repetitions than
    /// `params.reps`).
    #[serde(flatten)]
    pub header: Header,
    /// Seconds since the Unix epoch when the run started.
    pub started_unix: u64,
    /// Every directory the runs used, with its filesystem and device.
    pub devices: Vec<Device>,
    /// The config file the sweep came from, if any.
    pub config_file: Option<String>,
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
