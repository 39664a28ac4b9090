//! The AVX2 bit kernels: 8 ids per ymm register, built from two halves of 4 ids in
//! 64-bit lanes.
//!
//! A group of 64 ids of width `w` has 16 slices of 4 ids; slice `c` starts at bit
//! `4wc`, that is dword `wc / 8` plus `4 (wc mod 8)` bits. One unaligned load of 8
//! dwords from there holds the slice; `vpermd` puts each id's two dwords in a 64-bit
//! lane, `vpsrlvq` shifts it down, and two slices are interleaved into 8 `u32` lanes.

use std::arch::x86_64::*;

use super::{Pair, GROUP};
use crate::prefetch::prefetch_ahead;

/// Words the kernels may read past the last group's: the window of the last slice
/// starts at dword `15w/8` of its group and is 8 dwords long.
pub(super) const SLACK_WORDS: usize = 4;

/// The per-width constants of the 16 slices of a group.
struct Plan {
    idx: [__m256i; 16],
    shr: [__m256i; 16],
    /// Dword offset of each slice inside the group.
    at: [usize; 16],
    mask: __m256i,
}

#[target_feature(enable = "avx2,popcnt")]
#[inline]
fn load(a: &[u32; 8]) -> __m256i {
    // SAFETY: an unaligned load of 32 bytes from a live [u32; 8].
    unsafe { _mm256_loadu_si256(a.as_ptr().cast()) }
}

#[target_feature(enable = "avx2,popcnt")]
fn plan(width: u32) -> Plan {
    let w = width as usize;
    let mut idx = [[0u32; 8]; 16];
    let mut shr = [[0u32; 8]; 16];
    for c in 0..16 {
        let r = 4 * ((w * c) % 8);
        for j in 0..4 {
            let bit = r + j * w;
            idx[c][2 * j] = (bit / 32) as u32;
            idx[c][2 * j + 1] = (bit / 32 + 1) as u32;
            // A 64-bit shift count in the low dword of the lane.
            shr[c][2 * j] = (bit % 32) as u32;
        }
    }
    let mask = if width == 32 {
        u32::MAX
    } else {
        (1u32 << width) - 1
    };
    Plan {
        idx: std::array::from_fn(|c| load(&idx[c])),
        shr: std::array::from_fn(|c| load(&shr[c])),
        at: std::array::from_fn(|c| w * c / 8),
        mask: _mm256_set1_epi32(mask as i32),
    }
}

/// The 4 ids of slice `c` of the group at `g`, one per 64-bit lane (upper bits junk).
///
/// # Safety
/// `g` is readable for `at[c] + 8` dwords.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
unsafe fn slice(p: &Plan, g: *const u32, c: usize) -> __m256i {
    // SAFETY: the caller's contract covers the 32-byte load.
    let win = unsafe { _mm256_loadu_si256(g.add(p.at[c]).cast()) };
    _mm256_srlv_epi64(_mm256_permutevar8x32_epi32(win, p.idx[c]), p.shr[c])
}

/// The 8 ids of slices `2h` and `2h + 1` of the group at `g`, in order.
///
/// # Safety
/// As [`slice`] for both slices.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
unsafe fn eight(p: &Plan, g: *const u32, h: usize) -> __m256i {
    // SAFETY: the caller's contract.
    let (a, b) = unsafe { (slice(p, g, 2 * h), slice(p, g, 2 * h + 1)) };
    // Low dwords of every lane: ids 0 1 4 5 2 3 6 7, then put in order.
    let lows = _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(
        _mm256_castsi256_ps(a),
        _mm256_castsi256_ps(b),
    ));
    let v = _mm256_permute4x64_epi64::<0b11_01_10_00>(lows);
    _mm256_and_si256(v, p.mask)
}

/// # Safety
/// `src` is readable for `groups * width + SLACK_WORDS` words, `out` writable for
/// `groups * 64` ids, `width` in 1..=32; the CPU has avx2.
#[target_feature(enable = "avx2,popcnt")]
pub(super) unsafe fn unpack(src: *const u64, width: u32, groups: usize, out: *mut u32) {
    let p = plan(width);
    for g in 0..groups {
        // SAFETY: group `g` starts at word `g * width`; its slices' windows end within
        // SLACK_WORDS of the group's end, and its 64 ids fit `out`.
        unsafe {
            let s = src.add(g * width as usize).cast::<u32>();
            prefetch_ahead(s.cast(), width as usize * 8);
            let o = out.add(g * GROUP);
            for h in 0..8 {
                _mm256_storeu_si256(o.add(h * 8).cast(), eight(&p, s, h));
            }
        }
    }
}

