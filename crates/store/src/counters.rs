//! Access counters per structure, after §4.1–§4.2 of the placement paper: *scan*
//! accesses (each entry read by a sequential pass counts one), random *lookups*, and
//! *dense* lookups classed by the stride to the previous lookup of the same batch.
//!
//! The paper gives the near class as strides below eight entries ("predominantly L1 hits")
//! and reads the medium/far borders off its Figure 6 (prefetcher still effective vs. one
//! or more cache misses per lookup; beyond that lookups behave as random). pmolap uses:
//!
//! | class  | stride `d` (entries) |
//! |--------|----------------------|
//! | near   | `d < 8`              |
//! | medium | `8 <= d < 512`       |
//! | far    | `512 <= d < 2^18`    |
//! | lookup (random) | `d >= 2^18`, or the first lookup of a batch |
//!
//! For inverted indexes the paper counts only directly adjacent lookups as dense; pmolap
//! does the same (`d <= 1` near, anything else a random lookup).
//!
//! Counting is off by default; when on, each bulk call classifies its batch in a
//! branch-free pass and updates each counter once (one atomic add per class per call).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use serde::{Deserialize, Serialize};

/// Strides below this are near dense lookups.
pub const NEAR_MAX_STRIDE: u64 = 8;
/// Strides below this (and at least [`NEAR_MAX_STRIDE`]) are medium dense lookups.
pub const MEDIUM_MAX_STRIDE: u64 = 512;
/// Strides below this (and at least [`MEDIUM_MAX_STRIDE`]) are far dense lookups; larger
/// strides count as random lookups.
pub const FAR_MAX_STRIDE: u64 = 1 << 18;

/// A snapshot of one structure's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessCounts {
    pub scan: u64,
    pub lookup: u64,
    pub near_dense: u64,
    pub medium_dense: u64,
    pub far_dense: u64,
}

impl std::ops::AddAssign for AccessCounts {
    fn add_assign(&mut self, o: AccessCounts) {
        self.scan += o.scan;
        self.lookup += o.lookup;
        self.near_dense += o.near_dense;
        self.medium_dense += o.medium_dense;
        self.far_dense += o.far_dense;
    }
}

impl AccessCounts {
    /// `n` scan accesses.
    pub fn scans(n: u64) -> AccessCounts {
        AccessCounts {
            scan: n,
            ..AccessCounts::default()
        }
    }

    /// `n` random lookups.
    pub fn lookups(n: u64) -> AccessCounts {
        AccessCounts {
            lookup: n,
            ..AccessCounts::default()
        }
    }

    /// A batch of lookups at `positions`, classed by the stride between neighbours (the
    /// first of the batch is a random lookup): what [`Counters`] adds for a gather.
    /// Branch-free with 32-bit lane counters, so LLVM vectorises it.
    pub fn of_batch(positions: &[u32]) -> AccessCounts {
        if positions.is_empty() {
            return AccessCounts::default();
        }
        let (mut near, mut medium, mut far) = (0u64, 0u64, 0u64);
        // Chunks overlap by one position so every neighbour pair is seen once.
        let mut start = 0;
        while start + 1 < positions.len() {
            let end = (start + (1 << 16)).min(positions.len() - 1);
            let (a, b) = (&positions[start..end], &positions[start + 1..end + 1]);
            let (mut n, mut m, mut f) = (0u32, 0u32, 0u32);
            for (&x, &y) in a.iter().zip(b) {
                let d = x.abs_diff(y);
                n += (d < NEAR_MAX_STRIDE as u32) as u32;
                m += (d < MEDIUM_MAX_STRIDE as u32) as u32;
                f += (d < FAR_MAX_STRIDE as u32) as u32;
            }
            near += n as u64;
            medium += m as u64;
            far += f as u64;
            start = end;
        }
        // `medium` and `far` counted cumulatively above; make them disjoint.
        AccessCounts {
            scan: 0,
            lookup: positions.len() as u64 - far,
            near_dense: near,
            medium_dense: medium - near,
            far_dense: far - medium,
        }
    }

