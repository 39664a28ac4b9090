//! iobench parameters and their YAML/CLI configuration (named benchmarks with `args`
//! and a `matrix`, as for membench).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::size::Size;

pub use crate::membench::config::{name, parse_name};

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

/// One directory or a list of them (pages striped round-robin over the list).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Paths(pub Vec<PathBuf>);

impl<'de> Deserialize<'de> for Paths {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            One(PathBuf),
            Many(Vec<PathBuf>),
        }
        Ok(Paths(match Raw::deserialize(d)? {
            Raw::One(p) => vec![p],
            Raw::Many(v) => v,
        }))
    }
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

crate::sweep::fields! {
    for Params;
    workload: Workload => |p, v| p.workload = v;
    io: IoPath => |p, v| p.io = v;
    path: Paths => |p, v| p.paths = v.0;
    threads: usize => |p, v| p.threads = v;
    page_size: Size => |p, v| p.page_size = v.0;
    file_size: Size => |p, v| p.file_size = v.0;
    write_ratio: f64 => |p, v| p.write_ratio = v;
    pool_size: Size => |p, v| p.pool_size = v.0;
    entry_size: Size => |p, v| p.entry_size = v.0;
    log_file: LogFile => |p, v| p.log_file = v;
    log_size: Size => |p, v| p.log_size = v.0;
    queue_depth: u32 => |p, v| p.queue_depth = v;
    sync: bool => |p, v| p.sync = v;
    drop_cache: bool => |p, v| p.drop_cache = v;
    scramble: bool => |p, v| p.scramble = v;
    prefault: bool => |p, v| p.prefault = v;
    readahead: Readahead => |p, v| p.readahead = v;
    bytes: Size => |p, v| p.bytes = Some(v.0);
    duration: f64 => |p, v| p.duration_s = Some(v);
    reps: usize => |p, v| p.reps = v;
    seed: u64 => |p, v| p.seed = v;
}

/// One named benchmark: fixed `args` and a `matrix` to sweep.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Section {
    #[serde(default)]
    pub args: Args,
    #[serde(default)]
    pub matrix: Matrix,
}

/// A config file: named benchmarks, in file order.
#[derive(Debug, Clone, Default)]
pub struct Config {
    pub benchmarks: Vec<(String, Section)>,
}

impl Config {
    /// Parses YAML text; errors name the file and line.
    pub fn parse(text: &str, file: &Path) -> Result<Config> {
        Ok(Config {
            benchmarks: crate::sweep::parse(text, file)?,
        })
    }

    /// Reads and parses a YAML config file.
    pub fn load(path: &Path) -> Result<Config> {
        Ok(Config {
            benchmarks: crate::sweep::load(path)?,
        })
    }

    /// Expands every benchmark's matrix into parameter sets, in order; `overrides`
    /// (command-line flags) win over the file. A sweep of more than
    /// [`crate::sweep::MAX_COMBINATIONS`] is refused before any combination is built.
    pub fn expand(&self, overrides: &Args) -> Result<Vec<(String, Params)>> {
        let mut budget = crate::sweep::MAX_COMBINATIONS;
        let mut out = Vec::new();
        for (name, s) in &self.benchmarks {
            for c in crate::sweep::cross(name, s.matrix.axes(), Args::merged, &mut budget)? {
                out.push((name.clone(), resolve(&s.args.merged(&c).merged(overrides))));
            }
        }
        Ok(out)
    }
}

/// Params from defaults plus `args`.
pub fn resolve(args: &Args) -> Params {
    let mut p = Params::default();
    args.apply(&mut p);
    p
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

    /// Checks what can be checked without the filesystem; each problem is one line.
    pub fn validate_shape(&self, bench: &str) -> Result<()> {
        let bad = |msg: String| {
            Err(Error::Invalid {
                bench: bench.to_string(),
                msg,
            })
        };
        if self.paths.is_empty() {
            return bad("path: give at least one directory".into());
        }
        if self.threads == 0 {
            return bad("threads must be at least 1".into());
        }
        if self.reps == 0 {
            return bad("reps must be at least 1".into());
        }
        if let Some(d) = self.duration_s {
            if !(d > 0.0 && d.is_finite()) {
                return bad(format!("duration {d} must be a positive number of seconds"));
            }
        }
        if self.bytes == Some(0) {
            return bad("bytes must be positive".into());
        }
        if !(0.0..=1.0).contains(&self.write_ratio) {
            return bad(format!(
                "write_ratio {} must be between 0 and 1 (0.2: every fifth operation writes)",
                self.write_ratio
            ));
        }
        if self.io.is_uring() && self.queue_depth == 0 {
            return bad("queue_depth must be at least 1".into());
        }
        if !self.io.is_uring() && self.queue_depth > 1 {
            return bad(format!(
                "queue_depth {} applies to io-uring paths only, not {}",
                self.queue_depth,
                name(&self.io)
            ));
        }
        if self.prefault && !self.io.is_mapped() {
            return bad(format!(
                "prefault applies to the mmap and pmem paths only, not {}",
                name(&self.io)
            ));
        }
        match self.workload {
            Workload::TableScan | Workload::BufferManager => {
                let page = self.page_size;
                let stripe = page * self.paths.len() as u64;
                if page == 0 {
                    return bad("page_size must be positive".into());
                }
                if self.file_size < stripe || !self.file_size.is_multiple_of(stripe) {
                    return bad(format!(
                        "file_size {} must be a positive multiple of page_size × paths ({page} × {} = {stripe})",
                        self.file_size,
                        self.paths.len()
                    ));
                }
                if self.workload == Workload::TableScan && self.write_ratio > 0.0 {
                    return bad("write_ratio applies to the buffer-manager workload only".into());
                }
                if self.workload == Workload::BufferManager {
                    if self.pool_size < page {
                        return bad(format!(
                            "pool_size {} holds no {page}-byte page",
                            self.pool_size
                        ));
                    }
                    if self.io.is_uring() && (self.pool_size / page) < self.queue_depth as u64 {
                        return bad(format!(
                            "pool_size {} holds fewer pages than queue_depth {}",
                            self.pool_size, self.queue_depth
                        ));
                    }
                }
            }
            Workload::Logging => {
                if self.io.is_uring() && self.queue_depth > 1 {
                    return bad(format!(
                        "queue_depth {} with logging: each entry is persisted before the next, so at most one request is in flight (use 1)",
                        self.queue_depth
                    ));
                }
                if self.entry_size == 0 {
                    return bad("entry_size must be positive".into());
                }
                if self.write_ratio > 0.0 {
                    return bad("write_ratio applies to the buffer-manager workload only".into());
                }
                if self.log_file == LogFile::Recycled
                    && (self.log_size < self.entry_size
                        || !self.log_size.is_multiple_of(self.entry_size))
                {
                    return bad(format!(
                        "log_size {} must be a positive multiple of entry_size {}",
                        self.log_size, self.entry_size
                    ));
                }
                if self.log_file == LogFile::New && self.io.is_mapped() {
                    return bad(format!(
                        "the {} path maps a preallocated file: use log_file recycled (a new, growing log cannot be mapped)",
                        name(&self.io)
                    ));
                }
            }
        }
        Ok(())
    }
}
