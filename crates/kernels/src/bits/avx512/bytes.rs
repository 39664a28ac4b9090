//! The AVX-512 kernels for ids of at most 8 bits: a byte per id, a group of 64 ids per
//! register (AVX-512 VBMI and BW).
//!
//! A group of 64 ids of width `w <= 8` is `8w` bytes, and ids `8k .. 8k + 8` are its
//! bytes `kw .. kw + w`. One load of the group, `vpermb` puts bytes `kw .. kw + 8` into
//! qword `k`, `vpmultishiftqb` moves the 8 bits from bit `bw` of qword `k` into its byte
//! `b`, and a mask keeps `w` of them: byte `i` of the register is id `i`. A range test
//! is then one byte compare to a 64-bit mask, a sum one `vpsadbw`, where the quarters of
//! 16 ids took four unpacks and four dword compares (docs/engine.md, "Ids of at most
//! 8 bits a byte each").

use std::arch::x86_64::*;

/// The widest ids these kernels take.
pub(in crate::bits) const MAX_WIDTH: u32 = 8;

/// The per-width constants of the byte unpack.
struct Bytes {
    perm: __m512i,
    shifts: __m512i,
    mask: __m512i,
    width: usize,
}

impl Bytes {
    /// # Safety
    /// The CPU has avx512f, avx512bw and avx512vbmi; `width` in `1..=MAX_WIDTH`.
    #[inline(always)]
    unsafe fn new(width: u32) -> Bytes {
        debug_assert!((1..=MAX_WIDTH).contains(&width));
        let w = width as usize;
        let mut perm = [0u8; 64];
        let mut shifts = [0u8; 64];
        for k in 0..8 {
            for b in 0..8 {
                // At most byte 7 * 8 + 7 = 63 of the 64 loaded.
                perm[8 * k + b] = (k * w + b) as u8;
                shifts[8 * k + b] = (b * w) as u8;
            }
        }
        // SAFETY: loads of 64 bytes from live arrays of 64 bytes; the caller's features.
        unsafe {
            Bytes {
                perm: _mm512_loadu_si512(perm.as_ptr().cast()),
                shifts: _mm512_loadu_si512(shifts.as_ptr().cast()),
                mask: _mm512_set1_epi8(((1u32 << width) - 1) as u8 as i8),
                width: w,
            }
        }
    }

    /// The 64 ids of group `g` of `src`, a byte each.
    ///
    /// # Safety
    /// `src` is readable for `(g + 1) * width + 8` words; the caller's features.
    #[inline(always)]
    unsafe fn group(&self, src: *const u64, g: usize) -> __m512i {
        let at = src.wrapping_add(g * self.width);
        crate::prefetch::prefetch_ahead(at.cast(), self.width * 8);
        // SAFETY: the group's `8w` bytes and at most 64 - 8w after them.
        unsafe {
            let v = _mm512_loadu_si512(at.cast());
            let q = _mm512_permutexvar_epi8(self.perm, v);
            _mm512_and_si512(_mm512_multishift_epi64_epi8(self.shifts, q), self.mask)
        }
    }
}

/// The selection bits of group `g` (all set when `masks` is null).
///
/// # Safety
/// A non-null `masks` is readable for `g + 1` words.
#[inline(always)]
unsafe fn selected(masks: *const u64, g: usize) -> u64 {
    if masks.is_null() {
        u64::MAX
    } else {
        // SAFETY: the caller's contract.
        unsafe { *masks.add(g) }
    }
}

/// Masks of the ids `lo ..= lo + span` (no wrapping: `lo + span <= 255`).
///
/// # Safety
/// `src` is readable for `groups * width + 8` words, `out` writable for `groups` masks,
/// `width` in `1..=MAX_WIDTH`; the CPU has avx512f, avx512bw and avx512vbmi.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
pub(in crate::bits) unsafe fn range(
    src: *const u64,
    width: u32,
    groups: usize,
    lo: u8,
    span: u8,
    out: *mut u64,
) {
    debug_assert!(u32::from(lo) + u32::from(span) <= 255);
    // SAFETY: the caller's features and width.
    let b = unsafe { Bytes::new(width) };
    let (vlo, vspan) = (_mm512_set1_epi8(lo as i8), _mm512_set1_epi8(span as i8));
    for g in 0..groups {
        // SAFETY: the caller's contract for `src` and `out`.
        unsafe {
            let v = _mm512_sub_epi8(b.group(src, g), vlo);
            *out.add(g) = _mm512_cmple_epu8_mask(v, vspan);
        }
    }
}

