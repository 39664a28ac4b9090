//! The morsel kernels of the probe: a step's test over one morsel's value ids producing
//! and compacting the selection vector and the rows' group ids, reading a column by
//! unpacking the morsel or by random gets.
//!
//! Unpacking and range tests run the SIMD bit kernels of `pmolap_kernels::bits`
//! (AVX-512, AVX2 or portable, chosen at run time): a range test of the first step goes
//! from the packed words straight to the selection vector, and one of a later step over
//! a dense selection to a bitmask of the morsel, without unpacking the ids.

use pmolap_kernels::prefetch::{prefetch_ahead, prefetch_read};
use pmolap_kernels::{bitpack, bits};
use pmolap_store::AccessCounts;

use super::aggregate::{accumulate, Acc};
use super::groups::{drop_misses, group_codes, LutRef};
use super::packed::widest_aggregated;
use crate::plan::order::{folds_by_mask, reads_by_mask, reads_morsel, unpacks_morsel, TestKind};
use crate::plan::Plan;

/// A step's test, borrowed from the plan or from a node-local copy.
#[derive(Clone, Copy)]
pub(super) enum TestRef<'a> {
    Range { lo: u32, span: u32 },
    Bits(&'a [u64]),
    Ranges(&'a [(u32, u32)]),
    Lookup(LutRef<'a>),
    Code { len: u32 },
}

impl<'a> TestRef<'a> {
    /// The test as a bit-kernel predicate (a lookup is not one).
    #[inline(always)]
    fn pred(self) -> Option<bits::Pred<'a>> {
        match self {
            TestRef::Range { lo, span } => Some(bits::Pred::Range { lo, span }),
            TestRef::Bits(b) => Some(bits::Pred::Bitmap(b)),
            TestRef::Ranges(r) => Some(bits::Pred::Ranges(r)),
            TestRef::Lookup(_) | TestRef::Code { .. } => None,
        }
    }
}

#[derive(Clone, Copy)]
pub(super) struct StepRef<'a> {
    pub(super) col: usize,
    pub(super) test: TestRef<'a>,
    pub(super) stride: u32,
}

/// A column as one thread group sees it.
#[derive(Clone, Copy)]
pub(super) struct ColRef<'a> {
    pub(super) words: &'a [u64],
    pub(super) width: u32,
    /// Row of `words`' first id.
    pub(super) base: usize,
}

/// One worker's accesses to the fact columns' data vectors and dictionaries (indexed as
/// [`Plan::cols`]), kept in plain integers while it runs and added to the store's
/// counters when it ends; only when the store counts (the placement workload).
#[derive(Debug, Default)]
pub(super) struct Tally {
    pub(super) dv: Vec<AccessCounts>,
    pub(super) dict: Vec<AccessCounts>,
}

impl Tally {
    pub(super) fn new(cols: usize) -> Tally {
        Tally {
            dv: vec![AccessCounts::default(); cols],
            dict: vec![AccessCounts::default(); cols],
        }
    }

    /// A read of the selected rows (`sel`, ascending offsets) of an `n`-row morsel of
    /// column `col`, as [`fetch_ids`] and the later steps do it: an unpack of the morsel
    /// (a scan) when `unpacked`, else gets classed by stride.
    #[inline]
    pub(super) fn selected(&mut self, col: usize, sel: &[u32], n: usize, unpacked: bool) {
        self.dv[col] += if unpacked {
            AccessCounts::scans(n as u64)
        } else {
            AccessCounts::of_batch(sel)
        };
    }

    /// Adds the tally to the store's counters.
    pub(super) fn flush(&self, plan: &Plan<'_>) {
        for (i, c) in plan.cols.iter().enumerate() {
            c.store.dv.record(&self.dv[i]);
            c.store.dict.record(&self.dict[i]);
        }
    }
}

