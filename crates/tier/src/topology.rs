//! What the machine has: CPUs, NUMA nodes, memory tiers, HMAT figures, DAX devices and mounts.
//!
//! Everything is read from sysfs and procfs below a root directory, so [`Topology::detect_at`]
//! runs on recorded trees (see `tests/fixtures/topology/`) as well as on `/`. Files that a
//! kernel may lack (HMAT, memory tiering, DAX) give `None` or empty lists; files with content
//! that cannot be parsed give [`Error::Parse`] naming the file.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::cpu::CpuFeatures;
use crate::error::{Error, Result};

/// The alignment of a device-DAX device whose sysfs directory has no `align` file.
pub const DEFAULT_DAX_ALIGN: u64 = 2 << 20;

/// The largest CPU or node id [`parse_cpulist`] accepts (keeps a corrupt file from
/// asking for a huge allocation).
const MAX_LIST_ID: usize = 1 << 20;

/// The persistence string of tiers whose contents are lost at power-off.
pub(crate) const PERSIST_NONE: &str = "none";
/// The persistence string of page-cache-backed files.
pub(crate) const PERSIST_MSYNC: &str = "msync";
/// The persistence string of DAX tiers (fsdax with `MAP_SYNC`, and devdax).
pub(crate) const PERSIST_FLUSH: &str = "cache-line flush + fence (MAP_SYNC)";

/// A snapshot of the machine's hardware as the kernel reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Topology {
    /// `model name` of the first CPU in `/proc/cpuinfo` (`unknown` if absent).
    pub cpu_model: String,
    /// From the `flags` of `/proc/cpuinfo` for [`Topology::detect_at`]; from CPUID
    /// ([`CpuFeatures::detect`]) for [`Topology::detect`].
    pub cpu_features: CpuFeatures,
    /// `/proc/sys/kernel/osrelease`, trimmed (`unknown` if absent).
    pub kernel_release: String,
    /// Online logical CPUs, sorted by id.
    pub cpus: Vec<Cpu>,
    /// NUMA nodes, sorted by id. A kernel without NUMA support gives one synthesized node 0
    /// with all CPUs and the memory of `/proc/meminfo`.
    pub nodes: Vec<NumaNode>,
    /// `memory_tiering` tiers, sorted by id (empty if the kernel has none).
    pub memory_tiers: Vec<MemoryTier>,
    /// Devices on the DAX bus, sorted by name (empty if none).
    pub dax_devices: Vec<DaxDevice>,
    /// ext4/xfs mounts with the `dax` or `dax=always` option.
    pub dax_mounts: Vec<DaxMount>,
    /// Mounted filesystems that can hold a `file:` tier (pseudo filesystems such as proc,
    /// sysfs and cgroup left out), later mounts of the same mount point replacing earlier.
    #[serde(default)]
    pub filesystems: Vec<Mount>,
}

/// One online logical CPU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cpu {
    pub id: usize,
    /// `topology/core_id` (unique only within a package).
    pub core_id: usize,
    /// `topology/physical_package_id` (the socket).
    pub package_id: usize,
    /// The NUMA node whose `cpulist` names this CPU.
    pub node: Option<u32>,
    /// `topology/thread_siblings_list`: the hardware threads of this CPU's core, itself included.
    pub siblings: Vec<usize>,
}

/// One NUMA node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NumaNode {
    pub id: u32,
    /// `nodeN/cpulist`; empty for a CPU-less memory node (CXL expander, PMEM as kmem).
    pub cpus: Vec<usize>,
    /// Bytes, from `nodeN/meminfo` (`Node N MemTotal: X kB`).
    pub mem_total: u64,
    /// Bytes, from `nodeN/meminfo` (`Node N MemFree: X kB`).
    pub mem_free: u64,
    /// `nodeN/distance`, in the order of [`Topology::nodes`].
    pub distances: Vec<u32>,
    /// The `memory_tierN` whose `nodelist` names this node.
    pub memory_tier: Option<u32>,
    /// HMAT access classes (`access0`, `access1`) the kernel reports for this node as a target.
    pub hmat: Vec<HmatAccess>,
    pub kind: NodeKind,
}

