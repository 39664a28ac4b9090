//! `pmolap topology`: what this machine has (CPU, NUMA nodes, memory tiers, PMEM, CXL) and
//! the tier specs that can be run on, as a text report or as JSON.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use anyhow::{Context, Result};
use clap::Args;
use serde::Serialize;

use pmolap_tier::topology::{format_cpulist, hmat_notes, NodeKind, Topology};
use pmolap_tier::TierInfo;

use crate::output::{print_json, print_text, table};

/// What `pmolap topology --json` prints.
#[derive(Debug, Serialize)]
struct Report<'a> {
    topology: &'a Topology,
    tiers: Vec<TierInfo>,
}

/// Flags of `pmolap topology`.
#[derive(Debug, Args)]
pub struct TopologyArgs {
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
}

/// Detects the machine and prints the report (or JSON) to stdout.
pub fn run(a: &TopologyArgs) -> Result<()> {
    let t = Topology::detect().context("detecting the machine's topology from /sys and /proc")?;
    if a.json {
        let report = Report {
            topology: &t,
            tiers: t.tiers(),
        };
        print_json(&report, "the topology")
    } else {
        print_text(&format_report(&t))
    }
}

fn gib(bytes: u64) -> String {
    let g = bytes as f64 / (1u64 << 30) as f64;
    if g >= 1024.0 {
        format!("{:.1} TiB", g / 1024.0)
    } else {
        format!("{g:.1} GiB")
    }
}

fn capacity(bytes: u64) -> String {
    if bytes == 0 {
        "?".into()
    } else {
        gib(bytes)
    }
}

/// The text report of `pmolap topology`.
pub fn format_report(t: &Topology) -> String {
    let mut out = String::new();
    cpu_section(&mut out, t);
    numa_section(&mut out, t);
    tiers_section(&mut out, t);
    summary_section(&mut out, t);
    out
}

/// CPU model, counts, features and kernel release.
fn cpu_section(out: &mut String, t: &Topology) {
    let cores: BTreeSet<(usize, usize)> =
        t.cpus.iter().map(|c| (c.package_id, c.core_id)).collect();
    let sockets: BTreeSet<usize> = t.cpus.iter().map(|c| c.package_id).collect();
    let features = t.cpu_features.names();
    let _ = writeln!(out, "CPU:       {}", t.cpu_model);
    let _ = writeln!(
        out,
        "           {} logical cpus, {} physical cores, {} socket{}",
        t.cpus.len(),
        cores.len(),
        sockets.len(),
        if sockets.len() == 1 { "" } else { "s" }
    );
    let _ = writeln!(
        out,
        "Features:  {}",
        if features.is_empty() {
            "none of avx512f, avx2, clwb, clflushopt, clflush, movdir64b".to_string()
        } else {
            features.join(" ")
        }
    );
    let _ = writeln!(out, "Kernel:    {}", t.kernel_release);
}

/// The NUMA node table.
fn numa_section(out: &mut String, t: &Topology) {
    let _ = writeln!(out, "\nNUMA nodes");
    let ids: Vec<String> = t.nodes.iter().map(|n| n.id.to_string()).collect();
    let rows: Vec<Vec<String>> = t
        .nodes
        .iter()
        .map(|n| {
            vec![
                n.id.to_string(),
                match n.kind {
                    NodeKind::Dram => "dram".into(),
                    NodeKind::CpuLessMemory => "cpu-less memory".into(),
                },
                if n.cpus.is_empty() {
                    "-".into()
                } else {
                    format_cpulist(&n.cpus)
                },
                gib(n.mem_total),
                gib(n.mem_free),
                if n.distances.is_empty() {
                    "-".into()
                } else {
                    n.distances
                        .iter()
                        .map(|d| d.to_string())
                        .collect::<Vec<_>>()
                        .join(" ")
                },
                n.memory_tier.map_or("-".into(), |m| m.to_string()),
                if n.hmat.is_empty() {
                    "-".into()
                } else {
                    hmat_notes(&n.hmat).join("; ")
                },
            ]
        })
        .collect();
    let dist_header = format!("distances (to {})", ids.join(" "));
    table(
        out,
        &[
            "node",
            "kind",
            "cpus",
            "memory",
            "free",
            &dist_header,
            "mem tier",
            "HMAT",
        ],
        &rows,
    );
}

/// The tier table.
fn tiers_section(out: &mut String, t: &Topology) {
    let _ = writeln!(out, "\nTiers");
    let tiers = t.tiers();
    let rows: Vec<Vec<String>> = tiers
        .iter()
        .map(|x| {
            vec![
                x.name.clone(),
                x.spec.clone(),
                x.kind.clone(),
                capacity(x.capacity),
                x.numa_node.map_or("-".into(), |n| n.to_string()),
                x.persistence.clone(),
                x.notes.join("; "),
            ]
        })
        .collect();
    table(
        out,
        &[
            "name",
            "spec",
            "kind",
            "capacity",
            "node",
            "persistence",
            "notes",
        ],
        &rows,
    );
}

