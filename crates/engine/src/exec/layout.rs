//! The thread and data layout of a run: worker thread groups per NUMA node with their CPU
//! sets and fact partitions ([`Layout`]), and the fact columns copied per group onto its
//! node ([`StripedFact`]).

use std::collections::HashMap;
use std::ops::Range;
use std::time::Instant;

use pmolap_kernels::bitpack;
use pmolap_tier::{Pinning, Region, RegionOptions, TierSpec, Topology};
use serde::{Deserialize, Serialize};

use super::{ExecOptions, MAX_MORSEL_ROWS, OVERSUBSCRIBE_FACTOR};
use crate::error::{Error, Result};

/// One group of worker threads: its node, one CPU set per thread, and its fact rows
/// (`None`: all groups share every row).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ThreadGroup {
    pub node: Option<u32>,
    pub cpus: Vec<Vec<usize>>,
    pub rows: Option<Range<usize>>,
}

/// How threads and data are laid out for a run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Layout {
    pub threads: usize,
    pub pin: Pinning,
    pub striped: bool,
    pub replicated: bool,
    pub groups: Vec<ThreadGroup>,
    /// What was asked and done otherwise, changing the run (threads on fewer nodes,
    /// pinning changed), one line each.
    pub notes: Vec<String>,
    /// Switches that had nothing to do (striping or replication on one NUMA node: the
    /// run is the same without them), one line each; for reports that show a switch's
    /// effect (the Table 1 ladder), not for a plain run. Absent from older documents.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub no_ops: Vec<String>,
}

impl Layout {
    /// Plans threads and partitions for `rows` fact rows on `topo`.
    pub fn new(topo: &Topology, opts: &ExecOptions, rows: usize) -> Result<Layout> {
        let threads = if opts.threads == 0 {
            topo.cpus.len().max(1)
        } else {
            opts.threads
        };
        if opts.morsel_rows == 0 || !opts.morsel_rows.is_multiple_of(64) {
            return Err(Error::Options(format!(
                "morsel size {} rows is not a positive multiple of 64",
                opts.morsel_rows
            )));
        }
        if opts.morsel_rows > MAX_MORSEL_ROWS {
            return Err(Error::Options(format!(
                "morsel size {} rows is above the limit of {MAX_MORSEL_ROWS} rows (each thread holds buffers of a morsel)",
                opts.morsel_rows
            )));
        }
        let cpus = topo.cpus.len().max(1);
        if threads > OVERSUBSCRIBE_FACTOR * cpus && !opts.oversubscribe {
            return Err(Error::Options(format!(
                "{threads} threads on {cpus} logical CPUs (more than {OVERSUBSCRIBE_FACTOR} per CPU); pass --oversubscribe if that is meant"
            )));
        }
        let nodes: Vec<u32> = match &opts.nodes_override {
            Some(n) => n.clone(),
            None => topo
                .nodes
                .iter()
                .filter(|n| !n.cpus.is_empty())
                .map(|n| n.id)
                .collect(),
        };
        let mut notes = Vec::new();
        let mut no_ops = Vec::new();
        let numa = (opts.stripe || opts.replicate_dims) && nodes.len() >= 2;
        if (opts.stripe || opts.replicate_dims) && !numa {
            no_ops.push(format!(
                "{}: {} NUMA node with CPUs, nothing to stripe or replicate (no-op)",
                match (opts.stripe, opts.replicate_dims) {
                    (true, true) => "--stripe and --replicate-dims",
                    (true, false) => "--stripe",
                    _ => "--replicate-dims",
                },
                nodes.len()
            ));
        }
        if !numa {
            return Ok(Layout {
                threads,
                pin: opts.pin,
                striped: false,
                replicated: false,
                groups: vec![ThreadGroup {
                    node: None,
                    cpus: opts.pin.plan(topo, None, threads)?,
                    rows: None,
                }],
                notes,
                no_ops,
            });
        }
        // Threads round-robin over the nodes; each node's threads stay on its CPUs.
        let used = nodes.len().min(threads);
        if used < nodes.len() {
            notes.push(format!(
                "{threads} threads for {} nodes: only nodes {:?} get threads and data",
                nodes.len(),
                &nodes[..used]
            ));
        }
        let pin_mode = if opts.pin == Pinning::None {
            notes.push(
                "striping and replication keep each node's threads on its CPUs: pinning numa"
                    .into(),
            );
            Pinning::Numa
        } else {
            opts.pin
        };
        let mut groups = Vec::new();
        let mut start = 0usize;
        for (i, &node) in nodes[..used].iter().enumerate() {
            let t = threads / used + usize::from(i < threads % used);
            let rows = opts.stripe.then(|| {
                let end = if i + 1 == used {
                    rows
                } else {
                    // Proportional to the node's threads, on a 64-row (packing group) boundary.
                    let share = (rows as u128 * (start_threads(threads, used, i + 1)) as u128
                        / threads as u128) as usize;
                    (share / 64 * 64).clamp(start, rows)
                };
                let r = start..end;
                start = end;
                r
            });
            groups.push(ThreadGroup {
                node: Some(node),
                cpus: pin_mode.plan(topo, Some(node), t)?,
                rows,
            });
        }
        Ok(Layout {
            threads,
            pin: pin_mode,
            striped: opts.stripe,
            replicated: opts.replicate_dims,
            groups,
            notes,
            no_ops,
        })
    }
}

/// Threads of the first `k` of `used` nodes when `threads` are dealt round-robin.
fn start_threads(threads: usize, used: usize, k: usize) -> usize {
    (0..k)
        .map(|i| threads / used + usize::from(i < threads % used))
        .sum()
}

/// Fact columns copied per thread group onto its node (a striped layout); built once per
/// layout and reused by every query.
#[derive(Debug, Default)]
pub struct StripedFact {
    /// Column name → per group: (region holding the group's words, first row).
    pub(super) cols: HashMap<String, Vec<(Region, usize)>>,
    pub bytes: u64,
    pub setup_ms: f64,
}

impl StripedFact {
    /// Copies `columns` of `fact` for every group of a striped `layout` (nothing otherwise).
    pub fn new(
        fact: &pmolap_store::Table,
        columns: &[&str],
        layout: &Layout,
        region: &RegionOptions,
    ) -> Result<StripedFact> {
        let t0 = Instant::now();
        let mut s = StripedFact::default();
        if !layout.striped {
            return Ok(s);
        }
        for &name in columns {
            let col = fact.column(name)?;
            let words = col.dv.words();
            let w = col.dv.width() as usize;
            let mut parts = Vec::new();
            for g in &layout.groups {
                let rows = g.rows.clone().unwrap_or(0..col.rows());
                // Rows start on a 64-row group, so the words start on a word boundary.
                let w0 = rows.start / 64 * w;
                let w1 = (bitpack::words_for(rows.end, w as u32)).min(words.len());
                let bytes = (w1 - w0).max(1) * 8;
                let spec = TierSpec::Dram { node: g.node };
                let mut r = Region::new(&spec, bytes, region)?;
                let src: &[u8] = bytemuck::cast_slice(&words[w0..w1]);
                r.as_mut_slice()[..src.len()].copy_from_slice(src);
                s.bytes += bytes as u64;
                parts.push((r, rows.start));
            }
            s.cols.insert(name.to_string(), parts);
        }
        s.setup_ms = t0.elapsed().as_secs_f64() * 1e3;
        Ok(s)
    }
}
