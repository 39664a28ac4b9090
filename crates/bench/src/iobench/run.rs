//! Runs iobench parameter sets: checks every run before any file is created, prepares
//! the files (untimed, with progress), drops them from the page cache, opens or maps
//! them per repetition, and times the threads from a common barrier.
//!
//! Timed: from the barrier to each thread's last operation; each operation (page read,
//! page write with its persist, log entry with its persist) also goes into a latency
//! histogram. Untimed: file preparation, scrambling, cache dropping, open/mmap, prefault.
//!
//! SIGINT/SIGTERM are polled every [`OPS_PER_POLL`] operations, every MiB of file
//! preparation and between repetitions and runs: an interrupted sweep keeps what
//! finished (marked partial) and removes the files it created.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use pmolap_os::signal::interrupted;
use pmolap_results::{kind, Header, Machine};
use pmolap_tier::io::{fadvise, open_direct, prefault_read, Advice, AlignedBuf, Done, RingIo};
use pmolap_tier::region::{Region, RegionOptions};
use pmolap_tier::topology::Topology;
use pmolap_tier::TierSpec;

use crate::error::{Error, Result};
use crate::iobench::config::{name, IoPath, LogFile, Params, Readahead, Workload};
use crate::iobench::files::{
    check_space, describe_device, drop_cache, files_of, validate_fs, FileKey, FileSet,
};
use crate::iobench::results::{Latency, Rep, Results, Run, Summary, ThreadResult};
use crate::size::format_size;
use crate::threads::{self, Gate};

/// Operations a thread does between two looks at the interrupt flag.
const OPS_PER_POLL: u64 = 64;

/// How the sweep is run.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Show progress bars (file preparation).
    pub progress: bool,
    /// Leave the files in place at the end.
    pub keep_files: bool,
    /// Name the files without the process id, use those already there with the right
    /// size as they are, and keep them at the end (so runs, or fio, can share them).
    pub reuse_files: bool,
    /// Allow thread counts far above the logical CPUs ([`threads::check_count`]).
    pub oversubscribe: bool,
}

/// A one-line description of a parameter set.
pub fn describe(p: &Params) -> String {
    let unit = match p.workload {
        Workload::Logging => format!(
            "{} entries, {} log",
            format_size(p.entry_size),
            name(&p.log_file)
        ),
        Workload::BufferManager => format!(
            "{} pages, {:.0}% writes, pool {}",
            format_size(p.page_size),
            p.write_ratio * 100.0,
            format_size(p.pool_size)
        ),
        Workload::TableScan => format!("{} pages", format_size(p.page_size)),
    };
    let dirs: Vec<String> = p.paths.iter().map(|d| d.display().to_string()).collect();
    let qd = if p.io.is_uring() {
        format!(" qd {}", p.queue_depth)
    } else {
        String::new()
    };
    format!(
        "{} via {}{qd}, {unit}, {} threads, on {}",
        name(&p.workload),
        name(&p.io),
        p.threads,
        dirs.join("+")
    )
}

/// Checks every run (shape, threads, filesystem, space) before anything is created;
/// `opts` as in [`run_all`] (with `reuse_files`, files already there need no room).
pub fn validate_all(
    runs: &[(String, Params)],
    topo: &Topology,
    opts: &RunOptions,
) -> Result<Vec<Vec<String>>> {
    let mut notes = Vec::new();
    for (n, p) in runs {
        super::config::validate_shape(p, n)?;
        threads::check_count(n, p.threads, topo.cpus.len(), opts.oversubscribe)?;
        notes.push(validate_fs(n, p, topo)?);
    }
    check_space(runs, opts.reuse_files)?;
    Ok(notes)
}