/// What a NUMA node is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum NodeKind {
    /// A node with CPUs (and usually DRAM).
    Dram,
    /// A node with memory but no CPUs: a CXL memory expander or PMEM in kmem mode.
    CpuLessMemory,
}

/// Performance of a memory target as seen from its best initiators (ACPI HMAT), from
/// `nodeN/accessC/initiators/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HmatAccess {
    /// The access class: 0 = from any initiator (CPUs or devices), 1 = from CPUs only.
    pub class: u8,
    /// The initiator nodes (`nodeK` entries of the directory).
    pub initiators: Vec<u32>,
    pub read_latency_ns: Option<u64>,
    pub write_latency_ns: Option<u64>,
    /// MB/s.
    pub read_bandwidth_mbps: Option<u64>,
    /// MB/s.
    pub write_bandwidth_mbps: Option<u64>,
}

/// A kernel memory tier (`/sys/devices/virtual/memory_tiering/memory_tierN`); lower ids are faster.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryTier {
    pub id: u32,
    pub nodes: Vec<u32>,
}

/// A device on the DAX bus (`/sys/bus/dax/devices/daxX.Y`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DaxDevice {
    /// `daxX.Y`.
    pub name: String,
    /// `/dev/daxX.Y` (exists only while the device is bound to `device_dax`).
    pub dev_path: PathBuf,
    /// Bytes.
    pub size: u64,
    /// Bytes; [`DEFAULT_DAX_ALIGN`] if the kernel has no `align` file.
    pub align: u64,
    /// The node the memory would become if onlined as system RAM.
    pub target_node: Option<u32>,
    /// The node the device is attached to.
    pub numa_node: Option<u32>,
    /// The bound driver: `device_dax` (a `/dev/daxX.Y` character device) or `kmem`
    /// (onlined as system RAM, i.e. a CPU-less NUMA node); `None` if unbound or unknown.
    #[serde(default)]
    pub driver: Option<String>,
}

/// A filesystem mounted with DAX (fsdax: loads and stores reach the media, `MAP_SYNC` works).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DaxMount {
    pub device: String,
    pub mount_point: PathBuf,
    pub fs_type: String,
    pub options: String,
}

/// A mounted filesystem that can hold a `file:` tier.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mount {
    pub device: String,
    pub mount_point: PathBuf,
    pub fs_type: String,
    pub options: String,
    /// Bytes: the block device's size (`/sys/class/block/NAME/size`), or tmpfs's `size=`.
    pub size: Option<u64>,
    /// The NUMA node of the block device (`/sys/class/block/NAME/device/numa_node`), if known.
    pub numa_node: Option<u32>,
}

/// Parses a kernel CPU or node list such as `0-3,8,10-11` (empty or blank = no ids).
/// The result is sorted and without duplicates.
pub fn parse_cpulist(s: &str) -> Result<Vec<usize>, String> {
    let mut ids = BTreeSet::new();
    let s = s.trim();
    if s.is_empty() {
        return Ok(Vec::new());
    }
    let num = |t: &str| -> Result<usize, String> {
        let t = t.trim();
        let v = t
            .parse::<usize>()
            .map_err(|_| format!("`{t}` is not a non-negative integer"))?;
        if v > MAX_LIST_ID {
            return Err(format!("id {v} is larger than {MAX_LIST_ID}"));
        }
        Ok(v)
    };
    for part in s.split(',') {
        let part = part.trim();
        if part.is_empty() {
            return Err(format!("empty element in `{s}`"));
        }
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (num(a)?, num(b)?);
                if a > b {
                    return Err(format!("range `{part}` runs backwards"));
                }
                ids.extend(a..=b);
            }
            None => {
                ids.insert(num(part)?);
            }
        }
    }
    Ok(ids.into_iter().collect())
}

