//! The totals of a query: the per-thread accumulators merged by group id (or the answer
//! read from the column dictionaries without a scan), and the groups decoded into the
//! select list's rows, ordered (NULLs last) and limited.

use std::cmp::Ordering;
use std::collections::HashMap;

use super::aggregate::Acc;
use crate::error::{Error, Result};
use crate::plan::{Double, OutValue, Plan};
use crate::query::AggFn;

/// The groups' totals, flat: group `i` has id `ids[i]`, `rows[i]` rows, the states
/// `states[i * naggs..][..naggs]` by aggregate and, when some aggregate is nullable, the
/// rows each took `took[i * naggs..][..naggs]` (empty otherwise). No allocation per group:
/// a group-by over 750,000 customers merges arrays, not a map of vectors.
#[derive(Debug, Default)]
pub(super) struct Totals {
    naggs: usize,
    ids: Vec<u32>,
    rows: Vec<u64>,
    states: Vec<i64>,
    took: Vec<u64>,
}

impl Totals {
    /// No groups of `naggs` aggregates.
    pub(super) fn new(naggs: usize) -> Totals {
        Totals {
            naggs,
            ..Totals::default()
        }
    }

    /// Groups.
    pub(super) fn len(&self) -> usize {
        self.ids.len()
    }

    /// Rows of every group.
    pub(super) fn rows(&self) -> u64 {
        self.rows.iter().sum()
    }

    /// Appends group `id` (`took` empty, or one per aggregate).
    fn push(&mut self, id: u32, rows: u64, states: &[i64], took: &[u64]) {
        self.ids.push(id);
        self.rows.push(rows);
        self.states.extend_from_slice(states);
        self.took.extend_from_slice(took);
    }

    /// The rows nullable aggregate `ai` of group `i` took (0 when none is nullable).
    fn took(&self, i: usize, ai: usize) -> u64 {
        self.took.get(i * self.naggs + ai).copied().unwrap_or(0)
    }
}

/// The totals of a query answered from the column dictionaries without a scan: when
/// every fact row qualifies (no probe step: no predicate, no filtering join, no group-by)
/// and every aggregate is `COUNT`, or `MIN`/`MAX` of one column. A column's dictionary
/// holds exactly the distinct values the column has, sorted (the store builds it so), so
/// its first and last entries are the column's minimum and maximum.
pub(super) fn from_dictionaries(plan: &Plan<'_>) -> Option<Totals> {
    if !plan.steps.is_empty()
        || plan.group_domain != 1
        || plan.never
        || plan.fact_rows == 0
        || plan.aggs.iter().any(|a| a.nullable)
    {
        return None;
    }
    let mut states = Vec::with_capacity(plan.aggs.len());
    for a in &plan.aggs {
        states.push(match (a.func, a.arg) {
            (AggFn::Count, _) => 0,
            (AggFn::Min, Some((c, None))) => plan.cols[c].ints.first()?,
            (AggFn::Max, Some((c, None))) => plan.cols[c].ints.last()?,
            _ => return None,
        });
    }
    let mut total = Totals::new(plan.aggs.len());
    total.push(0, plan.fact_rows as u64, &states, &[]);
    Some(total)
}

/// The error of aggregate `ai` leaving the 64-bit range.
fn overflow_error(plan: &Plan<'_>, ai: usize) -> Error {
    let a = &plan.query.aggregates[ai];
    Error::Query(format!(
        "query {}: aggregate `{}` ({}) overflows the 64-bit integer range",
        plan.query.label(),
        a.name,
        a.text()
    ))
}

/// A dense accumulator's arrays, one slot per group.
struct Dense {
    counts: Vec<u64>,
    states: Vec<i64>,
    took: Vec<u64>,
}

/// Folds one group's partial states `s` into `t` (sums checked: the first aggregate
/// to overflow is kept in `over`).
fn fold_states(funcs: &[AggFn], t: &mut [i64], s: &[i64], over: &mut Option<usize>) {
    for (ai, (t, &v)) in t.iter_mut().zip(s).enumerate() {
        match funcs[ai] {
            AggFn::Sum | AggFn::Avg => match t.checked_add(v) {
                Some(x) => *t = x,
                None => {
                    over.get_or_insert(ai);
                }
            },
            AggFn::Min => *t = (*t).min(v),
            AggFn::Max => *t = (*t).max(v),
            AggFn::Count => {}
        }
    }
}

