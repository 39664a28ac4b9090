//! `ReadOnlyRegion`: an existing file mapped for reading only (`PROT_READ`, `MAP_SHARED`,
//! the file opened `O_RDONLY`) and prefaulted with `MADV_POPULATE_READ`, so reading it
//! never dirties a page, changes its mtime or writes anything back.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::ptr::NonNull;

use super::capacity::round_up;
use super::mapping::Mapping;
use super::*;

/// A file mapped for reading only. Unlike [`Region`] it has no way to write: no
/// `as_mut_slice`, no [`MemView`], no persist.
#[derive(Debug)]
pub struct ReadOnlyRegion {
    /// Mapped `PROT_READ`; never handed out, so nothing can ask it for a write.
    region: Region,
}

impl ReadOnlyRegion {
    /// Maps the first `len` bytes of the existing file `path` for reading. `opts`:
    /// `prefault` faults every page in for reading; huge pages do not apply (a warning
    /// says so); `keep_file` and `existing` do not apply (the file is never created,
    /// resized or removed).
    pub fn open(path: &Path, len: usize, opts: &RegionOptions) -> Result<ReadOnlyRegion> {
        if len == 0 {
            return Err(Error::Invalid("a region needs at least one byte".into()));
        }
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let file_len = file.metadata().map_err(|e| Error::io(path, e))?.len();
        if len as u64 > file_len {
            return Err(Error::Invalid(format!(
                "{}: {file_len} bytes, cannot map {len} of them",
                path.display()
            )));
        }
        let map_len = round_up(len, PAGE);
        // SAFETY: a read-only shared mapping of an fd opened for reading, no address
        // hint; the kernel picks the range. Pages past the end of the file inside the
        // last page read as zeros; `len <= file_len` keeps every other page in the file.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ,
                libc::MAP_SHARED,
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
        let ptr = NonNull::new(p.cast::<u8>())
            .ok_or_else(|| Error::Invalid("mmap returned a null mapping".into()))?;
        let dax = Topology::cached()
            .ok()
            .and_then(|t| t.dax_mount_for(path).cloned())
            .is_some();
        let mut warnings = Vec::new();
        if opts.huge_pages != HugePages::Off {
            warnings.push("huge pages apply to dram tiers only; ignored for file:".into());
        }
        let spec = TierSpec::File {
            path: path.to_path_buf(),
        };
        let mapping = Mapping {
            ptr,
            map_len,
            file: Some(file),
            path: Some(path.to_path_buf()),
            durability: if dax {
                Durability::CacheFlush
            } else {
                Durability::PageCache
            },
            map_sync: false,
        };
        let mut region = Region::assemble(&spec, len, mapping, opts, warnings, false);
        let opts = RegionOptions {
            huge_pages: HugePages::Off,
            ..opts.clone()
        };
        region.settle(&spec, &opts)?;
        Ok(ReadOnlyRegion { region })
    }

    /// The mapped bytes.
    pub fn as_slice(&self) -> &[u8] {
        self.region.as_slice()
    }

    pub fn len(&self) -> usize {
        self.region.len()
    }

    pub fn is_empty(&self) -> bool {
        self.region.is_empty()
    }

    /// What the mapping is and what happened when it was made.
    pub fn info(&self) -> &RegionInfo {
        &self.region.info
    }

