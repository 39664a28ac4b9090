//! Selective caching (the paper's §IV-B) as a query-time layer over the persistent array.
//!
//! A [`CachedElf`] borrows an [`Elf`] whose array lives in a region on a possibly slow tier
//! ("PM") and answers the same exact / range / partial queries, reading DimensionLists from
//! a DRAM copy where the [`Variant`] keeps one:
//!
//! - [`Variant::Pm`]: the persistent array as is (no DRAM).
//! - [`Variant::Hybrid`]: a full DRAM copy of the array made when the layer is created
//!   (the paper's hybrid Elf; `Elf::open(path, &TierSpec::Dram{..})` is the same thing).
//! - [`Variant::Static`]: the words of dimension levels `0..levels` (a prefix of the
//!   breadth-first array, plus the MonoLists / TID lists interleaved with it) copied to
//!   DRAM; a list is in DRAM iff its offset is below the cut (no probing).
//! - [`Variant::Dynamic`]: every traversed DimensionList (below the dense first dimension)
//!   is copied into a bounded DRAM cache keyed by its offset, with [`Policy::Lru`] or
//!   [`Policy::TinyLfu`] (LRU plus frequency-based admission with aging).
//! - [`Variant::Probability`]: the DimensionLists with the highest traversal probability
//!   (rows below a list / all rows: the probability that a uniform exact-match query over
//!   the tuples passes through it) are copied to DRAM up to a byte budget, chosen when the
//!   layer is built. Probabilities never grow along a path, so the chosen set is closed
//!   under parents and a traversal stops probing at its first miss.
//! - [`Variant::StaticDynamic`]: static levels `0..levels` plus a dynamic cache for the
//!   lists below them (the paper's split cache).
//!
//! Every variant returns exactly the results of the PM-only traversal ([`Elf`]'s own
//! queries). [`CacheStats`] counts list reads served from DRAM and from PM.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::{Elf, EMPTY, FLAG, PRELUDE, VALUE_MASK};
use crate::error::Result;

/// Replacement policy of a dynamic cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Least recently used: every miss is admitted, the least recently used lists go.
    Lru,
    /// LRU eviction with TinyLFU admission: a missed list replaces the LRU victim only if
    /// its (approximate, aged) access frequency is higher. One-off deep lists then do not
    /// flush the frequently traversed upper lists out of the cache.
    TinyLfu,
}

impl Policy {
    /// `lru` or `tinylfu`.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Lru => "lru",
            Policy::TinyLfu => "tinylfu",
        }
    }
}

/// A caching variant (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    Pm,
    Hybrid,
    Static {
        levels: usize,
    },
    Dynamic {
        policy: Policy,
        capacity_bytes: usize,
    },
    Probability {
        budget_bytes: usize,
    },
    StaticDynamic {
        levels: usize,
        policy: Policy,
        capacity_bytes: usize,
    },
}

impl Variant {
    /// A short name for reports, e.g. `static-3`, `dynamic-lru-16MiB`.
    pub fn name(&self) -> String {
        fn mib(b: usize) -> String {
            if b == usize::MAX {
                "unlimited".into()
            } else if b > 0 && b.is_multiple_of(1 << 30) {
                format!("{}GiB", b >> 30)
            } else if b > 0 && b.is_multiple_of(1 << 20) {
                format!("{}MiB", b >> 20)
            } else if b > 0 && b.is_multiple_of(1 << 10) {
                format!("{}KiB", b >> 10)
            } else {
                b.to_string()
            }
        }
        match *self {
            Variant::Pm => "pm".into(),
            Variant::Hybrid => "hybrid".into(),
            Variant::Static { levels } => format!("static-{levels}"),
            Variant::Dynamic {
                policy,
                capacity_bytes,
            } => format!("dynamic-{}-{}", policy.name(), mib(capacity_bytes)),
            Variant::Probability { budget_bytes } => format!("prob-{}", mib(budget_bytes)),
            Variant::StaticDynamic {
                levels,
                policy,
                capacity_bytes,
            } => format!(
                "static-{levels}+dynamic-{}-{}",
                policy.name(),
                mib(capacity_bytes)
            ),
        }
    }
}

