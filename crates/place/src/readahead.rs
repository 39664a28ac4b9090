//! What the kernel reads for a file mapping, simulated over a workload's recorded page
//! reference stream: the page cache of the recorded-page model ([`crate::pages`]).
//!
//! Linux (`mm/filemap.c`, `mm/readahead.c`, a mapping without `MADV_RANDOM` or
//! `MADV_SEQUENTIAL`, as the engine maps its structure files) does not read the page a
//! fault asks for but a window around it, and reads further windows ahead of a
//! sequential reader:
//!
//! - **read-around**: a touch of a page not in the page cache is a major fault; the
//!   kernel reads the `R` pages (`R` = the device's `read_ahead_kb` in pages,
//!   [`PageCosts::readahead_pages`]) starting `R/2` before it, cut at the file's ends,
//!   skipping pages already cached, and marks the page `R/4` before the window's end
//!   (`PG_readahead`);
//! - **async readahead**: the first touch of a marked page (it is in the cache: no
//!   fault) reads the next window — the `R` pages after the current one when the touch is
//!   where the window expects it, else the `R` pages from the first page not cached after
//!   it — and marks that window's first page.
//!
//! So a random fault occupies up to `R` pages of the cache (8 MiB where `read_ahead_kb`
//! is 8192), and a small cache thrashes long before the touched pages fill it. The
//! simulation counts every page read (what `/proc/self/io` `read_bytes` counts) and
//! every major fault (`ru_majflt`).
//!
//! **Cold** (`cache_pages` `None`): every query starts with an empty cache and fresh
//! readahead state (the database reopened, its pages dropped). **Cached**
//! (`Some(C)`): a cache of `C` pages shared by the structures simulated, reclaimed
//! under a [`Policy`] (the model's: one LRU list — pages read enter it at the head, a
//! touch moves its page to the head, the tail is evicted, with its mark), with
//! readahead state kept across queries, over two passes of the
//! whole workload; the second pass (the steady state of `place validate`'s warm-up then
//! timed passes) is counted.
//!
//! The stream is built by [`schedule::query_refs`] and the cache is a
//! [`crate::pagecache::Cache`]; [`workload_reads_with`] takes the other stream order
//! ([`Order::Engine`], the engine's morsels and workers) and reclaim policies
//! ([`Policy::TwoList`], [`Policy::Kernel`]), which the model does not use by default
//! (docs/placement.md: the engine order and the two lists predict the device's
//! counters worse; the kernel's reclaim predicts its bytes better and the times worse).

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

use crate::pagecache::{Cache, Key, Policy};
use crate::profile::PageCosts;
use crate::schedule::{self, Geometry, Order, Schedule};
use crate::workload::{StructurePages, Workload};

/// What the device reads for a query (or a workload): pages and major faults.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PageReads {
    /// Pages read from the device (read-around and readahead windows, cut at the
    /// structure's end, without the pages already cached).
    pub read: f64,
    /// Touches of a page not in the cache: major faults.
    pub faults: f64,
    /// Of `read`, the pages whose coming in evicted a cached page (a bounded cache that
    /// is full: the kernel reclaims a page for each, [`PageCosts::reclaim_page_ns`]).
    pub evicting: f64,
    /// Of the pages evicted, those touched since they were read (mapped: their reclaim
    /// unmaps them).
    pub evicted_used: f64,
    /// Of `read`, the pages read around faults (the faulting worker waits for them).
    pub around: f64,
    /// The rest of `read`, the pages read ahead (async readahead), split by how many
    /// structures the step that read them read pages of (the streams the device served
    /// at once): `by_streams[k - 1]` for `k` streams, the last for [`MAX_STREAMS`] or
    /// more.
    pub by_streams: [f64; MAX_STREAMS],
}

/// The most concurrent streams [`PageReads::by_streams`] tells apart.
pub const MAX_STREAMS: usize = 8;

