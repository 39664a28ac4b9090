//! membench parameters and their YAML/CLI configuration.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::size::Size;
use pmolap_tier::region::HugePages;
use pmolap_tier::topology::Topology;
use pmolap_tier::{PersistMode, Pinning, TierSpec};

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

/// Parses one of the lowercase/kebab-case names of a config enum (`read`, `nt-store`, ...).
pub fn parse_name<T: serde::de::DeserializeOwned>(s: &str) -> Result<T, String> {
    serde_json::from_value(serde_json::Value::String(s.to_string())).map_err(|e| {
        let msg = e.to_string();
        // serde says "unknown variant `x`, expected one of `a`, `b`": keep that part.
        msg.split(" at line").next().unwrap_or(&msg).to_string()
    })
}

crate::sweep::fields! {
    for Params;
    operation: Operation => |p, v| p.operation = v;
    pattern: Pattern => |p, v| p.pattern = v;
    distribution: Distribution => |p, v| p.distribution = v;
    zipf_s: f64 => |p, v| p.zipf_s = v;
    access_mode: AccessMode => |p, v| p.access_mode = v;
    access_size: Size => |p, v| p.access_size = v.0;
    threads: usize => |p, v| p.threads = v;
    write_threads: usize => |p, v| p.write_threads = v;
    pinning: Pinning => |p, v| p.pinning = v;
    tier: TierSpec => |p, v| p.tier = v;
    memory_range: Size => |p, v| p.memory_range = v.0;
    thread_node: u32 => |p, v| p.thread_node = Some(v);
    persist: PersistMode => |p, v| p.persist = v;
    sfence: bool => |p, v| p.sfence = v;
    duration: f64 => |p, v| p.duration_s = Some(v);
    bytes: Size => |p, v| p.bytes = Some(v.0);
    reps: usize => |p, v| p.reps = v;
    huge_pages: HugePages => |p, v| p.huge_pages = v;
    prefault: bool => |p, v| p.prefault = v;
    warmup: bool => |p, v| p.warmup = v;
    kernel: String => |p, v| p.kernel = v;
    overwrite: bool => |p, v| p.overwrite = v;
}

/// One named benchmark of a config file: fixed `args` and a `matrix` to sweep; with
/// `parallel`, each combination runs one thread group per entry at the same time, each
/// entry's keys overriding `args` and the matrix for its group.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Section {
    #[serde(default)]
    pub args: Args,
    #[serde(default)]
    pub matrix: Matrix,
    #[serde(default)]
    pub parallel: Vec<Args>,
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

    /// Expands every benchmark's matrix into concrete parameter sets, in order.
    /// `overrides` (e.g. `--duration`, `--reps` from the command line) win over the file.
    /// A sweep of more than [`crate::sweep::MAX_COMBINATIONS`] is refused before any
    /// combination is built.
    pub fn expand(&self, overrides: &Args) -> Result<Vec<(String, Params)>> {
        let mut budget = crate::sweep::MAX_COMBINATIONS;
        let mut out = Vec::new();
        for (name, s) in &self.benchmarks {
            for p in expand_section(name, s, overrides, &mut budget)? {
                out.push((name.clone(), p));
            }
        }
        Ok(out)
    }
}

fn expand_section(
    name: &str,
    s: &Section,
    overrides: &Args,
    budget: &mut u64,
) -> Result<Vec<Params>> {
    let combos = crate::sweep::cross(name, s.matrix.axes(), Args::merged, budget)?;
    let one = |a: &Args| {
        let mut p = resolve(&a.merged(overrides));
        // A limit given on the command line replaces the file's other kind of limit.
        if overrides.duration.is_some() {
            p.bytes = None;
        } else if overrides.bytes.is_some() {
            p.duration_s = None;
        }
        p
    };
    Ok(combos
        .iter()
        .map(|c| {
            let base = s.args.merged(c);
            if s.parallel.is_empty() {
                return one(&base);
            }
            let mut groups: Vec<Params> = s.parallel.iter().map(|g| one(&base.merged(g))).collect();
            let mut first = groups.remove(0);
            first.parallel = groups;
            first
        })
        .collect())
}

/// Params from defaults plus `args`; fills the default duration when no limit is set.
pub fn resolve(args: &Args) -> Params {
    let mut p = Params::default();
    args.apply(&mut p);
    if p.duration_s.is_none() && p.bytes.is_none() {
        p.duration_s = Some(DEFAULT_DURATION_S);
    }
    p
}

