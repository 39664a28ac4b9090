//! Inserts, updates and deletes: balanced insert into the less full of the two candidate
//! buckets, displacement, the stash with overflow fingerprints, and their persist order
//! (docs/formats.md, "Dash hash table", "Persist order").

use std::sync::atomic::{fence, Ordering};

use super::layout::*;
use super::table::Dash;
use crate::error::Result;

/// Where an item sits: the bucket's word index and the slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Loc {
    pub bucket: usize,
    pub slot: usize,
}

impl Dash {
    pub(crate) fn lock_bucket(&self, b: usize) {
        self.w(b + B_LOCK).fetch_or(LOCKED, Ordering::Acquire);
        fence(Ordering::Release);
    }

    pub(crate) fn unlock_bucket(&self, b: usize) {
        let v = self.load(b + B_LOCK);
        self.w(b + B_LOCK).store(unlocked(v), Ordering::Release);
    }

    pub(crate) fn count(&self, b: usize) -> usize {
        alloc_bits(self.load(b + B_LOCK)).count_ones() as usize
    }

    fn free_slot(&self, b: usize) -> Option<usize> {
        let free = !alloc_bits(self.load(b + B_LOCK)) & SLOT_MASK;
        (free != 0).then(|| free.trailing_zeros() as usize)
    }

    /// Where `key` is in the segment at `base` (writer side: no validation needed).
    pub(crate) fn find(&self, base: usize, h: u64, key: u64) -> Option<Loc> {
        let fp = fingerprint(h);
        let hb = home_bucket(h);
        let in_bucket = |b: usize, member: Option<bool>| {
            let v = self.load(b + B_LOCK);
            let mask = match member {
                Some(true) => alloc_bits(v) & member_bits(v),
                Some(false) => alloc_bits(v) & !member_bits(v),
                None => alloc_bits(v),
            };
            let mut m = self.fp_matches(b, fp) & mask;
            while m != 0 {
                let i = m.trailing_zeros() as usize;
                if self.load(b + B_SLOTS + 2 * i) == key {
                    return Some(Loc { bucket: b, slot: i });
                }
                m &= m - 1;
            }
            None
        };
        in_bucket(Dash::bucket(base, hb), Some(false))
            .or_else(|| in_bucket(Dash::bucket(base, next(hb)), Some(true)))
            .or_else(|| (0..STASH).find_map(|k| in_bucket(Dash::bucket(base, NORMAL + k), None)))
    }

    /// Writes an item into free slot `slot` of bucket `b` (persist order: the slot and
    /// its fingerprint, then the allocation bit).
    pub(crate) fn put_slot(
        &self,
        b: usize,
        slot: usize,
        key: u64,
        value: u64,
        fp: u8,
        member: bool,
    ) -> Result<()> {
        self.lock_bucket(b);
        let r = (|| {
            self.store(b + B_SLOTS + 2 * slot, key);
            self.store(b + B_SLOTS + 2 * slot + 1, value);
            let fw = b + B_FP + slot / 8;
            let sh = 8 * (slot % 8);
            self.store(fw, (self.load(fw) & !(0xff << sh)) | (u64::from(fp) << sh));
            self.mem.persist(b, B_SLOTS + 2 * slot + 2)?;
            let v = self.load(b + B_LOCK);
            let m = member_bits(v) & !(1 << slot) | (u64::from(member) << slot);
            self.store(b + B_LOCK, with_bits(v, alloc_bits(v) | 1 << slot, m));
            self.mem.persist(b + B_LOCK, 1)
        })();
        self.unlock_bucket(b);
        r
    }

    /// Frees slot `slot` of bucket `b` (persist order: the allocation bit).
    pub(crate) fn clear_slot(&self, b: usize, slot: usize) -> Result<()> {
        self.lock_bucket(b);
        let v = self.load(b + B_LOCK);
        self.store(
            b + B_LOCK,
            with_bits(
                v,
                alloc_bits(v) & !(1 << slot),
                member_bits(v) & !(1 << slot),
            ),
        );
        let r = self.mem.persist(b + B_LOCK, 1);
        self.unlock_bucket(b);
        r
    }

