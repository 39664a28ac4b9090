//! `DataVector`: the value id of every row, bit-packed at the column's width; lookups by
//! row id, bulk unpacking, gathers and value-id range scans (to row ids or a bitmap).

use std::ops::RangeInclusive;

use crate::counters::AccessCounts;
use crate::error::Result;
use crate::structure::{cast, try_cast, Structure};
use pmolap_kernels::{bitpack, bits};

/// Rows decoded per step of a scan.
pub const BLOCK: usize = 1024;

/// A bitmap over row ids: bit `r` of word `r / 64` is row `r`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bitmap {
    pub words: Vec<u64>,
    pub len: usize,
}

impl Bitmap {
    pub fn contains(&self, row: usize) -> bool {
        row < self.len && self.words[row / 64] >> (row % 64) & 1 == 1
    }

    pub fn count_ones(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The set rows, ascending.
    pub fn iter_ones(&self) -> impl Iterator<Item = u32> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                (w != 0).then(|| {
                    let b = w.trailing_zeros();
                    w &= w - 1;
                    (i * 64) as u32 + b
                })
            })
        })
    }
}

/// A column's data vector on its tier.
#[derive(Debug)]
pub struct DataVector {
    pub(crate) s: Structure,
    rows: usize,
    width: u32,
}

impl DataVector {
    pub(crate) fn new(s: Structure) -> Result<DataVector> {
        let rows = s.header.entries as usize;
        let width = s.header.width;
        if !(1..=32).contains(&width) {
            return Err(s.corrupt(format!("bit width {width} outside 1..=32")));
        }
        let words: &[u64] = try_cast(&s, s.payload())?;
        let Some(want) = bitpack::checked_words_for(rows, width) else {
            return Err(s.corrupt(format!(
                "{rows} rows of {width} bits are more than any data vector holds"
            )));
        };
        if words.len() != want {
            return Err(s.corrupt(format!(
                "data vector holds {} words, {rows} rows of {width} bits need {want}",
                words.len()
            )));
        }
        Ok(DataVector { s, rows, width })
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.rows
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Bits per value id.
    pub fn width(&self) -> u32 {
        self.width
    }

    pub fn counts(&self) -> AccessCounts {
        self.s.counters.snapshot()
    }

    /// Whether the table's access counters are on.
    #[inline]
    pub fn counting(&self) -> bool {
        self.s.counting()
    }

    /// Adds accesses an engine made with its own kernels over the raw payload (counted
    /// per batch by the caller); nothing when counting is off.
    pub fn record(&self, c: &AccessCounts) {
        self.s.record(c)
    }

    pub(crate) fn reset_counts(&self) {
        self.s.counters.reset();
        self.s.pages.reset();
    }

    /// Records the pages an engine's own kernels read during `step` (bit `p` of `bits`:
    /// file page `p`; [`crate::pagelog`]); nothing when counting is off.
    pub fn record_pages(&self, step: u32, bits: &[u64]) {
        if self.s.counting() {
            self.s.pages.add_bits(step, bits);
        }
    }

    /// Records (when counting) the pages of `rows` an engine read with its own kernels
    /// while planning ([`crate::pagelog::PLAN_STEP`]).
    pub fn record_reads(&self, rows: impl Iterator<Item = u64>) {
        self.s.record_entries(rows, u64::from(self.width));
    }

    /// The pages counted runs touched, by step.
    pub fn page_steps(&self) -> Vec<crate::pagelog::PageStep> {
        self.s.pages.snapshot()
    }

    /// The structure file's pages ([`crate::pagelog::PAGE_BYTES`] each).
    pub fn file_pages(&self) -> u64 {
        self.s.file_pages()
    }

    pub fn info(&self) -> &crate::structure::StructureInfo {
        &self.s.info
    }

    /// The packed value ids ([`pmolap_kernels::bitpack`] layout, padding word included): raw,
    /// uncounted access for engines that run their own scan and gather kernels.
    #[inline]
    pub fn words(&self) -> &[u64] {
        cast(self.s.payload())
    }

    /// The value id of `row` (one random lookup). Panics if `row >= len()`.
    #[inline]
    pub fn get(&self, row: usize) -> u32 {
        assert!(row < self.rows, "row {row} out of {} rows", self.rows);
        if self.s.counting() {
            self.s.counters.add_lookup(1);
            self.s
                .record_entries(std::iter::once(row as u64), u64::from(self.width));
        }
        bitpack::get(self.words(), self.width, row)
    }

    /// Unpacks the ids of rows `start .. start + out.len()` (a scan of `out.len()`
    /// entries). Panics if the range passes the end.
    pub fn unpack(&self, start: usize, out: &mut [u32]) {
        assert!(
            start + out.len() <= self.rows,
            "rows {start}+{} out of {} rows",
            out.len(),
            self.rows
        );
        if self.s.counting() {
            self.s.counters.add_scan(out.len() as u64);
            let w = u64::from(self.width);
            self.s.record_bytes(
                start as u64 * w / 8,
                ((start + out.len()) as u64 * w).div_ceil(8),
            );
        }
        bits::unpack(self.words(), self.width, start, out);
    }

    /// The ids of the rows in `rows` (lookups classed by stride), into `out`.
    pub fn gather(&self, rows: &[u32], out: &mut [u32]) {
        if self.s.counting() {
            self.s.counters.add_batch(rows);
            self.s
                .record_entries(rows.iter().map(|&r| u64::from(r)), u64::from(self.width));
        }
        let words = self.words();
        let n = self.rows;
        for (o, &r) in out.iter_mut().zip(rows) {
            assert!((r as usize) < n, "row {r} out of {n} rows");
            *o = bitpack::get(words, self.width, r as usize);
        }
    }

    /// The payload checksum, and that every value id is below `dict_len` (a scan of the
    /// ids, in parallel parts for big vectors, skipped when the bit width holds no id
    /// past it): the checks that read every payload byte.
    pub(crate) fn check_deep(&self, dict_len: usize) -> Result<()> {
        self.s.check_payload()?;
        if self.rows == 0 || (dict_len as u64) >= 1u64 << self.width {
            return Ok(());
        }
        let words = self.words();
        let max_in = |lo: usize, hi: usize| {
            let mut buf = [0u32; BLOCK];
            let mut max = 0u32;
            let mut start = lo;
            while start < hi {
                let n = BLOCK.min(hi - start);
                bits::unpack(words, self.width, start, &mut buf[..n]);
                max = buf[..n].iter().fold(max, |m, &x| m.max(x));
                start += n;
            }
            max
        };
        const PART_ROWS: usize = 1 << 22;
        let threads = crate::structure::cpus().min(self.rows / PART_ROWS);
        let max = if threads <= 1 {
            max_in(0, self.rows)
        } else {
            // Parts on BLOCK boundaries (a multiple of 64 rows: whole packing groups).
            let part = self.rows.div_ceil(threads).div_ceil(BLOCK) * BLOCK;
            std::thread::scope(|sc| {
                let handles: Vec<_> = (0..self.rows)
                    .step_by(part)
                    .map(|lo| {
                        let hi = (lo + part).min(self.rows);
                        sc.spawn(move || max_in(lo, hi))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                    .max()
                    .unwrap_or(0)
            })
        };
        if max as usize >= dict_len {
            return Err(self.s.corrupt(format!(
                "value id {max} past the dictionary's {dict_len} values"
            )));
        }
        Ok(())
    }

    /// Calls `f(first_row, ids)` for consecutive blocks of up to [`BLOCK`] rows (a scan
    /// of the whole vector, counted once).
    pub fn for_each_block(&self, mut f: impl FnMut(usize, &[u32])) {
        if self.s.counting() {
            self.s.counters.add_scan(self.rows as u64);
            self.s.record_bytes(0, self.s.header.payload_len);
        }
        let words = self.words();
        let mut buf = [0u32; BLOCK];
        let mut start = 0;
        while start < self.rows {
            let n = BLOCK.min(self.rows - start);
            bits::unpack(words, self.width, start, &mut buf[..n]);
            f(start, &buf[..n]);
            start += n;
        }
    }

    /// Row ids (ascending) whose value id lies in `codes` — a full scan.
    pub fn scan_range(&self, codes: RangeInclusive<u32>) -> Vec<u32> {
        let (lo, span) = (*codes.start(), codes.end().wrapping_sub(*codes.start()));
        let mut out = Vec::new();
        if codes.is_empty() {
            return out;
        }
        let mut sel = [0u32; BLOCK];
        self.for_each_block(|start, ids| {
            // Branch-free compaction: always write, advance only on a match.
            let mut n = 0;
            for (j, &c) in ids.iter().enumerate() {
                sel[n] = (start + j) as u32;
                n += (c.wrapping_sub(lo) <= span) as usize;
            }
            out.extend_from_slice(&sel[..n]);
        });
        out
    }

    /// As [`DataVector::scan_range`], as a bitmap over all rows.
    pub fn scan_range_bitmap(&self, codes: RangeInclusive<u32>) -> Bitmap {
        let mut words = vec![0u64; self.rows.div_ceil(64)];
        if !codes.is_empty() {
            let (lo, span) = (*codes.start(), codes.end() - codes.start());
            self.for_each_block(|start, ids| {
                // Blocks start on multiples of 1024, so chunks of 64 are whole words.
                for (k, chunk) in ids.chunks(64).enumerate() {
                    let mut w = 0u64;
                    for (j, &c) in chunk.iter().enumerate() {
                        w |= ((c.wrapping_sub(lo) <= span) as u64) << j;
                    }
                    words[start / 64 + k] = w;
                }
            });
        }
        Bitmap {
            words,
            len: self.rows,
        }
    }
}