/// Runs every parameter set, calling `on_run` after each; files are removed at the end
/// (also on error and interrupt) unless `opts.keep_files` or `opts.reuse_files`.
///
/// On SIGINT/SIGTERM the sweep stops at the next safe point and the results hold the
/// runs that finished (the current one with the repetitions it finished, if any),
/// marked `partial`; if nothing finished, the error is [`pmolap_os::Error::Interrupted`].
pub fn run_all(
    runs: &[(String, Params)],
    topo: &Topology,
    config_file: Option<String>,
    opts: &RunOptions,
    mut on_run: impl FnMut(&Run),
) -> Result<Results> {
    let notes = validate_all(runs, topo, opts)?;
    let started_unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let mut dirs: Vec<std::path::PathBuf> = runs
        .iter()
        .flat_map(|(_, p)| p.paths.iter().cloned())
        .collect();
    dirs.sort();
    dirs.dedup();
    let devices = dirs.iter().map(|d| describe_device(d, topo)).collect();
    let mut files = FileSet::default();
    files.keep = opts.keep_files;
    files.reuse = opts.reuse_files;
    let mut out = Vec::new();
    for ((bench, p), notes) in runs.iter().zip(notes) {
        if interrupted() {
            break;
        }
        let run = match run_one(bench, p, notes, &mut files, opts) {
            Ok(run) => run,
            // Stopped while preparing its files: the runs before it stand.
            Err(Error::Tier(pmolap_os::Error::Interrupted)) => break,
            Err(e) => return Err(e),
        };
        if run.reps.is_empty() {
            break; // interrupted before its first repetition finished
        }
        on_run(&run);
        out.push(run);
    }
    files.finish();
    let partial = interrupted();
    if partial && out.is_empty() {
        return Err(pmolap_os::Error::Interrupted.into());
    }
    Ok(Results {
        header: Header::new(kind::IOBENCH, Machine::from_topology(topo), partial),
        started_unix,
        devices,
        config_file,
        runs: out,
    })
}

/// Runs one parameter set `p.reps` times.
pub fn run_one(
    bench: &str,
    p: &Params,
    notes: Vec<String>,
    files: &mut FileSet,
    opts: &RunOptions,
) -> Result<Run> {
    let keys = files_of(p, opts.reuse_files);
    let flat: Vec<FileKey> = keys.iter().flatten().cloned().collect();
    files.prepare(&flat, p.seed, opts.progress)?;
    let mut reps = Vec::new();
    for rep in 0..p.reps {
        if interrupted() {
            break;
        }
        if rep > 0 && p.scramble {
            files.scramble(&flat, p.seed.wrapping_add(rep as u64), opts.progress)?;
        }
        for k in &flat {
            match k {
                FileKey::NewLog { .. } => {
                    let path = k.path();
                    match std::fs::remove_file(&path) {
                        Ok(()) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                        Err(e) => return Err(Error::io(&path, e)),
                    }
                }
                _ if p.drop_cache => drop_cache(&k.path())?,
                _ => {}
            }
        }
        let backends = keys
            .iter()
            .map(|ks| open_backend(p, ks))
            .collect::<Result<Vec<_>>>()?;
        let timed = time_rep(bench, p, backends, rep)?;
        if interrupted() {
            break; // cut short: not a measurement
        }
        reps.push(timed);
    }
    let summary = summarize(&reps);
    Ok(Run {
        name: bench.to_string(),
        params: p.clone(),
        files_per_thread: keys.first().map(Vec::len).unwrap_or(0),
        notes,
        reps,
        summary,
    })
}

/// A thread's handles on its files for one repetition.
enum Backend {
    Sys(Vec<File>),
    Map(Vec<Region>),
    Ring(Box<RingIo>),
}

fn open_file(p: &Params, k: &FileKey) -> Result<File> {
    let path = k.path();
    let new = matches!(k, FileKey::NewLog { .. });
    let f = if p.io.is_direct() {
        open_direct(&path, new, new)?
    } else {
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(new)
            .truncate(new)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?
    };
    let advice = match p.readahead {
        Readahead::Normal => None,
        Readahead::Sequential => Some(Advice::Sequential),
        Readahead::Random => Some(Advice::Random),
    };
    if let Some(a) = advice {
        fadvise(&f, &path, a)?;
    }
    Ok(f)
}