fn parse_bytes(s: &str) -> Option<usize> {
    if s == "unlimited" {
        return Some(usize::MAX);
    }
    let (num, mult) = if let Some(n) = s.strip_suffix("GiB") {
        (n, 1usize << 30)
    } else if let Some(n) = s.strip_suffix("MiB") {
        (n, 1 << 20)
    } else if let Some(n) = s.strip_suffix("KiB") {
        (n, 1 << 10)
    } else {
        (s, 1)
    };
    num.parse::<usize>().ok()?.checked_mul(mult)
}

fn parse_policy(s: &str) -> Option<Policy> {
    match s {
        "lru" => Some(Policy::Lru),
        "tinylfu" => Some(Policy::TinyLfu),
        _ => None,
    }
}

impl Variant {
    /// Parses the names [`Variant::name`] writes: `pm`, `hybrid`, `static-K`,
    /// `dynamic-POLICY-SIZE`, `prob-SIZE`, `static-K+dynamic-POLICY-SIZE`; POLICY is `lru`
    /// or `tinylfu`, SIZE bytes with an optional `KiB`/`MiB`/`GiB` suffix, or `unlimited`.
    pub fn parse(s: &str) -> Result<Variant> {
        let bad = || {
            crate::error::Error::BadQuery(format!(
                "unknown caching variant `{s}` (pm, hybrid, static-K, dynamic-lru|tinylfu-SIZE, \
                 prob-SIZE, static-K+dynamic-lru|tinylfu-SIZE)"
            ))
        };
        let dynamic = |t: &str| -> Option<(Policy, usize)> {
            let (p, b) = t.strip_prefix("dynamic-")?.split_once('-')?;
            Some((parse_policy(p)?, parse_bytes(b)?))
        };
        let v = match s {
            "pm" => Some(Variant::Pm),
            "hybrid" => Some(Variant::Hybrid),
            _ => {
                if let Some((st, dy)) = s.split_once('+') {
                    let levels = st.strip_prefix("static-").and_then(|l| l.parse().ok());
                    match (levels, dynamic(dy)) {
                        (Some(levels), Some((policy, capacity_bytes))) => {
                            Some(Variant::StaticDynamic {
                                levels,
                                policy,
                                capacity_bytes,
                            })
                        }
                        _ => None,
                    }
                } else if let Some(l) = s.strip_prefix("static-") {
                    l.parse().ok().map(|levels| Variant::Static { levels })
                } else if let Some(b) = s.strip_prefix("prob-") {
                    parse_bytes(b).map(|budget_bytes| Variant::Probability { budget_bytes })
                } else {
                    dynamic(s).map(|(policy, capacity_bytes)| Variant::Dynamic {
                        policy,
                        capacity_bytes,
                    })
                }
            }
        };
        v.ok_or_else(bad)
    }
}

/// Counts of list reads (the dense first dimension, DimensionLists, MonoLists and TID
/// lists) by where they were served from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Reads served from DRAM (cache hits).
    pub dram: u64,
    /// Reads served from the persistent array (misses, or uncached parts).
    pub pm: u64,
    /// Lists copied into a dynamic cache.
    pub admitted: u64,
    /// Lists evicted from a dynamic cache.
    pub evicted: u64,
}

impl CacheStats {
    /// `dram / (dram + pm)`, 0 when nothing was read.
    pub fn hit_ratio(&self) -> f64 {
        let t = self.dram + self.pm;
        if t == 0 {
            0.0
        } else {
            self.dram as f64 / t as f64
        }
    }
}

/// One DimensionList of the tree: offset, dimension, length in words, rows below it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListInfo {
    pub offset: u32,
    pub level: u32,
    pub words: u32,
    pub rows: u64,
}

/// All DimensionLists below the dense first dimension (levels 1..D), with the rows below
/// each, by a walk of the whole tree.
pub fn lists(elf: &Elf) -> Vec<ListInfo> {
    let w = elf.words();
    let d = elf.dims();
    let mut out = Vec::new();
    if w.len() < PRELUDE {
        return out;
    }
    for &p in &w[PRELUDE..PRELUDE + w[1] as usize] {
        if p != EMPTY {
            walk(w, d, p, 1, &mut out);
        }
    }
    out
}

fn tid_count(w: &[u32], t: u32) -> u64 {
    if t & FLAG == 0 {
        1
    } else {
        u64::from(w[(t & VALUE_MASK) as usize])
    }
}