/// Writes ids as a compact kernel-style list (`0-3,8,10-11`); the inverse of [`parse_cpulist`].
pub fn format_cpulist(ids: &[usize]) -> String {
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while i + 1 < sorted.len() && sorted[i + 1] == end + 1 {
            i += 1;
            end = sorted[i];
        }
        out.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    out.join(",")
}

// ---------------------------------------------------------------------------------------
// Reading files

/// Reads a file that may be absent: `Ok(None)` if it does not exist.
fn read_optional(path: &Path) -> Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(s) => Ok(Some(s)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path, e)),
    }
}

fn parse_err(path: &Path, what: &'static str, reason: impl Into<String>) -> Error {
    Error::Parse {
        path: path.to_path_buf(),
        what,
        reason: reason.into(),
    }
}

/// A list file that may be absent (absent = `None`).
fn read_list(path: &Path, what: &'static str) -> Result<Option<Vec<usize>>> {
    match read_optional(path)? {
        None => Ok(None),
        Some(s) => parse_cpulist(&s)
            .map(Some)
            .map_err(|r| parse_err(path, what, r)),
    }
}

/// A single-integer file that may be absent; negative values (`-1` = no node) give `None`.
fn read_int(path: &Path, what: &'static str) -> Result<Option<i64>> {
    match read_optional(path)? {
        None => Ok(None),
        Some(s) => {
            let t = s.trim();
            t.parse::<i64>()
                .map(Some)
                .map_err(|_| parse_err(path, what, format!("`{}` is not an integer", shorten(t))))
        }
    }
}

fn read_u64(path: &Path, what: &'static str) -> Result<Option<u64>> {
    match read_int(path, what)? {
        None => Ok(None),
        Some(v) => u64::try_from(v)
            .map(Some)
            .map_err(|_| parse_err(path, what, format!("{v} is negative"))),
    }
}

/// A node-number file: `-1` (or any negative) means "no node".
fn read_node(path: &Path, what: &'static str) -> Result<Option<u32>> {
    match read_int(path, what)? {
        Some(v) if v >= 0 => u32::try_from(v)
            .map(Some)
            .map_err(|_| parse_err(path, what, format!("{v} is too large"))),
        _ => Ok(None),
    }
}

/// At most 40 characters of `s`, for error messages that stay one line.
fn shorten(s: &str) -> String {
    let first = s.lines().next().unwrap_or("");
    if first.chars().count() > 40 || first.len() != s.len() {
        format!("{}…", first.chars().take(40).collect::<String>())
    } else {
        first.to_string()
    }
}

/// Entries `<prefix><number>` of a directory, as sorted `(number, path)`; empty if the
/// directory does not exist.
fn numbered_entries(dir: &Path, prefix: &str) -> Result<Vec<(u32, PathBuf)>> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(dir, e)),
    };
    let mut out = Vec::new();
    for entry in rd {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(num) = name.strip_prefix(prefix) else {
            continue;
        };
        if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        if let Ok(id) = num.parse::<u32>() {
            out.push((id, entry.path()));
        }
    }
    out.sort_by_key(|(id, _)| *id);
    Ok(out)
}

/// The value of `key` (e.g. `MemTotal:`) in a meminfo-style file, in bytes (the kernel
/// writes kB). `None` if no line has the key.
fn meminfo_value(text: &str, key: &str, path: &Path) -> Result<Option<u64>> {
    for line in text.lines() {
        let mut toks = line.split_whitespace();
        // "MemTotal: X kB" or "Node 0 MemTotal: X kB".
        if toks.by_ref().any(|t| t == key) {
            let v = toks
                .next()
                .ok_or_else(|| parse_err(path, "meminfo", format!("`{key}` has no value")))?;
            let n = v.parse::<u64>().map_err(|_| {
                parse_err(
                    path,
                    "meminfo",
                    format!("`{key}` value `{}` is not a number", shorten(v)),
                )
            })?;
            let mult = match toks.next() {
                Some("kB") => 1024,
                None => 1,
                Some(u) => {
                    return Err(parse_err(
                        path,
                        "meminfo",
                        format!("unknown unit `{}` for `{key}`", shorten(u)),
                    ))
                }
            };
            return Ok(Some(n.saturating_mul(mult)));
        }
    }
    Ok(None)
}

