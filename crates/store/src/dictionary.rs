//! `Dictionary`: the sorted, unique values of a column (i64, or strings as offsets +
//! bytes); a value id is a position in it. Order preserving, so a value range maps to a
//! value-id range ([`Dictionary::code_range`]). An int column may instead be a frame of
//! reference ([`ColumnEncoding::Frame`]): id i is the minimum + i, so the same
//! interface decodes by an addition and its lookups touch no memory (and count none).

use std::cmp::Ordering;
use std::ops::RangeInclusive;

use crate::counters::AccessCounts;
use crate::error::{Error, Result};
use crate::format::{ColumnEncoding, StructureKind};
use crate::schema::{ColumnType, Value};
use crate::structure::{cast, try_cast, Structure};

/// A column's dictionary on its tier.
#[derive(Debug)]
pub struct Dictionary {
    pub(crate) s: Structure,
    ty: ColumnType,
    len: usize,
    /// A frame of reference's minimum (kind 5); None for a sorted dictionary.
    frame: Option<i64>,
}

/// The values of an int column by value id: a sorted dictionary, or a frame of reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntValues<'a> {
    /// Sorted, unique values: id i is `values[i]`.
    Sorted(&'a [i64]),
    /// Id i is `min + i` for `i < len`.
    Frame { min: i64, len: usize },
}

impl<'a> IntValues<'a> {
    /// Number of value ids.
    #[inline]
    pub fn len(&self) -> usize {
        match self {
            IntValues::Sorted(v) => v.len(),
            IntValues::Frame { len, .. } => *len,
        }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of id `i`. Panics if `i >= len()`.
    #[inline(always)]
    pub fn get(&self, i: usize) -> i64 {
        match self {
            IntValues::Sorted(v) => v[i],
            IntValues::Frame { min, len } => {
                assert!(i < *len, "value id {i} past the frame's {len}");
                min + i as i64
            }
        }
    }

    /// The smallest value.
    pub fn first(&self) -> Option<i64> {
        (!self.is_empty()).then(|| self.get(0))
    }

    /// The largest value.
    pub fn last(&self) -> Option<i64> {
        (!self.is_empty()).then(|| self.get(self.len() - 1))
    }

    /// The first id whose value does not satisfy `before` (which must hold for a prefix
    /// of the ids, as `v < x` does on ascending values).
    pub fn partition_point(&self, mut before: impl FnMut(i64) -> bool) -> usize {
        match self {
            IntValues::Sorted(v) => v.partition_point(|&e| before(e)),
            _ => {
                let (mut lo, mut hi) = (0usize, self.len());
                while lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    if before(self.get(mid)) {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                lo
            }
        }
    }

    /// Every value, by id.
    pub fn iter(&self) -> impl Iterator<Item = i64> + 'a {
        let this = *self;
        (0..this.len()).map(move |i| this.get(i))
    }
}

impl Dictionary {
    /// Validates the payload layout (sizes, order of offsets, UTF-8) and wraps it; the
    /// payload checksum and the order of the values are [`Dictionary::check_deep`]'s.
    pub(crate) fn new(s: Structure, ty: ColumnType) -> Result<Dictionary> {
        let len = s.header.entries as usize;
        let p = s.payload();
        let mut frame = None;
        match ty {
            ColumnType::Int
                if s.header.kind_code
                    == StructureKind::Dictionary.code(ty, ColumnEncoding::Frame) =>
            {
                let v: &[i64] = try_cast(&s, p)?;
                let &[min] = v else {
                    return Err(s.corrupt(format!(
                        "int frame payload holds {} values, a frame holds its minimum only",
                        v.len()
                    )));
                };
                if len == 0 || len as u64 > 1 << 32 || min.checked_add(len as i64 - 1).is_none() {
                    return Err(s.corrupt(format!(
                        "int frame of {len} ids from {min} leaves the 32-bit id or 64-bit value range"
                    )));
                }
                frame = Some(min);
            }
            ColumnType::Int => {
                let v: &[i64] = try_cast(&s, p)?;
                if v.len() != len {
                    return Err(s.corrupt(format!(
                        "int dictionary payload holds {} values, the header says {len}",
                        v.len()
                    )));
                }
            }
            ColumnType::Str => {
                let need = len.checked_add(1).and_then(|n| n.checked_mul(8));
                let Some(need) = need.filter(|&need| need <= p.len()) else {
                    return Err(s.corrupt(format!(
                        "string dictionary payload of {} bytes is too short for {len} offsets",
                        p.len()
                    )));
                };
                let offs: &[u64] = try_cast(&s, &p[..need])?;
                let bytes = &p[need..];
                if offs[0] != 0
                    || offs[len] != bytes.len() as u64
                    || offs.windows(2).any(|w| w[0] > w[1])
                {
                    return Err(
                        s.corrupt("string dictionary offsets are out of order or out of range")
                    );
                }
                for i in 0..len {
                    let b = &bytes[offs[i] as usize..offs[i + 1] as usize];
                    if std::str::from_utf8(b).is_err() {
                        return Err(s.corrupt(format!("string dictionary entry {i} is not UTF-8")));
                    }
                }
            }
        }
        Ok(Dictionary { s, ty, len, frame })
    }

