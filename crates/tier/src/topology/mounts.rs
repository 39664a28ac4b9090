//! The mount table: `/proc/mounts` parsed into [`Mount`]s (pseudo filesystems left out),
//! DAX mount options, and finding the mount that holds a path.

use std::path::{Component, Path, PathBuf};

use super::sysfs::{block_device_facts, parse_err, read_optional};
use super::Mount;
use pmolap_os::Result;

/// Undoes the octal escapes of `/proc/mounts` (`\040` for a space, etc.).
pub(super) fn unescape_mount_field(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && i + 3 < bytes.len() {
            let oct = &bytes[i + 1..i + 4];
            if oct.iter().all(|b| (b'0'..=b'7').contains(b)) {
                let v = (oct[0] - b'0') as u32 * 64
                    + (oct[1] - b'0') as u32 * 8
                    + (oct[2] - b'0') as u32;
                if let Ok(b) = u8::try_from(v) {
                    out.push(b);
                    i += 4;
                    continue;
                }
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Filesystems that cannot hold a `file:` tier.
const PSEUDO_FS: &[&str] = &[
    "proc",
    "sysfs",
    "devtmpfs",
    "devpts",
    "cgroup",
    "cgroup2",
    "mqueue",
    "debugfs",
    "tracefs",
    "securityfs",
    "pstore",
    "bpf",
    "configfs",
    "fusectl",
    "autofs",
    "binfmt_misc",
    "rpc_pipefs",
    "nsfs",
    "efivarfs",
    "hugetlbfs",
    "selinuxfs",
];

/// Whether mount options turn DAX on for the whole filesystem.
pub(super) fn options_have_dax(options: &str) -> bool {
    options.split(',').any(|o| o == "dax" || o == "dax=always")
}

/// Parses a size option value such as `24684084k` into bytes.
pub(super) fn parse_size_option(v: &str) -> Option<u64> {
    let (digits, mult) = match v.as_bytes().last()? {
        b'k' | b'K' => (&v[..v.len() - 1], 1u64 << 10),
        b'm' | b'M' => (&v[..v.len() - 1], 1 << 20),
        b'g' | b'G' => (&v[..v.len() - 1], 1 << 30),
        b't' | b'T' => (&v[..v.len() - 1], 1 << 40),
        b'0'..=b'9' => (v, 1),
        _ => return None,
    };
    digits.parse::<u64>().ok().map(|n| n.saturating_mul(mult))
}

/// `path` made absolute and free of symlinks as far as it exists, with the rest (which
/// need not exist yet) appended lexically.
pub(super) fn resolve_path(path: &Path) -> PathBuf {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    };
    let mut existing = abs.as_path();
    let mut tail: Vec<Component<'_>> = Vec::new();
    loop {
        if let Ok(c) = existing.canonicalize() {
            let mut out = c;
            for comp in tail.iter().rev() {
                match comp {
                    Component::ParentDir => {
                        out.pop();
                    }
                    Component::CurDir => {}
                    other => out.push(other.as_os_str()),
                }
            }
            return out;
        }
        let Some(parent) = existing.parent() else {
            break;
        };
        if let Some(last) = existing.components().next_back() {
            tail.push(last);
        }
        existing = parent;
    }
    // Nothing exists (not even `/`): normalise lexically.
    let mut out = PathBuf::new();
    for comp in abs.components() {
        match comp {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The index of the entry whose mount point is the longest prefix of `path`.
pub(super) fn longest_mount<'a, I>(path: &Path, points: I) -> Option<(usize, usize)>
where
    I: Iterator<Item = &'a Path>,
{
    let mut best: Option<(usize, usize)> = None; // (index, depth)
    for (i, mp) in points.enumerate() {
        if path.starts_with(mp) {
            let depth = mp.components().count();
            if best.is_none_or(|(_, d)| depth >= d) {
                best = Some((i, depth));
            }
        }
    }
    best
}

pub(super) fn read_mounts(root: &Path) -> Result<Vec<Mount>> {
    let path = root.join("proc/mounts");
    let Some(text) = read_optional(&path)? else {
        return Ok(Vec::new());
    };
    let mut mounts: Vec<Mount> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 4 {
            return Err(parse_err(
                &path,
                "mount table",
                format!("line {} has {} fields, expected at least 4", i + 1, f.len()),
            ));
        }
        let (device, mount_point, fs_type, options) = (
            unescape_mount_field(f[0]),
            PathBuf::from(unescape_mount_field(f[1])),
            f[2],
            f[3],
        );
        if PSEUDO_FS.contains(&fs_type)
            || mount_point.starts_with("/proc")
            || mount_point.starts_with("/sys")
        {
            continue;
        }
        let (size, numa_node) = if fs_type == "tmpfs" {
            let size = options
                .split(',')
                .find_map(|o| o.strip_prefix("size="))
                .and_then(parse_size_option);
            (size, None)
        } else {
            block_device_facts(root, &device)?
        };
        mounts.retain(|m| m.mount_point != mount_point);
        mounts.push(Mount {
            device,
            mount_point,
            fs_type: fs_type.to_string(),
            options: options.to_string(),
            size,
            numa_node,
        });
    }
    Ok(mounts)
}
