//! Reading the sysfs and procfs files of a topology: optional files, numbers, CPU and node
//! lists, meminfo lines, and the CPUs, nodes, memory tiers and DAX devices they describe.

use std::path::{Path, PathBuf};

use super::{
    parse_cpulist, Cpu, DaxDevice, HmatAccess, MemoryTier, NodeKind, NumaNode, DEFAULT_DAX_ALIGN,
};
use crate::cpu::CpuFeatures;
use pmolap_os::{Error, Result};

/// Reads a file that may be absent: `Ok(None)` if it does not exist.
pub(super) fn read_optional(path: &Path) -> Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(s) => Ok(Some(s)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path, e)),
    }
}

pub(super) fn parse_err(path: &Path, what: &'static str, reason: impl Into<String>) -> Error {
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

pub(super) fn read_u64(path: &Path, what: &'static str) -> Result<Option<u64>> {
    match read_int(path, what)? {
        None => Ok(None),
        Some(v) => u64::try_from(v)
            .map(Some)
            .map_err(|_| parse_err(path, what, format!("{v} is negative"))),
    }
}

/// A node-number file: `-1` (or any negative) means "no node".
pub(super) fn read_node(path: &Path, what: &'static str) -> Result<Option<u32>> {
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
pub(super) fn meminfo_value(text: &str, key: &str, path: &Path) -> Result<Option<u64>> {
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

pub(super) fn read_cpuinfo(root: &Path) -> Result<(String, CpuFeatures)> {
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

pub(super) fn read_cpus(root: &Path) -> Result<Vec<Cpu>> {
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

pub(super) fn read_memory_tiers(root: &Path) -> Result<Vec<MemoryTier>> {
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

pub(super) fn read_nodes(root: &Path, cpus: &[Cpu], tiers: &[MemoryTier]) -> Result<Vec<NumaNode>> {
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

pub(super) fn read_dax_devices(root: &Path) -> Result<Vec<DaxDevice>> {
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

/// Size (bytes) and NUMA node of a `/dev/NAME` block device, from `/sys/class/block/NAME`.
pub(super) fn block_device_facts(root: &Path, device: &str) -> Result<(Option<u64>, Option<u32>)> {
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
