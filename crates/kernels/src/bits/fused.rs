//! The aggregate kernels that read packed ids without storing them: sums, dot products
//! and extremes of one column or of two columns' `a op b`, over a morsel's rows or those
//! a bitmask selects (`BitKernels::sum_packed`, `dot_packed`, `min_max_packed`,
//! `min_max_pair_packed`) — the safe entry points; the SIMD loops are in the per-ISA
//! files, tested against the rows in `tests.rs`.

use super::{check, get_unpadded, portable, BitKernels, DotPackedFn, SumPackedFn, GROUP};

/// What [`BitKernels::min_max_pair_packed`] folds of two columns' ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pair {
    /// `ida + idb`: exact when both widths are at most 31 bits.
    Sum,
    /// `ida - idb`: exact when both widths are at most 31 bits.
    Difference,
    /// `(a0 + ida) * (b0 + idb)`: exact while every such product is below 2^32 (the
    /// caller's bound; beyond it the fold wraps).
    Product { a0: u32, b0: u32 },
}

impl Pair {
    /// The value of one row, as the kernels compute it (a difference as `i32`, a sum or
    /// product as `u32`).
    #[inline(always)]
    pub(super) fn apply(self, x: u32, y: u32) -> i64 {
        match self {
            Pair::Sum => i64::from(x.wrapping_add(y)),
            Pair::Difference => i64::from(x.wrapping_sub(y) as i32),
            Pair::Product { a0, b0 } => {
                i64::from(x.wrapping_add(a0).wrapping_mul(y.wrapping_add(b0)))
            }
        }
    }
}
/// One column's packed ids from row `start` on: what the fused aggregate kernels
/// ([`BitKernels::sum_packed`], [`BitKernels::dot_packed`]) read.
#[derive(Debug, Clone, Copy)]
pub struct Packed<'a> {
    pub words: &'a [u64],
    pub width: u32,
    pub start: usize,
}

impl Packed<'_> {
    #[inline(always)]
    pub(super) fn get(&self, i: usize) -> u32 {
        get_unpadded(self.words, self.width, self.start + i)
    }
}

impl BitKernels {
    /// The sum of the ids of rows `i < n` of `col` (those whose bit `i % 64` of
    /// `mask[i / 64]` is set, when a mask is given) — unpacked and added in registers,
    /// never stored. Exact below 2^32 rows. Panics (like a slice index) when the width
    /// is outside 1..=32, the ids run past the words or the mask holds fewer than `n`
    /// bits.
    pub fn sum_packed(&self, col: Packed<'_>, n: usize, mask: Option<&[u64]>) -> u64 {
        // Fewer than 2^32 ids below 2^32: the sum fits 64 bits.
        self.fused(col, None, n, mask) as u64
    }

    /// The exact sum of `ida * idb` over rows `i < n` of `a` and `b` (those whose bit is
    /// set in `mask`, when one is given), as [`Self::sum_packed`]; below 2^32 rows.
    pub fn dot_packed(&self, a: Packed<'_>, b: Packed<'_>, n: usize, mask: Option<&[u64]>) -> u128 {
        self.fused(a, Some(b), n, mask)
    }

