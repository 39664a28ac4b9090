//! What one morsel's work shares (the probe, the group steps, the aggregates): the
//! column and test views a thread group reads, the selected rows, the per-thread scratch
//! buffers and access tally, and the reading of the selected rows' ids of a column (by
//! unpacking the morsel or by gets) — the leaf of the exec modules' imports.

use pmolap_kernels::bitpack;
use pmolap_kernels::bits;
use pmolap_kernels::prefetch::{prefetch_ahead, prefetch_read};
use pmolap_store::AccessCounts;

use crate::plan::order::{reads_by_mask, reads_morsel};
use crate::plan::{Lut, Plan};

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
    pub(super) fn pred(self) -> Option<bits::Pred<'a>> {
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
/// counters when it ends; only when the store counts (the placement workload). With the
/// counts it records which pages of each structure file it read, per step: a step is a
/// [`PAGE_STEPS`]-th of the fact table's rows (step 0 being planning), so a query's
/// page references keep their order at that granularity. The pages are set in a bitmap
/// per structure (a morsel's range, or the pages of the selected rows or decoded ids the
/// counts walk anyway) and handed to the store when the worker's morsels enter a new
/// step and when it ends.
#[derive(Debug, Default)]
pub(super) struct Tally {
    pub(super) dv: Vec<AccessCounts>,
    pub(super) dict: Vec<AccessCounts>,
    dv_pages: Vec<Vec<u64>>,
    dict_pages: Vec<Vec<u64>>,
    widths: Vec<u32>,
    fact_rows: usize,
    step: u32,
    /// Pages recorded ([`pmolap_store::pagelog::recording`]).
    pages: bool,
}

/// Steps a query's morsels are recorded in ([`Tally`]).
pub(super) const PAGE_STEPS: usize = 32;
/// Bits in a page of a structure file.
const PAGE_BITS: u64 = pmolap_store::pagelog::PAGE_BYTES * 8;
/// The file page of payload bit `b` (the payload follows the one-page header).
#[inline(always)]
fn file_page(b: u64) -> usize {
    (b / PAGE_BITS) as usize + 1
}

#[inline(always)]
fn set_page(bits: &mut Vec<u64>, p: usize) {
    if bits.len() <= p / 64 {
        bits.resize(p / 64 + 1, 0);
    }
    bits[p / 64] |= 1 << (p % 64);
}

impl Tally {
    pub(super) fn new(plan: &Plan<'_>) -> Tally {
        let cols = plan.cols.len();
        Tally {
            dv: vec![AccessCounts::default(); cols],
            dict: vec![AccessCounts::default(); cols],
            dv_pages: vec![Vec::new(); cols],
            dict_pages: vec![Vec::new(); cols],
            widths: plan.cols.iter().map(|c| c.store.dv.width()).collect(),
            fact_rows: plan.fact_rows.max(1),
            step: 1,
            pages: pmolap_store::pagelog::recording(),
        }
    }

    /// Enters the morsel starting at fact row `start`: a new step hands the pages of
    /// the last one to the store.
    #[inline]
    pub(super) fn morsel(&mut self, plan: &Plan<'_>, start: usize) {
        let step = 1 + (start as u128 * PAGE_STEPS as u128 / self.fact_rows as u128) as u32;
        if step != self.step {
            self.flush_pages(plan);
            self.step = step;
        }
    }

    /// A read of the selected rows (`sel`, ascending offsets) of the `n`-row morsel
    /// starting at fact row `start` of column `col`, as [`fetch_ids`] and the later
    /// steps do it: an unpack of the morsel (a scan) when `unpacked`, else gets classed
    /// by stride.
    #[inline]
    pub(super) fn selected(
        &mut self,
        col: usize,
        sel: &[u32],
        start: usize,
        n: usize,
        unpacked: bool,
    ) {
        if unpacked {
            self.scanned(col, start, n);
            return;
        }
        self.dv[col] += AccessCounts::of_batch(sel);
        if !self.pages {
            return;
        }
        let w = u64::from(self.widths[col]);
        let bits = &mut self.dv_pages[col];
        let mut last = usize::MAX;
        for &r in sel {
            let p = file_page((start as u64 + u64::from(r)) * w);
            if p != last {
                set_page(bits, p);
                last = p;
            }
        }
    }

