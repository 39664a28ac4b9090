//! Execution: a morsel-driven parallel probe over the packed fact columns with
//! per-thread aggregation, merged at the end, and the SIGMOD'21 Table 1 switches —
//! threads, pinning, striping fact partitions over NUMA nodes, replicating the join
//! filters per node.
//!
//! A morsel is [`ExecOptions::morsel_rows`] consecutive fact rows. Its first step unpacks
//! one column and tests every id, producing a selection vector (row offsets) and the
//! rows' partial group ids; each later step reads only the selected rows — by unpacking
//! the morsel again when many are left, by random gets when few are — and compacts the
//! selection. Aggregates decode the surviving rows' ids through the column dictionaries.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use pmolap_store::bitpack;
use pmolap_tier::{pin, Pinning, Region, RegionOptions, TierSpec, Topology};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::plan::{OutValue, Plan, Test, DENSE_GROUPS_MAX, MISS};
use crate::query::Op;

/// Execution switches.
#[derive(Debug, Clone)]
pub struct ExecOptions {
    /// Worker threads (0: one per online CPU).
    pub threads: usize,
    pub pin: Pinning,
    /// Fact partitions on each NUMA node's memory, read only by that node's threads.
    pub stripe: bool,
    /// Join filters copied onto each NUMA node's memory.
    pub replicate_dims: bool,
    /// Rows per morsel (a multiple of 64).
    pub morsel_rows: usize,
    /// Largest group domain aggregated in dense per-thread arrays; larger ones use hash
    /// tables.
    pub dense_groups_max: u64,
    /// Test hook: treat these nodes as the machine's CPU nodes (repeats allowed), so the
    /// striped and replicated paths run on a one-node machine. `None`: the topology's.
    pub nodes_override: Option<Vec<u32>>,
    /// Allow far more threads than CPUs (more than [`OVERSUBSCRIBE_FACTOR`] per CPU).
    pub oversubscribe: bool,
}

/// Threads per logical CPU allowed without [`ExecOptions::oversubscribe`].
pub const OVERSUBSCRIBE_FACTOR: usize = 4;
/// The largest morsel: per-thread scratch buffers are sized by it.
pub const MAX_MORSEL_ROWS: usize = 1 << 24;

