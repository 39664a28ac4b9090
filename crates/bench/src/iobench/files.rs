//! The files of an iobench run: checking the directories before anything is created
//! (existence, permissions, free space, O_DIRECT block size, DAX for pmem), describing
//! their devices, preparing data and log files (untimed, with progress), dropping them
//! from the page cache, and removing them at the end.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};
use rand::rngs::SmallRng;
use rand::{RngCore, SeedableRng};

use pmolap_tier::io::{fadvise, Advice};
use pmolap_tier::topology::Topology;
use pmolap_tier::TierSpec;

use crate::error::{Error, Result};
use crate::iobench::config::{name, IoPath, LogFile, Params, Workload};
use crate::iobench::results::Device;
use crate::size::format_size;

/// Bytes written per call while preparing files.
const PREP_CHUNK: usize = 1 << 20;

/// What holds `dir`: filesystem, mount, block device facts.
pub fn describe_device(dir: &Path, topo: &Topology) -> Device {
    let mount = topo.filesystem_for(dir);
    let block = mount.and_then(|m| block_dir(&m.device));
    let read = |f: &str| {
        block
            .as_ref()
            .and_then(|b| std::fs::read_to_string(b.join("queue").join(f)).ok())
            .and_then(|s| s.trim().parse::<u64>().ok())
    };
    Device {
        path: dir.display().to_string(),
        filesystem: mount.map(|m| m.fs_type.clone()),
        mount_point: mount.map(|m| m.mount_point.display().to_string()),
        mount_options: mount.map(|m| m.options.clone()),
        device: mount.map(|m| m.device.clone()),
        rotational: read("rotational").map(|v| v != 0),
        dax: topo.dax_mount_for(dir).is_some(),
        logical_block_size: read("logical_block_size"),
    }
}

/// `/sys/class/block/NAME` of a device path, the whole disk's for a partition (the
/// directory that has `queue/`).
fn block_dir(device: &str) -> Option<PathBuf> {
    let dev = std::fs::canonicalize(device).ok()?;
    let name = dev.file_name()?.to_string_lossy().to_string();
    let sys = std::fs::canonicalize(Path::new("/sys/class/block").join(&name)).ok()?;
    if sys.join("queue").is_dir() {
        Some(sys)
    } else {
        sys.parent()
            .filter(|p| p.join("queue").is_dir())
            .map(Path::to_path_buf)
    }
}

fn is_memory_fs(d: &Device) -> bool {
    matches!(d.filesystem.as_deref(), Some("tmpfs" | "ramfs"))
}

fn fs_words(d: &Device) -> String {
    format!(
        "{} ({})",
        d.filesystem.as_deref().unwrap_or("an unknown filesystem"),
        d.mount_options.as_deref().unwrap_or("unknown options")
    )
}

/// Checks one run against the filesystem, creating nothing: each directory exists, is
/// a directory and writable; O_DIRECT is not asked of a tmpfs and sizes are multiples of
/// the logical block size; pmem needs a DAX mount. Returns notes for the results.
pub fn validate_fs(bench: &str, p: &Params, topo: &Topology) -> Result<Vec<String>> {
    let bad = |msg: String| Error::Invalid {
        bench: bench.to_string(),
        msg,
    };
    let mut notes = Vec::new();
    for dir in &p.paths {
        let meta = std::fs::metadata(dir)
            .map_err(|_| bad(format!("path {} does not exist", dir.display())))?;
        if !meta.is_dir() {
            return Err(bad(format!(
                "path {} is not a directory (give the directory the files go to)",
                dir.display()
            )));
        }
        if !pmolap_tier::io::dir_writable(dir) {
            return Err(bad(format!(
                "path {} is not writable by this user",
                dir.display()
            )));
        }
        let d = describe_device(dir, topo);
        if p.io.is_direct() {
            if is_memory_fs(&d) {
                return Err(bad(format!(
                    "{} cannot run on {}: {} keeps files in the page cache, so O_DIRECT has no device to go to (use pread or io-uring)",
                    name(&p.io),
                    dir.display(),
                    fs_words(&d)
                )));
            }
            if let Some(lbs) = d.logical_block_size {
                let (what, size) = match p.workload {
                    Workload::Logging => ("entry_size", p.entry_size),
                    _ => ("page_size", p.page_size),
                };
                if !size.is_multiple_of(lbs) {
                    return Err(bad(format!(
                        "{what} {size} is not a multiple of the logical block size {lbs} of {} (holding {}), as O_DIRECT needs",
                        d.device.as_deref().unwrap_or("the device"),
                        dir.display()
                    )));
                }
            } else {
                notes.push(format!(
                    "{}: logical block size unknown; O_DIRECT alignment not checked",
                    dir.display()
                ));
            }
            if d.dax {
                notes.push(format!(
                    "{} is DAX-mounted: O_DIRECT changes nothing there",
                    dir.display()
                ));
            }
        }
        if p.io == IoPath::Pmem && !d.dax {
            return Err(bad(format!(
                "the pmem path needs a DAX filesystem (MAP_SYNC) but {} is on {}, not mounted with dax (use mmap for msync-based persistence)",
                dir.display(),
                fs_words(&d)
            )));
        }
        if p.drop_cache && is_memory_fs(&d) && !p.io.is_direct() {
            notes.push(format!(
                "{} is a {}: dropping the page cache cannot evict its files (they live there)",
                dir.display(),
                d.filesystem.as_deref().unwrap_or("memory filesystem")
            ));
        }
    }
    Ok(notes)
}

