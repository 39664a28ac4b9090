//! Creating and opening a Dash table, the directory, and lock-free lookups.

use std::path::{Path, PathBuf};
use std::sync::atomic::{fence, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use pmolap_kernels::prefetch::prefetch_read;
use pmolap_os::durable::Steps;
use pmolap_os::{FileLock, LockMode};
use pmolap_tier::kernel::bytes::match_byte16;
use pmolap_tier::{ExistingFile, Region, RegionOptions, TierSpec};

use super::layout::*;
use super::mem::Mem;
use crate::error::{Error, Result};

/// A Dash extendible hash table of `u64` keys to `u64` values (see the module docs).
#[derive(Debug)]
pub struct Dash {
    pub(crate) mem: Mem,
    pub(crate) dir_off: usize,
    pub(crate) seg_off: usize,
    pub(crate) seg_cap: usize,
    pub(crate) dir_cap_log: u32,
    /// The recovery epoch of this session; segments with another epoch are recovered on
    /// their first access.
    pub(crate) epoch: u64,
    /// Serialises writers (inserts, updates, deletes, splits, recovery).
    pub(crate) writer: Mutex<()>,
    /// Structure sequence lock: odd while a split or a segment recovery runs; readers
    /// retry if it changed under them.
    pub(crate) seq: AtomicU64,
    pub(crate) stats: SplitStats,
    pub(crate) path: PathBuf,
    /// The table file's lock (exclusive for a writer, shared for a copy being checked),
    /// held while the table is open; none for DRAM, scratch and simulated tables.
    pub(crate) _lock: Option<FileLock>,
}

/// What splits happened in this session.
#[derive(Debug, Default)]
pub(crate) struct SplitStats {
    pub splits: AtomicU64,
    /// Sum over splits of the splitting segment's items (its load when a split was forced).
    pub items_at_split: AtomicU64,
    pub doublings: AtomicU64,
}

/// Sizing of a new table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DashOptions {
    /// Most segments the table may grow to (its region is sized for them; untouched
    /// pages of a DRAM or file region take no memory).
    pub max_segments: usize,
    /// Global depth at creation (2^depth segments).
    pub initial_depth: u32,
}

impl DashOptions {
    /// Room for about `items` items (segments average well above the 45 % fill assumed).
    pub fn for_items(items: usize) -> DashOptions {
        let segs = items / (SEG_SLOTS * 45 / 100) + 4;
        DashOptions {
            max_segments: segs,
            initial_depth: 0,
        }
    }

    fn dir_cap_log(&self) -> u32 {
        (self
            .max_segments
            .max(1)
            .next_power_of_two()
            .trailing_zeros()
            + 3)
        .min(MAX_DEPTH)
    }

    /// Words the table's region needs (an error where that is beyond the address space).
    pub fn words(&self) -> Result<usize> {
        self.max_segments
            .checked_mul(SEG_WORDS)
            .and_then(|w| w.checked_add(HEADER_WORDS + (1usize << self.dir_cap_log())))
            .filter(|w| w.checked_mul(8).is_some())
            .ok_or_else(|| {
                Error::TooLarge(format!(
                    "a Dash table of {} segments is beyond the 64-bit address space",
                    self.max_segments
                ))
            })
    }

    /// Bytes the table's region needs ([`words`](Self::words) × 8).
    pub fn bytes(&self) -> Result<usize> {
        Ok(self.words()? * 8)
    }

    fn validate(&self) -> Result<()> {
        if self.max_segments < 1 << self.initial_depth || self.initial_depth > 20 {
            return Err(Error::BadQuery(format!(
                "dash: {} segments cannot hold the initial depth {}",
                self.max_segments, self.initial_depth
            )));
        }
        Ok(())
    }
}

pub(crate) fn header_checksum(w: &[AtomicU64]) -> u64 {
    let mut c = crc32fast::Hasher::new();
    for x in &w[..H_CHECKSUM] {
        c.update(&x.load(Ordering::Relaxed).to_le_bytes());
    }
    u64::from(c.finalize())
}

