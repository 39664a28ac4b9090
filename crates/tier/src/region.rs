//! `Region`: a page-aligned mapping of N bytes on one tier, and `MemView`, the shared
//! handle through which threads read and write it.
//!
//! Creating a region checks the request against what the tier can hold, maps it (anonymous
//! DRAM, a file, or a device-DAX device), binds it to a NUMA node with `mbind` where the
//! spec names one, optionally asks for huge pages, prefaults it, and then *checks* where
//! the pages landed (`move_pages` query) and whether huge pages were granted: what
//! happened is reported in [`RegionInfo`], never assumed.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::marker::PhantomData;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::ptr::NonNull;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use crate::cpu::CpuFeatures;
use crate::error::{Error, Result};
use crate::persist::{self, Durability, PersistMode};
use crate::spec::TierSpec;
use crate::topology::Topology;

/// Base page size assumed for alignment and residency sampling.
pub const PAGE: usize = 4096;
/// Size of an x86-64 huge page (2 MiB).
pub const HUGE_PAGE: usize = 2 << 20;

// Linux constants, spelled out so they do not depend on the libc crate's target tables.
const MAP_SHARED_VALIDATE: libc::c_int = 0x03;
const MAP_SYNC: libc::c_int = 0x80000;
const MAP_HUGE_2MB: libc::c_int = 21 << 26;
const MADV_POPULATE_WRITE: libc::c_int = 23;
const MPOL_BIND: libc::c_long = 2;
const MPOL_MF_STRICT: libc::c_ulong = 1;
const MPOL_MF_MOVE: libc::c_ulong = 2;

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
    /// Bytes of the mapping backed by huge pages, from `/proc/self/smaps` (None: unknown).
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
    /// Kept open for the lifetime of the mapping (msync, metadata).
    _file: Option<File>,
}

// SAFETY: a Region owns its mapping exclusively; the raw pointer is only dereferenced
// through `MemView`s (whose creation borrows the Region mutably) or `&self` methods
// that read. Nothing in it is tied to the creating thread.
unsafe impl Send for Region {}
// SAFETY: `&Region` only allows reads of the mapping and `msync`/flush calls, which are
// thread-safe; writes go through `MemView`, created from `&mut Region`.
unsafe impl Sync for Region {}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// The number of bytes `spec` can hold for a new region right now: free memory of the
/// node (or `MemAvailable`), free space of the filesystem (plus the file's current size),
/// or the size of the devdax device. Errors if the node, path or device does not exist.
pub fn capacity(spec: &TierSpec) -> Result<u64> {
    match spec {
        TierSpec::Dram { node: None } => mem_available(),
        TierSpec::Dram { node: Some(n) } => {
            let topo = Topology::detect()?;
            node_capacity(&topo, *n)
        }
        TierSpec::File { path } => {
            let (dir, existing) = if path.is_dir() {
                (path.clone(), 0)
            } else {
                let parent = parent_dir(path);
                if !parent.is_dir() {
                    return Err(Error::NotFound(parent));
                }
                let existing = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
                (parent, existing)
            };
            Ok(fs_free_bytes(&dir)? + existing)
        }
        TierSpec::DevDax { path } => devdax_size(path),
    }
}

fn node_capacity(topo: &Topology, n: u32) -> Result<u64> {
    match topo.node(n) {
        Some(node) if node.mem_total > 0 => Ok(node.mem_free),
        _ => Err(Error::NoSuchNode {
            node: n,
            present: topo
                .memory_nodes()
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(","),
        }),
    }
}

fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn mem_available() -> Result<u64> {
    let path = Path::new("/proc/meminfo");
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    text.lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .ok_or_else(|| Error::Parse {
            path: path.into(),
            what: "MemAvailable",
            reason: "line missing or not a number".into(),
        })
}

