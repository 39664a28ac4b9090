//! Which physical frames hold a mapping's pages (`/proc/self/pagemap`, and the frames'
//! flags in `/proc/kpageflags`; both need `CAP_SYS_ADMIN`, else [`census`] says
//! nothing). Reading memory that the page cache holds costs more or less than reading a
//! copy in DRAM depending on how its pages lie in physical memory: in large folios, four
//! aligned contiguous frames share one TLB entry on AMD Zen (PTE coalescing), in
//! single-page folios scattered by a fragmented allocator every page needs its own
//! (docs/placement.md, "Which frames serve a cached page"). The census is taken between
//! runs, never inside a timed one: it reads 8 bytes of `pagemap` per page of the ranges.

use std::fs::File;
use std::io::ErrorKind;
use std::os::unix::fs::FileExt;

use serde::{Deserialize, Serialize};

const PAGE: usize = 4096;
/// `pagemap`: page present in RAM.
const PRESENT: u64 = 1 << 63;
/// `pagemap`: bits 0–54 are the frame number (zero without `CAP_SYS_ADMIN`).
const PFN_MASK: u64 = (1 << 55) - 1;
/// `kpageflags`: COMPOUND_HEAD, COMPOUND_TAIL (the frame belongs to a large folio).
const COMPOUND: u64 = (1 << 15) | (1 << 16);
/// Flags are read for one page in this many (a folio's pages share them).
const FLAG_SAMPLE: usize = 8;

/// How a set of mapped ranges sits in physical memory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Frames {
    /// Pages of the ranges mapped to a frame now.
    pub present: u64,
    /// Present pages in aligned groups of 4 whose frames are contiguous and aligned: what
    /// AMD's TLB can hold in one entry.
    pub coalesced: u64,
    /// Of the pages whose flags were read (one in [`FLAG_SAMPLE`]), those in a large
    /// (compound) folio, and how many were read (absent where `kpageflags` is not
    /// readable).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub large_folio: Option<(u64, u64)>,
}

impl Frames {
    /// The share of present pages in coalescable groups.
    pub fn coalesced_fraction(&self) -> f64 {
        self.coalesced as f64 / self.present.max(1) as f64
    }

    /// The share of sampled present pages in large folios.
    pub fn large_folio_fraction(&self) -> Option<f64> {
        self.large_folio.map(|(l, n)| l as f64 / n.max(1) as f64)
    }

    /// The census of both sets of ranges together.
    pub fn plus(mut self, o: &Frames) -> Frames {
        self.add(o);
        self
    }

    fn add(&mut self, o: &Frames) {
        self.present += o.present;
        self.coalesced += o.coalesced;
        self.large_folio = match (self.large_folio, o.large_folio) {
            (Some((a, b)), Some((c, d))) => Some((a + c, b + d)),
            (x, None) | (None, x) => x,
        };
    }
}

/// The census of `ranges` (this process's mappings), or `None` where this process may
/// not read frame numbers (not privileged, or no `/proc`). Pages not mapped now are not
/// counted and nothing is faulted in.
pub fn census<'a>(ranges: impl IntoIterator<Item = &'a [u8]>) -> Option<Frames> {
    let pagemap = File::open("/proc/self/pagemap").ok()?;
    let flags = File::open("/proc/kpageflags").ok();
    let mut total = Frames::default();
    let mut any_pfn = false;
    for r in ranges {
        let (f, seen) = range_census(&pagemap, flags.as_ref(), r)?;
        any_pfn |= seen;
        total.add(&f);
    }
    // Present pages with frame number 0 everywhere: the kernel hid them (unprivileged).
    (any_pfn || total.present == 0).then_some(total)
}

/// One range's census, and whether any present page showed a frame number.
fn range_census(pagemap: &File, flags: Option<&File>, r: &[u8]) -> Option<(Frames, bool)> {
    let start = (r.as_ptr() as usize) / PAGE * PAGE;
    let end = (r.as_ptr() as usize + r.len()).div_ceil(PAGE) * PAGE;
    let n = (end - start) / PAGE;
    let mut entries = vec![0u8; n * 8];
    read_exact_at(pagemap, &mut entries, (start / PAGE * 8) as u64)?;
    let entry = |i: usize| u64::from_le_bytes(entries[i * 8..i * 8 + 8].try_into().unwrap());
    let pfn = |i: usize| {
        let e = entry(i);
        (e & PRESENT != 0).then_some(e & PFN_MASK)
    };
    let mut f = Frames {
        large_folio: flags.map(|_| (0, 0)),
        ..Frames::default()
    };
    let mut seen = false;
    for i in 0..n {
        let Some(p) = pfn(i) else { continue };
        f.present += 1;
        seen |= p != 0;
        // Groups of 4 aligned in the virtual range (the TLB coalesces virtual-aligned
        // groups) whose frames are contiguous and aligned alike.
        if (start / PAGE + i).is_multiple_of(4)
            && i + 3 < n
            && p.is_multiple_of(4)
            && (1..4).all(|k| pfn(i + k) == Some(p + k as u64))
        {
            f.coalesced += 4;
        }
        if let (Some(file), Some((large, read))) = (flags, f.large_folio.as_mut()) {
            if i.is_multiple_of(FLAG_SAMPLE) && p != 0 {
                let mut b = [0u8; 8];
                if read_exact_at(file, &mut b, p * 8).is_some() {
                    *read += 1;
                    *large += u64::from(u64::from_le_bytes(b) & COMPOUND != 0);
                }
            }
        }
    }
    Some((f, seen))
}

fn read_exact_at(f: &File, buf: &mut [u8], off: u64) -> Option<()> {
    match f.read_exact_at(buf, off) {
        Ok(()) => Some(()),
        Err(e) if e.kind() == ErrorKind::Interrupted => read_exact_at(f, buf, off),
        Err(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Region, RegionOptions, TierSpec};

    #[test]
    fn counts_the_pages_mapped_now_and_nothing_else() {
        let len = 64 * PAGE;
        let mut r = Region::new(
            &TierSpec::Dram { node: None },
            len,
            &RegionOptions::default(),
        )
        .unwrap();
        // Touch half the pages: only those are present (an anonymous mapping faults on
        // first write).
        for p in (0..64).step_by(2) {
            r.as_mut_slice()[p * PAGE] = 1;
        }
        // Unprivileged (no frame numbers): no census, nothing to check.
        if let Some(f) = census([r.as_slice()]) {
            // Exactly the touched pages (no huge page: the region is not advised to have
            // them, and 256 KiB is below the smallest THP size that would apply).
            assert_eq!(f.present, 32, "{f:?}");
            // Every other page absent: no group of 4 is whole.
            assert_eq!(f.coalesced, 0);
            // Flags read for one page in 8: the touched pages at 0, 8, .., 56.
            if let Some((l, n)) = f.large_folio {
                assert!(l <= n && n == 8, "{l} of {n}");
            }
        }
    }

    #[test]
    fn an_empty_census_is_zero_and_sums_add() {
        let f = census(std::iter::empty()).unwrap_or_default();
        assert_eq!(f.present, 0);
        assert_eq!(f.coalesced_fraction(), 0.0);
        let mut a = Frames {
            present: 8,
            coalesced: 4,
            large_folio: Some((1, 2)),
        };
        a.add(&Frames {
            present: 4,
            coalesced: 4,
            large_folio: None,
        });
        assert_eq!(
            a,
            Frames {
                present: 12,
                coalesced: 8,
                large_folio: Some((1, 2))
            }
        );
        assert_eq!(a.large_folio_fraction(), Some(0.5));
    }
}
