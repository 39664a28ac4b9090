//! The Elf multi-dimensional index (Broneske et al., ICDE 2017) in its linearized,
//! main-memory layout, living in a [`Region`] on any tier, with exact-match, window
//! (range) and partial-match queries.
//!
//! # Concept
//!
//! Elf is a prefix tree over column *values*: level `l` holds the values of dimension `l`.
//! Each node is a **DimensionList**, the sorted distinct values of one dimension among the
//! rows sharing a prefix, each with a pointer to the node of the next dimension. Where the
//! rows under a prefix all have the same remaining values (a path that does not branch any
//! more), the rest of the path is one **MonoList**: the remaining values in a row followed
//! by the TIDs. The first dimension is **dense**: an array indexed by the value itself.
//! TIDs are row numbers of the input; duplicate rows are kept (one key, several TIDs).
//!
//! # Word layout (linearized Elf)
//!
//! One contiguous array of little-endian `u32` words; offsets (word indexes into the same
//! array) instead of pointers. Bit 31 (`FLAG`) is a marker; bits 0–30 carry the value or
//! offset, so values, TIDs and offsets are 31 bits and `0xFFFF_FFFF` (`EMPTY`) is never a
//! valid pointer.
//!
//! ```text
//! word 0            D, the number of dimensions (1..=256)
//! word 1            C, the length of the dense first dimension (max first value + 1; 0 if empty)
//! word 2 .. 2+C     dense first dimension: word 2+v is the pointer for first value v,
//!                   or EMPTY when no row has that value
//! then, in level order, DimensionLists, MonoLists and TID lists:
//!
//! pointer word      FLAG clear: offset of a DimensionList of the next dimension
//!                   FLAG set:   offset (bits 0-30) of a MonoList of the remaining dimensions
//!                   (below the last dimension the "pointer" is a TID word instead)
//! DimensionList     k entries of 2 words: (value | FLAG on the LAST entry, pointer word);
//!                   values strictly ascending; k >= 1
//! MonoList at level l   D-l words: the values of dimensions l..D-1, then one TID word
//! TID word          FLAG clear: the TID itself (one row has this key)
//!                   FLAG set:   offset of a TID list [n, tid_1, …, tid_n], n >= 2, ascending
//! ```
//!
//! Lists are written breadth first (level by level, each level's lists in key order), so
//! the first `x` dimension levels — what static caching keeps in DRAM — form a prefix of
//! the array apart from the MonoLists and TID lists that end paths early. The layout is a
//! pure function of the input rows. Limits: 1 to [`MAX_DIMS`] dimensions, first-dimension
//! values below [`MAX_DENSE`] (the dense array), other values up to [`MAX_VALUE`], fewer
//! than 2^31 rows and at most [`MAX_WORDS`] words (8 GiB).
//!
//! # Persistence
//!
//! [`Elf::write`] writes a file (header page + this array; `docs/formats.md`, "Elf index")
//! with an atomic commit: payload and header go into `<path>.new`, are persisted, and the
//! file is renamed over `<path>` and the directory synced, so a crash leaves the old index
//! or the new one. [`Elf::open`] verifies magic, version and both checksums and maps the
//! array in place (on the file's tier) or copies it to another tier (e.g. `dram`: the
//! paper's hybrid Elf). [`Elf::build`] puts an array on a tier without the file format.
//!
//! Selective caching (static, dynamic, probability-based, split) is the [`cache`] layer;
//! baselines for benchmarks are in [`baseline`]. An opened file
//! whose checksums match is trusted structurally: a deliberately forged payload can make a
//! query panic on an out-of-range offset (never undefined behaviour).

pub mod baseline;
pub mod bench;
mod build;
pub mod cache;
mod file;
mod traverse;

use std::path::{Path, PathBuf};

use pmolap_tier::{Region, RegionOptions, TierSpec};
use rand::{Rng, SeedableRng};

use crate::error::{Error, Result};
pub use cache::{CacheStats, CachedElf, Policy, Variant};
pub use file::WriteOptions;
use traverse::Words;