/// The files a run needs, by role. `shared` files are named without the process id, so
/// later runs (or another tool, such as fio in `bench/iobench-vs-fio`) can use them.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum FileKey {
    /// Thread `t`'s stripe `s` of data, `size` bytes.
    Data {
        dir: PathBuf,
        t: usize,
        s: usize,
        size: u64,
        shared: bool,
    },
    /// Thread `t`'s recycled log, `size` bytes.
    Log {
        dir: PathBuf,
        t: usize,
        size: u64,
        shared: bool,
    },
    /// Thread `t`'s new log (recreated per repetition), growing to `size` bytes.
    NewLog {
        dir: PathBuf,
        t: usize,
        size: u64,
        shared: bool,
    },
}

impl FileKey {
    pub fn dir(&self) -> &Path {
        match self {
            FileKey::Data { dir, .. } | FileKey::Log { dir, .. } | FileKey::NewLog { dir, .. } => {
                dir
            }
        }
    }

    pub fn size(&self) -> u64 {
        match self {
            FileKey::Data { size, .. }
            | FileKey::Log { size, .. }
            | FileKey::NewLog { size, .. } => *size,
        }
    }

    /// Whether the file is named without the process id (`--reuse-files`).
    pub fn shared(&self) -> bool {
        match self {
            FileKey::Data { shared, .. }
            | FileKey::Log { shared, .. }
            | FileKey::NewLog { shared, .. } => *shared,
        }
    }

    /// The file's name: one per role, thread and stripe, so runs can share files;
    /// `pmolap-iobench-<pid>-…` unless shared, then `pmolap-iobench-…`.
    pub fn path(&self) -> PathBuf {
        let stem = if self.shared() {
            "pmolap-iobench".to_string()
        } else {
            format!("pmolap-iobench-{}", std::process::id())
        };
        match self {
            FileKey::Data { dir, t, s, .. } => dir.join(format!("{stem}-data-t{t}-s{s}.dat")),
            FileKey::Log { dir, t, .. } => dir.join(format!("{stem}-log-t{t}.log")),
            FileKey::NewLog { dir, t, .. } => dir.join(format!("{stem}-newlog-t{t}.log")),
        }
    }
}

/// The files of run `p`, per thread in stripe order; `shared`: named without the
/// process id.
pub fn files_of(p: &Params, shared: bool) -> Vec<Vec<FileKey>> {
    let n = p.paths.len();
    (0..p.threads)
        .map(|t| match p.workload {
            Workload::Logging => {
                let dir = p.paths[t % n].clone();
                vec![match p.log_file {
                    LogFile::Recycled => FileKey::Log {
                        dir,
                        t,
                        size: p.log_size,
                        shared,
                    },
                    LogFile::New => FileKey::NewLog {
                        dir,
                        t,
                        size: p.bytes_per_thread(),
                        shared,
                    },
                }]
            }
            _ => (0..n)
                .map(|s| FileKey::Data {
                    dir: p.paths[s].clone(),
                    t,
                    s,
                    size: p.file_size / n as u64,
                    shared,
                })
                .collect(),
        })
        .collect()
}

/// Whether `k` is a data file or recycled log already there with its size, which a
/// `reuse` run uses as it is.
fn reusable(k: &FileKey) -> bool {
    !matches!(k, FileKey::NewLog { .. })
        && std::fs::metadata(k.path()).is_ok_and(|m| m.is_file() && m.len() == k.size())
}

/// Checks that every directory has room for the largest set of files any run needs at
/// once (files shared between runs counted once), before any is created; with `reuse`,
/// files already there with their size need no room.
pub fn check_space(runs: &[(String, Params)], reuse: bool) -> Result<()> {
    let mut need: BTreeMap<PathBuf, (u64, String)> = BTreeMap::new();
    for (bench, p) in runs {
        let mut per_dir: BTreeMap<PathBuf, u64> = BTreeMap::new();
        for k in files_of(p, reuse).into_iter().flatten() {
            if reuse && reusable(&k) {
                continue;
            }
            *per_dir.entry(k.dir().to_path_buf()).or_default() += k.size();
        }
        for (dir, bytes) in per_dir {
            let e = need.entry(dir).or_insert((0, String::new()));
            if bytes > e.0 {
                *e = (bytes, bench.clone());
            }
        }
    }
    for (dir, (bytes, bench)) in need {
        let free = pmolap_tier::region::capacity(&TierSpec::File { path: dir.clone() })?;
        // Leave a little headroom for filesystem metadata.
        if bytes + (bytes / 64) > free {
            return Err(Error::Invalid {
                bench,
                msg: format!(
                    "the files need {} in {} but its filesystem has only {} free",
                    format_size(bytes),
                    dir.display(),
                    format_size(free)
                ),
            });
        }
    }
    Ok(())
}

