//! `Structure`: one structure file of a table brought onto its tier — mapped zero-copy
//! and read-only from the table directory, or copied into a fresh region on another
//! tier — with its header checked, its checksum verified, and its access counters.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Once};

use pmolap_tier::region::RegionInfo;
use pmolap_tier::{ReadOnlyRegion, Region, RegionOptions, TierSpec};
use serde::Serialize;

use crate::counters::Counters;
use crate::error::{Error, Result};
use crate::format::{FileEntry, Header, HEADER_USED, PAYLOAD_OFFSET};

/// Where an open structure lives and how it got there.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StructureInfo {
    /// The table file the structure came from.
    pub file: PathBuf,
    /// Whole file size in bytes (header page + payload).
    pub file_bytes: u64,
    /// Payload bytes.
    pub payload_bytes: u64,
    /// The tier its bytes are on now.
    pub tier: String,
    /// Mapped straight from the table file (true) or copied onto `tier` (false).
    pub zero_copy: bool,
    /// The backing file of the region (the table file, a temp file, a device), if any.
    pub region_path: Option<PathBuf>,
    /// How stores to it are made durable (`none (volatile)`, `msync`, cache-line flush).
    pub durability: String,
    pub map_sync: bool,
}

/// A structure's bytes: its file mapped for reading only (reading a database never
/// writes it), or a copy on another tier.
#[derive(Debug)]
enum Bytes {
    Mapped(ReadOnlyRegion),
    Copy(Region),
}

impl Bytes {
    fn as_slice(&self) -> &[u8] {
        match self {
            Bytes::Mapped(r) => r.as_slice(),
            Bytes::Copy(r) => r.as_slice(),
        }
    }

    fn info(&self) -> &RegionInfo {
        match self {
            Bytes::Mapped(r) => r.info(),
            Bytes::Copy(r) => r.info(),
        }
    }
}

/// One opened structure file.
#[derive(Debug)]
pub(crate) struct Structure {
    region: Bytes,
    pub(crate) header: Header,
    pub(crate) info: StructureInfo,
    pub(crate) counters: Counters,
    /// The pages counted runs touched ([`crate::pagelog`]).
    pub(crate) pages: crate::pagelog::PageLog,
    counting: Arc<AtomicBool>,
    /// A lazily opened structure mapped in place whose prefault waits for its first use
    /// ([`Structure::fault_in`]); None: prefaulted at open, or not asked to be.
    fault_in: Option<Once>,
}

/// How to map when opening a structure (its payload checksum is checked later, by
/// [`Structure::check_payload`], on the first use of its column).
pub(crate) struct OpenCtx<'a> {
    pub region: &'a RegionOptions,
    pub counting: Arc<AtomicBool>,
    /// Opened on its column's first use (a lazy table): a structure mapped in place is
    /// not prefaulted at open but on its own first use (when `region.prefault`), so a use
    /// of a column's dictionary alone never faults in its data vector.
    pub lazy: bool,
    /// The structure's checks run on its first use (the table verifies): reading every
    /// payload byte (in parallel parts for big payloads), they fault its pages in, so a
    /// lazily opened structure needs no prefault pass of its own.
    pub verified: bool,
}

