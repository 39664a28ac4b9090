//! The page-cache simulation of the page model (`pmolap_place::readahead`) against this
//! machine's kernel, on a pattern both run exactly: `K` files of `SIZE` MiB, mapped
//! read-only and touched one byte a page in 32 steps — each step the next 32nd of every
//! file, file after file (the page model's step order, `schedule::Order::Steps`) — pass
//! after pass inside a memory cgroup of `ROOM` MiB, after the files' pages were dropped.
//! Per room: the bytes read and the major faults of each pass (`/proc/self/io`,
//! `ru_majflt`) beside what the simulation predicts for the same stream from the second
//! pass on (one LRU list, the model's; the kernel's lists, `Policy::Kernel`), with the
//! readahead window of the files' device. A development tool for the bytes half of the
//! page model: where the simulation and the kernel part on a synthetic pattern, the
//! simulation is wrong; where they agree, a miss on the engine's workload is in its
//! page records or order (docs/placement.md, "The simulation against the kernel").
//!
//! ```text
//! cargo run --release -p pmolap-bench --example simcheck -- DIR K SIZE_MIB ROOM_MIB... [xPASSES] [sSTRIDE]
//! ```
//!
//! `simcheck replay PROFILE VALIDATE.json DB_DIR PLACEMENT ROOM_MIB... [xPASSES]` replays
//! instead the page reference stream the model simulates for a placement of a `place
//! validate` document (its workload's records, query after query in the step order, the
//! placement's slow structures: the files under `DB_DIR` the workload recorded) through
//! the kernel, one thread, and sets the simulation of the same stream (the profile's page
//! size and readahead window) beside it, with what the engine read for it in the document
//! (its own order, its workers): the three tell a wrong simulation from a stream the
//! engine does not follow. It prints the kernel's refault and list events a pass
//! (`/proc/vmstat`, machine wide: run it on a quiet machine) and the group's active and
//! inactive file lists at the end. `POLICIES=Lru,TwoList,Kernel` picks the simulated
//! reclaim policies (default one LRU list and the kernel's lists); `ORDER=engine` replays
//! and simulates the stream in the engine's order instead (`schedule::Order::Engine`: its
//! morsels and workers' claims, still from one thread).
//!
//! `sSTRIDE` touches only every `STRIDE`-th page of the files after the first (the
//! columns a selective query reads at its selected rows). The files are written to a new
//! directory `DIR/simcheck-PID` (refused if it exists) and removed at the end (or at a
//! failure); passes default to 3. Needs a writable memory cgroup. Stops at the first
//! error.
use std::io::Write;
use std::path::{Path, PathBuf};

use pmolap_bench::ssb::data::{drop_pages, structure_files};
use pmolap_bench::ssb::validate::counters::IoSample;
use pmolap_bench::tierprofile::readahead_pages;
use pmolap_os::cgroup::MemoryLimit;
use pmolap_place::pagecache::Policy;
use pmolap_place::readahead::{simulate, Stream};
use pmolap_place::schedule::{Order, Schedule};
use pmolap_place::workload::StructurePages;
use pmolap_store::PageStep;
use pmolap_tier::region::{ReadOnlyRegion, RegionOptions};

const PAGE: u64 = 4096;
const STEPS: u64 = 32;

/// The files' directory, removed when dropped (also when a step panics).
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `n` files of `pages` pages each in `dir`, filled with bytes that do not compress.
fn write_files(dir: &Path, n: usize, pages: u64) -> Vec<PathBuf> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..n)
        .map(|i| {
            let p = dir.join(format!("f{i}.dat"));
            let mut f = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
            let mut buf = vec![0u8; PAGE as usize];
            for _ in 0..pages {
                for b in buf.chunks_mut(8) {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    b.copy_from_slice(&x.to_le_bytes());
                }
                f.write_all(&buf).unwrap();
            }
            f.into_inner().unwrap().sync_all().unwrap();
            p
        })
        .collect()
}

/// The first page and the page count of step `s` (0-based) of a file of `pages` pages.
fn step_range(s: u64, pages: u64) -> (u64, u64) {
    let a = s * pages / STEPS;
    (a, (s + 1) * pages / STEPS - a)
}

/// The pages of step `s` that file `i` touches: all of them in the first file, every
/// `stride`-th page (of the file) in the others.
fn step_pages(i: usize, s: u64, pages: u64, stride: u64) -> impl Iterator<Item = u64> {
    let (a, n) = step_range(s, pages);
    let stride = if i == 0 { 1 } else { stride.max(1) };
    (a..a + n).filter(move |p| p % stride == 0)
}

