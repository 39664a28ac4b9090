//! The morsel kernels of the probe: a step's test over one morsel's value ids producing
//! and compacting the selection vector and the rows' group ids, reading a column by
//! unpacking the morsel or by random gets (the views and buffers it shares with the group
//! steps and the aggregates: `morsel.rs`).
//!
//! Unpacking and range tests run the SIMD bit kernels of `pmolap_kernels::bits`
//! (AVX-512, AVX2 or portable, chosen at run time): a range test of the first step goes
//! from the packed words straight to the selection vector, and one of a later step over
//! a dense selection to a bitmask of the morsel, without unpacking the ids.

use pmolap_kernels::bits;

use super::aggregate::{accumulate, Acc};
use super::groups::{drop_misses, group_codes};
use super::morsel::{
    fetch_ids, get_streaming, rows_far_apart, ColRef, Rows, Scratch, StepRef, Tally, TestRef,
};
use super::packed::widest_aggregated;
use crate::plan::order::{folds_by_mask, unpacks_morsel, TestKind};
use crate::plan::Plan;

/// A later filter step over the `k` selected rows (`fetch` reads a row's id),
/// compacting the selection.
#[inline(always)]
fn next_step(k: usize, fetch: impl Fn(u32) -> u32, pred: bits::Pred<'_>, sel: &mut [u32]) -> usize {
    let mut m = 0;
    match pred {
        bits::Pred::Range { lo, span } => {
            for j in 0..k {
                let r = sel[j];
                let id = fetch(r);
                sel[m] = r;
                m += usize::from(id.wrapping_sub(lo) <= span);
            }
        }
        bits::Pred::Bitmap(b) => {
            for j in 0..k {
                let r = sel[j];
                let id = fetch(r);
                sel[m] = r;
                m += (b[id as usize >> 6] >> (id & 63) & 1) as usize;
            }
        }
        bits::Pred::Ranges(r) => {
            for j in 0..k {
                let r0 = sel[j];
                let id = fetch(r0);
                sel[m] = r0;
                m += usize::from(bits::in_ranges(r, id));
            }
        }
    }
    m
}

/// Whether a step's test of a column `width` bits wide runs over the whole morsel on the
/// packed words (into a bitmask) rather than over the `k` selected rows of `n` (the rule:
/// [`TestKind::whole_morsel`]).
#[inline(always)]
fn tests_whole_morsel(test: TestRef<'_>, k: usize, n: usize, width: u32) -> bool {
    // The portable kernels build the mask one id at a time: slower than unpacking and
    // testing only the selected rows (measured 1.13x on SF 1), so they take that path.
    if bits::active().isa() == pmolap_tier::kernel::Isa::Portable {
        return false;
    }
    match test {
        TestRef::Range { .. } => TestKind::Range.whole_morsel(k, n, width),
        TestRef::Bits(b) => TestKind::of_bitmap(b.len()).whole_morsel(k, n, width),
        TestRef::Ranges(r) => TestKind::Ranges(r.len() as u32).whole_morsel(k, n, width),
        TestRef::Lookup(_) | TestRef::Code { .. } => false,
    }
}

/// The buffers a filter step works in, borrowed from the worker's [`Scratch`].
pub(super) struct StepBufs<'s> {
    /// Room for the morsel's ids, unpacked.
    pub(super) buf: &'s mut [u32],
    /// The selected rows' ids as words a bit kernel reads at width 32 ([`Scratch::tested`]).
    pub(super) tested: &'s mut [u64],
    /// One bit per row of the morsel: the step's test.
    pub(super) masks: &'s mut [u64],
    /// The selection (offsets in the morsel), compacted in place.
    pub(super) sel: &'s mut [u32],
}