/// The marker bit: last entry of a DimensionList (in value words), MonoList (in pointer
/// words), TID list (in TID words).
pub const FLAG: u32 = 1 << 31;
/// Bits 0–30 of a word: value, offset or TID.
pub const VALUE_MASK: u32 = FLAG - 1;
/// An absent entry of the dense first dimension.
pub const EMPTY: u32 = u32::MAX;
/// The most dimensions the layout (and the file header) accepts.
pub const MAX_DIMS: usize = 256;
/// First-dimension values are below this (the dense array has one word per value).
pub const MAX_DENSE: u32 = 1 << 24;
/// The largest value of the other dimensions (31 bits).
pub const MAX_VALUE: u32 = VALUE_MASK;
/// The most words an Elf array may have (offsets are 31 bits, `EMPTY` excluded).
pub const MAX_WORDS: usize = VALUE_MASK as usize;
/// Words before the dense first dimension: D and C.
pub const PRELUDE: usize = 2;

/// An Elf index whose linearized array lives in a [`Region`].
#[derive(Debug)]
pub struct Elf {
    region: Region,
    /// Byte offset of word 0 in `region` (the header page, when mapped from its file).
    base: usize,
    words: usize,
    dims: usize,
    rows: usize,
    path: Option<PathBuf>,
    /// The index file's shared lock, while the array is used in place.
    _lock: Option<pmolap_os::FileLock>,
}

impl Elf {
    /// Builds an Elf of `flat` (row-major, `dims` values per row; TID = row number) and
    /// places its array in a new region on `tier` (no file header: see [`Elf::write`]
    /// for the persistent file format).
    pub fn build(dims: usize, flat: &[u32], tier: &TierSpec) -> Result<Elf> {
        let words = build::linearize(dims, flat)?;
        let bytes: &[u8] = bytemuck::cast_slice(&words);
        let mut region = Region::new(tier, bytes.len(), &RegionOptions::default())?;
        region.write_durable(0, bytes)?;
        Ok(Elf {
            region,
            base: 0,
            words: words.len(),
            dims,
            rows: flat.len() / dims,
            path: None,
            _lock: None,
        })
    }

    /// [`Elf::build`] from rows of equal length (the number of dimensions).
    pub fn from_rows(rows: &[Vec<u32>], tier: &TierSpec) -> Result<Elf> {
        let (dims, flat) = flatten(rows)?;
        Elf::build(dims, &flat, tier)
    }

    /// Writes `flat` as an Elf index file at `path` with the atomic commit protocol
    /// (module docs) and returns it mapped from the file.
    pub fn write(path: &Path, dims: usize, flat: &[u32], opts: &WriteOptions) -> Result<Elf> {
        let words = build::linearize(dims, flat)?;
        file::write(path, dims, flat.len() / dims, &words, opts)?;
        file::open(path, None, false)
    }

    /// Opens the Elf index file at `path`, verifying magic, version and checksums (never
    /// rebuilding). On `file:PATH` naming this same file the array is used in place;
    /// on any other tier it is copied into a new region there.
    pub fn open(path: &Path, tier: &TierSpec) -> Result<Elf> {
        file::open(path, Some(tier), true)
    }

    /// Maps the Elf index file at `path` in place, verifying magic, version and the header
    /// checksum but **not** the payload checksum, so nothing of the array but its first
    /// words is read: for cold-cache measurements after the file's pages were dropped.
    /// Use [`Elf::open`] for anything else.
    pub fn open_unverified(path: &Path) -> Result<Elf> {
        file::open(path, None, false)
    }

    /// The number of dimensions.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// The number of indexed rows (TIDs are `0..rows`).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The linearized array (layout in the module docs).
    pub fn words(&self) -> &[u32] {
        let bytes = &self.region.as_slice()[self.base..self.base + 4 * self.words];
        // The mapping is page aligned and `base` is 0 or 4096, so this cannot fail.
        bytemuck::cast_slice(bytes)
    }

    /// Bytes of the linearized array.
    pub fn size_bytes(&self) -> usize {
        4 * self.words
    }

    /// The region holding the array (its tier, durability, residency).
    pub fn region(&self) -> &Region {
        &self.region
    }

    /// The file this index was opened from or written to, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// TIDs of the rows equal to `key` (ascending; empty if none).
    pub fn exact(&self, key: &[u32]) -> Result<Vec<u32>> {
        let mut out = Vec::new();
        self.exact_into(key, &mut out)?;
        Ok(out)
    }

