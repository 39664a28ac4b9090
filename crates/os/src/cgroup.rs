//! A memory cgroup around this process, to bound the page cache a page-granular tier gets
//! (`pmolap place validate --setting cache:SIZE`): a child of the process's own memory
//! cgroup with a hard limit, entered by the whole process and left (and removed) when the
//! [`MemoryLimit`] is dropped.
//!
//! Memory charged before entering stays charged where it was (cgroup v1 moves no charges
//! unless `memory.move_charge_at_immigrate` is set; v2 never moves them), so a caller
//! first allocates what must not count against the limit (the DRAM tier's structures),
//! then enters: what the process faults in afterwards — the page cache of the files it
//! maps, and its query working memory — is bounded by the limit, and the kernel reclaims
//! the group's page cache to stay under it.
//!
//! Both hierarchies are handled: v1 (`/sys/fs/cgroup/memory/<path>`, `memory.limit_in_bytes`)
//! and v2 (the unified hierarchy, `memory.max`, with the memory controller enabled in the
//! parent's `cgroup.subtree_control`). In v2 a group that holds processes cannot enable a
//! controller for its children (the "no internal processes" rule: `EBUSY`; seen on a lent
//! machine whose process ran in `/process_api/<id>` with its siblings): then the group is
//! made under the nearest ancestor that already gives its children the memory
//! controller (the hierarchy's root always can), and the process moves there and back —
//! it leaves its own group's limits while it is bounded by the smaller one. Where none
//! can be used (no root, no memory controller, a read-only cgroupfs)
//! [`MemoryLimit::enter`] fails with an error saying which step and why; nothing is left
//! behind.

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The process inside a child memory cgroup with a limit; leaves and removes it on drop.
#[derive(Debug)]
pub struct MemoryLimit {
    dir: PathBuf,
    /// The group the process came from and returns to.
    home: PathBuf,
    v2: bool,
    limit: u64,
}

fn err(step: &str, path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Unsupported(format!(
        "cannot bound the page cache with a memory cgroup ({step} {}: {e})",
        path.display()
    ))
}

/// The process's own memory cgroup: where it is mounted and the group's directory.
struct Own {
    mount: PathBuf,
    dir: PathBuf,
    v2: bool,
}

/// The process's own memory cgroup, from `/proc/self/cgroup` and the mounts of
/// `/proc/self/mountinfo`.
fn own_memory_cgroup() -> Result<Own> {
    let cg = fs::read_to_string("/proc/self/cgroup")
        .map_err(|e| err("reading", Path::new("/proc/self/cgroup"), e))?;
    let mounts = fs::read_to_string("/proc/self/mountinfo")
        .map_err(|e| err("reading", Path::new("/proc/self/mountinfo"), e))?;
    let mount_of = |v2: bool| -> Option<PathBuf> {
        mounts.lines().find_map(|l| {
            let (pre, post) = l.split_once(" - ")?;
            let mut post = post.split_whitespace();
            let fstype = post.next()?;
            let _source = post.next();
            let opts = post.next().unwrap_or("");
            let mount_point = pre.split_whitespace().nth(4)?;
            let ok = if v2 {
                fstype == "cgroup2"
            } else {
                fstype == "cgroup" && opts.split(',').any(|o| o == "memory")
            };
            ok.then(|| PathBuf::from(mount_point))
        })
    };
    // v1: "N:memory:/path" (possibly with other controllers joined by commas).
    for line in cg.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, ctrls, path) = (parts.next(), parts.next(), parts.next());
        if let (Some(ctrls), Some(path)) = (ctrls, path) {
            if ctrls.split(',').any(|c| c == "memory") {
                if let Some(m) = mount_of(false) {
                    return Ok(Own {
                        dir: m.join(path.trim_start_matches('/')),
                        mount: m,
                        v2: false,
                    });
                }
            }
        }
    }
    for line in cg.lines() {
        if let Some(path) = line.strip_prefix("0::") {
            if let Some(m) = mount_of(true) {
                return Ok(Own {
                    dir: m.join(path.trim_start_matches('/')),
                    mount: m,
                    v2: true,
                });
            }
        }
    }
    Err(Error::Unsupported(
        "cannot bound the page cache: no memory cgroup controller is mounted".into(),
    ))
}