    /// As [`AccessCounts::of_batch`] for an inverted index: only adjacent entries are
    /// dense.
    pub fn of_batch_adjacent(positions: &[u32]) -> AccessCounts {
        let near = positions
            .windows(2)
            .filter(|w| w[0].abs_diff(w[1]) <= 1)
            .count() as u64;
        AccessCounts {
            near_dense: near,
            lookup: positions.len() as u64 - near,
            ..AccessCounts::default()
        }
    }

    /// All accesses of every type.
    pub fn total(&self) -> u64 {
        self.scan + self.lookup + self.near_dense + self.medium_dense + self.far_dense
    }
}

/// Live counters of one structure.
#[derive(Debug, Default)]
pub struct Counters {
    scan: AtomicU64,
    lookup: AtomicU64,
    near: AtomicU64,
    medium: AtomicU64,
    far: AtomicU64,
}

impl Counters {
    pub fn snapshot(&self) -> AccessCounts {
        AccessCounts {
            scan: self.scan.load(Relaxed),
            lookup: self.lookup.load(Relaxed),
            near_dense: self.near.load(Relaxed),
            medium_dense: self.medium.load(Relaxed),
            far_dense: self.far.load(Relaxed),
        }
    }

    pub fn reset(&self) {
        for c in [
            &self.scan,
            &self.lookup,
            &self.near,
            &self.medium,
            &self.far,
        ] {
            c.store(0, Relaxed);
        }
    }

    #[inline]
    pub(crate) fn add_scan(&self, n: u64) {
        if n > 0 {
            self.scan.fetch_add(n, Relaxed);
        }
    }

    #[inline]
    pub(crate) fn add_lookup(&self, n: u64) {
        if n > 0 {
            self.lookup.fetch_add(n, Relaxed);
        }
    }

    #[inline]
    pub(crate) fn add_near(&self, n: u64) {
        if n > 0 {
            self.near.fetch_add(n, Relaxed);
        }
    }

    /// Adds every class of `c` (one atomic add per non-zero class).
    pub(crate) fn add(&self, c: &AccessCounts) {
        for (ctr, n) in [
            (&self.scan, c.scan),
            (&self.lookup, c.lookup),
            (&self.near, c.near_dense),
            (&self.medium, c.medium_dense),
            (&self.far, c.far_dense),
        ] {
            if n > 0 {
                ctr.fetch_add(n, Relaxed);
            }
        }
    }

    /// Classifies a batch of entry positions by the stride between neighbours
    /// ([`AccessCounts::of_batch`]) and adds the classes.
    pub(crate) fn add_batch(&self, positions: &[u32]) {
        self.add(&AccessCounts::of_batch(positions));
    }

    /// As [`Counters::add_batch`] for an inverted index: only adjacent entries are dense.
    pub(crate) fn add_batch_adjacent(&self, positions: &[u32]) {
        self.add(&AccessCounts::of_batch_adjacent(positions));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strides_are_classed() {
        let c = Counters::default();
        // first: random; +1 near; +7 near; +8 medium; +511 medium; +512 far;
        // +(2^18-1) far; +2^18 random; -3 near
        let mut p = vec![100u32];
        for d in [1i64, 7, 8, 511, 512, (1 << 18) - 1, 1 << 18, -3] {
            p.push((*p.last().unwrap() as i64 + d) as u32);
        }
        c.add_batch(&p);
        assert_eq!(
            c.snapshot(),
            AccessCounts {
                scan: 0,
                lookup: 2,
                near_dense: 3,
                medium_dense: 2,
                far_dense: 2
            }
        );
        c.reset();
        c.add_batch_adjacent(&[5, 6, 6, 9, 8]);
        assert_eq!(c.snapshot().near_dense, 3);
        assert_eq!(c.snapshot().lookup, 2);
        c.add_scan(10);
        assert_eq!(c.snapshot().total(), 15);
    }
}
