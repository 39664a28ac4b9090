//! A Dash table's file: its lock (one writer, or readers; docs/formats.md "Locks") and
//! the private copy a check reads, so that checking never writes the file.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;

use pmolap_os::{FileLock, LockMode};
use pmolap_tier::TierSpec;

use super::layout::MAGIC;
use super::mem::Mem;
use super::table::Dash;
use crate::error::{Error, Result};

/// `<path>.lock`, the table's lock file: exclusive while a process writes the table
/// (`hash build`, [`Dash::open`]), shared while one reads it ([`Dash::open_copy`]).
pub fn lock_path(path: &Path) -> PathBuf {
    let mut s: OsString = path.as_os_str().to_owned();
    s.push(".lock");
    PathBuf::from(s)
}

/// Whether the file at `path` starts with the Dash magic.
fn has_magic(path: &Path) -> bool {
    let mut b = [0u8; 8];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut b))
        .is_ok_and(|()| u64::from_le_bytes(b) == MAGIC)
}

/// Takes the lock of the table at `path` (which must exist). A file that is not a table
/// and has no lock file is refused as such, without leaving a lock file beside it.
pub(crate) fn lock_existing(path: &Path, mode: LockMode) -> Result<Option<FileLock>> {
    std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    let lp = lock_path(path);
    if !lp.exists() && !has_magic(path) {
        return Err(Error::NotDash {
            path: path.to_path_buf(),
        });
    }
    lock(path, mode)
}

/// Takes the lock of the table at `path`; a reader of a location it may not write reads
/// unlocked (no writer can change it there either).
pub(crate) fn lock(path: &Path, mode: LockMode) -> Result<Option<FileLock>> {
    let what = format!("Dash table {}", path.display());
    let lp = lock_path(path);
    match mode {
        LockMode::Shared => Ok(FileLock::acquire_or_read_only(&lp, mode, &what)?),
        LockMode::Exclusive => Ok(Some(FileLock::acquire(&lp, mode, &what)?)),
    }
}

/// The lock a new table at `spec` needs: a named file (`file:PATH`) is locked before it
/// is created; a scratch file in `file:DIR`, DRAM and devdax are not.
pub(crate) fn lock_new(spec: &TierSpec) -> Result<Option<FileLock>> {
    match spec {
        TierSpec::File { path } if !path.is_dir() => {
            let parent = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            if !parent.is_dir() {
                return Err(Error::io(
                    parent,
                    std::io::Error::from(std::io::ErrorKind::NotFound),
                ));
            }
            lock(path, LockMode::Exclusive)
        }
        _ => Ok(None),
    }
}

/// The file's words, read into memory (checked against the memory available first).
fn read_words(path: &Path) -> Result<Box<[AtomicU64]>> {
    let mut f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let len = f.metadata().map_err(|e| Error::io(path, e))?.len();
    if len % 8 != 0 {
        return Err(Error::Corrupt {
            path: path.to_path_buf(),
            detail: format!("{len} bytes is not a whole number of 64-bit words"),
        });
    }
    let have = pmolap_tier::region::capacity(&TierSpec::Dram { node: None })?;
    let too_big = || {
        Error::TooLarge(format!(
            "{}: checking the {len}-byte table reads it into memory, and {have} bytes are available",
            path.display()
        ))
    };
    if len > have {
        return Err(too_big());
    }
    let words = usize::try_from(len / 8).map_err(|_| too_big())?;
    let mut v: Vec<AtomicU64> = Vec::new();
    v.try_reserve_exact(words).map_err(|_| too_big())?;
    let mut buf = vec![0u8; 1 << 20];
    while v.len() < words {
        let n = ((words - v.len()) * 8).min(buf.len());
        f.read_exact(&mut buf[..n])
            .map_err(|e| Error::io(path, e))?;
        v.extend(
            buf[..n]
                .chunks_exact(8)
                .map(|c| AtomicU64::new(u64::from_le_bytes(c.try_into().expect("8 bytes")))),
        );
    }
    Ok(v.into_boxed_slice())
}