impl PageReads {
    /// `around` pages read around `faults` and `ahead` read ahead in one stream.
    pub fn new(around: f64, ahead: f64, faults: f64) -> Self {
        let mut by_streams = [0.0; MAX_STREAMS];
        by_streams[0] = ahead;
        PageReads {
            read: around + ahead,
            faults,
            evicting: 0.0,
            evicted_used: 0.0,
            around,
            by_streams,
        }
    }

    fn add(&mut self, o: PageReads) {
        self.read += o.read;
        self.faults += o.faults;
        self.evicting += o.evicting;
        self.evicted_used += o.evicted_used;
        self.around += o.around;
        for (a, b) in self.by_streams.iter_mut().zip(o.by_streams) {
            *a += b;
        }
    }

    /// The mean streams per page read ahead (1 when none was).
    pub fn mean_streams(&self) -> f64 {
        let ahead: f64 = self.by_streams.iter().sum();
        if ahead == 0.0 {
            return 1.0;
        }
        self.by_streams
            .iter()
            .enumerate()
            .map(|(k, r)| (k + 1) as f64 * r)
            .sum::<f64>()
            / ahead
    }
}

/// A file's readahead state (`struct file_ra_state`): the last window read.
#[derive(Debug, Clone, Copy)]
struct Window {
    start: u64,
    size: u64,
    async_size: u64,
}

/// The kernel's page cache and readahead over the structures' files.
struct Sim<'a> {
    /// Pages per structure file.
    sizes: &'a [u64],
    /// The readahead window `R` in pages.
    window: u64,
    cache: Cache,
    marked: HashSet<Key>,
    ra: HashMap<u32, Window>,
    evicted: Vec<Key>,
}

impl Sim<'_> {
    fn reset(&mut self) {
        self.cache.clear();
        self.marked.clear();
        self.ra.clear();
    }

    /// Reads pages `start..end` of structure `s` that are not cached; marks `mark` if it
    /// is among the pages read. Returns the pages read and how many of them evicted a
    /// cached page.
    fn read(&mut self, s: u32, start: u64, end: u64, mark: u64) -> (u64, u64) {
        let (mut n, mut evicting) = (0, 0);
        for p in start..end {
            if self.cache.contains(&(s, p)) {
                continue;
            }
            let before = self.evicted.len();
            self.cache.insert((s, p), false, &mut self.evicted);
            n += 1;
            evicting += u64::from(self.evicted.len() > before);
            if p == mark {
                self.marked.insert((s, p));
            }
        }
        for k in self.evicted.drain(..) {
            self.marked.remove(&k);
        }
        (n, evicting)
    }

    /// One touch of page `p` of structure `s`.
    fn touch(&mut self, s: u32, p: u64) -> PageReads {
        let size = self.sizes[s as usize];
        let r = self.window;
        let mut out = PageReads::default();
        let used_before = self.cache.evicted_used();
        if self.cache.contains(&(s, p)) {
            if self.marked.remove(&(s, p)) {
                // Async readahead: the next window if this is where the last one
                // expected it, else from the first page not cached after `p`.
                let start = match self.ra.get(&s) {
                    Some(w) if p == w.start + w.size - w.async_size => w.start + w.size,
                    _ => (p + 1..size.min(p + 1 + r))
                        .find(|&q| !self.cache.contains(&(s, q)))
                        .unwrap_or(size),
                };
                if start < size {
                    let end = (start + r).min(size);
                    let (n, e) = self.read(s, start, end, start);
                    out.read += n as f64;
                    out.evicting += e as f64;
                    self.ra.insert(
                        s,
                        Window {
                            start,
                            size: r,
                            async_size: r,
                        },
                    );
                }
            }
        } else {
            // A major fault: read around it.
            out.faults += 1.0;
            let start = p.saturating_sub(r / 2);
            let end = (start + r).min(size).max(p + 1);
            let async_size = r / 4;
            let (n, e) = self.read(s, start, end, start + r - async_size);
            out.around += n as f64;
            out.evicting += e as f64;
            out.read += out.around;
            self.ra.insert(
                s,
                Window {
                    start,
                    size: r,
                    async_size,
                },
            );
        }
        if self.cache.contains(&(s, p)) {
            self.cache.touch(&(s, p));
        } else {
            // Read and evicted again by its own window (a cache smaller than one).
            self.cache.insert((s, p), true, &mut self.evicted);
        }
        for k in self.evicted.drain(..) {
            self.marked.remove(&k);
        }
        out.evicted_used = (self.cache.evicted_used() - used_before) as f64;
        out
    }
}

