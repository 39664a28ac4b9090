//! Aggregation: per-thread accumulators (dense arrays or hash tables by group id), their
//! merge after the probe, and the decoding of group ids into ordered, limited result
//! rows.

use std::collections::HashMap;

use pmolap_store::AccessCounts;

use super::probe::{fetch_ids, ColRef, Scratch};
use crate::error::Result;
use crate::plan::{OutValue, Plan};
use crate::query::Op;

/// Per-thread aggregation state.
pub(super) enum Acc {
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
    pub(super) fn new(domain: u64, naggs: usize, dense_max: u64) -> Acc {
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

/// Adds the `k` selected rows of morsel `[start, start+n)` (selection and group ids in
/// `s`) to `acc`: every aggregate's values decoded through the column dictionaries.
#[inline]
pub(super) fn accumulate(
    plan: &Plan<'_>,
    cols: &[ColRef<'_>],
    start: usize,
    n: usize,
    k: usize,
    s: &mut Scratch,
    acc: &mut Acc,
) {
    let Scratch {
        buf,
        sel,
        gid,
        ids,
        vals,
        tally,
        ..
    } = s;
    let naggs = plan.aggs.len();
    ids.resize(k, 0);
    vals.resize(k, 0);
    for (ai, a) in plan.aggs.iter().enumerate() {
        let ca = cols[a.a];
        fetch_ids(ca, start, n, &sel[..k], buf, ids);
        if let Some(t) = tally.as_mut() {
            t.selected(a.a, &sel[..k], n);
            t.dict[a.a] += AccessCounts::of_batch(ids);
        }
        let da = plan.cols[a.a].ints;
        for (v, &id) in vals.iter_mut().zip(ids.iter()) {
            *v = da[id as usize];
        }
        if let Some((op, b)) = a.op {
            let cb = cols[b];
            fetch_ids(cb, start, n, &sel[..k], buf, ids);
            if let Some(t) = tally.as_mut() {
                t.selected(b, &sel[..k], n);
                t.dict[b] += AccessCounts::of_batch(ids);
            }
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
}

/// Per group id: (rows, sums by aggregate).
pub(super) type Totals = HashMap<u32, (u64, Vec<i64>)>;

/// Merges the per-thread results (accumulator, qualifying rows, morsels): the totals by
/// group id, qualifying rows and morsels. The first failed thread's error is returned.
pub(super) fn merge(
    results: Vec<Result<(Acc, u64, usize)>>,
    naggs: usize,
) -> Result<(Totals, u64, usize)> {
    let mut total: Totals = HashMap::new();
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
    Ok((total, qualifying, morsels))
}

/// Decodes group ids into select-list rows, then orders and limits them.
pub(super) fn result_rows(plan: &Plan<'_>, mut total: Totals) -> Vec<Vec<OutValue>> {
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
