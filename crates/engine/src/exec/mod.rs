//! Execution: a morsel-driven parallel probe over the packed fact columns with
//! per-thread aggregation, merged at the end, and the SIGMOD'21 Table 1 switches —
//! threads, pinning, striping fact partitions over NUMA nodes, replicating the join
//! filters per node.
//!
//! A morsel is [`ExecOptions::morsel_rows`] consecutive fact rows (65,536 unless told
//! otherwise), and a worker claims up to four consecutive morsels at a time
//! ([`claim_span`]), so that each reads every column in long runs. Its first step tests
//! every id of one column (on the packed words, or after unpacking them for a lookup),
//! producing the selection — a bitmask of the morsel while the steps test whole morsels,
//! then a selection vector (row offsets) — and, for a lookup, the rows' partial group
//! ids; each later step reads only the selected rows — by unpacking the morsel again
//! when many are left, by random gets when few are — and compacts the selection.
//! Aggregates decode the surviving rows' ids through the column dictionaries.
//!
//! The modules import one way: `morsel` (the views, buffers and id reads a morsel's work
//! shares) ← `groups`, `packed` ← `aggregate` ← `probe`, `totals` ← this one; `layout` and `views`
//! (threads, node-local copies) beside them.

mod aggregate;
mod argvalues;
mod groups;
mod layout;
mod morsel;
mod packed;
mod probe;
mod totals;
mod views;

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use pmolap_tier::kernel::Isa;
use pmolap_tier::{pin, Pinning, RegionOptions};

use self::aggregate::Acc;
use self::morsel::{Scratch, Tally};
use self::probe::run_morsel;
use self::totals::{from_dictionaries, merge, result_rows, Totals};
use self::views::{group_views, replicate_filters, GroupView};
use crate::error::{Error, Result};
use crate::plan::{OutValue, Plan, DENSE_GROUPS_MAX};
use crate::query::IndexChoice;

pub use self::layout::{Layout, StripedFact, ThreadGroup};
pub use crate::answer::ExecStats;

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
    /// The join index of every join ([`IndexChoice::Auto`]: each join's own choice, as
    /// the query says); applied by [`crate::run_query`].
    pub join_index: IndexChoice,
    /// The bit kernels that unpack and test the packed value ids (None: the widest this
    /// CPU has). The kernels dispatch through one process-wide table
    /// (`pmolap_kernels::bits::active`): [`crate::Session::new`] is the one place
    /// that selects it, from this option; [`execute`] runs whichever is selected.
    pub bits_isa: Option<Isa>,
}

/// Threads per logical CPU allowed without [`ExecOptions::oversubscribe`].
pub const OVERSUBSCRIBE_FACTOR: usize = 4;
/// The largest morsel: per-thread scratch buffers are sized by it.
pub const MAX_MORSEL_ROWS: usize = 1 << 24;
/// Rows per morsel unless told otherwise (docs/engine.md, "Long runs per thread"): each
/// step reads a column's share of a morsel as one run, and a run of 16,384 rows (2–12 KiB
/// of a narrow column) paid its start more often than its length (SF 10, two threads:
/// 65,536 rows 1.21× over 16,384 on 44 sample queries, the slowest 1.01×).
pub const DEFAULT_MORSEL_ROWS: usize = 64 * 1024;
/// A worker claims up to this many consecutive morsels at a time ([`claim_span`]).
pub const MAX_CLAIM_MORSELS: usize = 4;
/// ... while every worker sharing a range still gets at least this many claims of it.
pub const MIN_CLAIMS_PER_WORKER: usize = 16;

impl Default for ExecOptions {
    fn default() -> Self {
        ExecOptions {
            threads: 0,
            pin: Pinning::Cores,
            stripe: true,
            replicate_dims: true,
            morsel_rows: DEFAULT_MORSEL_ROWS,
            dense_groups_max: DENSE_GROUPS_MAX,
            nodes_override: None,
            oversubscribe: false,
            join_index: IndexChoice::Auto,
            bits_isa: None,
        }
    }
}

