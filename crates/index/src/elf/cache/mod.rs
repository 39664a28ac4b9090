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

mod dynamic;
mod sketch;
mod sources;
mod tree;
mod variant;

use self::dynamic::{DynCache, FastMap};
use self::sources::{Plain, Prefix, Selected, Split};
use super::traverse::{self, ListSource};
use super::Elf;
use crate::error::Result;

use self::tree::select_by_probability;
pub use self::tree::{lists, static_cut, ListInfo};
pub use self::variant::{CacheStats, Policy, Variant};

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
                let (buf, map) = select_by_probability(elf, budget_bytes);
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

    fn with(&mut self, f: impl for<'w> FnOnce(&mut dyn SourceDyn<'w>)) {
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

/// Object-safe face of [`ListSource`] for [`CachedElf::with`]; the traversals themselves
/// are generic and run monomorphised per source.
trait SourceDyn<'w> {
    fn exact(&mut self, d: usize, key: &[u32], out: &mut Vec<u32>);
    fn range(&mut self, d: usize, lo: &[u32], hi: &[u32], out: &mut Vec<u32>);
}

impl<'w, S: ListSource<'w>> SourceDyn<'w> for S {
    fn exact(&mut self, d: usize, key: &[u32], out: &mut Vec<u32>) {
        traverse::exact(self, d, key, out);
    }
    fn range(&mut self, d: usize, lo: &[u32], hi: &[u32], out: &mut Vec<u32>) {
        traverse::range(self, d, lo, hi, out);
    }
}

fn exact_gen(s: &mut dyn SourceDyn<'_>, d: usize, key: &[u32], out: &mut Vec<u32>) {
    s.exact(d, key, out);
}

fn range_gen(s: &mut dyn SourceDyn<'_>, d: usize, lo: &[u32], hi: &[u32], out: &mut Vec<u32>) {
    s.range(d, lo, hi, out);
}