    /// The smallest and the largest id of rows `i < n` of `col` (those whose bit is set
    /// in `mask`, when one is given), from the packed words as [`Self::sum_packed`];
    /// None when no row is.
    pub fn min_max_packed(
        &self,
        col: Packed<'_>,
        n: usize,
        mask: Option<&[u64]>,
    ) -> Option<(u32, u32)> {
        check(col.words, col.width, col.start, n);
        if let Some(m) = mask {
            assert!(m.len() * GROUP >= n, "{n} rows: {} masks", m.len());
        }
        let on = |i: usize| mask.is_none_or(|m| (m[i / GROUP] >> (i % GROUP)) & 1 == 1);
        let fold = |(lo, hi): (u32, u32), i: usize| {
            let id = col.get(i);
            (lo.min(id), hi.max(id))
        };
        let none = (u32::MAX, 0);
        let (lo, hi) = if !col.start.is_multiple_of(GROUP) {
            (0..n).filter(|&i| on(i)).fold(none, fold)
        } else {
            let groups = n / GROUP;
            let fast = self.fast_groups(col.words, col.width, col.start / GROUP, groups);
            let masks = mask.map_or(std::ptr::null(), <[u64]>::as_ptr);
            let w = col.width as usize;
            let at = |g: usize| col.words[(col.start / GROUP + g) * w..].as_ptr();
            let m = |g: usize| {
                if masks.is_null() {
                    masks
                } else {
                    masks.wrapping_add(g)
                }
            };
            // SAFETY: groups `0 .. fast` (followed by the kernel's slack: fast_groups)
            // and `fast .. groups` lie in the words, a mask holds `groups` words
            // (asserted), the width is in 1..=32 (check), and `BitKernels::new` /
            // `Isa::best` checked the ISA against this CPU.
            let (a, b) = unsafe {
                (
                    (self.min_max_packed)(at(0), col.width, fast, m(0)),
                    portable::min_max_packed_raw(at(fast), col.width, groups - fast, m(fast)),
                )
            };
            let body = (a.0.min(b.0), a.1.max(b.1));
            (groups * GROUP..n).filter(|&i| on(i)).fold(body, fold)
        };
        // None selected leaves (u32::MAX, 0); any row makes lo <= hi.
        (lo <= hi).then_some((lo, hi))
    }

    /// The smallest and the largest of `op` over rows `i < n` of `a` and `b` (those
    /// whose bit is set in `mask`, when one is given), from the packed words as
    /// [`Self::sum_packed`]; None when no row is. Panics when a sum or difference has a
    /// width above 31 bits (the kernels fold in 32-bit lanes), and as `sum_packed`.
    pub fn min_max_pair_packed(
        &self,
        a: Packed<'_>,
        b: Packed<'_>,
        n: usize,
        mask: Option<&[u64]>,
        op: Pair,
    ) -> Option<(i64, i64)> {
        check(a.words, a.width, a.start, n);
        check(b.words, b.width, b.start, n);
        assert!(
            matches!(op, Pair::Product { .. }) || (a.width <= 31 && b.width <= 31),
            "sum or difference of widths {} and {} (at most 31)",
            a.width,
            b.width
        );
        let whole = n / GROUP;
        let any = match mask {
            None => n > 0,
            Some(m) => {
                assert!(m.len() * GROUP >= n, "{n} rows: {} masks", m.len());
                let tail = m.get(whole).map_or(0, |&w| w & ((1u64 << (n % GROUP)) - 1));
                m[..whole].iter().any(|&w| w != 0) || tail != 0
            }
        };
        if !any {
            return None;
        }
        let on = |i: usize| mask.is_none_or(|m| (m[i / GROUP] >> (i % GROUP)) & 1 == 1);
        let value = |i: usize| op.apply(a.get(i), b.get(i));
        let fold = |(lo, hi): (i64, i64), v: i64| (lo.min(v), hi.max(v));
        let none = (i64::MAX, i64::MIN);
        if !(a.start.is_multiple_of(GROUP) && b.start.is_multiple_of(GROUP)) {
            return Some((0..n).filter(|&i| on(i)).map(value).fold(none, fold));
        }
        let fast_of = |p: Packed<'_>| self.fast_groups(p.words, p.width, p.start / GROUP, whole);
        let fast = fast_of(a).min(fast_of(b));
        let masks = mask.map_or(std::ptr::null(), <[u64]>::as_ptr);
        let m = |g: usize| {
            if masks.is_null() {
                masks
            } else {
                masks.wrapping_add(g)
            }
        };
        let at =
            |p: Packed<'_>, g: usize| p.words[(p.start / GROUP + g) * p.width as usize..].as_ptr();
        let mut acc = none;
        // SAFETY: groups `0 .. fast` of both columns (followed by the kernel's slack:
        // fast_groups) and `fast .. whole` lie in their words, a mask holds `whole` words
        // (asserted), widths are in 1..=32 (check), and `BitKernels::new` /
        // `Isa::best` checked the ISA against this CPU. A kernel's starting values (what
        // it returns for no rows: u32::MAX and 0 unsigned, i32::MAX and i32::MIN for
        // differences) never beat a row's value (a 32-bit one), so they fold in freely.
        unsafe {
            if fast > 0 {
                let r = (self.min_max_pair_packed)(
                    at(a, 0),
                    a.width,
                    at(b, 0),
                    b.width,
                    fast,
                    m(0),
                    op,
                );
                acc = (acc.0.min(r.0), acc.1.max(r.1));
            }
            if whole > fast {
                let r = portable::min_max_pair_packed_raw(
                    at(a, fast),
                    a.width,
                    at(b, fast),
                    b.width,
                    whole - fast,
                    m(fast),
                    op,
                );
                acc = (acc.0.min(r.0), acc.1.max(r.1));
            }
        }
        Some(
            (whole * GROUP..n)
                .filter(|&i| on(i))
                .map(value)
                .fold(acc, fold),
        )
    }

