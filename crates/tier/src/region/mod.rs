//! `Region`: a page-aligned mapping of N bytes on one tier, and `MemView`, the shared
//! handle through which threads read and write it.
//!
//! Creating a region checks the request against what the tier can hold, maps it (anonymous
//! DRAM, a file, or a device-DAX device), binds it to a NUMA node with `mbind` where the
//! spec names one, optionally asks for huge pages, prefaults it, and then *checks* where
//! the pages landed (`move_pages` query) and whether huge pages were granted: what
//! happened is reported in [`RegionInfo`], never assumed.

mod atomic;
mod capacity;
mod mapping;
mod persistence;
mod readonly;
mod residency;
mod view;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::ptr::NonNull;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::cpu::CpuFeatures;
use crate::persist::{Durability, PersistMode};
use crate::spec::TierSpec;
use crate::topology::Topology;
use pmolap_os::{Error, Result};

/// Base page size assumed for alignment and residency sampling.
pub use self::atomic::AtomicRegion;
pub use self::capacity::{capacity, fs_free_bytes, open_devdax};
pub use self::readonly::ReadOnlyRegion;
pub use self::view::MemView;

pub const PAGE: usize = 4096;
/// Size of an x86-64 huge page (2 MiB).
pub const HUGE_PAGE: usize = 2 << 20;

/// Which huge pages to ask for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HugePages {
    /// 4 KiB pages (transparent huge pages may still be used if the system forces them).
    #[default]
    Off,
    /// `madvise(MADV_HUGEPAGE)`: transparent huge pages, if the kernel grants them.
    Thp,
    /// `MAP_HUGETLB` 2 MiB pages from the reserved pool (`/proc/sys/vm/nr_hugepages`).
    Hugetlb,
}

impl FromStr for HugePages {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "off" | "none" | "false" => Ok(HugePages::Off),
            "thp" | "on" | "true" => Ok(HugePages::Thp),
            "hugetlb" => Ok(HugePages::Hugetlb),
            _ => Err(Error::Invalid(format!(
                "unknown huge-page setting `{s}`; use off, thp or hugetlb"
            ))),
        }
    }
}

/// How to create a [`Region`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegionOptions {
    pub huge_pages: HugePages,
    /// Touch every page before returning, so later accesses take no page faults.
    pub prefault: bool,
    /// Keep the file a `file:` tier creates (a temporary file in `file:DIR`, or a new
    /// file at `file:PATH`). Otherwise a file pmolap created is unlinked as soon as it is
    /// mapped, so nothing is left behind on any exit path (Ctrl-C, kill -9, panic).
    pub keep_file: bool,
    /// What to do when `file:PATH` names a file that already exists.
    pub existing: ExistingFile,
    /// Record the bytes backed by huge pages ([`RegionInfo::huge_page_bytes`]) and warn
    /// when huge pages were requested but not granted. Costly: `/proc/self/smaps` walks
    /// the page tables of every mapping of the process, so a store opening a hundred
    /// prefaulted structures spent seconds on it (quadratic in the regions); set for a
    /// region that is itself measured (membench), not for a store's structures.
    #[serde(default)]
    pub huge_page_census: bool,
}

/// What a `file:PATH` tier may do with a file that is already there.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExistingFile {
    /// Refuse with a one-line error: a user's file is not scratch space (the default).
    #[default]
    Refuse,
    /// Map it, content kept: the command's purpose is that file (a store structure file,
    /// an Elf index, a prepared iobench file, or the user passed `--overwrite`).
    Use,
}

/// Where the pages of a region were found, from a `move_pages` query over sampled pages.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Residency {
    /// Pages queried (evenly spaced over the region).
    pub pages_checked: u64,
    /// Node id → pages found there. Pages not yet faulted in count under `not_present`.
    pub per_node: BTreeMap<u32, u64>,
    pub not_present: u64,
    /// Pages the kernel would not report on (e.g. device-DAX mappings).
    pub unknown: u64,
}

impl Residency {
    /// The share of checked pages that are on `node`.
    pub fn fraction_on(&self, node: u32) -> f64 {
        if self.pages_checked == 0 {
            return 0.0;
        }
        *self.per_node.get(&node).unwrap_or(&0) as f64 / self.pages_checked as f64
    }
}

/// What a region is and what actually happened when it was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RegionInfo {
    pub spec: TierSpec,
    pub len: usize,
    pub mapped_len: usize,
    pub durability: Durability,
    /// The backing file, for file and devdax tiers.
    pub path: Option<PathBuf>,
    /// Whether the mapping was made with `MAP_SYNC` (fsdax).
    pub map_sync: bool,
    pub huge_pages_requested: HugePages,
    /// Bytes of the mapping backed by huge pages, from `/proc/self/smaps` (None: unknown,
    /// or not asked for: [`RegionOptions::huge_page_census`]).
    pub huge_page_bytes: Option<u64>,
    pub prefaulted: bool,
    /// Where sampled pages live (after prefault); None if not checked.
    pub residency: Option<Residency>,
    /// Human-readable notes on anything that did not go as asked.
    pub warnings: Vec<String>,
}

/// A page-aligned mapping of `len` bytes on one tier. Unmapped (and a temporary file
/// removed) on drop.
#[derive(Debug)]
pub struct Region {
    ptr: NonNull<u8>,
    len: usize,
    map_len: usize,
    info: RegionInfo,
    features: CpuFeatures,
    flush: PersistMode,
    /// Mapped with `PROT_WRITE` (every region but the mapping inside a
    /// [`ReadOnlyRegion`], which is `PROT_READ` and never handed out as a `Region`).
    writable: bool,
}

// SAFETY: a Region owns its mapping exclusively; the raw pointer is only dereferenced
// through `MemView`s (whose creation borrows the Region mutably) or `&self` methods
// that read. Nothing in it is tied to the creating thread.
unsafe impl Send for Region {}
// SAFETY: `&Region` only allows reads of the mapping and `msync`/flush calls, which are
// thread-safe; writes go through `MemView`, created from `&mut Region`.
unsafe impl Sync for Region {}

impl Region {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn spec(&self) -> &TierSpec {
        &self.info.spec
    }

    pub fn durability(&self) -> Durability {
        self.info.durability
    }

    /// What the region is and what happened when it was made.
    pub fn info(&self) -> &RegionInfo {
        &self.info
    }

    /// The CPU features seen when the region was made.
    pub fn cpu_features(&self) -> &CpuFeatures {
        &self.features
    }

    /// The region's bytes, for reading.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: the mapping is live, readable and `len` bytes long for `self`'s lifetime;
        // writers need `&mut self` (directly or through a MemView), so none run now.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// The region's bytes, for writing.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as for `as_slice`, and `&mut self` makes this the only access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: `ptr..ptr+map_len` is the mapping this Region created and still owns.
        unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.map_len) };
    }
}

fn check_range(offset: usize, len: usize, size: usize) -> Result<()> {
    match offset.checked_add(len) {
        Some(end) if end <= size => Ok(()),
        _ => Err(Error::OutOfBounds { offset, len, size }),
    }
}

#[cfg(test)]
mod tests;
