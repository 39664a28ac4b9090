//! Scratch objects named after the process that made them (`<prefix><pid>…`), and the
//! sweep that removes those whose owner is dead — what a `kill -9` left behind is gone at
//! the next run that looks in the same place.
//!
//! An owner is alive while `/proc/<pid>` exists. A recycled pid keeps a dead owner's file
//! until that process ends too (never the other way round: a live owner's file is never
//! removed). Processes of another pid namespace sharing the directory are not seen, so
//! the sweep is only pointed at pmolap's own names.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Whether process `pid` exists (this process counts as alive).
pub fn pid_alive(pid: u32) -> bool {
    pid == std::process::id() || (pid > 0 && Path::new(&format!("/proc/{pid}")).exists())
}

/// The owner pid of a file called `<prefix><pid>` followed by `-`, `.` or nothing; `None`
/// for any other name.
pub fn owner_pid(name: &str, prefix: &str) -> Option<u32> {
    let rest = name.strip_prefix(prefix)?;
    let end = rest.find(['-', '.']).unwrap_or(rest.len());
    let digits = &rest[..end];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Removes the plain files of `dir` named `<prefix><pid>…<suffix>` whose owner is dead;
/// returns what it removed. Symbolic links and directories are left alone, and errors
/// (an unreadable directory, a file another user owns) only mean less is removed.
pub fn sweep_dead(dir: &Path, prefix: &str, suffix: &str) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return removed;
    };
    for e in rd.filter_map(|e| e.ok()) {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        if !name.ends_with(suffix) {
            continue;
        }
        let Some(pid) = owner_pid(name, prefix) else {
            continue;
        };
        if pid_alive(pid) || !e.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let p = e.path();
        if std::fs::remove_file(&p).is_ok() {
            removed.push(p);
        }
    }
    removed
}

/// [`sweep_dead`], at most once per process for each (directory, prefix, suffix): for
/// callers that create scratch files often in the same place.
pub fn sweep_dead_once(dir: &Path, prefix: &str, suffix: &str) -> Vec<PathBuf> {
    static DONE: Mutex<Option<HashSet<(PathBuf, String, String)>>> = Mutex::new(None);
    let key = (dir.to_path_buf(), prefix.to_string(), suffix.to_string());
    let first = DONE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert_with(HashSet::new)
        .insert(key);
    if first {
        sweep_dead(dir, prefix, suffix)
    } else {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pid that is not running now (a child that has exited and been reaped).
    pub(crate) fn dead_pid() -> u32 {
        let mut c = std::process::Command::new("true").spawn().unwrap();
        let pid = c.id();
        c.wait().unwrap();
        assert!(!pid_alive(pid));
        pid
    }

    #[test]
    fn names_parse_to_their_owner() {
        assert_eq!(owner_pid("pmolap-12-0.region", "pmolap-"), Some(12));
        assert_eq!(owner_pid(".x-7.dash", ".x-"), Some(7));
        assert_eq!(owner_pid("pmolap-12", "pmolap-"), Some(12));
        assert_eq!(owner_pid("pmolap--0.region", "pmolap-"), None);
        assert_eq!(owner_pid("pmolap-1a-0.region", "pmolap-"), None);
        assert_eq!(owner_pid("other-12-0.region", "pmolap-"), None);
        assert!(pid_alive(std::process::id()));
        assert!(!pid_alive(0));
    }

    #[test]
    fn only_dead_owners_files_are_swept() {
        let d = tempfile::tempdir().unwrap();
        let dead = dead_pid();
        let me = std::process::id();
        let touch = |n: String| {
            std::fs::write(d.path().join(&n), b"x").unwrap();
            d.path().join(n)
        };
        let gone = touch(format!("pmolap-{dead}-0.region"));
        let mine = touch(format!("pmolap-{me}-0.region"));
        let other_suffix = touch(format!("pmolap-{dead}-0.txt"));
        let user = touch("pmolap-notes.region".to_string());
        std::fs::create_dir(d.path().join(format!("pmolap-{dead}-1.region"))).unwrap();
        let removed = sweep_dead(d.path(), "pmolap-", ".region");
        assert_eq!(removed, vec![gone.clone()]);
        assert!(!gone.exists());
        assert!(mine.exists() && other_suffix.exists() && user.exists());
        assert!(d.path().join(format!("pmolap-{dead}-1.region")).is_dir());
        let again = touch(format!("pmolap-{dead}-2.region"));
        assert_eq!(sweep_dead_once(d.path(), "pmolap-", ".region"), vec![again]);
        touch(format!("pmolap-{dead}-3.region"));
        assert!(sweep_dead_once(d.path(), "pmolap-", ".region").is_empty());
    }
}
