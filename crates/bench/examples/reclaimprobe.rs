//! What a page read into a full memory cgroup costs more than one read with room to
//! spare, by the size of the group: the database's largest files (together twice the
//! limit) streamed by every worker through read-only mappings, one byte a page, cold
//! outside any group, then twice inside a group of LIMIT (the second pass counted: every
//! page it reads evicts one the first pass touched). A development tool for the page
//! model's `reclaim_page_ns` (docs/placement.md, "Which evictions cost"): whether the
//! profile's figure, measured in a 32 MiB group, holds for the caches `validate` uses.
//!
//! ```text
//! cargo run --release -p pmolap-bench --example reclaimprobe -- data/ssb/sf10 32 256 512 [ROUNDS]
//! ```
//!
//! Limits in MiB; a trailing `xN` sets the rounds (default 3). Stops at the first error.
//! `--mapped-vs-read` instead pairs, per round and limit in alternating order, the files
//! streamed through mappings and with `pread` (never mapped), each cold and inside the
//! group: what reclaiming a page the reader had mapped costs more, against a cold pass
//! of the same moment (2026-11-29: 3.0 us a page behind 32 MiB, all 8 rounds 2.5-4.2;
//! 1.0 and 0.4 behind 256 and 512 MiB, inside a spread of +-2; docs/placement.md, "A
//! mapped page's reclaim, paired"). `--streams=K` streams the mapped files `K` at a time,
//! a morsel the same fraction of each (3: +0.8 us behind 256 MiB, nothing behind 512).
//!
//! What it showed (2026-11-28, SF 10's files, quiet): the cold pass it subtracts moves
//! 1.6-6.3 us a page between rounds (the virtual disk's host caches pages read minutes
//! before; the group's second pass re-reads pages read seconds before), so the extra
//! came out 1.5-2.0 us a page behind 32 MiB, 0.6-1.3 behind 256 MiB and negative behind
//! 512 MiB: no size trend the noise lets through (docs/placement.md, "Which evictions
//! cost").
use std::path::{Path, PathBuf};
use std::time::Instant;

use pmolap_bench::ssb::data::drop_pages;
use pmolap_bench::ssb::validate::counters::{system_cpu_ns, IoSample};
use pmolap_bench::ssb::validate::probe::{by_morsels, stream_pass};
use pmolap_os::cgroup::MemoryLimit;
use pmolap_tier::region::{ReadOnlyRegion, RegionOptions};

const PAGE: usize = 4096;
const MORSEL_PAGES: usize = 64;

fn files(dir: &Path, out: &mut Vec<(PathBuf, u64)>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let t = e.file_type().unwrap();
        if t.is_dir() {
            files(&e.path(), out);
        } else if t.is_file() {
            let len = e.metadata().unwrap().len();
            if len > 0 {
                out.push((e.path(), len));
            }
        }
    }
}

/// Fresh read-only mappings of `paths`, nothing prefaulted.
fn map_all(paths: &[PathBuf]) -> Vec<ReadOnlyRegion> {
    paths
        .iter()
        .map(|p| {
            let len = std::fs::metadata(p).unwrap().len() as usize;
            ReadOnlyRegion::open(p, len, &RegionOptions::default()).unwrap()
        })
        .collect()
}

thread_local! {
    /// The system CPU ns of the last [`timed`] pass.
    static LAST_SYS: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) };
}

/// Wall ns and bytes read from storage of `work` (its system CPU ns in `LAST_SYS`).
fn timed(work: impl FnOnce()) -> (f64, f64) {
    let before = IoSample::now();
    let sys0 = system_cpu_ns().unwrap();
    let t0 = Instant::now();
    work();
    let ns = t0.elapsed().as_nanos() as f64;
    LAST_SYS.with(|c| c.set(system_cpu_ns().unwrap() - sys0));
    let read = before
        .zip(IoSample::now())
        .map_or(0.0, |(a, b)| a.until(b).read_bytes);
    (ns, read)
}

/// Wall ns and bytes read of every worker streaming `paths` with `pread` (64 pages a
/// morsel): the same pages as [`pass`], never mapped.
fn read_pass(paths: &[PathBuf], workers: usize) -> (f64, f64) {
    use std::os::unix::fs::FileExt;
    timed(|| {
        for p in paths {
            let f = std::fs::File::open(p).unwrap();
            let len = f.metadata().unwrap().len() as usize;
            by_morsels(len.div_ceil(PAGE * MORSEL_PAGES), workers, |i| {
                let mut buf = vec![0u8; PAGE * MORSEL_PAGES];
                let a = i * MORSEL_PAGES * PAGE;
                let n = (len - a).min(buf.len());
                f.read_exact_at(&mut buf[..n], a as u64).unwrap();
                u64::from(buf[0])
            });
        }
    })
}