/// Undoes the octal escapes of `/proc/mounts` (`\040` for a space, etc.).
fn unescape_mount_field(s: &str) -> String {
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
fn options_have_dax(options: &str) -> bool {
    options.split(',').any(|o| o == "dax" || o == "dax=always")
}

/// Parses a size option value such as `24684084k` into bytes.
fn parse_size_option(v: &str) -> Option<u64> {
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
fn resolve_path(path: &Path) -> PathBuf {
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
fn longest_mount<'a, I>(path: &Path, points: I) -> Option<(usize, usize)>
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

// ---------------------------------------------------------------------------------------
// Detection

impl Topology {
    /// Detects the running machine from `/sys` and `/proc`; CPU features from CPUID.
    pub fn detect() -> Result<Self> {
        let mut t = Self::detect_at(Path::new("/"))?;
        t.cpu_features = CpuFeatures::detect();
        Ok(t)
    }

    /// Detects a machine from the sysfs/procfs tree below `root` (`root/sys/...`,
    /// `root/proc/...`), CPU features included (from `root/proc/cpuinfo`).
    pub fn detect_at(root: &Path) -> Result<Self> {
        std::fs::metadata(root).map_err(|e| Error::io(root, e))?;
        let (cpu_model, cpu_features) = read_cpuinfo(root)?;
        let kernel_release = read_optional(&root.join("proc/sys/kernel/osrelease"))?
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "unknown".into());
        let mut cpus = read_cpus(root)?;
        let memory_tiers = read_memory_tiers(root)?;
        let mut nodes = read_nodes(root, &cpus, &memory_tiers)?;
        for cpu in &mut cpus {
            cpu.node = nodes
                .iter()
                .find(|n| n.cpus.contains(&cpu.id))
                .map(|n| n.id);
        }
        // Keep only online CPUs in the node lists.
        let online: BTreeSet<usize> = cpus.iter().map(|c| c.id).collect();
        for n in &mut nodes {
            n.cpus.retain(|c| online.contains(c));
        }
        let dax_devices = read_dax_devices(root)?;
        let filesystems = read_mounts(root)?;
        let dax_mounts = filesystems
            .iter()
            .filter(|m| {
                matches!(m.fs_type.as_str(), "ext4" | "xfs") && options_have_dax(&m.options)
            })
            .map(|m| DaxMount {
                device: m.device.clone(),
                mount_point: m.mount_point.clone(),
                fs_type: m.fs_type.clone(),
                options: m.options.clone(),
            })
            .collect();
        Ok(Topology {
            cpu_model,
            cpu_features,
            kernel_release,
            cpus,
            nodes,
            memory_tiers,
            dax_devices,
            dax_mounts,
            filesystems,
        })
    }

    /// The node with this id.
    pub fn node(&self, id: u32) -> Option<&NumaNode> {
        self.nodes.iter().find(|n| n.id == id)
    }

    /// Ids of the nodes that have memory.
    pub fn memory_nodes(&self) -> Vec<u32> {
        self.nodes
            .iter()
            .filter(|n| n.mem_total > 0)
            .map(|n| n.id)
            .collect()
    }

    /// The node of an online CPU.
    pub fn node_of_cpu(&self, cpu: usize) -> Option<u32> {
        self.cpus.iter().find(|c| c.id == cpu).and_then(|c| c.node)
    }

    /// CPUs for pinning, physical cores first: one thread per physical core (lowest id per
    /// core), then the hyperthread siblings; restricted to `node` if given.
    pub fn cpus_physical_first(&self, node: Option<u32>) -> Vec<usize> {
        let mut cpus: Vec<&Cpu> = self
            .cpus
            .iter()
            .filter(|c| node.is_none() || c.node == node)
            .collect();
        cpus.sort_by_key(|c| c.id);
        let mut seen_cores = BTreeSet::new();
        let mut first = Vec::new();
        let mut rest = Vec::new();
        for c in cpus {
            // CPUs are visited by id, so the lowest id of each core comes first.
            if seen_cores.insert((c.package_id, c.core_id)) {
                first.push(c.id);
            } else {
                rest.push(c.id);
            }
        }
        first.extend(rest);
        first
    }

    /// The DAX mount holding `path` (longest mount-point prefix match; `path` need not
    /// exist yet — its existing parent directories are resolved), if any. `None` if a
    /// non-DAX filesystem is mounted deeper on the way to `path`.
    pub fn dax_mount_for(&self, path: &Path) -> Option<&DaxMount> {
        let p = resolve_path(path);
        let (di, ddepth) =
            longest_mount(&p, self.dax_mounts.iter().map(|m| m.mount_point.as_path()))?;
        let deeper_non_dax =
            longest_mount(&p, self.filesystems.iter().map(|m| m.mount_point.as_path()))
                .is_some_and(|(fi, fdepth)| {
                    fdepth > ddepth && !options_have_dax(&self.filesystems[fi].options)
                });
        if deeper_non_dax {
            None
        } else {
            self.dax_mounts.get(di)
        }
    }

    /// The mounted filesystem holding `path` (longest mount-point prefix), if known.
    pub fn filesystem_for(&self, path: &Path) -> Option<&Mount> {
        let p = resolve_path(path);
        let (i, _) = longest_mount(&p, self.filesystems.iter().map(|m| m.mount_point.as_path()))?;
        self.filesystems.get(i)
    }
}

/// One line per distinct HMAT figure set: classes with the same initiators and figures
/// (commonly `access0` and `access1`) share a line (`HMAT access0+1 ...`).
pub fn hmat_notes(hmat: &[HmatAccess]) -> Vec<String> {
    let same = |a: &HmatAccess, b: &HmatAccess| {
        a.initiators == b.initiators
            && a.read_latency_ns == b.read_latency_ns
            && a.write_latency_ns == b.write_latency_ns
            && a.read_bandwidth_mbps == b.read_bandwidth_mbps
            && a.write_bandwidth_mbps == b.write_bandwidth_mbps
    };
    let mut groups: Vec<(Vec<String>, &HmatAccess)> = Vec::new();
    for h in hmat {
        match groups.iter_mut().find(|(_, g)| same(g, h)) {
            Some((classes, _)) => classes.push(h.class.to_string()),
            None => groups.push((vec![h.class.to_string()], h)),
        }
    }
    groups
        .into_iter()
        .map(|(classes, h)| hmat_line(&classes.join("+"), h))
        .collect()
}

fn hmat_line(classes: &str, h: &HmatAccess) -> String {
    let ini: Vec<String> = h.initiators.iter().map(|i| i.to_string()).collect();
    let mut parts = Vec::new();
    let mut put = |label: &str, v: Option<u64>, unit: &str| {
        if let Some(v) = v {
            parts.push(format!("{label} {v} {unit}"));
        }
    };
    put("read", h.read_latency_ns, "ns");
    put("write", h.write_latency_ns, "ns");
    put("read", h.read_bandwidth_mbps, "MB/s");
    put("write", h.write_bandwidth_mbps, "MB/s");
    let from = if ini.is_empty() {
        String::new()
    } else {
        format!(" from node {}", ini.join(","))
    };
    if parts.is_empty() {
        format!("HMAT access{classes}{from}: no figures")
    } else {
        format!("HMAT access{classes}{from}: {}", parts.join(", "))
    }
}

/// Bytes in the largest binary unit that keeps one decimal (`2 MiB`, `1.5 TiB`).
pub(crate) fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if (v - v.round()).abs() < 0.05 {
        format!("{} {}", v.round(), UNITS[u])
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

fn read_cpuinfo(root: &Path) -> Result<(String, CpuFeatures)> {
    let path = root.join("proc/cpuinfo");
    let Some(text) = read_optional(&path)? else {
        return Ok(("unknown".into(), CpuFeatures::default()));
    };
    let value = |key: &str| {
        text.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == key).then(|| v.trim().to_string())
        })
    };
    let model = value("model name")
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| "unknown".into());
    let features = value("flags")
        .map(|f| CpuFeatures::from_cpuinfo_flags(&f))
        .unwrap_or_default();
    Ok((model, features))
}

