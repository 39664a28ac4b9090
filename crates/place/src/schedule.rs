//! The order in which the engine's workers touch a query's recorded pages: the page
//! reference stream the page-cache simulation ([`crate::readahead`]) runs over.
//!
//! A query's records are per structure and step (step 0 planning, steps 1.. each a 32nd
//! of the fact rows; `pmolap_store::pagelog`), which says which pages were touched but
//! not in which order across structures. The engine (`crates/engine/src/exec`) runs the
//! fact rows in **morsels** of [`ENGINE_MORSEL_ROWS`] rows; `workers` threads take
//! **claims** of `span` consecutive morsels in turn (claim `c` covers morsels
//! `c·span .. (c+1)·span`, `span` from [`claim_span`]), and a worker reads every column
//! the query needs for one morsel before it moves to the next. So at one moment the
//! device serves `workers` positions of every fact column at once, and behind a page
//! cache smaller than those streams' readahead windows each column's window is evicted
//! by the others' between two morsels. The stream built here follows that schedule:
//!
//! - **planning** (step 0) runs on one thread, structure after structure: each touched
//!   structure's pages ascending, structures in workload order;
//! - **fact steps**: each touch is given its morsel — a data vector's page holds rows
//!   `(page − 1) · rows_per_page ..` (page 0 is the file's header), so its morsel is
//!   known; other structures' pages of a step (dictionary decodes) are spread evenly over
//!   the morsels the step's data vectors cover — and the touches are ordered by
//!   (round `= claim / workers`, morsel within its claim, structure, worker, page):
//!   the workers advance together, each through the same columns of its own morsel.
//!
//! Only the order changes; every recorded touch is kept. With no cache bound (cold) the
//! order within a structure is what matters, and claims keep it ascending within a
//! worker's span.

use std::collections::HashMap;

use pmolap_store::StructureKind;

use crate::workload::{StructurePages, Workload};

/// The engine's morsel: rows a worker processes at once (`pmolap_engine`'s
/// `DEFAULT_MORSEL_ROWS`).
pub const ENGINE_MORSEL_ROWS: u64 = 64 * 1024;
/// The engine's `MAX_CLAIM_MORSELS`: at most this many consecutive morsels a claim.
pub const MAX_CLAIM_MORSELS: u64 = 4;
/// The engine's `MIN_CLAIMS_PER_WORKER`: every worker gets at least this many claims.
pub const MIN_CLAIMS_PER_WORKER: u64 = 16;

/// Morsels per claim for `rows` fact rows (the engine's `claim_span`).
pub fn claim_span(rows: u64, morsel_rows: u64, workers: u64) -> u64 {
    let morsels = rows.div_ceil(morsel_rows.max(1));
    (morsels / workers.max(1).saturating_mul(MIN_CLAIMS_PER_WORKER)).clamp(1, MAX_CLAIM_MORSELS)
}

/// Which order the stream's touches take (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Order {
    /// Step after step; within a step structure after structure (workload order), each
    /// structure's pages ascending. The default: behind the caches measured so far it
    /// is the closer (docs/placement.md, "Behind a cache smaller than the slow working
    /// set").
    #[default]
    Steps,
    /// The engine's schedule: fact-step touches ordered by morsel, claim and worker.
    Engine,
}

/// How the engine's workers walk a query's fact rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Schedule {
    pub order: Order,
    /// Rows of a morsel.
    pub morsel_rows: u64,
    /// Worker threads claiming morsels (1: one stream per structure).
    pub workers: u64,
}

impl Schedule {
    /// The engine's morsels with `workers` threads, in `order`.
    pub fn engine(order: Order, workers: u32) -> Self {
        Schedule {
            order,
            morsel_rows: ENGINE_MORSEL_ROWS,
            workers: u64::from(workers.max(1)),
        }
    }
}

/// Per structure, what the schedule needs: rows per recorded page and rows, for data
/// vectors (`None` for other structures).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Geometry {
    pub rows_per_page: f64,
    pub rows: u64,
}

/// The geometry of each structure of `w` for pages of `rec_bytes` (the header page
/// excluded).
pub fn geometry(w: &Workload, rec_bytes: u64) -> Vec<Option<Geometry>> {
    w.structures
        .iter()
        .map(|s| match (s.kind, s.bit_width) {
            (StructureKind::DataVector, Some(bw)) if bw > 0 => {
                let payload = s.bytes.saturating_sub(pmolap_store::pagelog::PAGE_BYTES);
                Some(Geometry {
                    rows_per_page: rec_bytes as f64 * 8.0 / f64::from(bw),
                    rows: payload.saturating_mul(8) / u64::from(bw),
                })
            }
            _ => None,
        })
        .collect()
}

/// One touch of the stream: (step, structure, page).
pub type Touch = (u32, u32, u64);