/// Rows below pointer `p` at `level`, recording the DimensionLists met.
fn walk(w: &[u32], d: usize, p: u32, level: usize, out: &mut Vec<ListInfo>) -> u64 {
    if level == d {
        return tid_count(w, p);
    }
    let off = (p & VALUE_MASK) as usize;
    if p & FLAG != 0 {
        return tid_count(w, w[off + d - level]);
    }
    let idx = out.len();
    out.push(ListInfo {
        offset: off as u32,
        level: level as u32,
        words: 0,
        rows: 0,
    });
    let mut i = off;
    let mut rows = 0;
    loop {
        rows += walk(w, d, w[i + 1], level + 1, out);
        if w[i] & FLAG != 0 {
            break;
        }
        i += 2;
    }
    out[idx].words = (i + 2 - off) as u32;
    out[idx].rows = rows;
    rows
}

/// Where list reads come from; one implementation per variant, so that the traversal is
/// monomorphised per variant.
trait Source {
    /// The dense first dimension (`C` words).
    fn dense(&mut self) -> &[u32];
    /// Words starting at the DimensionList at `off` (dimension `level`, 1..D). `up`: the
    /// parent list was served from DRAM. Returns the words and whether they are in DRAM.
    fn list(&mut self, off: usize, level: usize, up: bool) -> (&[u32], bool);
    /// Words starting at a MonoList or TID list at `off`.
    fn rest(&mut self, off: usize) -> &[u32];
}

/// The PM-only traversal (also Hybrid, with the DRAM copy as `w`).
struct Plain<'a> {
    w: &'a [u32],
    dram: bool,
    stats: &'a mut CacheStats,
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

impl Source for Plain<'_> {
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
struct Prefix<'a> {
    pm: &'a [u32],
    buf: &'a [u32],
    stats: &'a mut CacheStats,
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

impl Source for Prefix<'_> {
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
struct Selected<'a> {
    pm: &'a [u32],
    buf: &'a [u32],
    map: &'a FastMap<u32>,
    stats: &'a mut CacheStats,
}

impl Source for Selected<'_> {
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
struct Split<'a> {
    pm: &'a [u32],
    buf: &'a [u32],
    cache: &'a mut DynCache,
    stats: &'a mut CacheStats,
}

impl Source for Split<'_> {
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

/// A multiplicative hasher for u32 keys (offsets): the std SipHash would dominate a
/// lookup.
#[derive(Debug, Default, Clone, Copy)]
struct OffHasher(u64);

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