    /// Unmaps the file's pages from this process's page tables (`MADV_DONTNEED`), the
    /// mapping kept: the bytes read the same, the next touch of a page faults it in
    /// again from the page cache or the file. What lets the page cache then drop pages
    /// the mapping had touched (`POSIX_FADV_DONTNEED` skips mapped pages): a cold
    /// measurement after an open that read some of the file through the mapping.
    pub fn release_pages(&self) {
        let bytes = self.region.as_slice();
        // SAFETY: the range is this region's own live mapping (its start is page
        // aligned, its length rounded up to whole pages inside the mapping); it is a
        // read-only MAP_SHARED mapping of a file, for which MADV_DONTNEED only drops
        // page-table entries: later reads see the file's unchanged contents again, so
        // slices borrowed from it stay valid and their contents unchanged.
        unsafe {
            libc::madvise(
                bytes.as_ptr() as *mut libc::c_void,
                round_up(bytes.len(), PAGE),
                libc::MADV_DONTNEED,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `path`'s first `len` bytes mapped read-only, every page faulted in.
    fn open_prefaulted(path: &Path, len: usize) -> ReadOnlyRegion {
        let opts = RegionOptions {
            prefault: true,
            ..RegionOptions::default()
        };
        ReadOnlyRegion::open(path, len, &opts).unwrap()
    }

    /// The mapping of `path` in /proc/self/maps: its permission field.
    fn perms_of(path: &Path) -> Vec<String> {
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
        let want = path.to_str().unwrap();
        maps.lines()
            .filter(|l| l.ends_with(want))
            .map(|l| l.split_whitespace().nth(1).unwrap().to_string())
            .collect()
    }

    #[test]
    fn a_read_only_mapping_reads_the_file_and_is_not_writable() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data");
        let bytes: Vec<u8> = (0..3 * PAGE + 100).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1 << 30);
        File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(old)
            .unwrap();
        let r = open_prefaulted(&path, bytes.len());
        assert_eq!(r.as_slice(), &bytes[..]);
        assert_eq!(perms_of(&path), vec!["r--s".to_string()]);
        assert!(r.info().prefaulted);
        drop(r);
        assert_eq!(std::fs::metadata(&path).unwrap().modified().unwrap(), old);
        assert_eq!(std::fs::read(&path).unwrap(), bytes);
    }

    /// Pages of `path` in the page cache (`mincore` over a fresh mapping of the file).
    fn cached_pages(path: &Path) -> usize {
        let out = std::process::Command::new("fincore")
            .args(["-b", "-n", "-o", "RES"])
            .arg(path)
            .output();
        match out {
            Ok(o) if o.status.success() => {
                String::from_utf8_lossy(&o.stdout)
                    .trim()
                    .parse::<usize>()
                    .unwrap_or(0)
                    / PAGE
            }
            _ => usize::MAX,
        }
    }

    #[test]
    fn released_pages_read_the_same_and_can_be_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data");
        let bytes: Vec<u8> = (0..8 * PAGE).map(|i| (i % 253) as u8).collect();
        {
            let mut f = File::create(&path).unwrap();
            std::io::Write::write_all(&mut f, &bytes).unwrap();
            f.sync_all().unwrap();
        }
        let r = open_prefaulted(&path, bytes.len());
        assert_eq!(r.as_slice(), &bytes[..]);
        let f = File::open(&path).unwrap();
        // Mapped pages survive a drop; released ones do not.
        crate::io::fadvise(&f, &path, crate::io::Advice::DontNeed).unwrap();
        let mapped = cached_pages(&path);
        r.release_pages();
        crate::io::fadvise(&f, &path, crate::io::Advice::DontNeed).unwrap();
        let released = cached_pages(&path);
        let fs = Topology::cached()
            .ok()
            .and_then(|t| t.filesystem_for(dir.path()).map(|f| f.fs_type.clone()));
        match fs.as_deref() {
            // No backing store: the page cache is the file, nothing is ever dropped.
            Some("tmpfs" | "ramfs") | None => eprintln!("skipped: {fs:?} keeps its pages"),
            _ if mapped == usize::MAX => eprintln!("skipped: no fincore"),
            _ => {
                assert_eq!(mapped, 8, "mapped pages stay through a drop");
                assert_eq!(released, 0, "released pages drop");
            }
        }
        assert_eq!(r.as_slice(), &bytes[..], "released pages read the same");
    }

    #[test]
    fn a_read_only_mapping_is_refused_past_the_end_or_empty() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data");
        std::fs::write(&path, [1u8; 10]).unwrap();
        let o = RegionOptions::default();
        assert!(ReadOnlyRegion::open(&path, 11, &o).is_err());
        assert!(ReadOnlyRegion::open(&path, 0, &o).is_err());
        assert!(ReadOnlyRegion::open(&dir.path().join("none"), 1, &o).is_err());
    }
}