/// # Safety
/// As [`unpack`], with `out` writable for `groups` masks and `runs` readable for `nruns`
/// pairs, `nruns` in `1..=FUSED_RUNS`.
#[target_feature(enable = "avx2,popcnt")]
pub(super) unsafe fn range(
    src: *const u64,
    width: u32,
    groups: usize,
    runs: *const (u32, u32),
    nruns: usize,
    out: *mut u64,
) {
    debug_assert!((1..=super::FUSED_RUNS).contains(&nruns));
    // SAFETY: the caller's contract, passed on with the count as a constant.
    unsafe {
        match nruns {
            1 => ranges_n::<1>(src, width, groups, runs, out),
            2 => ranges_n::<2>(src, width, groups, runs, out),
            3 => ranges_n::<3>(src, width, groups, runs, out),
            _ => ranges_n::<4>(src, width, groups, runs, out),
        }
    }
}

/// [`range`] of `N` ranges: each 8 ids unpacked once and compared with all `N`.
///
/// # Safety
/// As [`range`], `nruns == N`.
#[target_feature(enable = "avx2,popcnt")]
unsafe fn ranges_n<const N: usize>(
    src: *const u64,
    width: u32,
    groups: usize,
    runs: *const (u32, u32),
    out: *mut u64,
) {
    let p = plan(width);
    // SAFETY: the caller's contract: `runs` holds N pairs.
    let (vlo, vspan): ([__m256i; N], [__m256i; N]) = unsafe {
        (
            std::array::from_fn(|r| _mm256_set1_epi32((*runs.add(r)).0 as i32)),
            std::array::from_fn(|r| _mm256_set1_epi32((*runs.add(r)).1 as i32)),
        )
    };
    for g in 0..groups {
        let mut m = 0u64;
        // SAFETY: as in `unpack`; `out` has room for mask `g`.
        unsafe {
            let s = src.add(g * width as usize).cast::<u32>();
            prefetch_ahead(s.cast(), width as usize * 8);
            for h in 0..8 {
                let v = eight(&p, s, h);
                let mut pass = _mm256_setzero_si256();
                for r in 0..N {
                    let t = _mm256_sub_epi32(v, vlo[r]);
                    // Unsigned t <= span  <=>  max(t, span) == span.
                    let hit = _mm256_cmpeq_epi32(_mm256_max_epu32(t, vspan[r]), vspan[r]);
                    pass = _mm256_or_si256(pass, hit);
                }
                let b = _mm256_movemask_ps(_mm256_castsi256_ps(pass)) as u8;
                m |= u64::from(b) << (8 * h);
            }
            *out.add(g) = m;
        }
    }
}

/// Per byte of a mask: the positions of its set bits, one per byte, packed low first.
const POSITIONS: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let (mut v, mut n, mut i) = (0u64, 0, 0);
        while i < 8 {
            if b >> i & 1 == 1 {
                v |= (i as u64) << (8 * n);
                n += 1;
            }
            i += 1;
        }
        t[b] = v;
        b += 1;
    }
    t
};

/// # Safety
/// As [`unpack`], with `masks` readable for `groups` words; returns the ids written.
#[target_feature(enable = "avx2,popcnt")]
pub(super) unsafe fn unpack_selected(
    src: *const u64,
    width: u32,
    groups: usize,
    masks: *const u64,
    out: *mut u32,
) -> usize {
    let p = plan(width);
    let mut k = 0usize;
    for g in 0..groups {
        prefetch_ahead(
            src.wrapping_add(g * width as usize).cast(),
            width as usize * 8,
        );
        // SAFETY: `g < groups`.
        let m = unsafe { *masks.add(g) };
        if m == 0 {
            continue;
        }
        for h in 0..8 {
            let b = (m >> (8 * h)) as u8;
            let pos = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(POSITIONS[b as usize] as i64));
            // SAFETY: as in `unpack`; `k <= g * 64 + h * 8` (at most one id per row
            // before these 8), so the 8 lanes stored end within `groups * 64`.
            unsafe {
                let v = eight(&p, src.add(g * width as usize).cast(), h);
                _mm256_storeu_si256(out.add(k).cast(), _mm256_permutevar8x32_epi32(v, pos));
            }
            k += b.count_ones() as usize;
        }
    }
    k
}

