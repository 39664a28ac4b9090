//! The C allocator's policy for a query engine's large, short-lived buffers.
//!
//! A query allocates buffers of a few MiB per join (pass flags, lookup tables, bitmaps)
//! and frees them when it ends. glibc's malloc serves every allocation above its mmap
//! threshold (128 KiB, raised only after such a block is freed) with a fresh mapping and
//! returns the heap's free top to the kernel above 128 KiB, so the next query faults
//! every page in again: measured at SF 10, planning a join of the 800,000 part rows took
//! 2.8 ms of which 1.7 were page faults, and one buffer freed earlier or later (which
//! moves the threshold) made a 2x difference on unrelated code.

/// Allocations up to this size come from malloc's heaps (glibc's largest allowed value
/// on 64-bit targets).
pub const MMAP_THRESHOLD: usize = 32 << 20;
/// Freed memory at the top of a heap is kept up to this size.
pub const TRIM_THRESHOLD: usize = 1 << 30;

/// Asks glibc's malloc to keep freed memory for reuse: blocks up to [`MMAP_THRESHOLD`]
/// from its heaps, up to [`TRIM_THRESHOLD`] of free top kept. Returns whether the
/// allocator took both settings (false on other C libraries, where it does nothing).
/// Call it once, early in `main`: it changes the whole process's allocator.
pub fn keep_freed_memory() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallopt only sets malloc tunables (under malloc's own lock); the
        // values are within glibc's documented ranges and no pointer is involved.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD as libc::c_int) == 1
                && libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD as libc::c_int) == 1
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    /// glibc accepts both settings (this project's CI and developer machines use glibc).
    #[test]
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn glibc_takes_the_settings() {
        assert!(super::keep_freed_memory());
        let v = vec![7u8; 8 << 20];
        assert_eq!(v.iter().map(|&b| b as usize).sum::<usize>(), 7 * (8 << 20));
    }
}