/// The selected rows `sel` (offsets) of one morsel `[start, start+n)` of the fact
/// columns `cols`: what the aggregates read their columns' ids for.
#[derive(Clone, Copy)]
pub(super) struct Rows<'a, 'c> {
    pub(super) cols: &'a [ColRef<'c>],
    pub(super) start: usize,
    pub(super) n: usize,
    /// How many rows are selected.
    pub(super) k: usize,
    /// The selected rows' offsets; empty when the selection is only `mask` (dense enough
    /// that every read of the rows goes by the mask: see [`Scratch::sel_unwritten`]).
    pub(super) sel: &'a [u32],
    /// The selection as a bitmask of the morsel, when one is at hand.
    pub(super) mask: Option<&'a [u64]>,
}

/// The selected rows' ids of the fact columns the aggregates read, each column fetched
/// at most once per morsel: a column under two aggregates, or in two `a op b` arguments
/// (`lo_revenue - lo_supplycost`, `lo_supplycost + lo_tax`), is unpacked once.
#[derive(Default)]
pub(super) struct ColumnIds {
    ids: Vec<Vec<u32>>,
    fresh: Vec<bool>,
    /// The morsel unpacked, to gather the selected rows' ids from.
    buf: Vec<u32>,
}

impl ColumnIds {
    /// Forgets the previous morsel's ids, for a plan of `cols` columns.
    pub(super) fn reset(&mut self, cols: usize) {
        if self.ids.len() < cols {
            self.ids.resize_with(cols, Vec::new);
        }
        self.fresh.clear();
        self.fresh.resize(cols, false);
    }

    /// The ids of `rows` of column `col`, fetched on first use (and tallied then).
    #[inline(always)]
    pub(super) fn get(
        &mut self,
        rows: Rows<'_, '_>,
        col: usize,
        tally: &mut Option<Tally>,
    ) -> &[u32] {
        let (k, n) = (rows.k, rows.n);
        let ids = &mut self.ids[col];
        if !self.fresh[col] {
            // Room for the whole morsel: `unpack_selected` writes up to `n` ids.
            ids.resize(n, 0);
            if self.buf.len() < n {
                self.buf.resize(n, 0);
            }
            let unpack = if rows.mask.is_some() {
                // No selection vector (`Scratch::sel_unwritten`): by the mask at any density.
                rows.sel.is_empty() || reads_by_mask(k, n)
            } else {
                reads_morsel(k, n)
            };
            fetch_ids(rows, col, unpack, &mut self.buf, ids);
            if let Some(t) = tally.as_mut() {
                t.selected(col, rows.sel, n, unpack);
            }
            self.fresh[col] = true;
        }
        &ids[..k]
    }

    /// The `k` ids of column `col` fetched by [`Self::get`] for this morsel.
    #[inline(always)]
    pub(super) fn fetched(&self, col: usize, k: usize) -> &[u32] {
        debug_assert!(self.fresh[col], "column {col} not fetched for this morsel");
        &self.ids[col][..k]
    }
}

/// Per-thread buffers of one morsel.
pub(super) struct Scratch {
    pub(super) buf: Vec<u32>,
    /// One bit per row of the morsel: the selection while it is kept as a bitmask, or a
    /// later step's test.
    pub(super) masks: Vec<u64>,
    /// Whether `masks` holds the morsel's final selection (every step ran on whole
    /// morsels), which the aggregates may read instead of `sel`.
    pub(super) mask_is_selection: bool,
    /// Whether `sel` was left unwritten this morsel: the selection is `masks` alone, every
    /// step tested whole morsels, there is no group step and no access tally, and the
    /// rows are dense enough for the widest column the aggregates read (all, or
    /// `folds_by_mask`) that they read their columns by the mask (`unpack_selected`, the
    /// sums and extremes from the packed words) and never by row offsets.
    pub(super) sel_unwritten: bool,
    /// One bit per row of the morsel: a step's test, to AND into `masks`.
    pub(super) step_masks: Vec<u64>,
    pub(super) sel: Vec<u32>,
    /// The selected rows' ids of a filter step's column, as words a bit kernel reads at
    /// width 32 (two ids a word, slack after them).
    pub(super) tested: Vec<u64>,
    pub(super) gid: Vec<u32>,
    pub(super) ids: ColumnIds,
    pub(super) vals: Vec<i64>,
    /// The worker's access tally, when the store counts.
    pub(super) tally: Option<Tally>,
}

