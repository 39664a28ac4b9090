//! Creating a region: checking the request, mapping anonymous memory, a file or a
//! device-DAX device, binding it to a NUMA node, prefaulting it, and checking what the
//! kernel granted.

use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};

use super::capacity::{capacity, devdax_align, fs_free_bytes, open_devdax, parent_dir, round_up};
use super::*;

// Linux constants, spelled out so they do not depend on the libc crate's target tables.
const MAP_SHARED_VALIDATE: libc::c_int = 0x03;
const MAP_SYNC: libc::c_int = 0x80000;
const MAP_HUGE_2MB: libc::c_int = 21 << 26;
const MADV_POPULATE_WRITE: libc::c_int = 23;
const MPOL_BIND: libc::c_long = 2;
const MPOL_MF_STRICT: libc::c_ulong = 1;
const MPOL_MF_MOVE: libc::c_ulong = 2;

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);
/// A `file:DIR` region's file is `DIR/pmolap-<pid>-<n>.region`.
const TEMP_PREFIX: &str = "pmolap-";
const TEMP_SUFFIX: &str = ".region";
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
        let mut warnings = Vec::new();
        let mapping = map(spec, len, opts, available, &mut warnings)?;
        let mut region = Region::assemble(spec, len, mapping, opts, warnings, true);
        region.settle(spec, opts)?;
        Ok(region)
    }

    /// A region of `mapping` (`len` bytes of `spec`, `writable` or `PROT_READ` only), its
    /// info recording `opts` and `warnings`; not yet settled.
    pub(super) fn assemble(
        spec: &TierSpec,
        len: usize,
        mapping: Mapping,
        opts: &RegionOptions,
        warnings: Vec<String>,
        writable: bool,
    ) -> Region {
        let features = CpuFeatures::detect();
        let Mapping {
            ptr,
            map_len,
            file,
            path,
            durability,
            map_sync,
        } = mapping;
        // The mapping holds the file (msync needs no descriptor): closing it now keeps a
        // database of hundreds of column files within any open-files limit.
        drop(file);
        Region {
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
            writable,
        }
    }

    /// After mapping: binds the region to its node, asks for transparent huge pages,
    /// prefaults it, and records the huge pages granted and where the pages are.
    pub(super) fn settle(&mut self, spec: &TierSpec, opts: &RegionOptions) -> Result<()> {
        let region = self;
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
        if opts.huge_page_census {
            region.info.huge_page_bytes = region.smaps_huge_bytes();
        }
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
        Ok(())
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

    /// Faults every page in without changing its content: writable for a writable
    /// mapping (`MADV_POPULATE_WRITE`), for reading only for a read-only one
    /// (`MADV_POPULATE_READ`, which dirties nothing).
    fn prefault(&mut self) {
        if !self.writable {
            // SAFETY: the range is exactly our own live mapping, readable for `map_len`
            // bytes (whole pages of the file, the last one zero-filled past its end).
            let all = unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.map_len) };
            crate::io::prefault_read(all);
            return;
        }
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
}

/// A new mapping of a region's tier, before it becomes a [`Region`].
pub(super) struct Mapping {
    pub(super) ptr: NonNull<u8>,
    pub(super) map_len: usize,
    pub(super) file: Option<File>,
    pub(super) path: Option<PathBuf>,
    pub(super) durability: Durability,
    pub(super) map_sync: bool,
}

/// Maps `len` bytes of `spec` (`available` bytes there), noting in `warnings` what was
/// asked and does not apply.
fn map(
    spec: &TierSpec,
    len: usize,
    opts: &RegionOptions,
    available: u64,
    warnings: &mut Vec<String>,
) -> Result<Mapping> {
    let (ptr, map_len, file, path, durability, map_sync) = match spec {
        TierSpec::Dram { .. } => {
            let (ptr, map_len) = map_anonymous(len, opts.huge_pages)?;
            (ptr, map_len, None, None, Durability::Volatile, false)
        }
        TierSpec::File { path } => {
            let (file, path, temp) = open_file(path, len, opts)?;
            let dax = Topology::cached()
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
    Ok(Mapping {
        ptr,
        map_len,
        file,
        path,
        durability,
        map_sync,
    })
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
        // Region files are named after their process: those a killed run left here
        // (between creating and unlinking one, or kept) go at the first region here.
        crate::owner::sweep_dead_once(path, TEMP_PREFIX, TEMP_SUFFIX);
        if !opts.keep_file {
            // An unnamed file in the directory (O_TMPFILE): nothing to remove on any exit
            // path, not even between creating and mapping it. Filesystems without
            // O_TMPFILE get a named file, unlinked once mapped.
            use std::os::unix::fs::OpenOptionsExt;
            if let Ok(file) = OpenOptions::new()
                .read(true)
                .write(true)
                .mode(0o600)
                .custom_flags(libc::O_TMPFILE)
                .open(path)
            {
                size_file(&file, path, len, None)?;
                return Ok((file, path.join("(unnamed O_TMPFILE)"), None));
            }
        }
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let p = path.join(format!(
            "{TEMP_PREFIX}{}-{n}{TEMP_SUFFIX}",
            std::process::id()
        ));
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
    size_file(&file, &path, len, temp.as_deref())?;
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

/// Makes `file` (at `path`, for messages) at least `len` bytes with its blocks allocated
/// (`posix_fallocate`, so a full filesystem fails here, not with SIGBUS later); on
/// failure removes `temp`, the name of a file this call's caller created.
fn size_file(file: &File, path: &Path, len: usize, temp: Option<&Path>) -> Result<()> {
    let current = file.metadata().map_err(|e| Error::io(path, e))?.len();
    if current < len as u64 {
        // SAFETY: a valid open fd; posix_fallocate only reads its integer arguments.
        let rc = unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, len as libc::off_t) };
        if rc == libc::ENOSPC {
            if let Some(t) = temp {
                let _ = std::fs::remove_file(t);
            }
            return Err(Error::TooLarge {
                tier: format!("file:{}", path.display()),
                requested: len as u64,
                available: fs_free_bytes(&parent_dir(path)).unwrap_or(0) + current,
            });
        }
        if rc != 0 {
            if let Err(e) = file.set_len(len as u64) {
                if let Some(t) = temp {
                    let _ = std::fs::remove_file(t);
                }
                return Err(Error::io(path, e));
            }
        }
    }
    Ok(())
}
