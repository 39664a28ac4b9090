//! The aggregates without GROUP BY that read the packed words straight (no ids stored):
//! frame sums, `MIN`/`MAX` of a column and of `a op b`, where every row of a morsel is
//! selected or the selection is a dense bitmask (docs/engine.md, "Sums straight from
//! the packed words").

use pmolap_kernels::bits::{self, Packed, Pair};
use pmolap_store::dictionary::IntValues;

use super::morsel::{ColRef, Rows, Tally};
use crate::plan::order::folds_by_mask;
use crate::plan::Plan;
use crate::query::Op;

/// Whether `a op b` can leave the 64-bit range for some values of the two columns: their
/// values lie between their first and last value ids' (dictionaries are sorted, frames
/// ascend), so the largest magnitudes bound every result.
pub(super) fn can_overflow(op: Op, a: IntValues<'_>, b: IntValues<'_>) -> bool {
    let mag = |v: IntValues<'_>| match (v.first(), v.last()) {
        (Some(x), Some(y)) => i128::from(x).abs().max(i128::from(y).abs()),
        _ => 0,
    };
    let (a, b) = (mag(a), mag(b));
    let worst = match op {
        Op::Mul => a * b,
        Op::Add | Op::Sub => a + b,
    };
    worst > i128::from(i64::MAX)
}

/// Whether the selected rows' aggregates over the columns `cs` are computed straight
/// from the packed words (`BitKernels::sum_packed`, `dot_packed`, `min_max_packed`:
/// unpacked in registers, no ids stored): when every row of the morsel is selected
/// (`Some(None)`) or the selection is a bitmask dense enough to read the columns by
/// (`Some(mask)`: [`folds_by_mask`] at the widest of them); not otherwise, nor while the
/// store counts accesses (the tally classes the ids' reads, which this path has none of).
#[inline]
pub(super) fn packed_read<'a>(
    rows: Rows<'a, '_>,
    cs: &[usize],
    tally: &Option<Tally>,
) -> Option<Option<&'a [u64]>> {
    let (k, n) = (rows.k, rows.n);
    if tally.is_some() {
        return None;
    }
    match rows.mask {
        _ if k == n => Some(None),
        Some(m) if folds_by_mask(k, n, widest(rows.cols, cs)) => Some(Some(m)),
        _ => None,
    }
}

/// The widest of the columns `cs` (0 for none).
#[inline]
pub(super) fn widest(cols: &[ColRef<'_>], cs: &[usize]) -> u32 {
    cs.iter().map(|&c| cols[c].width).max().unwrap_or(0)
}

/// The widest column an aggregate of `plan` reads (0 for none, as `COUNT(*)`): where every
/// filter tested whole morsels, the selection stays a bitmask only if these columns can
/// all be read by it (`probe::select`).
#[inline]
pub(super) fn widest_aggregated(plan: &Plan<'_>, cols: &[ColRef<'_>]) -> u32 {
    plan.aggs
        .iter()
        .filter_map(|a| a.arg)
        .map(|(ca, b)| {
            let w = cols[ca].width;
            b.map_or(w, |(_, cb)| w.max(cols[cb].width))
        })
        .max()
        .unwrap_or(0)
}

/// Column `c`'s packed ids from the morsel's first row.
#[inline]
pub(super) fn packed<'a>(rows: Rows<'_, 'a>, c: usize) -> Packed<'a> {
    let col = rows.cols[c];
    Packed {
        words: col.words,
        width: col.width,
        start: rows.start - col.base,
    }
}

/// The smallest and the largest `a op b` over the selected rows (None inside: no row),
/// from the packed ids (`BitKernels::min_max_pair_packed`, 32-bit lanes): with frames,
/// `(a₀ + ida) ± (b₀ + idb) = (a₀ ± b₀) + (ida ± idb)` (widths of at most 31 bits, and
/// `a op b` cannot leave 64 bits), and `(a₀ + ida) · (b₀ + idb)` itself where no value
/// is negative and every product is below 2^32. `None`: not this path ([`packed_read`]
/// does not allow it, a column is no frame, or outside those bounds).
#[inline]
pub(super) fn pair_extremes(
    plan: &Plan<'_>,
    rows: Rows<'_, '_>,
    (ca, op, cb): (usize, Op, usize),
    tally: &Option<Tally>,
) -> Option<Option<(i64, i64)>> {
    let mask = packed_read(rows, &[ca, cb], tally)?;
    let (va, vb) = (plan.cols[ca].ints, plan.cols[cb].ints);
    let (IntValues::Frame { min: a0, .. }, IntValues::Frame { min: b0, .. }) = (va, vb) else {
        return None;
    };
    let (pa, pb) = (packed(rows, ca), packed(rows, cb));
    let (pair, base) = match op {
        Op::Add | Op::Sub if pa.width > 31 || pb.width > 31 || can_overflow(op, va, vb) => {
            return None
        }
        Op::Add => (Pair::Sum, i128::from(a0) + i128::from(b0)),
        Op::Sub => (Pair::Difference, i128::from(a0) - i128::from(b0)),
        Op::Mul => {
            let top = i128::from(va.last()?) * i128::from(vb.last()?);
            if a0 < 0 || b0 < 0 || top >= 1 << 32 {
                return None;
            }
            // `a0`, `b0` <= the last values, whose product is below 2^32.
            let (a0, b0) = (u32::try_from(a0).ok()?, u32::try_from(b0).ok()?);
            (Pair::Product { a0, b0 }, 0)
        }
    };
    let Some((lo, hi)) = bits::active().min_max_pair_packed(pa, pb, rows.n, mask, pair) else {
        return Some(None);
    };
    let value = |d: i64| i64::try_from(base + i128::from(d)).ok();
    Some(Some((value(lo)?, value(hi)?)))
}

/// `(Σida, Σidb, Σida·idb)` over the selected rows from the packed words, where
/// [`packed_read`] allows. For a product, `(a₀ ≠ 0, b₀ ≠ 0)` say which of `Σidb` and
/// `Σida` its formula multiplies by a non-zero base; a sum multiplied by zero is not
/// read (0 in its place): `b₀ = 0` for `lo_discount`, which spares a pass over
/// `lo_extendedprice` in `Σ lo_extendedprice·lo_discount`.
#[inline]
pub(super) fn fused_sums(
    rows: Rows<'_, '_>,
    ca: usize,
    b: Option<(Op, usize, (bool, bool))>,
    tally: &Option<Tally>,
) -> Option<(i128, i128, i128)> {
    let read = match b {
        Some((_, cb, _)) => [ca, cb],
        None => [ca, ca],
    };
    let mask = packed_read(rows, &read, tally)?;
    let (kern, n) = (bits::active(), rows.n);
    let packed = |c: usize| packed(rows, c);
    let sum = |c: usize| i128::from(kern.sum_packed(packed(c), n, mask));
    let Some((op, cb, (a0, b0))) = b else {
        return Some((sum(ca), 0, 0));
    };
    match op {
        Op::Add | Op::Sub => Some((sum(ca), sum(cb), 0)),
        Op::Mul => {
            let dot = i128::try_from(kern.dot_packed(packed(ca), packed(cb), n, mask)).ok()?;
            let sa = if b0 { sum(ca) } else { 0 };
            let sb = if a0 { sum(cb) } else { 0 };
            Some((sa, sb, dot))
        }
    }
}