impl Scratch {
    pub(super) fn new(morsel: usize) -> Scratch {
        Scratch {
            buf: vec![0; morsel],
            masks: vec![0; morsel.div_ceil(64)],
            mask_is_selection: false,
            sel_unwritten: false,
            step_masks: vec![0; morsel.div_ceil(64)],
            sel: vec![0; morsel],
            tested: vec![0; morsel.div_ceil(2) + TESTED_SLACK],
            gid: vec![0; morsel],
            ids: ColumnIds::default(),
            vals: Vec::with_capacity(morsel),
            tally: None,
        }
    }
}

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

/// Runs one filter step over the selection, reading the column by unpacking the morsel
/// when many rows are left and by random gets when few are.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn step(
    c: ColRef<'_>,
    test: TestRef<'_>,
    pred: bits::Pred<'_>,
    start: usize,
    n: usize,
    k: usize,
    buf: &mut [u32],
    tested: &mut [u64],
    masks: &mut [u64],
    sel: &mut [u32],
) -> usize {
    let local = start - c.base;
    if tests_whole_morsel(test, k, n, c.width) {
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
            bits::unpack(c.words, c.width, local, &mut buf[..n]);
            let b = &buf[..n];
            next_step(k, |r| b[r as usize], pred, sel)
        }
        bits::Pred::Bitmap(b) if TestKind::of_bitmap(b.len()) == TestKind::LargeBitmap => {
            test_selected(c, start, n, k, pred, buf, tested, masks, sel)
        }
        // A range test per run over the gathered ids: no branch per row (SF 10 R43, a
        // customer join of two runs at one row in ten: 0.78x by the scalar test).
        bits::Pred::Ranges(_) => test_selected(c, start, n, k, pred, buf, tested, masks, sel),
        _ if rows_far_apart(k, n, c.width) => {
            test_selected(c, start, n, k, pred, buf, tested, masks, sel)
        }
        _ => next_step(k, |r| get_streaming(c, local + r as usize), pred, sel),
    }
}

/// Words of slack after the ids in [`Scratch::tested`], as the widest bit kernel reads
/// past its last group (at least its `SLACK_WORDS`).
const TESTED_SLACK: usize = 16;