/// Merges the per-thread results (accumulator, qualifying rows, morsels): the totals by
/// group id, qualifying rows and morsels. The first failed thread's error is returned;
/// an overflow (in a thread or in the merge) is an error naming the aggregate.
///
/// Dense accumulators (every thread's, or none: one plan makes them all) are folded slot
/// by slot into the first one's arrays (fresh ones when it keeps several copies of each
/// group), and the groups with rows listed in group-id order; hash accumulators through a
/// map from group id to its place in the totals.
pub(super) fn merge(
    plan: &Plan<'_>,
    results: Vec<Result<(Acc, u64, usize)>>,
) -> Result<(Totals, u64, usize)> {
    let naggs = plan.aggs.len();
    let funcs: Vec<AggFn> = plan.aggs.iter().map(|a| a.func).collect();
    let (mut qualifying, mut morsels) = (0u64, 0usize);
    let mut accs = Vec::with_capacity(results.len());
    for r in results {
        let (acc, q, mo) = r?;
        if let Some(ai) = acc.overflow {
            return Err(overflow_error(plan, ai));
        }
        qualifying += q;
        morsels += mo;
        accs.push(acc);
    }
    let mut over: Option<usize> = None;
    let mut total = Totals::new(naggs);
    let nullable = accs.first().is_some_and(|a| a.nullable);
    if accs.iter().all(|a| a.hash.is_none()) {
        // The first accumulator is the target when it keeps one copy per group; a small
        // domain's lanes fold into fresh arrays.
        let mut accs = accs.into_iter().peekable();
        let Some(first) = accs.peek() else {
            return Ok((total, qualifying, morsels));
        };
        let domain = first.domain.max(1) as usize;
        let mut base = if first.counts.len() == domain {
            let a = accs.next().expect("peeked");
            Dense {
                counts: a.counts,
                states: a.states,
                took: a.took,
            }
        } else {
            Dense {
                counts: vec![0; domain],
                states: first
                    .init
                    .iter()
                    .copied()
                    .cycle()
                    .take(domain * naggs)
                    .collect(),
                took: vec![0; if nullable { domain * naggs } else { 0 }],
            }
        };
        for acc in accs {
            for (slot, &c) in acc.counts.iter().enumerate() {
                if c == 0 {
                    continue;
                }
                let g = slot % domain;
                let (at, to) = (slot * naggs..(slot + 1) * naggs, g * naggs..(g + 1) * naggs);
                base.counts[g] += c;
                if nullable {
                    for (t, &n) in base.took[to.clone()].iter_mut().zip(&acc.took[at.clone()]) {
                        *t += n;
                    }
                }
                fold_states(&funcs, &mut base.states[to], &acc.states[at], &mut over);
            }
        }
        for (g, &c) in base.counts.iter().enumerate() {
            if c > 0 {
                let at = g * naggs..(g + 1) * naggs;
                let took = if nullable {
                    &base.took[at.clone()]
                } else {
                    &[][..]
                };
                total.push(g as u32, c, &base.states[at], took);
            }
        }
    } else {
        let mut place: HashMap<u32, usize> = HashMap::new();
        for acc in &accs {
            let mut add = |g: u32, c: u64, s: &[i64], took: &[u64]| {
                let i = *place.entry(g).or_insert_with(|| {
                    let zeros = vec![0; if nullable { naggs } else { 0 }];
                    total.push(g, 0, &acc.init, &zeros);
                    total.len() - 1
                });
                total.rows[i] += c;
                if nullable {
                    for (t, &n) in total.took[i * naggs..(i + 1) * naggs].iter_mut().zip(took) {
                        *t += n;
                    }
                }
                fold_states(
                    &funcs,
                    &mut total.states[i * naggs..(i + 1) * naggs],
                    s,
                    &mut over,
                );
            };
            match &acc.hash {
                None => {
                    let domain = acc.domain.max(1) as usize;
                    for (slot, &c) in acc.counts.iter().enumerate() {
                        if c > 0 {
                            let at = slot * naggs..(slot + 1) * naggs;
                            let took = acc.took.get(at.clone()).unwrap_or_default();
                            add((slot % domain) as u32, c, &acc.states[at], took);
                        }
                    }
                }
                Some(h) => {
                    for (i, &g) in h.keys.iter().enumerate() {
                        let at = i * naggs..(i + 1) * naggs;
                        let took = acc.took.get(at.clone()).unwrap_or_default();
                        add(g, acc.counts[i], &acc.states[at], took);
                    }
                }
            }
        }
    }
    if let Some(ai) = over {
        return Err(overflow_error(plan, ai));
    }
    Ok((total, qualifying, morsels))
}

/// A result value of aggregate `f` over `count` rows with state `v` (a nullable
/// aggregate's count: the rows it took): SQL's NULL for a sum, minimum, maximum or mean
/// of no rows, 0 for their count.
fn agg_value(f: AggFn, count: u64, v: i64) -> OutValue {
    match f {
        AggFn::Count => OutValue::Int(count as i64),
        _ if count == 0 => OutValue::Null,
        AggFn::Avg => OutValue::Float(Double(v as f64 / count as f64)),
        AggFn::Sum | AggFn::Min | AggFn::Max => OutValue::Int(v),
    }
}

