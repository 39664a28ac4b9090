//! The page model: pmolap's extension of the paper's model for page-granular tiers (a
//! file behind the page cache, an SSD). On such a tier a structure's accesses cost
//! nothing extra once its pages are in memory; what costs is bringing each page in, once
//! per page per query when the pages are dropped before every query. The per-access
//! model (Eq. 3–5) charges every access instead and so over-prices structures that are
//! accessed many times per page and under-prices big structures touched once per page.
//!
//! Two ways to know the pages. **Recorded** (workload format 2, [`recorded_reads`]):
//! the pages each query was recorded touching form the workload's page reference
//! stream; a simulation of the kernel's page cache and readahead over it
//! ([`crate::readahead`]: read-around windows at faults, readahead windows ahead of
//! sequential readers, cold per query or a cache of the given size (one LRU list by
//! default, [`crate::pagecache::Policy`]) in the steady
//! state of the workload run pass after pass) gives the pages the device reads and the
//! major faults, priced with the profile's page costs and the run's threads
//! ([`PageReads::cost`]). **Estimated from the counts** (format 1 workloads, the
//! fallback below):
//!
//! For one query and one structure of `m` bytes in `P = ⌈m / page⌉` pages:
//!
//! ```text
//! seq    = min(P, ⌈(scan + near + 64 · medium) · e / page⌉)   pages read in order
//! faults = min(⌈(P − seq)/R⌉, W · (1 − (1 − 1/W)^x)),  W = ⌈P/R⌉, x = lookup + far
//! t      = io_threads · (seq · sequential_page_ns + faults · random_page_ns)
//! ```
//!
//! `e` is the bytes per entry: `bit_width / 8` for a data vector, 8 for an integer
//! dictionary, 16 for other structures' lookups; a scanned string dictionary or inverted
//! index counts as read whole (its entry size is not in the workload). Near and medium
//! dense lookups move forward through the structure (1 and ~64 entries per lookup), so
//! they read pages in order like a scan. A random fault reads `R = fault_pages` pages
//! around it (the profile's estimate of the kernel's read-around); the fault count is
//! Cardenas' formula for `x` uniformly random accesses over the `W` windows. Page costs
//! are device time: the I/O of one worker stalls the others' progress on the same device
//! rather than overlapping with it, so the cost is multiplied by the workers that share
//! the device (`ModelOptions::io_threads`), against `T_DRAM` in CPU time (wall ×
//! threads). A structure's cost is the sum over the workload's queries (its total
//! counts when the workload has no per-query counts).
//!
//! With a bounded page cache of `C` bytes instead of drops before each query, a share
//! `r = min(1, C / W)` of the touched pages is assumed resident, `W` being the bytes the
//! workload touches on the tier; the cost is scaled by `1 − r`. This share depends on
//! the whole placement, so the solvers use the unscaled (cold) costs and only
//! [`crate::Model::predict`] applies it.

use pmolap_results::place::IoFigures;
use pmolap_store::{AccessCounts, ColumnType, StructureKind};

use crate::profile::PageCosts;
use crate::workload::{StructureLoad, Workload};

/// Pages of `s` one query with counts `c` reads: (sequentially read pages, random
/// faults); a fault reads `fault_pages` pages.
pub fn touched_pages(
    s: &StructureLoad,
    c: &AccessCounts,
    page_bytes: u64,
    fault_pages: u64,
) -> (f64, f64) {
    let page = page_bytes.max(1) as f64;
    let pages = (s.bytes as f64 / page).ceil().max(1.0);
    // Scans and near/medium dense lookups move forward through the structure: pages in
    // order (a dense lookup advances 1 entry (near) or 64, the geometric middle of
    // 8..512 (medium)). Far dense and random lookups fault their pages one by one.
    let entries = c.scan as f64 + c.near_dense as f64 + 64.0 * c.medium_dense as f64;
    let seq = if entries == 0.0 {
        0.0
    } else {
        let entry_bytes = match (s.kind, s.value_type) {
            (StructureKind::DataVector, _) => s.bit_width.unwrap_or(32) as f64 / 8.0,
            (StructureKind::Dictionary, ColumnType::Int) => 8.0,
            _ if c.scan > 0 => f64::INFINITY,
            _ => 16.0,
        };
        (entries * entry_bytes / page).ceil().min(pages)
    };
    let x = (c.lookup + c.far_dense) as f64;
    (seq, random_faults(pages, seq, x, fault_pages))
}

