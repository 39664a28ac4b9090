//! The portable kernels: eight volatile `u64` accesses per 64-byte line.

use super::{flush_mode, persist, CACHE_LINE, PATTERN, W_CLWB, W_NT, W_READ};

type V = [u64; 8];

#[inline(always)]
fn zero() -> V {
    [0; 8]
}

#[inline(always)]
fn xor(a: V, b: V) -> V {
    std::array::from_fn(|i| a[i] ^ b[i])
}

#[inline(always)]
fn fold(v: V) -> u64 {
    v.iter().fold(0, |a, b| a ^ b)
}

#[inline(always)]
fn pattern() -> V {
    PATTERN
}

/// # Safety
/// `p` is a 64-byte aligned line of a live mapping.
#[inline(always)]
unsafe fn load(p: *const u8) -> V {
    let p = p.cast::<u64>();
    // SAFETY: all eight words are aligned and inside the line (caller's contract).
    std::array::from_fn(|i| unsafe { p.add(i).read_volatile() })
}

/// # Safety
/// As [`load`].
#[inline(always)]
unsafe fn store(p: *mut u8, v: V) {
    let p = p.cast::<u64>();
    for (i, w) in v.into_iter().enumerate() {
        // SAFETY: word `i` is aligned and inside the line (caller's contract).
        unsafe { p.add(i).write_volatile(w) };
    }
}

/// Non-temporal 64-bit stores (`movnti`, baseline x86-64); plain volatile stores
/// elsewhere.
///
/// # Safety
/// As [`load`].
#[inline(always)]
unsafe fn stream(p: *mut u8, v: V) {
    #[cfg(target_arch = "x86_64")]
    {
        let p = p.cast::<i64>();
        for (i, w) in v.into_iter().enumerate() {
            // SAFETY: word `i` is aligned and inside the line (caller's contract);
            // movnti is part of SSE2, baseline on x86-64.
            unsafe { std::arch::x86_64::_mm_stream_si64(p.add(i), w as i64) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: the caller's contract is `store`'s.
    unsafe {
        store(p, v)
    }
}

drivers!(#[inline(always)]);