/// What [`simulate`] runs over: a whole workload's page records, the structures it
/// simulates, and the page geometry.
pub struct Stream<'a> {
    /// Per query, its page records.
    pub all: &'a [Vec<StructurePages>],
    /// Pages of each structure (in the profile's pages).
    pub sizes: &'a [u64],
    /// The structures simulated (those on the tier).
    pub on: &'a dyn Fn(usize) -> bool,
    /// Per structure, rows per recorded page and rows (data vectors; [`schedule`]).
    pub geometry: &'a [Option<Geometry>],
    /// How the engine's workers walk the fact rows.
    pub schedule: Schedule,
    /// The recorded page size and the profile's.
    pub rec_bytes: u64,
    pub page_bytes: u64,
    /// The readahead window `R` in pages.
    pub window: u64,
    /// What a bounded cache reclaims.
    pub policy: Policy,
}

impl std::fmt::Debug for Stream<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream")
            .field("queries", &self.all.len())
            .field("structures", &self.sizes.len())
            .field("page_bytes", &self.page_bytes)
            .field("window", &self.window)
            .finish_non_exhaustive()
    }
}

impl Stream<'_> {
    /// A digest of everything [`simulate`] depends on, with the cache size.
    fn digest(&self, cache_pages: Option<u64>) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (
            self.sizes,
            self.rec_bytes,
            self.page_bytes,
            self.window,
            cache_pages,
            self.schedule,
            self.policy,
        )
            .hash(&mut h);
        for g in self.geometry {
            g.map(|g| (g.rows_per_page.to_bits(), g.rows)).hash(&mut h);
        }
        (0..self.sizes.len())
            .map(self.on)
            .collect::<Vec<bool>>()
            .hash(&mut h);
        for q in self.all {
            q.len().hash(&mut h);
            for sp in q.iter().filter(|sp| (self.on)(sp.structure)) {
                sp.structure.hash(&mut h);
                for st in &sp.steps {
                    (st.step, &st.runs).hash(&mut h);
                }
            }
        }
        h.finish()
    }
}

/// Per query of `st.all`, what the device reads for the structures `st.on`: cold, or
/// behind a cache of `cache_pages` under `st.policy` in the steady state (see the
/// module docs).
pub fn simulate(st: &Stream<'_>, cache_pages: Option<u64>) -> Vec<PageReads> {
    let mut sim = Sim {
        sizes: st.sizes,
        window: st.window.max(1),
        cache: Cache::new(cache_pages, st.policy),
        marked: HashSet::new(),
        ra: HashMap::new(),
        evicted: Vec::new(),
    };
    let mut refs = Vec::new();
    let mut per_query = vec![PageReads::default(); st.all.len()];
    let passes = if cache_pages.is_some() { 2 } else { 1 };
    for pass in 0..passes {
        for (qi, q) in st.all.iter().enumerate() {
            if cache_pages.is_none() {
                sim.reset();
            }
            refs.clear();
            schedule::query_refs(
                q,
                st.on,
                st.geometry,
                st.schedule,
                st.rec_bytes,
                st.page_bytes,
                &mut refs,
            );
            let mut reads = PageReads::default();
            // Pages read per structure in the current step: the step's streams.
            let mut step_reads: HashMap<u32, f64> = HashMap::new();
            let flush = |step_reads: &mut HashMap<u32, f64>, reads: &mut PageReads| {
                let k = step_reads.values().filter(|&&r| r > 0.0).count();
                let n: f64 = step_reads.values().sum();
                if n > 0.0 {
                    reads.by_streams[k.clamp(1, MAX_STREAMS) - 1] += n;
                }
                step_reads.clear();
            };
            let mut step = None;
            for &(st, s, p) in &refs {
                if step != Some(st) {
                    flush(&mut step_reads, &mut reads);
                    step = Some(st);
                }
                let t = sim.touch(s, p);
                reads.read += t.read;
                reads.faults += t.faults;
                reads.around += t.around;
                reads.evicting += t.evicting;
                reads.evicted_used += t.evicted_used;
                *step_reads.entry(s).or_default() += t.read - t.around;
            }
            flush(&mut step_reads, &mut reads);
            if pass + 1 == passes {
                per_query[qi] = reads;
            }
        }
    }
    per_query
}

