//! Aggregation: per-thread accumulators (dense arrays or hash tables by group id) and
//! the folding of each morsel's selected rows into them (their merge and the result rows:
//! `totals`).
//!
//! A group's state is its row count and one `i64` per aggregate: a sum (`SUM`, `AVG`),
//! a minimum or a maximum (`COUNT` leaves its slot unused and reads the row count).
//! Sums and the `a op b` values are checked: the first aggregate to leave the 64-bit
//! range is remembered by the thread and the query fails naming it.
//!
//! An aggregate over a column holding NULLs (`AggPlan::nullable`) takes only the rows
//! whose argument is not NULL (the value id one past the dictionary), through
//! [`fold_nullable`], and counts them per group: its `COUNT(col)`, the divisor of its
//! `AVG`, and a group it took no row of is NULL. Aggregates over columns without NULLs
//! run as before.

use std::collections::HashMap;

use pmolap_kernels::bits;
use pmolap_store::dictionary::IntValues;

use super::argvalues::{arg_values, combine, decode};
use super::morsel::{ColRef, ColumnIds, Rows, Scratch, Tally};
use super::packed::{can_overflow, fused_sums, packed, packed_read, pair_extremes};
use crate::plan::{AggPlan, Plan};
use crate::query::{AggFn, Op};

/// Hash grouping: the slot of each group id seen, the ids by slot, and the slots of the
/// current batch's rows.
pub(super) struct HashGroups {
    slot: HashMap<u32, u32>,
    pub(super) keys: Vec<u32>,
    rows: Vec<u32>,
}

/// Per-thread aggregation state: `states[slot * naggs + ai]` and `counts[slot]`, where a
/// slot is the group id (dense) or its [`HashGroups`] slot.
///
/// A small dense domain keeps [`LANES`] copies of every group (slot = lane × domain +
/// group, lane = row index mod LANES): consecutive rows of the same group then update
/// different memory, instead of each waiting for the previous row's store.
pub(super) struct Acc {
    pub(super) states: Vec<i64>,
    pub(super) counts: Vec<u64>,
    /// A new group's states.
    pub(super) init: Vec<i64>,
    pub(super) hash: Option<HashGroups>,
    /// Copies of each dense group (1 or [`LANES`]) and the group domain.
    lanes: u32,
    pub(super) domain: u32,
    /// The current batch's lane slots.
    lane_rows: Vec<u32>,
    /// The first aggregate whose value left the 64-bit range.
    pub(super) overflow: Option<usize>,
    /// Per slot and aggregate (as `states`), the rows a nullable aggregate took (its
    /// argument not NULL); empty when no aggregate is nullable.
    pub(super) took: Vec<u64>,
    /// Some aggregate is nullable (`took` grows with `states`).
    pub(super) nullable: bool,
    /// Scratch of [`fold_nullable`].
    nulls: NullScratch,
    /// Rows folded so far, this batch's included: no group of a sum holds more.
    folded: u64,
}

/// Buffers of [`fold_nullable`]: the rows' ids of the argument's columns and their slots,
/// compacted to the rows without NULL, and their values.
#[derive(Default)]
struct NullScratch {
    a: Vec<u32>,
    b: Vec<u32>,
    slots: Vec<u32>,
    vals: Vec<i64>,
}

/// Copies of each group of a small dense domain.
const LANES: u32 = 4;
/// The largest dense domain kept in [`LANES`] copies.
const LANES_DOMAIN_MAX: u64 = 1024;

/// The state a group starts with for `f`.
fn init_of(f: AggFn) -> i64 {
    match f {
        AggFn::Min => i64::MAX,
        AggFn::Max => i64::MIN,
        AggFn::Sum | AggFn::Count | AggFn::Avg => 0,
    }
}