type FastMap<V> = HashMap<u32, V, BuildHasherDefault<OffHasher>>;

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
struct DynCache {
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
    fn new(policy: Policy, capacity: usize) -> DynCache {
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

    fn bytes(&self) -> usize {
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
    fn get<'s>(&'s mut self, pm: &[u32], off: u32, stats: &mut CacheStats) -> Option<&'s [u32]> {
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

/// A count-min sketch of 4-bit-ish (u8, saturating at 15) counters, 4 rows, halved after
/// `10 × width` additions (aging, as in TinyLFU).
#[derive(Debug)]
struct Sketch {
    counters: Vec<u8>,
    mask: usize,
    adds: usize,
    period: usize,
}

impl Sketch {
    fn new(width: usize) -> Sketch {
        let width = width.next_power_of_two();
        Sketch {
            counters: vec![0; if width > 1 { width } else { 0 }],
            mask: width.saturating_sub(1),
            adds: 0,
            period: 10 * width,
        }
    }

    #[inline]
    fn slots(&self, key: u32) -> [usize; 4] {
        let h = (u64::from(key) ^ 0xa076_1d64_78bd_642f).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let h2 = h.rotate_left(32).wrapping_mul(0xe703_7ed1_a0b4_28db);
        [
            (h as usize) & self.mask,
            ((h >> 21) as usize) & self.mask,
            (h2 as usize) & self.mask,
            ((h2 >> 29) as usize) & self.mask,
        ]
    }

    fn add(&mut self, key: u32) {
        if self.counters.is_empty() {
            return;
        }
        for s in self.slots(key) {
            if self.counters[s] < 15 {
                self.counters[s] += 1;
            }
        }
        self.adds += 1;
        if self.adds >= self.period {
            self.adds = 0;
            for c in &mut self.counters {
                *c >>= 1;
            }
        }
    }

    fn estimate(&self, key: u32) -> u8 {
        if self.counters.is_empty() {
            return 0;
        }
        self.slots(key)
            .iter()
            .map(|&s| self.counters[s])
            .min()
            .unwrap_or(0)
    }
}

#[derive(Debug)]
enum State {
    Pm,
    Hybrid(Vec<u32>),
    Static(Vec<u32>),
    Selected { buf: Vec<u32>, map: FastMap<u32> },
    Split { buf: Vec<u32>, cache: DynCache },
}

/// An [`Elf`] read through a caching variant (module docs). Queries take `&mut self`:
/// dynamic caches change on every read.
#[derive(Debug)]
pub struct CachedElf<'a> {
    elf: &'a Elf,
    variant: Variant,
    state: State,
    stats: CacheStats,
}

/// The word after the last DimensionList of dimensions `< levels` (the dense array is
/// dimension 0): the static cut. Walks only those levels, so it reads no more of the
/// array than the static cache copies.
pub fn static_cut(elf: &Elf, levels: usize) -> usize {
    let w = elf.words();
    let d = elf.dims();
    if levels == 0 || w.len() < PRELUDE {
        return 0;
    }
    let mut cut = PRELUDE + w[1] as usize;
    if levels < 2 {
        return cut;
    }
    // Breadth first over the DimensionLists of levels 1..levels.
    let mut frontier: Vec<usize> = w[PRELUDE..cut]
        .iter()
        .filter(|&&p| p != EMPTY && p & FLAG == 0 && d > 1)
        .map(|&p| p as usize)
        .collect();
    for level in 1..levels.min(d) {
        let mut next = Vec::new();
        for &off in &frontier {
            let mut i = off;
            loop {
                let p = w[i + 1];
                if level + 1 < d && p & FLAG == 0 {
                    next.push(p as usize);
                }
                if w[i] & FLAG != 0 {
                    break;
                }
                i += 2;
            }
            cut = cut.max(i + 2);
        }
        frontier = next;
    }
    cut
}

impl<'a> CachedElf<'a> {
    /// Builds the DRAM part of `variant` over `elf` (static and probability variants walk
    /// the tree once).
    pub fn new(elf: &'a Elf, variant: Variant) -> CachedElf<'a> {
        let pm = elf.words();
        let state = match variant {
            Variant::Pm => State::Pm,
            Variant::Hybrid => State::Hybrid(pm.to_vec()),
            Variant::Static { levels } => {
                let cut = static_cut(elf, levels);
                State::Static(pm[..cut].to_vec())
            }
            Variant::Dynamic {
                policy,
                capacity_bytes,
            } => State::Split {
                buf: Vec::new(),
                cache: DynCache::new(policy, capacity_bytes),
            },
            Variant::StaticDynamic {
                levels,
                policy,
                capacity_bytes,
            } => {
                let cut = static_cut(elf, levels);
                State::Split {
                    buf: pm[..cut].to_vec(),
                    cache: DynCache::new(policy, capacity_bytes),
                }
            }
            Variant::Probability { budget_bytes } => {
                let mut all = lists(elf);
                // Highest probability first; parents (lower offsets) before children of
                // equal probability, so every prefix of this order is closed under parents.
                all.sort_unstable_by(|a, b| b.rows.cmp(&a.rows).then(a.offset.cmp(&b.offset)));
                let c = if pm.len() >= PRELUDE {
                    pm[1] as usize
                } else {
                    0
                };
                let mut buf = pm[PRELUDE.min(pm.len())..PRELUDE.min(pm.len()) + c].to_vec();
                let mut map = FastMap::default();
                for l in all {
                    let add = 4 * l.words as usize;
                    if 4 * buf.len() + add > budget_bytes.max(4 * c) {
                        break;
                    }
                    map.insert(l.offset, buf.len() as u32);
                    let s = l.offset as usize;
                    buf.extend_from_slice(&pm[s..s + l.words as usize]);
                }
                State::Selected { buf, map }
            }
        };
        CachedElf {
            elf,
            variant,
            state,
            stats: CacheStats::default(),
        }
    }

    /// The variant.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The index underneath.
    pub fn elf(&self) -> &'a Elf {
        self.elf
    }