/// What one worker thread returns: its accumulator, qualifying rows and morsels.
type WorkerResult = Result<(Acc, u64, usize)>;

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
    let m = opts.morsel_rows;
    if m == 0 || !m.is_multiple_of(64) {
        return Err(Error::Options(format!(
            "morsel size {m} rows is not a positive multiple of 64"
        )));
    }
    // A plan known to be empty, or answered by the dictionaries: no workers.
    let early = if plan.never {
        Some(Totals::new(plan.aggs.len()))
    } else {
        from_dictionaries(plan)
    };
    if let Some(total) = early {
        let rows_qualifying = total.rows();
        let groups = total.len();
        return Ok((
            result_rows(plan, total),
            ExecStats {
                probe_ms: t0.elapsed().as_secs_f64() * 1e3,
                morsels: 0,
                rows_qualifying,
                groups,
                replicated_bytes: 0,
            },
        ));
    }
    let (replicas, replicated_bytes) = replicate_filters(plan, layout, region)?;
    let views = group_views(plan, layout, striped, &replicas);
    let results = run_workers(plan, layout, &views, m, opts.dense_groups_max);
    let (total, qualifying, morsels) = merge(plan, results)?;
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

/// Starts one worker per CPU set of every thread group (morsels of `m` rows) and returns
/// what each returned; a thread that could not be started ends the list with its error.
fn run_workers(
    plan: &Plan<'_>,
    layout: &Layout,
    views: &[GroupView<'_>],
    m: usize,
    dense_max: u64,
) -> Vec<WorkerResult> {
    let rows = plan.fact_rows;
    let shared = AtomicUsize::new(0);
    let own: Vec<AtomicUsize> = layout.groups.iter().map(|_| AtomicUsize::new(0)).collect();
    // Workers of the groups without a range of their own share the whole table.
    let sharing: usize = layout
        .groups
        .iter()
        .filter(|g| g.rows.is_none())
        .map(|g| g.cpus.len())
        .sum();
    std::thread::scope(|scope| {
        let mut handles = Vec::new();
        let mut spawn_error: Option<std::io::Error> = None;
        for (gi, g) in layout.groups.iter().enumerate() {
            let range = g.rows.clone().unwrap_or(0..rows);
            let (counter, workers) = if g.rows.is_some() {
                (&own[gi], g.cpus.len())
            } else {
                (&shared, sharing)
            };
            let claims = Claims {
                counter,
                span: claim_span(range.len(), m, workers),
                range,
                morsel: m,
            };
            let (cols, steps) = &views[gi];
            for cpus in &g.cpus {
                if spawn_error.is_some() {
                    break;
                }
                let claims = claims.clone();
                let worker = std::thread::Builder::new().spawn_scoped(scope, move || {
                    pin::pin_current_thread(cpus)?;
                    Ok(probe_rows(plan, cols, steps, claims, dense_max))
                });
                match worker {
                    Ok(h) => handles.push(h),
                    Err(e) => spawn_error = Some(e),
                }
            }
        }
        let mut results: Vec<WorkerResult> = handles
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
    })
}

/// How many consecutive morsels a worker claims at a time from a range of `rows` rows
/// shared by `workers`: up to [`MAX_CLAIM_MORSELS`], as long as each worker still gets
/// [`MIN_CLAIMS_PER_WORKER`] claims (the last claims balance the workers' ends), and at
/// least one.
///
/// Claimed one at a time, two workers' morsels alternate, so each reads every column in
/// runs of one morsel with the other's run between them; claimed four at a time, a
/// worker reads four morsels' runs back to back (SF 10, two threads, 44 sample queries:
/// 1.12–1.15× at 16,384-row morsels, 1.05× at 65,536; docs/engine.md).
pub fn claim_span(rows: usize, morsel: usize, workers: usize) -> usize {
    let morsels = rows.div_ceil(morsel.max(1));
    (morsels / workers.max(1).saturating_mul(MIN_CLAIMS_PER_WORKER)).clamp(1, MAX_CLAIM_MORSELS)
}

/// Where a worker takes its morsels from: claims of `span` consecutive morsels of
/// `morsel` rows of `range`, numbered by `counter` (shared by the range's workers).
#[derive(Clone)]
struct Claims<'a> {
    counter: &'a AtomicUsize,
    range: Range<usize>,
    morsel: usize,
    span: usize,
}

