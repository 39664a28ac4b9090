//! Software prefetch: ask the CPU to start loading the cache line of a value that will be
//! read soon, so that two dependent misses (a hash bucket's header, then the slot it
//! names) overlap. A hint only: it never faults, changes no memory and has no effect on
//! results, so it is a safe function on every target (a no-op where there is no
//! instruction for it).

/// Starts loading the cache line holding `*r` into every cache level (`prefetcht0`).
#[inline(always)]
pub fn prefetch_read<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: `prefetcht0` is part of SSE (baseline x86-64); it is a hint that never
        // faults and never writes, and `r` is a valid reference in any case.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((r as *const T).cast::<i8>()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = r;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefetching_changes_nothing() {
        let v: Vec<u64> = (0..1024).collect();
        for x in v.iter().step_by(8) {
            prefetch_read(x);
        }
        assert!(v.iter().copied().eq(0..1024));
    }
}