impl Dash {
    /// Opens a private copy of the table at `path` in memory, for reading and checking
    /// ([`Dash::check`]): recovery runs in the copy and nothing is ever written to the
    /// file. Holds the table's shared lock while the copy lives, so a table that a process
    /// is writing is refused with one line naming that process.
    pub fn open_copy(path: &Path) -> Result<Dash> {
        let lock = lock_existing(path, LockMode::Shared)?;
        let words = read_words(path)?;
        let mut d = Dash::attach(Mem::copy(words), path.to_path_buf())?;
        d._lock = lock;
        Ok(d)
    }
}

#[cfg(test)]
mod tests {
    use super::super::layout::H_CLEAN;
    use super::super::DashOptions;
    use super::*;

    fn scratch() -> tempfile::TempDir {
        if Path::new("/dev/shm").is_dir() {
            tempfile::tempdir_in("/dev/shm").unwrap()
        } else {
            tempfile::tempdir().unwrap()
        }
    }

    fn table(dir: &Path, items: u64) -> PathBuf {
        let p = dir.join("t.dash");
        let spec = TierSpec::File { path: p.clone() };
        let d = Dash::create(&spec, DashOptions::for_items(items as usize), None).unwrap();
        for k in 0..items {
            d.insert(k.wrapping_mul(0x9e37_79b9_7f4a_7c15), k).unwrap();
        }
        d.close().unwrap();
        p
    }

    #[test]
    fn one_writer_and_a_check_never_writes() {
        let dir = scratch();
        let p = table(dir.path(), 3000);
        let before = std::fs::read(&p).unwrap();
        // A writer holds the lock: neither a reader nor a second writer gets in.
        let w = Dash::open(&p, None).unwrap();
        for e in [
            Dash::open_copy(&p).unwrap_err(),
            Dash::open(&p, None).unwrap_err(),
        ] {
            let e = e.to_string();
            assert!(e.contains("is being written by pid"), "{e}");
            assert!(!e.contains('\n'));
        }
        drop(w); // not closed: as after a crash
        let after_crash = std::fs::read(&p).unwrap();
        assert_ne!(before, after_crash, "open cleared the clean flag");
        let c = Dash::open_copy(&p).unwrap();
        let rep = c.check().unwrap();
        assert!(rep.problems.is_empty(), "{:?}", rep.problems);
        assert_eq!(rep.items, 3000);
        assert!(rep.recovered_segments > 0);
        // A reader keeps writers out while it reads.
        let e = Dash::open(&p, None).unwrap_err().to_string();
        assert!(e.contains("open for reading"), "{e}");
        drop(c);
        assert_eq!(
            std::fs::read(&p).unwrap(),
            after_crash,
            "the check recovered its copy, not the file"
        );
    }

    #[test]
    fn a_garbage_header_word_is_refused_and_left_alone() {
        let dir = scratch();
        let p = table(dir.path(), 100);
        let mut b = std::fs::read(&p).unwrap();
        b[8 * H_CLEAN] = 7;
        std::fs::write(&p, &b).unwrap();
        for e in [
            Dash::open_copy(&p).unwrap_err(),
            Dash::open(&p, None).unwrap_err(),
        ] {
            assert!(e.to_string().contains("clean flag is 7"), "{e}");
        }
        assert_eq!(
            std::fs::read(&p).unwrap(),
            b,
            "a refused file is not changed"
        );
    }

    #[test]
    fn not_a_table_leaves_no_lock_file_and_scratch_tables_leave_nothing() {
        let dir = scratch();
        let f = dir.path().join("notes.txt");
        std::fs::write(&f, b"my notes, not a table").unwrap();
        assert!(matches!(
            Dash::open_copy(&f).unwrap_err(),
            Error::NotDash { .. }
        ));
        assert!(matches!(
            Dash::open(&f, None).unwrap_err(),
            Error::NotDash { .. }
        ));
        assert!(!lock_path(&f).exists());
        let spec = TierSpec::File {
            path: dir.path().to_path_buf(),
        };
        let d = Dash::create(&spec, DashOptions::for_items(1000), None).unwrap();
        d.insert(1, 2).unwrap();
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            names,
            vec!["notes.txt"],
            "nothing named while the table lives"
        );
        drop(d);
    }
}