/// One pass over `maps` in the step order; returns a byte of each page touched, summed.
fn pass(maps: &[ReadOnlyRegion], pages: u64, stride: u64) -> u64 {
    let mut sum = 0u64;
    for s in 0..STEPS {
        for (i, m) in maps.iter().enumerate() {
            let bytes = m.as_slice();
            for p in step_pages(i, s, pages, stride) {
                sum = sum.wrapping_add(u64::from(bytes[(p * PAGE) as usize]));
            }
        }
    }
    std::hint::black_box(sum)
}

/// `pages` as the runs of a page record.
fn runs(pages: impl Iterator<Item = u64>) -> Vec<[u32; 2]> {
    let mut out: Vec<[u32; 2]> = Vec::new();
    for p in pages {
        match out.last_mut() {
            Some(r) if u64::from(r[0] + r[1]) == p => r[1] += 1,
            _ => out.push([p as u32, 1]),
        }
    }
    out
}

/// The simulation's reads a pass (MiB) and faults for the same stream behind `room`.
fn simulated(
    k: usize,
    pages: u64,
    stride: u64,
    room: u64,
    window: u64,
    policy: Policy,
) -> (f64, f64) {
    let q: Vec<StructurePages> = (0..k)
        .map(|i| StructurePages {
            structure: i,
            steps: (0..STEPS)
                .map(|s| PageStep {
                    step: (s + 1) as u32,
                    runs: runs(step_pages(i, s, pages, stride)),
                })
                .collect(),
        })
        .collect();
    let all = vec![q];
    let sizes = vec![pages; k];
    let geometry = vec![None; k];
    let st = Stream {
        all: &all,
        sizes: &sizes,
        on: &|_| true,
        geometry: &geometry,
        schedule: Schedule {
            order: Order::Steps,
            morsel_rows: 1,
            workers: 1,
        },
        rec_bytes: PAGE,
        page_bytes: PAGE,
        window,
        policy,
    };
    let r = simulate(&st, Some(room / PAGE))[0];
    (r.read * PAGE as f64 / 1048576.0, r.faults)
}

/// Bytes read (MiB) and major faults of each of `passes` runs of `pass`; `after_first`
/// runs once after the first (the warm-up) pass.
fn measure(
    passes: usize,
    mut pass: impl FnMut(),
    mut after_first: impl FnMut(),
) -> Vec<(f64, f64)> {
    (0..passes)
        .map(|k| {
            if k == 1 {
                after_first();
            }
            let before = IoSample::now().expect("/proc/self/io");
            pass();
            let io = before.until(IoSample::now().expect("/proc/self/io"));
            (io.read_bytes / 1048576.0, io.major_faults)
        })
        .collect()
}

/// The passes after the first: the one with the median bytes, and the bytes' min and max.
fn summary(per_pass: &[(f64, f64)]) -> ((f64, f64), f64, f64) {
    let mut later: Vec<(f64, f64)> = per_pass[1..].to_vec();
    later.sort_by(|a, b| a.0.total_cmp(&b.0));
    (later[later.len() / 2], later[0].0, later[later.len() - 1].0)
}

/// The value of `key` in a `key value` per line text (`/proc/vmstat`).
fn stat_value(text: &str, key: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(' ')?.trim().parse().ok())
}

/// Selected `/proc/vmstat` counters (the kernel's reclaim and refault events, machine
/// wide: read on a quiet machine).
fn vmstat() -> Vec<(String, f64)> {
    const KEYS: [&str; 8] = [
        "workingset_refault_file",
        "workingset_activate_file",
        "workingset_restore_file",
        "pgactivate",
        "pgdeactivate",
        "pgrotated",
        "pgsteal_direct",
        "pgscan_direct",
    ];
    let s = std::fs::read_to_string("/proc/vmstat").unwrap_or_default();
    KEYS.iter()
        .map(|k| (k.to_string(), stat_value(&s, k).unwrap_or(0.0)))
        .collect()
}

/// The group's `active_file` and `inactive_file` (v1 `memory.stat`), MiB.
fn lists(g: &MemoryLimit) -> String {
    let get = |k: &str| g.stat(k).map_or(f64::NAN, |v| v as f64 / 1048576.0);
    format!(
        "active {:.1} MiB, inactive {:.1} MiB",
        get("active_file"),
        get("inactive_file")
    )
}