    /// The payload checksum, and that the values are sorted and unique (a frame is by
    /// construction): the checks that read every payload byte.
    pub(crate) fn check_deep(&self) -> Result<()> {
        self.s.check_payload()?;
        match (self.ty, self.frame) {
            (ColumnType::Int, None) => {
                let v: &[i64] = cast(self.s.payload());
                if v.windows(2).any(|w| w[0] >= w[1]) {
                    return Err(self.s.corrupt("int dictionary is not sorted and unique"));
                }
            }
            (ColumnType::Str, _) => {
                let (offs, bytes) = self.str_parts();
                let sorted =
                    (1..self.len).all(|i| slice_at(offs, bytes, i - 1) < slice_at(offs, bytes, i));
                if !sorted {
                    return Err(self.s.corrupt("string dictionary is not sorted and unique"));
                }
            }
            (ColumnType::Int, Some(_)) => {}
        }
        Ok(())
    }

    /// How values map to ids.
    pub fn encoding(&self) -> ColumnEncoding {
        match self.frame {
            Some(_) => ColumnEncoding::Frame,
            None => ColumnEncoding::Dictionary,
        }
    }

    pub fn ty(&self) -> ColumnType {
        self.ty
    }

    /// Number of value ids: distinct values, or a frame's range.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The access counters of this dictionary.
    pub fn counts(&self) -> AccessCounts {
        self.s.counters.snapshot()
    }

    /// Whether accesses to this dictionary are counted: the table's counters are on and
    /// it is not a frame (whose decoding reads no memory).
    #[inline]
    pub fn counting(&self) -> bool {
        self.frame.is_none() && self.s.counting()
    }

    /// Adds accesses an engine made with its own kernels over the raw payload (counted
    /// per batch by the caller); nothing when counting is off or for a frame.
    pub fn record(&self, c: &AccessCounts) {
        if self.frame.is_none() {
            self.s.record(c)
        }
    }

    pub(crate) fn reset_counts(&self) {
        self.s.counters.reset();
        self.s.pages.reset();
    }

    /// Records the pages an engine's own kernels read during `step` (bit `p` of `bits`:
    /// file page `p`; [`crate::pagelog`]); nothing when counting is off.
    pub fn record_pages(&self, step: u32, bits: &[u64]) {
        if self.counting() {
            self.s.pages.add_bits(step, bits);
        }
    }

    /// Records (when counting) the pages of value ids `codes` an engine read with its own
    /// kernels while planning ([`crate::pagelog::PLAN_STEP`]).
    pub fn record_reads(&self, codes: &[u32]) {
        self.record_codes(codes.iter().copied());
    }

    /// Records (when counting) a pass an engine made over every value with its own
    /// kernels while planning, in id order: counted as a batch of lookups of every id
    /// (the first random, the rest near dense: stride 1; the per-access model prices
    /// dictionaries by lookups) and every page of them ([`crate::pagelog::PLAN_STEP`]).
    pub fn record_scan(&self) {
        if !self.counting() || self.len == 0 {
            return;
        }
        self.s.record(&AccessCounts {
            lookup: 1,
            near_dense: self.len as u64 - 1,
            ..AccessCounts::default()
        });
        self.record_codes(0..self.len as u32);
    }

    /// The pages counted runs touched, by step.
    pub fn page_steps(&self) -> Vec<crate::pagelog::PageStep> {
        self.s.pages.snapshot()
    }

    /// The structure file's pages ([`crate::pagelog::PAGE_BYTES`] each).
    pub fn file_pages(&self) -> u64 {
        self.s.file_pages()
    }

    /// The integer values by id (none for a string dictionary). Uncounted raw access.
    pub fn ints(&self) -> IntValues<'_> {
        match (self.ty, self.frame) {
            (ColumnType::Int, Some(min)) => IntValues::Frame { min, len: self.len },
            (ColumnType::Int, None) => IntValues::Sorted(cast(self.s.payload())),
            (ColumnType::Str, _) => IntValues::Sorted(&[]),
        }
    }