/// Alignment for page buffers: a page, which satisfies any logical block size ≤ 4 KiB.
const ALIGN: usize = 4096;

fn open_backend(p: &Params, keys: &[FileKey]) -> Result<Backend> {
    if p.io.is_mapped() {
        let mut regions = Vec::new();
        for k in keys {
            let path = k.path();
            let r = Region::new(
                &TierSpec::File { path: path.clone() },
                k.size() as usize,
                &RegionOptions {
                    prefault: false,
                    keep_file: true,
                    // iobench's own prepared files: mapping them is the point.
                    existing: pmolap_tier::ExistingFile::Use,
                    ..RegionOptions::default()
                },
            )?;
            if p.io == IoPath::Pmem && !r.info().map_sync {
                return Err(Error::Invalid {
                    bench: "pmem".into(),
                    msg: format!("{} was not mapped with MAP_SYNC", path.display()),
                });
            }
            if p.prefault {
                prefault_read(r.as_slice());
            }
            regions.push(r);
        }
        return Ok(Backend::Map(regions));
    }
    let files = keys
        .iter()
        .map(|k| open_file(p, k))
        .collect::<Result<Vec<_>>>()?;
    if p.io.is_uring() {
        let (frames, frame_len) = match p.workload {
            Workload::TableScan => (p.queue_depth as usize, p.page_size as usize),
            Workload::BufferManager => ((p.pool_size / p.page_size) as usize, p.page_size as usize),
            Workload::Logging => (1, p.entry_size as usize),
        };
        return Ok(Backend::Ring(Box::new(RingIo::new(
            files,
            p.queue_depth,
            frames,
            frame_len,
            ALIGN,
        )?)));
    }
    Ok(Backend::Sys(files))
}

/// What one thread measured.
struct Outcome {
    bytes: u64,
    ops: u64,
    reads: u64,
    writes: u64,
    start: Instant,
    end: Instant,
    hist: Histogram<u64>,
}

fn new_hist() -> Result<Histogram<u64>> {
    Histogram::new_with_bounds(1, 3_600_000_000_000, 3)
        .map_err(|e| Error::Thread(format!("latency histogram: {e}")))
}

fn time_rep(bench: &str, p: &Params, backends: Vec<Backend>, rep: usize) -> Result<Rep> {
    let jobs: Vec<(usize, Backend)> = backends.into_iter().enumerate().collect();
    let outcomes: Vec<Outcome> = threads::run_gated("iobench worker", jobs, |(t, b), gate| {
        worker(p, t, rep, b, gate)
    })
    .map_err(|e| match e {
        Error::Tier(t) => Error::Invalid {
            bench: bench.to_string(),
            msg: t.to_string(),
        },
        other => other,
    })?;
    let start = outcomes.iter().map(|o| o.start).min();
    let end = outcomes.iter().map(|o| o.end).max();
    let seconds = match (start, end) {
        (Some(s), Some(e)) => (e - s).as_secs_f64().max(1e-9),
        _ => 1e-9,
    };
    let mut hist = new_hist()?;
    for o in &outcomes {
        hist.add(&o.hist)
            .map_err(|e| Error::Thread(format!("latency histogram: {e}")))?;
    }
    let bytes: u64 = outcomes.iter().map(|o| o.bytes).sum();
    let ops: u64 = outcomes.iter().map(|o| o.ops).sum();
    let gib = |b: u64, s: f64| b as f64 / s / (1u64 << 30) as f64;
    Ok(Rep {
        bytes,
        ops,
        reads: outcomes.iter().map(|o| o.reads).sum(),
        writes: outcomes.iter().map(|o| o.writes).sum(),
        seconds,
        bandwidth_gib_s: gib(bytes, seconds),
        ops_per_s: ops as f64 / seconds,
        latency: Latency {
            mean_ns: hist.mean(),
            p50_ns: hist.value_at_quantile(0.5) as f64,
            p90_ns: hist.value_at_quantile(0.9) as f64,
            p99_ns: hist.value_at_quantile(0.99) as f64,
            p999_ns: hist.value_at_quantile(0.999) as f64,
            max_ns: hist.max() as f64,
        },
        per_thread: outcomes
            .iter()
            .enumerate()
            .map(|(t, o)| {
                let s = (o.end - o.start).as_secs_f64().max(1e-9);
                ThreadResult {
                    thread: t,
                    bytes: o.bytes,
                    ops: o.ops,
                    seconds: s,
                    bandwidth_gib_s: gib(o.bytes, s),
                }
            })
            .collect(),
    })
}

