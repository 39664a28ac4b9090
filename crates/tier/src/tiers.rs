//! The machine's tier list: the one function that says which tiers this machine has, used
//! by `pmolap topology`, `ssb tiers`, `ssb breakdown` and `demo` alike.
//!
//! Every memory node (plain `dram` first; on a machine with several memory nodes, each
//! node as `dram:node=N`, CPU-less ones as CXL / far memory), each device-DAX device, each
//! DAX mount (fsdax), `/dev/shm` when it is a tmpfs, and the filesystem holding a data
//! directory, twice: with a warm page cache and cold (pages dropped before each run).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::topology::{
    format_cpulist, hmat_notes, human_bytes, NodeKind, NumaNode, Topology, PERSIST_FLUSH,
    PERSIST_MSYNC, PERSIST_NONE,
};

/// What kind of medium a tier is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TierClass {
    /// DRAM with the default (local) allocation policy: the baseline.
    Dram,
    /// One NUMA node's DRAM, bound (`dram:node=N`).
    NumaNode,
    /// A CPU-less memory node: a CXL expander or PMEM onlined as system RAM (kmem).
    FarMemory,
    /// A device-DAX character device (`devdax:`): one mapping, no filesystem.
    Devdax,
    /// A DAX filesystem (fsdax): files mapped with `MAP_SYNC`.
    Fsdax,
    /// A tmpfs: DRAM behind a file.
    Tmpfs,
    /// A page-cache filesystem on a block device (SSD, disk).
    Disk,
    /// Not recorded (a result document written before tiers had a class).
    #[default]
    Unrecorded,
}

/// A tier a user can run on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TierInfo {
    /// A short name for tables and reports (`dram`, `node 1`, `disk ext4:/dev/vda cold`).
    #[serde(default)]
    pub name: String,
    /// A [`crate::TierSpec`] string.
    pub spec: String,
    #[serde(default)]
    pub class: TierClass,
    /// A longer description of the kind (`fsdax (ext4, dax=always)`).
    pub kind: String,
    /// Pages are dropped from the page cache before each run (a cold disk).
    #[serde(default)]
    pub cold: bool,
    /// Bytes (0 if unknown).
    pub capacity: u64,
    pub numa_node: Option<u32>,
    /// `none`, `msync` or `cache-line flush + fence (MAP_SYNC)`.
    pub persistence: String,
    /// HMAT latency/bandwidth, memory tier, distances, device facts.
    pub notes: Vec<String>,
}

impl Topology {
    /// The tiers a user can run on, with the current directory as the data directory.
    pub fn tiers(&self) -> Vec<TierInfo> {
        let cwd = std::env::current_dir().unwrap_or_else(|_| ".".into());
        self.tiers_for(&cwd)
    }

    /// The machine's tier list (module docs) for data kept in `data_dir`: its filesystem
    /// is the disk tier (warm and cold) unless it is a tmpfs or a DAX mount, which are
    /// listed as such.
    pub fn tiers_for(&self, data_dir: &Path) -> Vec<TierInfo> {
        let mut out = Vec::new();
        let mem_nodes: Vec<&NumaNode> = self.nodes.iter().filter(|n| n.mem_total > 0).collect();
        if mem_nodes.len() != 1 {
            out.push(TierInfo {
                name: "dram".into(),
                spec: "dram".into(),
                class: TierClass::Dram,
                kind: "dram (default policy: the running thread's node)".into(),
                cold: false,
                capacity: mem_nodes
                    .iter()
                    .filter(|n| n.kind == NodeKind::Dram)
                    .map(|n| n.mem_total)
                    .sum(),
                numa_node: None,
                persistence: PERSIST_NONE.into(),
                notes: Vec::new(),
            });
        }
        for n in &mem_nodes {
            out.push(self.node_tier(n, mem_nodes.len() == 1));
        }
        self.device_tiers(&mut out);
        let data_fs = self.filesystem_for(data_dir);
        let data_on_tmpfs = data_fs.is_some_and(|f| f.fs_type == "tmpfs");
        if let Some(shm) = self
            .filesystems
            .iter()
            .find(|m| m.mount_point == Path::new("/dev/shm") && m.fs_type == "tmpfs")
        {
            out.push(TierInfo {
                name: "/dev/shm".into(),
                spec: "file:/dev/shm".into(),
                class: TierClass::Tmpfs,
                kind: "tmpfs (DRAM-backed file)".into(),
                cold: false,
                capacity: shm.size.unwrap_or(0),
                numa_node: None,
                persistence: PERSIST_NONE.into(),
                notes: vec!["DRAM behind a file: lost at power-off".into()],
            });
        }
        if !data_on_tmpfs && self.dax_mount_for(data_dir).is_none() {
            let (fsname, kind, notes) = match data_fs {
                Some(f) => (
                    format!("{}:{}", f.fs_type, f.device),
                    format!("file ({} page cache)", f.fs_type),
                    vec![format!(
                        "filesystem {} on {} mounted at {} (holds {})",
                        f.fs_type,
                        f.device,
                        f.mount_point.display(),
                        data_dir.display()
                    )],
                ),
                None => (
                    "?".to_string(),
                    "file (page cache)".to_string(),
                    vec![format!(
                        "{} is on no filesystem in /proc/mounts",
                        data_dir.display()
                    )],
                ),
            };
            for cold in [false, true] {
                let mut notes = notes.clone();
                if cold {
                    notes.push(
                        "pages dropped (POSIX_FADV_DONTNEED) before each run: the device is read"
                            .into(),
                    );
                }
                out.push(TierInfo {
                    name: format!("disk {fsname} {}", if cold { "cold" } else { "warm" }),
                    spec: format!("file:{}", data_dir.display()),
                    class: TierClass::Disk,
                    kind: kind.clone(),
                    cold,
                    capacity: data_fs.and_then(|f| f.size).unwrap_or(0),
                    numa_node: data_fs.and_then(|f| f.numa_node),
                    persistence: PERSIST_MSYNC.into(),
                    notes,
                });
            }
        }
        out
    }