/// # Safety
/// `masks` is readable for `groups` words, `sel` writable for `groups * 64` entries;
/// the CPU has avx2.
#[target_feature(enable = "avx2,popcnt")]
pub(super) unsafe fn select(masks: *const u64, groups: usize, base: u32, sel: *mut u32) -> usize {
    let mut k = 0usize;
    for g in 0..groups {
        // SAFETY: `g < groups`.
        let m = unsafe { *masks.add(g) };
        if m == 0 {
            continue;
        }
        for h in 0..8 {
            let b = (m >> (8 * h)) as u8;
            let first = base.wrapping_add((g * GROUP + h * 8) as u32);
            let pos = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(POSITIONS[b as usize] as i64));
            let idx = _mm256_add_epi32(pos, _mm256_set1_epi32(first as i32));
            // SAFETY: `k <= g * 64 + h * 8` (at most one entry per id before these 8),
            // so the 8 lanes stored end within `groups * 64` entries.
            unsafe { _mm256_storeu_si256(sel.add(k).cast(), idx) };
            k += b.count_ones() as usize;
        }
    }
    k
}

/// Bitmaps of up to this many bits are tested from registers (eight ymm), not gathered.
pub(super) const TABLE_BITS: u32 = 8 * 256;

/// # Safety
/// As [`unpack`], with `out` writable for `groups` masks and `bitmap` readable for
/// `limit.div_ceil(32)` dwords (`limit >= 1`: ids from `limit` up fail).
#[target_feature(enable = "avx2,popcnt")]
pub(super) unsafe fn bitmap(
    src: *const u64,
    width: u32,
    groups: usize,
    bitmap: *const u64,
    limit: u32,
    out: *mut u64,
) {
    if limit > TABLE_BITS {
        // SAFETY: the caller's contract; only lanes with `id <= limit - 1` are gathered,
        // from dword `id / 32` of the bitmap.
        unsafe {
            test_bits(src, width, groups, limit, out, |idx, inb| {
                _mm256_mask_i32gather_epi32::<4>(_mm256_setzero_si256(), bitmap.cast(), idx, inb)
            })
        }
        return;
    }
    // As in the AVX-512 kernel: a small bitmap is read from registers by permutes.
    let mut t = [0u32; (TABLE_BITS / 32) as usize];
    let dwords = limit.div_ceil(32) as usize;
    // SAFETY: the caller's contract: `bitmap` is readable for `dwords` dwords.
    unsafe { std::ptr::copy_nonoverlapping(bitmap.cast::<u32>(), t.as_mut_ptr(), dwords) };
    // SAFETY: the caller's contract, passed on.
    unsafe {
        match limit {
            0..=256 => bitmap_in::<1>(src, width, groups, &t, limit, out),
            257..=512 => bitmap_in::<2>(src, width, groups, &t, limit, out),
            513..=1024 => bitmap_in::<4>(src, width, groups, &t, limit, out),
            _ => bitmap_in::<8>(src, width, groups, &t, limit, out),
        }
    }
}

