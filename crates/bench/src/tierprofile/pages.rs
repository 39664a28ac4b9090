//! The page costs of a page-granular tier (a disk behind the page cache): random page
//! faults and a sequential pass over the wide data vector, against the same reads on
//! DRAM, and the device's readahead window.

use std::path::Path;

use pmolap_place::profile::StreamCost;
use pmolap_place::PageCosts;

use crate::ssb::validate::counters::{system_cpu_ns, IoSample};

use super::{both, timed, Copies, ProfileOptions, INT_NARROW, INT_WIDE, STR};
use crate::error::Result;

/// Page costs of a page-granular tier: one id per page of the wide data vector read in
/// random page order (each read faults one page in), and the whole vector unpacked in
/// order (faults with readahead); ns per page over the same reads on DRAM.
pub(super) fn page_costs(c: &mut Copies, o: &ProfileOptions) -> Result<PageCosts> {
    let page = 4096u64;
    let random = both(c, o.reps, &|t| {
        let dv = &t.column(INT_WIDE.0)?.dv;
        let per_page = (page * 8 / dv.width() as u64) as usize;
        let pages = (dv.len() / per_page).max(1);
        // Isolated faults: 1 page in 64, in a scattered order (a golden-ratio stride
        // coprime with the page count), so the kernel's readahead around one fault
        // rarely serves a later touch.
        let golden = (pages as f64 * 0.618_033_988_7) as usize;
        let stride = (golden..).find(|s| gcd(*s, pages) == 1).unwrap_or(1);
        let touch = (pages / 64).clamp(1, o.lookups);
        Ok(timed(|| {
            let mut p = 0usize;
            let mut s = 0u64;
            for _ in 0..touch {
                s = s.wrapping_add(dv.get(p * per_page) as u64);
                p = (p + stride) % pages.max(1);
            }
            std::hint::black_box(s);
            touch as u64
        }))
    })?;
    // Sequential: one id per page, in page order, the way the engine reads a column:
    // every CPU's worker claims the next morsel of rows in turn, so the files are
    // streamed in by all workers at once — one data vector (one stream), and the
    // table's three data vectors together (a morsel touches the same rows of each, as
    // the engine's morsels touch the columns a query reads: three interleaved streams).
    // On DRAM the same reads cost next to nothing, so the difference is the (wall) cost
    // of bringing a page in, not of decoding it.
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let streams = |cols: &'static [&'static str]| {
        move |t: &pmolap_store::table::Table| -> Result<(f64, u64)> {
            let dvs = cols
                .iter()
                .map(|c| Ok(&t.column(c)?.dv))
                .collect::<Result<Vec<_>>>()?;
            let rows = dvs[0].len();
            // A morsel: 64 pages of the first (widest) vector's rows.
            let morsel = (page * 8 / dvs[0].width() as u64) as usize * 64;
            let next_morsel = std::sync::atomic::AtomicUsize::new(0);
            let mut pages = 0u64;
            for dv in &dvs {
                let per_page = (page * 8 / dv.width() as u64) as usize;
                pages += dv.len().div_ceil(per_page) as u64;
            }
            Ok(timed(|| {
                std::thread::scope(|sc| {
                    for _ in 0..workers {
                        sc.spawn(|| {
                            let mut s = 0u64;
                            loop {
                                let m =
                                    next_morsel.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                                let first = m * morsel;
                                if first >= rows {
                                    break;
                                }
                                let end = (first + morsel).min(rows);
                                for dv in &dvs {
                                    let per_page = (page * 8 / dv.width() as u64) as usize;
                                    let mut r = first - first % per_page;
                                    while r < end {
                                        s = s.wrapping_add(dv.get(r.max(first)) as u64);
                                        r += per_page;
                                    }
                                }
                            }
                            std::hint::black_box(s);
                        });
                    }
                });
                pages
            }))
        }
    };
    let seq = both(c, o.reps, &streams(&[INT_WIDE.0]))?;
    let reclaim = reclaim_cost(c, o, &streams(&[INT_WIDE.0]))?;
    let multi = both(c, o.reps, &streams(&[INT_WIDE.0, STR.0, INT_NARROW.0]))?;
    // Isolated faults: one touch in the middle of each readahead window of the wide
    // vector, so each touch is a major fault reading its own window; the time per fault
    // over the pages it read (counted by the kernel) is what a page read around a fault
    // costs.
    let window = readahead_pages(&c.dir, page);
    let read_per_fault = std::cell::Cell::new(0.0f64);
    let fault = both(c, o.reps, &|t| {
        let dv = &t.column(INT_WIDE.0)?.dv;
        let per_page = (page * 8 / dv.width() as u64) as usize;
        let pages = dv.len().div_ceil(per_page) as u64;
        let touches: Vec<usize> = (0..pages.div_ceil(window).max(1))
            .map(|w| ((w * window + window / 2).min(pages - 1)) as usize * per_page)
            .collect();
        let before = IoSample::now();
        let r = timed(|| {
            let mut s = 0u64;
            for &i in &touches {
                s = s.wrapping_add(dv.get(i.min(dv.len() - 1)) as u64);
            }
            std::hint::black_box(s);
            touches.len() as u64
        });
        if let Some(io) = before.zip(IoSample::now()).map(|(a, b)| a.until(b)) {
            // The tier's runs read; the DRAM copy's read nothing.
            let pages_read = io.read_bytes / page as f64 / touches.len() as f64;
            read_per_fault.set(read_per_fault.get().max(pages_read));
        }
        Ok(r)
    })?;
    let latency = fault_latency(c, o)?;
    let seq_ns = (seq.1 - seq.0).max(0.0);
    // The faulting worker waits for its whole read-around window: ns per page of it.
    let fault_page_ns = ((fault.1 - fault.0) / read_per_fault.get().max(1.0)).max(0.0);
    Ok(PageCosts {
        page_bytes: page,
        // A difference below zero is noise: a page costs at least what it does on DRAM
        // (the note keeps both figures; profiles refuse negative page costs).
        random_page_ns: (random.1 - random.0).max(0.0),
        sequential_page_ns: (seq.1 - seq.0).max(0.0),
        // How many pages a random fault amounts to: its cost in pages of sequential
        // reading, at most the device's readahead window (what the kernel may read
        // around a fault).
        fault_pages: ((random.1 - random.0) / (seq.1 - seq.0).max(1.0))
            .round()
            .clamp(1.0, readahead_pages(&c.dir, page) as f64) as u64,
        readahead_pages: Some(window),
        fault_page_ns: Some(fault_page_ns),
        fault_latency_ns: latency,
        reclaim_page_ns: reclaim.as_ref().map(|r| r.extra_ns),
        streams: Some(vec![
            StreamCost {
                streams: 1,
                page_ns: seq_ns,
            },
            StreamCost {
                streams: 3,
                page_ns: (multi.1 - multi.0).max(0.0),
            },
        ]),
        note: Some(format!(
            "per page over DRAM: random {:.0} vs {:.0} ns, sequential {:.0} vs {:.0} ns, 3 streams {:.0} vs {:.0} ns; an isolated fault {:.0} vs {:.0} ns reading {:.0} pages (tier vs DRAM); a one-page read {} ns; a page read into a full page cache {}; {workers} workers",
            random.1, random.0, seq.1, seq.0, multi.1, multi.0, fault.1, fault.0, read_per_fault.get(),
            latency.map_or("-".to_string(), |l| format!("{l:.0}")),
            reclaim.map_or("- (no memory cgroup)".to_string(), |r| format!(
                "{:.0} ns wall vs {:.0} cold, {:.0} ns of system CPU vs {:.0} cold (streaming in a memory cgroup of {} MiB)",
                r.wall_ns, r.cold_wall_ns, r.cpu_ns, r.cold_cpu_ns,
                r.limit >> 20
            ))
        )),
    })
}