/// What a column of the result rows is made of.
#[derive(Clone, Copy)]
enum Cell {
    /// Aggregate `ai`.
    Agg(usize),
    /// Column `ci` of group source `src`.
    Group { src: usize, ci: usize },
    /// A carried column whose join was pruned (cannot be selected: validated).
    Null,
}

/// Decodes group ids into select-list rows, then orders and limits them.
///
/// The groups are ordered before any is decoded: an aggregate is compared as its
/// value, a group-by column by its value ids ([`crate::plan::GroupValues::cmp`]); with a
/// LIMIT only the groups that make the cut are sorted (a selection first), and only the
/// rows returned are decoded — the top 10 of 280,000 customers build 10 names, not 280,000.
pub(super) fn result_rows(plan: &Plan<'_>, mut total: Totals) -> Vec<Vec<OutValue>> {
    let q = &plan.query;
    let naggs = plan.aggs.len();
    // SQL: aggregates without GROUP BY over no rows are one row (NULLs, counts 0). (The
    // query, not the plan, says whether it groups: a plan that found the result empty
    // early may have bound no group source.)
    let grouped = !q.carry.is_empty() || q.joins.iter().any(|j| !j.carry.is_empty());
    if !grouped && total.len() == 0 {
        let took = vec![0; if total.took.is_empty() { 0 } else { naggs }];
        total.push(0, 0, &vec![0; naggs], &took);
    }
    // ORDER BY keys that are not selected (an aggregate or a group-by column left out of
    // the answer) are computed after the select list's columns and cut off once sorted.
    let mut cols: Vec<&String> = q.select.iter().collect();
    for k in &q.order_by {
        if !cols.contains(&&k.name) {
            cols.push(&k.name);
        }
    }
    let cells: Vec<Cell> = cols
        .iter()
        .map(|&name| {
            if let Some(ai) = q.aggregates.iter().position(|a| &a.name == name) {
                return Cell::Agg(ai);
            }
            for (src, s) in plan.groups.iter().enumerate() {
                if let Some(ci) = s.columns.iter().position(|c| c == name) {
                    return Cell::Group { src, ci };
                }
            }
            Cell::Null
        })
        .collect();
    // Group `i`'s tuple code in source `src`.
    let code = |i: usize, src: usize| {
        let s = &plan.groups[src];
        (total.ids[i] / s.stride) as usize % s.values.len().max(1)
    };
    let agg = |i: usize, ai: usize| {
        let a = &plan.aggs[ai];
        // A nullable aggregate over the rows it took (none: NULL, or a count of 0).
        let count = match a.nullable {
            true => total.took(i, ai),
            false => total.rows[i],
        };
        agg_value(a.func, count, total.states[i * naggs + ai])
    };
    let value = |i: usize, cell: Cell| match cell {
        Cell::Agg(ai) => agg(i, ai),
        Cell::Group { src, ci } => plan.groups[src].values.value(code(i, src), ci),
        Cell::Null => OutValue::Null,
    };
    let is_null = |i: usize, cell: Cell| match cell {
        Cell::Agg(ai) => agg(i, ai) == OutValue::Null,
        Cell::Group { src, ci } => plan.groups[src].values.is_null(code(i, src), ci),
        Cell::Null => true,
    };
    // Column `cell` of groups `a` and `b` in [`OutValue`]'s order.
    let cmp_cell = |a: usize, b: usize, cell: Cell| match cell {
        Cell::Agg(ai) => agg(a, ai).cmp(&agg(b, ai)),
        Cell::Group { src, ci } => plan.groups[src].values.cmp(code(a, src), code(b, src), ci),
        Cell::Null => Ordering::Equal,
    };
    let keys: Vec<(Cell, bool)> = q
        .order_by
        .iter()
        .filter_map(|k| {
            cols.iter()
                .position(|s| *s == &k.name)
                .map(|i| (cells[i], k.desc))
        })
        .collect();
    let order = |&a: &usize, &b: &usize| {
        for &(cell, desc) in &keys {
            // NULLs last in either direction (DuckDB's default).
            let o = match (is_null(a, cell), is_null(b, cell)) {
                (true, true) => Ordering::Equal,
                (true, false) => return Ordering::Greater,
                (false, true) => return Ordering::Less,
                (false, false) => cmp_cell(a, b, cell),
            };
            if o != Ordering::Equal {
                return if desc { o.reverse() } else { o };
            }
        }
        // Then the whole rows, column by column.
        cells
            .iter()
            .map(|&cell| cmp_cell(a, b, cell))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    };
    let mut groups: Vec<usize> = (0..total.len()).collect();
    match q.limit {
        Some(l) if l < groups.len() => {
            if l > 0 {
                groups.select_nth_unstable_by(l - 1, order);
            }
            groups.truncate(l);
        }
        _ => {}
    }
    groups.sort_unstable_by(order);
    let shown = &cells[..q.select.len()];
    groups
        .into_iter()
        .map(|i| shown.iter().map(|&cell| value(i, cell)).collect())
        .collect()
}