fn fs_free_bytes(dir: &Path) -> Result<u64> {
    let c = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes())
        .map_err(|_| Error::Invalid(format!("{}: path contains a NUL byte", dir.display())))?;
    let mut st = std::mem::MaybeUninit::<libc::statvfs>::zeroed();
    // SAFETY: `c` is a valid NUL-terminated path and `st` points to writable storage of
    // the right type.
    let rc = unsafe { libc::statvfs(c.as_ptr(), st.as_mut_ptr()) };
    if rc != 0 {
        return Err(Error::io(dir, std::io::Error::last_os_error()));
    }
    // SAFETY: statvfs returned 0, so it initialised `st`.
    let st = unsafe { st.assume_init() };
    Ok(st.f_bavail * st.f_frsize)
}

/// Size of a device-DAX device, from sysfs (`/sys/bus/dax/devices/NAME/size`), falling
/// back to `/sys/dev/char/MAJ:MIN/size`.
fn devdax_size(path: &Path) -> Result<u64> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if !meta.file_type().is_char_device() {
        return Err(Error::Invalid(format!(
            "{}: not a character device, so not a devdax device (use file: for files)",
            path.display()
        )));
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let candidates = [
        PathBuf::from(format!("/sys/bus/dax/devices/{name}/size")),
        {
            use std::os::unix::fs::MetadataExt;
            let rdev = meta.rdev();
            PathBuf::from(format!(
                "/sys/dev/char/{}:{}/size",
                libc::major(rdev),
                libc::minor(rdev)
            ))
        },
    ];
    for c in &candidates {
        if let Ok(s) = std::fs::read_to_string(c) {
            return s.trim().parse::<u64>().map_err(|e| Error::Parse {
                path: c.clone(),
                what: "devdax size",
                reason: e.to_string(),
            });
        }
    }
    Err(Error::Invalid(format!(
        "{}: no devdax size in sysfs ({}), is it a device-DAX device?",
        path.display(),
        candidates[0].display()
    )))
}

/// Opens a device-DAX device read/write; a refusal names the device and what to do.
pub fn open_devdax(path: &Path) -> Result<File> {
    OpenOptions::new().read(true).write(true).open(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::PermissionDenied {
            Error::PermissionDenied {
                path: path.to_path_buf(),
                hint: "devdax needs read/write access to the device; run as root or grant the user access to it".into(),
            }
        } else {
            Error::io(path, e)
        }
    })
}

fn devdax_align(path: &Path) -> usize {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    std::fs::read_to_string(format!("/sys/bus/dax/devices/{name}/align"))
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
        .filter(|a| a.is_power_of_two())
        .unwrap_or(HUGE_PAGE)
}

fn round_up(v: usize, to: usize) -> usize {
    v.div_ceil(to) * to
}