impl Default for ExecOptions {
    fn default() -> Self {
        ExecOptions {
            threads: 0,
            pin: Pinning::Cores,
            stripe: true,
            replicate_dims: true,
            morsel_rows: 16 * 1024,
            dense_groups_max: DENSE_GROUPS_MAX,
            nodes_override: None,
            oversubscribe: false,
        }
    }
}

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
    /// What was asked but not done, and why (`--stripe on one NUMA node: no-op`).
    pub notes: Vec<String>,
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
        let numa = (opts.stripe || opts.replicate_dims) && nodes.len() >= 2;
        if (opts.stripe || opts.replicate_dims) && !numa {
            notes.push(format!(
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
    cols: HashMap<String, Vec<(Region, usize)>>,
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

/// What one execution did.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExecStats {
    pub probe_ms: f64,
    pub morsels: usize,
    /// Fact rows surviving every step.
    pub rows_qualifying: u64,
    pub groups: usize,
    /// Bytes of join filters copied per node (replication), this run.
    pub replicated_bytes: u64,
}

/// A step's test, borrowed from the plan or from a node-local copy.
#[derive(Clone, Copy)]
enum TestRef<'a> {
    Range { lo: u32, span: u32 },
    Bits(&'a [u64]),
    Lookup(&'a [u32]),
}

#[derive(Clone, Copy)]
struct StepRef<'a> {
    col: usize,
    test: TestRef<'a>,
    stride: u32,
}

/// A column as one thread group sees it.
#[derive(Clone, Copy)]
struct ColRef<'a> {
    words: &'a [u64],
    width: u32,
    /// Row of `words`' first id.
    base: usize,
}

/// Per-thread aggregation state.
enum Acc {
    Dense {
        sums: Vec<i64>,
        counts: Vec<u64>,
    },
    Hash {
        slot: HashMap<u32, usize>,
        sums: Vec<i64>,
        counts: Vec<u64>,
        keys: Vec<u32>,
    },
}

impl Acc {
    fn new(domain: u64, naggs: usize, dense_max: u64) -> Acc {
        if domain <= dense_max {
            Acc::Dense {
                sums: vec![0; domain as usize * naggs],
                counts: vec![0; domain as usize],
            }
        } else {
            Acc::Hash {
                slot: HashMap::new(),
                sums: Vec::new(),
                counts: Vec::new(),
                keys: Vec::new(),
            }
        }
    }
}

struct Scratch {
    buf: Vec<u32>,
    sel: Vec<u32>,
    gid: Vec<u32>,
    ids: Vec<u32>,
    vals: Vec<i64>,
}

impl Scratch {
    fn new(morsel: usize) -> Scratch {
        Scratch {
            buf: vec![0; morsel],
            sel: vec![0; morsel],
            gid: vec![0; morsel],
            ids: Vec::with_capacity(morsel),
            vals: Vec::with_capacity(morsel),
        }
    }
}

/// The first step of a morsel: tests every id, writes the selection vector, and (for a
/// group-code lookup) the rows' group ids. Returns the count and whether ids were written.
#[inline(always)]
fn first_step(
    ids: &[u32],
    t: TestRef<'_>,
    stride: u32,
    sel: &mut [u32],
    gid: &mut [u32],
) -> (usize, bool) {
    let mut k = 0;
    match t {
        TestRef::Range { lo, span } => {
            for (i, &id) in ids.iter().enumerate() {
                sel[k] = i as u32;
                k += usize::from(id.wrapping_sub(lo) <= span);
            }
            (k, false)
        }
        TestRef::Bits(b) => {
            for (i, &id) in ids.iter().enumerate() {
                sel[k] = i as u32;
                k += (b[id as usize >> 6] >> (id & 63) & 1) as usize;
            }
            (k, false)
        }
        TestRef::Lookup(l) => {
            for (i, &id) in ids.iter().enumerate() {
                let g = l[id as usize];
                sel[k] = i as u32;
                gid[k] = g.wrapping_mul(stride);
                k += usize::from(g != MISS);
            }
            (k, true)
        }
    }
}

/// A later step over the `k` selected rows, compacting the selection (and the group ids
/// when `G`: they exist). A lookup starts the group ids when `!G`.
#[inline(always)]
fn next_step<const G: bool>(
    k: usize,
    fetch: impl Fn(u32) -> u32,
    t: TestRef<'_>,
    stride: u32,
    sel: &mut [u32],
    gid: &mut [u32],
) -> usize {
    let mut m = 0;
    match t {
        TestRef::Range { lo, span } => {
            for j in 0..k {
                let r = sel[j];
                let id = fetch(r);
                sel[m] = r;
                if G {
                    gid[m] = gid[j];
                }
                m += usize::from(id.wrapping_sub(lo) <= span);
            }
        }
        TestRef::Bits(b) => {
            for j in 0..k {
                let r = sel[j];
                let id = fetch(r);
                sel[m] = r;
                if G {
                    gid[m] = gid[j];
                }
                m += (b[id as usize >> 6] >> (id & 63) & 1) as usize;
            }
        }
        TestRef::Lookup(l) => {
            for j in 0..k {
                let r = sel[j];
                let g = l[fetch(r) as usize];
                sel[m] = r;
                let base = if G { gid[j] } else { 0 };
                gid[m] = base.wrapping_add(g.wrapping_mul(stride));
                m += usize::from(g != MISS);
            }
        }
    }
    m
}

/// Runs one step over the selection, reading the column by unpacking the morsel when
/// many rows are left and by random gets when few are.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn step<const G: bool>(
    c: ColRef<'_>,
    st: &StepRef<'_>,
    start: usize,
    n: usize,
    k: usize,
    buf: &mut [u32],
    sel: &mut [u32],
    gid: &mut [u32],
) -> usize {
    let local = start - c.base;
    if k * 8 >= n {
        bitpack::unpack(c.words, c.width, local, &mut buf[..n]);
        let b = &buf[..n];
        next_step::<G>(k, |r| b[r as usize], st.test, st.stride, sel, gid)
    } else {
        next_step::<G>(
            k,
            |r| bitpack::get(c.words, c.width, local + r as usize),
            st.test,
            st.stride,
            sel,
            gid,
        )
    }
}

