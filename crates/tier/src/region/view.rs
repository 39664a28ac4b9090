//! [`MemView`]: the shared, copyable handle through which many threads read and write a
//! region at once.

use std::marker::PhantomData;
use std::ptr::NonNull;

use super::{check_range, Region};
use crate::cpu::CpuFeatures;
use pmolap_os::{Error, Result};

impl Region {
    /// A copyable handle through which many threads can access the region at once.
    pub fn view(&mut self) -> MemView<'_> {
        MemView {
            ptr: self.ptr,
            len: self.len,
            features: self.features,
            _region: PhantomData,
        }
    }
}

/// A shared, copyable handle to a region's bytes for concurrent access by many threads.
///
/// All accesses are bounds-checked. Threads must write disjoint byte ranges (pmolap's
/// benchmarks assign ranges so they do); bytes are only ever read through volatile or
/// SIMD loads, never as typed Rust references, so concurrent access cannot produce an
/// invalid value.
#[derive(Debug, Clone, Copy)]
pub struct MemView<'a> {
    ptr: NonNull<u8>,
    len: usize,
    features: CpuFeatures,
    _region: PhantomData<&'a mut Region>,
}

// SAFETY: a MemView is a bounds-checked pointer into a mapping that outlives it (the
// lifetime ties it to `&mut Region`); see the type docs for the access discipline.
unsafe impl Send for MemView<'_> {}
// SAFETY: as above; shared use only issues volatile/SIMD loads and stores.
unsafe impl Sync for MemView<'_> {}

impl MemView<'_> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The CPU features of the machine (decides which kernels may run).
    pub fn cpu_features(&self) -> &CpuFeatures {
        &self.features
    }

    /// Errors unless `offset..offset+len` lies inside the view.
    pub fn check(&self, offset: usize, len: usize) -> Result<()> {
        check_range(offset, len, self.len)
    }

    /// Raw pointer to `offset`; callers in this crate check the range first.
    pub(crate) fn ptr_at(&self, offset: usize) -> *mut u8 {
        debug_assert!(offset <= self.len);
        self.ptr.as_ptr().wrapping_add(offset)
    }

    /// Reads the aligned `u64` at `offset`.
    pub fn read_u64(&self, offset: usize) -> Result<u64> {
        self.check_u64(offset)?;
        // SAFETY: checked in bounds and 8-byte aligned (the mapping is page aligned).
        Ok(unsafe { self.ptr_at(offset).cast::<u64>().read_volatile() })
    }

    /// Writes the aligned `u64` at `offset`.
    pub fn write_u64(&self, offset: usize, value: u64) -> Result<()> {
        self.check_u64(offset)?;
        // SAFETY: checked in bounds and 8-byte aligned; see the type docs for races.
        unsafe { self.ptr_at(offset).cast::<u64>().write_volatile(value) };
        Ok(())
    }

    fn check_u64(&self, offset: usize) -> Result<()> {
        self.check(offset, 8)?;
        if !offset.is_multiple_of(8) {
            return Err(Error::Invalid(format!(
                "offset {offset} is not 8-byte aligned"
            )));
        }
        Ok(())
    }

    /// Follows a chain of `u64` byte offsets for `steps` hops from `start` (a pointer
    /// chase: every load depends on the previous one). Returns the final offset.
    pub fn chase(&self, start: u64, steps: u64) -> Result<u64> {
        let mut at = start;
        let limit = self.len.saturating_sub(7) as u64;
        for _ in 0..steps {
            if at >= limit || !at.is_multiple_of(8) {
                return Err(Error::OutOfBounds {
                    offset: at as usize,
                    len: 8,
                    size: self.len,
                });
            }
            // SAFETY: `at + 8 <= len` and `at` is 8-byte aligned, checked just above.
            at = unsafe {
                self.ptr
                    .as_ptr()
                    .add(at as usize)
                    .cast::<u64>()
                    .read_volatile()
            };
        }
        Ok(at)
    }

    /// Copies `src` into the view at `offset` with plain stores.
    pub fn copy_from(&self, offset: usize, src: &[u8]) -> Result<()> {
        self.check(offset, src.len())?;
        // SAFETY: the destination range is in bounds and cannot overlap `src`, a slice
        // of ordinary memory borrowed for the call.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), self.ptr_at(offset), src.len()) };
        Ok(())
    }

    /// Copies `dst.len()` bytes at `offset` out of the view.
    pub fn copy_to(&self, offset: usize, dst: &mut [u8]) -> Result<()> {
        self.check(offset, dst.len())?;
        // SAFETY: the source range is in bounds; `dst` is exclusively borrowed.
        unsafe { std::ptr::copy_nonoverlapping(self.ptr_at(offset), dst.as_mut_ptr(), dst.len()) };
        Ok(())
    }
}