impl Region {
    /// Maps `len` bytes on `spec` (see the module docs for every step).
    pub fn new(spec: &TierSpec, len: usize, opts: &RegionOptions) -> Result<Region> {
        if len == 0 {
            return Err(Error::Invalid("a region needs at least one byte".into()));
        }
        if let TierSpec::DevDax { path } = spec {
            open_devdax(path)?; // permission problems first: they say more than a size
        }
        let available = capacity(spec)?;
        if len as u64 > available {
            return Err(Error::TooLarge {
                tier: spec.to_string(),
                requested: len as u64,
                available,
            });
        }
        let features = CpuFeatures::detect();
        let mut warnings = Vec::new();
        let (ptr, map_len, file, path, durability, map_sync) = match spec {
            TierSpec::Dram { .. } => {
                let (ptr, map_len) = map_anonymous(len, opts.huge_pages)?;
                (ptr, map_len, None, None, Durability::Volatile, false)
            }
            TierSpec::File { path } => {
                let (file, path, temp) = open_file(path, len, opts)?;
                let dax = Topology::detect()
                    .ok()
                    .and_then(|t| t.dax_mount_for(&path).cloned());
                let map_len = round_up(len, PAGE);
                let mapped = map_file(&file, &path, map_len, dax.is_some());
                if let Some(t) = &temp {
                    // Mapped (or failed): the name is no longer needed; the mapping and
                    // the open descriptor keep the pages until the region is dropped.
                    let _ = std::fs::remove_file(t);
                }
                let ptr = mapped?;
                let durability = if dax.is_some() {
                    Durability::CacheFlush
                } else {
                    Durability::PageCache
                };
                if opts.huge_pages != HugePages::Off {
                    warnings.push("huge pages apply to dram tiers only; ignored for file:".into());
                }
                (
                    ptr,
                    map_len,
                    Some(file),
                    Some(path),
                    durability,
                    dax.is_some(),
                )
            }
            TierSpec::DevDax { path } => {
                let file = open_devdax(path)?;
                let map_len = round_up(len, devdax_align(path));
                if map_len as u64 > available {
                    return Err(Error::TooLarge {
                        tier: spec.to_string(),
                        requested: map_len as u64,
                        available,
                    });
                }
                let ptr = map_shared(&file, path, map_len, 0)?;
                (
                    ptr,
                    map_len,
                    Some(file),
                    Some(path.clone()),
                    Durability::CacheFlush,
                    false,
                )
            }
        };
        let mut region = Region {
            ptr,
            len,
            map_len,
            info: RegionInfo {
                spec: spec.clone(),
                len,
                mapped_len: map_len,
                durability,
                path,
                map_sync,
                huge_pages_requested: opts.huge_pages,
                huge_page_bytes: None,
                prefaulted: opts.prefault,
                residency: None,
                warnings,
            },
            features,
            flush: PersistMode::best_flush(&features),
            _file: file,
        };
        if let Some(node) = spec.node() {
            region.bind(node)?;
        }
        if opts.huge_pages == HugePages::Thp {
            // SAFETY: the range is exactly our own live anonymous mapping.
            let rc = unsafe {
                libc::madvise(
                    region.ptr.as_ptr().cast(),
                    region.map_len,
                    libc::MADV_HUGEPAGE,
                )
            };
            if rc != 0 {
                region.info.warnings.push(format!(
                    "madvise(MADV_HUGEPAGE) failed: {}",
                    std::io::Error::last_os_error()
                ));
            }
        }
        if opts.prefault {
            region.prefault();
        }
        region.info.huge_page_bytes = region.smaps_huge_bytes();
        if opts.huge_pages != HugePages::Off
            && opts.prefault
            && region.info.huge_page_bytes == Some(0)
        {
            region
                .info
                .warnings
                .push("huge pages were requested but none were granted".into());
        }
        if opts.prefault || spec.node().is_some() {
            match region.residency(1024) {
                Ok(r) => {
                    if let Some(node) = spec.node() {
                        let frac = r.fraction_on(node);
                        if opts.prefault && frac < 1.0 {
                            region.info.warnings.push(format!(
                                "only {:.1}% of sampled pages are on node {node}",
                                frac * 100.0
                            ));
                        }
                    }
                    region.info.residency = Some(r);
                }
                Err(e) => region
                    .info
                    .warnings
                    .push(format!("page residency not checked: {e}")),
            }
        }
        Ok(region)
    }

