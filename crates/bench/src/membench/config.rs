//! membench parameters and their YAML/CLI configuration.

use std::path::Path;

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::size::Size;
use pmolap_tier::region::HugePages;
use pmolap_tier::topology::Topology;
use pmolap_tier::{PersistMode, Pinning, TierSpec};

pub use pmolap_results::membench::{
    AccessMode, Distribution, Operation, Params, Pattern, DEFAULT_DURATION_S, LOAD_BLOCK,
};
pub use pmolap_results::names::{name, parse_name};

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

/// Checks the combination `p` before anything is allocated; each problem is one line
/// naming the benchmark and the offending value.
pub fn validate(p: &Params, bench: &str, topo: &Topology) -> Result<()> {
    validate_one(p, bench, topo)?;
    for (k, g) in p.parallel.iter().enumerate() {
        let name = format!("{bench} (parallel group {})", k + 2);
        if !g.parallel.is_empty() {
            return Err(Error::Invalid {
                bench: name,
                msg: "parallel groups cannot nest".into(),
            });
        }
        validate_one(g, &name, topo)?;
    }
    if !p.parallel.is_empty()
        && std::iter::once(p)
            .chain(&p.parallel)
            .any(|g| matches!(g.operation, Operation::Latency | Operation::Mixed))
    {
        return Err(Error::Invalid {
            bench: bench.to_string(),
            msg: "parallel groups must each be read or write (mixed and latency run alone)".into(),
        });
    }
    Ok(())
}

fn validate_one(p: &Params, bench: &str, topo: &Topology) -> Result<()> {
    let bad = |msg: String| {
        Err(Error::Invalid {
            bench: bench.to_string(),
            msg,
        })
    };
    let size = p.access_size;
    if size < 64 || !size.is_power_of_two() {
        return bad(format!(
            "access_size {size} must be a power of two and at least 64 bytes"
        ));
    }
    let min_threads = if p.operation == Operation::Latency {
        0
    } else {
        1
    };
    if p.threads < min_threads {
        return bad("threads must be at least 1".into());
    }
    if p.operation == Operation::Mixed && p.write_threads == 0 {
        return bad("a mixed run needs write_threads ≥ 1 (and threads ≥ 1 readers)".into());
    }
    if p.operation != Operation::Mixed && p.write_threads != 0 {
        return bad(format!(
            "write_threads is only for operation mixed, not {}",
            name(&p.operation)
        ));
    }
    if p.reps == 0 {
        return bad("reps must be at least 1".into());
    }
    match (p.duration_s, p.bytes) {
        (Some(_), Some(_)) => return bad("give either duration or bytes, not both".into()),
        (Some(d), None) if !(d > 0.0 && d.is_finite()) => {
            return bad(format!("duration {d} must be a positive number of seconds"))
        }
        (None, Some(0)) => return bad("bytes must be positive".into()),
        _ => {}
    }
    if p.distribution == Distribution::Zipf && !(p.zipf_s > 0.0 && p.zipf_s.is_finite()) {
        return bad(format!("zipf_s {} must be positive", p.zipf_s));
    }
    let range = p.memory_range;
    if p.operation == Operation::Latency {
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
        let unit = p.threads as u64 * block;
        if p.threads > 0 && !range.is_multiple_of(unit) {
            return bad(format!(
                "memory_range {range} is not a multiple of threads × {block} ({} × {block} = {unit}): a latency run's {} load threads each stream their own part of the range in {block}-byte blocks",
                p.threads, p.threads
            ));
        }
    } else {
        for (role, threads, part) in p.groups_and_ranges() {
            let unit = threads as u64 * size;
            if part == 0 || part % unit != 0 {
                return bad(format!(
                    "memory_range {range} is not a multiple of threads × access_size ({threads} × {size} = {unit}){}",
                    if p.operation == Operation::Mixed { format!(" for the {role} half") } else { String::new() }
                ));
            }
        }
    }
    for node in [p.thread_node, p.tier.node()].into_iter().flatten() {
        if topo.node(node).is_none() {
            let present: Vec<String> = topo.nodes.iter().map(|n| n.id.to_string()).collect();
            return bad(format!(
                "NUMA node {node} does not exist (nodes: {})",
                present.join(",")
            ));
        }
    }
    if let Some(n) = p.thread_node {
        if topo.node(n).is_some_and(|nd| nd.cpus.is_empty()) {
            return bad(format!("thread_node {n} has no CPUs (a memory-only node)"));
        }
    }
    if let TierSpec::DevDax { path } = &p.tier {
        pmolap_tier::region::open_devdax(path)?;
    }
    if let TierSpec::File { path } = &p.tier {
        // The same refusal the region would give, before anything runs.
        if !p.overwrite && !path.is_dir() && path.symlink_metadata().is_ok() {
            return Err(pmolap_os::Error::Exists(path.clone()).into());
        }
    }
    let available = pmolap_tier::region::capacity(&p.tier)?;
    if range > available {
        return bad(format!(
            "memory_range {range} is larger than {} can hold ({available} bytes available)",
            p.tier
        ));
    }
    Ok(())
}
