//! Machine metadata recorded with every result: CPU, cores, NUMA layout, tiers, kernel,
//! pmolap version.

use serde::{Deserialize, Serialize};

use pmolap_tier::topology::{NodeKind, Topology};
use pmolap_tier::TierInfo;

/// What the results were measured on.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Machine {
    pub hostname: String,
    pub cpu_model: String,
    pub cpu_features: Vec<String>,
    pub logical_cpus: usize,
    pub physical_cores: usize,
    pub sockets: usize,
    pub numa_nodes: Vec<NodeSummary>,
    pub tiers: Vec<TierInfo>,
    pub os: String,
    pub kernel_release: String,
    pub pmolap_version: String,
}

/// One NUMA node in brief.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NodeSummary {
    pub id: u32,
    pub cpus: Vec<usize>,
    pub mem_total: u64,
    pub cpu_less: bool,
    pub distances: Vec<u32>,
}

impl Machine {
    /// Collects the metadata from a detected topology.
    pub fn from_topology(t: &Topology) -> Machine {
        let mut cores: Vec<(usize, usize)> =
            t.cpus.iter().map(|c| (c.package_id, c.core_id)).collect();
        cores.sort_unstable();
        cores.dedup();
        let mut sockets: Vec<usize> = t.cpus.iter().map(|c| c.package_id).collect();
        sockets.sort_unstable();
        sockets.dedup();
        Machine {
            hostname: std::fs::read_to_string("/proc/sys/kernel/hostname")
                .map(|s| s.trim().to_string())
                .unwrap_or_default(),
            cpu_model: t.cpu_model.clone(),
            cpu_features: t
                .cpu_features
                .names()
                .iter()
                .map(|s| s.to_string())
                .collect(),
            logical_cpus: t.cpus.len(),
            physical_cores: cores.len(),
            sockets: sockets.len(),
            numa_nodes: t
                .nodes
                .iter()
                .map(|n| NodeSummary {
                    id: n.id,
                    cpus: n.cpus.clone(),
                    mem_total: n.mem_total,
                    cpu_less: n.kind == NodeKind::CpuLessMemory,
                    distances: n.distances.clone(),
                })
                .collect(),
            tiers: t.tiers(),
            os: os_name(),
            kernel_release: t.kernel_release.clone(),
            pmolap_version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }
}

fn os_name() -> String {
    std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("PRETTY_NAME="))
                .map(|v| v.trim_matches('"').to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}