/// Removes the groups that pmolap processes killed inside them left behind (kill -9
/// skips [`MemoryLimit`]'s drop): every `pmolap-<pid>` child of this process's memory
/// cgroup whose process is gone and which holds no process. Runs that use a memory
/// cgroup call it first (and [`MemoryLimit::enter`] does again); returns how many groups
/// it removed (0 where there is no memory cgroup to look in).
pub fn sweep_stale() -> usize {
    match own_memory_cgroup() {
        Ok(own) => {
            let mut n = remove_stale(&own.dir);
            if own.v2 {
                if let Some(a) = delegating_ancestor(&own.dir, &own.mount) {
                    n += remove_stale(&a);
                }
            }
            n
        }
        Err(_) => 0,
    }
}

/// The nearest proper ancestor of `own`, up to `root`, whose `cgroup.subtree_control`
/// already enables the memory controller for its children.
fn delegating_ancestor(own: &Path, root: &Path) -> Option<PathBuf> {
    own.ancestors()
        .skip(1)
        .take_while(|a| a.starts_with(root))
        .find(|a| gives_memory(a))
        .map(Path::to_path_buf)
}

/// Whether group `dir`'s `cgroup.subtree_control` enables the memory controller for its
/// children.
fn gives_memory(dir: &Path) -> bool {
    fs::read_to_string(dir.join("cgroup.subtree_control"))
        .is_ok_and(|c| c.split_whitespace().any(|c| c == "memory"))
}

/// Where the bounded group is made: `own` where its children can get the memory
/// controller (enabled here if need be), else the nearest ancestor that gives it.
fn group_parent(own: &Path, root: &Path) -> Result<PathBuf> {
    if gives_memory(own) {
        return Ok(own.to_path_buf());
    }
    match fs::write(own.join("cgroup.subtree_control"), "+memory") {
        Ok(()) => Ok(own.to_path_buf()),
        Err(e) => delegating_ancestor(own, root)
            .ok_or_else(|| err("enabling the memory controller in", own, e)),
    }
}