    /// [`Self::sum_packed`] (`b` None) or [`Self::dot_packed`]: the SIMD kernel over the
    /// whole groups followed by its slack, the portable one over the other whole groups,
    /// single gets for an unaligned start and the tail.
    fn fused(&self, a: Packed<'_>, b: Option<Packed<'_>>, n: usize, mask: Option<&[u64]>) -> u128 {
        check(a.words, a.width, a.start, n);
        if let Some(b) = b {
            check(b.words, b.width, b.start, n);
        }
        if let Some(m) = mask {
            assert!(m.len() * GROUP >= n, "{n} rows: {} masks", m.len());
        }
        let row = |i: usize| -> u128 {
            if mask.is_some_and(|m| (m[i / GROUP] >> (i % GROUP)) & 1 == 0) {
                return 0;
            }
            let x = u128::from(a.get(i));
            b.map_or(x, |b| x * u128::from(b.get(i)))
        };
        let aligned =
            a.start.is_multiple_of(GROUP) && b.is_none_or(|b| b.start.is_multiple_of(GROUP));
        if !aligned {
            return (0..n).map(row).sum();
        }
        let groups = n / GROUP;
        let fast_of = |p: Packed<'_>| self.fast_groups(p.words, p.width, p.start / GROUP, groups);
        let fast = b.map_or(fast_of(a), |b| fast_of(a).min(fast_of(b)));
        let masks = mask.map_or(std::ptr::null(), <[u64]>::as_ptr);
        let at =
            |p: Packed<'_>, g: usize| p.words[(p.start / GROUP + g) * p.width as usize..].as_ptr();
        // Both kernels over groups `g .. g + len`: the sum, or the product's halves.
        let run = |sum: SumPackedFn, dot: DotPackedFn, g: usize, len: usize| -> u128 {
            let m = if masks.is_null() {
                masks
            } else {
                masks.wrapping_add(g)
            };
            // SAFETY: groups `g .. g + len` of each column lie in its words (for the SIMD
            // kernel followed by its slack: fast_groups), a mask holds `groups` words
            // (asserted), widths are in 1..=32 (check), and `BitKernels::new` /
            // `Isa::best` checked the ISA against this CPU; `len < 2^29` groups below.
            unsafe {
                match b {
                    None => u128::from(sum(at(a, g), a.width, len, m)),
                    Some(b) => {
                        let (lo, hi) = dot(at(a, g), a.width, at(b, g), b.width, len, m);
                        u128::from(lo) + (u128::from(hi) << 32)
                    }
                }
            }
        };
        let mut total = 0u128;
        // Blocks of at most 2^20 groups keep the kernels' 64-bit lanes exact.
        let block = 1 << 20;
        for g in (0..fast).step_by(block) {
            total += run(self.sum_packed, self.dot_packed, g, block.min(fast - g));
        }
        for g in (fast..groups).step_by(block) {
            let f = (
                portable::sum_packed_raw as SumPackedFn,
                portable::dot_packed_raw as DotPackedFn,
            );
            total += run(f.0, f.1, g, block.min(groups - g));
        }
        total + (groups * GROUP..n).map(row).sum::<u128>()
    }
}