impl Dash {
    /// A volatile table in a DRAM heap array (the engine's join index).
    pub fn new_dram(opts: DashOptions) -> Result<Dash> {
        opts.validate()?;
        Dash::init(Mem::heap(opts.words()?)?, opts, PathBuf::from("<dram>"))
    }

    /// A new table in a region on `spec` (`dram`, `file:DIR` for a temporary file,
    /// unlinked once mapped, `file:PATH` for a new file that is kept — its lock taken
    /// before it is created and held while the table is open —, `devdax:PATH`).
    pub fn create(spec: &TierSpec, opts: DashOptions, steps: Option<Arc<Steps>>) -> Result<Dash> {
        opts.validate()?;
        let lock = super::file::lock_new(spec)?;
        let ropts = RegionOptions {
            // A scratch table in `file:DIR` leaves nothing behind on any exit path.
            keep_file: !matches!(spec, TierSpec::File { path } if path.is_dir()),
            ..RegionOptions::default()
        };
        let region = Region::new(spec, opts.bytes()?, &ropts)?;
        let path = region
            .info()
            .path
            .clone()
            .unwrap_or_else(|| PathBuf::from(spec.to_string()));
        let mut d = Dash::init(Mem::region(region.into_atomic()?, steps), opts, path)?;
        d._lock = lock;
        Ok(d)
    }

    /// A new table held in a simulated persistent medium whose durable image is a shadow
    /// updated only at persist points; persist point `stop_at` and later fail (crash tests).
    pub fn create_simulated(opts: DashOptions, stop_at: Option<u64>) -> Result<Dash> {
        opts.validate()?;
        let mem = Mem::simulated(vec![0; opts.words()?], stop_at);
        Dash::init(mem, opts, PathBuf::from("<simulated>"))
    }

    /// Opens a durable image taken from a simulated table, as after a crash or shutdown.
    pub fn open_simulated(image: Vec<u64>, stop_at: Option<u64>) -> Result<Dash> {
        Dash::attach(Mem::simulated(image, stop_at), PathBuf::from("<simulated>"))
    }

    /// Opens the table in the file at `path` (mapped as a page-cache file) for writing:
    /// holds its exclusive lock while open, so a second writer or a reader is refused
    /// with one line naming this process.
    pub fn open(path: &Path, steps: Option<Arc<Steps>>) -> Result<Dash> {
        let lock = super::file::lock_existing(path, LockMode::Exclusive)?;
        let mut d = Dash::open_unlocked(path, steps)?;
        d._lock = lock;
        Ok(d)
    }

    /// [`open`](Self::open) without the lock: for a file only this process knows (the
    /// benchmark's own recovery files).
    pub(crate) fn open_unlocked(path: &Path, steps: Option<Arc<Steps>>) -> Result<Dash> {
        let len = std::fs::metadata(path)
            .map_err(|e| Error::io(path, e))?
            .len() as usize;
        if len < HEADER_WORDS * 8 {
            return Err(Error::NotDash {
                path: path.to_path_buf(),
            });
        }
        let spec: TierSpec = format!("file:{}", path.display()).parse()?;
        let ropts = RegionOptions {
            existing: ExistingFile::Use,
            keep_file: true,
            ..RegionOptions::default()
        };
        let region = Region::new(&spec, len, &ropts)?;
        Dash::attach(
            Mem::region(region.into_atomic()?, steps),
            path.to_path_buf(),
        )
    }