/// What a page read into a full page cache costs: per page read, in the medians over
/// the rounds (see [`reclaim_cost`]).
struct Reclaim {
    /// The model's `reclaim_page_ns`: the extra system CPU over the workers.
    extra_ns: f64,
    wall_ns: f64,
    cold_wall_ns: f64,
    cpu_ns: f64,
    cold_cpu_ns: f64,
    limit: u64,
}

/// Wall ns, system CPU ns and pages read from storage of counted passes, summed.
#[derive(Default)]
struct Passes {
    wall: f64,
    cpu: f64,
    read: f64,
    n: usize,
}

impl Passes {
    /// Enough of them: 0.4 s of wall time or 16 passes (the system CPU clock ticks every
    /// 10 ms).
    fn enough(&self) -> bool {
        self.wall >= 4e8 || self.n >= 16
    }

    /// One pass of `pass` over `table`, counted; `false` without procfs's counters.
    fn count(
        &mut self,
        table: &pmolap_store::table::Table,
        pass: &dyn Fn(&pmolap_store::table::Table) -> Result<(f64, u64)>,
    ) -> Result<bool> {
        let (io0, cpu0) = (IoSample::now(), system_cpu_ns());
        let (ns, _) = pass(table)?;
        let (Some(io0), Some(cpu0), Some(io1), Some(cpu1)) =
            (io0, cpu0, IoSample::now(), system_cpu_ns())
        else {
            return Ok(false);
        };
        self.wall += ns;
        self.cpu += cpu1 - cpu0;
        self.read += io0.until(io1).read_bytes / 4096.0;
        self.n += 1;
        Ok(true)
    }