impl Acc {
    pub(super) fn new(domain: u64, aggs: &[AggPlan], dense_max: u64) -> Acc {
        let init: Vec<i64> = aggs.iter().map(|a| init_of(a.func)).collect();
        let lanes = if domain > 1 && domain <= LANES_DOMAIN_MAX {
            LANES
        } else {
            1
        };
        let nullable = aggs.iter().any(|a| a.nullable);
        let (states, counts, hash) = if domain <= dense_max {
            let slots = domain as usize * lanes as usize;
            let states = if init.iter().all(|&v| v == 0) {
                vec![0; slots * init.len()]
            } else {
                init.iter()
                    .copied()
                    .cycle()
                    .take(slots * init.len())
                    .collect()
            };
            (states, vec![0; slots], None)
        } else {
            let h = HashGroups {
                slot: HashMap::new(),
                keys: Vec::new(),
                rows: Vec::new(),
            };
            (Vec::new(), Vec::new(), Some(h))
        };
        let took = if nullable {
            vec![0; states.len()]
        } else {
            Vec::new()
        };
        Acc {
            states,
            counts,
            init,
            hash,
            lanes,
            domain: u32::try_from(domain).unwrap_or(u32::MAX),
            lane_rows: Vec::new(),
            overflow: None,
            took,
            nullable,
            nulls: NullScratch::default(),
            folded: 0,
        }
    }

    /// Whether every row folds into one group (no GROUP BY), so that [`accumulate`]
    /// reads no group ids.
    pub(super) fn single_group(&self) -> bool {
        single_group(&self.hash, &self.counts)
    }
}

/// [`Acc::single_group`] over its fields (borrowed apart in [`accumulate`]).
fn single_group(hash: &Option<HashGroups>, counts: &[u64]) -> bool {
    hash.is_none() && counts.len() == 1
}

/// Folds `vals` (one per selected row) into the states of the rows' slots, aggregate
/// `ai` of `naggs`; true when a sum overflowed. `checked`: test each sum for overflow;
/// unchecked only where [`sums_fit`] proved that no sum can leave the 64-bit range.
#[inline(always)]
fn fold(
    func: AggFn,
    states: &mut [i64],
    slots: &[u32],
    vals: &[i64],
    (ai, naggs): (usize, usize),
    checked: bool,
) -> bool {
    let mut over = false;
    let at = |g: u32| g as usize * naggs + ai;
    match func {
        AggFn::Sum | AggFn::Avg if checked => {
            for (&g, &v) in slots.iter().zip(vals) {
                let s = &mut states[at(g)];
                let (r, o) = s.overflowing_add(v);
                *s = r;
                over |= o;
            }
        }
        AggFn::Sum | AggFn::Avg => {
            // A plain add per row: no flag to test and carry (R11's four sums over 6
            // groups spent most of their time there).
            for (&g, &v) in slots.iter().zip(vals) {
                let s = &mut states[at(g)];
                *s = s.wrapping_add(v);
            }
        }
        AggFn::Min => {
            for (&g, &v) in slots.iter().zip(vals) {
                let s = &mut states[at(g)];
                *s = (*s).min(v);
            }
        }
        AggFn::Max => {
            for (&g, &v) in slots.iter().zip(vals) {
                let s = &mut states[at(g)];
                *s = (*s).max(v);
            }
        }
        AggFn::Count => {}
    }
    over
}

/// The largest group domain folded by [`few_groups`]' masked sums.
const FEW_GROUPS_MAX: usize = 8;

/// Whether a dense group domain of `domain` groups folds by masked sums per group (the
/// bit kernels' `group_sums`, `group_counts`) rather than by a store per row into the
/// rows' slots: at most [`FEW_GROUPS_MAX`] groups, every aggregate a `COUNT(*)` or a sum
/// (`SUM`, `AVG`) of a column without NULLs that [`sums_fit`] after `rows` rows. R11's
/// four sums over 6 groups spent half their time on the stores (a load that may alias
/// the store before it: with a handful of slots, it often does).
fn few_groups(plan: &Plan<'_>, domain: u32, rows: u64) -> bool {
    (2..=FEW_GROUPS_MAX as u32).contains(&domain)
        && plan.aggs.iter().all(|a| {
            !a.nullable
                && match (a.func, a.arg) {
                    (AggFn::Count, None) => true,
                    (AggFn::Sum | AggFn::Avg, Some(arg)) => sums_fit(plan, arg, rows),
                    _ => false,
                }
        })
}