/// Faults of `x` random touches over `pages` pages of which `seq` were read
/// sequentially: Cardenas' distinct units over windows of `fault_pages` pages (a fault
/// reads its window), at most the windows not yet read.
fn random_faults(pages: f64, seq: f64, x: f64, fault_pages: u64) -> f64 {
    if x == 0.0 {
        return 0.0;
    }
    let r = fault_pages.max(1) as f64;
    let windows = (pages / r).ceil().max(1.0);
    let distinct = windows * (1.0 - (1.0 - 1.0 / windows).powf(x));
    distinct.min(((pages - seq) / r).ceil()).max(0.0)
}

/// The page cost in ns of one query with counts `c` on `s`.
pub fn query_cost(s: &StructureLoad, c: &AccessCounts, pc: &PageCosts) -> f64 {
    let (seq, faults) = touched_pages(s, c, pc.page_bytes, pc.fault_pages);
    seq * pc.sequential_page_ns.max(0.0) + faults * pc.random_page_ns.max(0.0)
}

/// [`query_cost`] of every query of structure `i`, times `io_threads` (see the module
/// docs).
pub fn structure_cost_threads(w: &Workload, i: usize, pc: &PageCosts, io_threads: u32) -> f64 {
    structure_cost(w, i, pc) * io_threads.max(1) as f64
}

/// The page cost of structure `i` of `w` over the whole workload (per query where the
/// workload has per-query counts).
pub fn structure_cost(w: &Workload, i: usize, pc: &PageCosts) -> f64 {
    let s = &w.structures[i];
    if w.queries.is_empty() {
        return query_cost(s, &s.counts, pc);
    }
    w.queries
        .iter()
        .map(|q| query_cost(s, &q.counts[i], pc))
        .sum()
}

/// Bytes of structure `i` the workload touches at most in one query (what has to stay
/// cached for the structure to stop faulting).
pub fn touched_bytes(w: &Workload, i: usize, pc: &PageCosts) -> u64 {
    let s = &w.structures[i];
    let per = |c: &AccessCounts| {
        let (seq, faults) = touched_pages(s, c, pc.page_bytes, pc.fault_pages);
        let pages = seq + faults * pc.fault_pages as f64;
        ((pages * pc.page_bytes as f64) as u64).min(s.bytes)
    };
    if w.queries.is_empty() {
        return per(&s.counts);
    }
    w.queries
        .iter()
        .map(|q| per(&q.counts[i]))
        .max()
        .unwrap_or(0)
}

/// The count-based estimate of what the device reads for the structures `on`, cold:
/// per query the sequential pages plus `fault_pages` per fault.
pub fn counted_io(w: &Workload, on: &dyn Fn(usize) -> bool, pc: &PageCosts) -> IoFigures {
    let mut io = IoFigures::default();
    for (i, s) in w.structures.iter().enumerate().filter(|(i, _)| on(*i)) {
        let per_query: Vec<&AccessCounts> = if w.queries.is_empty() {
            vec![&s.counts]
        } else {
            w.queries.iter().map(|q| &q.counts[i]).collect()
        };
        for c in per_query {
            let (seq, faults) = touched_pages(s, c, pc.page_bytes, pc.fault_pages);
            io.read_bytes += (seq + faults * pc.fault_pages as f64) * pc.page_bytes as f64;
            io.major_faults += faults;
        }
    }
    io
}

/// The resident share `r = min(1, C / W)` for a cache of `cache_bytes` over `touched`
/// bytes.
pub fn resident_share(cache_bytes: u64, touched: u64) -> f64 {
    if touched == 0 {
        1.0
    } else {
        (cache_bytes as f64 / touched as f64).min(1.0)
    }
}

/// The readahead window in pages when a profile does not give one: 128 KiB of 4 KiB
/// pages, Linux's default `read_ahead_kb`.
pub const DEFAULT_READAHEAD_PAGES: u64 = 32;

/// What the recorded-page model charges: the pages the device reads and the major
/// faults ([`crate::readahead`] simulates the kernel's page cache and readahead).
pub use crate::readahead::PageReads;