    fn init(mem: Mem, opts: DashOptions, path: PathBuf) -> Result<Dash> {
        let dir_cap_log = opts.dir_cap_log();
        let w = mem.words();
        let dir_off = HEADER_WORDS;
        let seg_off = dir_off + (1 << dir_cap_log);
        let set = |i: usize, v: u64| w[i].store(v, Ordering::Relaxed);
        set(H_VERSION, VERSION);
        set(H_SEG_CAP, opts.max_segments as u64);
        set(H_DIR_CAP_LOG, u64::from(dir_cap_log));
        set(H_DIR_OFF, dir_off as u64);
        set(H_SEG_OFF, seg_off as u64);
        set(H_CLEAN, 0);
        set(H_EPOCH, 1);
        let g = opts.initial_depth;
        set(H_GLOBAL_DEPTH, u64::from(g));
        set(H_SEG_COUNT, 1 << g);
        for s in 0..1usize << g {
            let base = seg_off + s * SEG_WORDS;
            set(base + S_STATE, STATE_NORMAL | (u64::from(g) << 8));
            set(base + S_PATTERN, s as u64);
            set(base + S_EPOCH, 1);
            set(dir_off + s, s as u64);
        }
        // Everything but the magic, then the magic: a crash before it leaves "not a table".
        mem.persist(0, seg_off + (1 << g) * SEG_WORDS)?;
        set(H_MAGIC, MAGIC);
        w[H_CHECKSUM].store(header_checksum(w), Ordering::Relaxed);
        mem.persist(0, HEADER_WORDS)?;
        Dash::attach(mem, path)
    }

    pub(crate) fn attach(mem: Mem, path: PathBuf) -> Result<Dash> {
        let w = mem.words();
        let get = |i: usize| w[i].load(Ordering::Relaxed);
        if w.len() < HEADER_WORDS || get(H_MAGIC) != MAGIC {
            return Err(Error::NotDash { path });
        }
        if get(H_VERSION) != VERSION {
            return Err(Error::DashVersion {
                path,
                found: get(H_VERSION),
                supported: VERSION,
            });
        }
        if get(H_CHECKSUM) != header_checksum(w) {
            return Err(Error::Checksum {
                path,
                what: "Dash header",
            });
        }
        let seg_cap = get(H_SEG_CAP) as usize;
        let dir_cap_log = get(H_DIR_CAP_LOG) as u32;
        let dir_off = get(H_DIR_OFF) as usize;
        let seg_off = get(H_SEG_OFF) as usize;
        let need = (seg_cap as u128) * SEG_WORDS as u128 + seg_off as u128;
        if dir_cap_log > MAX_DEPTH
            || dir_off != HEADER_WORDS
            || seg_off != dir_off + (1 << dir_cap_log)
            || need > w.len() as u128
        {
            return Err(Error::Corrupt {
                path,
                detail: "Dash header sizes do not fit the file".into(),
            });
        }
        // Every mutable header word is checked before anything is written: a file that
        // is refused is left as it was.
        let (clean, epoch, g, segs) = (
            get(H_CLEAN),
            get(H_EPOCH),
            get(H_GLOBAL_DEPTH),
            get(H_SEG_COUNT),
        );
        let bad = if clean > 1 {
            Some(format!("clean flag is {clean}, neither 0 nor 1"))
        } else if epoch == u64::MAX {
            Some(format!("epoch {epoch} cannot advance"))
        } else if g > u64::from(dir_cap_log) || segs == 0 || segs > seg_cap as u64 {
            Some(format!(
                "global depth {g} or segment count {segs} out of range (depth at most {dir_cap_log}, 1 to {seg_cap} segments)"
            ))
        } else {
            None
        };
        if let Some(detail) = bad {
            return Err(Error::Corrupt {
                path,
                detail: format!("Dash header: {detail}"),
            });
        }
        // A clean shutdown needs no recovery; otherwise a new epoch makes every segment
        // recover on its first access.
        let epoch = if clean == 1 {
            w[H_CLEAN].store(0, Ordering::Relaxed);
            mem.persist(H_CLEAN, 1)?;
            get(H_EPOCH)
        } else {
            let e = get(H_EPOCH) + 1;
            w[H_EPOCH].store(e, Ordering::Relaxed);
            mem.persist(H_EPOCH, 1)?;
            e
        };
        Ok(Dash {
            mem,
            dir_off,
            seg_off,
            seg_cap,
            dir_cap_log,
            epoch,
            writer: Mutex::new(()),
            seq: AtomicU64::new(0),
            stats: SplitStats::default(),
            path,
            _lock: None,
        })
    }

    /// Marks a clean shutdown (the next open needs no recovery) and unmaps the table.
    pub fn close(self) -> Result<()> {
        let _g = self.lock_writer();
        self.w(H_CLEAN).store(1, Ordering::Relaxed);
        self.mem.persist(H_CLEAN, 1)
    }