/// Whether no sum of argument `arg`'s values over `rows` rows can leave the 64-bit range:
/// every value lies between its columns' first and last values (dictionaries are sorted,
/// frames ascend), so `rows` times the largest magnitude of `a` (or of `a op b`) bounds
/// every partial sum of a group that starts at 0 and folds at most `rows` rows.
fn sums_fit(plan: &Plan<'_>, arg: (usize, Option<(Op, usize)>), rows: u64) -> bool {
    let mag = |c: usize| {
        let v = plan.cols[c].ints;
        match (v.first(), v.last()) {
            (Some(x), Some(y)) => i128::from(x).abs().max(i128::from(y).abs()),
            _ => 0,
        }
    };
    let (ca, op) = arg;
    let bound = match op {
        None => mag(ca),
        Some((Op::Mul, cb)) => mag(ca) * mag(cb),
        Some((Op::Add | Op::Sub, cb)) => mag(ca) + mag(cb),
    };
    bound
        .checked_mul(i128::from(rows))
        .is_some_and(|b| b <= i128::from(i64::MAX))
}

/// Folds nullable aggregate `ai` of `naggs` (`a`) over the selected rows of `rows`
/// whose argument columns are not NULL: counts them in `took` by slot (`slots`, one per
/// selected row; None: every row in slot 0), then, unless it is a count, decodes their
/// values and folds them into `states`. True when a value left the 64-bit range.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn fold_nullable(
    plan: &Plan<'_>,
    rows: Rows<'_, '_>,
    a: &AggPlan,
    (ai, naggs): (usize, usize),
    slots: Option<&[u32]>,
    ids: &mut ColumnIds,
    tally: &mut Option<Tally>,
    states: &mut [i64],
    took: &mut [u64],
    nb: &mut NullScratch,
) -> bool {
    let Some((ca, op)) = a.arg else {
        return false;
    };
    let k = rows.k;
    nb.a.clear();
    nb.a.extend_from_slice(ids.get(rows, ca, tally));
    nb.b.clear();
    if let Some((_, cb)) = op {
        nb.b.extend_from_slice(ids.get(rows, cb, tally));
    }
    nb.slots.clear();
    match slots {
        Some(s) => nb.slots.extend_from_slice(&s[..k]),
        None => nb.slots.resize(k, 0),
    }
    // Compact to the rows whose ids are no NULL id (branch-free: write, then advance
    // when kept).
    let null_a = plan.cols[ca].null_id.unwrap_or(u32::MAX);
    let null_b = op.and_then(|(_, cb)| plan.cols[cb].null_id);
    let mut kept = 0;
    for j in 0..k {
        let (ia, g) = (nb.a[j], nb.slots[j]);
        nb.a[kept] = ia;
        nb.slots[kept] = g;
        let mut keep = ia != null_a;
        if op.is_some() {
            let ib = nb.b[j];
            nb.b[kept] = ib;
            keep &= Some(ib) != null_b;
        }
        kept += usize::from(keep);
    }
    nb.a.truncate(kept);
    nb.b.truncate(kept.min(nb.b.len()));
    nb.slots.truncate(kept);
    for &g in &nb.slots {
        took[g as usize * naggs + ai] += 1;
    }
    if a.func == AggFn::Count {
        return false;
    }
    if let Some(t) = tally.as_mut() {
        t.decoded(ca, &nb.a);
    }
    nb.vals.resize(kept, 0);
    decode(&mut nb.vals, &nb.a, plan.cols[ca].ints);
    let mut over = false;
    if let Some((op, cb)) = op {
        if let Some(t) = tally.as_mut() {
            t.decoded(cb, &nb.b);
        }
        let (ia, ib) = (plan.cols[ca].ints, plan.cols[cb].ints);
        over |= combine(op, &mut nb.vals, &nb.b, ib, can_overflow(op, ia, ib));
    }
    over | fold(a.func, states, &nb.slots, &nb.vals, (ai, naggs), true)
}

