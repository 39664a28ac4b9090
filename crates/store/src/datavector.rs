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

/// The checksum of the packed words of 64-id groups `groups` of a data vector of `rows`
/// ids of `width` bits (through the words' end when `last`) and, when `dict_len` is
/// given, the first row of them whose id is not below it.
fn check_groups(
    words: &[u64],
    width: u32,
    rows: usize,
    groups: std::ops::Range<usize>,
    last: bool,
    dict_len: Option<usize>,
) -> (crc32fast::Hasher, Option<usize>) {
    /// Groups per step: 64 Ki ids, their words (at most 256 KiB) still in cache for the
    /// id test after the checksum read them.
    const STEP: usize = 1024;
    let w = width as usize;
    let mut h = crc32fast::Hasher::new();
    let mut bad = None;
    let mut masks = vec![0u64; STEP];
    let mut g = groups.start;
    while g < groups.end {
        let ge = (g + STEP).min(groups.end);
        // A last, partial group packs only its ids' bits.
        h.update(bytemuck::cast_slice(
            &words[g * w..(ge * w).min(words.len())],
        ));
        if let (Some(n), None) = (dict_len, bad) {
            let r0 = g * 64;
            let n_rows = (ge * 64).min(rows) - r0;
            bad = match n {
                0 => Some(r0),
                n => {
                    bits::range_mask(words, width, r0, n_rows, 0, (n - 1) as u32, &mut masks);
                    first_clear(&masks[..n_rows.div_ceil(64)], n_rows).map(|i| r0 + i)
                }
            };
        }
        g = ge;
    }
    if last {
        h.update(bytemuck::cast_slice(
            &words[(groups.end * w).min(words.len())..],
        ));
    }
    (h, bad)
}

/// The first of the `n` bits of `masks` that is clear.
fn first_clear(masks: &[u64], n: usize) -> Option<usize> {
    masks.iter().enumerate().find_map(|(i, &m)| {
        let valid = match n - i * 64 {
            k if k >= 64 => u64::MAX,
            k => (1u64 << k) - 1,
        };
        let missing = !m & valid;
        (missing != 0).then(|| i * 64 + missing.trailing_zeros() as usize)
    })
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

    /// The payload checksum, and that every value id is below `dict_len` (skipped when
    /// the bit width holds no id past it): the checks that read every payload byte, in
    /// one pass — each step checksums a run of packed words and tests their ids with the
    /// range kernel while they are in cache — in parallel parts for big vectors.
    pub(crate) fn check_deep(&self, dict_len: usize) -> Result<()> {
        let words = self.words();
        let groups = self.rows.div_ceil(64);
        let ids = (dict_len as u64) < 1u64 << self.width;
        // Parts of whole groups, of at least PART bytes, one per CPU at most.
        const PART: usize = 16 << 20;
        let threads = crate::structure::cpus().min(words.len() * 8 / PART).max(1);
        let per = groups.div_ceil(threads).max(1);
        let part = |g0: usize, g1: usize| -> (crc32fast::Hasher, Option<usize>) {
            let last = g1 == groups;
            check_groups(
                words,
                self.width,
                self.rows,
                g0..g1,
                last,
                ids.then_some(dict_len),
            )
        };
        let parts: Vec<(crc32fast::Hasher, Option<usize>)> = if threads == 1 {
            vec![part(0, groups)]
        } else {
            std::thread::scope(|sc| {
                let handles: Vec<_> = (0..groups)
                    .step_by(per)
                    .map(|g0| {
                        let g1 = (g0 + per).min(groups);
                        sc.spawn(move || part(g0, g1))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                    .collect()
            })
        };
        let mut all = crc32fast::Hasher::new();
        for (h, _) in &parts {
            all.combine(h);
        }
        self.s.check_crc(all.finalize())?;
        if let Some(row) = parts.iter().find_map(|(_, bad)| *bad) {
            let id = bitpack::get(words, self.width, row);
            return Err(self.s.corrupt(format!(
                "value id {id} (row {row}) past the dictionary's {dict_len} values"
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `ids` packed at `width`, with the padding word of the layout.
    fn packed(ids: &[u32], width: u32) -> Vec<u64> {
        let mut words = vec![0u64; bitpack::words_for(ids.len(), width)];
        bitpack::pack(ids, width, &mut words);
        words
    }

    /// The one pass finds the first id past the dictionary in any step and part, and its
    /// checksum (parts combined) is the plain CRC of every word, padding included.
    #[test]
    fn the_one_pass_checks_sums_and_ids() {
        for rows in [0usize, 1, 63, 64, 65, 70_000, 200_003] {
            let width = 13;
            let ids: Vec<u32> = (0..rows as u32).map(|i| i % 5000).collect();
            let words = packed(&ids, width);
            let bytes: &[u8] = bytemuck::cast_slice(&words);
            let groups = rows.div_ceil(64);
            for parts in [1usize, 2, 3] {
                let per = groups.div_ceil(parts).max(1);
                let mut all = crc32fast::Hasher::new();
                let mut bad = None;
                let mut g0 = 0;
                loop {
                    let g1 = (g0 + per).min(groups);
                    let (h, b) =
                        check_groups(&words, width, rows, g0..g1, g1 == groups, Some(5000));
                    all.combine(&h);
                    bad = bad.or(b);
                    if g1 == groups {
                        break;
                    }
                    g0 = g1;
                }
                assert_eq!(
                    all.finalize(),
                    crc32fast::hash(bytes),
                    "{rows} rows, {parts} parts"
                );
                assert_eq!(bad, None);
            }
            if rows == 0 {
                continue;
            }
            for at in [0, rows / 2, rows - 1] {
                let mut bad_ids = ids.clone();
                bad_ids[at] = 5000 + (at as u32 % 7);
                let words = packed(&bad_ids, width);
                let (_, b) = check_groups(&words, width, rows, 0..groups, true, Some(5000));
                assert_eq!(b, Some(at), "{rows} rows, bad id at {at}");
                let (_, b) = check_groups(&words, width, rows, 0..groups, true, Some(0));
                assert_eq!(b, Some(0));
            }
        }
    }
}