impl PageReads {
    /// The extra CPU time (wall × threads) in ns for `threads` workers:
    ///
    /// ```text
    /// t = threads · (faults · L + around · (fault_page_ns − L / R) + Σ_k ahead_k · page_ns(k)
    ///                + evicted_used · reclaim_page_ns)
    /// ```
    ///
    /// `around` are the pages read around major faults: the faulting worker waits for
    /// the device's latency `L` ([`PageCosts::fault_latency_ns`]) and then for the
    /// window's pages, at `fault_page_ns` per page (measured with isolated faults that
    /// each read a whole window of `R` pages, latency included: hence `− L / R`). `ahead_k`
    /// are the pages read ahead of a sequential reader in steps that read `k` structures
    /// (streams) at once, at `page_ns(k)`, the wall time per page with every worker
    /// streaming `k` files together ([`PageCosts::page_ns`]: the profile's `streams`,
    /// else `sequential_page_ns`). Both are device time that stalls every worker sharing
    /// the device, hence `threads ·` against `T_DRAM` in CPU time. A profile without
    /// `fault_latency_ns` prices a fault by its pages alone (`L = 0`); one without
    /// `fault_page_ns` (from before it was measured) prices the pages around a fault like
    /// those read ahead and each fault at `random_page_ns` of CPU time, as the page
    /// model did. `evicted_used` are the pages evicted from a full bounded cache that had
    /// been touched since they were read — mapped into the reader, so reclaiming each
    /// unmaps it (the reverse map walked, the page table entry cleared, the TLBs flushed)
    /// — each at the profile's `reclaim_page_ns` more (0 where absent; measured streaming
    /// a file through a cache half its size, where every page evicted had been touched,
    /// as the system CPU of the cgroup's direct reclaim over the workers).
    /// A page read ahead and evicted before any touch is dropped without that work: behind
    /// a cache far smaller than the slow working set most of the windows read are (SF 1
    /// "all slow" behind 23.6 MiB: 9 % of the evicted pages touched), and charging each
    /// eviction over-priced those placements 1.5x (docs/placement.md, "Which evictions
    /// cost").
    pub fn cost(&self, pc: &PageCosts, threads: u32) -> f64 {
        let t = threads.max(1) as f64;
        let ahead: f64 = self
            .by_streams
            .iter()
            .enumerate()
            .map(|(k, &r)| r * pc.page_ns(k as u32 + 1))
            .sum();
        let around = match pc.fault_page_ns {
            Some(f) => {
                let l = pc.fault_latency_ns.unwrap_or(0.0).max(0.0);
                let window = pc.readahead_pages.unwrap_or(DEFAULT_READAHEAD_PAGES).max(1) as f64;
                t * (self.faults * l + self.around * (f.max(0.0) - l / window).max(0.0))
            }
            None => t * self.around * pc.page_ns(1) + self.faults * pc.random_page_ns.max(0.0),
        };
        let reclaim = t * self.evicted_used * pc.reclaim_page_ns.unwrap_or(0.0).max(0.0);
        t * ahead + around + reclaim
    }

    /// The same as `/proc/self/io` and `ru_majflt` count it.
    pub fn io(&self, pc: &PageCosts) -> IoFigures {
        IoFigures {
            read_bytes: self.read * pc.page_bytes as f64,
            major_faults: self.faults,
        }
    }
}

/// What the device reads for the structures `on` from the workload's page records:
/// with `cache_pages` `None`, each query starts with no page cached (pages dropped
/// before each query: the `cold` setting); with `Some(C)`, a page cache of `C` pages
/// shared by those structures (reclaimed under `reclaim`, [`crate::pagecache`]), in the steady state of the workload run over and
/// over (the `cache:SIZE` setting: a warm-up pass, then timed passes). The kernel reads
/// read-around and readahead windows, not single pages ([`crate::readahead`]). A
/// workload cut from a larger one ([`Workload::query`]) is priced inside its whole
/// workload's stream. `None` when the workload recorded no pages.
pub fn recorded_reads(
    w: &Workload,
    on: &dyn Fn(usize) -> bool,
    pc: &PageCosts,
    cache_pages: Option<u64>,
    reclaim: crate::pagecache::Policy,
) -> Option<PageReads> {
    crate::readahead::workload_reads_with(
        w,
        on,
        pc,
        cache_pages,
        crate::schedule::Order::default(),
        reclaim,
    )
}