fn read_cpus(root: &Path) -> Result<Vec<Cpu>> {
    let cpu_dir = root.join("sys/devices/system/cpu");
    let ids: Vec<usize> = match read_list(&cpu_dir.join("online"), "cpu list")? {
        Some(ids) => ids,
        None => {
            let dirs = numbered_entries(&cpu_dir, "cpu")?;
            if dirs.is_empty() {
                cpuinfo_processors(root)?
            } else {
                dirs.into_iter().map(|(id, _)| id as usize).collect()
            }
        }
    };
    let mut cpus = Vec::with_capacity(ids.len());
    for id in ids {
        let topo = cpu_dir.join(format!("cpu{id}/topology"));
        let core_id = read_u64(&topo.join("core_id"), "core id")?;
        let package_id = read_int(&topo.join("physical_package_id"), "package id")?;
        let siblings = read_list(&topo.join("thread_siblings_list"), "cpu list")?;
        cpus.push(Cpu {
            id,
            core_id: core_id.and_then(|v| usize::try_from(v).ok()).unwrap_or(id),
            // Some virtual machines report -1.
            package_id: package_id
                .and_then(|v| usize::try_from(v).ok())
                .unwrap_or(0),
            node: None,
            siblings: siblings
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| vec![id]),
        });
    }
    Ok(cpus)
}

