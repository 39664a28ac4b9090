//! The `part` dimension: `PartGenerator` → [`Part`] rows.

use std::fmt;
use std::iter::FusedIterator;

use crate::dists::{COLORS, CONTAINERS, PART_TYPES};
use crate::partition::partition_range;
use crate::rng::{seed, Stream};
use crate::scale::Scale;
use crate::text::{display_via, push_u64, InlineStr};
use crate::Result;

/// Draws of the name stream per part: a full shuffle of the 92 colours.
const NAME_DRAWS: u64 = COLORS.len() as u64;
/// Draws of the shared stream 0 per part: manufacturer and category.
pub(crate) const SHARED_DRAWS_PER_PART: u64 = 2;

/// One row of the `part` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part {
    /// `p_partkey`.
    pub partkey: u32,
    /// `p_name`: two colours, printed joined by a space.
    pub name: [&'static str; 2],
    /// Manufacturer number 1..=5: `p_mfgr` is "MFGR#" followed by it.
    pub mfgr: u8,
    /// Category digit 1..=5: `p_category` is `p_mfgr` followed by it.
    pub category: u8,
    /// Brand number 1..=40: `p_brand1` is `p_category` followed by it (no padding).
    pub brand: u8,
    /// `p_color`.
    pub color: &'static str,
    /// `p_type`.
    pub part_type: &'static str,
    /// `p_size`, 1..=50.
    pub size: u8,
    /// `p_container`.
    pub container: &'static str,
}

impl Part {
    /// `p_name`, e.g. "lace spring".
    pub fn name_text(&self) -> InlineStr<22> {
        let mut s = InlineStr::new();
        s.push_bytes(self.name[0].as_bytes());
        s.push(b' ');
        s.push_bytes(self.name[1].as_bytes());
        s
    }

    /// `p_mfgr`, e.g. "MFGR#1".
    pub fn mfgr_text(&self) -> InlineStr<6> {
        let mut s = InlineStr::new();
        s.push_bytes(b"MFGR#");
        s.push(b'0' + self.mfgr);
        s
    }

    /// `p_category`, e.g. "MFGR#12".
    pub fn category_text(&self) -> InlineStr<7> {
        let mut s = InlineStr::new();
        s.push_bytes(self.mfgr_text().as_bytes());
        s.push(b'0' + self.category);
        s
    }

    /// `p_brand1`, e.g. "MFGR#1221".
    pub fn brand_text(&self) -> InlineStr<9> {
        let mut s = InlineStr::new();
        s.push_bytes(self.category_text().as_bytes());
        if self.brand >= 10 {
            s.push(b'0' + self.brand / 10);
        }
        s.push(b'0' + self.brand % 10);
        s
    }

    /// Appends the `.tbl` line, newline included.
    pub fn write_tbl(&self, out: &mut Vec<u8>) {
        push_u64(out, u64::from(self.partkey));
        out.push(b'|');
        out.extend_from_slice(self.name[0].as_bytes());
        out.push(b' ');
        out.extend_from_slice(self.name[1].as_bytes());
        out.push(b'|');
        out.extend_from_slice(b"MFGR#");
        out.push(b'0' + self.mfgr);
        out.extend_from_slice(b"|MFGR#");
        out.push(b'0' + self.mfgr);
        out.push(b'0' + self.category);
        out.extend_from_slice(b"|MFGR#");
        out.push(b'0' + self.mfgr);
        out.push(b'0' + self.category);
        push_u64(out, u64::from(self.brand));
        out.push(b'|');
        for s in [self.color, self.part_type] {
            out.extend_from_slice(s.as_bytes());
            out.push(b'|');
        }
        push_u64(out, u64::from(self.size));
        out.push(b'|');
        out.extend_from_slice(self.container.as_bytes());
        out.extend_from_slice(b"|\n");
    }
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        display_via(f, |b| self.write_tbl(b))
    }
}

/// Generates the `part` table, or one partition of it.
#[derive(Debug, Clone)]
pub struct PartGenerator {
    start: u64,
    end: u64,
}

impl PartGenerator {
    /// Partition `part` (1-based) of `part_count` of the part table at scale factor `sf`.
    pub fn new(sf: f64, part: usize, part_count: usize) -> Result<Self> {
        Self::with_scale(&Scale::new(sf)?, part, part_count)
    }

    pub(crate) fn with_scale(scale: &Scale, part: usize, part_count: usize) -> Result<Self> {
        let (start, end) = partition_range(scale.part_rows(), part, part_count)?;
        Ok(Self { start, end })
    }

    /// The rows of this partition.
    pub fn iter(&self) -> PartIter {
        let before = self.start - 1;
        PartIter {
            next: self.start,
            end: self.end,
            shared: Stream::new(seed::SHARED_0, SHARED_DRAWS_PER_PART * before),
            name: Stream::new(seed::P_NAME, NAME_DRAWS * before),
            brand: Stream::new(seed::P_BRND, before),
            part_type: Stream::new(seed::P_TYPE, before),
            size: Stream::new(seed::P_SIZE, before),
            container: Stream::new(seed::P_CNTR, before),
        }
    }
}

impl IntoIterator for &PartGenerator {
    type Item = Part;
    type IntoIter = PartIter;
    fn into_iter(self) -> PartIter {
        self.iter()
    }
}

impl IntoIterator for PartGenerator {
    type Item = Part;
    type IntoIter = PartIter;
    fn into_iter(self) -> PartIter {
        self.iter()
    }
}

/// Iterator over [`Part`] rows.
#[derive(Debug, Clone)]
pub struct PartIter {
    next: u64,
    end: u64,
    shared: Stream,
    name: Stream,
    brand: Stream,
    part_type: Stream,
    size: Stream,
    container: Stream,
}

impl PartIter {
    fn make(&mut self, partkey: u64) -> Part {
        // dbgen's permute(): shuffle the identity over all 92 colours (one draw per
        // position), then take the first three. The first is the colour, the other two
        // the name.
        let mut perm: [u8; COLORS.len()] = std::array::from_fn(|i| i as u8);
        for i in 0..perm.len() {
            let j = self.name.uniform(0, COLORS.len() as i64 - 1) as usize;
            perm.swap(i, j);
        }
        let mfgr = self.shared.uniform(1, 5) as u8;
        let category = self.shared.uniform(1, 5) as u8;
        let brand = self.brand.uniform(1, 40) as u8;
        let part_type = PART_TYPES[self.part_type.uniform(1, PART_TYPES.len() as i64) as usize - 1];
        let size = self.size.uniform(1, 50) as u8;
        let container = CONTAINERS[self.container.uniform(1, CONTAINERS.len() as i64) as usize - 1];
        Part {
            partkey: partkey as u32,
            name: [COLORS[perm[1] as usize], COLORS[perm[2] as usize]],
            mfgr,
            category,
            brand,
            color: COLORS[perm[0] as usize],
            part_type,
            size,
            container,
        }
    }
}

impl Iterator for PartIter {
    type Item = Part;

    #[inline]
    fn next(&mut self) -> Option<Part> {
        if self.next >= self.end {
            return None;
        }
        let row = self.make(self.next);
        self.next += 1;
        Some(row)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.end - self.next) as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for PartIter {}
impl FusedIterator for PartIter {}