/// Fetches the ids of the `k` selected rows of morsel `[start, start+n)` into `out`:
/// an unpack of the morsel when dense, random gets when sparse.
#[inline(always)]
fn fetch_ids(c: ColRef<'_>, start: usize, n: usize, sel: &[u32], buf: &mut [u32], out: &mut [u32]) {
    let local = start - c.base;
    if sel.len() * 8 >= n {
        bitpack::unpack(c.words, c.width, local, &mut buf[..n]);
        for (o, &r) in out.iter_mut().zip(sel) {
            *o = buf[r as usize];
        }
    } else {
        for (o, &r) in out.iter_mut().zip(sel) {
            *o = bitpack::get(c.words, c.width, local + r as usize);
        }
    }
}

fn run_morsel(
    plan: &Plan<'_>,
    cols: &[ColRef<'_>],
    steps: &[StepRef<'_>],
    start: usize,
    n: usize,
    s: &mut Scratch,
    acc: &mut Acc,
) -> u64 {
    let Scratch {
        buf,
        sel,
        gid,
        ids,
        vals,
    } = s;
    let (mut k, mut has_gid) = match steps.first() {
        None => {
            for (i, x) in sel[..n].iter_mut().enumerate() {
                *x = i as u32;
            }
            (n, false)
        }
        Some(st) => {
            let c = cols[st.col];
            bitpack::unpack(c.words, c.width, start - c.base, &mut buf[..n]);
            first_step(&buf[..n], st.test, st.stride, sel, gid)
        }
    };
    for st in steps.iter().skip(1) {
        if k == 0 {
            return 0;
        }
        let c = cols[st.col];
        k = if has_gid {
            step::<true>(c, st, start, n, k, buf, sel, gid)
        } else {
            step::<false>(c, st, start, n, k, buf, sel, gid)
        };
        has_gid |= matches!(st.test, TestRef::Lookup(_));
    }
    if k == 0 {
        return 0;
    }
    if !has_gid {
        gid[..k].fill(0);
    }
    let naggs = plan.aggs.len();
    ids.resize(k, 0);
    vals.resize(k, 0);
    for (ai, a) in plan.aggs.iter().enumerate() {
        let ca = cols[a.a];
        fetch_ids(ca, start, n, &sel[..k], buf, ids);
        let da = plan.cols[a.a].ints;
        for (v, &id) in vals.iter_mut().zip(ids.iter()) {
            *v = da[id as usize];
        }
        if let Some((op, b)) = a.op {
            let cb = cols[b];
            fetch_ids(cb, start, n, &sel[..k], buf, ids);
            let db = plan.cols[b].ints;
            match op {
                Op::Mul => vals
                    .iter_mut()
                    .zip(ids.iter())
                    .for_each(|(v, &id)| *v *= db[id as usize]),
                Op::Sub => vals
                    .iter_mut()
                    .zip(ids.iter())
                    .for_each(|(v, &id)| *v -= db[id as usize]),
                Op::Add => vals
                    .iter_mut()
                    .zip(ids.iter())
                    .for_each(|(v, &id)| *v += db[id as usize]),
            }
        }
        match acc {
            Acc::Dense { sums, .. } => {
                for (&g, &v) in gid[..k].iter().zip(vals.iter()) {
                    sums[g as usize * naggs + ai] += v;
                }
            }
            Acc::Hash {
                slot,
                sums,
                counts,
                keys,
            } => {
                for (&g, &v) in gid[..k].iter().zip(vals.iter()) {
                    let i = *slot.entry(g).or_insert_with(|| {
                        keys.push(g);
                        counts.push(0);
                        sums.extend(std::iter::repeat_n(0, naggs));
                        keys.len() - 1
                    });
                    sums[i * naggs + ai] += v;
                    // Counted on the first aggregate's pass: one hash lookup per row.
                    if ai == 0 {
                        counts[i] += 1;
                    }
                }
            }
        }
    }
    if let Acc::Dense { counts, .. } = acc {
        for &g in &gid[..k] {
            counts[g as usize] += 1;
        }
    }
    k as u64
}

/// Copies `data` onto `node`'s memory (a replicated join filter).
fn node_copy<T: bytemuck::Pod>(data: &[T], node: u32, opts: &RegionOptions) -> Result<Region> {
    let src: &[u8] = bytemuck::cast_slice(data);
    let mut r = Region::new(&TierSpec::Dram { node: Some(node) }, src.len().max(8), opts)?;
    r.as_mut_slice()[..src.len()].copy_from_slice(src);
    Ok(r)
}

/// Runs `plan` with `layout`: returns the result rows (ordered and limited as the query
/// says) and what the run did.
pub fn execute(
    plan: &Plan<'_>,
    layout: &Layout,
    striped: &StripedFact,
    opts: &ExecOptions,
    region: &RegionOptions,
) -> Result<(Vec<Vec<OutValue>>, ExecStats)> {
    let t0 = Instant::now();
    let naggs = plan.aggs.len();
    let rows = plan.fact_rows;
    let m = opts.morsel_rows;
    if m == 0 || !m.is_multiple_of(64) {
        return Err(Error::Options(format!(
            "morsel size {m} rows is not a positive multiple of 64"
        )));
    }
    let dense_max = opts.dense_groups_max;

    // Node-local copies of the join filters (replication), made per run: they are the
    // query's own derived structures.
    let mut replicas: Vec<Vec<Option<Region>>> = Vec::new();
    let mut replicated_bytes = 0u64;
    for g in &layout.groups {
        let mut v = Vec::new();
        for st in &plan.steps {
            let r = match (layout.replicated, g.node, &st.test) {
                (true, Some(node), Test::Lookup(l)) => Some(node_copy(l, node, region)?),
                (true, Some(node), Test::Bits(b)) => Some(node_copy(b, node, region)?),
                _ => None,
            };
            replicated_bytes += r.as_ref().map_or(0, |r| r.len() as u64);
            v.push(r);
        }
        replicas.push(v);
    }

    let mut views: Vec<(Vec<ColRef<'_>>, Vec<StepRef<'_>>)> = Vec::new();
    for (gi, _) in layout.groups.iter().enumerate() {
        let cols: Vec<ColRef<'_>> = plan
            .cols
            .iter()
            .map(|c| match striped.cols.get(&c.name) {
                Some(parts) => {
                    let (r, base) = &parts[gi];
                    ColRef {
                        words: bytemuck::cast_slice(r.as_slice()),
                        width: c.width,
                        base: *base,
                    }
                }
                None => ColRef {
                    words: c.words,
                    width: c.width,
                    base: 0,
                },
            })
            .collect();
        let steps: Vec<StepRef<'_>> = plan
            .steps
            .iter()
            .zip(&replicas[gi])
            .map(|(st, rep)| {
                let test = match (&st.test, rep) {
                    (Test::Range { lo, span }, _) => TestRef::Range {
                        lo: *lo,
                        span: *span,
                    },
                    (Test::Bits(b), None) => TestRef::Bits(b),
                    (Test::Bits(b), Some(r)) => {
                        TestRef::Bits(&bytemuck::cast_slice(r.as_slice())[..b.len()])
                    }
                    (Test::Lookup(l), None) => TestRef::Lookup(l),
                    (Test::Lookup(l), Some(r)) => {
                        TestRef::Lookup(&bytemuck::cast_slice(r.as_slice())[..l.len()])
                    }
                };
                StepRef {
                    col: st.col,
                    test,
                    stride: st.stride,
                }
            })
            .collect();
        views.push((cols, steps));
    }

    let shared = AtomicUsize::new(0);
    let own: Vec<AtomicUsize> = layout.groups.iter().map(|_| AtomicUsize::new(0)).collect();
    let results: Vec<Result<(Acc, u64, usize)>> = std::thread::scope(|scope| {
        let mut handles = Vec::new();
        let mut spawn_error: Option<std::io::Error> = None;
        for (gi, g) in layout.groups.iter().enumerate() {
            let range = g.rows.clone().unwrap_or(0..rows);
            let counter = if g.rows.is_some() { &own[gi] } else { &shared };
            let (cols, steps) = &views[gi];
            for cpus in &g.cpus {
                if spawn_error.is_some() {
                    break;
                }
                let range = range.clone();
                let worker = std::thread::Builder::new().spawn_scoped(
                    scope,
                    move || -> Result<(Acc, u64, usize)> {
                        pin::pin_current_thread(cpus)?;
                        let mut acc = Acc::new(plan.group_domain, naggs, dense_max);
                        let mut s = Scratch::new(m);
                        let (mut qualifying, mut morsels) = (0u64, 0usize);
                        if plan.never {
                            return Ok((acc, 0, 0));
                        }
                        loop {
                            let i = counter.fetch_add(1, Ordering::Relaxed);
                            let start = range.start.saturating_add(i.saturating_mul(m));
                            if start >= range.end {
                                break;
                            }
                            let n = m.min(range.end - start);
                            qualifying += run_morsel(plan, cols, steps, start, n, &mut s, &mut acc);
                            morsels += 1;
                        }
                        Ok((acc, qualifying, morsels))
                    },
                );
                match worker {
                    Ok(h) => handles.push(h),
                    Err(e) => spawn_error = Some(e),
                }
            }
        }
        let mut results: Vec<Result<(Acc, u64, usize)>> = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::Options("a worker thread panicked".into())))
            })
            .collect();
        if let Some(e) = spawn_error {
            results.push(Err(Error::Options(format!(
                "cannot start worker thread {} of {}: {e}",
                results.len() + 1,
                layout.threads
            ))));
        }
        results
    });

    // Merge the per-thread aggregates.
    let mut total: HashMap<u32, (u64, Vec<i64>)> = HashMap::new();
    let (mut qualifying, mut morsels) = (0u64, 0usize);
    for r in results {
        let (acc, q, mo) = r?;
        qualifying += q;
        morsels += mo;
        let mut add = |g: u32, c: u64, s: &[i64]| {
            let e = total.entry(g).or_insert_with(|| (0, vec![0; naggs]));
            e.0 += c;
            e.1.iter_mut().zip(s).for_each(|(a, b)| *a += b);
        };
        match acc {
            Acc::Dense { sums, counts } => {
                for (g, &c) in counts.iter().enumerate() {
                    if c > 0 {
                        add(g as u32, c, &sums[g * naggs..(g + 1) * naggs]);
                    }
                }
            }
            Acc::Hash {
                sums, counts, keys, ..
            } => {
                for (i, &g) in keys.iter().enumerate() {
                    add(g, counts[i], &sums[i * naggs..(i + 1) * naggs]);
                }
            }
        }
    }
    let groups = total.len();
    let out = result_rows(plan, total);
    Ok((
        out,
        ExecStats {
            probe_ms: t0.elapsed().as_secs_f64() * 1e3,
            morsels,
            rows_qualifying: qualifying,
            groups,
            replicated_bytes,
        },
    ))
}

