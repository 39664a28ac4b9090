//! The one durable-publish protocol of pmolap, and its crash-step hook.
//!
//! Every persistent structure (column-store tables, the database file, Elf indexes,
//! result documents) reaches disk the same way: stage the new bytes under a staging name
//! in the target's directory, make them durable (`fsync`), `rename` the staging name over
//! the target (the commit point), and `fsync` the directory so the rename itself is
//! durable. A reader therefore sees the old file or the new one, never a mix.
//!
//! [`Steps`] counts the write/persist steps of a protocol run and, in crash tests, aborts
//! the process right after the configured one; [`crash`] is the parent side of the one
//! crash-test harness (a child process re-executed at every step).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

/// Counts the write/persist steps of a publish; aborts the process right after step
/// `crash_at` (crash tests only: `None` in every real run).
#[derive(Debug, Default)]
pub struct Steps {
    n: AtomicU64,
    crash_at: Option<u64>,
}

impl Steps {
    /// A counter that aborts after step `crash_at` (never, for `None`).
    pub fn new(crash_at: Option<u64>) -> Steps {
        Steps {
            n: AtomicU64::new(0),
            crash_at,
        }
    }

    /// Marks one step done; aborts the process if it is the configured crash point.
    pub fn step(&self) {
        let k = self.n.fetch_add(1, Ordering::SeqCst) + 1;
        if self.crash_at == Some(k) {
            std::process::abort();
        }
    }

    /// Steps taken so far.
    pub fn taken(&self) -> u64 {
        self.n.load(Ordering::SeqCst)
    }
}

/// `fsync` of a directory, so that creations, renames and removals in it are durable.
pub fn fsync_dir(dir: &Path) -> Result<()> {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io(dir, e))
}

/// `fsync` of a file by path.
pub fn fsync_file(path: &Path) -> Result<()> {
    File::open(path)
        .and_then(|f| f.sync_all())
        .map_err(|e| Error::io(path, e))
}

/// The directory a path lives in (`.` for a bare name).
pub fn parent_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A staging name for `path` that no other process uses: `.<name>.<pid>.tmp`, beside it.
pub fn private_staging_name(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    parent_of(path).join(format!(".{name}.{}.tmp", std::process::id()))
}

/// Renames a staged file over `target` and makes the rename durable: the commit point
/// (steps: rename, directory fsync).
pub fn commit_rename(staged: &Path, target: &Path, steps: &Steps) -> Result<()> {
    std::fs::rename(staged, target).map_err(|e| Error::io(target, e))?;
    steps.step();
    fsync_dir(&parent_of(target))?;
    steps.step();
    Ok(())
}

/// Publishes `bytes` as `target` through the staging file `staged` (steps: write, fsync,
/// rename, directory fsync). On failure the staging file is removed and `target` is as
/// it was.
pub fn publish_via(target: &Path, staged: &Path, bytes: &[u8], steps: &Steps) -> Result<()> {
    let write = || -> Result<()> {
        let mut f = File::create(staged).map_err(|e| Error::io(staged, e))?;
        f.write_all(bytes).map_err(|e| Error::io(staged, e))?;
        steps.step();
        f.sync_all().map_err(|e| Error::io(staged, e))?;
        steps.step();
        Ok(())
    };
    if let Err(e) = write() {
        let _ = std::fs::remove_file(staged);
        return Err(e);
    }
    commit_rename(staged, target, steps).inspect_err(|_| {
        let _ = std::fs::remove_file(staged);
    })
}

/// Publishes `bytes` as `path` (a result document, a placement file, ...) through a
/// private staging file beside it: a crash or a full disk leaves the old file whole.
pub fn publish_file(path: &Path, bytes: &[u8]) -> Result<()> {
    publish_via(path, &private_staging_name(path), bytes, &Steps::default())
}

/// Checks up front that a result can later be published at `path`: its directory exists
/// and a file can be created there, and `path` is not a directory. Nothing is left behind.
pub fn check_writable(path: &Path) -> Result<()> {
    if path.is_dir() {
        return Err(Error::Invalid(format!(
            "{}: is a directory, expected a file name to write",
            path.display()
        )));
    }
    let dir = parent_of(path);
    if !dir.is_dir() {
        return Err(Error::Invalid(format!(
            "{}: the directory {} does not exist",
            path.display(),
            dir.display()
        )));
    }
    let probe = private_staging_name(path);
    File::create(&probe).map_err(|e| Error::io(&dir, e))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// The parent side of the one crash-test harness: re-executes the current test binary
/// to run one test (`child_test`, which does nothing unless the environment says so)
/// with `vars` set, and reports whether that child crashed (exited unsuccessfully).
///
/// Used by every crash test of the workspace: the child runs a publish with
/// [`Steps::new`]`(Some(step))`, the parent checks after every step that the structure
/// opens as exactly the old or exactly the new state.
pub mod crash {
    use std::process::{Command, Stdio};

    /// Runs `child_test` of the current test binary with `vars`; true if it crashed.
    pub fn run_child(child_test: &str, vars: &[(String, String)]) -> bool {
        let exe = std::env::current_exe().expect("the test binary's own path");
        let mut cmd = Command::new(exe);
        cmd.args(["--exact", child_test, "--nocapture", "--test-threads=1"])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        for (k, v) in vars {
            cmd.env(k, v);
        }
        !cmd.status()
            .expect("re-executing the test binary")
            .success()
    }

    /// The crash step the parent asked this child to stop at, if this process is a
    /// crash child (`var` set to a number).
    pub fn child_step(var: &str) -> Option<u64> {
        std::env::var(var).ok().and_then(|s| s.parse().ok())
    }

    /// Drives `check` over crash points 1, 2, … until a child runs to completion: for
    /// each step, `setup` prepares a fresh state (returning the child's variables),
    /// the child runs with that step, and `check(step, crashed)` verifies the state.
    /// Returns the number of crash points exercised. Panics if no run ever completes
    /// within `max_steps`.
    pub fn every_step<S>(
        child_test: &str,
        step_var: &str,
        max_steps: u64,
        mut setup: impl FnMut(u64) -> (S, Vec<(String, String)>),
        mut check: impl FnMut(u64, bool, &S),
    ) -> u64 {
        for step in 1..=max_steps {
            let (state, mut vars) = setup(step);
            vars.push((step_var.to_string(), step.to_string()));
            let crashed = run_child(child_test, &vars);
            check(step, crashed, &state);
            if !crashed {
                return step - 1;
            }
        }
        panic!("{child_test}: no run completed within {max_steps} crash points");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn publish_replaces_whole_and_leaves_no_staging_file() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.json");
        publish_file(&p, b"old").unwrap();
        publish_file(&p, b"new content").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new content");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }

    #[test]
    fn failed_publish_keeps_the_old_file() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.json");
        publish_file(&p, b"old").unwrap();
        // A staging path in a missing directory cannot be created.
        let e = publish_via(&p, &d.path().join("no/such"), b"x", &Steps::default());
        assert!(e.is_err());
        assert_eq!(std::fs::read(&p).unwrap(), b"old");
    }

    #[test]
    fn writable_check_names_the_problem_and_leaves_nothing() {
        let d = tempfile::tempdir().unwrap();
        check_writable(&d.path().join("ok.json")).unwrap();
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
        let e = check_writable(d.path()).unwrap_err().to_string();
        assert!(e.contains("is a directory"), "{e}");
        let e = check_writable(&d.path().join("a/b.json"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not exist"), "{e}");
    }

    #[test]
    fn steps_count() {
        let s = Steps::new(None);
        s.step();
        s.step();
        assert_eq!(s.taken(), 2);
    }
}