/// The recorded-page model's cost of structure `i` alone, cold (what the solvers add up:
/// with pages dropped before each query the structures' files share no pages and no
/// readahead state, so the cold cost of a set is the sum of its structures'). `None`
/// when the workload recorded no pages.
pub fn recorded_structure_cost(
    w: &Workload,
    i: usize,
    pc: &PageCosts,
    threads: u32,
) -> Option<f64> {
    recorded_reads(w, &|s| s == i, pc, None, Default::default()).map(|m| m.cost(pc, threads))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Encoding;

    fn dv(bytes: u64, width: u32) -> StructureLoad {
        StructureLoad {
            table: "t".into(),
            column: "c".into(),
            kind: StructureKind::DataVector,
            bytes,
            value_type: ColumnType::Int,
            encoding: Some(Encoding::Uncompressed),
            bit_width: Some(width),
            counts: AccessCounts::default(),
        }
    }

    #[test]
    fn pages_by_hand() {
        let pc = PageCosts {
            page_bytes: 4096,
            random_page_ns: 100_000.0,
            sequential_page_ns: 1_000.0,
            fault_pages: 1,
            readahead_pages: None,
            fault_page_ns: None,
            fault_latency_ns: None,
            reclaim_page_ns: None,
            streams: None,
            note: None,
        };
        // 40 pages; a scan of 16384 entries of 16 bits = 32 KiB = 8 pages.
        let s = dv(40 * 4096, 16);
        let c = AccessCounts::scans(16384);
        assert_eq!(touched_pages(&s, &c, 4096, 1), (8.0, 0.0));
        assert_eq!(query_cost(&s, &c, &pc), 8_000.0);
        // One random lookup: one page. 1000 near lookups advance 1000 entries (2000
        // bytes: one page in order); 100 medium ones ~6400 entries (12 800 bytes: 4).
        let c = AccessCounts {
            lookup: 1,
            near_dense: 1000,
            ..AccessCounts::default()
        };
        let (seq, rand) = touched_pages(&s, &c, 4096, 1);
        assert_eq!(seq, 1.0);
        assert!((rand - 1.0).abs() < 1e-9, "{rand}");
        let c = AccessCounts {
            medium_dense: 100,
            ..AccessCounts::default()
        };
        assert_eq!(touched_pages(&s, &c, 4096, 1), (4.0, 0.0));
        // Many lookups: at most every page not already scanned.
        let c = AccessCounts {
            scan: 16384 * 4,
            lookup: 1_000_000,
            ..AccessCounts::default()
        };
        let (seq, rand) = touched_pages(&s, &c, 4096, 1);
        assert_eq!(seq, 32.0);
        assert!((rand - 8.0).abs() < 1e-6, "{rand}");
        // Cardenas: 2 lookups over 2 pages touch 1.5 pages on average.
        let s2 = dv(2 * 4096, 8);
        let c = AccessCounts::lookups(2);
        assert!((touched_pages(&s2, &c, 4096, 1).1 - 1.5).abs() < 1e-12);
        // Faults read windows of 4 pages: a million lookups over 40 pages fault 10
        // windows, minus the 8 pages (2 windows) already scanned.
        let c = AccessCounts {
            scan: 16384,
            lookup: 1_000_000,
            ..AccessCounts::default()
        };
        let (seq, faults) = touched_pages(&s, &c, 4096, 4);
        assert_eq!(seq, 8.0);
        assert!((faults - 8.0).abs() < 1e-6, "{faults}");
        assert_eq!(resident_share(10, 40), 0.25);
        assert_eq!(resident_share(10, 0), 1.0);
        assert_eq!(resident_share(100, 40), 1.0);
    }

    /// A fault pays the device's latency once, then its window's pages: a small file
    /// (6 pages read around one fault) costs about the latency, not 6/R of a whole
    /// window's time; a whole window costs what the isolated fault measured.
    #[test]
    fn a_fault_pays_the_latency_then_its_pages() {
        let mut pc = PageCosts {
            page_bytes: 4096,
            random_page_ns: 0.0,
            sequential_page_ns: 1_000.0,
            fault_pages: 1,
            readahead_pages: Some(100),
            fault_page_ns: Some(3_000.0),
            fault_latency_ns: Some(100_000.0),
            reclaim_page_ns: None,
            streams: None,
            note: None,
        };
        let small = PageReads::new(6.0, 0.0, 1.0);
        // 1 · 100 µs + 6 · (3 µs − 100 µs / 100) = 112 µs, for each of 2 workers.
        assert!((small.cost(&pc, 2) - 2.0 * 112_000.0).abs() < 1e-6);
        // A whole window: 100 µs + 100 · 2 µs = 300 µs = 100 · fault_page_ns.
        let window = PageReads::new(100.0, 0.0, 1.0);
        assert!((window.cost(&pc, 1) - 300_000.0).abs() < 1e-6);
        // Pages read into a full cache pay the reclaim on top for each page they evict
        // that had been touched (mapped); evicting pages never touched costs nothing more.
        pc.reclaim_page_ns = Some(500.0);
        let mut full = window;
        full.evicting = 100.0;
        assert!((full.cost(&pc, 1) - 300_000.0).abs() < 1e-6);
        full.evicted_used = 40.0;
        assert!((full.cost(&pc, 1) - 320_000.0).abs() < 1e-6);
        pc.reclaim_page_ns = None;
        // Without a measured latency, pages alone (older profiles).
        pc.fault_latency_ns = None;
        assert!((small.cost(&pc, 1) - 18_000.0).abs() < 1e-6);
    }
}