thread_local! {
    /// The last simulations (digest → per-query reads): validating one placement
    /// predicts each of its queries inside the same whole-workload stream.
    static MEMO: std::cell::RefCell<Vec<(u64, Vec<PageReads>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// [`simulate`], remembering the last few results on this thread.
pub fn simulate_memo(st: &Stream<'_>, cache_pages: Option<u64>) -> Vec<PageReads> {
    let key = st.digest(cache_pages);
    if let Some(v) = MEMO.with(|m| {
        m.borrow()
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.clone())
    }) {
        return v;
    }
    let v = simulate(st, cache_pages);
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() >= 8 {
            m.remove(0);
        }
        m.push((key, v.clone()));
    });
    v
}

/// What the device reads for the structures `on` of `w` from its page records, summed
/// over its queries (a workload cut from a larger one, [`Workload::query`], is priced
/// inside its whole workload's stream: its query's share). `None` when `w` recorded no
/// pages. The stream in [`Order::Steps`], a bounded cache under [`Policy::default`]
/// ([`workload_reads_with`] for the others).
pub fn workload_reads(
    w: &Workload,
    on: &dyn Fn(usize) -> bool,
    pc: &PageCosts,
    cache_pages: Option<u64>,
) -> Option<PageReads> {
    workload_reads_with(w, on, pc, cache_pages, Order::default(), Policy::default())
}