impl Structure {
    /// Opens `path` (listed in the manifest as `entry`), either mapped in place
    /// (`target` None) or copied onto `target`. Checks everything the header and the
    /// manifest say about the file before any of its payload is trusted.
    pub(crate) fn open(
        path: &Path,
        entry: &FileEntry,
        kind_code: u32,
        column: u32,
        generation: u64,
        target: Option<&TierSpec>,
        ctx: &OpenCtx<'_>,
    ) -> Result<Structure> {
        let mut file = File::open(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                Error::corrupt(path, "listed in the manifest but missing (table damaged)")
            }
            _ => Error::io(path, e),
        })?;
        let file_len = file.metadata().map_err(|e| Error::io(path, e))?.len();
        let mut head = [0u8; HEADER_USED];
        let got = read_up_to(&mut file, &mut head).map_err(|e| Error::io(path, e))?;
        let header = Header::decode(path, &head[..got], file_len)?;
        let bad = |p: String| Error::corrupt(path, p);
        if header.kind_code != kind_code {
            return Err(bad(format!(
                "structure kind {}, the manifest expects kind {kind_code}",
                header.kind_code
            )));
        }
        if header.column != column || header.generation != generation {
            return Err(bad(format!(
                "belongs to column {} of generation {}, the manifest expects column {column} of generation {generation}",
                header.column, header.generation
            )));
        }
        if file_len != entry.size {
            return Err(bad(format!(
                "{file_len} bytes, the manifest says {}",
                entry.size
            )));
        }
        if header.payload_crc != entry.crc32 {
            return Err(bad(format!(
                "checksum {:08x} differs from the manifest's {:08x} (file from another table?)",
                header.payload_crc, entry.crc32
            )));
        }
        let len = file_len as usize;
        let defer = target.is_none() && ctx.lazy && ctx.region.prefault;
        let (region, zero_copy) = match target {
            None if defer => {
                let opts = RegionOptions {
                    prefault: false,
                    ..ctx.region.clone()
                };
                (Bytes::Mapped(ReadOnlyRegion::open(path, len, &opts)?), true)
            }
            None => (
                Bytes::Mapped(ReadOnlyRegion::open(path, len, ctx.region)?),
                true,
            ),
            Some(spec) => {
                let mut r = Region::new(spec, len, ctx.region)?;
                let dst = r.as_mut_slice();
                dst[..got].copy_from_slice(&head[..got]);
                file.read_exact(&mut dst[got..])
                    .map_err(|e| Error::io(path, e))?;
                (Bytes::Copy(r), false)
            }
        };
        let ri = region.info();
        let info = StructureInfo {
            file: path.to_path_buf(),
            file_bytes: file_len,
            payload_bytes: header.payload_len,
            tier: ri.spec.to_string(),
            zero_copy,
            region_path: ri.path.clone(),
            durability: ri.durability.to_string(),
            map_sync: ri.map_sync,
        };
        Ok(Structure {
            region,
            header,
            info,
            counters: Counters::default(),
            pages: crate::pagelog::PageLog::default(),
            counting: ctx.counting.clone(),
            fault_in: (defer && !ctx.verified).then(Once::new),
        })
    }

    /// Faults every page in for reading, once, when the open left that to the first use
    /// and no check will read the payload ([`OpenCtx::lazy`]); nothing otherwise.
    pub(crate) fn fault_in(&self) {
        if let Some(once) = &self.fault_in {
            once.call_once(|| pmolap_tier::io::prefault_read(self.region.as_slice()));
        }
    }

    /// Computes the payload checksum and fails unless it is the header's (which open
    /// checked against the manifest's). Reads every payload byte: run once, on the first
    /// use of the structure's column (crc32fast over parts in parallel for big payloads).
    pub(crate) fn check_payload(&self) -> Result<()> {
        self.check_crc(parallel_crc(self.payload()))
    }

    /// Fails unless `computed`, the checksum of the payload, is the header's.
    pub(crate) fn check_crc(&self, computed: u32) -> Result<()> {
        if computed != self.header.payload_crc {
            return Err(self.corrupt(format!(
                "payload checksum mismatch (stored {:08x}, computed {computed:08x}): data damaged",
                self.header.payload_crc
            )));
        }
        Ok(())
    }

    /// Unmaps a structure mapped from its file from this process's page tables (a copy:
    /// nothing), so the page cache can drop what reading it brought in
    /// ([`pmolap_tier::ReadOnlyRegion::release_pages`]).
    pub(crate) fn release_pages(&self) {
        if let Bytes::Mapped(r) = &self.region {
            r.release_pages();
        }
    }

    /// The whole mapping, and whether it is the file mapped in place (else a copy): for
    /// a census of the frames that hold it ([`pmolap_tier::frames`]).
    pub(crate) fn mapping(&self) -> (bool, &[u8]) {
        (
            matches!(self.region, Bytes::Mapped(_)),
            self.region.as_slice(),
        )
    }

    /// The payload bytes.
    #[inline]
    pub(crate) fn payload(&self) -> &[u8] {
        &self.region.as_slice()[PAYLOAD_OFFSET..]
    }

    /// Whether access counting is on for the table.
    #[inline]
    pub(crate) fn counting(&self) -> bool {
        self.counting.load(Ordering::Relaxed)
    }

    /// Adds accesses counted by a caller (nothing when counting is off).
    pub(crate) fn record(&self, c: &crate::AccessCounts) {
        if self.counting() {
            self.counters.add(c);
        }
    }

    /// Records (when counting) that the store's own accessors read payload bytes
    /// `lo .. hi` during planning ([`crate::pagelog::PLAN_STEP`]).
    pub(crate) fn record_bytes(&self, lo: u64, hi: u64) {
        if hi > lo && self.counting() && crate::pagelog::recording() {
            self.record_bytes_uncounted(lo, hi);
        }
    }

    /// [`Structure::record_bytes`] without checking the counting flag.
    pub(crate) fn record_bytes_uncounted(&self, lo: u64, hi: u64) {
        use crate::pagelog::{page_of, PLAN_STEP};
        let off = crate::format::PAYLOAD_OFFSET as u64;
        let (a, b) = (page_of(off, lo), page_of(off, hi - 1));
        self.pages.add_run(PLAN_STEP, a, b - a + 1);
    }

    /// Records (when counting) the planning reads of `entries` (payload
    /// bit offsets `i · bits_per_entry`); one lock per call.
    pub(crate) fn record_entries(&self, entries: impl Iterator<Item = u64>, bits_per_entry: u64) {
        if !self.counting() || !crate::pagelog::recording() {
            return;
        }
        let off = crate::format::PAYLOAD_OFFSET as u64;
        let mut bits = Vec::new();
        for i in entries {
            let p = crate::pagelog::page_of(off, i * bits_per_entry / 8);
            crate::pagelog::set_run(&mut bits, p, 1);
        }
        if !bits.is_empty() {
            self.pages.add_bits(crate::pagelog::PLAN_STEP, &bits);
        }
    }

    /// The file's pages ([`crate::pagelog::PAGE_BYTES`] each).
    pub(crate) fn file_pages(&self) -> u64 {
        self.info.file_bytes.div_ceil(crate::pagelog::PAGE_BYTES)
    }

    pub(crate) fn corrupt(&self, problem: impl Into<String>) -> Error {
        Error::corrupt(&self.info.file, problem)
    }
}

