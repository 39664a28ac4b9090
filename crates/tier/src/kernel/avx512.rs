//! The AVX-512 kernels: one zmm register per 64-byte line.

// AVX-512 intrinsics and `target_feature(enable = "avx512f")` are stable since Rust
// 1.89, the workspace's `rust-version`.
use std::arch::x86_64::*;

use super::{flush_mode, persist, CACHE_LINE, PATTERN, W_CLWB, W_NT, W_READ};

type V = __m512i;

#[target_feature(enable = "avx512f")]
#[inline]
fn zero() -> V {
    _mm512_setzero_si512()
}

#[target_feature(enable = "avx512f")]
#[inline]
fn xor(a: V, b: V) -> V {
    _mm512_xor_si512(a, b)
}

#[target_feature(enable = "avx512f")]
#[inline]
fn fold(v: V) -> u64 {
    // SAFETY: __m512i and [u64; 8] are both 64 bytes of plain integer data.
    let w: [u64; 8] = unsafe { std::mem::transmute::<V, [u64; 8]>(v) };
    w.iter().fold(0, |a, b| a ^ b)
}

#[target_feature(enable = "avx512f")]
#[inline]
fn pattern() -> V {
    let p = PATTERN.map(|w| w as i64);
    _mm512_set_epi64(p[7], p[6], p[5], p[4], p[3], p[2], p[1], p[0])
}

/// # Safety
/// `p` is a 64-byte aligned line of a live mapping; the CPU has avx512f.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn load(p: *const u8) -> V {
    // SAFETY: the caller's contract.
    unsafe { _mm512_load_si512(p.cast()) }
}

/// # Safety
/// As [`load`].
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn store(p: *mut u8, v: V) {
    // SAFETY: the caller's contract.
    unsafe { _mm512_store_si512(p.cast(), v) }
}

/// # Safety
/// As [`load`].
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn stream(p: *mut u8, v: V) {
    // SAFETY: the caller's contract.
    unsafe { _mm512_stream_si512(p.cast(), v) }
}

drivers!(#[inline] #[target_feature(enable = "avx512f")]);
