//! The values of an aggregate's argument for a morsel's selected rows: value ids decoded
//! through the column's dictionary or frame of reference (with software prefetch for a
//! dictionary beyond the L2 cache), and `a op b` combined with the second column's,
//! checked for the 64-bit range only where an overflow is possible.

use pmolap_kernels::bits::{self, Arith};
use pmolap_kernels::prefetch::prefetch_read;
use pmolap_store::dictionary::IntValues;

use super::morsel::{ColumnIds, Rows, Tally};
use super::packed::can_overflow;
use crate::plan::Plan;
use crate::query::Op;

/// Dictionaries of more entries than this (2 MiB) are decoded with software prefetch.
const PREFETCH_DICT_MIN: usize = 1 << 18;
/// How many rows ahead the decode prefetches.
const PREFETCH_AHEAD: usize = 32;

/// `f(j, value of ids[j])` for every row. A frame of reference decodes by an addition; a
/// dictionary is a gather, and one beyond the L2 cache (a measure of many distinct
/// values) misses on almost every row, so the loop asks for the entry [`PREFETCH_AHEAD`]
/// rows ahead to keep more misses in flight.
#[inline(always)]
fn gather(ids: &[u32], values: IntValues<'_>, mut f: impl FnMut(usize, i64)) {
    let dict = match values {
        IntValues::Sorted(d) => d,
        IntValues::Frame { min, .. } => {
            // Ids come from the column's data vector, all below the frame's length (checked
            // when the table was opened with verification; a damaged id decodes to a
            // wrong value, never outside memory).
            for (j, &id) in ids.iter().enumerate() {
                f(j, min.wrapping_add(i64::from(id)));
            }
            return;
        }
    };
    if dict.len() < PREFETCH_DICT_MIN {
        for (j, &id) in ids.iter().enumerate() {
            f(j, dict[id as usize]);
        }
        return;
    }
    for (j, &id) in ids.iter().enumerate() {
        if let Some(&ahead) = ids.get(j + PREFETCH_AHEAD) {
            if let Some(e) = dict.get(ahead as usize) {
                prefetch_read(e);
            }
        }
        f(j, dict[id as usize]);
    }
}

/// `vals[j] = value of ids[j]`. A frame is the SIMD kernel's addition; a small dictionary
/// a plain loop: through [`gather`]'s closure the compiler reloads the target slice from
/// the stack on every row (measured, SF 1, one thread: `sum(lo_revenue) where lo_tax < 8`
/// 10.0 ms through the closure, 8.6 ms with the loop below); a large dictionary goes
/// through [`gather`]'s prefetch.
#[inline]
pub(super) fn decode(vals: &mut [i64], ids: &[u32], values: IntValues<'_>) {
    match values {
        IntValues::Frame { min, .. } => bits::frame_decode(vals, ids, min),
        IntValues::Sorted(d) if d.len() < PREFETCH_DICT_MIN => {
            for (v, &id) in vals.iter_mut().zip(ids) {
                *v = d[id as usize];
            }
        }
        _ => gather(ids, values, |j, v| vals[j] = v),
    }
}

/// `vals[j] op= db[ids[j]]`; true when a value left the 64-bit range. `checked`: test each
/// result (scalar); otherwise [`can_overflow`] said no result can, and the loop has no
/// per-row test (against a frame, the SIMD kernel).
#[inline(always)]
pub(super) fn combine(
    op: Op,
    vals: &mut [i64],
    ids: &[u32],
    db: IntValues<'_>,
    checked: bool,
) -> bool {
    #[inline(always)]
    fn each(
        vals: &mut [i64],
        ids: &[u32],
        db: IntValues<'_>,
        f: impl Fn(i64, i64) -> (i64, bool),
    ) -> bool {
        let mut over = false;
        let ids = &ids[..vals.len().min(ids.len())];
        // Frames and small dictionaries as plain loops, as in `decode`.
        let mut step = |v: &mut i64, x: i64| {
            let (r, o) = f(*v, x);
            *v = r;
            over |= o;
        };
        match db {
            IntValues::Frame { min, .. } => {
                for (v, &id) in vals.iter_mut().zip(ids) {
                    step(v, min.wrapping_add(i64::from(id)));
                }
            }
            IntValues::Sorted(d) if d.len() < PREFETCH_DICT_MIN => {
                for (v, &id) in vals.iter_mut().zip(ids) {
                    step(v, d[id as usize]);
                }
            }
            _ => gather(ids, db, |j, x| step(&mut vals[j], x)),
        }
        over
    }
    if let (false, IntValues::Frame { min, .. }) = (checked, db) {
        let arith = match op {
            Op::Add => Arith::Add,
            Op::Sub => Arith::Sub,
            Op::Mul => Arith::Mul,
        };
        bits::frame_combine(arith, vals, ids, min);
        return false;
    }
    match (op, checked) {
        (Op::Mul, true) => each(vals, ids, db, i64::overflowing_mul),
        (Op::Sub, true) => each(vals, ids, db, i64::overflowing_sub),
        (Op::Add, true) => each(vals, ids, db, i64::overflowing_add),
        (Op::Mul, false) => each(vals, ids, db, |a, b| (a.wrapping_mul(b), false)),
        (Op::Sub, false) => each(vals, ids, db, |a, b| (a.wrapping_sub(b), false)),
        (Op::Add, false) => each(vals, ids, db, |a, b| (a.wrapping_add(b), false)),
    }
}

/// The values of aggregate argument `arg` (`a` or `a op b`) for the selected rows `sel`
/// of morsel `[start, start+n)` into `vals` (`ids` is scratch): the column's ids decoded
/// through its dictionary, combined with the second column's. True when a value of
/// `a op b` left the 64-bit range.
#[inline(always)]
pub(super) fn arg_values(
    plan: &Plan<'_>,
    rows: Rows<'_, '_>,
    arg: (usize, Option<(Op, usize)>),
    ids: &mut ColumnIds,
    vals: &mut [i64],
    tally: &mut Option<Tally>,
) -> bool {
    let (ca, op) = arg;
    let a = ids.get(rows, ca, tally);
    if let Some(t) = tally.as_mut() {
        t.decoded(ca, a);
    }
    decode(vals, a, plan.cols[ca].ints);
    let Some((op, b)) = op else { return false };
    let bi = ids.get(rows, b, tally);
    if let Some(t) = tally.as_mut() {
        t.decoded(b, bi);
    }
    let (ia, ib) = (plan.cols[ca].ints, plan.cols[b].ints);
    combine(op, vals, bi, ib, can_overflow(op, ia, ib))
}