fn summarize(reps: &[Rep]) -> Summary {
    let med = |mut v: Vec<f64>| -> f64 {
        v.sort_by(|a, b| a.total_cmp(b));
        match v.len() {
            0 => 0.0,
            n if n % 2 == 1 => v[n / 2],
            n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
        }
    };
    let bw: Vec<f64> = reps.iter().map(|r| r.bandwidth_gib_s).collect();
    Summary {
        bandwidth_gib_s_median: med(bw.clone()),
        bandwidth_gib_s_min: bw.iter().copied().fold(f64::INFINITY, f64::min),
        bandwidth_gib_s_max: bw.iter().copied().fold(0.0, f64::max),
        ops_per_s_median: med(reps.iter().map(|r| r.ops_per_s).collect()),
        latency_p50_ns_median: med(reps.iter().map(|r| r.latency.p50_ns).collect()),
        latency_p99_ns_median: med(reps.iter().map(|r| r.latency.p99_ns).collect()),
    }
}

/// The operations a thread does, in order: which stripe, where, and read or write.
struct Plan<'a> {
    p: &'a Params,
    rng: SmallRng,
    i: u64,
    stripes: u64,
    pages: u64,
    frames: u64,
}

/// One operation of the plan.
#[derive(Debug, Clone, Copy)]
struct Op {
    stripe: usize,
    offset: u64,
    write: bool,
    /// Buffer-pool frame (buffer manager), else 0.
    frame: usize,
    /// Byte to alter before a write.
    poke: usize,
}

impl Plan<'_> {
    fn new(p: &Params, t: usize, rep: usize) -> Plan<'_> {
        let stripes = p.paths.len() as u64;
        Plan {
            p,
            rng: SmallRng::seed_from_u64(
                p.seed ^ ((t as u64) << 32) ^ (rep as u64).wrapping_mul(0x9e3779b97f4a7c15),
            ),
            i: 0,
            stripes,
            pages: p.file_size / p.page_size.max(1),
            frames: (p.pool_size / p.page_size.max(1)).max(1),
        }
    }

    /// Whether operation `i` writes: spread evenly, `floor((i+1)r) > floor(ir)` (0.2:
    /// every fifth).
    fn is_write(&self, i: u64) -> bool {
        let r = self.p.write_ratio;
        ((i + 1) as f64 * r).floor() > (i as f64 * r).floor()
    }

    fn next(&mut self) -> Op {
        let i = self.i;
        self.i += 1;
        let p = self.p;
        match p.workload {
            Workload::TableScan => {
                let page = i % self.pages;
                Op {
                    stripe: (page % self.stripes) as usize,
                    offset: page / self.stripes * p.page_size,
                    write: false,
                    frame: 0,
                    poke: 0,
                }
            }
            Workload::BufferManager => {
                let page = self.rng.gen_range(0..self.pages);
                let write = self.is_write(i);
                Op {
                    stripe: (page % self.stripes) as usize,
                    offset: page / self.stripes * p.page_size,
                    write,
                    frame: self.rng.gen_range(0..self.frames) as usize,
                    poke: if write {
                        self.rng.gen_range(0..p.page_size) as usize
                    } else {
                        0
                    },
                }
            }
            Workload::Logging => {
                let off = i * p.entry_size;
                Op {
                    stripe: 0,
                    offset: match p.log_file {
                        LogFile::Recycled => off % p.log_size,
                        LogFile::New => off,
                    },
                    write: true,
                    frame: 0,
                    poke: self.rng.gen_range(0..p.entry_size) as usize,
                }
            }
        }
    }
}

