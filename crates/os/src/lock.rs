//! Advisory locks for persistent structures: one writer, or any number of readers.
//!
//! A lock is an `flock` on a lock file that belongs to the structure (`<db>/LOCK` for a
//! database directory, `<index>.lock` beside an Elf index). Writers take it exclusive,
//! readers shared, both without waiting: a second writer, a writer while readers have the
//! structure open, and a reader while a writer works all fail at once with a one-line
//! error naming the holder (a writer records `pid` and command in the lock file). The
//! lock is released when the [`FileLock`] is dropped or the process dies, so a killed
//! writer never leaves a stale lock behind.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Shared (readers) or exclusive (one writer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockMode {
    Shared,
    Exclusive,
}

/// A held lock; released on drop.
#[derive(Debug)]
pub struct FileLock {
    file: File,
    path: PathBuf,
    mode: LockMode,
}

impl FileLock {
    /// Takes the lock on `lock_path` (created if missing) without waiting. `what` names
    /// the structure in errors ("database /d", "Elf index /x.elf").
    pub fn acquire(lock_path: &Path, mode: LockMode, what: &str) -> Result<FileLock> {
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(lock_path)
            .or_else(|e| {
                // A read-only location can still be read under a shared lock.
                if mode == LockMode::Shared && e.kind() == std::io::ErrorKind::PermissionDenied {
                    File::open(lock_path)
                } else {
                    Err(e)
                }
            })
            .map_err(|e| Error::io(lock_path, e))?;
        let got = match mode {
            LockMode::Shared => file.try_lock_shared(),
            LockMode::Exclusive => file.try_lock(),
        };
        match got {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(Error::Locked(busy_message(&mut file, mode, what)));
            }
            Err(TryLockError::Error(e)) => return Err(Error::io(lock_path, e)),
        }
        if mode == LockMode::Exclusive {
            let holder = format!("pid {} ({})\n", std::process::id(), command_line());
            let _ = file
                .set_len(0)
                .and_then(|_| file.seek(SeekFrom::Start(0)))
                .and_then(|_| file.write_all(holder.as_bytes()));
        }
        Ok(FileLock {
            file,
            path: lock_path.to_path_buf(),
            mode,
        })
    }

    /// [`acquire`](Self::acquire), except that a reader of a location this process may not
    /// write (permission denied, read-only filesystem) proceeds without a lock — no writer
    /// can change it there either. Writers always need the lock.
    pub fn acquire_or_read_only(
        lock_path: &Path,
        mode: LockMode,
        what: &str,
    ) -> Result<Option<FileLock>> {
        match FileLock::acquire(lock_path, mode, what) {
            Ok(l) => Ok(Some(l)),
            Err(Error::PermissionDenied { .. }) if mode == LockMode::Shared => Ok(None),
            Err(Error::Io { source, .. })
                if mode == LockMode::Shared && source.raw_os_error() == Some(libc::EROFS) =>
            {
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn mode(&self) -> LockMode {
        self.mode
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        if self.mode == LockMode::Exclusive {
            let _ = self.file.set_len(0);
        }
        let _ = self.file.unlock();
    }
}

/// Why a lock could not be had, naming the holder where it is known.
fn busy_message(file: &mut File, mode: LockMode, what: &str) -> String {
    // If a shared lock is possible right now, the holders are readers.
    let readers_hold = mode == LockMode::Exclusive && {
        let ok = file.try_lock_shared().is_ok();
        if ok {
            let _ = file.unlock();
        }
        ok
    };
    if readers_hold {
        return format!(
            "{what} is open for reading by another pmolap process; writing it now would pull files from under that reader — try again when it has finished"
        );
    }
    // A writer records itself right after taking the lock: a moment's wait covers two
    // processes that started together.
    let mut holder = String::new();
    for _ in 0..20 {
        holder.clear();
        let _ = file
            .seek(SeekFrom::Start(0))
            .and_then(|_| Read::by_ref(file).take(200).read_to_string(&mut holder));
        if !holder.trim().is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let holder = holder.lines().next().unwrap_or("").trim();
    let holder = if holder.is_empty() {
        "another pmolap process".to_string()
    } else {
        holder.to_string()
    };
    format!("{what} is being written by {holder}; try again when it has finished")
}

fn command_line() -> String {
    let args: Vec<String> = std::env::args().take(4).collect();
    let mut s = args.join(" ");
    if s.len() > 120 {
        let mut cut = 120;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_writer_or_many_readers() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("LOCK");
        let w = FileLock::acquire(&p, LockMode::Exclusive, "database /d").unwrap();
        let e = FileLock::acquire(&p, LockMode::Exclusive, "database /d")
            .unwrap_err()
            .to_string();
        assert!(e.contains("is being written by pid"), "{e}");
        assert!(!e.contains('\n'));
        let e = FileLock::acquire(&p, LockMode::Shared, "database /d")
            .unwrap_err()
            .to_string();
        assert!(e.contains("being written"), "{e}");
        drop(w);
        let r1 = FileLock::acquire(&p, LockMode::Shared, "database /d").unwrap();
        let _r2 = FileLock::acquire(&p, LockMode::Shared, "database /d").unwrap();
        let e = FileLock::acquire(&p, LockMode::Exclusive, "database /d")
            .unwrap_err()
            .to_string();
        assert!(e.contains("open for reading"), "{e}");
        drop(r1);
        drop(_r2);
        FileLock::acquire(&p, LockMode::Exclusive, "database /d").unwrap();
    }
}
