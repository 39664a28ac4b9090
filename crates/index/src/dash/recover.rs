//! Lazy per-segment recovery after a crash, and the full consistency check.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;

use serde::{Deserialize, Serialize};

use super::layout::*;
use super::split::{depth_of, state_of};
use super::table::Dash;
use crate::error::Result;

/// What [`Dash::check`] found.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CheckReport {
    pub global_depth: u32,
    /// Segments the directory references.
    pub segments: u64,
    /// Segments allocated but referenced by no directory entry (a crash right after a
    /// split allocated one): lost space, not an inconsistency.
    pub leaked_segments: u64,
    pub items: u64,
    /// Items / slots of the referenced segments.
    pub load_factor: f64,
    /// Segments this check recovered (those not yet touched since a crash).
    pub recovered_segments: u64,
    /// Every invariant violation found; empty for a consistent table.
    pub problems: Vec<String>,
}

impl Dash {
    /// Recovers the segment hash `h` leads to, if this session has not yet (the writer
    /// lock is held). Readers wait on the structure sequence lock meanwhile.
    pub(crate) fn recover_segment_of(&self, h: u64) -> Result<()> {
        let s = self.dir_segment(h)?;
        if !self.needs_recovery(self.seg_base(s)) {
            return Ok(());
        }
        self.seq.fetch_add(1, Ordering::SeqCst);
        let r = self.recover_segment(s);
        self.seq.fetch_add(1, Ordering::SeqCst);
        r
    }

    /// Recovery of one segment: finish an interrupted split, reset the bucket locks,
    /// remove duplicates a crashed displacement left, rebuild the overflow metadata,
    /// persist the segment, then record this session's epoch in it.
    fn recover_segment(&self, s: usize) -> Result<()> {
        let base = self.seg_base(s);
        match state_of(self.load(base + S_STATE)) {
            STATE_NORMAL => {}
            STATE_COPIED => self.finish_split(s)?,
            st => return Err(self.corrupt(format!("segment {s} has unknown state {st}"))),
        }
        let mut seen = HashSet::new();
        for k in 0..BUCKETS {
            let b = Dash::bucket(base, k);
            let v = self.load(b + B_LOCK);
            let mut alloc = alloc_bits(v);
            let mut m = alloc;
            while m != 0 {
                let i = m.trailing_zeros() as usize;
                m &= m - 1;
                if !seen.insert(self.load(b + B_SLOTS + 2 * i)) {
                    alloc &= !(1 << i);
                }
            }
            self.store(b + B_LOCK, with_bits(0, alloc, member_bits(v) & alloc));
        }
        self.rebuild_overflow(base);
        self.mem.persist(base, SEG_WORDS)?;
        self.store(base + S_EPOCH, self.epoch);
        self.mem.persist(base + S_EPOCH, 1)
    }

    /// Recovers every segment not yet recovered in this session; returns how many.
    pub fn recover_all(&self) -> Result<u64> {
        let _g = self.lock_writer();
        let mut n = 0;
        let mut i = 0usize;
        while i < 1usize << self.global_depth() {
            let s = self.load(self.dir_off + i) as usize;
            if s >= self.seg_cap {
                return Err(self.corrupt(format!("directory entry {i} names segment {s}")));
            }
            if self.needs_recovery(self.seg_base(s)) {
                self.seq.fetch_add(1, Ordering::SeqCst);
                let r = self.recover_segment(s);
                self.seq.fetch_add(1, Ordering::SeqCst);
                r?;
                n += 1;
                continue; // a finished split may have changed entry i
            }
            i += 1;
        }
        Ok(n)
    }

    /// Recovers every segment, then checks every invariant: the directory (each segment
    /// referenced by exactly the 2^(global − local depth) entries of its pattern), each
    /// segment's state, and each item (its hash leads to its segment, it sits in its home
    /// bucket or, with the membership bit, in the next one, or in the stash covered by an
    /// overflow record or count; fingerprints match; no key twice; no lock held).
    pub fn check(&self) -> Result<CheckReport> {
        let recovered = self.recover_all()?;
        let _g = self.lock_writer();
        let mut rep = CheckReport {
            global_depth: self.global_depth(),
            recovered_segments: recovered,
            ..CheckReport::default()
        };
        let g = self.global_depth();
        let mut refs: HashMap<usize, u64> = HashMap::new();
        for i in 0..1usize << g {
            let s = self.load(self.dir_off + i) as usize;
            if s as u64 >= self.seg_count() {
                rep.problems
                    .push(format!("directory entry {i} names unallocated segment {s}"));
                continue;
            }
            let base = self.seg_base(s);
            let st = self.load(base + S_STATE);
            let l = depth_of(st);
            let pattern = self.load(base + S_PATTERN);
            if l > g || (i as u64) & ((1u64 << l) - 1) != pattern {
                rep.problems.push(format!(
                    "directory entry {i} names segment {s} of depth {l} and pattern {pattern}"
                ));
            }
            *refs.entry(s).or_default() += 1;
        }
        rep.segments = refs.len() as u64;
        rep.leaked_segments = self.seg_count() - rep.segments;
        for (&s, &n) in &refs {
            let base = self.seg_base(s);
            let st = self.load(base + S_STATE);
            if state_of(st) != STATE_NORMAL {
                rep.problems
                    .push(format!("segment {s} is in state {}", state_of(st)));
            }
            let l = depth_of(st);
            if l <= g && n != 1u64 << (g - l) {
                rep.problems.push(format!(
                    "segment {s} of depth {l} has {n} directory entries, not {}",
                    1u64 << (g - l)
                ));
            }
            rep.items += self.check_segment(s, &mut rep.problems);
        }
        rep.load_factor = rep.items as f64 / (rep.segments.max(1) as f64 * SEG_SLOTS as f64);
        Ok(rep)
    }