/// [`sweep_stale`] in `parent`.
fn remove_stale(parent: &Path) -> usize {
    let mut removed = 0;
    let Ok(entries) = fs::read_dir(parent) else {
        return 0;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("pmolap-"))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        let alive = Path::new(&format!("/proc/{pid}")).exists();
        let empty =
            fs::read_to_string(e.path().join("cgroup.procs")).is_ok_and(|p| p.trim().is_empty());
        if !alive && empty && fs::remove_dir(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

impl MemoryLimit {
    /// Moves this process into a new memory cgroup limited to `limit_bytes`: a child of
    /// its own group, or on v2 where that group cannot give children the memory
    /// controller, of the nearest ancestor that does (module docs).
    pub fn enter(limit_bytes: u64) -> Result<MemoryLimit> {
        let Own {
            mount,
            dir: home,
            v2,
        } = own_memory_cgroup()?;
        let parent = if v2 {
            group_parent(&home, &mount)?
        } else {
            home.clone()
        };
        remove_stale(&parent);
        let dir = parent.join(format!("pmolap-{}", std::process::id()));
        // A group of this name is this process's own (an earlier limit whose removal
        // lost a race with the kernel's release of its charges) or a dead process's
        // with the same pid: remove it and make it anew.
        if let Err(e) = fs::create_dir(&dir) {
            if e.kind() != std::io::ErrorKind::AlreadyExists {
                return Err(err("creating", &dir, e));
            }
            fs::remove_dir(&dir).map_err(|e| err("removing the stale", &dir, e))?;
            fs::create_dir(&dir).map_err(|e| err("creating", &dir, e))?;
        }
        let me = MemoryLimit {
            dir,
            home,
            v2,
            limit: limit_bytes,
        };
        let file = if v2 {
            "memory.max"
        } else {
            "memory.limit_in_bytes"
        };
        fs::write(me.dir.join(file), limit_bytes.to_string())
            .map_err(|e| err("setting the limit in", &me.dir, e))?;
        fs::write(me.dir.join("cgroup.procs"), std::process::id().to_string())
            .map_err(|e| err("entering", &me.dir, e))?;
        Ok(me)
    }

    /// The group's directory in the cgroup filesystem.
    pub fn group_dir(&self) -> &Path {
        &self.dir
    }

    /// The limit in bytes.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// The group's current page-cache bytes (`cache` in v1's memory.stat, `file` in v2's).
    pub fn page_cache_bytes(&self) -> Option<u64> {
        let key = if self.v2 { "file" } else { "cache" };
        self.stat(key)
    }

    /// The group's peak usage (v1 `memory.max_usage_in_bytes`, v2 `memory.peak`).
    pub fn peak_bytes(&self) -> Option<u64> {
        let f = if self.v2 {
            "memory.peak"
        } else {
            "memory.max_usage_in_bytes"
        };
        fs::read_to_string(self.dir.join(f))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// One counter of the group's `memory.stat` (`active_file`, `cache`, ...; the names
    /// differ between v1 and v2), `None` where it is absent.
    pub fn stat(&self, key: &str) -> Option<u64> {
        let s = fs::read_to_string(self.dir.join("memory.stat")).ok()?;
        s.lines().find_map(|l| {
            let (k, v) = l.split_once(' ')?;
            (k == key).then(|| v.trim().parse().ok())?
        })
    }
}

impl Drop for MemoryLimit {
    fn drop(&mut self) {
        // Back home, then remove the group (its charges move to its parent).
        let _ = fs::write(
            self.home.join("cgroup.procs"),
            std::process::id().to_string(),
        );
        let _ = fs::remove_dir(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cgroup2-like tree under a temporary directory: `above/root/a/b`, each with a
    /// `cgroup.subtree_control` holding `ctl`; `b`'s is a directory where `b_busy`, so
    /// writing `+memory` to it fails as the kernel's `EBUSY` would.
    fn tree(ctl: [&str; 4], b_busy: bool) -> (tempfile::TempDir, PathBuf, PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("above/root");
        let own = root.join("a/b");
        fs::create_dir_all(&own).unwrap();
        let dirs = [
            t.path().join("above"),
            root.clone(),
            root.join("a"),
            own.clone(),
        ];
        for (d, c) in dirs.iter().zip(ctl) {
            if d == &own && b_busy {
                fs::create_dir(d.join("cgroup.subtree_control")).unwrap();
            } else {
                fs::write(d.join("cgroup.subtree_control"), c).unwrap();
            }
        }
        (t, root, own)
    }

    #[test]
    fn the_own_group_is_used_where_it_gives_or_can_give_memory() {
        let (_t, root, own) = tree(["", "memory", "", "cpu memory"], false);
        assert_eq!(group_parent(&own, &root).unwrap(), own);
        let (_t, root, own) = tree(["", "memory", "", "cpu"], false);
        assert_eq!(group_parent(&own, &root).unwrap(), own);
        assert_eq!(
            fs::read_to_string(own.join("cgroup.subtree_control")).unwrap(),
            "+memory"
        );
    }

    #[test]
    fn a_busy_group_falls_back_to_the_nearest_delegating_ancestor() {
        let (_t, root, own) = tree(["memory", "cpu memory", "cpu", ""], true);
        assert_eq!(group_parent(&own, &root).unwrap(), root);
        let (_t, root, own) = tree(["memory", "memory", "io memory", ""], true);
        assert_eq!(group_parent(&own, &root).unwrap(), root.join("a"));
    }

    #[test]
    fn nothing_above_the_mount_is_used_and_the_error_names_the_group() {
        let (_t, root, own) = tree(["memory", "cpu", "", ""], true);
        let e = group_parent(&own, &root).unwrap_err().to_string();
        assert!(e.contains("enabling the memory controller in"), "{e}");
        assert!(e.contains(&own.display().to_string()), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }
}