    fn str_parts(&self) -> (&[u64], &[u8]) {
        let p = self.s.payload();
        let need = (self.len + 1) * 8;
        (cast(&p[..need]), &p[need..])
    }

    /// The string with value id `code` (uncounted; panics if out of range).
    fn str_uncounted(&self, code: u32) -> &str {
        let (offs, bytes) = self.str_parts();
        // Validated as UTF-8 when opened.
        std::str::from_utf8(slice_at(offs, bytes, code as usize)).unwrap_or_default()
    }

    fn value_uncounted(&self, code: u32) -> Value<'_> {
        match self.ty {
            ColumnType::Int => Value::Int(self.ints().get(code as usize)),
            ColumnType::Str => Value::Str(self.str_uncounted(code)),
        }
    }

    /// Records (when counting) the planning reads of value ids `codes`: an int's 8 bytes,
    /// or a string's offset and its first byte.
    fn record_codes(&self, codes: impl Iterator<Item = u32> + Clone) {
        if !self.counting() {
            return;
        }
        self.s.record_entries(codes.clone().map(u64::from), 64);
        if self.ty == ColumnType::Str {
            let (offs, _) = self.str_parts();
            let base = ((self.len + 1) * 8) as u64;
            let at = |c: u32| base + offs.get(c as usize).copied().unwrap_or(0);
            self.s.record_entries(codes.map(at), 8);
        }
    }

    /// The value with id `code` (one lookup). Panics if `code >= len()`.
    pub fn get(&self, code: u32) -> Value<'_> {
        if self.counting() {
            self.s.counters.add_lookup(1);
            self.record_codes(std::iter::once(code));
        }
        self.value_uncounted(code)
    }

    /// Decodes a batch of value ids of an int column into `out` (lookups classed by the
    /// stride between consecutive ids).
    pub fn gather_ints(&self, codes: &[u32], out: &mut [i64]) -> Result<()> {
        if self.ty != ColumnType::Int {
            return Err(Error::Schema("gather_ints on a string dictionary".into()));
        }
        if self.counting() {
            self.s.counters.add_batch(codes);
            self.record_codes(codes.iter().copied());
        }
        match self.ints() {
            IntValues::Sorted(v) => {
                for (o, &c) in out.iter_mut().zip(codes) {
                    *o = v[c as usize];
                }
            }
            f @ IntValues::Frame { .. } => {
                for (o, &c) in out.iter_mut().zip(codes) {
                    *o = f.get(c as usize);
                }
            }
        }
        Ok(())
    }

    /// Decodes a batch of value ids into `out` (appended), any type.
    pub fn gather<'a>(&'a self, codes: &[u32], out: &mut Vec<Value<'a>>) {
        if self.counting() {
            self.s.counters.add_batch(codes);
            self.record_codes(codes.iter().copied());
        }
        out.extend(codes.iter().map(|&c| self.value_uncounted(c)));
    }

    /// Binary search: the first id whose value is not `Less` than the probe by `cmp`.
    /// Counts its probes as lookups.
    fn partition(&self, mut before: impl FnMut(u32) -> bool) -> u32 {
        let (mut lo, mut hi) = (0usize, self.len);
        let mut probes = 0u64;
        let mut path = [0u32; 64];
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            path[(probes as usize).min(63)] = mid as u32;
            probes += 1;
            if before(mid as u32) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if self.counting() {
            self.s.counters.add_lookup(probes);
            self.record_codes(path[..(probes as usize).min(64)].iter().copied());
        }
        lo as u32
    }

    fn cmp_at(&self, code: u32, v: &Value<'_>) -> Ordering {
        match (self.ty, v) {
            (ColumnType::Int, Value::Int(x)) => self.ints().get(code as usize).cmp(x),
            (ColumnType::Str, Value::Str(x)) => {
                let (offs, bytes) = self.str_parts();
                slice_at(offs, bytes, code as usize).cmp(x.as_bytes())
            }
            // Mismatched types are rejected before any comparison.
            _ => Ordering::Equal,
        }
    }

    fn check_type(&self, v: &Value<'_>) -> Result<()> {
        if v.ty() != self.ty {
            return Err(Error::Schema(format!(
                "a {} value `{v}` compared with a {} dictionary",
                v.ty(),
                self.ty
            )));
        }
        Ok(())
    }

    /// The value ids of all values `v` with `lo <= v <= hi`, as an inclusive id range;
    /// None when no dictionary value lies in the range. Errors on a type mismatch.
    pub fn code_range(&self, lo: Value<'_>, hi: Value<'_>) -> Result<Option<RangeInclusive<u32>>> {
        self.check_type(&lo)?;
        self.check_type(&hi)?;
        let first = self.partition(|c| self.cmp_at(c, &lo) == Ordering::Less);
        let end = self.partition(|c| self.cmp_at(c, &hi) != Ordering::Greater);
        Ok((first < end).then(|| first..=end - 1))
    }

    /// [`Dictionary::code_range`] for an int column.
    pub fn code_range_int(&self, lo: i64, hi: i64) -> Result<Option<RangeInclusive<u32>>> {
        self.code_range(Value::Int(lo), Value::Int(hi))
    }

    /// [`Dictionary::code_range`] for a string column (byte-wise order).
    pub fn code_range_str(&self, lo: &str, hi: &str) -> Result<Option<RangeInclusive<u32>>> {
        self.code_range(Value::Str(lo), Value::Str(hi))
    }

    /// The value id of `v`, if the dictionary holds it.
    pub fn code_of(&self, v: Value<'_>) -> Result<Option<u32>> {
        Ok(self.code_range(v, v)?.map(|r| *r.start()))
    }

    /// Scans every string (e.g. for LIKE) and returns the ids of those matching `pred`.
    /// Counts `len()` scan accesses.
    pub fn scan_strs(&self, mut pred: impl FnMut(&str) -> bool) -> Result<Vec<u32>> {
        if self.ty != ColumnType::Str {
            return Err(Error::Schema("scan_strs on an int dictionary".into()));
        }
        if self.counting() {
            self.s.counters.add_scan(self.len as u64);
            self.s.record_bytes(0, self.s.header.payload_len);
        }
        Ok((0..self.len as u32)
            .filter(|&c| pred(self.str_uncounted(c)))
            .collect())
    }

    /// Where it lives.
    pub fn info(&self) -> &crate::structure::StructureInfo {
        &self.s.info
    }
}

