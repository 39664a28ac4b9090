//! The AVX-512 bit kernels: 16 ids per zmm register.
//!
//! A group of 64 ids of width `w` is `2w` dwords; its quarter `c` (16 ids) starts at bit
//! `16wc`, that is byte `2wc` of the group. Two ways to get a quarter's 16 ids into the
//! lanes of a register ([`Quarters`]), each kernel compiled with both:
//!
//! - [`Perm`] (`avx512f`): two unaligned loads from dword `wc / 2` give a 32-dword
//!   window; `vpermt2d` picks, for each lane, the dword holding the id's first bit and
//!   the next one, and two variable shifts and a mask join them (an id of at most 32
//!   bits spans at most two dwords).
//! - [`Vbmi`] (`avx512vbmi`, ids of at most [`VBMI_MAX_WIDTH`] bits): one load of the
//!   quarter's 64 bytes; `vpermb` puts the four bytes from each id's first byte into its
//!   lane, one variable shift by the id's bit in that byte and a mask finish it — half
//!   the instructions (1.4-1.9x per id in a microbenchmark of the unpack, Zen 4).

use std::arch::x86_64::*;

use super::{Pair, GROUP};
use crate::prefetch::prefetch_ahead;

mod bytes;
mod variants;

pub(super) use self::variants::*;

/// Words the kernels may read past the last group's: the window of the last quarter
/// starts at dword `3w/2` of its group and is 32 dwords long.
pub(super) const SLACK_WORDS: usize = 16;

/// The widest ids [`Vbmi`] unpacks: an id at bit 7 of its first byte must end within
/// that byte's dword (`7 + w <= 32`).
pub(super) const VBMI_MAX_WIDTH: u32 = 25;

/// How a kernel reads the 16 ids of quarter `c` of a group into a register's lanes.
trait Quarters: Sized {
    /// The per-width constants.
    ///
    /// # Safety
    /// The CPU has the features of the kernel that uses it; `width` in 1..=32 (in
    /// `1..=VBMI_MAX_WIDTH` for [`Vbmi`]).
    unsafe fn new(width: u32) -> Self;

    /// The 16 ids of quarter `c` of the group at `g` (its first dword).
    ///
    /// # Safety
    /// `g` is readable for `2w + SLACK_WORDS * 2` dwords; the CPU has the features.
    unsafe fn quarter(&self, g: *const u32, c: usize) -> __m512i;
}

/// The `vpermt2d` unpacker: for each parity of the quarter's bit offset, the dword
/// indexes of every lane's low and high halves and its shifts.
struct Perm {
    lo: [__m512i; 2],
    hi: [__m512i; 2],
    shr: [__m512i; 2],
    shl: [__m512i; 2],
    mask: __m512i,
    /// Dword offset and parity of each quarter inside the group.
    at: [(usize, usize); 4],
}

#[target_feature(enable = "avx512f,popcnt")]
#[inline]
fn load(a: &[u32; 16]) -> __m512i {
    // SAFETY: an unaligned load of 64 bytes from a live [u32; 16].
    unsafe { _mm512_loadu_si512(a.as_ptr().cast()) }
}

impl Quarters for Perm {
    #[inline(always)]
    unsafe fn new(width: u32) -> Perm {
        // SAFETY: the caller's contract (avx512f).
        unsafe { plan(width) }
    }

    #[inline(always)]
    unsafe fn quarter(&self, g: *const u32, c: usize) -> __m512i {
        let (d, par) = self.at[c];
        // SAFETY: the caller's contract covers both 64-byte loads (dwords `d .. d + 32`,
        // `d <= 3w/2`) and the CPU's avx512f.
        unsafe {
            let a = _mm512_loadu_si512(g.add(d).cast());
            let b = _mm512_loadu_si512(g.add(d + 16).cast());
            let l = _mm512_permutex2var_epi32(a, self.lo[par], b);
            let h = _mm512_permutex2var_epi32(a, self.hi[par], b);
            let v = _mm512_or_si512(
                _mm512_srlv_epi32(l, self.shr[par]),
                _mm512_sllv_epi32(h, self.shl[par]),
            );
            _mm512_and_si512(v, self.mask)
        }
    }
}