/// Runs one filter step over the `k` selected rows of morsel `[start, start+n)`, reading
/// the column by unpacking the morsel when many rows are left and by random gets when few
/// are; returns the rows left.
#[inline(always)]
fn step(
    c: ColRef<'_>,
    test: TestRef<'_>,
    pred: bits::Pred<'_>,
    (start, n, k): (usize, usize, usize),
    s: StepBufs<'_>,
) -> usize {
    let local = start - c.base;
    if tests_whole_morsel(test, k, n, c.width) {
        let StepBufs { masks, sel, .. } = s;
        // Dense: test the whole morsel on the packed words, then keep the selected
        // rows whose bit is set.
        bits::test_mask(c.words, c.width, local, n, pred, masks);
        let mut m = 0;
        for j in 0..k {
            let r = sel[j];
            sel[m] = r;
            m += ((masks[r as usize >> 6] >> (r & 63)) & 1) as usize;
        }
        return m;
    }
    match pred {
        _ if unpacks_morsel(k, n) => {
            let StepBufs { buf, sel, .. } = s;
            bits::unpack(c.words, c.width, local, &mut buf[..n]);
            let b = &buf[..n];
            next_step(k, |r| b[r as usize], pred, sel)
        }
        bits::Pred::Bitmap(b) if TestKind::of_bitmap(b.len()) == TestKind::LargeBitmap => {
            test_selected(c, (start, n, k), pred, s)
        }
        // A range test per run over the gathered ids: no branch per row (SF 10 R43, a
        // customer join of two runs at one row in ten: 0.78x by the scalar test).
        bits::Pred::Ranges(_) => test_selected(c, (start, n, k), pred, s),
        _ if rows_far_apart(k, n, c.width) => test_selected(c, (start, n, k), pred, s),
        _ => next_step(k, |r| get_streaming(c, local + r as usize), pred, s.sel),
    }
}

/// A filter over the `k` selected rows of a morsel, few of its rows: their ids are
/// fetched into `tested` (by gets, as [`fetch_ids`] reads an aggregate's column,
/// prefetching when the rows lie far apart) and tested there by the SIMD kernel at width
/// 32 — for a bitmap a gather per 16 selected ids instead of a scalar test each — into
/// `masks`, which then compacts the selection. Taken by a bitmap out of L1, and by any
/// test whose rows lie more than a cache line apart: fused with the test, the gets had
/// no prefetch (SSB Q3.4, whose supplier join reads one row in a hundred: 1.2x).
#[inline(always)]
fn test_selected(
    c: ColRef<'_>,
    (start, n, k): (usize, usize, usize),
    pred: bits::Pred<'_>,
    s: StepBufs<'_>,
) -> usize {
    let StepBufs {
        buf,
        tested,
        masks,
        sel,
    } = s;
    let rows = Rows {
        cols: std::slice::from_ref(&c),
        start,
        n,
        k,
        sel: &sel[..k],
        mask: None,
    };
    fetch_ids(
        rows,
        0,
        unpacks_morsel(k, n),
        buf,
        bytemuck::cast_slice_mut(&mut *tested),
    );
    bits::test_mask(tested, 32, 0, k, pred, masks);
    let mut m = 0;
    for j in 0..k {
        let r = sel[j];
        sel[m] = r;
        m += ((masks[j >> 6] >> (j & 63)) & 1) as usize;
    }
    m
}

