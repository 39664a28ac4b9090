//! Segment split and directory doubling (extendible hashing), with their persist order
//! and the commit points recovery resumes from.

use std::sync::atomic::Ordering;

use super::layout::*;
use super::table::Dash;
use crate::error::{Error, Result};

pub(crate) fn state_of(st: u64) -> u64 {
    st & 0xff
}
pub(crate) fn depth_of(st: u64) -> u32 {
    ((st >> 8) & 0xff) as u32
}
pub(crate) fn sibling_of(st: u64) -> usize {
    (st >> 16) as usize
}

impl Dash {
    /// Splits segment `s` (the writer lock is held). Readers wait: the structure
    /// sequence lock is odd throughout.
    pub(crate) fn split(&self, s: usize) -> Result<()> {
        self.seq.fetch_add(1, Ordering::SeqCst);
        let r = self.split_inner(s);
        self.seq.fetch_add(1, Ordering::SeqCst);
        r
    }

    fn split_inner(&self, s: usize) -> Result<()> {
        let base = self.seg_base(s);
        let st = self.load(base + S_STATE);
        let l = depth_of(st);
        if l >= self.dir_cap_log {
            return Err(Error::TableFull(format!(
                "{}: a segment reached the largest depth {} the directory allows",
                self.path.display(),
                self.dir_cap_log
            )));
        }
        if l == self.global_depth() {
            self.double()?;
        }
        let n = self.seg_count() as usize;
        if n >= self.seg_cap {
            return Err(Error::TableFull(format!(
                "{}: all {} segments are in use",
                self.path.display(),
                self.seg_cap
            )));
        }
        let items = (0..BUCKETS)
            .map(|k| self.count(Dash::bucket(base, k)) as u64)
            .sum::<u64>();
        self.stats.splits.fetch_add(1, Ordering::Relaxed);
        self.stats
            .items_at_split
            .fetch_add(items, Ordering::Relaxed);
        // 1. Allocate: a crash after this leaks segment n (the check reports it).
        self.store(H_SEG_COUNT, n as u64 + 1);
        self.mem.persist(H_SEG_COUNT, 1)?;
        // 2. Build the new segment: header, and a copy of every item whose segment bit l
        //    is 1, in the same bucket and slot as in the old segment.
        let nbase = self.seg_base(n);
        for i in nbase..nbase + SEG_WORDS {
            self.store(i, 0);
        }
        let pattern = self.load(base + S_PATTERN);
        self.store(nbase + S_STATE, STATE_NORMAL | (u64::from(l + 1) << 8));
        self.store(nbase + S_PATTERN, pattern | (1 << l));
        self.store(nbase + S_EPOCH, self.epoch);
        for k in 0..BUCKETS {
            let (ob, nb) = (Dash::bucket(base, k), Dash::bucket(nbase, k));
            let v = self.load(ob + B_LOCK);
            let moving = self.moving(ob, alloc_bits(v), l);
            for w in 0..BUCKET_WORDS - B_FP {
                self.store(nb + B_FP + w, self.load(ob + B_FP + w));
            }
            self.store(nb + B_LOCK, with_bits(0, moving, member_bits(v) & moving));
        }
        self.rebuild_overflow(nbase);
        self.mem.persist(nbase, SEG_WORDS)?;
        // 3. Commit point: the old segment records that its sibling holds the copy.
        self.store(
            base + S_STATE,
            STATE_COPIED | (u64::from(l) << 8) | ((n as u64) << 16),
        );
        self.mem.persist(base + S_STATE, 1)?;
        self.finish_split(s)
    }

    /// The allocated slots of bucket `b` (in `alloc`) whose items move to the sibling
    /// when a segment of depth `l` splits.
    fn moving(&self, b: usize, alloc: u64, l: u32) -> u64 {
        let mut out = 0;
        let mut m = alloc;
        while m != 0 {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            if segment_bits(hash(self.load(b + B_SLOTS + 2 * i))) >> l & 1 == 1 {
                out |= 1 << i;
            }
        }
        out
    }

    /// Steps 4–6 of a split of segment `s` in state COPIED (also how recovery resumes
    /// one): point the directory at the sibling, drop the moved items, commit the new depth.
    pub(crate) fn finish_split(&self, s: usize) -> Result<()> {
        let base = self.seg_base(s);
        let st = self.load(base + S_STATE);
        let (l, n) = (depth_of(st), sibling_of(st));
        if n >= self.seg_count() as usize || l >= self.global_depth() {
            return Err(self.corrupt(format!(
                "segment {s} is mid-split to segment {n} at depth {l}"
            )));
        }
        // 4. Directory entries with the segment's pattern and bit l set → the sibling.
        let pattern = self.load(base + S_PATTERN) as usize;
        let size = 1usize << self.global_depth();
        let first = pattern | (1 << l);
        let mut last = first;
        let mut i = first;
        while i < size {
            self.store(self.dir_off + i, n as u64);
            last = i;
            i += 1 << (l + 1);
        }
        self.mem.persist(self.dir_off + first, last - first + 1)?;
        // 5. Drop the moved items here, rebuild the overflow metadata, persist the segment.
        for k in 0..BUCKETS {
            let b = Dash::bucket(base, k);
            let v = self.load(b + B_LOCK);
            let keep = alloc_bits(v) & !self.moving(b, alloc_bits(v), l);
            self.store(b + B_LOCK, with_bits(v, keep, member_bits(v) & keep));
        }
        self.rebuild_overflow(base);
        self.mem.persist(base, SEG_WORDS)?;
        // 6. Commit: normal again, one level deeper.
        self.store(base + S_STATE, STATE_NORMAL | (u64::from(l + 1) << 8));
        self.mem.persist(base + S_STATE, 1)
    }

    /// Doubles the directory: the upper half copies the lower one, then the new global
    /// depth is stored (the commit point; entries past 2^depth are never read).
    fn double(&self) -> Result<()> {
        let g = self.global_depth();
        if g >= self.dir_cap_log {
            return Err(Error::TableFull(format!(
                "{}: the directory is at its largest depth {}",
                self.path.display(),
                g
            )));
        }
        let half = 1usize << g;
        for i in 0..half {
            self.store(self.dir_off + half + i, self.load(self.dir_off + i));
        }
        self.mem.persist(self.dir_off + half, half)?;
        self.store(H_GLOBAL_DEPTH, u64::from(g + 1));
        self.mem.persist(H_GLOBAL_DEPTH, 1)?;
        self.stats.doublings.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}