#[target_feature(enable = "avx512f,popcnt")]
fn plan(width: u32) -> Perm {
    let w = width as usize;
    let mut lo = [[0u32; 16]; 2];
    let mut hi = [[0u32; 16]; 2];
    let mut shr = [[0u32; 16]; 2];
    let mut shl = [[0u32; 16]; 2];
    for p in 0..2 {
        for j in 0..16 {
            let bit = p * 16 + j * w;
            lo[p][j] = (bit / 32) as u32;
            hi[p][j] = (bit / 32 + 1) as u32;
            shr[p][j] = (bit % 32) as u32;
            // A shift by 32 clears the lane: no high half when the id starts on a dword.
            shl[p][j] = 32 - (bit % 32) as u32;
        }
    }
    let mask = if width == 32 {
        u32::MAX
    } else {
        (1u32 << width) - 1
    };
    Perm {
        lo: [load(&lo[0]), load(&lo[1])],
        hi: [load(&hi[0]), load(&hi[1])],
        shr: [load(&shr[0]), load(&shr[1])],
        shl: [load(&shl[0]), load(&shl[1])],
        mask: _mm512_set1_epi32(mask as i32),
        at: std::array::from_fn(|c| (w * c / 2, (w * c) % 2)),
    }
}

/// The `vpermb` unpacker: every lane's four bytes (from its id's first byte, relative to
/// the quarter's first byte) and its shift; the same for every quarter, which starts on
/// a byte.
struct Vbmi {
    bytes: __m512i,
    shr: __m512i,
    mask: __m512i,
    /// Bytes per quarter (`2w`).
    stride: usize,
}

impl Quarters for Vbmi {
    #[inline(always)]
    unsafe fn new(width: u32) -> Vbmi {
        debug_assert!((1..=VBMI_MAX_WIDTH).contains(&width));
        let w = width as usize;
        let mut bytes = [0u8; 64];
        let mut shr = [0u32; 16];
        for j in 0..16 {
            let bit = j * w;
            for (b, x) in bytes[4 * j..4 * j + 4].iter_mut().enumerate() {
                // At most byte 15 * 25 / 8 + 3 = 49 of the 64 loaded.
                *x = (bit / 8 + b) as u8;
            }
            shr[j] = (bit % 8) as u32;
        }
        // SAFETY: loads of 64 bytes from live arrays of 64 bytes; the caller's avx512f.
        unsafe {
            Vbmi {
                bytes: _mm512_loadu_si512(bytes.as_ptr().cast()),
                shr: _mm512_loadu_si512(shr.as_ptr().cast()),
                mask: _mm512_set1_epi32(((1u64 << width) - 1) as i32),
                stride: 2 * w,
            }
        }
    }

    #[inline(always)]
    unsafe fn quarter(&self, g: *const u32, c: usize) -> __m512i {
        // SAFETY: the caller's contract: the 64 bytes from byte `2wc` of the group lie
        // within its `2w` dwords and the slack after them; the CPU has avx512vbmi.
        unsafe {
            let v = _mm512_loadu_si512(g.cast::<u8>().add(c * self.stride).cast());
            let b = _mm512_permutexvar_epi8(self.bytes, v);
            _mm512_and_si512(_mm512_srlv_epi32(b, self.shr), self.mask)
        }
    }
}

/// # Safety
/// `src` is readable for `groups * width + SLACK_WORDS` words, `out` writable for
/// `groups * 64` ids, `width` in 1..=32; the CPU has avx512f.
#[inline(always)]
unsafe fn unpack_q<Q: Quarters>(src: *const u64, width: u32, groups: usize, out: *mut u32) {
    // SAFETY: the caller's contract (the features, the width).
    let p = unsafe { Q::new(width) };
    for g in 0..groups {
        // SAFETY: group `g` starts at word `g * width`; its quarters' windows end within
        // SLACK_WORDS of the group's end, and its 64 ids fit `out`.
        unsafe {
            let s = src.add(g * width as usize).cast::<u32>();
            prefetch_ahead(s.cast(), width as usize * 8);
            let o = out.add(g * GROUP);
            for c in 0..4 {
                _mm512_storeu_si512(o.add(c * 16).cast(), p.quarter(s, c));
            }
        }
    }
}