    /// Counts since creation or the last [`CachedElf::reset_stats`].
    pub fn stats(&self) -> CacheStats {
        self.stats
    }

    /// Zeroes the counts (the cache contents stay).
    pub fn reset_stats(&mut self) {
        self.stats = CacheStats::default();
    }

    /// DRAM bytes held by the cache now (copies of lists; hash tables not counted).
    pub fn dram_bytes(&self) -> usize {
        match &self.state {
            State::Pm => 0,
            State::Hybrid(b) | State::Static(b) => 4 * b.len(),
            State::Selected { buf, .. } => 4 * buf.len(),
            State::Split { buf, cache } => 4 * buf.len() + cache.bytes(),
        }
    }

    /// TIDs of the rows equal to `key` (as [`Elf::exact`]).
    pub fn exact(&mut self, key: &[u32]) -> Result<Vec<u32>> {
        let mut out = Vec::new();
        self.exact_into(key, &mut out)?;
        Ok(out)
    }

    /// [`CachedElf::exact`], appending to `out`.
    pub fn exact_into(&mut self, key: &[u32], out: &mut Vec<u32>) -> Result<()> {
        self.elf.check_len(key.len(), "key")?;
        let d = self.elf.dims();
        self.with(|s| exact_gen(s, d, key, out));
        Ok(())
    }

    /// TIDs in the window `lo..=hi` (as [`Elf::range`]).
    pub fn range(&mut self, lo: &[u32], hi: &[u32]) -> Result<Vec<u32>> {
        let mut out = Vec::new();
        self.range_into(lo, hi, &mut out)?;
        Ok(out)
    }

    /// [`CachedElf::range`], appending to `out`.
    pub fn range_into(&mut self, lo: &[u32], hi: &[u32], out: &mut Vec<u32>) -> Result<()> {
        self.elf.check_len(lo.len(), "lower bound")?;
        self.elf.check_len(hi.len(), "upper bound")?;
        let d = self.elf.dims();
        self.with(|s| range_gen(s, d, lo, hi, out));
        Ok(())
    }

    /// Partial match (as [`Elf::partial`]).
    pub fn partial(&mut self, bounds: &[Option<(u32, u32)>]) -> Result<Vec<u32>> {
        self.elf.check_len(bounds.len(), "bounds")?;
        let lo: Vec<u32> = bounds.iter().map(|b| b.map_or(0, |b| b.0)).collect();
        let hi: Vec<u32> = bounds.iter().map(|b| b.map_or(u32::MAX, |b| b.1)).collect();
        self.range(&lo, &hi)
    }