/// The bitmap test's loop: `dword(id / 32, in bounds)` is the bitmap dword of each lane
/// whose id is below `limit` (`in bounds` is all ones in those lanes; the other lanes
/// fail whatever it returns for them).
///
/// # Safety
/// As [`unpack`], with `out` writable for `groups` masks; `dword` is safe to call with
/// the ids of the packed groups.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
unsafe fn test_bits(
    src: *const u64,
    width: u32,
    groups: usize,
    limit: u32,
    out: *mut u64,
    dword: impl Fn(__m256i, __m256i) -> __m256i,
) {
    let p = plan(width);
    let vmax = _mm256_set1_epi32((limit - 1) as i32);
    let low5 = _mm256_set1_epi32(31);
    let one = _mm256_set1_epi32(1);
    for g in 0..groups {
        let mut m = 0u64;
        // SAFETY: as in `unpack`; `out` has room for mask `g`.
        unsafe {
            let s = src.add(g * width as usize).cast::<u32>();
            prefetch_ahead(s.cast(), width as usize * 8);
            for h in 0..8 {
                let v = eight(&p, s, h);
                let inb = _mm256_cmpeq_epi32(_mm256_min_epu32(v, vmax), v);
                let dw = dword(_mm256_srli_epi32::<5>(v), inb);
                let bit = _mm256_and_si256(_mm256_srlv_epi32(dw, _mm256_and_si256(v, low5)), one);
                let pass = _mm256_and_si256(_mm256_cmpeq_epi32(bit, one), inb);
                let b = _mm256_movemask_ps(_mm256_castsi256_ps(pass)) as u8;
                m |= u64::from(b) << (8 * h);
            }
            *out.add(g) = m;
        }
    }
}

/// Dword `idx` (its low `3 + log2 R` bits) of the `8 R` dwords in `t`, per lane.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
fn pick<const R: usize>(t: &[__m256i; R], idx: __m256i) -> __m256i {
    let perm = |k: usize| _mm256_permutevar8x32_epi32(t[k], idx);
    if R == 1 {
        return perm(0);
    }
    // Bit 3 + j of the index, as the sign bit `blendv` reads.
    let by = |j: i32, a: __m256i, b: __m256i| {
        let s = _mm256_sll_epi32(idx, _mm_cvtsi32_si128(28 - j));
        _mm256_castps_si256(_mm256_blendv_ps(
            _mm256_castsi256_ps(a),
            _mm256_castsi256_ps(b),
            _mm256_castsi256_ps(s),
        ))
    };
    let half = |k: usize| by(0, perm(2 * k), perm(2 * k + 1));
    if R == 2 {
        return half(0);
    }
    let quarter = |k: usize| by(1, half(2 * k), half(2 * k + 1));
    if R == 4 {
        return quarter(0);
    }
    by(2, quarter(0), quarter(1))
}

/// [`bitmap`] with the bitmap's first `8 R` dwords in registers (`limit <= 256 R`).
///
/// # Safety
/// As [`unpack`], with `out` writable for `groups` masks.
#[target_feature(enable = "avx2,popcnt")]
unsafe fn bitmap_in<const R: usize>(
    src: *const u64,
    width: u32,
    groups: usize,
    t: &[u32; (TABLE_BITS / 32) as usize],
    limit: u32,
    out: *mut u64,
) {
    let table: [__m256i; R] = std::array::from_fn(|k| {
        // SAFETY: `R <= 8`, so dwords `8 k .. 8 k + 8` lie in `t`.
        unsafe { _mm256_loadu_si256(t.as_ptr().add(8 * k).cast()) }
    });
    // SAFETY: the caller's contract.
    unsafe { test_bits(src, width, groups, limit, out, |idx, _| pick(&table, idx)) }
}

/// All-ones in the lanes of ids `8 h .. 8 h + 8` of group `g` whose bit is set in
/// `masks` (every lane when `masks` is null).
///
/// # Safety
/// A non-null `masks` is readable for `g + 1` words.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
unsafe fn lanes(masks: *const u64, g: usize, h: usize) -> __m256i {
    if masks.is_null() {
        return _mm256_set1_epi32(-1);
    }
    // SAFETY: the caller's contract.
    let b = (unsafe { *masks.add(g) } >> (8 * h)) as u8;
    let bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    let m = _mm256_and_si256(_mm256_set1_epi32(i32::from(b)), bits);
    _mm256_cmpeq_epi32(m, bits)
}

/// # Safety
/// As [`unpack`] without `out`; a non-null `masks` is readable for `groups` words.
#[target_feature(enable = "avx2,popcnt")]
pub(super) unsafe fn sum_packed(
    src: *const u64,
    width: u32,
    groups: usize,
    masks: *const u64,
) -> u64 {
    let p = plan(width);
    let low = _mm256_set1_epi64x(0xffff_ffff);
    let mut acc = _mm256_setzero_si256();
    for g in 0..groups {
        // SAFETY: as in `unpack`; the caller's contract for `masks`.
        unsafe {
            let s = src.add(g * width as usize).cast::<u32>();
            prefetch_ahead(s.cast(), width as usize * 8);
            for h in 0..8 {
                let v = _mm256_and_si256(eight(&p, s, h), lanes(masks, g, h));
                // Two ids per 64-bit lane, below 2^33 per 8 ids: exact for fewer than
                // 2^28 groups.
                let pair = _mm256_add_epi64(_mm256_and_si256(v, low), _mm256_srli_epi64::<32>(v));
                acc = _mm256_add_epi64(acc, pair);
            }
        }
    }
    let mut out = [0u64; 4];
    // SAFETY: a 32-byte store into a live [u64; 4].
    unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), acc) };
    out.iter().sum()
}