/// The `processor` ids of `/proc/cpuinfo` (for trees without `/sys/devices/system/cpu`).
fn cpuinfo_processors(root: &Path) -> Result<Vec<usize>> {
    let path = root.join("proc/cpuinfo");
    let Some(text) = read_optional(&path)? else {
        return Ok(Vec::new());
    };
    let mut ids = Vec::new();
    for line in text.lines() {
        if let Some((k, v)) = line.split_once(':') {
            if k.trim() == "processor" {
                let v = v.trim();
                ids.push(v.parse::<usize>().map_err(|_| {
                    parse_err(
                        &path,
                        "processor number",
                        format!("`{}` is not a number", shorten(v)),
                    )
                })?);
            }
        }
    }
    ids.sort_unstable();
    ids.dedup();
    Ok(ids)
}

fn read_memory_tiers(root: &Path) -> Result<Vec<MemoryTier>> {
    let dir = root.join("sys/devices/virtual/memory_tiering");
    let mut tiers = Vec::new();
    for (id, path) in numbered_entries(&dir, "memory_tier")? {
        let nodes = read_list(&path.join("nodelist"), "node list")?.unwrap_or_default();
        tiers.push(MemoryTier {
            id,
            nodes: nodes
                .into_iter()
                .filter_map(|n| u32::try_from(n).ok())
                .collect(),
        });
    }
    Ok(tiers)
}

