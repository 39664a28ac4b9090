//! The portable bit kernels: plain integer code, monomorphised per bit width so every
//! shift and mask is a constant (the reference the SIMD variants are tested against).

use super::{Pair, GROUP};
use crate::bitpack::by_width;

#[inline(always)]
fn unpack_group<const W: usize>(src: &[u64], out: &mut [u32]) {
    let src = &src[..W];
    let out = &mut out[..GROUP];
    let m = (1u64 << W) - 1;
    for (i, o) in out.iter_mut().enumerate() {
        let bit = i * W;
        let wi = bit / 64;
        let sh = bit % 64;
        let lo = src[wi] >> sh;
        // Constant per unrolled position; a straddling id never reaches past the group.
        let hi = if sh + W > 64 {
            src[wi + 1] << (64 - sh)
        } else {
            0
        };
        *o = ((lo | hi) & m) as u32;
    }
}

fn unpack_w<const W: usize>(src: &[u64], out: &mut [u32]) {
    for (g, chunk) in out.chunks_exact_mut(GROUP).enumerate() {
        unpack_group::<W>(&src[g * W..], chunk);
    }
}

fn range_w<const W: usize>(src: &[u64], runs: &[(u32, u32)], out: &mut [u64]) {
    let mut ids = [0u32; GROUP];
    for (g, m) in out.iter_mut().enumerate() {
        unpack_group::<W>(&src[g * W..], &mut ids);
        let mut bits = 0u64;
        for (i, &id) in ids.iter().enumerate() {
            bits |= u64::from(super::in_ranges(runs, id)) << i;
        }
        *m = bits;
    }
}

/// Unpacks `out.len() / 64` whole groups of width `width` from `src`.
pub(super) fn unpack(src: &[u64], width: u32, out: &mut [u32]) {
    by_width!(width, unpack_w, src, out)
}

fn unpack_selected_w<const W: usize>(src: &[u64], masks: &[u64], out: &mut [u32]) -> usize {
    let mut ids = [0u32; GROUP];
    let mut k = 0;
    for (g, &m) in masks.iter().enumerate() {
        unpack_group::<W>(&src[g * W..], &mut ids);
        for (i, &id) in ids.iter().enumerate() {
            out[k] = id;
            k += ((m >> i) & 1) as usize;
        }
    }
    k
}

/// Writes the ids of `masks.len()` whole groups whose bit is set in `masks`, in order;
/// returns their count. `out` holds `masks.len() * 64` ids (those past the count are
/// scratch).
pub(super) fn unpack_selected(src: &[u64], width: u32, masks: &[u64], out: &mut [u32]) -> usize {
    by_width!(width, unpack_selected_w, src, masks, out)
}

/// # Safety
/// `src` is readable for `groups * width` words, `masks` for `groups` words, `out`
/// writable for `groups * 64` ids, `width` in 1..=32.
pub(super) unsafe fn unpack_selected_raw(
    src: *const u64,
    width: u32,
    groups: usize,
    masks: *const u64,
    out: *mut u32,
) -> usize {
    // SAFETY: the caller's contract: the ranges are live and `out` overlaps neither.
    let (s, m, o) = unsafe {
        (
            std::slice::from_raw_parts(src, groups * width as usize),
            std::slice::from_raw_parts(masks, groups),
            std::slice::from_raw_parts_mut(out, groups * GROUP),
        )
    };
    unpack_selected(s, width, m, o)
}

/// Bit `i` of `out[g]`: whether id `i` of group `g` passes `id - lo <= span` (wrapping).
/// Masks of the ids in any of `runs` (`(lo, span)`: `id - lo <= span`, wrapping).
pub(super) fn range(src: &[u64], width: u32, runs: &[(u32, u32)], out: &mut [u64]) {
    by_width!(width, range_w, src, runs, out)
}