    fn move_slot(&self, from: Loc, to: usize, member: bool) -> Result<()> {
        let key = self.load(from.bucket + B_SLOTS + 2 * from.slot);
        let value = self.load(from.bucket + B_SLOTS + 2 * from.slot + 1);
        let fp = fingerprint(hash(key));
        let slot = self.free_slot(to).expect("displacement target has room");
        // The copy first: a crash between the two leaves a duplicate, removed by recovery.
        self.put_slot(to, slot, key, value, fp, member)?;
        self.clear_slot(from.bucket, from.slot)
    }

    /// Inserts `key` → `value`, or updates the value of a present key. Returns the
    /// previous value. Splits segments (and doubles the directory) as needed.
    pub fn insert(&self, key: u64, value: u64) -> Result<Option<u64>> {
        let h = hash(key);
        let _g = self.lock_writer();
        loop {
            let (seg, base) = self.writer_segment(h)?;
            if let Some(at) = self.find(base, h, key) {
                let vw = at.bucket + B_SLOTS + 2 * at.slot + 1;
                let old = self.load(vw);
                // In place: one 8-byte store is failure atomic.
                self.lock_bucket(at.bucket);
                self.store(vw, value);
                let r = self.mem.persist(vw, 1);
                self.unlock_bucket(at.bucket);
                r?;
                return Ok(Some(old));
            }
            if self.place(base, h, key, value)? {
                return Ok(None);
            }
            self.split(seg)?;
        }
    }