    /// An unpack of the `n`-row morsel starting at fact row `start` of column `col`.
    #[inline]
    pub(super) fn scanned(&mut self, col: usize, start: usize, n: usize) {
        self.dv[col] += AccessCounts::scans(n as u64);
        if n == 0 || !self.pages {
            return;
        }
        let w = u64::from(self.widths[col]);
        let (a, b) = (
            file_page(start as u64 * w),
            file_page((start + n) as u64 * w - 1),
        );
        let bits = &mut self.dv_pages[col];
        for p in a..=b {
            set_page(bits, p);
        }
    }

    /// Value ids `ids` of column `col` decoded through its (integer) dictionary.
    #[inline]
    pub(super) fn decoded(&mut self, col: usize, ids: &[u32]) {
        self.dict[col] += AccessCounts::of_batch(ids);
        if !self.pages {
            return;
        }
        let bits = &mut self.dict_pages[col];
        for &i in ids {
            set_page(bits, file_page(u64::from(i) * 64));
        }
    }

    /// One value id (`None`: nothing) of column `col` decoded.
    #[inline]
    pub(super) fn decoded_one(&mut self, col: usize, id: Option<u32>) {
        if let Some(i) = id {
            self.decoded(col, &[i]);
        }
    }

    /// Hands the current step's pages to the store.
    fn flush_pages(&mut self, plan: &Plan<'_>) {
        for (i, c) in plan.cols.iter().enumerate() {
            for (bits, dict) in [
                (&mut self.dv_pages[i], false),
                (&mut self.dict_pages[i], true),
            ] {
                if bits.iter().any(|&w| w != 0) {
                    if dict {
                        c.store.dict.record_pages(self.step, bits);
                    } else {
                        c.store.dv.record_pages(self.step, bits);
                    }
                    bits.fill(0);
                }
            }
        }
    }

    /// Adds the tally to the store's counters and page logs.
    pub(super) fn flush(&mut self, plan: &Plan<'_>) {
        for (i, c) in plan.cols.iter().enumerate() {
            c.store.dv.record(&self.dv[i]);
            c.store.dict.record(&self.dict[i]);
        }
        self.flush_pages(plan);
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
                t.selected(col, rows.sel, rows.start, n, unpack);
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

/// A join's group codes as the probe reads them ([`crate::plan::Lut`]: the miss marker
/// is the type's largest value).
#[derive(Clone, Copy)]
pub(super) enum LutRef<'a> {
    U8(&'a [u8]),
    U16(&'a [u16]),
    U32(&'a [u32]),
}

impl<'a> LutRef<'a> {
    /// `bytes` (the plan's table or a node-local copy of it, as aligned) read as `lut`'s
    /// type.
    pub(super) fn of(lut: &Lut, bytes: &'a [u8]) -> LutRef<'a> {
        match lut {
            Lut::U8(_) => LutRef::U8(bytes),
            Lut::U16(_) => LutRef::U16(bytemuck::cast_slice(bytes)),
            Lut::U32(_) => LutRef::U32(bytemuck::cast_slice(bytes)),
        }
    }
}

/// Words of slack after the ids in [`Scratch::tested`], as the widest bit kernel reads
/// past its last group (at least its `SLACK_WORDS`).
pub(super) const TESTED_SLACK: usize = 16;

/// Fetches the ids of the selected rows of column `col` into `out` (which holds `n`):
/// an unpack of the morsel when `unpack` (the caller's density rule: [`reads_morsel`]
/// for the aggregates, [`unpacks_morsel`](crate::plan::order::unpacks_morsel) for a filter; of the selected rows only when
/// the selection is a bitmask), else a get per row.
#[inline(always)]
pub(super) fn fetch_ids(
    rows: Rows<'_, '_>,
    col: usize,
    unpack: bool,
    buf: &mut [u32],
    out: &mut [u32],
) {
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
pub(super) fn get_streaming(c: ColRef<'_>, i: usize) -> u32 {
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
pub(super) fn rows_far_apart(k: usize, n: usize, width: u32) -> bool {
    k * 512 < n * width as usize
}

/// How many selected rows ahead a sparse fetch prefetches: 48 against 16, SF 10, two
/// threads of a Zen 5 host whose memory answers 85 GiB/s — R11 1.14x, R9 1.10x, the rest
/// of six sparse queries 0.99-1.03x; 96 no better (the gets wait on memory, and 16 kept
/// too few misses in flight).
pub(super) const GET_AHEAD: usize = 48;