fn replay(args: &[String]) {
    use pmolap_place::readahead::workload_reads_with;
    use pmolap_place::{Profile, Workload};
    use pmolap_results::place::ValidateReport;
    if args.len() < 5 {
        eprintln!(
            "usage: simcheck replay PROFILE VALIDATE.json DB_DIR PLACEMENT ROOM_MIB... [xPASSES]"
        );
        std::process::exit(2);
    }
    let profile = Profile::load(Path::new(&args[0])).expect("PROFILE: a profile");
    let pc = profile.pages.clone().expect("a profile with page costs");
    let r: ValidateReport<Workload> =
        serde_json::from_slice(&std::fs::read(&args[1]).expect("VALIDATE.json"))
            .expect("a place-validate document");
    let w = &r.workload;
    let name = &args[3];
    let s = r
        .scenarios
        .iter()
        .chain(r.baselines.iter().map(|b| &b.result))
        .find(|s| &s.name == name)
        .unwrap_or_else(|| panic!("no placement {name:?} in the document"));
    let mut passes = 3;
    let mut rooms = Vec::new();
    for a in &args[4..] {
        match a.strip_prefix('x') {
            Some(n) => passes = n.parse::<usize>().expect("xPASSES").max(2),
            None => rooms.push(a.parse::<f64>().expect("ROOM_MIB: MiB")),
        }
    }
    let ids: Vec<String> = w.structures.iter().map(|s| s.id()).collect();
    let on_v: Vec<bool> = ids.iter().map(|i| s.slow_structures.contains(i)).collect();
    let on = |i: usize| on_v[i];
    let all =
        structure_files(Path::new(&args[2]), w).expect("the workload's structures under DB_DIR");
    let paths: Vec<Option<PathBuf>> = all
        .into_iter()
        .enumerate()
        .map(|(i, f)| on(i).then_some(f))
        .collect();
    let files: Vec<PathBuf> = paths.iter().flatten().cloned().collect();
    let rec = w.page_bytes.expect("a workload with page records");
    let page = pc.page_bytes.max(rec);
    let geo = pmolap_place::schedule::geometry(w, rec);
    let order = match std::env::var("ORDER").as_deref() {
        Ok("engine") => Order::Engine,
        Ok("steps") | Err(_) => Order::Steps,
        Ok(o) => panic!("ORDER: {o}? (steps, engine)"),
    };
    let sched = Schedule::engine(order, w.threads.unwrap_or(1));
    let mut refs: Vec<Vec<pmolap_place::schedule::Touch>> = Vec::new();
    for q in &w.queries {
        let mut out = Vec::new();
        pmolap_place::schedule::query_refs(&q.pages, &on, &geo, sched, rec, page, &mut out);
        refs.push(out);
    }
    let engine = s.io.map(|io| io.read_bytes / 1048576.0);
    println!(
        "{name}: {} structures on the slow tier, {} touches a pass; read MiB a pass (replay: median of passes 2-{passes}, min-max)",
        files.len(),
        refs.iter().map(Vec::len).sum::<usize>()
    );
    for &room_mib in &rooms {
        let room = (room_mib * 1048576.0) as u64;
        drop_pages(&files).expect("dropping the files' pages");
        let maps: Vec<Option<ReadOnlyRegion>> = paths
            .iter()
            .map(|p| {
                p.as_ref().map(|p| {
                    let len = std::fs::metadata(p).expect("the file").len() as usize;
                    ReadOnlyRegion::open(p, len, &RegionOptions::default()).expect("mapping it")
                })
            })
            .collect();
        let guard = MemoryLimit::enter(room).expect("a memory cgroup");
        let mut stat0 = Vec::new();
        let per_pass = measure(
            passes,
            || {
                let mut sum = 0u64;
                for q in &refs {
                    for &(_, st, p) in q {
                        let b = maps[st as usize].as_ref().unwrap().as_slice();
                        let off = (p * page) as usize;
                        if off < b.len() {
                            sum = sum.wrapping_add(u64::from(b[off]));
                        }
                    }
                }
                std::hint::black_box(sum);
            },
            || stat0 = vmstat(),
        );
        let events: Vec<String> = vmstat()
            .into_iter()
            .zip(&stat0)
            .map(|((k, v), (_, v0))| format!("{k} {:.0}", (v - v0) / (passes - 1) as f64))
            .collect();
        println!(
            "  a pass (vmstat): {}; at the end {}",
            events.join(", "),
            lists(&guard)
        );
        drop(guard);
        drop(maps);
        let (med, lo, hi) = summary(&per_pass);
        let mut line = format!(
            "room {room_mib} MiB: replay {:.0} MiB ({lo:.0}-{hi:.0}), {} faults",
            med.0, med.1
        );
        let pols: Vec<Policy> = match std::env::var("POLICIES") {
            Ok(v) => v
                .split(',')
                .map(|n| match n {
                    "Lru" => Policy::Lru,
                    "TwoList" => Policy::TwoList,
                    "Kernel" => Policy::Kernel,
                    _ => panic!("POLICIES: {n}? (Lru, TwoList, Kernel)"),
                })
                .collect(),
            Err(_) => vec![Policy::Lru, Policy::Kernel],
        };
        for p in pols {
            let pr = workload_reads_with(w, &on, &pc, Some(room / pc.page_bytes), order, p)
                .expect("a workload with page records");
            line += &format!(
                "; {p:?} {:.0} ({})",
                pr.read * pc.page_bytes as f64 / 1048576.0,
                pr.faults
            );
        }
        if let Some(e) = engine {
            line += &format!(
                "; the engine in the document {e:.0} (its cache {:.1} MiB)",
                s.page_cache_bytes.unwrap_or(0) as f64 / 1048576.0
            );
        }
        println!("{line}");
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("replay") {
        return replay(&args[1..]);
    }
    if args.len() < 4 {
        eprintln!("usage: simcheck DIR K SIZE_MIB ROOM_MIB... [xPASSES]");
        std::process::exit(2);
    }
    let base = PathBuf::from(&args[0]);
    let k: usize = args[1].parse().expect("K: a number of files");
    let size_mib: u64 = args[2].parse().expect("SIZE_MIB: a whole number of MiB");
    let mut passes = 3;
    let mut stride = 1;
    let mut rooms = Vec::new();
    for a in &args[3..] {
        if let Some(n) = a.strip_prefix('x') {
            passes = n.parse::<usize>().expect("xPASSES").max(2);
        } else if let Some(n) = a.strip_prefix('s') {
            stride = n.parse::<u64>().expect("sSTRIDE").max(1);
        } else {
            rooms.push(a.parse::<f64>().expect("ROOM_MIB: MiB"));
        }
    }
    let dir = base.join(format!("simcheck-{}", std::process::id()));
    std::fs::create_dir(&dir).expect("a new directory under DIR");
    let scratch = Scratch(dir.clone());
    let pages = size_mib * 1048576 / PAGE;
    let window = readahead_pages(&dir, PAGE);
    let paths = write_files(&dir, k, pages);
    println!(
        "{k} files of {size_mib} MiB (after the first every {stride}-th page touched), {STEPS} steps a pass, readahead window {window} pages; \
         read MiB and major faults a pass (the kernel's passes 2-{passes}: median, min-max)"
    );
    for &room_mib in &rooms {
        let room = (room_mib * 1048576.0) as u64;
        drop_pages(&paths).expect("dropping the files' pages");
        let maps: Vec<ReadOnlyRegion> = paths
            .iter()
            .map(|p| ReadOnlyRegion::open(p, (pages * PAGE) as usize, &RegionOptions::default()))
            .collect::<Result<_, _>>()
            .expect("mapping the files");
        let guard = MemoryLimit::enter(room).expect("a memory cgroup");
        let per_pass = measure(
            passes,
            || {
                pass(&maps, pages, stride);
            },
            || {},
        );
        let cache = guard.page_cache_bytes().unwrap_or(0) as f64 / 1048576.0;
        drop(guard);
        drop(maps);
        let (med, lo, hi) = summary(&per_pass);
        let (lru, lru_f) = simulated(k, pages, stride, room, window, Policy::Lru);
        let (ker, ker_f) = simulated(k, pages, stride, room, window, Policy::Kernel);
        println!(
            "room {room_mib} MiB (page cache at the end {cache:.1} MiB): kernel {:.0} MiB ({lo:.0}-{hi:.0}), \
             {} faults (first pass {:.0} MiB); one LRU list {lru:.0} MiB, {lru_f} faults ({:.2}); \
             the kernel's lists {ker:.0} MiB, {ker_f} faults ({:.2})",
            med.0,
            med.1,
            per_pass[0].0,
            lru / med.0.max(1e-9),
            ker / med.0.max(1e-9),
        );
    }
    drop(scratch);
}