    /// [`Elf::exact`], appending to `out`.
    pub fn exact_into(&self, key: &[u32], out: &mut Vec<u32>) -> Result<()> {
        self.check_len(key.len(), "key")?;
        traverse::exact(&mut Words(self.words()), self.dims, key, out);
        Ok(())
    }

    /// TIDs of the rows with `lo[d] <= row[d] <= hi[d]` in every dimension `d`, in key
    /// order (by values, then TID). An empty interval (`lo > hi`) matches nothing.
    pub fn range(&self, lo: &[u32], hi: &[u32]) -> Result<Vec<u32>> {
        let mut out = Vec::new();
        self.range_into(lo, hi, &mut out)?;
        Ok(out)
    }

    /// [`Elf::range`], appending to `out`.
    pub fn range_into(&self, lo: &[u32], hi: &[u32], out: &mut Vec<u32>) -> Result<()> {
        self.check_len(lo.len(), "lower bound")?;
        self.check_len(hi.len(), "upper bound")?;
        traverse::range(&mut Words(self.words()), self.dims, lo, hi, out);
        Ok(())
    }

    /// TIDs of the rows inside the bounds given (`Some((lo, hi))`, inclusive); `None`
    /// leaves a dimension unrestricted. Key order, as [`Elf::range`].
    pub fn partial(&self, bounds: &[Option<(u32, u32)>]) -> Result<Vec<u32>> {
        self.check_len(bounds.len(), "bounds")?;
        let lo: Vec<u32> = bounds.iter().map(|b| b.map_or(0, |b| b.0)).collect();
        let hi: Vec<u32> = bounds.iter().map(|b| b.map_or(u32::MAX, |b| b.1)).collect();
        self.range(&lo, &hi)
    }

    fn check_len(&self, got: usize, what: &str) -> Result<()> {
        if got != self.dims {
            return Err(Error::BadQuery(format!(
                "{what} has {got} values but the index has {} dimensions",
                self.dims
            )));
        }
        Ok(())
    }
}

/// Row-major values and the number of dimensions of `rows` (all of one length).
pub fn flatten(rows: &[Vec<u32>]) -> Result<(usize, Vec<u32>)> {
    let Some(first) = rows.first() else {
        return Err(Error::BadRows(
            "no rows: the number of dimensions is unknown (use Elf::build with dims)".into(),
        ));
    };
    let dims = first.len();
    let mut flat = Vec::with_capacity(rows.len() * dims);
    for (i, r) in rows.iter().enumerate() {
        if r.len() != dims {
            return Err(Error::BadRows(format!(
                "row {i} has {} values, row 0 has {dims}",
                r.len()
            )));
        }
        flat.extend_from_slice(r);
    }
    Ok((dims, flat))
}

/// Checks up front that an Elf of `rows` × `dims` can be built here: within the
/// layout's limits (31-bit TIDs, 1..=256 dimensions) and within the DRAM available now
/// (the rows, the sorted copy and the array: about 3 × rows × dims × 4 bytes).
pub fn check_build_size(rows: usize, dims: usize) -> Result<()> {
    if dims == 0 || dims > MAX_DIMS {
        return Err(Error::Dimensions {
            dims,
            max: MAX_DIMS,
        });
    }
    if rows > VALUE_MASK as usize {
        return Err(Error::TooLarge(format!(
            "{rows} rows: TIDs are 31-bit, at most {VALUE_MASK} rows"
        )));
    }
    let need = (rows as u128) * (dims as u128) * 4 * 3;
    let have = pmolap_tier::region::capacity(&pmolap_tier::TierSpec::Dram { node: None })?;
    if need > have as u128 {
        return Err(Error::TooLarge(format!(
            "{rows} rows x {dims} dims need about {} MiB of DRAM to build, {} MiB are available",
            need >> 20,
            have >> 20
        )));
    }
    Ok(())
}

/// The paper's data: `rows` rows of `dims` values drawn uniformly from `0..=max_value`
/// (§V-A: 10 dimensions, values 0–100), row-major, reproducible from `seed`.
pub fn uniform_rows(rows: usize, dims: usize, max_value: u32, seed: u64) -> Vec<u32> {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    (0..rows * dims)
        .map(|_| rng.gen_range(0..=max_value))
        .collect()
}
