//! iobench parameters and their YAML/CLI configuration (named benchmarks with `args`
//! and a `matrix`, as for membench).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::size::Size;

pub use pmolap_results::names::{name, parse_name};

pub use pmolap_results::iobench::{IoPath, LogFile, Params, Readahead, Workload};

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

/// Checks what can be checked of `p` without the filesystem; each problem is one line.
pub fn validate_shape(p: &Params, bench: &str) -> Result<()> {
    let bad = |msg: String| {
        Err(Error::Invalid {
            bench: bench.to_string(),
            msg,
        })
    };
    if p.paths.is_empty() {
        return bad("path: give at least one directory".into());
    }
    if p.threads == 0 {
        return bad("threads must be at least 1".into());
    }
    if p.reps == 0 {
        return bad("reps must be at least 1".into());
    }
    if let Some(d) = p.duration_s {
        if !(d > 0.0 && d.is_finite()) {
            return bad(format!("duration {d} must be a positive number of seconds"));
        }
    }
    if p.bytes == Some(0) {
        return bad("bytes must be positive".into());
    }
    if !(0.0..=1.0).contains(&p.write_ratio) {
        return bad(format!(
            "write_ratio {} must be between 0 and 1 (0.2: every fifth operation writes)",
            p.write_ratio
        ));
    }
    if p.io.is_uring() && p.queue_depth == 0 {
        return bad("queue_depth must be at least 1".into());
    }
    if !p.io.is_uring() && p.queue_depth > 1 {
        return bad(format!(
            "queue_depth {} applies to io-uring paths only, not {}",
            p.queue_depth,
            name(&p.io)
        ));
    }
    if p.prefault && !p.io.is_mapped() {
        return bad(format!(
            "prefault applies to the mmap and pmem paths only, not {}",
            name(&p.io)
        ));
    }
    match p.workload {
        Workload::TableScan | Workload::BufferManager => {
            let page = p.page_size;
            let stripe = page * p.paths.len() as u64;
            if page == 0 {
                return bad("page_size must be positive".into());
            }
            if p.file_size < stripe || !p.file_size.is_multiple_of(stripe) {
                return bad(format!(
                    "file_size {} must be a positive multiple of page_size × paths ({page} × {} = {stripe})",
                    p.file_size,
                    p.paths.len()
                ));
            }
            if p.workload == Workload::TableScan && p.write_ratio > 0.0 {
                return bad("write_ratio applies to the buffer-manager workload only".into());
            }
            if p.workload == Workload::BufferManager {
                if p.pool_size < page {
                    return bad(format!(
                        "pool_size {} holds no {page}-byte page",
                        p.pool_size
                    ));
                }
                if p.io.is_uring() && (p.pool_size / page) < p.queue_depth as u64 {
                    return bad(format!(
                        "pool_size {} holds fewer pages than queue_depth {}",
                        p.pool_size, p.queue_depth
                    ));
                }
            }
        }
        Workload::Logging => {
            if p.io.is_uring() && p.queue_depth > 1 {
                return bad(format!(
                    "queue_depth {} with logging: each entry is persisted before the next, so at most one request is in flight (use 1)",
                    p.queue_depth
                ));
            }
            if p.entry_size == 0 {
                return bad("entry_size must be positive".into());
            }
            if p.write_ratio > 0.0 {
                return bad("write_ratio applies to the buffer-manager workload only".into());
            }
            if p.log_file == LogFile::Recycled
                && (p.log_size < p.entry_size || !p.log_size.is_multiple_of(p.entry_size))
            {
                return bad(format!(
                    "log_size {} must be a positive multiple of entry_size {}",
                    p.log_size, p.entry_size
                ));
            }
            if p.log_file == LogFile::New && p.io.is_mapped() {
                return bad(format!(
                    "the {} path maps a preallocated file: use log_file recycled (a new, growing log cannot be mapped)",
                    name(&p.io)
                ));
            }
        }
    }
    Ok(())
}