    /// Puts a new item into the segment; false if it is full (a split is needed).
    fn place(&self, base: usize, h: u64, key: u64, value: u64) -> Result<bool> {
        let fp = fingerprint(h);
        let hb = home_bucket(h);
        let b = Dash::bucket(base, hb);
        let nb = Dash::bucket(base, next(hb));
        let (cb, cn) = (self.count(b), self.count(nb));
        // Balanced insert: the less full of the home and the probing bucket.
        if cb.min(cn) < SLOTS {
            let (t, member) = if cb <= cn { (b, false) } else { (nb, true) };
            let slot = self.free_slot(t).expect("bucket has room");
            self.put_slot(t, slot, key, value, fp, member)?;
            return Ok(true);
        }
        // Displacement: an item of the probing bucket whose home it is moves on to its own
        // probing bucket; or an item of the home bucket that only probes there moves back
        // to its home.
        let nnb = Dash::bucket(base, next(next(hb)));
        if self.count(nnb) < SLOTS {
            let v = self.load(nb + B_LOCK);
            let own = alloc_bits(v) & !member_bits(v);
            if own != 0 {
                let from = Loc {
                    bucket: nb,
                    slot: own.trailing_zeros() as usize,
                };
                self.move_slot(from, nnb, true)?;
                self.put_slot(nb, from.slot, key, value, fp, true)?;
                return Ok(true);
            }
        }
        let pb = Dash::bucket(base, prev(hb));
        if self.count(pb) < SLOTS {
            let v = self.load(b + B_LOCK);
            let probing = alloc_bits(v) & member_bits(v);
            if probing != 0 {
                let from = Loc {
                    bucket: b,
                    slot: probing.trailing_zeros() as usize,
                };
                self.move_slot(from, pb, false)?;
                self.put_slot(b, from.slot, key, value, fp, false)?;
                return Ok(true);
            }
        }
        // The stash, with an overflow fingerprint in the home (or probing) bucket, or the
        // home bucket's overflow count when both have no free record.
        let ob = self.load(b + B_OVF);
        let on = self.load(nb + B_OVF);
        let record = if ovf_alloc(ob) != 0xf {
            Some((b, false, ob))
        } else if ovf_alloc(on) != 0xf {
            Some((nb, true, on))
        } else if ovf_count(ob) < OVF_COUNT_MAX {
            None
        } else {
            return Ok(false);
        };
        for i in 0..STASH {
            let k = (hb + i) % STASH;
            let s = Dash::bucket(base, NORMAL + k);
            if let Some(slot) = self.free_slot(s) {
                self.put_slot(s, slot, key, value, fp, false)?;
                let (rb, o) = match record {
                    Some((rb, member, o)) => {
                        let r = (!ovf_alloc(o) & 0xf).trailing_zeros() as usize;
                        (rb, ovf_with_record(o, r, fp, k, member))
                    }
                    None => (b, ovf_with_count(ob, ovf_count(ob) + 1)),
                };
                self.lock_bucket(rb);
                self.store(rb + B_OVF, o);
                let r = self.mem.persist(rb + B_OVF, 1);
                self.unlock_bucket(rb);
                r?;
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Removes `key`; returns its value if it was present.
    pub fn remove(&self, key: u64) -> Result<Option<u64>> {
        let h = hash(key);
        let _g = self.lock_writer();
        let (_, base) = self.writer_segment(h)?;
        let Some(at) = self.find(base, h, key) else {
            return Ok(None);
        };
        let value = self.load(at.bucket + B_SLOTS + 2 * at.slot + 1);
        self.clear_slot(at.bucket, at.slot)?;
        let k = (at.bucket - Dash::bucket(base, 0)) / BUCKET_WORDS;
        if k >= NORMAL {
            // A stash item: drop one matching overflow record, else one count.
            self.drop_overflow(base, h, k - NORMAL)?;
        }
        Ok(Some(value))
    }

    fn drop_overflow(&self, base: usize, h: u64, stash: usize) -> Result<()> {
        let fp = fingerprint(h);
        let hb = home_bucket(h);
        for (b, member) in [
            (Dash::bucket(base, hb), 0),
            (Dash::bucket(base, next(hb)), 1),
        ] {
            let o = self.load(b + B_OVF);
            for r in 0..OVF_RECORDS {
                if ovf_alloc(o) >> r & 1 == 1
                    && ovf_member(o) >> r & 1 == member
                    && ovf_fp(o, r) == fp
                    && ovf_stash(o, r) == stash
                {
                    return self.set_ovf(b, ovf_without_record(o, r));
                }
            }
        }
        let b = Dash::bucket(base, hb);
        let o = self.load(b + B_OVF);
        if ovf_count(o) > 0 {
            return self.set_ovf(b, ovf_with_count(o, ovf_count(o) - 1));
        }
        Ok(())
    }

    fn set_ovf(&self, b: usize, o: u64) -> Result<()> {
        self.lock_bucket(b);
        self.store(b + B_OVF, o);
        let r = self.mem.persist(b + B_OVF, 1);
        self.unlock_bucket(b);
        r
    }

    /// Rebuilds every overflow record and count of the segment at `base` from its stash
    /// (stores only; the caller persists the segment).
    pub(crate) fn rebuild_overflow(&self, base: usize) {
        for k in 0..NORMAL {
            self.store(Dash::bucket(base, k) + B_OVF, 0);
        }
        for k in 0..STASH {
            let s = Dash::bucket(base, NORMAL + k);
            let mut m = alloc_bits(self.load(s + B_LOCK));
            while m != 0 {
                let i = m.trailing_zeros() as usize;
                m &= m - 1;
                let h = hash(self.load(s + B_SLOTS + 2 * i));
                let hb = home_bucket(h);
                let b = Dash::bucket(base, hb);
                let nb = Dash::bucket(base, next(hb));
                let (ob, on) = (self.load(b + B_OVF), self.load(nb + B_OVF));
                if ovf_alloc(ob) != 0xf {
                    let r = (!ovf_alloc(ob) & 0xf).trailing_zeros() as usize;
                    self.store(b + B_OVF, ovf_with_record(ob, r, fingerprint(h), k, false));
                } else if ovf_alloc(on) != 0xf {
                    let r = (!ovf_alloc(on) & 0xf).trailing_zeros() as usize;
                    self.store(nb + B_OVF, ovf_with_record(on, r, fingerprint(h), k, true));
                } else {
                    self.store(b + B_OVF, ovf_with_count(ob, ovf_count(ob) + 1));
                }
            }
        }
    }
}