    fn with(&mut self, f: impl FnOnce(&mut dyn SourceDyn)) {
        let pm = self.elf.words();
        let stats = &mut self.stats;
        match &mut self.state {
            State::Pm => f(&mut Plain {
                w: pm,
                dram: false,
                stats,
            }),
            State::Hybrid(b) => f(&mut Plain {
                w: b,
                dram: true,
                stats,
            }),
            State::Static(b) => f(&mut Prefix { pm, buf: b, stats }),
            State::Selected { buf, map } => f(&mut Selected {
                pm,
                buf,
                map,
                stats,
            }),
            State::Split { buf, cache } => f(&mut Split {
                pm,
                buf,
                cache,
                stats,
            }),
        }
    }
}

/// Object-safe face of [`Source`] for [`CachedElf::with`]; the traversals themselves are
/// generic and run monomorphised through [`Mono`].
trait SourceDyn {
    fn exact(&mut self, d: usize, key: &[u32], out: &mut Vec<u32>);
    fn range(&mut self, d: usize, lo: &[u32], hi: &[u32], out: &mut Vec<u32>);
}

impl<S: Source> SourceDyn for S {
    fn exact(&mut self, d: usize, key: &[u32], out: &mut Vec<u32>) {
        exact_src(self, d, key, out);
    }
    fn range(&mut self, d: usize, lo: &[u32], hi: &[u32], out: &mut Vec<u32>) {
        range_src(self, d, lo, hi, out);
    }
}

fn exact_gen(s: &mut dyn SourceDyn, d: usize, key: &[u32], out: &mut Vec<u32>) {
    s.exact(d, key, out);
}

fn range_gen(s: &mut dyn SourceDyn, d: usize, lo: &[u32], hi: &[u32], out: &mut Vec<u32>) {
    s.range(d, lo, hi, out);
}

#[inline]
fn emit_at(t: u32, tids: &[u32], out: &mut Vec<u32>) {
    // `tids` starts at the TID list when `t` has FLAG set.
    if t & FLAG == 0 {
        out.push(t);
    } else {
        let n = tids[0] as usize;
        out.extend_from_slice(&tids[1..1 + n]);
    }
}

fn emit_src<S: Source>(s: &mut S, t: u32, out: &mut Vec<u32>) {
    if t & FLAG == 0 {
        out.push(t);
    } else {
        let tids = s.rest((t & VALUE_MASK) as usize);
        emit_at(t, tids, out);
    }
}

fn exact_src<S: Source>(s: &mut S, d: usize, key: &[u32], out: &mut Vec<u32>) {
    let dense = s.dense();
    let v0 = key[0] as usize;
    if v0 >= dense.len() {
        return;
    }
    let mut p = dense[v0];
    if p == EMPTY {
        return;
    }
    let mut up = true;
    let mut level = 1;
    loop {
        if level == d {
            emit_src(s, p, out);
            return;
        }
        let off = (p & VALUE_MASK) as usize;
        if p & FLAG != 0 {
            let m = s.rest(off);
            if m[..d - level] == key[level..] {
                let t = m[d - level];
                emit_src(s, t, out);
            }
            return;
        }
        let want = key[level];
        let (l, dram) = s.list(off, level, up);
        up = dram;
        let mut i = 0;
        loop {
            let e = l[i];
            let v = e & VALUE_MASK;
            if v == want {
                p = l[i + 1];
                break;
            }
            if v > want || e & FLAG != 0 {
                return;
            }
            i += 2;
        }
        level += 1;
    }
}

fn range_src<S: Source>(s: &mut S, d: usize, lo: &[u32], hi: &[u32], out: &mut Vec<u32>) {
    // One scratch vector of child pointers per level, so a list's borrow ends before the
    // recursion reads the next one.
    let mut scratch: Vec<Vec<u32>> = vec![Vec::new(); d + 1];
    let dense = s.dense();
    let card0 = dense.len() as u32;
    if card0 == 0 || lo[0] > hi[0] || lo[0] >= card0 {
        return;
    }
    let (first, rest) = scratch.split_first_mut().expect("d >= 1");
    first.extend(
        dense[lo[0] as usize..=hi[0].min(card0 - 1) as usize]
            .iter()
            .copied()
            .filter(|&p| p != EMPTY),
    );
    for &p in first.iter() {
        descend_src(s, d, p, 1, true, lo, hi, rest, out);
    }
}

#[allow(clippy::too_many_arguments)]
fn descend_src<S: Source>(
    s: &mut S,
    d: usize,
    p: u32,
    level: usize,
    up: bool,
    lo: &[u32],
    hi: &[u32],
    scratch: &mut [Vec<u32>],
    out: &mut Vec<u32>,
) {
    if level == d {
        emit_src(s, p, out);
        return;
    }
    let off = (p & VALUE_MASK) as usize;
    if p & FLAG != 0 {
        let n = d - level;
        let m = s.rest(off);
        for (i, &v) in m[..n].iter().enumerate() {
            if v < lo[level + i] || v > hi[level + i] {
                return;
            }
        }
        let t = m[n];
        emit_src(s, t, out);
        return;
    }
    let (l, h) = (lo[level], hi[level]);
    let (mine, rest) = scratch.split_first_mut().expect("one scratch per level");
    mine.clear();
    let (list, dram) = s.list(off, level, up);
    let mut i = 0;
    loop {
        let e = list[i];
        let v = e & VALUE_MASK;
        if v > h {
            break;
        }
        if v >= l {
            mine.push(list[i + 1]);
        }
        if e & FLAG != 0 {
            break;
        }
        i += 2;
    }
    // `mine` is reused by deeper calls at this level only after we are done with it: the
    // recursion below uses `rest`.
    for &c in mine.iter() {
        descend_src(s, d, c, level + 1, dram, lo, hi, rest, out);
    }
}