/// Writes `base + 64 g + i` for every set bit `i` of `masks[g]`, in order; returns the
/// count. `sel` holds `masks.len() * 64` entries (those past the count are scratch).
pub(super) fn select(masks: &[u64], base: u32, sel: &mut [u32]) -> usize {
    let mut k = 0;
    for (g, &m) in masks.iter().enumerate() {
        let b = base.wrapping_add(g as u32 * GROUP as u32);
        for i in 0..GROUP as u32 {
            sel[k] = b.wrapping_add(i);
            k += ((m >> i) & 1) as usize;
        }
    }
    k
}

/// # Safety
/// `src` is readable for `groups * width` words, `out` writable for `groups * 64` ids,
/// `width` in 1..=32.
pub(super) unsafe fn unpack_raw(src: *const u64, width: u32, groups: usize, out: *mut u32) {
    // SAFETY: the caller's contract: both ranges are live and do not overlap.
    let (s, o) = unsafe {
        (
            std::slice::from_raw_parts(src, groups * width as usize),
            std::slice::from_raw_parts_mut(out, groups * GROUP),
        )
    };
    unpack(s, width, o);
}

/// # Safety
/// `src` is readable for `groups * width` words, `runs` for `nruns` pairs, `out`
/// writable for `groups` masks, `width` in 1..=32.
pub(super) unsafe fn range_raw(
    src: *const u64,
    width: u32,
    groups: usize,
    runs: *const (u32, u32),
    nruns: usize,
    out: *mut u64,
) {
    // SAFETY: the caller's contract: the three ranges are live and `out` overlaps
    // neither.
    let (s, r, o) = unsafe {
        (
            std::slice::from_raw_parts(src, groups * width as usize),
            std::slice::from_raw_parts(runs, nruns),
            std::slice::from_raw_parts_mut(out, groups),
        )
    };
    range(s, width, r, o);
}

/// # Safety
/// `masks` is readable for `groups` words, `sel` writable for `groups * 64` entries.
pub(super) unsafe fn select_raw(
    masks: *const u64,
    groups: usize,
    base: u32,
    sel: *mut u32,
) -> usize {
    // SAFETY: the caller's contract: both ranges are live and do not overlap.
    let (m, s) = unsafe {
        (
            std::slice::from_raw_parts(masks, groups),
            std::slice::from_raw_parts_mut(sel, groups * GROUP),
        )
    };
    select(m, base, s)
}

/// Whether `id` is below `limit` and its bit is set in `bitmap`.
#[inline(always)]
pub(super) fn bit(bitmap: &[u64], limit: u32, id: u32) -> bool {
    id < limit && bitmap[id as usize >> 6] >> (id & 63) & 1 == 1
}

fn bitmap_w<const W: usize>(src: &[u64], bitmap: &[u64], limit: u32, out: &mut [u64]) {
    let mut ids = [0u32; GROUP];
    for (g, m) in out.iter_mut().enumerate() {
        unpack_group::<W>(&src[g * W..], &mut ids);
        let mut bits = 0u64;
        for (i, &id) in ids.iter().enumerate() {
            bits |= u64::from(bit(bitmap, limit, id)) << i;
        }
        *m = bits;
    }
}

/// Bit `i` of `out[g]`: whether id `i` of group `g` is below `limit` with its bit set
/// in `bitmap` (which holds `limit` bits).
pub(super) fn bitmap(src: &[u64], width: u32, bitmap: &[u64], limit: u32, out: &mut [u64]) {
    by_width!(width, bitmap_w, src, bitmap, limit, out)
}

/// # Safety
/// `src` is readable for `groups * width` words, `out` writable for `groups` masks,
/// `bitmap` readable for `limit.div_ceil(64)` words, `width` in 1..=32.
pub(super) unsafe fn bitmap_raw(
    src: *const u64,
    width: u32,
    groups: usize,
    bm: *const u64,
    limit: u32,
    out: *mut u64,
) {
    // SAFETY: the caller's contract: the ranges are live and `out` overlaps neither.
    let (s, b, o) = unsafe {
        (
            std::slice::from_raw_parts(src, groups * width as usize),
            std::slice::from_raw_parts(bm, (limit as usize).div_ceil(64)),
            std::slice::from_raw_parts_mut(out, groups),
        )
    };
    bitmap(s, width, b, limit, o);
}