    /// Binds the whole mapping to `node` (`mbind(MPOL_BIND, MPOL_MF_STRICT|MPOL_MF_MOVE)`).
    fn bind(&mut self, node: u32) -> Result<()> {
        let words = node as usize / 64 + 1;
        let mut mask = vec![0 as libc::c_ulong; words];
        mask[node as usize / 64] |= 1 << (node % 64);
        // SAFETY: the address range is our own live mapping; `mask` holds `words * 64`
        // bits and we pass maxnode = bits + 1 as the kernel expects.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_mbind,
                self.ptr.as_ptr(),
                self.map_len,
                MPOL_BIND,
                mask.as_ptr(),
                (words * 64 + 1) as libc::c_ulong,
                MPOL_MF_STRICT | MPOL_MF_MOVE,
            )
        };
        if rc != 0 {
            return Err(Error::last_os("mbind"));
        }
        Ok(())
    }

    /// Faults every page in, writable, without changing its content.
    fn prefault(&mut self) {
        // SAFETY: the range is exactly our own live mapping.
        let rc =
            unsafe { libc::madvise(self.ptr.as_ptr().cast(), self.map_len, MADV_POPULATE_WRITE) };
        if rc == 0 {
            return;
        }
        // Older kernels: read and write back one byte per page.
        let base = self.ptr.as_ptr();
        for off in (0..self.map_len).step_by(PAGE) {
            // SAFETY: `off < map_len`, so the byte is inside our mapping; we hold `&mut self`.
            unsafe {
                let p = base.add(off);
                p.write_volatile(p.read_volatile());
            }
        }
    }

    /// Which NUMA nodes hold the region's pages: a `move_pages` query (no move) over up to
    /// `max_samples` evenly spaced pages.
    pub fn residency(&self, max_samples: usize) -> Result<Residency> {
        let pages = self.map_len / PAGE;
        let samples = pages.clamp(1, max_samples.max(1));
        let step = (pages / samples).max(1);
        let addrs: Vec<*mut libc::c_void> = (0..samples)
            .map(|i| (i * step * PAGE).min(self.map_len - 1))
            // SAFETY: every offset is below `map_len`, inside our mapping.
            .map(|off| unsafe { self.ptr.as_ptr().add(off & !(PAGE - 1)) }.cast())
            .collect();
        let mut status = vec![0 as libc::c_int; addrs.len()];
        // SAFETY: `addrs` and `status` both have `addrs.len()` elements; `nodes` is NULL,
        // which makes this a pure query.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_move_pages,
                0,
                addrs.len() as libc::c_ulong,
                addrs.as_ptr(),
                std::ptr::null::<libc::c_int>(),
                status.as_mut_ptr(),
                0,
            )
        };
        if rc < 0 {
            return Err(Error::last_os("move_pages"));
        }
        let mut r = Residency {
            pages_checked: addrs.len() as u64,
            ..Residency::default()
        };
        for s in status {
            if s >= 0 {
                *r.per_node.entry(s as u32).or_default() += 1;
            } else if s == -libc::ENOENT {
                r.not_present += 1;
            } else {
                r.unknown += 1;
            }
        }
        Ok(r)
    }

    /// Bytes of this mapping backed by huge pages, from `/proc/self/smaps`.
    fn smaps_huge_bytes(&self) -> Option<u64> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let start = format!("{:x}-", self.ptr.as_ptr() as usize);
        let mut lines = smaps.lines().skip_while(|l| !l.starts_with(&start));
        lines.next()?;
        let mut page_kb = 4;
        let mut anon_huge_kb = 0;
        let mut rss_kb = 0;
        for l in lines {
            if l.split_whitespace()
                .next()
                .is_some_and(|w| w.contains('-') && !w.ends_with(':'))
            {
                break;
            }
            let kb = |l: &str| {
                l.split_whitespace()
                    .nth(1)
                    .and_then(|v| v.parse::<u64>().ok())
                    .unwrap_or(0)
            };
            if l.starts_with("KernelPageSize:") {
                page_kb = kb(l);
            } else if l.starts_with("AnonHugePages:") || l.starts_with("FilePmdMapped:") {
                anon_huge_kb += kb(l);
            } else if l.starts_with("Rss:") {
                rss_kb = kb(l);
            }
        }
        Some(if page_kb >= 2048 {
            rss_kb * 1024
        } else {
            anon_huge_kb * 1024
        })
    }

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

    /// A copyable handle through which many threads can access the region at once.
    pub fn view(&mut self) -> MemView<'_> {
        MemView {
            ptr: self.ptr,
            len: self.len,
            features: self.features,
            _region: PhantomData,
        }
    }

    /// Writes `src` at `offset` and makes it durable the tier's way: non-temporal copy +
    /// `sfence` on DAX, copy + `msync` on page-cache files, a plain copy on DRAM.
    pub fn write_durable(&mut self, offset: usize, src: &[u8]) -> Result<()> {
        check_range(offset, src.len(), self.len)?;
        match self.info.durability {
            Durability::CacheFlush => {
                // SAFETY: the range was checked to lie in our mapping, which `&mut self`
                // owns exclusively and which cannot overlap `src` (a borrowed slice of
                // other memory: `src` cannot borrow from `self` while `self` is `&mut`).
                unsafe { persist::copy_nt(self.ptr.as_ptr().add(offset), src, self.flush) };
                persist::sfence();
                Ok(())
            }
            _ => {
                self.as_mut_slice()[offset..offset + src.len()].copy_from_slice(src);
                self.persist(offset, src.len())
            }
        }
    }

    /// Makes `offset..offset+len` durable: nothing on DRAM, `msync(MS_SYNC)` on page-cache
    /// files, cache-line flush (clwb > clflushopt > clflush) + `sfence` on DAX.
    pub fn persist(&self, offset: usize, len: usize) -> Result<()> {
        check_range(offset, len, self.len)?;
        match self.info.durability {
            Durability::Volatile => Ok(()),
            Durability::CacheFlush => {
                // SAFETY: the range was checked to lie in our live mapping and
                // `self.flush` was chosen from this CPU's features.
                unsafe { persist::flush_lines(self.flush, self.ptr.as_ptr().add(offset), len) };
                persist::sfence();
                Ok(())
            }
            Durability::PageCache => {
                let start = offset & !(PAGE - 1);
                let end = offset + len;
                // SAFETY: `start` is page aligned and `start..end` lies in our mapping.
                let rc = unsafe {
                    libc::msync(
                        self.ptr.as_ptr().add(start).cast(),
                        end - start,
                        libc::MS_SYNC,
                    )
                };
                if rc != 0 {
                    return Err(Error::last_os("msync"));
                }
                Ok(())
            }
        }
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

fn map_anonymous(len: usize, huge: HugePages) -> Result<(NonNull<u8>, usize)> {
    let (map_len, extra) = match huge {
        HugePages::Hugetlb => (round_up(len, HUGE_PAGE), libc::MAP_HUGETLB | MAP_HUGE_2MB),
        _ => (round_up(len, PAGE), 0),
    };
    // Ask for 2 MiB more than needed so THP can align the start to a huge page.
    let slack = if huge == HugePages::Thp { HUGE_PAGE } else { 0 };
    // SAFETY: anonymous private mapping with no address hint; the kernel picks the range.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            map_len + slack,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | extra,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        let e = std::io::Error::last_os_error();
        if huge == HugePages::Hugetlb {
            return Err(Error::Invalid(format!(
                "cannot map {map_len} bytes of 2 MiB huge pages ({e}); reserve them in /proc/sys/vm/nr_hugepages"
            )));
        }
        return Err(Error::Sys {
            op: "mmap",
            source: e,
        });
    }
    let mut base = p as usize;
    if slack > 0 {
        let aligned = round_up(base, HUGE_PAGE);
        let head = aligned - base;
        // SAFETY: we trim the unaligned head and the unused tail of our own fresh mapping.
        unsafe {
            if head > 0 {
                libc::munmap(p, head);
            }
            let tail = slack - head;
            if tail > 0 {
                libc::munmap((aligned + map_len) as *mut libc::c_void, tail);
            }
        }
        base = aligned;
    }
    NonNull::new(base as *mut u8)
        .map(|p| (p, map_len))
        .ok_or_else(|| Error::Invalid("mmap returned a null mapping".into()))
}