#[inline]
fn slice_at<'b>(offs: &[u64], bytes: &'b [u8], code: usize) -> &'b [u8] {
    &bytes[offs[code] as usize..offs[code + 1] as usize]
}

#[cfg(test)]
mod tests {
    use crate::schema::{ColumnType, Schema, Value};
    use crate::{Placement, Table, TableBuilder, WriteOptions};

    fn table(dir: &std::path::Path) -> Table {
        let schema = Schema::new([("i", ColumnType::Int), ("s", ColumnType::Str)]).unwrap();
        let mut b = TableBuilder::new(schema);
        for (i, s) in [
            (30, "pear"),
            (10, "apple"),
            (20, "fig"),
            (10, "kiwi"),
            (-5, "apple"),
        ] {
            b.push_row(&[Value::Int(i), Value::Str(s)]).unwrap();
        }
        b.finish(dir, &WriteOptions::default()).unwrap();
        Table::open(dir, &Placement::home()).unwrap()
    }

    #[test]
    fn code_ranges_are_order_preserving() {
        let dir = tempfile::tempdir().unwrap();
        let t = table(dir.path());
        let d = &t.column("i").unwrap().dict;
        assert_eq!(d.ints(), super::IntValues::Sorted(&[-5, 10, 20, 30]));
        assert_eq!(d.code_range_int(10, 20).unwrap(), Some(1..=2));
        assert_eq!(d.code_range_int(11, 29).unwrap(), Some(2..=2));
        assert_eq!(d.code_range_int(11, 19).unwrap(), None);
        assert_eq!(d.code_range_int(i64::MIN, i64::MAX).unwrap(), Some(0..=3));
        assert_eq!(d.code_range_int(31, 40).unwrap(), None);
        assert_eq!(d.code_range_int(20, 10).unwrap(), None);
        assert_eq!(d.code_of(Value::Int(30)).unwrap(), Some(3));
        assert!(d.code_range_str("a", "b").is_err());
        let s = &t.column("s").unwrap().dict;
        assert_eq!(s.get(0), Value::Str("apple"));
        assert_eq!(s.code_range_str("b", "kiwi").unwrap(), Some(1..=2));
        assert_eq!(s.code_range_str("apple", "apple").unwrap(), Some(0..=0));
        assert_eq!(s.code_range_str("l", "z").unwrap(), Some(3..=3));
        assert_eq!(s.code_range_str("q", "z").unwrap(), None);
        assert_eq!(s.scan_strs(|x| x.contains('i')).unwrap(), vec![1, 2]);
    }
}