/// # Safety
/// As [`unpack`], with `masks` readable for `groups` words; returns the ids written.
#[inline(always)]
unsafe fn unpack_selected_q<Q: Quarters>(
    src: *const u64,
    width: u32,
    groups: usize,
    masks: *const u64,
    out: *mut u32,
) -> usize {
    // SAFETY: the caller's contract (the features, the width).
    let p = unsafe { Q::new(width) };
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
        for c in 0..4 {
            let q = (m >> (16 * c)) as u16;
            // SAFETY: as in `unpack`; `k <= g * 64 + c * 16` (at most one id per row
            // before this quarter), so the 16 lanes stored end within `groups * 64`.
            unsafe {
                let v = p.quarter(src.add(g * width as usize).cast(), c);
                _mm512_storeu_si512(out.add(k).cast(), _mm512_maskz_compress_epi32(q, v));
            }
            k += q.count_ones() as usize;
        }
    }
    k
}

/// # Safety
/// As [`unpack`], with `out` writable for `groups` masks and `runs` readable for `nruns`
/// pairs, `nruns` in `1..=FUSED_RUNS`.
#[inline(always)]
unsafe fn range_q<Q: Quarters>(
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
            1 => ranges_n::<Q, 1>(src, width, groups, runs, out),
            2 => ranges_n::<Q, 2>(src, width, groups, runs, out),
            3 => ranges_n::<Q, 3>(src, width, groups, runs, out),
            _ => ranges_n::<Q, 4>(src, width, groups, runs, out),
        }
    }
}

/// [`range_q`] of `N` ranges: each quarter unpacked once and compared with all `N` (a
/// pass per range unpacked the words `N` times: two runs of a 19-bit customer reference
/// took 35 % of SF 10 R9's probe).
///
/// # Safety
/// As [`range_q`], `nruns == N`.
#[inline(always)]
unsafe fn ranges_n<Q: Quarters, const N: usize>(
    src: *const u64,
    width: u32,
    groups: usize,
    runs: *const (u32, u32),
    out: *mut u64,
) {
    // SAFETY: the caller's contract: the CPU has the features, the width fits `Q`,
    // `runs` holds N pairs.
    let (p, vlo, vspan): (Q, [__m512i; N], [__m512i; N]) = unsafe {
        (
            Q::new(width),
            std::array::from_fn(|r| _mm512_set1_epi32((*runs.add(r)).0 as i32)),
            std::array::from_fn(|r| _mm512_set1_epi32((*runs.add(r)).1 as i32)),
        )
    };
    for g in 0..groups {
        let mut m = 0u64;
        // SAFETY: as in `unpack`; `out` has room for mask `g`.
        unsafe {
            let s = src.add(g * width as usize).cast::<u32>();
            prefetch_ahead(s.cast(), width as usize * 8);
            for c in 0..4 {
                let v = p.quarter(s, c);
                let mut k: __mmask16 = 0;
                for r in 0..N {
                    k |= _mm512_cmple_epu32_mask(_mm512_sub_epi32(v, vlo[r]), vspan[r]);
                }
                m |= u64::from(k) << (16 * c);
            }
            *out.add(g) = m;
        }
    }
}

/// # Safety
/// `masks` is readable for `groups` words, `sel` writable for `groups * 64` entries;
/// the CPU has avx512f.
#[target_feature(enable = "avx512f,popcnt")]
pub(super) unsafe fn select(masks: *const u64, groups: usize, base: u32, sel: *mut u32) -> usize {
    // SAFETY: the caller's contract.
    unsafe { select_g::<true>(masks, groups, base, sel) }
}

/// [`select`] without skipping empty words (for masks of a bit a word and more, where
/// the skip's branch mispredicts).
///
/// # Safety
/// As [`select`].
#[target_feature(enable = "avx512f,popcnt")]
pub(super) unsafe fn select_every(
    masks: *const u64,
    groups: usize,
    base: u32,
    sel: *mut u32,
) -> usize {
    // SAFETY: the caller's contract.
    unsafe { select_g::<false>(masks, groups, base, sel) }
}