/// [`workload_reads`] with the stream in `order` and a bounded cache under `policy`.
pub fn workload_reads_with(
    w: &Workload,
    on: &dyn Fn(usize) -> bool,
    pc: &PageCosts,
    cache_pages: Option<u64>,
    order: Order,
    policy: Policy,
) -> Option<PageReads> {
    let rec = w.page_bytes.filter(|_| !w.queries.is_empty())?;
    let page = pc.page_bytes.max(rec);
    let window = pc
        .readahead_pages
        .unwrap_or(crate::pages::DEFAULT_READAHEAD_PAGES);
    let sizes: Vec<u64> = w
        .structures
        .iter()
        .map(|s| s.bytes.div_ceil(page).max(1))
        .collect();
    let own: Vec<Vec<StructurePages>>;
    let (all, counted): (&[Vec<StructurePages>], Option<usize>) = match &w.page_context {
        Some(ctx) => (&ctx.queries, Some(ctx.index)),
        None => {
            own = w.queries.iter().map(|q| q.pages.clone()).collect();
            (&own, None)
        }
    };
    let geometry = schedule::geometry(w, rec);
    let sched = Schedule::engine(order, w.threads.unwrap_or(1));
    let stream = |all| Stream {
        all,
        sizes: &sizes,
        on,
        geometry: &geometry,
        schedule: sched,
        policy,
        rec_bytes: rec,
        page_bytes: page,
        window,
    };
    let per_query = match (cache_pages, counted) {
        // Cold, one query: its own records are all it needs.
        (None, Some(i)) => simulate(&stream(std::slice::from_ref(&all[i])), None),
        (None, None) => simulate(&stream(all), None),
        (Some(_), _) => simulate_memo(&stream(all), cache_pages),
    };
    let mut out = PageReads::default();
    match (cache_pages, counted) {
        (Some(_), Some(i)) => out.add(per_query[i]),
        _ => per_query.iter().for_each(|r| out.add(*r)),
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmolap_store::PageStep;

    /// Two data vectors A and B of 5 pages (page 0 the header), one query touching
    /// pages 1–4 of each in step 1; morsels of 2 pages (rows 1 a page, 2 a morsel);
    /// read-around window 4; the second pass counted behind a cache of `cache` pages.
    fn two_streams(order: Order, workers: u64, policy: Policy, cache: Option<u64>) -> PageReads {
        let q: Vec<StructurePages> = (0..2)
            .map(|s| StructurePages {
                structure: s,
                steps: vec![PageStep {
                    step: 1,
                    runs: vec![[1, 4]],
                }],
            })
            .collect();
        let all = vec![q];
        let geo = [Some(Geometry {
            rows_per_page: 1.0,
            rows: 4,
        }); 2];
        let st = Stream {
            all: &all,
            sizes: &[5, 5],
            on: &|_| true,
            geometry: &geo,
            schedule: Schedule {
                order,
                morsel_rows: 2,
                workers,
            },
            policy,
            rec_bytes: 4096,
            page_bytes: 4096,
            window: 4,
        };
        simulate(&st, cache)[0]
    }

    #[test]
    fn interleaved_streams_evict_each_others_windows() {
        // In steps (A1 A2 A3 A4 B1 B2 B3 B4), worked by hand: A1 faults and reads A0–A3
        // (window from 1 − 2, cut at 0), marking A3; touching A3 reads A4 ahead; A's
        // 5 pages then evict B's, and B likewise: per pass 10 pages, 2 faults; the 2
        // pages read ahead in a step where both structures read ahead: 2 streams.
        let steps = two_streams(Order::Steps, 1, Policy::Lru, Some(4));
        assert_eq!((steps.read, steps.faults), (10.0, 2.0));
        assert_eq!((steps.around, steps.by_streams[1]), (8.0, 2.0));
        // The counted pass starts with the cache full: every page read evicts one. By
        // hand (LRU, 4 pages): A0–A3 evict B1–B4 (all touched), A4 evicts A0 (read around,
        // never touched), B0–B3 evict A1–A4 (touched), B4 evicts B0 (never touched): 8 of
        // the 10 evicted had been touched.
        assert_eq!(steps.evicting, 10.0);
        assert_eq!(steps.evicted_used, 8.0);
        // In the engine's order (morsels of 2 pages: A1 A2 B1 B2 A3 A4 B3 B4): A1 reads
        // A0–A3, B1 reads B0–B3 and evicts them all, A3 faults again and reads A1–A4
        // (mark A4: nothing after it), B3 reads B1–B4: 16 pages, 4 faults, all around.
        let engine = two_streams(Order::Engine, 1, Policy::Lru, Some(4));
        assert_eq!((engine.read, engine.faults), (16.0, 4.0));
        assert_eq!(engine.around, 16.0);
        assert_eq!(engine.evicting, 16.0);
        // Behind a cache that holds everything nothing is evicted.
        assert_eq!(
            two_streams(Order::Steps, 1, Policy::Lru, Some(64)).evicting,
            0.0
        );
    }

    #[test]
    fn the_order_does_not_change_cold_reads() {
        let cold = |order| two_streams(order, 2, Policy::TwoList, None);
        assert_eq!(cold(Order::Steps), cold(Order::Engine));
        assert_eq!(cold(Order::Steps).read, 10.0);
        assert_eq!(
            cold(Order::Steps).evicting,
            0.0,
            "cold: no bound, no eviction"
        );
    }
}
