//! Thread pinning: none, to a NUMA node's cpulist, or one core per thread with physical
//! cores filled before their hyperthread siblings (SIGMOD'21 §3.3).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::topology::Topology;
use pmolap_os::{Error, Result};

/// How worker threads are placed on CPUs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pinning {
    /// The scheduler decides.
    None,
    /// Each thread may run on any CPU of the chosen NUMA node.
    Numa,
    /// Each thread gets one CPU: physical cores first, then hyperthread siblings.
    #[default]
    Cores,
}

impl fmt::Display for Pinning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Pinning::None => "none",
            Pinning::Numa => "numa",
            Pinning::Cores => "cores",
        })
    }
}

impl FromStr for Pinning {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "none" => Ok(Pinning::None),
            "numa" => Ok(Pinning::Numa),
            "cores" => Ok(Pinning::Cores),
            _ => Err(Error::Invalid(format!(
                "unknown pinning `{s}`; use none, numa or cores"
            ))),
        }
    }
}

impl Pinning {
    /// The CPU set of each of `threads` threads (empty = not pinned). `node` restricts the
    /// threads to one NUMA node; `None` means all CPUs of the machine.
    pub fn plan(
        self,
        topo: &Topology,
        node: Option<u32>,
        threads: usize,
    ) -> Result<Vec<Vec<usize>>> {
        let cpus = match node {
            Some(n) => {
                let nd = topo.node(n).ok_or_else(|| Error::NoSuchNode {
                    node: n,
                    present: topo
                        .nodes
                        .iter()
                        .map(|n| n.id.to_string())
                        .collect::<Vec<_>>()
                        .join(","),
                })?;
                if nd.cpus.is_empty() && self != Pinning::None {
                    return Err(Error::Invalid(format!(
                        "NUMA node {n} has no CPUs (a memory-only node); run threads on another node"
                    )));
                }
                topo.cpus_physical_first(Some(n))
            }
            None => topo.cpus_physical_first(None),
        };
        Ok(match self {
            Pinning::None => vec![Vec::new(); threads],
            Pinning::Numa => {
                let mut set = cpus.clone();
                set.sort_unstable();
                vec![set; threads]
            }
            Pinning::Cores => {
                if cpus.is_empty() {
                    return Err(Error::Invalid("no online CPUs to pin threads to".into()));
                }
                (0..threads).map(|i| vec![cpus[i % cpus.len()]]).collect()
            }
        })
    }
}

/// Restricts the calling thread to `cpus` (no-op for an empty set).
pub fn pin_current_thread(cpus: &[usize]) -> Result<()> {
    if cpus.is_empty() {
        return Ok(());
    }
    // SAFETY: cpu_set_t is a plain bit array; zeroed is its empty value.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cpus {
        if c >= libc::CPU_SETSIZE as usize {
            return Err(Error::Invalid(format!("CPU {c} is beyond CPU_SETSIZE")));
        }
        // SAFETY: `c < CPU_SETSIZE`, checked above.
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    // SAFETY: pid 0 is the calling thread; `set` is a valid cpu_set_t of the given size.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if rc != 0 {
        return Err(Error::last_os("sched_setaffinity"));
    }
    Ok(())
}

/// The CPU the calling thread runs on right now.
pub fn current_cpu() -> Option<usize> {
    // SAFETY: sched_getcpu has no arguments and no preconditions.
    let c = unsafe { libc::sched_getcpu() };
    (c >= 0).then_some(c as usize)
}