/// # Safety
/// As [`select`].
#[inline(always)]
unsafe fn select_g<const SKIP: bool>(
    masks: *const u64,
    groups: usize,
    base: u32,
    sel: *mut u32,
) -> usize {
    // SAFETY: the callers have avx512f (their target features).
    let iota = unsafe { _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) };
    let mut k = 0usize;
    for g in 0..groups {
        // SAFETY: `g < groups`.
        let m = unsafe { *masks.add(g) };
        if SKIP && m == 0 {
            continue;
        }
        for c in 0..4 {
            let q = (m >> (16 * c)) as u16;
            let first = base.wrapping_add((g * GROUP + c * 16) as u32);
            // SAFETY: avx512f (as above); `k <= g * 64 + c * 16` (at most one entry per
            // id before this quarter), so the 16 lanes stored end within `groups * 64`.
            unsafe {
                let idx = _mm512_add_epi32(iota, _mm512_set1_epi32(first as i32));
                _mm512_storeu_si512(sel.add(k).cast(), _mm512_maskz_compress_epi32(q, idx));
            }
            k += q.count_ones() as usize;
        }
    }
    k
}

/// Bitmaps of up to this many bits are tested from registers (eight zmm), not gathered.
pub(super) const TABLE_BITS: u32 = 8 * 512;

/// The `vpermb` kernels test a bitmap over ids of up to this many bits by a byte lookup.
pub(super) const BYTE_WIDTH: u32 = bytes::MAX_WIDTH;

/// # Safety
/// As [`unpack`], with `out` writable for `groups` masks and `bitmap` readable for
/// `limit.div_ceil(32)` dwords (`limit >= 1`: ids from `limit` up fail).
#[inline(always)]
unsafe fn bitmap_q<Q: Quarters>(
    src: *const u64,
    width: u32,
    groups: usize,
    bitmap: *const u64,
    limit: u32,
    out: *mut u64,
) {
    if limit > TABLE_BITS {
        // SAFETY: the caller's contract; only lanes with `id < limit` are gathered, from
        // dword `id / 32` of the bitmap.
        unsafe {
            test_bits::<Q>(src, width, groups, limit, out, |idx, inb| {
                _mm512_mask_i32gather_epi32::<4>(_mm512_setzero_si512(), inb, idx, bitmap.cast())
            })
        }
        return;
    }
    // A bitmap this small is copied into registers and each id's dword picked by a
    // permute: a gather of 16 dwords costs about three times as much (0.53 ns per id
    // against 0.16-0.25 on a Zen 4, docs/engine.md).
    let mut t = [0u32; (TABLE_BITS / 32) as usize];
    let dwords = limit.div_ceil(32) as usize;
    // SAFETY: the caller's contract: `bitmap` is readable for `dwords` dwords.
    unsafe { std::ptr::copy_nonoverlapping(bitmap.cast::<u32>(), t.as_mut_ptr(), dwords) };
    // SAFETY: the caller's contract, passed on.
    unsafe {
        match limit {
            0..=512 => bitmap_in::<Q, 1>(src, width, groups, &t, limit, out),
            513..=1024 => bitmap_in::<Q, 2>(src, width, groups, &t, limit, out),
            1025..=2048 => bitmap_in::<Q, 4>(src, width, groups, &t, limit, out),
            _ => bitmap_in::<Q, 8>(src, width, groups, &t, limit, out),
        }
    }
}

/// [`bitmap`] with the bitmap's first `16 R` dwords in registers (`limit <= 512 R`).
///
/// # Safety
/// As [`unpack`], with `out` writable for `groups` masks.
#[inline(always)]
unsafe fn bitmap_in<Q: Quarters, const R: usize>(
    src: *const u64,
    width: u32,
    groups: usize,
    t: &[u32; (TABLE_BITS / 32) as usize],
    limit: u32,
    out: *mut u64,
) {
    let table: [__m512i; R] = std::array::from_fn(|k| {
        // SAFETY: `R <= 8`, so dwords `16 k .. 16 k + 16` lie in `t`.
        unsafe { _mm512_loadu_si512(t.as_ptr().add(16 * k).cast()) }
    });
    // SAFETY: the caller's contract.
    unsafe { test_bits::<Q>(src, width, groups, limit, out, |idx, _| pick(&table, idx)) }
}