/// Wall ns and bytes read of every worker streaming `maps`, `k` files at a time (a
/// morsel the same fraction of each, as a query's morsels touch the columns it reads),
/// one byte a page.
fn pass(maps: &[ReadOnlyRegion], workers: usize, k: usize) -> (f64, f64) {
    timed(|| {
        for chunk in maps.chunks(k.max(1)) {
            let slices: Vec<&[u8]> = chunk.iter().map(|m| m.as_slice()).collect();
            stream_pass(&slices, workers);
        }
    })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dir) = args.first() else {
        eprintln!("usage: reclaimprobe DIR LIMIT_MIB... [xROUNDS]");
        std::process::exit(2);
    };
    let rounds: usize = args
        .iter()
        .find_map(|a| a.strip_prefix('x').and_then(|r| r.parse().ok()))
        .unwrap_or(3);
    let limits: Vec<u64> = args[1..]
        .iter()
        .filter_map(|a| a.parse::<u64>().ok())
        .collect();
    let mut all = Vec::new();
    files(Path::new(dir), &mut all);
    all.sort_by_key(|b| std::cmp::Reverse(b.1));
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    if args.iter().any(|a| a == "--mapped-vs-read") {
        let streams = args
            .iter()
            .find_map(|a| a.strip_prefix("--streams=").and_then(|k| k.parse().ok()))
            .unwrap_or(1);
        mapped_vs_read(&all, &limits, rounds, workers, streams);
        return;
    }
    for r in 0..rounds {
        for &mib in &limits {
            let limit = mib << 20;
            let mut chosen = Vec::new();
            let mut total = 0u64;
            for (p, l) in &all {
                if total >= 2 * limit {
                    break;
                }
                chosen.push(p.clone());
                total += l;
            }
            let paths: Vec<PathBuf> = chosen.clone();
            drop_pages(&paths).unwrap();
            let maps = map_all(&chosen);
            let (cold_ns, cold_read) = pass(&maps, workers, 1);
            let (warm_ns, _) = pass(&maps, workers, 1);
            drop(maps);
            drop_pages(&paths).unwrap();
            let maps = map_all(&chosen);
            let g = MemoryLimit::enter(limit).unwrap();
            let _fill = pass(&maps, workers, 1);
            let (in_ns, in_read) = pass(&maps, workers, 1);
            drop(maps);
            drop(g);
            drop_pages(&paths).unwrap();
            let cold = (cold_ns - warm_ns) / (cold_read / PAGE as f64).max(1.0);
            let inside = (in_ns - warm_ns) / (in_read / PAGE as f64).max(1.0);
            println!(
                "round {r} limit {mib:5} MiB files {:3} ({:6.0} MiB): cold {cold:6.0} ns/page ({:6.0} MiB read), in the group {inside:6.0} ns/page ({:6.0} MiB read): extra {:6.0}",
                chosen.len(),
                total as f64 / (1 << 20) as f64,
                cold_read / (1 << 20) as f64,
                in_read / (1 << 20) as f64,
                inside - cold
            );
        }
    }
}

/// Per round and limit, alternating the order: the files streamed cold through mappings
/// and with `pread`, then each twice inside a group of the limit (the second pass
/// counted). A page read with `pread` is never mapped, so its eviction unmaps nothing:
/// (in the group − cold) mapped minus the same with `pread` is what reclaiming a page
/// the reader had mapped costs more, at this group size, each side paired with a cold
/// pass of the same moment.
fn mapped_vs_read(
    all: &[(PathBuf, u64)],
    limits: &[u64],
    rounds: usize,
    workers: usize,
    streams: usize,
) {
    for r in 0..rounds {
        for &mib in limits {
            let limit = mib << 20;
            let mut chosen = Vec::new();
            let mut total = 0u64;
            for (p, l) in all {
                if total >= 2 * limit {
                    break;
                }
                chosen.push(p.clone());
                total += l;
            }
            // Wall ns and system CPU ns (in ticks of 10 ms) per page read.
            let per_page = |(ns, read): (f64, f64)| {
                let pages = (read / PAGE as f64).max(1.0);
                let sys = LAST_SYS.with(|c| c.get());
                (ns / pages, sys / pages)
            };
            let run = |mapped: bool, group: bool| -> (f64, f64) {
                drop_pages(&chosen).unwrap();
                let g = group.then(|| MemoryLimit::enter(limit).unwrap());
                let out = if mapped {
                    let maps = map_all(&chosen);
                    if group {
                        pass(&maps, workers, streams);
                    }
                    pass(&maps, workers, streams)
                } else {
                    if group {
                        read_pass(&chosen, workers);
                    }
                    read_pass(&chosen, workers)
                };
                drop(g);
                per_page(out)
            };
            let (cm, cr, gm, gr) = if r % 2 == 0 {
                let cm = run(true, false);
                let cr = run(false, false);
                let gm = run(true, true);
                let gr = run(false, true);
                (cm, cr, gm, gr)
            } else {
                let gr = run(false, true);
                let gm = run(true, true);
                let cr = run(false, false);
                let cm = run(true, false);
                (cm, cr, gm, gr)
            };
            drop_pages(&chosen).unwrap();
            println!(
                "round {r} limit {mib:5} MiB ({:6.0} MiB of files): wall ns/page cold mapped {:6.0} read {:6.0} | in the group mapped {:6.0} read {:6.0} | sys ns/page cold mapped {:6.0} read {:6.0} | in the group mapped {:6.0} read {:6.0}",
                total as f64 / (1 << 20) as f64,
                cm.0, cr.0, gm.0, gr.0, cm.1, cr.1, gm.1, gr.1
            );
        }
    }
}