impl Params {
    /// Checks the combination before anything is allocated; each problem is one line
    /// naming the benchmark and the offending value.
    pub fn validate(&self, bench: &str, topo: &Topology) -> Result<()> {
        self.validate_one(bench, topo)?;
        for (k, g) in self.parallel.iter().enumerate() {
            let name = format!("{bench} (parallel group {})", k + 2);
            if !g.parallel.is_empty() {
                return Err(Error::Invalid {
                    bench: name,
                    msg: "parallel groups cannot nest".into(),
                });
            }
            g.validate_one(&name, topo)?;
        }
        if !self.parallel.is_empty()
            && std::iter::once(self)
                .chain(&self.parallel)
                .any(|g| matches!(g.operation, Operation::Latency | Operation::Mixed))
        {
            return Err(Error::Invalid {
                bench: bench.to_string(),
                msg: "parallel groups must each be read or write (mixed and latency run alone)"
                    .into(),
            });
        }
        Ok(())
    }

    fn validate_one(&self, bench: &str, topo: &Topology) -> Result<()> {
        let bad = |msg: String| {
            Err(Error::Invalid {
                bench: bench.to_string(),
                msg,
            })
        };
        let size = self.access_size;
        if size < 64 || !size.is_power_of_two() {
            return bad(format!(
                "access_size {size} must be a power of two and at least 64 bytes"
            ));
        }
        let min_threads = if self.operation == Operation::Latency {
            0
        } else {
            1
        };
        if self.threads < min_threads {
            return bad("threads must be at least 1".into());
        }
        if self.operation == Operation::Mixed && self.write_threads == 0 {
            return bad("a mixed run needs write_threads ≥ 1 (and threads ≥ 1 readers)".into());
        }
        if self.operation != Operation::Mixed && self.write_threads != 0 {
            return bad(format!(
                "write_threads is only for operation mixed, not {}",
                name(&self.operation)
            ));
        }
        if self.reps == 0 {
            return bad("reps must be at least 1".into());
        }
        match (self.duration_s, self.bytes) {
            (Some(_), Some(_)) => return bad("give either duration or bytes, not both".into()),
            (Some(d), None) if !(d > 0.0 && d.is_finite()) => {
                return bad(format!("duration {d} must be a positive number of seconds"))
            }
            (None, Some(0)) => return bad("bytes must be positive".into()),
            _ => {}
        }
        if self.distribution == Distribution::Zipf
            && !(self.zipf_s > 0.0 && self.zipf_s.is_finite())
        {
            return bad(format!("zipf_s {} must be positive", self.zipf_s));
        }
        let range = self.memory_range;
        if self.operation == Operation::Latency {
            if range < 2 * size {
                return bad(format!(
                    "memory_range {range} holds fewer than two {size}-byte chase nodes"
                ));
            }
            if !range.is_multiple_of(size) {
                return bad(format!(
                    "memory_range {range} is not a multiple of access_size {size}"
                ));
            }
            // The streaming load threads each read their own part of the range in
            // blocks of `LOAD_BLOCK` (or the access size, if larger).
            let block = LOAD_BLOCK.max(size);
            let unit = self.threads as u64 * block;
            if self.threads > 0 && !range.is_multiple_of(unit) {
                return bad(format!(
                    "memory_range {range} is not a multiple of threads × {block} ({} × {block} = {unit}): a latency run's {} load threads each stream their own part of the range in {block}-byte blocks",
                    self.threads, self.threads
                ));
            }
        } else {
            for (role, threads, part) in self.groups_and_ranges() {
                let unit = threads as u64 * size;
                if part == 0 || part % unit != 0 {
                    return bad(format!(
                        "memory_range {range} is not a multiple of threads × access_size ({threads} × {size} = {unit}){}",
                        if self.operation == Operation::Mixed { format!(" for the {role} half") } else { String::new() }
                    ));
                }
            }
        }
        for node in [self.thread_node, self.tier.node()].into_iter().flatten() {
            if topo.node(node).is_none() {
                let present: Vec<String> = topo.nodes.iter().map(|n| n.id.to_string()).collect();
                return bad(format!(
                    "NUMA node {node} does not exist (nodes: {})",
                    present.join(",")
                ));
            }
        }
        if let Some(n) = self.thread_node {
            if topo.node(n).is_some_and(|nd| nd.cpus.is_empty()) {
                return bad(format!("thread_node {n} has no CPUs (a memory-only node)"));
            }
        }
        if let TierSpec::DevDax { path } = &self.tier {
            pmolap_tier::region::open_devdax(path)?;
        }
        if let TierSpec::File { path } = &self.tier {
            // The same refusal the region would give, before anything runs.
            if !self.overwrite && !path.is_dir() && path.symlink_metadata().is_ok() {
                return Err(pmolap_os::Error::Exists(path.clone()).into());
            }
        }
        let available = pmolap_tier::region::capacity(&self.tier)?;
        if range > available {
            return bad(format!(
                "memory_range {range} is larger than {} can hold ({available} bytes available)",
                self.tier
            ));
        }
        Ok(())
    }

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

/// The config name of an enum value (`read`, `nt-store`, ...).
pub fn name<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}