/// Dword `idx` (its low `4 + log2 R` bits) of the `16 R` dwords in `t`, per lane.
#[target_feature(enable = "avx512f,popcnt")]
#[inline]
fn pick<const R: usize>(t: &[__m512i; R], idx: __m512i) -> __m512i {
    match R {
        1 => _mm512_permutexvar_epi32(idx, t[0]),
        2 => _mm512_permutex2var_epi32(t[0], idx, t[1]),
        _ => {
            // Pairs of registers by bits 0-4, then halves by bit 5 (and 6).
            let pair = |k: usize| _mm512_permutex2var_epi32(t[2 * k], idx, t[2 * k + 1]);
            let b5 = _mm512_test_epi32_mask(idx, _mm512_set1_epi32(32));
            let low = _mm512_mask_blend_epi32(b5, pair(0), pair(1));
            if R == 4 {
                return low;
            }
            let high = _mm512_mask_blend_epi32(b5, pair(2), pair(3));
            let b6 = _mm512_test_epi32_mask(idx, _mm512_set1_epi32(64));
            _mm512_mask_blend_epi32(b6, low, high)
        }
    }
}

/// The bitmap test's loop: `dword(id / 32, id < limit)` is the bitmap dword of each
/// lane whose id is below `limit` (the other lanes fail whatever it returns for them).
///
/// # Safety
/// As [`unpack`], with `out` writable for `groups` masks; `dword` is safe to call with
/// the ids of the packed groups.
#[inline(always)]
unsafe fn test_bits<Q: Quarters>(
    src: *const u64,
    width: u32,
    groups: usize,
    limit: u32,
    out: *mut u64,
    dword: impl Fn(__m512i, __mmask16) -> __m512i,
) {
    // SAFETY: the caller's contract: the CPU has the features, the width fits `Q`.
    let (p, vlim, low5, one) = unsafe {
        (
            Q::new(width),
            _mm512_set1_epi32(limit as i32),
            _mm512_set1_epi32(31),
            _mm512_set1_epi32(1),
        )
    };
    for g in 0..groups {
        let mut m = 0u64;
        // SAFETY: as in `unpack`; `out` has room for mask `g`.
        unsafe {
            let s = src.add(g * width as usize).cast::<u32>();
            prefetch_ahead(s.cast(), width as usize * 8);
            for c in 0..4 {
                let v = p.quarter(s, c);
                let inb = _mm512_cmplt_epu32_mask(v, vlim);
                let dw = dword(_mm512_srli_epi32::<5>(v), inb);
                let bit = _mm512_srlv_epi32(dw, _mm512_and_si512(v, low5));
                m |= u64::from(_mm512_mask_test_epi32_mask(inb, bit, one)) << (16 * c);
            }
            *out.add(g) = m;
        }
    }
}

/// The 16 lanes of quarter `c` of group `g` of `masks` (all lanes when `masks` is null).
///
/// # Safety
/// A non-null `masks` is readable for `g + 1` words.
#[target_feature(enable = "avx512f,popcnt")]
#[inline]
unsafe fn lanes(masks: *const u64, g: usize, c: usize) -> __mmask16 {
    if masks.is_null() {
        return 0xffff;
    }
    // SAFETY: the caller's contract.
    (unsafe { *masks.add(g) } >> (16 * c)) as __mmask16
}