/// Opens (or creates) the file behind a `file:` tier and makes it at least `len` bytes.
/// A directory gets a fresh file of its own. Returns the file, its path, and the path to
/// unlink once mapped (a file this call created, unless `opts.keep_file`). An existing
/// file at a named path is refused unless `opts.existing` is [`ExistingFile::Use`].
fn open_file(
    path: &Path,
    len: usize,
    opts: &RegionOptions,
) -> Result<(File, PathBuf, Option<PathBuf>)> {
    let (path, fresh) = if path.is_dir() {
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let p = path.join(format!("pmolap-{}-{n}.region", std::process::id()));
        (p, true)
    } else {
        (path.to_path_buf(), false)
    };
    let exists = path.symlink_metadata().is_ok();
    if exists && !fresh && opts.existing == ExistingFile::Refuse {
        return Err(Error::Exists(path));
    }
    let mut oo = OpenOptions::new();
    oo.read(true).write(true);
    if !exists {
        oo.create_new(true);
    }
    let file = oo.open(&path).map_err(|e| Error::io(&path, e))?;
    let temp = (!exists && !opts.keep_file).then(|| path.clone());
    let current = file.metadata().map_err(|e| Error::io(&path, e))?.len();
    if current < len as u64 {
        // SAFETY: a valid open fd; posix_fallocate only reads its integer arguments.
        let rc = unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, len as libc::off_t) };
        if rc == libc::ENOSPC {
            if let Some(t) = &temp {
                let _ = std::fs::remove_file(t);
            }
            return Err(Error::TooLarge {
                tier: format!("file:{}", path.display()),
                requested: len as u64,
                available: fs_free_bytes(&parent_dir(&path)).unwrap_or(0) + current,
            });
        }
        if rc != 0 {
            if let Err(e) = file.set_len(len as u64) {
                if let Some(t) = &temp {
                    let _ = std::fs::remove_file(t);
                }
                return Err(Error::io(&path, e));
            }
        }
    }
    Ok((file, path, temp))
}

