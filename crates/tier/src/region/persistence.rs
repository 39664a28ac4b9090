//! Making a region's bytes durable the tier's way: non-temporal copies and cache-line
//! flushes on DAX, `msync` on page-cache files, nothing on DRAM.

use super::{check_range, Region, PAGE};
use crate::persist::{self, Durability};
use pmolap_os::{Error, Result};

impl Region {
    /// Writes `src` at `offset` and makes it durable the tier's way: non-temporal copy +
    /// `sfence` on DAX, copy + `msync` on page-cache files, a plain copy on DRAM.
    pub fn write_durable(&mut self, offset: usize, src: &[u8]) -> Result<()> {
        check_range(offset, src.len(), self.len)?;
        match self.info.durability {
            Durability::CacheFlush => {
                // SAFETY: the range was checked to lie in our mapping, which `&mut self`
                // owns exclusively and which cannot overlap `src` (a borrowed slice of
                // other memory: `src` cannot borrow from `self` while `self` is `&mut`).
                unsafe { persist::copy_nt(self.ptr.as_ptr().add(offset), src, self.flush) };
                persist::sfence();
                Ok(())
            }
            _ => {
                self.as_mut_slice()[offset..offset + src.len()].copy_from_slice(src);
                self.persist(offset, src.len())
            }
        }
    }

    /// Makes `offset..offset+len` durable: nothing on DRAM, `msync(MS_SYNC)` on page-cache
    /// files, cache-line flush (clwb > clflushopt > clflush) + `sfence` on DAX.
    pub fn persist(&self, offset: usize, len: usize) -> Result<()> {
        check_range(offset, len, self.len)?;
        match self.info.durability {
            Durability::Volatile => Ok(()),
            Durability::CacheFlush => {
                // SAFETY: the range was checked to lie in our live mapping and
                // `self.flush` was chosen from this CPU's features.
                unsafe { persist::flush_lines(self.flush, self.ptr.as_ptr().add(offset), len) };
                persist::sfence();
                Ok(())
            }
            Durability::PageCache => {
                let start = offset & !(PAGE - 1);
                let end = offset + len;
                // SAFETY: `start` is page aligned and `start..end` lies in our mapping.
                let rc = unsafe {
                    libc::msync(
                        self.ptr.as_ptr().add(start).cast(),
                        end - start,
                        libc::MS_SYNC,
                    )
                };
                if rc != 0 {
                    return Err(Error::last_os("msync"));
                }
                Ok(())
            }
        }
    }
}