impl Claims<'_> {
    /// The morsels (`start..end` rows) of one claim, or None when the range is used up.
    fn next(&self) -> Option<impl Iterator<Item = Range<usize>> + '_> {
        let (r, m) = (&self.range, self.morsel);
        let first = self
            .counter
            .fetch_add(1, Ordering::Relaxed)
            .saturating_mul(self.span);
        let start = r.start.saturating_add(first.saturating_mul(m));
        if start >= r.end {
            return None;
        }
        let end = start.saturating_add(self.span.saturating_mul(m)).min(r.end);
        Some((start..end).step_by(m).map(move |s| s..(s + m).min(end)))
    }
}

/// One worker's loop: takes claims of morsels until none are left. Returns its
/// accumulator, qualifying rows and morsels.
fn probe_rows(
    plan: &Plan<'_>,
    cols: &[morsel::ColRef<'_>],
    steps: &[morsel::StepRef<'_>],
    claims: Claims<'_>,
    dense_max: u64,
) -> (Acc, u64, usize) {
    let mut acc = Acc::new(plan.group_domain, &plan.aggs, dense_max);
    let mut s = Scratch::new(claims.morsel);
    let (mut qualifying, mut morsels) = (0u64, 0usize);
    // The store's counters are bypassed by the kernels (raw payloads): the worker tallies
    // its accesses per morsel and adds them once at the end.
    s.tally = plan
        .cols
        .iter()
        .any(|c| c.store.dv.counting())
        .then(|| Tally::new(plan));
    while let Some(claim) = claims.next() {
        for rows in claim {
            if let Some(t) = s.tally.as_mut() {
                t.morsel(plan, rows.start);
            }
            qualifying += run_morsel(plan, cols, steps, rows.start, rows.len(), &mut s, &mut acc);
            morsels += 1;
        }
    }
    if let Some(t) = s.tally.as_mut() {
        t.flush(plan);
    }
    (acc, qualifying, morsels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claim_span_keeps_enough_claims_per_worker() {
        // SF 10 on two threads: four morsels a claim.
        assert_eq!(claim_span(59_986_214, DEFAULT_MORSEL_ROWS, 2), 4);
        // 16 claims for each of 64 workers leave one morsel a claim.
        assert_eq!(claim_span(59_986_214, DEFAULT_MORSEL_ROWS, 64), 1);
        assert_eq!(claim_span(20 * 64, 64, 1), 1);
        assert_eq!(claim_span(48 * 64, 64, 1), 3);
        // Degenerate inputs neither panic nor leave the bounds.
        assert_eq!(claim_span(0, 64, 2), 1);
        assert_eq!(claim_span(1000, 0, 0), MAX_CLAIM_MORSELS);
        assert_eq!(claim_span(usize::MAX, 64, usize::MAX), 1);
    }

    /// Every row of the range in exactly one morsel, morsels of at most `m` rows inside
    /// one claim's span, whatever order the workers claim in.
    #[test]
    fn claims_cover_the_range_once() {
        for (range, m, span, workers) in [
            (0..1000usize, 64usize, 1usize, 2usize),
            (0..1000, 64, 4, 3),
            (128..1_000_003, 4096, 3, 2),
            (5..5, 64, 2, 2),
            (7..71, 64, 4, 5),
        ] {
            let counter = AtomicUsize::new(0);
            let claims = Claims {
                counter: &counter,
                range: range.clone(),
                morsel: m,
                span,
            };
            let mut seen = Vec::new();
            let mut done = vec![false; workers];
            // Workers take turns, one claim each, until each has been refused.
            while done.iter().any(|d| !d) {
                for d in done.iter_mut().filter(|d| !**d) {
                    match claims.next() {
                        Some(c) => {
                            let c: Vec<_> = c.collect();
                            assert!(c.len() <= span && !c.is_empty(), "{c:?}");
                            assert!(c.iter().all(|r| !r.is_empty() && r.len() <= m), "{c:?}");
                            seen.extend(c);
                        }
                        None => *d = true,
                    }
                }
            }
            seen.sort_by_key(|r| r.start);
            let mut at = range.start;
            for r in &seen {
                assert_eq!(r.start, at, "gap or overlap before {r:?} in {range:?}");
                at = r.end;
            }
            assert_eq!(at, range.end, "{range:?} not covered");
        }
    }
}