fn map_file(file: &File, path: &Path, map_len: usize, dax: bool) -> Result<NonNull<u8>> {
    if !dax {
        return map_shared(file, path, map_len, 0);
    }
    map_shared(file, path, map_len, MAP_SYNC).map_err(|e| match e {
        Error::Io { source, .. } if source.raw_os_error() == Some(libc::EOPNOTSUPP) => {
            Error::Invalid(format!(
                "{}: on a DAX mount but the kernel refused MAP_SYNC (not mapped, to avoid silently losing persistence)",
                path.display()
            ))
        }
        other => other,
    })
}

fn map_shared(file: &File, path: &Path, map_len: usize, extra: libc::c_int) -> Result<NonNull<u8>> {
    let flags = if extra & MAP_SYNC != 0 {
        MAP_SHARED_VALIDATE | extra
    } else {
        libc::MAP_SHARED | extra
    };
    // SAFETY: a shared mapping of an open fd with no address hint; the kernel picks
    // the range and validates the length against the file or device.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            map_len,
            libc::PROT_READ | libc::PROT_WRITE,
            flags,
            file.as_raw_fd(),
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(Error::Io {
            path: path.to_path_buf(),
            source: std::io::Error::last_os_error(),
        });
    }
    NonNull::new(p.cast::<u8>())
        .ok_or_else(|| Error::Invalid("mmap returned a null mapping".into()))
}

/// A shared, copyable handle to a region's bytes for concurrent access by many threads.
///
/// All accesses are bounds-checked. Threads must write disjoint byte ranges (pmolap's
/// benchmarks assign ranges so they do); bytes are only ever read through volatile or
/// SIMD loads, never as typed Rust references, so concurrent access cannot produce an
/// invalid value.
#[derive(Debug, Clone, Copy)]
pub struct MemView<'a> {
    ptr: NonNull<u8>,
    len: usize,
    features: CpuFeatures,
    _region: PhantomData<&'a mut Region>,
}

// SAFETY: a MemView is a bounds-checked pointer into a mapping that outlives it (the
// lifetime ties it to `&mut Region`); see the type docs for the access discipline.
unsafe impl Send for MemView<'_> {}
// SAFETY: as above; shared use only issues volatile/SIMD loads and stores.
unsafe impl Sync for MemView<'_> {}