/// The buffer pool (or log entry) starts out with random bytes, as in the paper.
fn fill_random(buf: &mut [u8], seed: u64) {
    rand::RngCore::fill_bytes(&mut SmallRng::seed_from_u64(seed), buf);
}

fn worker(p: &Params, t: usize, rep: usize, backend: Backend, gate: &Gate) -> Result<Outcome> {
    let run = Thread {
        p,
        t,
        op_size: p.op_size(),
        total_ops: p.bytes_per_thread().div_ceil(p.op_size()),
        deadline: p.duration_s.map(Duration::from_secs_f64),
        gate,
    };
    let mut plan = Plan::new(p, t, rep);
    let hist = new_hist()?;
    match backend {
        Backend::Ring(ring) => run.ring(ring, &mut plan, hist),
        Backend::Sys(files) => {
            let mut pool = AlignedBuf::new(run.pool_frames() * run.op_size as usize, ALIGN)?;
            run.one_at_a_time(&mut pool, &mut plan, hist, |op, buf| {
                let f = &files[op.stripe];
                if op.write {
                    f.write_all_at(buf, op.offset)
                        .map_err(|e| Error::Thread(format!("pwrite on thread {t}: {e}")))?;
                    if p.sync || p.workload == Workload::Logging {
                        f.sync_data()
                            .map_err(|e| Error::Thread(format!("fdatasync on thread {t}: {e}")))?;
                    }
                } else {
                    f.read_exact_at(buf, op.offset)
                        .map_err(|e| Error::Thread(format!("pread on thread {t}: {e}")))?;
                }
                Ok(())
            })
        }
        Backend::Map(mut regions) => {
            let mut pool = vec![0u8; run.pool_frames() * run.op_size as usize];
            run.one_at_a_time(&mut pool, &mut plan, hist, |op, buf| {
                let r = &mut regions[op.stripe];
                let (off, sz) = (op.offset as usize, buf.len());
                if op.write {
                    r.as_mut_slice()[off..off + sz].copy_from_slice(buf);
                    if p.sync || p.workload == Workload::Logging {
                        r.persist(off, sz)?;
                    }
                } else {
                    buf.copy_from_slice(&r.as_slice()[off..off + sz]);
                }
                Ok(())
            })
        }
    }
}

/// One measuring thread: its parameters, number and limits.
struct Thread<'a> {
    p: &'a Params,
    t: usize,
    op_size: u64,
    total_ops: u64,
    deadline: Option<Duration>,
    gate: &'a Gate,
}