/// Masks of the ids whose bit is set in `table` (256 bits: every id of 8 bits).
///
/// # Safety
/// As [`range`].
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
pub(in crate::bits) unsafe fn bitmap(
    src: *const u64,
    width: u32,
    groups: usize,
    table: &[u8; 32],
    out: *mut u64,
) {
    // SAFETY: the caller's features and width.
    let b = unsafe { Bytes::new(width) };
    let mut t = [0u8; 64];
    t[..32].copy_from_slice(table);
    // SAFETY: a load of 64 bytes from a live array of 64 bytes.
    let vt = unsafe { _mm512_loadu_si512(t.as_ptr().cast()) };
    // Bit `id % 8` of a byte, by `vpshufb` (per 128-bit lane, indexes below 8).
    let bits = _mm512_set4_epi32(
        0x8040_2010u32 as i32,
        0x0804_0201,
        0x8040_2010u32 as i32,
        0x0804_0201,
    );
    let (low3, low5) = (_mm512_set1_epi8(7), _mm512_set1_epi8(31));
    for g in 0..groups {
        // SAFETY: the caller's contract for `src` and `out`.
        unsafe {
            let v = b.group(src, g);
            let byte =
                _mm512_permutexvar_epi8(_mm512_and_si512(_mm512_srli_epi16::<3>(v), low5), vt);
            let bit = _mm512_shuffle_epi8(bits, _mm512_and_si512(v, low3));
            *out.add(g) = _mm512_test_epi8_mask(byte, bit);
        }
    }
}

/// The sum of the ids of the rows of `groups` groups (those whose bit is set in a
/// non-null `masks`).
///
/// # Safety
/// As [`range`] without `out`; a non-null `masks` is readable for `groups` words.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
pub(in crate::bits) unsafe fn sum_packed(
    src: *const u64,
    width: u32,
    groups: usize,
    masks: *const u64,
) -> u64 {
    // SAFETY: the caller's features and width.
    let b = unsafe { Bytes::new(width) };
    let zero = _mm512_setzero_si512();
    let mut acc = zero;
    for g in 0..groups {
        // SAFETY: the caller's contract for `src` and `masks`.
        unsafe {
            let v = _mm512_maskz_mov_epi8(selected(masks, g), b.group(src, g));
            // Eight sums of eight bytes, at most 2040 each: exact in 64-bit lanes.
            acc = _mm512_add_epi64(acc, _mm512_sad_epu8(v, zero));
        }
    }
    _mm512_reduce_add_epi64(acc) as u64
}

/// The smallest and the largest id of the rows of `groups` groups (those whose bit is
/// set in a non-null `masks`); `(u32::MAX, 0)` when there are none.
///
/// # Safety
/// As [`sum_packed`].
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
pub(in crate::bits) unsafe fn min_max_packed(
    src: *const u64,
    width: u32,
    groups: usize,
    masks: *const u64,
) -> (u32, u32) {
    // SAFETY: the caller's features and width.
    let b = unsafe { Bytes::new(width) };
    let (mut lo, mut hi) = (_mm512_set1_epi8(-1), _mm512_setzero_si512());
    let mut any = 0u64;
    for g in 0..groups {
        // SAFETY: the caller's contract for `src` and `masks`.
        unsafe {
            let m = selected(masks, g);
            let v = b.group(src, g);
            lo = _mm512_mask_min_epu8(lo, m, lo, v);
            hi = _mm512_mask_max_epu8(hi, m, hi, v);
            any |= m;
        }
    }
    if any == 0 {
        return (u32::MAX, 0);
    }
    let (mut l, mut h) = ([0u8; 64], [0u8; 64]);
    // SAFETY: stores of 64 bytes into live arrays of 64 bytes.
    unsafe {
        _mm512_storeu_si512(l.as_mut_ptr().cast(), lo);
        _mm512_storeu_si512(h.as_mut_ptr().cast(), hi);
    }
    (
        u32::from(l.iter().copied().min().unwrap_or(u8::MAX)),
        u32::from(h.iter().copied().max().unwrap_or(0)),
    )
}
