//! Tier paths: refused before anything starts when missing, not writable or too small;
//! their device metadata (filesystem, mount options, device model) from `/proc/mounts`
//! and sysfs; and dropping a tier's files from the page cache for cold runs.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Bytes a tier needs per scale factor: tables (~1.2 GB at SF 1 in PostgreSQL's heap
/// format), primary/foreign-key indexes (~0.6 GB) and headroom for sort spills.
pub const TIER_BYTES_PER_SF: f64 = 2.6e9;
/// Bytes the run directory needs per scale factor: the generated `.tbl` files (~1.1 GB
/// at SF 1) and the single-stream baseline's copy of the data in the first tablespace
/// (counted here as well, conservatively).
pub const WORK_BYTES_PER_SF: f64 = 1.2e9;
/// Fixed bytes per cluster (catalog, WAL segments).
pub const FIXED_BYTES: u64 = 600 << 20;
/// The server's `max_wal_size`: WAL between checkpoints in the data directory, inside
/// the run directory.
pub const MAX_WAL_BYTES: u64 = 2 << 30;
/// What the run directory holds for WAL: `max_wal_size` is a soft limit that a load
/// overshoots until the checkpoint it triggers ends, so half as much again.
pub const WAL_BYTES: u64 = MAX_WAL_BYTES + MAX_WAL_BYTES / 2;

/// The device metadata and cold method a `pg-tpch` document records.
pub use pmolap_results::pg::{ColdMethod, DeviceInfo};

/// Checks `path` can hold `need` bytes and describes it. Refuses a path that does not
/// exist, is not a directory, is not writable by this process (and, as root, by the
/// server user through its permission bits) or lacks room.
pub fn check(path: &Path, need: u64) -> Result<DeviceInfo> {
    let refuse = |why: String| Error::Tier {
        path: path.to_path_buf(),
        why,
    };
    let meta = std::fs::metadata(path).map_err(|e| refuse(format!("cannot use it ({e})")))?;
    if !meta.is_dir() {
        return Err(refuse("not a directory".into()));
    }
    if !pmolap_tier::io::dir_writable(path) {
        return Err(refuse("not writable by this user".into()));
    }
    let free = pmolap_tier::region::fs_free_bytes(path)?;
    if free < need {
        return Err(refuse(format!(
            "needs about {:.1} GB for this scale factor but only {:.1} GB are free",
            need as f64 / 1e9,
            free as f64 / 1e9
        )));
    }
    let mut info = describe(path);
    info.free_bytes = free;
    Ok(info)
}

/// The mount holding `path` (longest mount-point prefix in `/proc/mounts`) and its device.
pub fn describe(path: &Path) -> DeviceInfo {
    let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap_or_default();
    let best = mounts
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            (f.len() >= 4).then(|| {
                (
                    f[0].to_string(),
                    unescape(f[1]),
                    f[2].to_string(),
                    f[3].to_string(),
                )
            })
        })
        .filter(|(_, mp, _, _)| abs.starts_with(mp))
        .max_by_key(|(_, mp, _, _)| mp.as_os_str().len());
    let (device, mount_point, fs_type, mount_options) =
        best.unwrap_or_else(|| ("?".into(), PathBuf::from("/"), "?".into(), String::new()));
    let (model, rotational) = block_facts(&device);
    DeviceInfo {
        path: path.to_path_buf(),
        mount_point,
        device,
        fs_type,
        mount_options,
        model,
        rotational,
        free_bytes: 0,
    }
}

/// `/proc/mounts` escapes spaces and such as octal (`\040`).
fn unescape(s: &str) -> PathBuf {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && i + 3 < b.len()
            && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            out.push((b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0'));
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    PathBuf::from(String::from_utf8_lossy(&out).into_owned())
}

/// Model and rotational flag of a block device source like `/dev/vda` or `/dev/nvme0n1p2`
/// (a partition's facts are its disk's).
fn block_facts(device: &str) -> (Option<String>, Option<bool>) {
    let Some(name) = device.strip_prefix("/dev/") else {
        return (None, None);
    };
    let name = name.rsplit('/').next().unwrap_or(name);
    let mut block = PathBuf::from("/sys/class/block").join(name);
    if block.join("partition").exists() {
        if let Ok(real) = std::fs::canonicalize(&block) {
            if let Some(parent) = real.parent() {
                block = parent.to_path_buf();
            }
        }
    }
    let read = |p: PathBuf| {
        std::fs::read_to_string(p)
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    };
    let model = read(block.join("device/model"))
        .or_else(|| read(block.join("device/vendor")).map(|v| format!("vendor {v}")));
    let model = model.or_else(|| {
        name.starts_with("vd")
            .then(|| "virtio block device".to_string())
    });
    let rotational = read(block.join("queue/rotational")).map(|v| v == "1");
    (model, rotational)
}

/// Drops every file under `dirs` from the page cache. Returns the files dropped and the
/// first failure (a file that could not be opened or advised).
pub fn drop_from_cache(dirs: &[&Path]) -> (u64, Option<String>) {
    let mut done = 0u64;
    let mut first_err = None;
    // DONTNEED drops clean pages only. The server's shutdown checkpoint has written and
    // fsynced its files; one syncfs per filesystem (`sync -f`) covers the rest, far
    // cheaper than an fsync per file.
    for d in dirs {
        let ok = std::process::Command::new("sync")
            .arg("-f")
            .arg(d)
            .status()
            .is_ok_and(|s| s.success());
        if !ok && first_err.is_none() {
            first_err = Some(format!("sync -f {} failed", d.display()));
        }
    }
    let mut stack: Vec<PathBuf> = dirs.iter().map(|d| d.to_path_buf()).collect();
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.filter_map(|e| e.ok()) {
            let Ok(ft) = e.file_type() else { continue };
            let p = e.path();
            if ft.is_dir() {
                stack.push(p);
            } else if ft.is_symlink() {
                // pg_tblspc links point at the tablespaces, which are listed themselves.
            } else if ft.is_file() {
                let r = std::fs::File::open(&p)
                    .map_err(|e| e.to_string())
                    .and_then(|f| {
                        pmolap_tier::io::fadvise(&f, &p, pmolap_tier::io::Advice::DontNeed)
                            .map_err(|e| e.to_string())
                    });
                match r {
                    Ok(()) => done += 1,
                    Err(e) if first_err.is_none() => {
                        first_err = Some(format!("{}: {e}", p.display()))
                    }
                    Err(_) => {}
                }
            }
        }
    }
    (done, first_err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_missing_file_and_too_small() {
        let t = tempfile::tempdir().unwrap();
        let missing = t.path().join("nope");
        let e = check(&missing, 1).unwrap_err().to_string();
        assert!(e.contains("nope") && e.contains("cannot use it"), "{e}");
        let f = t.path().join("file");
        std::fs::write(&f, b"x").unwrap();
        assert!(check(&f, 1)
            .unwrap_err()
            .to_string()
            .contains("not a directory"));
        let e = check(t.path(), u64::MAX).unwrap_err().to_string();
        assert!(e.contains("GB are free"), "{e}");
        let ok = check(t.path(), 1).unwrap();
        assert!(!ok.fs_type.is_empty());
    }

    #[test]
    fn unescapes_mount_points() {
        assert_eq!(unescape("/mnt/a\\040b"), PathBuf::from("/mnt/a b"));
        assert_eq!(unescape("/plain"), PathBuf::from("/plain"));
    }
}