/// One line each: persistent memory, CPU-less memory nodes, far memory, kernel memory
/// tiers, HMAT figures.
fn summary_section(out: &mut String, t: &Topology) {
    let _ = writeln!(out);
    let devdax = t
        .dax_devices
        .iter()
        .filter(|d| d.driver.as_deref().is_none_or(|drv| drv == "device_dax"))
        .count();
    if devdax == 0 && t.dax_mounts.is_empty() {
        let _ = writeln!(
            out,
            "no persistent memory (no devdax devices, no DAX mounts)"
        );
    } else {
        let _ = writeln!(
            out,
            "persistent memory: {devdax} devdax device{}, {} DAX mount{}",
            if devdax == 1 { "" } else { "s" },
            t.dax_mounts.len(),
            if t.dax_mounts.len() == 1 { "" } else { "s" }
        );
    }
    let cpu_less: Vec<String> = t
        .nodes
        .iter()
        .filter(|n| n.kind == NodeKind::CpuLessMemory && n.mem_total > 0)
        .map(|n| n.id.to_string())
        .collect();
    if cpu_less.is_empty() {
        let _ = writeln!(out, "no CPU-less memory nodes (no CXL)");
    } else {
        let _ = writeln!(
            out,
            "CPU-less memory node{} {} (CXL expander or PMEM in kmem mode)",
            if cpu_less.len() == 1 { "" } else { "s" },
            cpu_less.join(", ")
        );
    }
    if t.nodes.len() == 1 {
        let _ = writeln!(out, "one NUMA node: no far memory");
    }
    if t.memory_tiers.is_empty() {
        let _ = writeln!(out, "no kernel memory tiers (memory_tiering absent)");
    } else {
        let list: Vec<String> = t
            .memory_tiers
            .iter()
            .map(|m| {
                let nodes: Vec<String> = m.nodes.iter().map(|n| n.to_string()).collect();
                format!("{} -> node {}", m.id, nodes.join(","))
            })
            .collect();
        let _ = writeln!(
            out,
            "kernel memory tiers (lower = faster): {}",
            list.join("; ")
        );
    }
    if t.nodes.iter().all(|n| n.hmat.is_empty()) {
        let _ = writeln!(
            out,
            "no HMAT figures (the firmware reports no latency/bandwidth)"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn fixture(name: &str) -> Topology {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tier/tests/fixtures/topology")
            .join(name);
        Topology::detect_at(&root).unwrap()
    }

    #[test]
    fn optane_report() {
        let r = format_report(&fixture("optane-2socket"));
        assert!(r.contains("Intel(R) Xeon(R) Gold 5220S"), "{r}");
        assert!(
            r.contains("72 logical cpus, 36 physical cores, 2 sockets"),
            "{r}"
        );
        assert!(r.contains("devdax:/dev/dax0.0"), "{r}");
        assert!(r.contains("file:/mnt/pmem1"), "{r}");
        assert!(r.contains("fsdax (ext4, dax=always)"), "{r}");
        assert!(r.contains("0-17,36-53"), "{r}");
        assert!(
            r.contains("persistent memory: 1 devdax device, 1 DAX mount"),
            "{r}"
        );
        assert!(r.contains("no CPU-less memory nodes (no CXL)"), "{r}");
    }

    #[test]
    fn vm_report_is_honest() {
        let r = format_report(&fixture("vm-1node"));
        assert!(
            r.contains("no persistent memory (no devdax devices, no DAX mounts)"),
            "{r}"
        );
        assert!(r.contains("no CPU-less memory nodes (no CXL)"), "{r}");
        assert!(r.contains("one NUMA node"), "{r}");
        assert!(r.contains("no HMAT figures"), "{r}");
        assert!(!r.contains("avx512f"), "{r}");
    }

    #[test]
    fn cxl_report() {
        let r = format_report(&fixture("cxl-1node"));
        assert!(r.contains("cpu-less memory"), "{r}");
        assert!(r.contains("cxl/far-memory node"), "{r}");
        assert!(r.contains("CPU-less memory node 1"), "{r}");
        assert!(r.contains("22 -> node 1"), "{r}");
        assert!(r.contains("HMAT access0+1 from node 0: read 250 ns"), "{r}");
        assert!(r.contains("no persistent memory"), "{r}");
    }

    #[test]
    fn json_report_has_topology_and_tiers() {
        let t = fixture("cxl-1node");
        let v = serde_json::to_value(Report {
            topology: &t,
            tiers: t.tiers(),
        })
        .unwrap();
        assert_eq!(v["topology"]["nodes"][1]["kind"], "CpuLessMemory");
        assert_eq!(v["tiers"][0]["spec"], "dram");
        assert_eq!(v["tiers"][2]["spec"], "dram:node=1");
        assert_eq!(v["tiers"][2]["class"], "far-memory");
    }
}