    fn check_segment(&self, s: usize, problems: &mut Vec<String>) -> u64 {
        let base = self.seg_base(s);
        let l = depth_of(self.load(base + S_STATE));
        let pattern = self.load(base + S_PATTERN);
        let mut keys = HashSet::new();
        // Stash items per home bucket, and (fingerprint, stash bucket) of each.
        let mut stash_items: HashMap<usize, Vec<(u8, usize)>> = HashMap::new();
        let mut items = 0;
        for k in 0..BUCKETS {
            let b = Dash::bucket(base, k);
            let v = self.load(b + B_LOCK);
            if v & LOCKED != 0 {
                problems.push(format!("segment {s} bucket {k} is locked"));
            }
            let mut m = alloc_bits(v);
            while m != 0 {
                let i = m.trailing_zeros() as usize;
                m &= m - 1;
                items += 1;
                let key = self.load(b + B_SLOTS + 2 * i);
                let h = hash(key);
                let at = format!("segment {s} bucket {k} slot {i} (key {key})");
                if !keys.insert(key) {
                    problems.push(format!("{at}: duplicate key"));
                }
                if l < 64 && segment_bits(h) & ((1u64 << l) - 1) != pattern {
                    problems.push(format!("{at}: hash does not lead to this segment"));
                }
                let fpw = self.load(b + B_FP + i / 8);
                if (fpw >> (8 * (i % 8))) as u8 != fingerprint(h) {
                    problems.push(format!("{at}: fingerprint mismatch"));
                }
                if k < NORMAL {
                    let member = member_bits(v) >> i & 1 == 1;
                    let home = if member { prev(k) } else { k };
                    if home != home_bucket(h) {
                        problems.push(format!("{at}: not in its home or probing bucket"));
                    }
                } else {
                    stash_items
                        .entry(home_bucket(h))
                        .or_default()
                        .push((fingerprint(h), k - NORMAL));
                }
            }
        }
        for hb in 0..NORMAL {
            let b = Dash::bucket(base, hb);
            let nb = Dash::bucket(base, next(hb));
            let (ob, on) = (self.load(b + B_OVF), self.load(nb + B_OVF));
            let mut records = Vec::new();
            for r in 0..OVF_RECORDS {
                if ovf_alloc(ob) >> r & 1 == 1 && ovf_member(ob) >> r & 1 == 0 {
                    records.push((ovf_fp(ob, r), ovf_stash(ob, r)));
                }
                if ovf_alloc(on) >> r & 1 == 1 && ovf_member(on) >> r & 1 == 1 {
                    records.push((ovf_fp(on, r), ovf_stash(on, r)));
                }
            }
            let mut have = stash_items.remove(&hb).unwrap_or_default();
            let mut unmatched = 0;
            for rec in records {
                match have.iter().position(|x| *x == rec) {
                    Some(p) => {
                        have.swap_remove(p);
                    }
                    None => unmatched += 1,
                }
            }
            if unmatched > 0 || have.len() as u64 != ovf_count(ob) {
                problems.push(format!(
                    "segment {s} bucket {hb}: overflow records/count do not match its stash items ({unmatched} records without an item, {} items for a count of {})",
                    have.len(),
                    ovf_count(ob)
                ));
            }
        }
        items
    }

    /// Items in the table (a scan of every referenced segment).
    pub fn len(&self) -> u64 {
        let _g = self.lock_writer();
        let mut seen = HashSet::new();
        let mut n = 0;
        for i in 0..1usize << self.global_depth() {
            let s = self.load(self.dir_off + i) as usize;
            if s < self.seg_cap && seen.insert(s) {
                let base = self.seg_base(s);
                n += (0..BUCKETS)
                    .map(|k| self.count(Dash::bucket(base, k)) as u64)
                    .sum::<u64>();
            }
        }
        n
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