/// As the AVX-512 `dot_packed`: the halves' sums of the products `ida * idb`.
///
/// # Safety
/// `a` and `b` as `src` in [`unpack`] for widths `wa` and `wb`; a non-null `masks` is
/// readable for `groups` words.
#[target_feature(enable = "avx2,popcnt")]
pub(super) unsafe fn dot_packed(
    a: *const u64,
    wa: u32,
    b: *const u64,
    wb: u32,
    groups: usize,
    masks: *const u64,
) -> (u64, u64) {
    let (pa, pb) = (plan(wa), plan(wb));
    let low = _mm256_set1_epi64x(0xffff_ffff);
    let (mut lo, mut hi) = (_mm256_setzero_si256(), _mm256_setzero_si256());
    for g in 0..groups {
        // SAFETY: as in `unpack`, for both columns; the caller's contract for `masks`.
        unsafe {
            let sa = a.add(g * wa as usize).cast::<u32>();
            let sb = b.add(g * wb as usize).cast::<u32>();
            prefetch_ahead(sa.cast(), wa as usize * 8);
            prefetch_ahead(sb.cast(), wb as usize * 8);
            for h in 0..8 {
                let x = _mm256_and_si256(eight(&pa, sa, h), lanes(masks, g, h));
                let y = eight(&pb, sb, h);
                let even = _mm256_mul_epu32(x, y);
                let odd = _mm256_mul_epu32(_mm256_srli_epi64::<32>(x), _mm256_srli_epi64::<32>(y));
                lo = _mm256_add_epi64(lo, _mm256_and_si256(even, low));
                lo = _mm256_add_epi64(lo, _mm256_and_si256(odd, low));
                hi = _mm256_add_epi64(hi, _mm256_srli_epi64::<32>(even));
                hi = _mm256_add_epi64(hi, _mm256_srli_epi64::<32>(odd));
            }
        }
    }
    let (mut l, mut u) = ([0u64; 4], [0u64; 4]);
    // SAFETY: 32-byte stores into live [u64; 4]s.
    unsafe {
        _mm256_storeu_si256(l.as_mut_ptr().cast(), lo);
        _mm256_storeu_si256(u.as_mut_ptr().cast(), hi);
    }
    (l.iter().sum(), u.iter().sum())
}

/// As the AVX-512 `min_max_packed`: the smallest and the largest selected id, or
/// `(u32::MAX, 0)`.
///
/// # Safety
/// As [`unpack`] without `out`; a non-null `masks` is readable for `groups` words.
#[target_feature(enable = "avx2,popcnt")]
pub(super) unsafe fn min_max_packed(
    src: *const u64,
    width: u32,
    groups: usize,
    masks: *const u64,
) -> (u32, u32) {
    let p = plan(width);
    let ones = _mm256_set1_epi32(-1);
    let (mut lo, mut hi) = (ones, _mm256_setzero_si256());
    for g in 0..groups {
        // SAFETY: as in `unpack`; the caller's contract for `masks`.
        unsafe {
            let s = src.add(g * width as usize).cast::<u32>();
            prefetch_ahead(s.cast(), width as usize * 8);
            for h in 0..8 {
                let m = lanes(masks, g, h);
                let v = eight(&p, s, h);
                // Lanes not selected: the largest id for the minimum, 0 for the maximum.
                lo = _mm256_min_epu32(lo, _mm256_or_si256(v, _mm256_xor_si256(m, ones)));
                hi = _mm256_max_epu32(hi, _mm256_and_si256(v, m));
            }
        }
    }
    let (mut l, mut u) = ([0u32; 8], [0u32; 8]);
    // SAFETY: 32-byte stores into live [u32; 8]s.
    unsafe {
        _mm256_storeu_si256(l.as_mut_ptr().cast(), lo);
        _mm256_storeu_si256(u.as_mut_ptr().cast(), hi);
    }
    (
        l.into_iter().min().unwrap_or(u32::MAX),
        u.into_iter().max().unwrap_or(0),
    )
}