    /// Wall ns and system CPU ns per page read.
    fn per_page(&self) -> (f64, f64) {
        (
            self.wall / self.read.max(1.0),
            self.cpu / self.read.max(1.0),
        )
    }
}

/// What a page read into a full page cache costs more than one read with room to spare,
/// measured in pairs: each round streams the wide data vector (as `pass`, the sequential
/// measurement, every worker) cold with room to spare — pages dropped and the table
/// reopened before each pass — and then, inside a memory cgroup limited to half the file
/// (at least two readahead windows per worker), once to fill it and again counted, so
/// every page a counted pass reads is charged to a full cgroup, which reclaims a page the
/// reader had mapped for it. The price is the **system CPU time** per page read in the
/// cgroup over the cold passes' (`/proc/self/stat` `stime`, [`system_cpu_ns`]): a
/// cgroup's direct reclaim is kernel work in the faulting worker (the reverse map walked,
/// the page table entries cleared, the TLBs flushed — IPIs to the other vCPUs in a guest —
/// under the LRU lock; `perf` behind 253 MiB at SF 10: a quarter of all CPU samples in
/// `try_to_free_mem_cgroup_pages`), and it does not move with the device's speed, which
/// the wall time of the same passes does by more than the difference (2–10 µs a page
/// between passes a minute apart on these machines' virtual disk). The workers reclaim in
/// parallel, so the wall time a page adds is that CPU time over the workers. Medians over
/// `reps` rounds; `None` where no memory cgroup can be made (not root, no memory
/// controller), procfs lacks the counters, or the tier's copy is not the table's files.
/// (Until 2026-11-29 the price was the wall ns of one pass in the cgroup minus the
/// sequential measurement's, taken minutes apart: 0.27-0.53 µs, where the paired system
/// CPU is 2.1 µs over 2 workers; docs/placement.md, "The reclaim's price, paired".)
fn reclaim_cost(
    c: &mut Copies,
    o: &ProfileOptions,
    pass: &dyn Fn(&pmolap_store::table::Table) -> Result<(f64, u64)>,
) -> Result<Option<Reclaim>> {
    if !c.paged {
        return Ok(None);
    }
    let page = 4096u64;
    let file_bytes = {
        let t = c.tier()?;
        let dv = &t.column(INT_WIDE.0)?.dv;
        dv.words().len() as u64 * 8
    };
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let window = readahead_pages(&c.dir, page) * page;
    let limit = (file_bytes / 2).max(2 * window * workers);
    if limit >= file_bytes {
        return Ok(None);
    }
    let (mut extra, mut walls, mut cold_walls, mut cpus, mut cold_cpus) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..o.reps.max(1) {
        if pmolap_os::signal::interrupted() {
            return Err(pmolap_os::Error::Interrupted.into());
        }
        // Cold: `tier()` reopens the table with its pages dropped before every pass.
        let mut cold = Passes::default();
        while !cold.enough() {
            if !cold.count(c.tier()?, pass)? {
                return Ok(None);
            }
        }
        let t = c.tier()?;
        let Ok(guard) = pmolap_os::cgroup::MemoryLimit::enter(limit) else {
            return Ok(None);
        };
        let mut inside = Passes::default();
        let counted = pass(t).and_then(|_| {
            while !inside.enough() {
                if !inside.count(t, pass)? {
                    return Ok(false);
                }
            }
            Ok(true)
        });
        drop(guard);
        if !counted? {
            return Ok(None);
        }
        let (cold_wall, cold_cpu) = cold.per_page();
        let (wall, cpu) = inside.per_page();
        extra.push((cpu - cold_cpu) / workers as f64);
        walls.push(wall);
        cold_walls.push(cold_wall);
        cpus.push(cpu);
        cold_cpus.push(cold_cpu);
    }
    let median = |v: &[f64]| pmolap_results::stats::median(v);
    Ok(Some(Reclaim {
        extra_ns: median(&extra).max(0.0),
        wall_ns: median(&walls),
        cold_wall_ns: median(&cold_walls),
        cpu_ns: median(&cpus),
        cold_cpu_ns: median(&cold_cpus),
        limit,
    }))
}