/// A filter over the `k` selected rows of a morsel, few of its rows: their ids are
/// fetched into `tested` (by gets, as [`fetch_ids`] reads an aggregate's column,
/// prefetching when the rows lie far apart) and tested there by the SIMD kernel at width
/// 32 — for a bitmap a gather per 16 selected ids instead of a scalar test each — into
/// `masks`, which then compacts the selection. Taken by a bitmap out of L1, and by any
/// test whose rows lie more than a cache line apart: fused with the test, the gets had
/// no prefetch (SSB Q3.4, whose supplier join reads one row in a hundred: 1.2x).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn test_selected(
    c: ColRef<'_>,
    start: usize,
    n: usize,
    k: usize,
    pred: bits::Pred<'_>,
    buf: &mut [u32],
    tested: &mut [u64],
    masks: &mut [u64],
    sel: &mut [u32],
) -> usize {
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

/// Fetches the ids of the selected rows of column `col` into `out` (which holds `n`):
/// an unpack of the morsel when `unpack` (the caller's density rule: [`reads_morsel`]
/// for the aggregates, [`unpacks_morsel`] for a filter; of the selected rows only when
/// the selection is a bitmask), else a get per row.
#[inline(always)]
fn fetch_ids(rows: Rows<'_, '_>, col: usize, unpack: bool, buf: &mut [u32], out: &mut [u32]) {
    let (c, start, n, k, sel) = (rows.cols[col], rows.start, rows.n, rows.k, rows.sel);
    let local = start - c.base;
    if k == n {
        // Every row selected (no filter, or none failed): unpack straight into `out`.
        bits::unpack(c.words, c.width, local, &mut out[..n]);
    } else if let (Some(mask), true) = (rows.mask, unpack) {
        // Unpacked and compressed in registers: no morsel of ids to gather from.
        let got = bits::active().unpack_selected(c.words, c.width, local, n, mask, out);
        debug_assert_eq!(got, k);
    } else if unpack {
        bits::unpack(c.words, c.width, local, &mut buf[..n]);
        bits::gather(&buf[..n], sel, out);
    } else {
        let w = c.width as usize;
        debug_assert_eq!(sel.len(), k, "sparse reads need the selection vector");
        if rows_far_apart(k, n, c.width) {
            // Rows more than a cache line apart on average: ask for the line of the row
            // `GET_AHEAD` places on while this one is read, to keep more misses in
            // flight (closer rows share lines, and the prefetches only cost).
            for (j, (o, &r)) in out.iter_mut().zip(sel).enumerate() {
                if let Some(&a) = sel.get(j + GET_AHEAD) {
                    if let Some(word) = c.words.get((local + a as usize) * w / 64) {
                        prefetch_read(word);
                    }
                }
                *o = bitpack::get(c.words, c.width, local + r as usize);
            }
        } else {
            for (o, &r) in out.iter_mut().zip(sel) {
                *o = get_streaming(c, local + r as usize);
            }
        }
    }
}

/// Id `i` of `c`, by a get that also asks for the line
/// [`STREAM_AHEAD`](pmolap_kernels::prefetch::STREAM_AHEAD) bytes past it: gets of
/// rows less than a line apart read every line, as a scan does, and the hardware
/// prefetchers did not keep up with them (SF 10, two threads, Zen 5, alternated: R44
/// 1.43x, R24 1.33x, R36 1.13x, nine more sparse queries 0.99-1.07x).
#[inline(always)]
fn get_streaming(c: ColRef<'_>, i: usize) -> u32 {
    prefetch_ahead(
        c.words
            .as_ptr()
            .wrapping_add(i * c.width as usize / 64)
            .cast(),
        1,
    );
    bitpack::get(c.words, c.width, i)
}

/// Whether `k` selected rows of an `n`-row morsel of a column `width` bits wide lie more
/// than a cache line (512 bits) apart on average: their gets miss one by one.
#[inline(always)]
fn rows_far_apart(k: usize, n: usize, width: u32) -> bool {
    k * 512 < n * width as usize
}

/// How many selected rows ahead a sparse fetch prefetches: 48 against 16, SF 10, two
/// threads of a Zen 5 host whose memory answers 85 GiB/s — R11 1.14x, R9 1.10x, the rest
/// of six sparse queries 0.99-1.03x; 96 no better (the gets wait on memory, and 16 kept
/// too few misses in flight).
const GET_AHEAD: usize = 48;

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
            t.dv[st.col] += AccessCounts::scans(n as u64);
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
            t.dv[st.col] += AccessCounts::scans(n as u64);
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
            t.selected(st.col, &sel[..k], n, unpacks_morsel(k, n));
        }
        k = step(
            cols[st.col],
            st.test,
            pred,
            start,
            n,
            k,
            buf,
            tested,
            masks,
            sel,
        );
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
    use super::{step, ColRef, TestRef};
    use super::{Scratch, TESTED_SLACK};
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
                        let k = step(
                            c,
                            test,
                            pred,
                            start,
                            n,
                            sel0.len(),
                            &mut s.buf,
                            &mut s.tested,
                            &mut s.masks,
                            &mut s.sel,
                        );
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
