//! What the machine has: CPUs, NUMA nodes, memory tiers, HMAT figures, DAX devices and mounts.
//!
//! Everything is read from sysfs and procfs below a root directory, so [`Topology::detect_at`]
//! runs on recorded trees (see `tests/fixtures/topology/`) as well as on `/`. Files that a
//! kernel may lack (HMAT, memory tiering, DAX) give `None` or empty lists; files with content
//! that cannot be parsed give [`Error::Parse`] naming the file.

mod mounts;
mod sysfs;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use self::mounts::{longest_mount, options_have_dax, read_mounts, resolve_path};
use self::sysfs::{
    read_cpuinfo, read_cpus, read_dax_devices, read_memory_tiers, read_nodes, read_optional,
};
use crate::cpu::CpuFeatures;
use pmolap_os::{Error, Result};

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
// Detection

impl Topology {
    /// The running machine as this process first read it ([`Topology::detect`], once per
    /// process): for what does not change while it runs (CPUs, nodes, DAX devices and
    /// mounts), e.g. the DAX lookup of every region mapped. Its `mem_free` figures are as
    /// of that first read; [`Topology::detect`] reads them afresh.
    pub fn cached() -> Result<&'static Topology> {
        static ONCE: std::sync::OnceLock<Topology> = std::sync::OnceLock::new();
        if let Some(t) = ONCE.get() {
            return Ok(t);
        }
        // A failed read is not kept: the next call tries again.
        let t = Self::detect()?;
        Ok(ONCE.get_or_init(|| t))
    }

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
        if self.dax_mounts.is_empty() {
            return None; // nothing to resolve the path against (asked per mapped file)
        }
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

#[cfg(test)]
mod tests;
