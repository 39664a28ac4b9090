//! The totals of a query: the per-thread accumulators merged by group id (or the answer
//! read from the column dictionaries without a scan), and the groups decoded into the
//! select list's rows, ordered (NULLs last) and limited.

use std::collections::HashMap;

use super::aggregate::Acc;
use crate::error::{Error, Result};
use crate::plan::{Double, OutValue, Plan};
use crate::query::AggFn;

/// One group's totals.
#[derive(Debug, Clone)]
pub(super) struct Group {
    /// Rows of the group.
    pub(super) rows: u64,
    /// The states by aggregate.
    pub(super) states: Vec<i64>,
    /// By aggregate, the rows a nullable one took (empty when none is nullable).
    pub(super) took: Vec<u64>,
}

/// Per group id, its totals.
pub(super) type Totals = HashMap<u32, Group>;

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
    let group = Group {
        rows: plan.fact_rows as u64,
        states,
        took: Vec::new(),
    };
    Some(HashMap::from([(0, group)]))
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

/// Merges the per-thread results (accumulator, qualifying rows, morsels): the totals by
/// group id, qualifying rows and morsels. The first failed thread's error is returned;
/// an overflow (in a thread or in the merge) is an error naming the aggregate.
pub(super) fn merge(
    plan: &Plan<'_>,
    results: Vec<Result<(Acc, u64, usize)>>,
) -> Result<(Totals, u64, usize)> {
    let naggs = plan.aggs.len();
    let funcs: Vec<AggFn> = plan.aggs.iter().map(|a| a.func).collect();
    let mut total: Totals = HashMap::new();
    let (mut qualifying, mut morsels) = (0u64, 0usize);
    let mut over: Option<usize> = None;
    for r in results {
        let (acc, q, mo) = r?;
        if let Some(ai) = acc.overflow {
            return Err(overflow_error(plan, ai));
        }
        qualifying += q;
        morsels += mo;
        let nullable = acc.nullable;
        let mut add = |g: u32, c: u64, s: &[i64], took: &[u64]| {
            let e = total.entry(g).or_insert_with(|| Group {
                rows: 0,
                states: acc.init.clone(),
                took: if nullable { vec![0; naggs] } else { Vec::new() },
            });
            e.rows += c;
            for (t, &n) in e.took.iter_mut().zip(took) {
                *t += n;
            }
            for (ai, (t, &v)) in e.states.iter_mut().zip(s).enumerate() {
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

/// Decodes group ids into select-list rows, then orders and limits them.
pub(super) fn result_rows(plan: &Plan<'_>, mut total: Totals) -> Vec<Vec<OutValue>> {
    let q = &plan.query;
    let naggs = plan.aggs.len();
    // SQL: aggregates without GROUP BY over no rows are one row (NULLs, counts 0). (The
    // query, not the plan, says whether it groups: a plan that found the result empty
    // early may have bound no group source.)
    let grouped = !q.carry.is_empty() || q.joins.iter().any(|j| !j.carry.is_empty());
    if !grouped && total.is_empty() {
        let group = Group {
            rows: 0,
            states: vec![0; naggs],
            took: Vec::new(),
        };
        total.insert(0, group);
    }
    // ORDER BY keys that are not selected (an aggregate or a group-by column left out of
    // the answer) are computed after the select list's columns and cut off once sorted.
    let mut cols: Vec<&String> = q.select.iter().collect();
    for k in &q.order_by {
        if !cols.contains(&&k.name) {
            cols.push(&k.name);
        }
    }
    let mut rows: Vec<Vec<OutValue>> = total
        .into_iter()
        .map(|(g, group)| {
            cols.iter()
                .map(|&name| {
                    if let Some(ai) = q.aggregates.iter().position(|a| &a.name == name) {
                        let a = &plan.aggs[ai];
                        // A nullable aggregate over the rows it took (none: NULL, or a
                        // count of 0).
                        let count = match a.nullable {
                            true => group.took.get(ai).copied().unwrap_or(0),
                            false => group.rows,
                        };
                        return agg_value(a.func, count, group.states[ai]);
                    }
                    for src in &plan.groups {
                        if let Some(ci) = src.columns.iter().position(|c| c == name) {
                            let t = (g / src.stride) as usize % src.values.len().max(1);
                            return src.values.value(t, ci);
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
        .filter_map(|k| cols.iter().position(|s| *s == &k.name).map(|i| (i, k.desc)))
        .collect();
    rows.sort_by(|a, b| {
        for &(i, desc) in &keys {
            // NULLs last in either direction (DuckDB's default).
            let o = match (&a[i], &b[i]) {
                (OutValue::Null, OutValue::Null) => std::cmp::Ordering::Equal,
                (OutValue::Null, _) => return std::cmp::Ordering::Greater,
                (_, OutValue::Null) => return std::cmp::Ordering::Less,
                (x, y) => x.cmp(y),
            };
            if o != std::cmp::Ordering::Equal {
                return if desc { o.reverse() } else { o };
            }
        }
        a.cmp(b)
    });
    if let Some(l) = q.limit {
        rows.truncate(l);
    }
    if cols.len() > q.select.len() {
        for r in &mut rows {
            r.truncate(q.select.len());
        }
    }
    rows
}
