//! The page costs of a page-granular tier (a disk behind the page cache): random page
//! faults and a sequential pass over the wide data vector, against the same reads on
//! DRAM, and the device's readahead window.

use std::path::Path;

use pmolap_place::PageCosts;

use super::{both, timed, Copies, ProfileOptions, INT_WIDE};
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
    // every CPU's worker claims the next morsel (64 pages) in turn, so the file is
    // streamed in by all workers at once. On DRAM the same reads cost next to nothing,
    // so the difference is the (wall) cost of bringing a page in, not of decoding it.
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let seq = both(c, o.reps, &|t| {
        let dv = &t.column(INT_WIDE.0)?.dv;
        let per_page = (page * 8 / dv.width() as u64) as usize;
        let pages = dv.len().div_ceil(per_page);
        let next_morsel = std::sync::atomic::AtomicUsize::new(0);
        Ok(timed(|| {
            std::thread::scope(|sc| {
                for _ in 0..workers {
                    sc.spawn(|| {
                        let mut s = 0u64;
                        loop {
                            let m = next_morsel.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let first = m * 64;
                            if first >= pages {
                                break;
                            }
                            for p in first..(first + 64).min(pages) {
                                s = s.wrapping_add(dv.get(p * per_page) as u64);
                            }
                        }
                        std::hint::black_box(s);
                    });
                }
            });
            pages as u64
        }))
    })?;
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
        readahead_pages: Some(readahead_pages(&c.dir, page)),
        note: Some(format!(
            "per page over DRAM: random {:.0} vs {:.0} ns, sequential {:.0} vs {:.0} ns (tier vs DRAM)",
            random.1, random.0, seq.1, seq.0
        )),
    })
}

/// Pages the kernel reads around a fault on the filesystem of `dir`: the backing
/// device's readahead window (`/sys/class/bdi/MAJ:MIN/read_ahead_kb`), 128 KiB if unknown.
fn readahead_pages(dir: &Path, page: u64) -> u64 {
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