fn read_nodes(root: &Path, cpus: &[Cpu], tiers: &[MemoryTier]) -> Result<Vec<NumaNode>> {
    let node_dir = root.join("sys/devices/system/node");
    let entries = numbered_entries(&node_dir, "node")?;
    let tier_of = |id: u32| tiers.iter().find(|t| t.nodes.contains(&id)).map(|t| t.id);
    if entries.is_empty() {
        // No NUMA support in the kernel: one node with everything.
        let path = root.join("proc/meminfo");
        let (total, free) = match read_optional(&path)? {
            Some(text) => (
                meminfo_value(&text, "MemTotal:", &path)?.unwrap_or(0),
                meminfo_value(&text, "MemFree:", &path)?.unwrap_or(0),
            ),
            None => (0, 0),
        };
        let all: Vec<usize> = cpus.iter().map(|c| c.id).collect();
        return Ok(vec![NumaNode {
            id: 0,
            kind: if all.is_empty() {
                NodeKind::CpuLessMemory
            } else {
                NodeKind::Dram
            },
            cpus: all,
            mem_total: total,
            mem_free: free,
            distances: vec![10],
            memory_tier: tier_of(0),
            hmat: Vec::new(),
        }]);
    }
    let mut nodes = Vec::with_capacity(entries.len());
    for (id, dir) in entries {
        let cpus = read_list(&dir.join("cpulist"), "cpu list")?.unwrap_or_default();
        let meminfo = dir.join("meminfo");
        let (mem_total, mem_free) = match read_optional(&meminfo)? {
            Some(text) => (
                meminfo_value(&text, "MemTotal:", &meminfo)?.unwrap_or(0),
                meminfo_value(&text, "MemFree:", &meminfo)?.unwrap_or(0),
            ),
            None => (0, 0),
        };
        let dist_path = dir.join("distance");
        let distances = match read_optional(&dist_path)? {
            Some(text) => text
                .split_whitespace()
                .map(|t| {
                    t.parse::<u32>().map_err(|_| {
                        parse_err(
                            &dist_path,
                            "distances",
                            format!("`{}` is not a number", shorten(t)),
                        )
                    })
                })
                .collect::<Result<Vec<u32>>>()?,
            None => Vec::new(),
        };
        let mut hmat = Vec::new();
        for class in 0u8..=1 {
            let acc = dir.join(format!("access{class}/initiators"));
            if !acc.is_dir() {
                continue;
            }
            hmat.push(HmatAccess {
                class,
                initiators: numbered_entries(&acc, "node")?
                    .into_iter()
                    .map(|(n, _)| n)
                    .collect(),
                read_latency_ns: read_u64(&acc.join("read_latency"), "HMAT latency")?,
                write_latency_ns: read_u64(&acc.join("write_latency"), "HMAT latency")?,
                read_bandwidth_mbps: read_u64(&acc.join("read_bandwidth"), "HMAT bandwidth")?,
                write_bandwidth_mbps: read_u64(&acc.join("write_bandwidth"), "HMAT bandwidth")?,
            });
        }
        nodes.push(NumaNode {
            id,
            kind: if cpus.is_empty() {
                NodeKind::CpuLessMemory
            } else {
                NodeKind::Dram
            },
            cpus,
            mem_total,
            mem_free,
            distances,
            memory_tier: tier_of(id),
            hmat,
        });
    }
    Ok(nodes)
}

fn read_dax_devices(root: &Path) -> Result<Vec<DaxDevice>> {
    let dir = root.join("sys/bus/dax/devices");
    let rd = match std::fs::read_dir(&dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(&dir, e)),
    };
    let mut devs = Vec::new();
    for entry in rd {
        let entry = entry.map_err(|e| Error::io(&dir, e))?;
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        let p = entry.path();
        let driver = std::fs::read_link(p.join("driver"))
            .ok()
            .and_then(|t| t.file_name().and_then(|n| n.to_str()).map(str::to_string));
        devs.push(DaxDevice {
            dev_path: PathBuf::from("/dev").join(&name),
            size: read_u64(&p.join("size"), "DAX device size")?.unwrap_or(0),
            align: read_u64(&p.join("align"), "DAX alignment")?
                .filter(|&a| a > 0)
                .unwrap_or(DEFAULT_DAX_ALIGN),
            target_node: read_node(&p.join("target_node"), "node number")?,
            numa_node: read_node(&p.join("numa_node"), "node number")?,
            driver,
            name,
        });
    }
    devs.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(devs)
}