/// Files created by this invocation; removed on drop unless kept.
#[derive(Debug, Default)]
pub struct FileSet {
    /// Path → size it was prepared with.
    made: BTreeMap<PathBuf, u64>,
    pub keep: bool,
    /// Use a data file or recycled log that is already there with the right size as it
    /// is (not rewritten); such runs keep their files.
    pub reuse: bool,
}

impl FileSet {
    /// Creates (or reuses, if prepared with the same size — by this invocation, or by
    /// anyone when `reuse`) the files of `keys`, filling data and recycled logs with
    /// random bytes; new logs are only recorded.
    pub fn prepare(&mut self, keys: &[FileKey], seed: u64, progress: bool) -> Result<()> {
        if self.reuse {
            for k in keys.iter().filter(|k| reusable(k)) {
                self.made.insert(k.path(), k.size());
            }
        }
        let todo: Vec<&FileKey> = keys
            .iter()
            .filter(|k| self.made.get(&k.path()) != Some(&k.size()))
            .collect();
        for k in keys {
            if let FileKey::NewLog { .. } = k {
                self.made.insert(k.path(), k.size());
            }
        }
        let fill: Vec<&FileKey> = todo
            .into_iter()
            .filter(|k| !matches!(k, FileKey::NewLog { .. }))
            .collect();
        let total: u64 = fill.iter().map(|k| k.size()).sum();
        if total == 0 {
            return Ok(());
        }
        let bar = progress_bar(total, progress, "preparing files");
        for k in fill {
            let path = k.path();
            self.made.insert(path.clone(), k.size());
            if let Err(e) = write_random(&path, k.size(), seed ^ hash(&path), &bar) {
                // Half written: never left behind, not even a shared (reusable) file,
                // which a later run would take for a prepared one by its size.
                let _ = std::fs::remove_file(&path);
                self.made.remove(&path);
                return Err(e);
            }
        }
        bar.finish_and_clear();
        Ok(())
    }

    /// Rewrites `keys` with fresh random bytes (scrambling between repetitions).
    pub fn scramble(&self, keys: &[FileKey], seed: u64, progress: bool) -> Result<()> {
        let fill: Vec<&FileKey> = keys
            .iter()
            .filter(|k| !matches!(k, FileKey::NewLog { .. }))
            .collect();
        let bar = progress_bar(
            fill.iter().map(|k| k.size()).sum(),
            progress,
            "scrambling files",
        );
        for k in fill {
            // Still whole random data if cut short: kept (and removed by `finish`).
            write_random(&k.path(), k.size(), seed ^ hash(&k.path()), &bar)?;
        }
        bar.finish_and_clear();
        Ok(())
    }

    /// Removes every file made so far (unless kept); returns the kept paths.
    pub fn finish(&mut self) -> Vec<PathBuf> {
        let paths: Vec<PathBuf> = std::mem::take(&mut self.made).into_keys().collect();
        if self.keep || self.reuse {
            return paths.into_iter().filter(|p| p.exists()).collect();
        }
        for p in &paths {
            let _ = std::fs::remove_file(p);
        }
        Vec::new()
    }
}

impl Drop for FileSet {
    fn drop(&mut self) {
        self.finish();
    }
}

fn hash(p: &Path) -> u64 {
    p.as_os_str()
        .as_encoded_bytes()
        .iter()
        .fold(0xcbf29ce484222325u64, |h, b| {
            (h ^ *b as u64).wrapping_mul(0x100000001b3)
        })
}

fn progress_bar(total: u64, progress: bool, what: &str) -> ProgressBar {
    if !progress {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    bar
}

/// Writes `size` random bytes to `path` (created or truncated) and syncs it; stops
/// with [`pmolap_os::Error::Interrupted`] at the next MiB once an interrupt arrived.
fn write_random(path: &Path, size: u64, seed: u64, bar: &ProgressBar) -> Result<()> {
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    f.set_len(size).map_err(|e| Error::io(path, e))?;
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut chunk = vec![0u8; PREP_CHUNK];
    let mut off = 0u64;
    while off < size {
        pmolap_os::signal::check()?;
        let n = (size - off).min(PREP_CHUNK as u64) as usize;
        rng.fill_bytes(&mut chunk[..n]);
        f.write_all_at(&chunk[..n], off)
            .map_err(|e| Error::io(path, e))?;
        off += n as u64;
        bar.inc(n as u64);
    }
    f.sync_all().map_err(|e| Error::io(path, e))?;
    Ok(())
}

/// Writes back and drops `path`'s pages from the page cache (`fdatasync` +
/// `POSIX_FADV_DONTNEED`), as fio does before a job.
pub fn drop_cache(path: &Path) -> Result<()> {
    let f = File::open(path).map_err(|e| Error::io(path, e))?;
    f.sync_data().map_err(|e| Error::io(path, e))?;
    fadvise(&f, path, Advice::DontNeed)?;
    Ok(())
}