/// The CPUs this process may use, read once (`available_parallelism` reads the cgroup
/// files on every call).
pub(crate) fn cpus() -> usize {
    static CPUS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CPUS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// CRC-32 (IEEE) of `bytes`: in one piece when small, else parts of at least
/// [`PART`] bytes hashed on scoped threads (up to the CPUs available) and combined.
fn parallel_crc(bytes: &[u8]) -> u32 {
    const PART: usize = 16 << 20;
    let threads = cpus().min(bytes.len() / PART);
    if threads <= 1 {
        return crc32fast::hash(bytes);
    }
    let chunk = bytes.len().div_ceil(threads);
    let parts: Vec<crc32fast::Hasher> = std::thread::scope(|sc| {
        let handles: Vec<_> = bytes
            .chunks(chunk)
            .map(|c| {
                sc.spawn(move || {
                    let mut h = crc32fast::Hasher::new();
                    h.update(c);
                    h
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let mut all = crc32fast::Hasher::new();
    for p in &parts {
        all.combine(p);
    }
    all.finalize()
}

fn read_up_to(f: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// Casts a payload slice to `&[T]`; open-time validation guarantees alignment (the
/// payload starts on a page) and length, so a failure here means a bug, reported as an
/// empty slice (and a later bounds-check panic) rather than undefined behaviour.
#[inline]
pub(crate) fn cast<T: bytemuck::Pod>(bytes: &[u8]) -> &[T] {
    bytemuck::try_cast_slice(bytes).unwrap_or(&[])
}

/// As [`cast`], reporting a failure as a corruption error (used while validating).
pub(crate) fn try_cast<'a, T: bytemuck::Pod>(s: &Structure, bytes: &'a [u8]) -> Result<&'a [T]> {
    bytemuck::try_cast_slice(bytes).map_err(|e| {
        s.corrupt(format!(
            "payload of {} bytes cannot be read as {}-byte entries: {e:?}",
            bytes.len(),
            std::mem::size_of::<T>()
        ))
    })
}
