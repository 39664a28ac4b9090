//! The `supplier` dimension: `SupplierGenerator` → [`Supplier`] rows.

use std::fmt;
use std::iter::FusedIterator;

use crate::contact::{self, PHONE_DRAWS};
use crate::dists::{NATIONS, REGIONS};
use crate::part::SHARED_DRAWS_PER_PART;
use crate::partition::partition_range;
use crate::rng::{seed, Stream};
use crate::scale::Scale;
use crate::text::{display_via, push_u64, push_u64_padded, InlineStr};
use crate::Result;

/// Draws of the address stream per row (dbgen's `S_ADDR_SD` boundary).
const ADDRESS_DRAWS: u64 = 9;

/// One row of the `supplier` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Supplier {
    /// `s_suppkey`.
    pub suppkey: u32,
    /// `s_address`.
    pub address: InlineStr<25>,
    /// `s_city`: the nation cut or padded to 9 characters, then a digit.
    pub city: InlineStr<10>,
    /// Index of `s_nation` in dbgen's nation list (0..25).
    pub nation_key: u8,
    /// `s_nation`.
    pub nation: &'static str,
    /// Index of `s_region` in dbgen's region list (0..5).
    pub region_key: u8,
    /// `s_region`.
    pub region: &'static str,
    /// `s_phone`.
    pub phone: InlineStr<15>,
}

impl Supplier {
    /// `s_name`, "Supplier#" and the key in 9 digits.
    pub fn name(&self) -> InlineStr<18> {
        let mut s = InlineStr::new();
        s.push_bytes(b"Supplier#");
        s.push_padded(u64::from(self.suppkey), 9);
        s
    }

    /// Appends the `.tbl` line, newline included.
    pub fn write_tbl(&self, out: &mut Vec<u8>) {
        push_u64(out, u64::from(self.suppkey));
        out.extend_from_slice(b"|Supplier#");
        push_u64_padded(out, u64::from(self.suppkey), 9);
        out.push(b'|');
        for s in [
            self.address.as_bytes(),
            self.city.as_bytes(),
            self.nation.as_bytes(),
            self.region.as_bytes(),
            self.phone.as_bytes(),
        ] {
            out.extend_from_slice(s);
            out.push(b'|');
        }
        out.push(b'\n');
    }
}

impl fmt::Display for Supplier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        display_via(f, |b| self.write_tbl(b))
    }
}

/// Generates the `supplier` table, or one partition of it.
#[derive(Debug, Clone)]
pub struct SupplierGenerator {
    start: u64,
    end: u64,
    /// Draws of stream 0 made by the part table before this one.
    shared_before: u64,
}

impl SupplierGenerator {
    /// Partition `part` (1-based) of `part_count` of the supplier table at scale factor `sf`.
    pub fn new(sf: f64, part: usize, part_count: usize) -> Result<Self> {
        Self::with_scale(&Scale::new(sf)?, part, part_count)
    }

    pub(crate) fn with_scale(scale: &Scale, part: usize, part_count: usize) -> Result<Self> {
        let (start, end) = partition_range(scale.supplier_rows(), part, part_count)?;
        Ok(Self {
            start,
            end,
            shared_before: SHARED_DRAWS_PER_PART * scale.part_rows(),
        })
    }

    /// The rows of this partition.
    pub fn iter(&self) -> SupplierIter {
        let before = self.start - 1;
        SupplierIter {
            next: self.start,
            end: self.end,
            address: Stream::new(seed::S_ADDR, ADDRESS_DRAWS * before),
            nation: Stream::new(seed::S_NTRG, before),
            shared: Stream::new(seed::SHARED_0, self.shared_before + before),
            // dbgen's mk_supp draws the phone from the *customer* phone stream.
            phone: Stream::new(seed::C_PHNE, PHONE_DRAWS * before),
        }
    }
}

impl IntoIterator for &SupplierGenerator {
    type Item = Supplier;
    type IntoIter = SupplierIter;
    fn into_iter(self) -> SupplierIter {
        self.iter()
    }
}

impl IntoIterator for SupplierGenerator {
    type Item = Supplier;
    type IntoIter = SupplierIter;
    fn into_iter(self) -> SupplierIter {
        self.iter()
    }
}

/// Iterator over [`Supplier`] rows.
#[derive(Debug, Clone)]
pub struct SupplierIter {
    next: u64,
    end: u64,
    address: Stream,
    nation: Stream,
    shared: Stream,
    phone: Stream,
}

impl Iterator for SupplierIter {
    type Item = Supplier;

    #[inline]
    fn next(&mut self) -> Option<Supplier> {
        if self.next >= self.end {
            return None;
        }
        let suppkey = self.next as u32;
        self.next += 1;
        let address = contact::address(&mut self.address);
        let nation_key = contact::nation(&mut self.nation);
        let (nation, region_key) = NATIONS[usize::from(nation_key)];
        Some(Supplier {
            suppkey,
            address,
            city: contact::city(nation_key, &mut self.shared),
            nation_key,
            nation,
            region_key,
            region: REGIONS[usize::from(region_key)],
            phone: contact::phone(nation_key, &mut self.phone),
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.end - self.next) as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for SupplierIter {}
impl FusedIterator for SupplierIter {}