    pub(crate) fn corrupt(&self, detail: impl Into<String>) -> Error {
        Error::Corrupt {
            path: self.path.clone(),
            detail: detail.into(),
        }
    }

    pub(crate) fn lock_writer(&self) -> MutexGuard<'_, ()> {
        self.writer.lock().unwrap_or_else(|e| e.into_inner())
    }

    #[inline]
    pub(crate) fn w(&self, i: usize) -> &AtomicU64 {
        &self.mem.words()[i]
    }

    #[inline]
    pub(crate) fn load(&self, i: usize) -> u64 {
        self.mem.words()[i].load(Ordering::Relaxed)
    }

    #[inline]
    pub(crate) fn store(&self, i: usize, v: u64) {
        self.mem.words()[i].store(v, Ordering::Relaxed)
    }

    pub fn global_depth(&self) -> u32 {
        self.load(H_GLOBAL_DEPTH) as u32
    }

    pub(crate) fn seg_count(&self) -> u64 {
        self.load(H_SEG_COUNT)
    }

    /// Word index of segment `s`.
    #[inline]
    pub(crate) fn seg_base(&self, s: usize) -> usize {
        self.seg_off + s * SEG_WORDS
    }

    /// Word index of bucket `k` of the segment at `base`.
    #[inline]
    pub(crate) fn bucket(base: usize, k: usize) -> usize {
        base + SEG_HEADER_WORDS + k * BUCKET_WORDS
    }

    /// The segment the directory gives for hash `h`.
    #[inline]
    pub(crate) fn dir_segment(&self, h: u64) -> Result<usize> {
        let g = self.global_depth();
        let i = (segment_bits(h) & ((1u64 << g) - 1)) as usize;
        let s = self.load(self.dir_off + i) as usize;
        if s >= self.seg_cap {
            return Err(self.corrupt(format!("directory entry {i} names segment {s}")));
        }
        Ok(s)
    }

    /// Whether segment `s` still needs recovery in this session.
    #[inline]
    pub(crate) fn needs_recovery(&self, base: usize) -> bool {
        self.mem.persistent() && self.load(base + S_EPOCH) != self.epoch
    }

    /// Bucket `b`'s 32 words (one bounds check; the fixed-size array needs no more).
    #[inline]
    pub(crate) fn bkt(&self, b: usize) -> &[AtomicU64; BUCKET_WORDS] {
        self.mem.words()[b..b + BUCKET_WORDS]
            .try_into()
            .expect("a bucket is 32 words")
    }

    /// Bit mask of the slots of bucket `b` whose fingerprint is `fp` (SIMD compare).
    #[inline]
    pub(crate) fn fp_matches(&self, b: usize, fp: u8) -> u64 {
        fp_mask(self.bkt(b), fp)
    }

    /// Searches stash bucket `k` of `base` with version validation; None if it changed.
    fn search_stash(&self, base: usize, k: usize, fp: u8, key: u64) -> Option<Option<u64>> {
        let w = self.bkt(Dash::bucket(base, NORMAL + k));
        let v = w[B_LOCK].load(Ordering::Acquire);
        if v & LOCKED != 0 {
            return None;
        }
        let r = search(w, alloc_bits(v), fp, key);
        fence(Ordering::Acquire);
        (w[B_LOCK].load(Ordering::Relaxed) == v).then_some(r)
    }

    /// One optimistic probe of segment `base` for `key`; None if a writer interfered.
    fn probe(&self, base: usize, h: u64, key: u64) -> Option<Option<u64>> {
        let fp = fingerprint(h);
        let hb = home_bucket(h);
        let b = self.bkt(Dash::bucket(base, hb));
        let nb = self.bkt(Dash::bucket(base, next(hb)));
        // The slot holding the key is on one of the home bucket's four cache lines, known
        // only after its fingerprints are read: start loading the other three now, so the
        // two misses overlap instead of following each other.
        for line in 1..BUCKET_WORDS / 8 {
            prefetch_read(&b[8 * line]);
        }
        let vb = b[B_LOCK].load(Ordering::Acquire);
        let vn = nb[B_LOCK].load(Ordering::Acquire);
        if (vb | vn) & LOCKED != 0 {
            return None;
        }
        let mut found = search(b, alloc_bits(vb) & !member_bits(vb), fp, key);
        if found.is_none() {
            found = search(nb, alloc_bits(vn) & member_bits(vn), fp, key);
        }
        if found.is_none() {
            let ob = b[B_OVF].load(Ordering::Relaxed);
            let on = nb[B_OVF].load(Ordering::Relaxed);
            let mut stashes = 0u32;
            for r in 0..OVF_RECORDS {
                if ovf_alloc(ob) >> r & 1 == 1
                    && ovf_member(ob) >> r & 1 == 0
                    && ovf_fp(ob, r) == fp
                {
                    stashes |= 1 << ovf_stash(ob, r);
                }
                if ovf_alloc(on) >> r & 1 == 1
                    && ovf_member(on) >> r & 1 == 1
                    && ovf_fp(on, r) == fp
                {
                    stashes |= 1 << ovf_stash(on, r);
                }
            }
            if ovf_count(ob) > 0 {
                stashes = (1 << STASH) - 1;
            }
            while stashes != 0 && found.is_none() {
                let k = stashes.trailing_zeros() as usize;
                found = self.search_stash(base, k, fp, key)?;
                stashes &= stashes - 1;
            }
        }
        fence(Ordering::Acquire);
        (b[B_LOCK].load(Ordering::Relaxed) == vb && nb[B_LOCK].load(Ordering::Relaxed) == vn)
            .then_some(found)
    }

    /// The value of `key`, if present. Lock-free: retries while a writer changes the
    /// buckets it read (version validation) or the table's structure (split).
    pub fn get(&self, key: u64) -> Result<Option<u64>> {
        let h = hash(key);
        loop {
            let s1 = self.seq.load(Ordering::Acquire);
            if s1 & 1 == 1 {
                std::hint::spin_loop();
                continue;
            }
            let base = self.seg_base(self.dir_segment(h)?);
            if self.needs_recovery(base) {
                let _g = self.lock_writer();
                self.recover_segment_of(h)?;
                continue;
            }
            let Some(found) = self.probe(base, h, key) else {
                std::hint::spin_loop();
                continue;
            };
            fence(Ordering::Acquire);
            if self.seq.load(Ordering::Relaxed) == s1 {
                return Ok(found);
            }
        }
    }

    /// The segment of hash `h` for a writer (which holds the writer lock), recovered
    /// first if this session has not touched it yet. Returns (segment, base word).
    pub(crate) fn writer_segment(&self, h: u64) -> Result<(usize, usize)> {
        loop {
            let s = self.dir_segment(h)?;
            let base = self.seg_base(s);
            if self.needs_recovery(base) {
                self.recover_segment_of(h)?;
                continue;
            }
            return Ok((s, base));
        }
    }
}

/// Bit mask of the slots of bucket `w` whose fingerprint is `fp` (one SIMD compare).
#[inline]
fn fp_mask(w: &[AtomicU64; BUCKET_WORDS], fp: u8) -> u64 {
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&w[B_FP].load(Ordering::Relaxed).to_le_bytes());
    bytes[8..].copy_from_slice(&w[B_FP + 1].load(Ordering::Relaxed).to_le_bytes());
    u64::from(match_byte16(&bytes, fp)) & SLOT_MASK
}

/// The value of `key` among `mask`'s slots of bucket `w` with fingerprint `fp`.
#[inline]
fn search(w: &[AtomicU64; BUCKET_WORDS], mask: u64, fp: u8, key: u64) -> Option<u64> {
    let mut m = fp_mask(w, fp) & mask;
    while m != 0 {
        let i = m.trailing_zeros() as usize;
        if w[B_SLOTS + 2 * i].load(Ordering::Relaxed) == key {
            return Some(w[B_SLOTS + 2 * i + 1].load(Ordering::Relaxed));
        }
        m &= m - 1;
    }
    None
}
