//! Runs membench parameter sets: places threads, splits the range into per-thread work,
//! times the repetitions, and collects the figures.
//!
//! Untimed: region allocation and prefault, random-offset generation, ring building, the
//! warm-up pass. Timed: from a gate that releases all threads of all groups together
//! to each thread's last access.
//!
//! SIGINT/SIGTERM ([`pmolap_os::signal`]) are polled once per batch of accesses (a few
//! MiB: no measurable cost) and between repetitions and runs; an interrupted sweep keeps
//! the repetitions that finished, drops the one cut short, and is marked partial.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use pmolap_os::signal::interrupted;
use pmolap_results::{kind, Header, Machine};
use pmolap_tier::kernel::{AccessOp, Isa, Kernel};
use pmolap_tier::pin::pin_current_thread;
use pmolap_tier::region::{HugePages, Region, RegionInfo, RegionOptions};
use pmolap_tier::topology::Topology;
use pmolap_tier::{ExistingFile, MemView, Pinning, TierSpec};

use crate::error::{Error, Result};
use crate::membench::config::{AccessMode, Distribution, Operation, Params, Pattern};
use crate::membench::latency;
use crate::membench::results::{GroupResult, Rep, Results, Run, Summary, ThreadResult};
use crate::threads::{self, Gate};

/// How a sweep is run.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Show a progress bar.
    pub progress: bool,
    /// Allow thread counts far above the logical CPUs ([`threads::check_count`]).
    pub oversubscribe: bool,
}

/// Bytes each thread accesses between two looks at the clock.
const BATCH_BYTES: usize = 4 << 20;
/// Most random offsets generated per group (they cycle); enough to span far beyond the LLC.
const MAX_OFFSETS_PER_GROUP: usize = 1 << 22;
/// Bytes per thread a warm-up pass covers at most.
const WARMUP_BYTES_PER_THREAD: usize = 256 << 20;

/// How a repetition ends.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Limit {
    Duration(Duration),
    /// Bytes per thread.
    Bytes(u64),
}

/// What one thread does: a strided walk over chunks, or a list of random offsets.
#[derive(Debug, Clone)]
pub(crate) enum Plan {
    /// Chunk `j` (of `chunks`) starts at `base + j * stride`.
    Strided {
        base: usize,
        stride: usize,
        chunks: usize,
    },
    Offsets(Vec<usize>),
}

/// One worker thread's job.
#[derive(Debug, Clone)]
pub(crate) struct Worker {
    /// Index of the thread group (over all parallel groups of the run).
    pub group: usize,
    /// Index of the region (view) the worker accesses.
    pub region: usize,
    pub index: usize,
    pub cpus: Vec<usize>,
    pub kernel: Kernel,
    pub plan: Plan,
}

/// What one worker measured.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Outcome {
    pub bytes: u64,
    pub start: Instant,
    pub end: Instant,
    /// Fold of the data read, kept so loads cannot be optimized away.
    pub fold: u64,
}

impl Worker {
    /// Runs the plan until `limit` (or until `stop` is set or an interrupt arrives),
    /// from the `gate` on.
    pub(crate) fn run(
        &self,
        view: &MemView<'_>,
        limit: Limit,
        gate: &Gate,
        stop: &AtomicBool,
    ) -> Result<Outcome> {
        pin_current_thread(&self.cpus)?;
        let size = self.kernel.access_size();
        let per_batch = (BATCH_BYTES / size).max(1);
        let target_chunks = match limit {
            Limit::Bytes(b) => Some((b / size as u64).max(1)),
            Limit::Duration(_) => None,
        };
        let deadline = match limit {
            Limit::Duration(d) => Some(d),
            Limit::Bytes(_) => None,
        };
        if !gate.wait() {
            return Err(threads::called_off());
        }
        let start = Instant::now();
        let mut done: u64 = 0;
        let mut pos = 0usize;
        let mut fold = 0u64;
        loop {
            let mut n = per_batch as u64;
            if let Some(t) = target_chunks {
                n = n.min(t - done);
            }
            match &self.plan {
                Plan::Strided {
                    base,
                    stride,
                    chunks,
                } => {
                    let n = (n as usize).min(chunks - pos);
                    fold ^= self
                        .kernel
                        .run_strided(view, base + pos * stride, *stride, n)?;
                    pos = (pos + n) % chunks;
                    done += n as u64;
                }
                Plan::Offsets(offs) => {
                    let n = (n as usize).min(offs.len() - pos);
                    fold ^= self.kernel.run_offsets(view, &offs[pos..pos + n])?;
                    pos = (pos + n) % offs.len();
                    done += n as u64;
                }
            }
            if target_chunks.is_some_and(|t| done >= t)
                || deadline.is_some_and(|d| start.elapsed() >= d)
                || stop.load(Ordering::Relaxed)
                || interrupted()
            {
                break;
            }
        }
        Ok(Outcome {
            bytes: done * size as u64,
            start,
            end: Instant::now(),
            fold: std::hint::black_box(fold),
        })
    }
}