/// Runs `steps` over morsel `[start, start+n)` and adds the surviving rows to `acc`;
/// returns their count.
pub(super) fn run_morsel(
    plan: &Plan<'_>,
    cols: &[ColRef<'_>],
    steps: &[StepRef<'_>],
    start: usize,
    n: usize,
    s: &mut Scratch,
    acc: &mut Acc,
) -> u64 {
    // Ids fetched for this morsel are shared by the group steps and the aggregates.
    s.ids.reset(cols.len());
    let (k, has_gid) = select(cols, steps, start, n, widest_aggregated(plan, cols), s);
    if k == 0 {
        return 0;
    }
    // Without a group step every row is in group 0; a query without GROUP BY reads no
    // group id at all (zeroing them cost 8–11 % of a fact-only scan's samples).
    if !has_gid && !acc.single_group() {
        s.gid[..k].fill(0);
    }
    accumulate(plan, cols, start, n, k, s, acc);
    k as u64
}

/// The leading steps that test the whole morsel, run into `masks` (the selection as a
/// bitmask, each step's mask ANDed in through `step_masks`): how many ran and the rows
/// left. (Out of line: inlined into the morsel loop, it made R48 — a group-by lookup
/// and a sum, which never take this path — 4 % slower at SF 10, two threads; out of
/// line, 1–2 %.)
#[inline(never)]
fn leading_masks(
    cols: &[ColRef<'_>],
    steps: &[StepRef<'_>],
    start: usize,
    n: usize,
    masks: &mut [u64],
    step_masks: &mut [u64],
    tally: &mut Option<Tally>,
) -> (usize, usize) {
    let words = n.div_ceil(64);
    let (mut done, mut k) = (0, n);
    for st in steps {
        let Some(pred) = st.test.pred() else { break };
        let c = cols[st.col];
        if !tests_whole_morsel(st.test, k, n, c.width) {
            break;
        }
        if let Some(t) = tally.as_mut() {
            t.scanned(st.col, start, n);
        }
        let out = if done == 0 {
            &mut *masks
        } else {
            &mut *step_masks
        };
        bits::test_mask(c.words, c.width, start - c.base, n, pred, out);
        if done > 0 {
            for (m, &t) in masks[..words].iter_mut().zip(&step_masks[..words]) {
                *m &= t;
            }
        }
        k = bits::active().count_ones(&masks[..words]);
        done += 1;
        if k == 0 {
            break;
        }
    }
    (done, k)
}

/// Runs every step over the morsel: the selection vector (and group ids, when a group
/// step ran) in `s`; returns the rows left and whether group ids were written.
///
/// The filter steps run first. The leading ones that test the whole morsel on the packed
/// words keep the selection as a bitmask of the morsel, each step's mask ANDed in (a
/// word per 64 rows), instead of compacting a selection vector row by row; the vector is
/// written once, before the first step that reads only the selected rows (a test over
/// few rows). The group steps (the planner orders them last) then write the selected
/// rows' group ids without compacting, reading their columns' ids like the aggregates do
/// (through `s.ids`, so a column both grouped by and aggregated is fetched once).
#[inline]
fn select(
    cols: &[ColRef<'_>],
    steps: &[StepRef<'_>],
    start: usize,
    n: usize,
    agg_width: u32,
    s: &mut Scratch,
) -> (usize, bool) {
    let Scratch {
        buf,
        masks,
        mask_is_selection,
        sel_unwritten,
        step_masks,
        sel,
        tested,
        gid,
        ids,
        tally,
        ..
    } = s;
    let filters = steps
        .iter()
        .position(|st| st.test.pred().is_none())
        .unwrap_or(steps.len());
    let (filter_steps, group_steps) = steps.split_at(filters);
    debug_assert!(
        group_steps.iter().all(|st| st.test.pred().is_none()),
        "the planner orders the group steps after every filter"
    );
    let words = n.div_ceil(64);
    let (mut done, k) = leading_masks(cols, filter_steps, start, n, masks, step_masks, tally);
    if done > 0 && k == 0 {
        return (0, false);
    }
    *mask_is_selection = done > 0 && done == filter_steps.len();
    *sel_unwritten = *mask_is_selection
        && group_steps.is_empty()
        && tally.is_none()
        && (k == n || folds_by_mask(k, n, agg_width));
    if *sel_unwritten {
        // Writing the offsets (`mask_select`) cost 5-6 % of such queries' samples.
        return (k, false);
    }
    // `done`: the filter steps run so far.
    let mut k = if done > 0 {
        bits::active().mask_select_of(&masks[..words], n, k, &mut sel[..n])
    } else if let Some((st, pred)) = filter_steps
        .first()
        .and_then(|st| Some((st, st.test.pred()?)))
    {
        done = 1;
        let c = cols[st.col];
        if let Some(t) = tally.as_mut() {
            t.scanned(st.col, start, n);
        }
        bits::select(c.words, c.width, start - c.base, pred, &mut sel[..n])
    } else {
        for (i, x) in sel[..n].iter_mut().enumerate() {
            *x = i as u32;
        }
        n
    };
    for st in filter_steps.iter().skip(done) {
        if k == 0 {
            return (0, false);
        }
        let Some(pred) = st.test.pred() else {
            unreachable!("filter steps have predicates")
        };
        if let Some(t) = tally.as_mut() {
            t.selected(st.col, &sel[..k], start, n, unpacks_morsel(k, n));
        }
        let bufs = StepBufs {
            buf: &mut buf[..],
            tested: &mut tested[..],
            masks: &mut masks[..],
            sel: &mut sel[..],
        };
        k = step(cols[st.col], st.test, pred, (start, n, k), bufs);
    }
    if k == 0 {
        return (0, false);
    }
    for (i, st) in group_steps.iter().enumerate() {
        let rows = Rows {
            cols,
            start,
            n,
            k,
            sel: &sel[..k],
            mask: mask_is_selection.then_some(&masks[..words]),
        };
        let got = ids.get(rows, st.col, tally);
        if group_codes(i == 0, got, st.test, st.stride, gid) {
            k = drop_misses(ids.fetched(st.col, k), st.test, sel, gid);
            // The selection changed: ids fetched for the old one are stale.
            *mask_is_selection = false;
            ids.reset(cols.len());
            if k == 0 {
                return (0, false);
            }
        }
    }
    (k, !group_steps.is_empty())
}

#[cfg(test)]
mod tests {
    use super::{step, StepBufs};
    use crate::exec::morsel::{ColRef, Scratch, TestRef, TESTED_SLACK};
    use crate::plan::order::LARGE_BITMAP_WORDS;
    use pmolap_kernels::{bitpack, bits};

    /// Every path of a filter step — the whole morsel, an unpacked morsel, gets, and the
    /// kernel over the gets' ids (a bitmap of `LARGE_BITMAP_WORDS` words and more; rows
    /// far apart) — keeps exactly the selected rows whose id passes, for a bitmap, a
    /// range and a few ranges, on every ISA this CPU has.
    #[test]
    fn filter_steps_keep_the_rows_that_pass_on_every_path() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let (rows, width) = (3 * 4096 + 77, 18);
        let (start, n) = (4096, 4096 + 77);
        for isa in pmolap_tier::kernel::Isa::ALL {
            if bits::set_isa(isa).is_err() {
                continue;
            }
            for words_in_bitmap in [40, LARGE_BITMAP_WORDS - 1, LARGE_BITMAP_WORDS + 5] {
                let bitmap: Vec<u64> = (0..words_in_bitmap).map(|_| next() & next()).collect();
                let pred = bits::Pred::Bitmap(&bitmap);
                // Ids over the whole bitmap (a join's ids never lie past its bitmap).
                let bits_in = words_in_bitmap as u64 * 64;
                let ids: Vec<u32> = (0..rows).map(|_| (next() % bits_in) as u32).collect();
                let mut words = vec![0u64; bitpack::words_for(rows, width)];
                bitpack::pack(&ids, width, &mut words);
                let c = ColRef {
                    words: &words,
                    width,
                    base: 0,
                };
                let (lo, span) = (bits_in as u32 / 4, bits_in as u32 / 3);
                let b = bits_in as u32;
                let runs = [(b / 9, b / 20), (b / 2, b / 11), (b - b / 7, b / 7)];
                let tests = [
                    (TestRef::Bits(&bitmap), pred, "bitmap"),
                    (
                        TestRef::Range { lo, span },
                        bits::Pred::Range { lo, span },
                        "range",
                    ),
                    (TestRef::Ranges(&runs), bits::Pred::Ranges(&runs), "ranges"),
                ];
                for (test, pred, what) in tests {
                    let passes = |id: u32| match test {
                        TestRef::Range { .. } => id.wrapping_sub(lo) <= span,
                        TestRef::Ranges(r) => r.iter().any(|&(l, s)| id.wrapping_sub(l) <= s),
                        _ => bitmap[id as usize >> 6] >> (id & 63) & 1 == 1,
                    };
                    for every in [1, 3, 9, 40] {
                        let sel0: Vec<u32> = (0..n as u32).filter(|r| r % every == 0).collect();
                        let want: Vec<u32> = sel0
                            .iter()
                            .copied()
                            .filter(|&r| passes(ids[start + r as usize]))
                            .collect();
                        let mut s = Scratch::new(n);
                        assert!(s.tested.len() >= n.div_ceil(2) + TESTED_SLACK);
                        s.sel[..sel0.len()].copy_from_slice(&sel0);
                        let bufs = StepBufs {
                            buf: &mut s.buf,
                            tested: &mut s.tested,
                            masks: &mut s.masks,
                            sel: &mut s.sel,
                        };
                        let k = step(c, test, pred, (start, n, sel0.len()), bufs);
                        assert_eq!(
                            &s.sel[..k],
                            &want[..],
                            "{isa:?}: {what} over {words_in_bitmap} words, every {every}th row"
                        );
                    }
                }
            }
        }
        let host = pmolap_tier::CpuFeatures::detect();
        bits::set_isa(pmolap_tier::kernel::Isa::best(&host)).unwrap();
    }
}
