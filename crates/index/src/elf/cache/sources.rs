//! The list sources of the caching variants: where each variant reads the dense first
//! dimension, DimensionLists and MonoLists / TID lists from, counting DRAM and PM reads.

use super::dynamic::{DynCache, FastMap};
use super::CacheStats;
use crate::elf::traverse::ListSource;
use crate::elf::PRELUDE;

/// The PM-only traversal (also Hybrid, with the DRAM copy as `w`).
pub(super) struct Plain<'a> {
    pub(super) w: &'a [u32],
    pub(super) dram: bool,
    pub(super) stats: &'a mut CacheStats,
}

impl Plain<'_> {
    fn count(&mut self) {
        if self.dram {
            self.stats.dram += 1;
        } else {
            self.stats.pm += 1;
        }
    }
}

impl<'a> ListSource<'a> for Plain<'a> {
    fn dense(&mut self) -> &[u32] {
        self.count();
        &self.w[PRELUDE..PRELUDE + self.w[1] as usize]
    }
    fn list(&mut self, off: usize, _level: usize, _up: bool) -> (&[u32], bool) {
        self.count();
        (&self.w[off..], self.dram)
    }
    fn rest(&mut self, off: usize) -> &[u32] {
        self.count();
        &self.w[off..]
    }
}

/// A DRAM copy of `pm[..cut]` (static levels).
pub(super) struct Prefix<'a> {
    pub(super) pm: &'a [u32],
    pub(super) buf: &'a [u32],
    pub(super) stats: &'a mut CacheStats,
}

impl Prefix<'_> {
    #[inline]
    fn at(&mut self, off: usize) -> (&[u32], bool) {
        if off < self.buf.len() {
            self.stats.dram += 1;
            (&self.buf[off..], true)
        } else {
            self.stats.pm += 1;
            (&self.pm[off..], false)
        }
    }
}

impl<'a> ListSource<'a> for Prefix<'a> {
    fn dense(&mut self) -> &[u32] {
        let c = self.pm[1] as usize;
        &self.at(PRELUDE).0[..c]
    }
    fn list(&mut self, off: usize, _level: usize, _up: bool) -> (&[u32], bool) {
        self.at(off)
    }
    fn rest(&mut self, off: usize) -> &[u32] {
        self.at(off).0
    }
}

/// Probability-selected lists: `map` from PM offset to offset in `buf`.
pub(super) struct Selected<'a> {
    pub(super) pm: &'a [u32],
    pub(super) buf: &'a [u32],
    pub(super) map: &'a FastMap<u32>,
    pub(super) stats: &'a mut CacheStats,
}

impl<'a> ListSource<'a> for Selected<'a> {
    fn dense(&mut self) -> &[u32] {
        self.stats.dram += 1;
        let c = self.pm[1] as usize;
        &self.buf[..c]
    }
    fn list(&mut self, off: usize, _level: usize, up: bool) -> (&[u32], bool) {
        if up {
            if let Some(&b) = self.map.get(&(off as u32)) {
                self.stats.dram += 1;
                return (&self.buf[b as usize..], true);
            }
        }
        self.stats.pm += 1;
        (&self.pm[off..], false)
    }
    fn rest(&mut self, off: usize) -> &[u32] {
        self.stats.pm += 1;
        &self.pm[off..]
    }
}

/// A static prefix (possibly empty: only the dense array) plus a dynamic cache for the
/// DimensionLists outside it.
pub(super) struct Split<'a> {
    pub(super) pm: &'a [u32],
    pub(super) buf: &'a [u32],
    pub(super) cache: &'a mut DynCache,
    pub(super) stats: &'a mut CacheStats,
}

impl<'a> ListSource<'a> for Split<'a> {
    fn dense(&mut self) -> &[u32] {
        let c = self.pm[1] as usize;
        if self.buf.len() >= PRELUDE + c {
            self.stats.dram += 1;
            &self.buf[PRELUDE..PRELUDE + c]
        } else {
            self.stats.pm += 1;
            &self.pm[PRELUDE..PRELUDE + c]
        }
    }
    fn list(&mut self, off: usize, _level: usize, _up: bool) -> (&[u32], bool) {
        if off < self.buf.len() {
            self.stats.dram += 1;
            return (&self.buf[off..], true);
        }
        match self.cache.get(self.pm, off as u32, self.stats) {
            Some(s) => (s, true),
            None => (&self.pm[off..], false),
        }
    }
    fn rest(&mut self, off: usize) -> &[u32] {
        if off < self.buf.len() {
            self.stats.dram += 1;
            &self.buf[off..]
        } else {
            self.stats.pm += 1;
            &self.pm[off..]
        }
    }
}