/// # Safety
/// As [`unpack`] without `out`; a non-null `masks` is readable for `groups` words.
#[inline(always)]
unsafe fn sum_packed_q<Q: Quarters>(
    src: *const u64,
    width: u32,
    groups: usize,
    masks: *const u64,
) -> u64 {
    // SAFETY: the caller's contract: the CPU has the features, the width fits `Q`.
    let (p, low, mut acc) = unsafe {
        (
            Q::new(width),
            _mm512_set1_epi64(0xffff_ffff),
            _mm512_setzero_si512(),
        )
    };
    for g in 0..groups {
        // SAFETY: as in `unpack`; the caller's contract for `masks`.
        unsafe {
            let s = src.add(g * width as usize).cast::<u32>();
            prefetch_ahead(s.cast(), width as usize * 8);
            for c in 0..4 {
                let v = _mm512_maskz_mov_epi32(lanes(masks, g, c), p.quarter(s, c));
                // Two ids per 64-bit lane, below 2^33 a quarter: exact for fewer than
                // 2^29 groups.
                let pair = _mm512_add_epi64(_mm512_and_si512(v, low), _mm512_srli_epi64::<32>(v));
                acc = _mm512_add_epi64(acc, pair);
            }
        }
    }
    // SAFETY: the caller's contract: the CPU has avx512f.
    unsafe { _mm512_reduce_add_epi64(acc) as u64 }
}

/// `(Σ low halves, Σ high halves)` of the products `ida * idb` of the rows of `groups`
/// groups (those whose bit is set in a non-null `masks`).
///
/// # Safety
/// `a` and `b` as `src` in [`unpack`] for widths `wa` and `wb`; a non-null `masks` is
/// readable for `groups` words.
#[inline(always)]
unsafe fn dot_packed_q<A: Quarters, B: Quarters>(
    a: *const u64,
    wa: u32,
    b: *const u64,
    wb: u32,
    groups: usize,
    masks: *const u64,
) -> (u64, u64) {
    // SAFETY: the caller's contract: the CPU has the features, the widths fit.
    let (pa, pb, low, mut lo, mut hi) = unsafe {
        (
            A::new(wa),
            B::new(wb),
            _mm512_set1_epi64(0xffff_ffff),
            _mm512_setzero_si512(),
            _mm512_setzero_si512(),
        )
    };
    for g in 0..groups {
        // SAFETY: as in `unpack`, for both columns; the caller's contract for `masks`.
        unsafe {
            let sa = a.add(g * wa as usize).cast::<u32>();
            let sb = b.add(g * wb as usize).cast::<u32>();
            prefetch_ahead(sa.cast(), wa as usize * 8);
            prefetch_ahead(sb.cast(), wb as usize * 8);
            for c in 0..4 {
                let x = _mm512_maskz_mov_epi32(lanes(masks, g, c), pa.quarter(sa, c));
                let y = pb.quarter(sb, c);
                // Products of the even and the odd dwords, 64 bits each, split in halves
                // (exact for fewer than 2^29 groups).
                let even = _mm512_mul_epu32(x, y);
                let odd = _mm512_mul_epu32(_mm512_srli_epi64::<32>(x), _mm512_srli_epi64::<32>(y));
                lo = _mm512_add_epi64(lo, _mm512_and_si512(even, low));
                lo = _mm512_add_epi64(lo, _mm512_and_si512(odd, low));
                hi = _mm512_add_epi64(hi, _mm512_srli_epi64::<32>(even));
                hi = _mm512_add_epi64(hi, _mm512_srli_epi64::<32>(odd));
            }
        }
    }
    // SAFETY: the caller's contract: the CPU has avx512f.
    unsafe {
        (
            _mm512_reduce_add_epi64(lo) as u64,
            _mm512_reduce_add_epi64(hi) as u64,
        )
    }
}

/// The smallest and the largest id of the rows of `groups` groups (those whose bit is
/// set in a non-null `masks`); `(u32::MAX, 0)` when there are none.
///
/// # Safety
/// As [`unpack`] without `out`; a non-null `masks` is readable for `groups` words.
#[inline(always)]
unsafe fn min_max_packed_q<Q: Quarters>(
    src: *const u64,
    width: u32,
    groups: usize,
    masks: *const u64,
) -> (u32, u32) {
    // SAFETY: the caller's contract: the CPU has the features, the width fits `Q`.
    let (p, mut lo, mut hi) =
        unsafe { (Q::new(width), _mm512_set1_epi32(-1), _mm512_setzero_si512()) };
    for g in 0..groups {
        // SAFETY: as in `unpack`; the caller's contract for `masks`.
        unsafe {
            let s = src.add(g * width as usize).cast::<u32>();
            prefetch_ahead(s.cast(), width as usize * 8);
            for c in 0..4 {
                let m = lanes(masks, g, c);
                let v = p.quarter(s, c);
                lo = _mm512_mask_min_epu32(lo, m, lo, v);
                hi = _mm512_mask_max_epu32(hi, m, hi, v);
            }
        }
    }
    // SAFETY: the caller's contract: the CPU has avx512f.
    unsafe { (_mm512_reduce_min_epu32(lo), _mm512_reduce_max_epu32(hi)) }
}

