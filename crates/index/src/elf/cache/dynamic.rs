//! The dynamic cache: a byte-bounded LRU cache of DimensionLists keyed by offset, with
//! optional TinyLFU admission ([`super::Policy`]).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::sketch::Sketch;
use super::{CacheStats, Policy};
use crate::elf::FLAG;

/// A multiplicative hasher for u32 keys (offsets): the std SipHash would dominate a
/// lookup.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct OffHasher(u64);

impl Hasher for OffHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.0 = (u64::from(v) ^ 0x5bd1_e995).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

pub(super) type FastMap<V> = HashMap<u32, V, BuildHasherDefault<OffHasher>>;

const NIL: u32 = u32::MAX;

#[derive(Debug)]
struct Entry {
    key: u32,
    prev: u32,
    next: u32,
    data: Box<[u32]>,
}

/// A byte-bounded cache of DimensionLists keyed by offset, LRU order in an intrusive
/// doubly linked list over a slab.
#[derive(Debug)]
pub(super) struct DynCache {
    policy: Policy,
    capacity: usize,
    used: usize,
    map: FastMap<u32>,
    slab: Vec<Entry>,
    free: Vec<u32>,
    head: u32, // most recent
    tail: u32, // least recent
    sketch: Sketch,
}

impl DynCache {
    pub(super) fn new(policy: Policy, capacity: usize) -> DynCache {
        DynCache {
            policy,
            capacity,
            used: 0,
            map: FastMap::default(),
            slab: Vec::new(),
            free: Vec::new(),
            head: NIL,
            tail: NIL,
            sketch: Sketch::new(if policy == Policy::TinyLfu {
                // about one counter per 16 cached bytes, at least 4 Ki, at most 64 Mi
                (capacity / 16).clamp(1 << 12, 1 << 26)
            } else {
                0
            }),
        }
    }

    pub(super) fn bytes(&self) -> usize {
        self.used
    }

    fn unlink(&mut self, i: u32) {
        let (p, n) = (self.slab[i as usize].prev, self.slab[i as usize].next);
        if p == NIL {
            self.head = n;
        } else {
            self.slab[p as usize].next = n;
        }
        if n == NIL {
            self.tail = p;
        } else {
            self.slab[n as usize].prev = p;
        }
    }

    fn push_front(&mut self, i: u32) {
        self.slab[i as usize].prev = NIL;
        self.slab[i as usize].next = self.head;
        if self.head != NIL {
            self.slab[self.head as usize].prev = i;
        } else {
            self.tail = i;
        }
        self.head = i;
    }

    fn evict_tail(&mut self, stats: &mut CacheStats) {
        let t = self.tail;
        self.unlink(t);
        let e = &mut self.slab[t as usize];
        self.map.remove(&e.key);
        self.used -= 4 * e.data.len();
        e.data = Box::new([]);
        self.free.push(t);
        stats.evicted += 1;
    }

    /// The cached copy of the DimensionList at `off` (admitting it on a miss where the
    /// policy lets it in); `None`: read it from `pm`.
    pub(super) fn get<'s>(
        &'s mut self,
        pm: &[u32],
        off: u32,
        stats: &mut CacheStats,
    ) -> Option<&'s [u32]> {
        if self.policy == Policy::TinyLfu {
            self.sketch.add(off);
        }
        if let Some(&i) = self.map.get(&off) {
            stats.dram += 1;
            if self.head != i {
                self.unlink(i);
                self.push_front(i);
            }
            return Some(&self.slab[i as usize].data);
        }
        stats.pm += 1;
        let start = off as usize;
        let mut end = start;
        while pm[end] & FLAG == 0 {
            end += 2;
        }
        end += 2;
        let bytes = 4 * (end - start);
        if bytes > self.capacity {
            return None;
        }
        if self.used + bytes > self.capacity {
            if self.policy == Policy::TinyLfu
                && self.tail != NIL
                && self.sketch.estimate(off)
                    <= self.sketch.estimate(self.slab[self.tail as usize].key)
            {
                return None;
            }
            while self.used + bytes > self.capacity {
                self.evict_tail(stats);
            }
        }
        let data: Box<[u32]> = pm[start..end].into();
        let e = Entry {
            key: off,
            prev: NIL,
            next: NIL,
            data,
        };
        let i = match self.free.pop() {
            Some(i) => {
                self.slab[i as usize] = e;
                i
            }
            None => {
                self.slab.push(e);
                (self.slab.len() - 1) as u32
            }
        };
        self.map.insert(off, i);
        self.push_front(i);
        self.used += bytes;
        stats.admitted += 1;
        Some(&self.slab[i as usize].data)
    }
}