/// Calls `f(ida, idb)` for each row of `groups` whole groups whose bit is set in a
/// non-null `masks` (every row when it is null), in order; `idb` is 0 without a second
/// column. The one loop of the portable fused kernels below.
///
/// # Safety
/// `a` is readable for `groups * wa` words, `b`'s column for `groups * wb`, a non-null
/// `masks` for `groups` words; widths in 1..=32.
unsafe fn each_selected(
    (a, wa): (*const u64, u32),
    b: Option<(*const u64, u32)>,
    groups: usize,
    masks: *const u64,
    mut f: impl FnMut(u32, u32),
) {
    let (mut x, mut y) = ([0u32; GROUP], [0u32; GROUP]);
    let group = |src: *const u64, w: u32, g: usize| {
        // SAFETY: the caller's contract: group `g` of the column is live.
        unsafe { std::slice::from_raw_parts(src.add(g * w as usize), w as usize) }
    };
    for g in 0..groups {
        let m = if masks.is_null() {
            u64::MAX
        } else {
            // SAFETY: the caller's contract: a non-null `masks` holds word `g`.
            unsafe { *masks.add(g) }
        };
        unpack(group(a, wa, g), wa, &mut x);
        if let Some((b, wb)) = b {
            unpack(group(b, wb, g), wb, &mut y);
        }
        for i in (0..GROUP).filter(|i| (m >> i) & 1 == 1) {
            f(x[i], y[i]);
        }
    }
}

/// The sum of the ids of `groups` whole groups (those whose bit is set in a non-null
/// `masks`).
///
/// # Safety
/// As [`each_selected`] for one column.
pub(super) unsafe fn sum_packed_raw(
    src: *const u64,
    width: u32,
    groups: usize,
    masks: *const u64,
) -> u64 {
    let mut s = 0u64;
    // SAFETY: the caller's contract.
    unsafe { each_selected((src, width), None, groups, masks, |x, _| s += u64::from(x)) };
    s
}

/// The halves' sums of the products `ida * idb` of the selected rows.
///
/// # Safety
/// As [`each_selected`] for both columns.
pub(super) unsafe fn dot_packed_raw(
    a: *const u64,
    wa: u32,
    b: *const u64,
    wb: u32,
    groups: usize,
    masks: *const u64,
) -> (u64, u64) {
    let (mut lo, mut hi) = (0u64, 0u64);
    // SAFETY: the caller's contract.
    unsafe {
        each_selected((a, wa), Some((b, wb)), groups, masks, |x, y| {
            let p = u64::from(x) * u64::from(y);
            lo += p & 0xffff_ffff;
            hi += p >> 32;
        })
    };
    (lo, hi)
}

/// The smallest and the largest selected id, or `(u32::MAX, 0)`.
///
/// # Safety
/// As [`each_selected`] for one column.
pub(super) unsafe fn min_max_packed_raw(
    src: *const u64,
    width: u32,
    groups: usize,
    masks: *const u64,
) -> (u32, u32) {
    let (mut lo, mut hi) = (u32::MAX, 0);
    // SAFETY: the caller's contract.
    unsafe {
        each_selected((src, width), None, groups, masks, |x, _| {
            lo = lo.min(x);
            hi = hi.max(x);
        })
    };
    (lo, hi)
}

/// The extremes of `op` over the selected rows, as the SIMD kernels fold them (a
/// difference as `i32`, a sum or product as `u32`); `(i64::MAX, i64::MIN)` for none.
///
/// # Safety
/// As [`each_selected`] for both columns.
pub(super) unsafe fn min_max_pair_packed_raw(
    a: *const u64,
    wa: u32,
    b: *const u64,
    wb: u32,
    groups: usize,
    masks: *const u64,
    op: Pair,
) -> (i64, i64) {
    let (mut lo, mut hi) = (i64::MAX, i64::MIN);
    // SAFETY: the caller's contract.
    unsafe {
        each_selected((a, wa), Some((b, wb)), groups, masks, |x, y| {
            let v = op.apply(x, y);
            lo = lo.min(v);
            hi = hi.max(v);
        })
    };
    (lo, hi)
}