/// The touches of one query's records `pages` over the structures `on` selects, in the
/// order of `sched` (module docs). Recorded pages of `rec_bytes` map to the profile's
/// pages of `page_bytes` (the page holding their start; a structure's immediate repeats
/// dropped). Steps are reported never decreasing (a touch reordered before a step
/// boundary carries the step before it).
pub fn query_refs(
    pages: &[StructurePages],
    on: &dyn Fn(usize) -> bool,
    geo: &[Option<Geometry>],
    sched: Schedule,
    rec_bytes: u64,
    page_bytes: u64,
    out: &mut Vec<Touch>,
) {
    let to_profile = |p: u32| u64::from(p) * rec_bytes / page_bytes.max(1);
    if sched.order == Order::Steps {
        let mut steps: Vec<(u32, usize, &pmolap_store::PageStep)> = pages
            .iter()
            .filter(|p| on(p.structure))
            .flat_map(|p| p.steps.iter().map(move |st| (st.step, p.structure, st)))
            .collect();
        steps.sort_by_key(|&(step, s, _)| (step, s));
        for (step, s, st) in steps {
            let mut last = None;
            for p in st.pages() {
                let q = to_profile(p);
                if last != Some(q) {
                    out.push((step, s as u32, q));
                    last = Some(q);
                }
            }
        }
        return;
    }
    let geo_of = |s: usize| geo.get(s).copied().flatten();
    let morsel_rows = sched.morsel_rows.max(1) as f64;
    let morsel_of = |g: Geometry, p: u32| -> u64 {
        (f64::from(p.saturating_sub(1)) * g.rows_per_page / morsel_rows) as u64
    };
    // Planning: one thread, structure after structure.
    let mut plan: Vec<(usize, &pmolap_store::PageStep)> = pages
        .iter()
        .filter(|p| on(p.structure))
        .flat_map(|p| {
            p.steps
                .iter()
                .filter(|st| st.step == 0)
                .map(move |st| (p.structure, st))
        })
        .collect();
    plan.sort_by_key(|&(s, _)| s);
    for (s, st) in plan {
        let mut last = None;
        for p in st.pages() {
            let q = to_profile(p);
            if last != Some(q) {
                out.push((0, s as u32, q));
                last = Some(q);
            }
        }
    }
    // Fact steps: the morsels each step's data vectors cover (all recorded structures:
    // the schedule is the engine's whatever the placement), and the fact rows.
    let mut range: HashMap<u32, (u64, u64)> = HashMap::new();
    let mut rows = 0u64;
    for sp in pages {
        let Some(g) = geo_of(sp.structure) else {
            continue;
        };
        for st in sp.steps.iter().filter(|st| st.step > 0) {
            rows = rows.max(g.rows);
            let (Some(first), Some(last)) = (st.runs.first(), st.runs.last()) else {
                continue;
            };
            let lo = morsel_of(g, first[0]);
            let hi = morsel_of(g, last[0].saturating_add(last[1].saturating_sub(1)));
            let e = range.entry(st.step).or_insert((lo, hi));
            *e = (e.0.min(lo), e.1.max(hi));
        }
    }
    let span = claim_span(rows, sched.morsel_rows, sched.workers);
    let workers = sched.workers.max(1);
    // (round, morsel in claim, structure, worker, page, step)
    let mut keyed: Vec<(u64, u64, u32, u64, u64, u32)> = Vec::new();
    let mut steps: Vec<u32> = range.keys().copied().collect();
    steps.sort_unstable();
    for sp in pages.iter().filter(|p| on(p.structure)) {
        let g = geo_of(sp.structure);
        for st in sp.steps.iter().filter(|st| st.step > 0) {
            // A step no data vector recorded: after the last one before it.
            let (lo, hi) = match range.get(&st.step) {
                Some(&r) => r,
                None => {
                    let before = steps.iter().take_while(|&&t| t < st.step).last();
                    let m = before.map_or(0, |t| range[t].1);
                    (m, m)
                }
            };
            let n = st.page_count().max(1);
            let m_count = hi - lo + 1;
            for (k, p) in st.pages().enumerate() {
                let m = match g {
                    Some(g) if p > 0 => morsel_of(g, p),
                    _ => lo + (k as u64).saturating_mul(m_count) / n,
                };
                let claim = m / span;
                keyed.push((
                    claim / workers,
                    m % span,
                    sp.structure as u32,
                    claim % workers,
                    to_profile(p),
                    st.step,
                ));
            }
        }
    }
    keyed.sort_unstable();
    let mut last: HashMap<u32, u64> = HashMap::new();
    let mut step = 0;
    for (_, _, s, _, q, st) in keyed {
        step = step.max(st);
        if last.insert(s, q) != Some(q) {
            out.push((step, s, q));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmolap_store::PageStep;

    fn sp(structure: usize, steps: &[(u32, &[[u32; 2]])]) -> StructurePages {
        StructurePages {
            structure,
            steps: steps
                .iter()
                .map(|&(step, runs)| PageStep {
                    step,
                    runs: runs.to_vec(),
                })
                .collect(),
        }
    }

    #[test]
    fn claim_span_is_the_engines() {
        // The engine's own cases (crates/engine/src/exec/mod.rs).
        assert_eq!(claim_span(59_986_214, ENGINE_MORSEL_ROWS, 2), 4);
        assert_eq!(claim_span(59_986_214, ENGINE_MORSEL_ROWS, 64), 1);
        assert_eq!(claim_span(20 * 64, 64, 1), 1);
        assert_eq!(claim_span(48 * 64, 64, 1), 3);
        assert_eq!(claim_span(0, 64, 2), 1);
        assert_eq!(claim_span(1000, 0, 0), MAX_CLAIM_MORSELS);
        // SF 1 (6,001,171 rows) on two threads: two morsels a claim.
        assert_eq!(claim_span(6_001_171, ENGINE_MORSEL_ROWS, 2), 2);
    }

    /// Two data vectors A (structure 0) and B (1), 4 pages a morsel each (morsels of 8
    /// rows, 2 rows a page), 8 morsels in one step, claims of 1 morsel (16 rows / (2
    /// workers · 16) < 1), 2 workers; a dictionary D (2) with 4 pages in the step, and
    /// A's planning page.
    #[test]
    fn interleaves_structures_by_morsel_and_workers_by_claim() {
        let geo = [
            Some(Geometry {
                rows_per_page: 2.0,
                rows: 64,
            }),
            Some(Geometry {
                rows_per_page: 2.0,
                rows: 64,
            }),
            None,
        ];
        // Pages 1..=16 hold rows 0..32: morsels 0..4 (pages 1-4, 5-8, 9-12, 13-16).
        let pages = [
            sp(0, &[(0, &[[0, 1]]), (1, &[[1, 16]])]),
            sp(1, &[(1, &[[1, 3], [9, 1], [13, 4]])]),
            sp(2, &[(1, &[[0, 4]])]),
        ];
        let sched = Schedule {
            order: Order::Engine,
            morsel_rows: 8,
            workers: 2,
        };
        let mut out = Vec::new();
        query_refs(&pages, &|_| true, &geo, sched, 4096, 4096, &mut out);
        // Worked by hand: claims of 1 morsel (rows 64 → 8 morsels, 8 / (2 · 16) = 0 →
        // 1); round r holds morsels 2r (worker 0) and 2r + 1 (worker 1). D's 4 pages
        // spread over the step's morsels 0..=3: one each.
        // Round 0: A m0 (1-4), A m1 (5-8), B m0 (1-3), D m0 (0), D m1 (1).
        // Round 1: A m2 (9-12), A m3 (13-16), B m2 (9), B m3 (13-16), D m2 (2), D m3 (3).
        let want: Vec<Touch> = [
            (0, 0, 0),
            (1, 0, 1),
            (1, 0, 2),
            (1, 0, 3),
            (1, 0, 4),
            (1, 0, 5),
            (1, 0, 6),
            (1, 0, 7),
            (1, 0, 8),
            (1, 1, 1),
            (1, 1, 2),
            (1, 1, 3),
            (1, 2, 0),
            (1, 2, 1),
            (1, 0, 9),
            (1, 0, 10),
            (1, 0, 11),
            (1, 0, 12),
            (1, 0, 13),
            (1, 0, 14),
            (1, 0, 15),
            (1, 0, 16),
            (1, 1, 9),
            (1, 1, 13),
            (1, 1, 14),
            (1, 1, 15),
            (1, 1, 16),
            (1, 2, 2),
            (1, 2, 3),
        ]
        .to_vec();
        assert_eq!(out, want);
    }

    #[test]
    fn claims_of_two_morsels_alternate_workers_within_a_round() {
        // One data vector, a page a morsel (1-row morsels, 1 row a page), 512 rows:
        // 512 morsels / (2 workers · 16) = 16 → claims of 4 morsels (the most).
        let geo = [Some(Geometry {
            rows_per_page: 1.0,
            rows: 512,
        })];
        let pages = [sp(0, &[(1, &[[1, 16]])])];
        let sched = Schedule {
            order: Order::Engine,
            morsel_rows: 1,
            workers: 2,
        };
        let mut out = Vec::new();
        query_refs(&pages, &|_| true, &geo, sched, 4096, 4096, &mut out);
        // span 4: claim 0 = morsels 0-3 (pages 1-4, worker 0), claim 1 = 4-7 (worker 1);
        // by (round, morsel in claim, worker): 1 5 2 6 3 7 4 8, then 9 13 10 14 ...
        let got: Vec<u64> = out.iter().map(|t| t.2).collect();
        assert_eq!(
            got,
            vec![1, 5, 2, 6, 3, 7, 4, 8, 9, 13, 10, 14, 11, 15, 12, 16]
        );
    }
}
