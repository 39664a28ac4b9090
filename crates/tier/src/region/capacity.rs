//! How many bytes a tier can hold for a new region: free node memory or `MemAvailable`,
//! free filesystem space, or the size of a device-DAX device.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use super::HUGE_PAGE;
use crate::spec::TierSpec;
use crate::topology::Topology;
use pmolap_os::{Error, Result};

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

pub(super) fn parent_dir(path: &Path) -> PathBuf {
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

/// Bytes available to unprivileged users on the filesystem holding `dir` (`statvfs`).
pub fn fs_free_bytes(dir: &Path) -> Result<u64> {
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

pub(super) fn devdax_align(path: &Path) -> usize {
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

pub(super) fn round_up(v: usize, to: usize) -> usize {
    v.div_ceil(to) * to
}