/// The smallest and the largest `ida + idb`, `ida - idb` or `(a0 + ida) * (b0 + idb)`
/// (by `op`) of the rows of `groups` groups (those whose bit is set in a non-null
/// `masks`), folded in 32-bit lanes: a difference as `i32`, the others as `u32` (the
/// caller keeps them in range). Without rows: the folds' starting values.
///
/// # Safety
/// `a` and `b` as `src` in [`unpack`] for widths `wa` and `wb`; a non-null `masks` is
/// readable for `groups` words.
#[inline(always)]
unsafe fn min_max_pair_packed_q<A: Quarters, B: Quarters>(
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
            Pair::Sum => pair_extremes::<A, B, 0>(a, wa, b, wb, groups, masks, 0, 0),
            Pair::Difference => pair_extremes::<A, B, 1>(a, wa, b, wb, groups, masks, 0, 0),
            Pair::Product { a0, b0 } => {
                pair_extremes::<A, B, 2>(a, wa, b, wb, groups, masks, a0, b0)
            }
        }
    }
}

/// [`min_max_pair_packed`] for one operation (`OP`: 0 sum, 1 difference, 2 product).
///
/// # Safety
/// As [`min_max_pair_packed`].
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn pair_extremes<A: Quarters, B: Quarters, const OP: u8>(
    a: *const u64,
    wa: u32,
    b: *const u64,
    wb: u32,
    groups: usize,
    masks: *const u64,
    a0: u32,
    b0: u32,
) -> (i64, i64) {
    let signed = OP == 1;
    // SAFETY: the caller's contract: the CPU has the features, the widths fit.
    let (pa, pb, va, vb, mut lo, mut hi) = unsafe {
        let (lo, hi) = if signed {
            (_mm512_set1_epi32(i32::MAX), _mm512_set1_epi32(i32::MIN))
        } else {
            (_mm512_set1_epi32(-1), _mm512_setzero_si512())
        };
        let (va, vb) = (_mm512_set1_epi32(a0 as i32), _mm512_set1_epi32(b0 as i32));
        (A::new(wa), B::new(wb), va, vb, lo, hi)
    };
    for g in 0..groups {
        // SAFETY: as in `unpack`, for both columns; the caller's contract for `masks`.
        unsafe {
            let sa = a.add(g * wa as usize).cast::<u32>();
            let sb = b.add(g * wb as usize).cast::<u32>();
            prefetch_ahead(sa.cast(), wa as usize * 8);
            prefetch_ahead(sb.cast(), wb as usize * 8);
            for c in 0..4 {
                let m = lanes(masks, g, c);
                let (x, y) = (pa.quarter(sa, c), pb.quarter(sb, c));
                let v = match OP {
                    0 => _mm512_add_epi32(x, y),
                    1 => _mm512_sub_epi32(x, y),
                    _ => _mm512_mullo_epi32(_mm512_add_epi32(x, va), _mm512_add_epi32(y, vb)),
                };
                if signed {
                    lo = _mm512_mask_min_epi32(lo, m, lo, v);
                    hi = _mm512_mask_max_epi32(hi, m, hi, v);
                } else {
                    lo = _mm512_mask_min_epu32(lo, m, lo, v);
                    hi = _mm512_mask_max_epu32(hi, m, hi, v);
                }
            }
        }
    }
    // SAFETY: the caller's contract: the CPU has avx512f.
    unsafe {
        if signed {
            (
                i64::from(_mm512_reduce_min_epi32(lo)),
                i64::from(_mm512_reduce_max_epi32(hi)),
            )
        } else {
            (
                i64::from(_mm512_reduce_min_epu32(lo)),
                i64::from(_mm512_reduce_max_epu32(hi)),
            )
        }
    }
}
