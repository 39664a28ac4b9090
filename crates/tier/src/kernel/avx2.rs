//! The AVX2 kernels: two ymm registers per 64-byte line.

use std::arch::x86_64::*;

use super::{flush_mode, persist, CACHE_LINE, PATTERN, W_CLWB, W_NT, W_READ};

type V = [__m256i; 2];

#[target_feature(enable = "avx2")]
#[inline]
fn zero() -> V {
    [_mm256_setzero_si256(); 2]
}

#[target_feature(enable = "avx2")]
#[inline]
fn xor(a: V, b: V) -> V {
    [_mm256_xor_si256(a[0], b[0]), _mm256_xor_si256(a[1], b[1])]
}

#[target_feature(enable = "avx2")]
#[inline]
fn fold(v: V) -> u64 {
    // SAFETY: [__m256i; 2] and [u64; 8] are both 64 bytes of plain integer data.
    let w: [u64; 8] = unsafe { std::mem::transmute::<V, [u64; 8]>(v) };
    w.iter().fold(0, |a, b| a ^ b)
}

#[target_feature(enable = "avx2")]
#[inline]
fn pattern() -> V {
    let p = PATTERN.map(|w| w as i64);
    [
        _mm256_set_epi64x(p[3], p[2], p[1], p[0]),
        _mm256_set_epi64x(p[7], p[6], p[5], p[4]),
    ]
}

/// # Safety
/// `p` is a 64-byte aligned line of a live mapping; the CPU has avx2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn load(p: *const u8) -> V {
    let p = p.cast::<__m256i>();
    // SAFETY: both halves are 32-byte aligned and inside the line (caller's contract).
    unsafe { [_mm256_load_si256(p), _mm256_load_si256(p.add(1))] }
}

/// # Safety
/// As [`load`].
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn store(p: *mut u8, v: V) {
    let p = p.cast::<__m256i>();
    // SAFETY: both halves are 32-byte aligned and inside the line (caller's contract).
    unsafe {
        _mm256_store_si256(p, v[0]);
        _mm256_store_si256(p.add(1), v[1]);
    }
}

/// # Safety
/// As [`load`].
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn stream(p: *mut u8, v: V) {
    let p = p.cast::<__m256i>();
    // SAFETY: both halves are 32-byte aligned and inside the line (caller's contract).
    unsafe {
        _mm256_stream_si256(p, v[0]);
        _mm256_stream_si256(p.add(1), v[1]);
    }
}

drivers!(#[inline] #[target_feature(enable = "avx2")]);