    fn node_tier(&self, n: &NumaNode, single: bool) -> TierInfo {
        let node_ids: Vec<String> = self.nodes.iter().map(|n| n.id.to_string()).collect();
        let mut notes = Vec::new();
        match n.kind {
            NodeKind::Dram => notes.push(format!("cpus {}", format_cpulist(&n.cpus))),
            NodeKind::CpuLessMemory => {
                notes.push("no cpus: memory-only node (CXL expander or PMEM in kmem mode)".into())
            }
        }
        for d in self
            .dax_devices
            .iter()
            .filter(|d| d.target_node == Some(n.id))
        {
            if d.driver.as_deref() == Some("kmem") {
                notes.push(format!("onlined from {} by the kmem driver", d.name));
            }
        }
        if let Some(t) = n.memory_tier {
            notes.push(format!("memory tier {t} (lower = faster)"));
        }
        if self.nodes.len() > 1 && !n.distances.is_empty() {
            let d: Vec<String> = n.distances.iter().map(|d| d.to_string()).collect();
            notes.push(format!(
                "distances {} to nodes {}",
                d.join(" "),
                node_ids.join(" ")
            ));
        }
        notes.extend(hmat_notes(&n.hmat));
        let (class, kind) = match (single, n.kind) {
            (true, _) => (TierClass::Dram, "dram"),
            (false, NodeKind::Dram) => (TierClass::NumaNode, "dram"),
            (false, NodeKind::CpuLessMemory) => (TierClass::FarMemory, "cxl/far-memory node"),
        };
        TierInfo {
            name: if single {
                "dram".into()
            } else {
                format!("node {}", n.id)
            },
            spec: if single {
                "dram".into()
            } else {
                format!("dram:node={}", n.id)
            },
            class,
            kind: kind.into(),
            cold: false,
            capacity: n.mem_total,
            numa_node: Some(n.id),
            persistence: PERSIST_NONE.into(),
            notes,
        }
    }

    /// device-DAX devices (bound to `device_dax`) and DAX mounts.
    fn device_tiers(&self, out: &mut Vec<TierInfo>) {
        for d in &self.dax_devices {
            if d.driver.as_deref().is_some_and(|drv| drv != "device_dax") {
                continue;
            }
            let mut notes = vec![format!("align {}", human_bytes(d.align))];
            if let Some(n) = d.numa_node {
                notes.push(format!("attached to node {n}"));
            }
            if let Some(t) = d.target_node {
                notes.push(format!("would be node {t} if onlined as system RAM (kmem)"));
            }
            notes.push("mappings are synchronous: no page cache, no msync".into());
            out.push(TierInfo {
                name: format!("devdax {}", d.dev_path.display()),
                spec: format!("devdax:{}", d.dev_path.display()),
                class: TierClass::Devdax,
                kind: "devdax".into(),
                cold: false,
                capacity: d.size,
                numa_node: d.numa_node,
                persistence: PERSIST_FLUSH.into(),
                notes,
            });
        }
        for m in &self.dax_mounts {
            let fs = self
                .filesystems
                .iter()
                .find(|f| f.mount_point == m.mount_point);
            let opts: Vec<&str> = m
                .options
                .split(',')
                .filter(|o| o.starts_with("dax"))
                .collect();
            out.push(TierInfo {
                name: format!("fsdax {}", m.mount_point.display()),
                spec: format!("file:{}", m.mount_point.display()),
                class: TierClass::Fsdax,
                kind: format!("fsdax ({}, {})", m.fs_type, opts.join(",")),
                cold: false,
                capacity: fs.and_then(|f| f.size).unwrap_or(0),
                numa_node: fs.and_then(|f| f.numa_node),
                persistence: PERSIST_FLUSH.into(),
                notes: vec![
                    format!("device {}", m.device),
                    "files are mapped with MAP_SYNC".into(),
                ],
            });
        }
    }
}
