//! Dash: a scalable hash table for persistent memory (Lu et al., "Dash: Scalable Hashing
//! on Persistent Memory", VLDB 2020), the join structure of the SIGMOD'21 engine (§6.2),
//! for `u64` keys and values, living in a region on any tier.
//!
//! * **Layout** ([`layout`], docs/formats.md "Dash hash table"): a header page, a
//!   directory of segment numbers, and segments of 64 normal + 4 stash buckets. A bucket
//!   is 256 bytes: a version lock word that also holds the allocation and membership
//!   bitmaps, an overflow-metadata word (4 overflow fingerprint records and a count), 14
//!   one-byte fingerprints, and 14 slots of 16-byte key/value.
//! * **Insert**: into the less full of the key's home bucket and the next one (balanced
//!   insert); if both are full, displacement (an item of the next bucket moves on to its
//!   own next bucket, or an item of the home bucket that only probes there moves back to
//!   its home); else a stash bucket, with an overflow fingerprint in the home (or next)
//!   bucket or the home bucket's overflow count; else the segment splits (extendible
//!   hashing: the directory doubles when the segment's depth equals the global depth).
//! * **Reads** are optimistic and lock-free: they read bucket version words, probe the
//!   fingerprints with one SIMD compare (`pmolap_tier::kernel::bytes`, run-time
//!   dispatch), and validate the versions afterwards, retrying if a writer interfered.
//! * **Writers** take the bucket locks of what they change. One table-level writer lock
//!   serialises writers (a documented simplification of Dash's per-bucket writer
//!   concurrency): inserts do not scale with threads, lookups do. Splits and segment
//!   recoveries also make a table-level sequence lock odd, which readers wait out.
//! * **Persistence**: on a persistent tier every update persists in a fixed order
//!   (docs/formats.md, "Persist order") through the tier's instructions; [`mem`].
//! * **Recovery**: a clean-shutdown flag; after a crash, opening only bumps the epoch,
//!   and each segment is recovered on its first access (finish an interrupted split,
//!   reset locks, remove duplicates, rebuild overflow metadata), so reopening takes the
//!   same time at any size. [`Dash::check`] recovers everything and verifies every
//!   invariant (`pmolap hash check PATH`, on a private copy: [`Dash::open_copy`]).
//! * **Locking** (`dash/file.rs`): a table file's writer holds `<path>.lock` exclusive, a
//!   checker shared, so a check during a build is refused naming the builder.

pub mod bench;
mod file;
pub mod layout;
mod mem;
pub mod recover;
mod split;
mod table;
mod write;

pub use file::lock_path;
pub use recover::CheckReport;
pub use table::{Dash, DashOptions};

impl Dash {
    /// Splits, directory doublings, and the average fill of a segment when it split,
    /// in this session.
    pub fn split_stats(&self) -> (u64, u64, f64) {
        use std::sync::atomic::Ordering::Relaxed;
        let s = self.stats.splits.load(Relaxed);
        let items = self.stats.items_at_split.load(Relaxed);
        let fill = if s == 0 {
            0.0
        } else {
            items as f64 / (s as f64 * layout::SEG_SLOTS as f64)
        };
        (s, self.stats.doublings.load(Relaxed), fill)
    }

    /// Items, and bytes of the segments and directory in use.
    pub fn footprint(&self) -> (u64, u64) {
        let segs = self.load(layout::H_SEG_COUNT);
        let bytes = segs * (layout::SEG_WORDS as u64 * 8) + (8u64 << self.global_depth());
        (self.len(), bytes)
    }

    /// Persist points taken in this session.
    pub fn persist_points(&self) -> u64 {
        self.mem.points()
    }

    /// Crash simulation only: the durable image a crash now would leave (None for a
    /// table that is not simulated).
    pub fn durable_image(&self) -> Option<Vec<u64>> {
        self.mem.shadow_image()
    }

    /// Crash simulation only: every word as it is now, persisted or not (what a crash
    /// leaves on a page-cache file, whose dirty pages survive the process).
    pub fn live_image(&self) -> Vec<u64> {
        self.mem.live_image()
    }
}

#[cfg(test)]
mod tests;