fn read_mounts(root: &Path) -> Result<Vec<Mount>> {
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

/// Size (bytes) and NUMA node of a `/dev/NAME` block device, from `/sys/class/block/NAME`.
fn block_device_facts(root: &Path, device: &str) -> Result<(Option<u64>, Option<u32>)> {
    let Some(name) = device.strip_prefix("/dev/") else {
        return Ok((None, None));
    };
    if name.is_empty() || name.contains('/') || name.starts_with('.') {
        return Ok((None, None));
    }
    let dir = root.join("sys/class/block").join(name);
    let size = read_u64(&dir.join("size"), "block device size")?.map(|s| s.saturating_mul(512));
    let node = read_node(&dir.join("device/numa_node"), "node number")?;
    Ok((size, node))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpulist_forms() {
        assert_eq!(
            parse_cpulist("0-3,8,10-11\n").unwrap(),
            vec![0, 1, 2, 3, 8, 10, 11]
        );
        assert_eq!(parse_cpulist("5").unwrap(), vec![5]);
        assert_eq!(parse_cpulist("").unwrap(), Vec::<usize>::new());
        assert_eq!(parse_cpulist("\n").unwrap(), Vec::<usize>::new());
        assert_eq!(parse_cpulist("3,1,1-2").unwrap(), vec![1, 2, 3]);
    }

    #[test]
    fn cpulist_errors() {
        assert!(parse_cpulist("0-x").unwrap_err().contains("`x`"));
        assert!(parse_cpulist("3-1").unwrap_err().contains("backwards"));
        assert!(parse_cpulist("1,,2").is_err());
        assert!(parse_cpulist("-1").is_err());
        assert!(parse_cpulist("0-4294967295")
            .unwrap_err()
            .contains("larger"));
    }

    #[test]
    fn cpulist_round_trip() {
        let ids = vec![0, 1, 2, 3, 8, 10, 11, 36];
        assert_eq!(format_cpulist(&ids), "0-3,8,10-11,36");
        assert_eq!(parse_cpulist(&format_cpulist(&ids)).unwrap(), ids);
        assert_eq!(format_cpulist(&[]), "");
    }

    #[test]
    fn mount_escapes_and_sizes() {
        assert_eq!(unescape_mount_field("/mnt/my\\040disk"), "/mnt/my disk");
        assert_eq!(unescape_mount_field("/plain\\"), "/plain\\");
        assert_eq!(parse_size_option("24684084k"), Some(24684084 * 1024));
        assert_eq!(parse_size_option("4g"), Some(4 << 30));
        assert_eq!(parse_size_option("50%"), None);
        assert!(options_have_dax("rw,relatime,dax=always"));
        assert!(options_have_dax("rw,dax"));
        assert!(!options_have_dax("rw,dax=never"));
        assert!(!options_have_dax("rw,dax=inode"));
    }

    #[test]
    fn meminfo_lines() {
        let p = Path::new("meminfo");
        let t = "Node 1 MemTotal:       67108864 kB\nNode 1 MemFree:  100 kB\n";
        assert_eq!(meminfo_value(t, "MemTotal:", p).unwrap(), Some(64 << 30));
        assert_eq!(meminfo_value(t, "MemFree:", p).unwrap(), Some(102400));
        assert_eq!(meminfo_value(t, "MemUsed:", p).unwrap(), None);
        assert!(meminfo_value("MemTotal: lots kB", "MemTotal:", p).is_err());
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human_bytes(2 << 20), "2 MiB");
        assert_eq!(human_bytes(3 << 39), "1.5 TiB");
    }
}