/// Decodes group ids into select-list rows, then orders and limits them.
fn result_rows(plan: &Plan<'_>, mut total: HashMap<u32, (u64, Vec<i64>)>) -> Vec<Vec<OutValue>> {
    let q = &plan.query;
    let naggs = plan.aggs.len();
    // SQL: an aggregate without GROUP BY over no rows is one row of NULLs.
    if plan.groups.is_empty() && total.is_empty() {
        total.insert(0, (0, vec![0; naggs]));
    }
    let mut rows: Vec<Vec<OutValue>> = total
        .into_iter()
        .map(|(g, (count, sums))| {
            q.select
                .iter()
                .map(|name| {
                    if let Some(ai) = q.aggregates.iter().position(|a| &a.name == name) {
                        return if count == 0 {
                            OutValue::Null
                        } else {
                            OutValue::Int(sums[ai])
                        };
                    }
                    for src in &plan.groups {
                        if let Some(ci) = src.columns.iter().position(|c| c == name) {
                            let t = (g / src.stride) as usize % src.tuples.len().max(1);
                            return src.tuples[t][ci].clone();
                        }
                    }
                    // A carried column whose join was pruned cannot be selected (validated).
                    OutValue::Null
                })
                .collect()
        })
        .collect();
    let keys: Vec<(usize, bool)> = q
        .order_by
        .iter()
        .filter_map(|k| {
            q.select
                .iter()
                .position(|s| s == &k.name)
                .map(|i| (i, k.desc))
        })
        .collect();
    rows.sort_by(|a, b| {
        for &(i, desc) in &keys {
            let o = a[i].cmp(&b[i]);
            if o != std::cmp::Ordering::Equal {
                return if desc { o.reverse() } else { o };
            }
        }
        a.cmp(b)
    });
    if let Some(l) = q.limit {
        rows.truncate(l);
    }
    rows
}