/// Adds the `k` selected rows of morsel `[start, start+n)` (selection and group ids in
/// `s`) to `acc`: every aggregate's values decoded through the column dictionaries (a
/// value shared with the aggregate before is not decoded again).
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
        sel,
        gid,
        ids,
        vals,
        tally,
        masks,
        mask_is_selection,
        sel_unwritten,
        ..
    } = s;
    let rows = Rows {
        cols,
        start,
        n,
        k,
        sel: if *sel_unwritten { &[] } else { &sel[..k] },
        mask: mask_is_selection.then_some(&masks[..n.div_ceil(64)]),
    };
    let naggs = plan.aggs.len();
    let Acc {
        states,
        counts,
        init,
        hash,
        lanes,
        domain,
        lane_rows,
        overflow,
        took,
        nullable,
        nulls,
        folded,
    } = acc;
    *folded += k as u64;
    // One group (no GROUP BY): every aggregate folds into registers, not through memory.
    if single_group(hash, counts) {
        counts[0] += k as u64;
        vals.resize(k, 0);
        let over = accumulate_one(plan, rows, ids, vals, tally, states, (took, nulls));
        if let Some(ai) = over {
            if overflow.is_none_or(|o| o > ai) {
                *overflow = Some(ai);
            }
        }
        return;
    }
    if hash.is_none() && few_groups(plan, *domain, *folded) {
        // A few groups, sums and counts that cannot overflow: each a compare and a masked
        // add per row and group (`group_sums`), into the first lane's states.
        let d = *domain as usize;
        let keys = &gid[..k];
        let kern = bits::active();
        let mut c = [0u64; FEW_GROUPS_MAX];
        kern.group_counts(keys, &mut c[..d]);
        for (n, &add) in counts.iter_mut().zip(&c[..d]) {
            *n += add;
        }
        vals.resize(k, 0);
        let mut have: Option<(usize, Option<(Op, usize)>)> = None;
        for (ai, a) in plan.aggs.iter().enumerate() {
            let Some(arg) = a.arg else { continue };
            if have != Some(arg) {
                if arg_values(plan, rows, arg, ids, vals, tally) && overflow.is_none_or(|o| o > ai)
                {
                    *overflow = Some(ai);
                }
                have = Some(arg);
            }
            let mut sums = [0i64; FEW_GROUPS_MAX];
            kern.group_sums(&vals[..k], keys, &mut sums[..d]);
            for (g, &add) in sums[..d].iter().enumerate() {
                let st = &mut states[g * naggs + ai];
                *st = st.wrapping_add(add);
            }
        }
        return;
    }
    let slots: &[u32] = match hash {
        None if *lanes > 1 => {
            lane_rows.clear();
            lane_rows.extend(gid[..k].iter().enumerate().map(|(j, &g)| {
                let slot = (j as u32 % LANES) * *domain + g;
                counts[slot as usize] += 1;
                slot
            }));
            &lane_rows[..]
        }
        None => {
            for &g in &gid[..k] {
                counts[g as usize] += 1;
            }
            &gid[..k]
        }
        Some(h) => {
            h.rows.clear();
            for &g in &gid[..k] {
                let i = *h.slot.entry(g).or_insert_with(|| {
                    h.keys.push(g);
                    counts.push(0);
                    states.extend_from_slice(init);
                    if *nullable {
                        took.resize(states.len(), 0);
                    }
                    (h.keys.len() - 1) as u32
                });
                counts[i as usize] += 1;
                h.rows.push(i);
            }
            &h.rows
        }
    };
    vals.resize(k, 0);
    let mut have: Option<(usize, Option<(Op, usize)>)> = None;
    for (ai, a) in plan.aggs.iter().enumerate() {
        if a.nullable {
            let over = fold_nullable(
                plan,
                rows,
                a,
                (ai, naggs),
                Some(slots),
                ids,
                tally,
                states,
                took,
                nulls,
            );
            if over && overflow.is_none_or(|o| o > ai) {
                *overflow = Some(ai);
            }
            continue;
        }
        let Some(arg) = a.arg else { continue };
        let mut over = false;
        if have != Some(arg) {
            over |= arg_values(plan, rows, arg, ids, vals, tally);
            have = Some(arg);
        }
        over |= fold(
            a.func,
            states,
            slots,
            vals,
            (ai, naggs),
            !sums_fit(plan, arg, *folded),
        );
        if over && overflow.is_none_or(|o| o > ai) {
            *overflow = Some(ai);
        }
    }
}

