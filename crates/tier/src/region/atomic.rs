//! [`AtomicRegion`]: a region whose bytes are only ever accessed as `AtomicU64` words, so
//! concurrent data structures (readers validating versions while a writer updates) can
//! live in it with safe code, and make their updates durable the tier's way.

use std::sync::atomic::AtomicU64;

use super::{Region, RegionInfo};
use crate::persist::Durability;
use pmolap_os::{Error, Result};

impl Region {
    /// Turns the region into one accessed only as atomic 64-bit words (its length must
    /// be a multiple of 8). The plain byte accessors are gone from then on, so no
    /// non-atomic access can race with the atomic ones.
    pub fn into_atomic(self) -> Result<AtomicRegion> {
        if !self.len.is_multiple_of(8) {
            return Err(Error::Invalid(format!(
                "a region of {} bytes is not a whole number of 64-bit words",
                self.len
            )));
        }
        Ok(AtomicRegion { region: self })
    }
}

/// A region accessed as `&[AtomicU64]` (see [`Region::into_atomic`]).
#[derive(Debug)]
pub struct AtomicRegion {
    region: Region,
}

impl AtomicRegion {
    /// The region's words. Any number of threads may load, store and compare-exchange
    /// them at once.
    pub fn words(&self) -> &[AtomicU64] {
        // SAFETY: the mapping is live for `self`'s lifetime, page aligned (so 8-byte
        // aligned, the alignment of AtomicU64 on every 64-bit target) and `len` bytes long,
        // a multiple of 8 (checked in `into_atomic`). AtomicU64 has the size and bit
        // validity of u64, and every bit pattern is a valid u64. `into_atomic` consumed
        // the Region, so every access from now on goes through these atomics.
        unsafe {
            std::slice::from_raw_parts(
                self.region.ptr.as_ptr().cast::<AtomicU64>(),
                self.region.len / 8,
            )
        }
    }

    /// Makes bytes `offset..offset+len` durable the tier's way: nothing on DRAM,
    /// `msync(MS_SYNC)` of the pages on page-cache files, cache-line flush + `sfence` on DAX.
    pub fn persist(&self, offset: usize, len: usize) -> Result<()> {
        self.region.persist(offset, len)
    }

    pub fn len(&self) -> usize {
        self.region.len
    }

    pub fn is_empty(&self) -> bool {
        self.region.len == 0
    }

    pub fn durability(&self) -> Durability {
        self.region.info.durability
    }

    pub fn info(&self) -> &RegionInfo {
        &self.region.info
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use super::*;
    use crate::region::RegionOptions;
    use crate::spec::TierSpec;

    #[test]
    fn words_are_shared_and_persist_on_a_file() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("w.bin");
        let spec: TierSpec = format!("file:{}", path.display()).parse().unwrap();
        let opts = RegionOptions {
            keep_file: true,
            ..RegionOptions::default()
        };
        let r = Region::new(&spec, 8192, &opts)
            .unwrap()
            .into_atomic()
            .unwrap();
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let r = &r;
                s.spawn(move || {
                    for _ in 0..1000 {
                        r.words()[0].fetch_add(1, Ordering::Relaxed);
                    }
                    r.words()[1 + t as usize].store(t + 10, Ordering::Relaxed);
                });
            }
        });
        r.persist(0, 64).unwrap();
        assert!(r.persist(8190, 8).is_err());
        drop(r);
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(u64::from_le_bytes(bytes[..8].try_into().unwrap()), 4000);
        assert_eq!(u64::from_le_bytes(bytes[24..32].try_into().unwrap()), 12);
    }
}
