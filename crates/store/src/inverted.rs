//! `InvertedIndex`: value id → the row ids holding it, in CSR form (offsets per value id
//! into one array of row ids, ascending within each value id).

use std::ops::RangeInclusive;

use crate::counters::AccessCounts;
use crate::error::Result;
use crate::structure::{cast, try_cast, Structure};

/// A column's inverted index on its tier.
#[derive(Debug)]
pub struct InvertedIndex {
    pub(crate) s: Structure,
    distinct: usize,
}

impl InvertedIndex {
    /// Validates the CSR layout; the payload checksum and the row ids are
    /// [`InvertedIndex::check_deep`]'s.
    pub(crate) fn new(s: Structure, rows: usize) -> Result<InvertedIndex> {
        let distinct = s.header.entries as usize;
        let p = s.payload();
        let offsets = distinct.checked_add(1).and_then(|n| n.checked_mul(8));
        let total = offsets.and_then(|n| n.checked_add(rows.checked_mul(4)?));
        let (Some(need), Some(total)) = (offsets, total) else {
            return Err(s.corrupt(format!(
                "inverted index of {distinct} values and {rows} rows is more than any file holds"
            )));
        };
        if p.len() != total {
            return Err(s.corrupt(format!(
                "inverted index payload of {} bytes, {distinct} values and {rows} rows need {total}",
                p.len()
            )));
        }
        let offs: &[u64] = try_cast(&s, &p[..need])?;
        try_cast::<u32>(&s, &p[need..])?;
        if offs[0] != 0 || offs[distinct] != rows as u64 || offs.windows(2).any(|w| w[0] > w[1]) {
            return Err(s.corrupt("inverted index offsets are out of order or out of range"));
        }
        Ok(InvertedIndex { s, distinct })
    }

    /// The payload checksum, and that every row id is below `rows`: the checks that
    /// read every payload byte.
    pub(crate) fn check_deep(&self, rows: usize) -> Result<()> {
        self.s.check_payload()?;
        let need = (self.distinct + 1) * 8;
        let ids: &[u32] = cast(&self.s.payload()[need..]);
        if ids.iter().any(|&r| r as usize >= rows) {
            return Err(self
                .s
                .corrupt("inverted index holds a row id past the last row"));
        }
        Ok(())
    }

    /// Number of value ids.
    pub fn len(&self) -> usize {
        self.distinct
    }

    pub fn is_empty(&self) -> bool {
        self.distinct == 0
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

    /// The pages counted runs touched, by step ([`crate::pagelog`]).
    pub fn page_steps(&self) -> Vec<crate::pagelog::PageStep> {
        self.s.pages.snapshot()
    }

    /// The structure file's pages ([`crate::pagelog::PAGE_BYTES`] each).
    pub fn file_pages(&self) -> u64 {
        self.s.file_pages()
    }

    /// Records the pages read for value ids `lo..=hi`: their offsets and their rows.
    fn record_range(&self, lo: usize, hi: usize) {
        let (offs, _) = self.parts();
        let base = ((self.distinct + 1) * 8) as u64;
        let (a, b) = (offs[lo], offs[hi + 1]);
        self.s.record_bytes(lo as u64 * 8, (hi as u64 + 2) * 8);
        self.s.record_bytes(base + a * 4, base + b * 4);
    }

    pub fn info(&self) -> &crate::structure::StructureInfo {
        &self.s.info
    }

    fn parts(&self) -> (&[u64], &[u32]) {
        let p = self.s.payload();
        let need = (self.distinct + 1) * 8;
        (cast(&p[..need]), cast(&p[need..]))
    }

    /// The rows (ascending) whose value id is `code` (one lookup). Panics if out of range.
    pub fn rows_of(&self, code: u32) -> &[u32] {
        if self.s.counting() {
            self.s.counters.add_lookup(1);
            self.record_range(code as usize, code as usize);
        }
        let (offs, ids) = self.parts();
        let c = code as usize;
        &ids[offs[c] as usize..offs[c + 1] as usize]
    }

    /// The rows of every value id in `codes`, grouped by value id (ascending within a
    /// group). One lookup plus adjacent (near dense) lookups for the rest of the range.
    pub fn rows_of_range(&self, codes: RangeInclusive<u32>) -> &[u32] {
        if codes.is_empty() {
            return &[];
        }
        let (lo, hi) = (*codes.start() as usize, *codes.end() as usize);
        if self.s.counting() {
            self.s.counters.add_lookup(1);
            self.s.counters.add_near((hi - lo) as u64);
            self.record_range(lo, hi);
        }
        let (offs, ids) = self.parts();
        &ids[offs[lo] as usize..offs[hi + 1] as usize]
    }

    /// Rows of a batch of value ids, appended to `out` in batch order.
    pub fn rows_of_batch(&self, codes: &[u32], out: &mut Vec<u32>) {
        if self.s.counting() {
            self.s.counters.add_batch_adjacent(codes);
            for &c in codes {
                self.record_range(c as usize, c as usize);
            }
        }
        let (offs, ids) = self.parts();
        for &c in codes {
            let c = c as usize;
            out.extend_from_slice(&ids[offs[c] as usize..offs[c + 1] as usize]);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::schema::{ColumnType, Schema, Value};
    use crate::{Placement, Table, TableBuilder, WriteOptions};

    #[test]
    fn csr_index_maps_values_to_rows() {
        let dir = tempfile::tempdir().unwrap();
        let schema = Schema::new([("v", ColumnType::Int)]).unwrap();
        let mut b = TableBuilder::new(schema);
        b.extend_ints(0, &[7, 3, 7, 9, 3, 7]).unwrap();
        b.finish(dir.path(), &WriteOptions::default().with_index(&["v"]))
            .unwrap();
        let t = Table::open(dir.path(), &Placement::home()).unwrap();
        let c = t.column("v").unwrap();
        let ix = c.index.as_ref().unwrap();
        assert_eq!(ix.len(), 3);
        assert_eq!(ix.rows_of(0), &[1, 4]);
        assert_eq!(ix.rows_of(1), &[0, 2, 5]);
        assert_eq!(ix.rows_of(2), &[3]);
        assert_eq!(ix.rows_of_range(1..=2), &[0, 2, 5, 3]);
        let mut out = Vec::new();
        ix.rows_of_batch(&[2, 0], &mut out);
        assert_eq!(out, vec![3, 1, 4]);
        assert_eq!(
            c.rows_between(Value::Int(4), Value::Int(100)).unwrap(),
            vec![0, 2, 3, 5]
        );
    }
}