/// [`accumulate`] for a single group: each aggregate reduces the selected rows in
/// registers. `MIN`/`MAX` of a column reduce its value ids (the dictionary is sorted, so
/// the smallest id has the smallest value) and decode one. Returns the first aggregate
/// whose value left the 64-bit range.
#[inline]
fn accumulate_one(
    plan: &Plan<'_>,
    rows: Rows<'_, '_>,
    ids: &mut ColumnIds,
    vals: &mut [i64],
    tally: &mut Option<Tally>,
    states: &mut [i64],
    (took, nulls): (&mut [u64], &mut NullScratch),
) -> Option<usize> {
    let k = rows.k;
    let mut over = None;
    let mut have: Option<(usize, Option<(Op, usize)>)> = None;
    let naggs = plan.aggs.len();
    for (ai, a) in plan.aggs.iter().enumerate() {
        if a.nullable {
            let o = fold_nullable(
                plan,
                rows,
                a,
                (ai, naggs),
                None,
                ids,
                tally,
                states,
                took,
                nulls,
            );
            if o {
                over.get_or_insert(ai);
            }
            continue;
        }
        let Some(arg) = a.arg else { continue };
        let st = &mut states[ai];
        if let ((ca, None), AggFn::Min | AggFn::Max) = (arg, a.func) {
            let min = a.func == AggFn::Min;
            let id = if let Some(mask) = packed_read(rows, &[ca], tally) {
                let extremes = bits::active().min_max_packed(packed(rows, ca), rows.n, mask);
                extremes.map(|(lo, hi)| if min { lo } else { hi })
            } else {
                let got = ids.get(rows, ca, tally);
                if min {
                    bits::active().min_id(got)
                } else {
                    bits::active().max_id(got)
                }
            };
            if let Some(t) = tally.as_mut() {
                t.decoded_one(ca, id);
            }
            if let Some(id) = id {
                let v = plan.cols[ca].ints.get(id as usize);
                *st = if a.func == AggFn::Min {
                    (*st).min(v)
                } else {
                    (*st).max(v)
                };
            }
            continue;
        }
        if let ((ca, Some((op, cb))), AggFn::Min | AggFn::Max) = (arg, a.func) {
            if let Some(ext) = pair_extremes(plan, rows, (ca, op, cb), tally) {
                if let Some((lo, hi)) = ext {
                    *st = if a.func == AggFn::Min {
                        (*st).min(lo)
                    } else {
                        (*st).max(hi)
                    };
                }
                continue;
            }
        }
        // (Only a sum is asked for: a MIN or MAX of `a op b` goes on to the values.)
        let sums = matches!(a.func, AggFn::Sum | AggFn::Avg);
        if let Some(s) = sums
            .then(|| frame_sum(plan, rows, arg, ids, tally))
            .flatten()
        {
            match i64::try_from(i128::from(*st) + s) {
                Ok(t) => *st = t,
                Err(_) => {
                    over.get_or_insert(ai);
                }
            }
            continue;
        }
        if have != Some(arg) {
            if arg_values(plan, rows, arg, ids, vals, tally) {
                over.get_or_insert(ai);
            }
            have = Some(arg);
        }
        let v = &vals[..k];
        match a.func {
            AggFn::Sum | AggFn::Avg => match i64::try_from(i128::from(*st) + bits::sum(v)) {
                Ok(t) => *st = t,
                Err(_) => {
                    over.get_or_insert(ai);
                }
            },
            AggFn::Min => *st = bits::active().min(v, *st),
            AggFn::Max => *st = bits::active().max(v, *st),
            AggFn::Count => {}
        }
    }
    over
}