/// The latency of one small read from the tier: one page read with `pread` at
/// scattered offsets of the wide data vector's file, its pages dropped and readahead off
/// (`POSIX_FADV_RANDOM`), so each read waits for the device once and reads one page;
/// the median over `reps` runs of the mean per read. What a major fault on a small file
/// waits for before its pages (the page model's [`PageCosts::fault_latency_ns`]). `None`
/// when the tier's copy is not the table's files (nothing is paged in).
fn fault_latency(c: &mut Copies, o: &ProfileOptions) -> Result<Option<f64>> {
    use pmolap_tier::io::{fadvise, Advice};
    use std::os::unix::fs::FileExt;
    if !c.paged {
        return Ok(None);
    }
    let path = {
        let t = c.tier()?;
        let col = t
            .manifest()
            .columns
            .iter()
            .find(|col| col.name == INT_WIDE.0)
            .ok_or_else(|| crate::error::Error::Ssb(format!("no column {}", INT_WIDE.0)))?;
        let f = col
            .files
            .iter()
            .find(|f| f.kind == pmolap_store::StructureKind::DataVector)
            .ok_or_else(|| {
                crate::error::Error::Ssb(format!("{} has no data vector", INT_WIDE.0))
            })?;
        t.dir().join(&f.file)
    };
    // No mapping of the table may keep the file's pages: the copy is reopened later.
    c.tier = None;
    let page = 4096u64;
    let file = std::fs::File::open(&path).map_err(|e| crate::error::Error::io(&path, e))?;
    let pages = (file
        .metadata()
        .map_err(|e| crate::error::Error::io(&path, e))?
        .len()
        / page)
        .max(1);
    let golden = (pages as f64 * 0.618_033_988_7) as u64;
    let stride = (golden..)
        .find(|s| gcd(*s as usize, pages as usize) == 1)
        .unwrap_or(1);
    let touch = (pages / 64).clamp(1, o.lookups as u64);
    let mut buf = vec![0u8; page as usize];
    let mut runs = Vec::new();
    for _ in 0..o.reps.max(1) {
        if pmolap_os::signal::interrupted() {
            return Err(pmolap_os::Error::Interrupted.into());
        }
        fadvise(&file, &path, Advice::Random)?;
        crate::ssb::data::drop_pages(std::slice::from_ref(&path))?;
        let (ns, n) = timed(|| {
            let mut p = 0u64;
            for _ in 0..touch {
                // A short read (the last page) still waited for the device.
                let _ = file.read_at(&mut buf, p * page);
                p = (p + stride) % pages;
            }
            touch
        });
        runs.push(ns / n.max(1) as f64);
    }
    Ok(Some(pmolap_results::stats::median(&runs)))
}

/// Pages the kernel reads around a fault on the filesystem of `dir`: the backing
/// device's readahead window (`/sys/class/bdi/MAJ:MIN/read_ahead_kb`), 128 KiB if unknown.
pub fn readahead_pages(dir: &Path, page: u64) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let kb = std::fs::metadata(dir).ok().and_then(|m| {
        let dev = m.dev();
        let (major, minor) = ((dev >> 8) & 0xfff, (dev & 0xff) | ((dev >> 12) & 0xfff00));
        std::fs::read_to_string(format!("/sys/class/bdi/{major}:{minor}/read_ahead_kb"))
            .ok()?
            .trim()
            .parse::<u64>()
            .ok()
    });
    (kb.unwrap_or(128) * 1024 / page).max(1)
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}