impl Thread<'_> {
    /// Frames of the synchronous backends' buffer pool (one but for the buffer manager).
    fn pool_frames(&self) -> usize {
        match self.p.workload {
            Workload::BufferManager => (self.p.pool_size / self.p.page_size) as usize,
            _ => 1,
        }
    }

    /// The synchronous backends (pread/pwrite, mapped regions): one operation at a time
    /// through `io` on its frame of `pool` (filled with random bytes first), each timed.
    fn one_at_a_time(
        &self,
        pool: &mut [u8],
        plan: &mut Plan<'_>,
        mut hist: Histogram<u64>,
        mut io: impl FnMut(&Op, &mut [u8]) -> Result<()>,
    ) -> Result<Outcome> {
        let (p, t) = (self.p, self.t);
        fill_random(pool, p.seed ^ t as u64);
        let sz = self.op_size as usize;
        if !self.gate.wait() {
            return Err(threads::called_off());
        }
        let (mut reads, mut writes) = (0u64, 0u64);
        let start = Instant::now();
        let mut ops = 0u64;
        while ops < self.total_ops {
            let op = plan.next();
            let buf = &mut pool[op.frame * sz..(op.frame + 1) * sz];
            let t0 = Instant::now();
            if op.write {
                buf[op.poke] = buf[op.poke].wrapping_add(1);
                io(&op, buf)?;
                writes += 1;
            } else {
                io(&op, buf)?;
                reads += 1;
            }
            let t1 = Instant::now();
            let _ = hist.record((t1 - t0).as_nanos().max(1) as u64);
            ops += 1;
            if self.deadline.is_some_and(|d| t1 - start >= d)
                || (ops.is_multiple_of(OPS_PER_POLL) && interrupted())
            {
                break;
            }
        }
        std::hint::black_box(&pool);
        Ok(Outcome {
            bytes: ops * self.op_size,
            ops,
            reads,
            writes,
            start,
            end: Instant::now(),
            hist,
        })
    }

    /// io_uring: up to the queue depth in flight over the ring's frames (filled with
    /// random bytes first), each timed from submission to completion.
    fn ring(
        &self,
        mut ring: Box<RingIo>,
        plan: &mut Plan<'_>,
        mut hist: Histogram<u64>,
    ) -> Result<Outcome> {
        let (p, t, op_size) = (self.p, self.t, self.op_size);
        for f in 0..ring.frames() {
            fill_random(ring.frame_mut(f)?, p.seed ^ t as u64 ^ f as u64);
        }
        if !self.gate.wait() {
            return Err(threads::called_off());
        }
        let start = Instant::now();
        let mut started = vec![start; ring.frames()];
        let (mut issued, mut reads, mut writes) = (0u64, 0u64, 0u64);
        let mut done: Vec<Done> = Vec::new();
        let depth = (p.queue_depth as usize).min(ring.frames());
        let mut stop = false;
        loop {
            while !stop && issued < self.total_ops && ring.busy() < depth {
                let op = next_ring_op(p, &ring, plan);
                started[op.frame] = Instant::now();
                if op.write {
                    let buf = ring.frame_mut(op.frame)?;
                    buf[op.poke] = buf[op.poke].wrapping_add(1);
                    let sync = p.sync || p.workload == Workload::Logging;
                    ring.write(op.frame, op_size as usize, op.stripe, op.offset, sync)?;
                    writes += 1;
                } else {
                    ring.read(op.frame, op.stripe, op.offset)?;
                    reads += 1;
                }
                issued += 1;
            }
            if ring.busy() == 0 {
                break;
            }
            done.clear();
            ring.wait(1, &mut done)?;
            let now = Instant::now();
            for d in &done {
                let n = d
                    .result
                    .as_ref()
                    .map_err(|e| Error::Thread(format!("io_uring request on thread {t}: {e}")))?;
                if *n as u64 != op_size {
                    return Err(Error::Thread(format!(
                        "io_uring request on thread {t} moved {n} of {op_size} bytes"
                    )));
                }
                let _ = hist.record((now - started[d.frame]).as_nanos().max(1) as u64);
            }
            if self.deadline.is_some_and(|d| start.elapsed() >= d) || interrupted() {
                stop = true;
            }
        }
        let end = Instant::now();
        let ops = reads + writes;
        Ok(Outcome {
            bytes: ops * op_size,
            ops,
            reads,
            writes,
            start,
            end,
            hist,
        })
    }
}

/// The next operation of `plan` on an idle frame of `ring`.
fn next_ring_op(p: &Params, ring: &RingIo, plan: &mut Plan<'_>) -> Op {
    let mut op = plan.next();
    if p.workload == Workload::BufferManager {
        // Any idle frame of the pool: the drawn one or the next idle after it.
        let n = ring.frames();
        op.frame = (0..n)
            .map(|k| (op.frame + k) % n)
            .find(|f| !ring.is_busy(*f))
            .unwrap_or(op.frame);
    } else if p.workload == Workload::TableScan {
        op.frame = (0..ring.frames()).find(|f| !ring.is_busy(*f)).unwrap_or(0);
    }
    op
}