impl MemView<'_> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The CPU features of the machine (decides which kernels may run).
    pub fn cpu_features(&self) -> &CpuFeatures {
        &self.features
    }

    /// Errors unless `offset..offset+len` lies inside the view.
    pub fn check(&self, offset: usize, len: usize) -> Result<()> {
        check_range(offset, len, self.len)
    }

    /// Raw pointer to `offset`; callers in this crate check the range first.
    pub(crate) fn ptr_at(&self, offset: usize) -> *mut u8 {
        debug_assert!(offset <= self.len);
        self.ptr.as_ptr().wrapping_add(offset)
    }

    /// Reads the aligned `u64` at `offset`.
    pub fn read_u64(&self, offset: usize) -> Result<u64> {
        self.check_u64(offset)?;
        // SAFETY: checked in bounds and 8-byte aligned (the mapping is page aligned).
        Ok(unsafe { self.ptr_at(offset).cast::<u64>().read_volatile() })
    }

    /// Writes the aligned `u64` at `offset`.
    pub fn write_u64(&self, offset: usize, value: u64) -> Result<()> {
        self.check_u64(offset)?;
        // SAFETY: checked in bounds and 8-byte aligned; see the type docs for races.
        unsafe { self.ptr_at(offset).cast::<u64>().write_volatile(value) };
        Ok(())
    }

    fn check_u64(&self, offset: usize) -> Result<()> {
        self.check(offset, 8)?;
        if !offset.is_multiple_of(8) {
            return Err(Error::Invalid(format!(
                "offset {offset} is not 8-byte aligned"
            )));
        }
        Ok(())
    }

    /// Follows a chain of `u64` byte offsets for `steps` hops from `start` (a pointer
    /// chase: every load depends on the previous one). Returns the final offset.
    pub fn chase(&self, start: u64, steps: u64) -> Result<u64> {
        let mut at = start;
        let limit = self.len.saturating_sub(7) as u64;
        for _ in 0..steps {
            if at >= limit || !at.is_multiple_of(8) {
                return Err(Error::OutOfBounds {
                    offset: at as usize,
                    len: 8,
                    size: self.len,
                });
            }
            // SAFETY: `at + 8 <= len` and `at` is 8-byte aligned, checked just above.
            at = unsafe {
                self.ptr
                    .as_ptr()
                    .add(at as usize)
                    .cast::<u64>()
                    .read_volatile()
            };
        }
        Ok(at)
    }

    /// Copies `src` into the view at `offset` with plain stores.
    pub fn copy_from(&self, offset: usize, src: &[u8]) -> Result<()> {
        self.check(offset, src.len())?;
        // SAFETY: the destination range is in bounds and cannot overlap `src`, a slice
        // of ordinary memory borrowed for the call.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), self.ptr_at(offset), src.len()) };
        Ok(())
    }

    /// Copies `dst.len()` bytes at `offset` out of the view.
    pub fn copy_to(&self, offset: usize, dst: &mut [u8]) -> Result<()> {
        self.check(offset, dst.len())?;
        // SAFETY: the source range is in bounds; `dst` is exclusively borrowed.
        unsafe { std::ptr::copy_nonoverlapping(self.ptr_at(offset), dst.as_mut_ptr(), dst.len()) };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> RegionOptions {
        RegionOptions {
            prefault: true,
            ..RegionOptions::default()
        }
    }

    #[test]
    fn dram_region_reads_back_and_reports_residency() {
        let mut r = Region::new(&TierSpec::Dram { node: None }, 1 << 20, &opts()).unwrap();
        r.as_mut_slice()[12345] = 42;
        assert_eq!(r.as_slice()[12345], 42);
        let res = r
            .info()
            .residency
            .clone()
            .expect("residency checked after prefault");
        assert_eq!(res.not_present, 0, "{res:?}");
        assert!(res.pages_checked > 0);
        r.persist(0, 100).unwrap();
        assert!(r.persist(1 << 20, 1).is_err());
    }

    #[test]
    fn binding_to_node_zero_lands_there() {
        let r = Region::new(&TierSpec::Dram { node: Some(0) }, 4 << 20, &opts()).unwrap();
        let res = r.info().residency.clone().unwrap();
        assert_eq!(res.fraction_on(0), 1.0, "{res:?}");
        assert!(r.info().warnings.is_empty(), "{:?}", r.info().warnings);
    }

    #[test]
    fn missing_node_is_an_error() {
        let e = Region::new(&TierSpec::Dram { node: Some(4000) }, 4096, &opts()).unwrap_err();
        assert!(matches!(e, Error::NoSuchNode { node: 4000, .. }), "{e}");
    }

    #[test]
    fn too_large_is_an_error() {
        let e = Region::new(&TierSpec::Dram { node: None }, usize::MAX / 2, &opts()).unwrap_err();
        assert!(matches!(e, Error::TooLarge { .. }), "{e}");
    }

    #[test]
    fn file_region_persists_with_msync_and_keeps_data() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data");
        let spec = TierSpec::File { path: path.clone() };
        let keep = RegionOptions {
            keep_file: true,
            ..opts()
        };
        {
            let mut r = Region::new(&spec, 10_000, &keep).unwrap();
            assert_eq!(r.durability(), Durability::PageCache);
            r.view().copy_from(9000, b"hello").unwrap();
            r.persist(9000, 5).unwrap();
        }
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[9000..9005], b"hello");
        let e = Region::new(&spec, 10_000, &opts()).unwrap_err();
        assert!(
            matches!(e, Error::Exists(_)),
            "an existing file is refused: {e}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "and left untouched");
        let use_it = RegionOptions {
            existing: ExistingFile::Use,
            ..opts()
        };
        let r = Region::new(&spec, 10_000, &use_it).unwrap();
        assert_eq!(
            &r.as_slice()[9000..9005],
            b"hello",
            "reopening keeps the content"
        );
        drop(r);
        assert!(path.exists(), "a file that was there is never removed");
    }

    #[test]
    fn new_named_file_is_scratch_unless_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("scratch");
        let r = Region::new(&TierSpec::File { path: path.clone() }, 8192, &opts()).unwrap();
        assert!(!path.exists(), "unlinked as soon as mapped");
        drop(r);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn durable_writes_reach_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d");
        let keep = RegionOptions {
            keep_file: true,
            ..opts()
        };
        let mut r = Region::new(&TierSpec::File { path: path.clone() }, 8192, &keep).unwrap();
        r.write_durable(4000, b"durable bytes").unwrap();
        assert!(r.write_durable(8190, b"xyz").is_err());
        assert_eq!(&std::fs::read(&path).unwrap()[4000..4013], b"durable bytes");
        let mut d = Region::new(&TierSpec::Dram { node: None }, 8192, &opts()).unwrap();
        d.write_durable(1, b"abc").unwrap();
        assert_eq!(&d.as_slice()[1..4], b"abc");
    }

    #[test]
    fn file_in_directory_is_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let spec = TierSpec::File {
            path: dir.path().to_path_buf(),
        };
        let r = Region::new(&spec, 8192, &opts()).unwrap();
        let p = r.info().path.clone().unwrap();
        assert!(p.starts_with(dir.path()));
        assert!(
            !p.exists(),
            "unlinked once mapped: nothing left on any exit path"
        );
        drop(r);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn missing_directory_and_devdax_are_errors() {
        let e = Region::new(
            &TierSpec::File {
                path: "/nonexistent-dir/x".into(),
            },
            4096,
            &opts(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("/nonexistent-dir"), "{e}");
        let e = Region::new(
            &TierSpec::DevDax {
                path: "/dev/dax99.9".into(),
            },
            4096,
            &opts(),
        )
        .unwrap_err();
        assert!(matches!(e, Error::NotFound(_)), "{e}");
        let e = Region::new(
            &TierSpec::DevDax {
                path: "/dev/null".into(),
            },
            4096,
            &opts(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("devdax"), "{e}");
    }

    #[test]
    fn view_bounds_and_chase() {
        let mut r = Region::new(&TierSpec::Dram { node: None }, 4096, &opts()).unwrap();
        let v = r.view();
        // ring 0 -> 64 -> 128 -> 0
        v.write_u64(0, 64).unwrap();
        v.write_u64(64, 128).unwrap();
        v.write_u64(128, 0).unwrap();
        assert_eq!(v.chase(0, 3).unwrap(), 0);
        assert_eq!(v.chase(0, 2).unwrap(), 128);
        assert!(v.read_u64(4096).is_err());
        assert!(v.read_u64(3).is_err());
        v.write_u64(0, 1 << 40).unwrap();
        assert!(v.chase(0, 2).is_err());
    }
}