/// The exact sum over the selected rows `sel` of aggregate argument `arg`, from sums of
/// the value ids alone, when its columns are frames of reference (and `a op b` cannot
/// leave 64 bits, so the sum is the one of the rows' values): with `k` rows,
/// `Σ(min + id) = k·min + Σid`, `Σ(a ± b) = k·(a₀ ± b₀) + Σida ± Σidb` and
/// `Σ(a·b) = k·a₀·b₀ + a₀·Σidb + b₀·Σida + Σ ida·idb` — no value is decoded. `None`:
/// another case (a dictionary, a possible overflow), for [`arg_values`].
#[inline]
fn frame_sum(
    plan: &Plan<'_>,
    rows: Rows<'_, '_>,
    arg: (usize, Option<(Op, usize)>),
    ids: &mut ColumnIds,
    tally: &mut Option<Tally>,
) -> Option<i128> {
    let frame = |c: usize| match plan.cols[c].ints {
        IntValues::Frame { min, .. } => Some(i128::from(min)),
        IntValues::Sorted(_) => None,
    };
    let (ca, op) = arg;
    let a0 = frame(ca)?;
    let b = match op {
        None => None,
        Some((op, cb)) => {
            let b0 = frame(cb)?;
            if can_overflow(op, plan.cols[ca].ints, plan.cols[cb].ints) {
                return None;
            }
            Some((op, cb, b0))
        }
    };
    let k = rows.k as i128;
    let fused = b.map(|(op, cb, b0)| (op, cb, (a0 != 0, b0 != 0)));
    let (sa, sb, dot) = match fused_sums(rows, ca, fused, tally) {
        Some(sums) => sums,
        None => id_sums(rows, ca, b.map(|(op, cb, _)| (op, cb)), ids, tally)?,
    };
    match b {
        None => (k * a0).checked_add(sa),
        Some((Op::Add, _, b0)) => (k * (a0 + b0)).checked_add(sa)?.checked_add(sb),
        Some((Op::Sub, _, b0)) => (k * (a0 - b0)).checked_add(sa)?.checked_sub(sb),
        Some((Op::Mul, _, b0)) => k
            .checked_mul(a0 * b0)?
            .checked_add(a0.checked_mul(sb)?)?
            .checked_add(b0.checked_mul(sa)?)?
            .checked_add(dot),
    }
}

/// `(Σida, Σidb, Σida·idb)` over the selected rows from their fetched ids (the dot only
/// for a product); the columns' ids tallied as `arg_values` tallies them (a read of each
/// column's ids and of their values). `None`: the dot does not fit `i128`.
#[inline]
fn id_sums(
    rows: Rows<'_, '_>,
    ca: usize,
    b: Option<(Op, usize)>,
    ids: &mut ColumnIds,
    tally: &mut Option<Tally>,
) -> Option<(i128, i128, i128)> {
    let kern = bits::active();
    let ia = ids.get(rows, ca, tally);
    if let Some(t) = tally.as_mut() {
        t.decoded(ca, ia);
    }
    let sa = i128::from(kern.sum_ids(ia));
    let Some((op, cb)) = b else {
        return Some((sa, 0, 0));
    };
    // `ia` borrows `ids`: fetch the second column, then read both.
    ids.get(rows, cb, tally);
    let (ia, ib) = (ids.fetched(ca, rows.k), ids.fetched(cb, rows.k));
    if let Some(t) = tally.as_mut() {
        t.decoded(cb, ib);
    }
    let sb = i128::from(kern.sum_ids(ib));
    let dot = match op {
        Op::Mul => i128::try_from(kern.dot_ids(ia, ib)).ok()?,
        Op::Add | Op::Sub => 0,
    };
    Some((sa, sb, dot))
}

#[cfg(test)]
mod tests {
    use crate::exec::packed::can_overflow;
    use crate::query::Op;
    use pmolap_store::dictionary::IntValues;

    #[test]
    fn overflow_is_ruled_out_only_when_no_pair_of_values_can_leave_64_bits() {
        let small = IntValues::Frame { min: -50, len: 101 }; // -50..=50
        let price = IntValues::Sorted(&[1, 10_000_000]);
        let big = IntValues::Sorted(&[-(1 << 40), 3]);
        let mid = IntValues::Sorted(&[-(1 << 30), 3]);
        let empty = IntValues::Sorted(&[]);
        assert!(!can_overflow(Op::Mul, price, small));
        assert!(!can_overflow(Op::Mul, mid, price)); // 2^30 * 10^7 < 2^63
        assert!(can_overflow(Op::Mul, big, price)); // 2^40 * 10^7 > 2^63
        assert!(can_overflow(Op::Mul, big, big)); // 2^80
        let edge = IntValues::Frame {
            min: i64::MAX - 1,
            len: 2,
        };
        assert!(!can_overflow(Op::Add, edge, IntValues::Sorted(&[0])));
        assert!(can_overflow(Op::Add, edge, IntValues::Sorted(&[0, 1])));
        assert!(can_overflow(Op::Sub, edge, IntValues::Sorted(&[-1])));
        let min = IntValues::Sorted(&[i64::MIN]);
        assert!(can_overflow(Op::Mul, min, IntValues::Sorted(&[-1])));
        assert!(!can_overflow(Op::Mul, empty, big));
    }
}