/// Runs all workers at once and returns their outcomes in order.
pub(crate) fn execute(
    workers: &[Worker],
    views: &[MemView<'_>],
    limit: &(dyn Fn(&Worker) -> Limit + Sync),
) -> Result<Vec<Outcome>> {
    let stop = AtomicBool::new(false);
    let jobs: Vec<&Worker> = workers.iter().collect();
    let outcomes = threads::run_gated("membench worker", jobs, |w, gate| {
        w.run(&views[w.region], limit(w), gate, &stop)
    })?;
    std::hint::black_box(outcomes.iter().fold(0, |a, o| a ^ o.fold));
    Ok(outcomes)
}

/// The NUMA node threads run on: the configured one; else the tier's node if it has
/// CPUs (near access); else, on a multi-node machine, the node holding most of the
/// region's sampled pages (so pinned threads sit next to their memory, as in the paper);
/// else any.
pub(crate) fn thread_node(p: &Params, topo: &Topology, region: &RegionInfo) -> Option<u32> {
    let has_cpus = |n: &u32| topo.node(*n).is_some_and(|nd| !nd.cpus.is_empty());
    p.thread_node
        .or_else(|| p.tier.node().filter(has_cpus))
        .or_else(|| {
            if topo.nodes.len() < 2 || p.pinning == Pinning::None {
                return None;
            }
            let res = region.residency.as_ref()?;
            res.per_node
                .iter()
                .max_by_key(|(_, pages)| **pages)
                .map(|(n, _)| *n)
                .filter(has_cpus)
        })
}

/// A thread group of a run: what `group_results` needs to report it.
#[derive(Debug, Clone)]
pub(crate) struct GroupSpec {
    pub role: &'static str,
    pub threads: usize,
    pub tier: TierSpec,
    pub node: Option<u32>,
}

/// Builds the workers of every group of `p` on its region (`region` indexes the views),
/// numbering groups from `first_group`. `taken` counts the CPUs already handed out per
/// node, so parallel groups on one node get different cores.
#[allow(clippy::too_many_arguments)]
pub(crate) fn plan_workers(
    p: &Params,
    topo: &Topology,
    node: Option<u32>,
    isa: Isa,
    region: usize,
    first_group: usize,
    taken: &mut Vec<(Option<u32>, usize)>,
    specs: &mut Vec<GroupSpec>,
) -> Result<Vec<Worker>> {
    let groups = p.groups_and_ranges();
    let total: usize = groups.iter().map(|(_, t, _)| t).sum();
    let slot = match taken.iter().position(|(n, _)| *n == node) {
        Some(i) => i,
        None => {
            taken.push((node, 0));
            taken.len() - 1
        }
    };
    let skip = taken[slot].1;
    let cpus = p.pinning.plan(topo, node, skip + total)?;
    taken[slot].1 += total;
    let size = p.access_size as usize;
    let mut workers = Vec::with_capacity(total);
    let mut group_base = 0usize;
    let mut next_cpu = skip;
    for (k, (role, threads, range)) in groups.into_iter().enumerate() {
        let g = first_group + k;
        specs.push(GroupSpec {
            role,
            threads,
            tier: p.tier.clone(),
            node,
        });
        let op = if role == "write" {
            AccessOp::Write {
                persist: p.persist,
                sfence: p.sfence,
            }
        } else {
            AccessOp::Read
        };
        let kernel = Kernel::new(isa, op, size, &topo.cpu_features)?;
        let range = range as usize;
        let part = range / threads;
        for i in 0..threads {
            let plan = match (p.pattern, p.access_mode) {
                (Pattern::Sequential, AccessMode::Individual) => Plan::Strided {
                    base: group_base + i * part,
                    stride: size,
                    chunks: part / size,
                },
                (Pattern::Sequential, AccessMode::Grouped) => Plan::Strided {
                    base: group_base + i * size,
                    stride: threads * size,
                    chunks: range / (threads * size),
                },
                (Pattern::Random, mode) => {
                    let (base, span) = match mode {
                        AccessMode::Individual => (group_base + i * part, part),
                        AccessMode::Grouped => (group_base, range),
                    };
                    let seed = 0x5eed_0000 + (g as u64) * 65_536 + i as u64;
                    Plan::Offsets(random_offsets(p, base, span, threads, seed)?)
                }
            };
            workers.push(Worker {
                group: g,
                region,
                index: i,
                cpus: cpus[next_cpu].clone(),
                kernel,
                plan,
            });
            next_cpu += 1;
        }
        group_base += range;
    }
    Ok(workers)
}

/// Access-size aligned offsets in `base..base+span`, uniform or Zipf-distributed (hot
/// chunks scattered over the span by a multiplicative hash).
fn random_offsets(
    p: &Params,
    base: usize,
    span: usize,
    threads: usize,
    seed: u64,
) -> Result<Vec<usize>> {
    let size = p.access_size as usize;
    let chunks = span / size;
    let count = chunks.clamp(1, (MAX_OFFSETS_PER_GROUP / threads).max(1 << 16));
    let mut rng = SmallRng::seed_from_u64(seed);
    let offsets = match p.distribution {
        Distribution::Uniform => (0..count)
            .map(|_| base + rng.gen_range(0..chunks) * size)
            .collect(),
        Distribution::Zipf => {
            let zipf =
                rand_distr::Zipf::new(chunks as u64, p.zipf_s).map_err(|e| Error::Invalid {
                    bench: "zipf".into(),
                    msg: format!("zipf_s {}: {e}", p.zipf_s),
                })?;
            (0..count)
                .map(|_| {
                    let rank = rng.sample(zipf) as u64 - 1;
                    let scattered = rank.wrapping_mul(0x9E37_79B9_7F4A_7C15) % chunks as u64;
                    base + scattered as usize * size
                })
                .collect()
        }
    };
    Ok(offsets)
}

/// The limit of one worker in a repetition: the run's duration, or its byte budget
/// (per group) split over the group's threads. The first group's limits apply to all.
pub(crate) fn limit_of(p: &Params, specs: &[GroupSpec], w: &Worker) -> Limit {
    match p.bytes {
        Some(b) => {
            let threads = specs[w.group].threads.max(1) as u64;
            Limit::Bytes((b / threads).max(p.access_size))
        }
        None => Limit::Duration(Duration::from_secs_f64(
            p.duration_s.unwrap_or(super::config::DEFAULT_DURATION_S),
        )),
    }
}

fn gib_s(bytes: u64, secs: f64) -> f64 {
    if secs > 0.0 {
        bytes as f64 / secs / (1u64 << 30) as f64
    } else {
        0.0
    }
}

/// Turns worker outcomes into per-group figures.
fn group_results(
    specs: &[GroupSpec],
    workers: &[Worker],
    outcomes: &[Outcome],
) -> Vec<GroupResult> {
    specs
        .iter()
        .enumerate()
        .map(|(g, spec)| {
            let mine: Vec<(&Worker, &Outcome)> = workers
                .iter()
                .zip(outcomes)
                .filter(|(w, _)| w.group == g)
                .collect();
            let start = mine.iter().map(|(_, o)| o.start).min();
            let end = mine.iter().map(|(_, o)| o.end).max();
            let seconds = match (start, end) {
                (Some(s), Some(e)) => (e - s).as_secs_f64(),
                _ => 0.0,
            };
            let bytes = mine.iter().map(|(_, o)| o.bytes).sum();
            GroupResult {
                role: spec.role.to_string(),
                threads: spec.threads,
                tier: Some(spec.tier.to_string()),
                thread_node: spec.node,
                bytes,
                seconds,
                bandwidth_gib_s: gib_s(bytes, seconds),
                per_thread: mine
                    .iter()
                    .map(|(w, o)| {
                        let s = (o.end - o.start).as_secs_f64();
                        ThreadResult {
                            thread: w.index,
                            cpus: w.cpus.clone(),
                            bytes: o.bytes,
                            seconds: s,
                            bandwidth_gib_s: gib_s(o.bytes, s),
                        }
                    })
                    .collect(),
            }
        })
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

fn summarize(reps: &[Rep]) -> Summary {
    let bw: Vec<f64> = reps.iter().map(|r| r.bandwidth_gib_s).collect();
    // Per repetition, the sum over the groups of a role; then the median.
    let role = |name: &str| -> Option<f64> {
        let v: Vec<f64> = reps
            .iter()
            .filter(|r| r.groups.iter().any(|g| g.role == name))
            .map(|r| {
                r.groups
                    .iter()
                    .filter(|g| g.role == name)
                    .map(|g| g.bandwidth_gib_s)
                    .sum()
            })
            .collect();
        (!v.is_empty()).then(|| median(v))
    };
    let lat: Vec<f64> = reps
        .iter()
        .filter_map(|r| r.latency.as_ref().map(|l| l.p50_ns))
        .collect();
    Summary {
        bandwidth_gib_s_median: median(bw.clone()),
        bandwidth_gib_s_min: bw
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min)
            .min(f64::MAX),
        bandwidth_gib_s_max: bw.iter().copied().fold(0.0, f64::max),
        read_gib_s_median: role("read"),
        write_gib_s_median: role("write"),
        latency_p50_ns_median: (!lat.is_empty()).then(|| median(lat)),
    }
}

/// Key under which a region can be reused by the next run of a sweep.
#[derive(Debug, Clone, PartialEq)]
struct RegionKey {
    tier: TierSpec,
    len: u64,
    huge: HugePages,
    prefault: bool,
    overwrite: bool,
}

/// Runs one parameter set on `region` (already of the right size); parallel groups
/// (`p.parallel`) get regions of their own, made here.
fn run_one(
    name: &str,
    p: &Params,
    topo: &Topology,
    region: &mut Region,
    tick: &dyn Fn(),
) -> Result<Run> {
    let isa = Isa::select(&p.kernel, &topo.cpu_features)?;
    let info = region.info().clone();
    let node = thread_node(p, topo, &info);
    let mut reps = Vec::with_capacity(p.reps);
    let mut taken = Vec::new();
    let mut specs = Vec::new();
    let kernel_name;
    let mut extra: Vec<Region> = Vec::with_capacity(p.parallel.len());
    for q in &p.parallel {
        let mut r = Region::new(&q.tier, q.memory_range as usize, &region_options(q))?;
        fill(&mut r)?;
        extra.push(r);
    }
    let parallel_regions: Vec<RegionInfo> = extra.iter().map(|r| r.info().clone()).collect();
    if p.operation == Operation::Latency {
        let view = region.view();
        let chase = latency::Chase::build(&view, p)?;
        let load = if p.threads > 0 {
            let mut lp = p.clone();
            lp.operation = Operation::Read;
            lp.pattern = Pattern::Sequential;
            lp.access_mode = AccessMode::Individual;
            lp.access_size = super::config::LOAD_BLOCK.max(p.access_size);
            // The chase thread takes the first CPU of the node; loaders the next ones.
            taken.push((node, 1));
            Some(plan_workers(
                &lp, topo, node, isa, 0, 0, &mut taken, &mut specs,
            )?)
        } else {
            None
        };
        kernel_name = match &load {
            Some(w) => format!("pointer chase + {}", w[0].kernel.name()),
            None => "pointer chase".to_string(),
        };
        let chase_cpus = p.pinning.plan(topo, node, 1)?;
        if p.warmup {
            chase.warm_up(&view)?;
        }
        for _ in 0..p.reps {
            if interrupted() {
                break;
            }
            let (mut lat, load_bw) = chase.measure(&view, p, &chase_cpus[0], load.as_deref())?;
            if interrupted() {
                break; // cut short: not a measurement
            }
            lat.load_bandwidth_gib_s = load_bw;
            reps.push(Rep {
                groups: Vec::new(),
                bandwidth_gib_s: load_bw.unwrap_or(0.0),
                latency: Some(lat),
            });
            tick();
        }
    } else {
        let mut workers = plan_workers(p, topo, node, isa, 0, 0, &mut taken, &mut specs)?;
        for (k, (q, r)) in p.parallel.iter().zip(&extra).enumerate() {
            let qnode = thread_node(q, topo, r.info());
            let qisa = Isa::select(&q.kernel, &topo.cpu_features)?;
            let first = specs.len();
            workers.extend(plan_workers(
                q,
                topo,
                qnode,
                qisa,
                k + 1,
                first,
                &mut taken,
                &mut specs,
            )?);
        }
        kernel_name = workers[0].kernel.name();
        let mut views = vec![region.view()];
        views.extend(extra.iter_mut().map(|r| r.view()));
        if p.warmup && !interrupted() {
            let per_thread = (p.memory_range as usize / workers.len()).min(WARMUP_BYTES_PER_THREAD);
            execute(&workers, &views, &|_| Limit::Bytes(per_thread as u64))?;
        }
        for _ in 0..p.reps {
            if interrupted() {
                break;
            }
            let outcomes = execute(&workers, &views, &|w| limit_of(p, &specs, w))?;
            if interrupted() {
                break; // cut short: not a measurement
            }
            let groups = group_results(&specs, &workers, &outcomes);
            reps.push(Rep {
                bandwidth_gib_s: groups.iter().map(|g| g.bandwidth_gib_s).sum(),
                groups,
                latency: None,
            });
            tick();
        }
    }
    let summary = summarize(&reps);
    Ok(Run {
        name: name.to_string(),
        params: p.clone(),
        kernel: format!("{isa}: {kernel_name}"),
        region: info,
        parallel_regions,
        thread_node: node,
        reps,
        summary,
    })
}

fn region_options(p: &Params) -> RegionOptions {
    RegionOptions {
        huge_pages: p.huge_pages,
        prefault: p.prefault,
        keep_file: false,
        // An existing file is the user's: used (and overwritten) only when asked.
        existing: if p.overwrite {
            ExistingFile::Use
        } else {
            ExistingFile::Refuse
        },
        // The measured region: its huge pages go into the result.
        huge_page_census: true,
    }
}

/// Every check a run makes before it measures, for all of `runs`: the parameters
/// ([`validate`](super::config::validate)), the kernel and persist instruction against this CPU, and the
/// number of threads against its logical CPUs. `--dry-run` and [`run_all`] both call it.
pub fn validate_all(runs: &[(String, Params)], topo: &Topology, opts: &RunOptions) -> Result<()> {
    for (name, p) in runs {
        super::config::validate(p, name, topo)?;
        threads::check_count(name, p.total_threads(), topo.cpus.len(), opts.oversubscribe)?;
        for g in std::iter::once(p).chain(&p.parallel) {
            Isa::select(&g.kernel, &topo.cpu_features)?;
            g.persist.check(&topo.cpu_features)?;
        }
    }
    Ok(())
}

/// Runs a whole sweep: validates every parameter set first (nothing runs if one is
/// bad), then runs them in order, reusing a region when consecutive runs want the same
/// one. `on_run` sees each finished run (printed above the progress bar).
///
/// On SIGINT/SIGTERM the sweep stops at the next safe point: the results hold the runs
/// that finished (the current one with the repetitions it finished, if any) and are
/// marked `partial`; if nothing finished, the error is [`pmolap_os::Error::Interrupted`].
pub fn run_all(
    runs: &[(String, Params)],
    topo: &Topology,
    config_file: Option<String>,
    opts: &RunOptions,
    mut on_run: impl FnMut(&Run),
) -> Result<Results> {
    validate_all(runs, topo, opts)?;
    let show_progress = opts.progress;
    let started_unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let total: u64 = runs.iter().map(|(_, p)| p.reps as u64).sum();
    let pb = if show_progress {
        ProgressBar::new(total)
    } else {
        ProgressBar::hidden()
    };
    pb.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} reps  {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut region: Option<(RegionKey, Region)> = None;
    let mut out = Vec::with_capacity(runs.len());
    for (name, p) in runs {
        if interrupted() {
            break;
        }
        pb.set_message(format!("{name}: {}", describe(p)));
        let key = RegionKey {
            tier: p.tier.clone(),
            len: p.memory_range,
            huge: p.huge_pages,
            prefault: p.prefault,
            overwrite: p.overwrite,
        };
        if region.as_ref().map(|(k, _)| k) != Some(&key) {
            drop(region.take()); // free the old one before mapping the new one
            let mut r = Region::new(&p.tier, p.memory_range as usize, &region_options(p))?;
            fill(&mut r)?;
            region = Some((key, r));
        }
        let Some((_, r)) = region.as_mut() else {
            unreachable!("region was just set")
        };
        let run = run_one(name, p, topo, r, &|| pb.inc(1))?;
        if run.reps.is_empty() {
            break; // interrupted before its first repetition finished
        }
        pb.suspend(|| on_run(&run));
        out.push(run);
    }
    pb.finish_and_clear();
    let partial = interrupted();
    if partial && out.is_empty() {
        return Err(pmolap_os::Error::Interrupted.into());
    }
    Ok(Results {
        header: Header::new(kind::MEMBENCH, Machine::from_topology(topo), partial),
        started_unix,
        config_file,
        runs: out,
    })
}

/// Fills a fresh region with non-repeating data (untimed), in parallel. Reads of
/// never-written or all-zero pages can be served from shared zero pages or, in a VM,
/// from pages the host has merged, which would overstate read bandwidth.
fn fill(region: &mut Region) -> Result<()> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let bytes = region.as_mut_slice();
    let chunk = bytes.len().div_ceil(threads).next_multiple_of(8).max(8);
    let parts: Vec<(usize, &mut [u8])> = bytes.chunks_mut(chunk).enumerate().collect();
    threads::run_gated("membench fill", parts, |(c, part), _| {
        let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ (c as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93);
        for word in part.chunks_mut(8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            word.copy_from_slice(&x.to_le_bytes()[..word.len()]);
        }
        Ok(())
    })?;
    Ok(())
}

/// A one-line description of a parameter set.
pub fn describe(p: &Params) -> String {
    use crate::membench::config::name;
    use crate::size::format_size;
    let threads = match p.operation {
        Operation::Mixed => format!("{}r+{}w", p.threads, p.write_threads),
        _ => format!("{}t", p.threads),
    };
    let write = match p.operation {
        Operation::Write | Operation::Mixed => {
            format!(" {}{}", p.persist, if p.sfence { "+sfence" } else { "" })
        }
        _ => String::new(),
    };
    format!(
        "{} {} {} {} {threads} pin={} {} range={}{write}",
        name(&p.operation),
        name(&p.pattern),
        name(&p.access_mode),
        format_size(p.access_size),
        p.pinning,
        p.tier,
        format_size(p.memory_range),
    )
}