/// As the AVX-512 `min_max_pair_packed`: the extremes of `ida + idb`, `ida - idb` or
/// `(a0 + ida) * (b0 + idb)`, folded in 32-bit lanes.
///
/// # Safety
/// `a` and `b` as `src` in [`unpack`] for widths `wa` and `wb`; a non-null `masks` is
/// readable for `groups` words.
#[target_feature(enable = "avx2,popcnt")]
pub(super) unsafe fn min_max_pair_packed(
    a: *const u64,
    wa: u32,
    b: *const u64,
    wb: u32,
    groups: usize,
    masks: *const u64,
    op: Pair,
) -> (i64, i64) {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        match op {
            Pair::Sum => pair_extremes::<0>(a, wa, b, wb, groups, masks, 0, 0),
            Pair::Difference => pair_extremes::<1>(a, wa, b, wb, groups, masks, 0, 0),
            Pair::Product { a0, b0 } => pair_extremes::<2>(a, wa, b, wb, groups, masks, a0, b0),
        }
    }
}

/// [`min_max_pair_packed`] for one operation (`OP`: 0 sum, 1 difference, 2 product).
///
/// # Safety
/// As [`min_max_pair_packed`].
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn pair_extremes<const OP: u8>(
    a: *const u64,
    wa: u32,
    b: *const u64,
    wb: u32,
    groups: usize,
    masks: *const u64,
    a0: u32,
    b0: u32,
) -> (i64, i64) {
    let (pa, pb) = (plan(wa), plan(wb));
    let (va, vb) = (_mm256_set1_epi32(a0 as i32), _mm256_set1_epi32(b0 as i32));
    let signed = OP == 1;
    // The folds' starting values, which the lanes not selected are set to.
    let (top, bottom) = if signed {
        (_mm256_set1_epi32(i32::MAX), _mm256_set1_epi32(i32::MIN))
    } else {
        (_mm256_set1_epi32(-1), _mm256_setzero_si256())
    };
    let (mut lo, mut hi) = (top, bottom);
    for g in 0..groups {
        // SAFETY: as in `unpack`, for both columns; the caller's contract for `masks`.
        unsafe {
            let sa = a.add(g * wa as usize).cast::<u32>();
            let sb = b.add(g * wb as usize).cast::<u32>();
            prefetch_ahead(sa.cast(), wa as usize * 8);
            prefetch_ahead(sb.cast(), wb as usize * 8);
            for h in 0..8 {
                let m = lanes(masks, g, h);
                let (x, y) = (eight(&pa, sa, h), eight(&pb, sb, h));
                let v = match OP {
                    0 => _mm256_add_epi32(x, y),
                    1 => _mm256_sub_epi32(x, y),
                    _ => _mm256_mullo_epi32(_mm256_add_epi32(x, va), _mm256_add_epi32(y, vb)),
                };
                let (for_lo, for_hi) = (
                    _mm256_blendv_epi8(top, v, m),
                    _mm256_blendv_epi8(bottom, v, m),
                );
                if signed {
                    lo = _mm256_min_epi32(lo, for_lo);
                    hi = _mm256_max_epi32(hi, for_hi);
                } else {
                    lo = _mm256_min_epu32(lo, for_lo);
                    hi = _mm256_max_epu32(hi, for_hi);
                }
            }
        }
    }
    let (mut l, mut u) = ([0u32; 8], [0u32; 8]);
    // SAFETY: 32-byte stores into live [u32; 8]s.
    unsafe {
        _mm256_storeu_si256(l.as_mut_ptr().cast(), lo);
        _mm256_storeu_si256(u.as_mut_ptr().cast(), hi);
    }
    let value = |x: u32| {
        if signed {
            i64::from(x as i32)
        } else {
            i64::from(x)
        }
    };
    (
        l.into_iter().map(value).min().unwrap_or(0),
        u.into_iter().map(value).max().unwrap_or(0),
    )
}
