//! The `customer` dimension: `CustomerGenerator` → [`Customer`] rows.

use std::fmt;
use std::iter::FusedIterator;

use crate::contact::{self, PHONE_DRAWS};
use crate::dists::{NATIONS, REGIONS, SEGMENTS};
use crate::part::SHARED_DRAWS_PER_PART;
use crate::partition::partition_range;
use crate::rng::{seed, Stream};
use crate::scale::Scale;
use crate::text::{display_via, push_u64, push_u64_padded, InlineStr};
use crate::Result;

/// Draws of the address stream per row (dbgen's `C_ADDR_SD` boundary).
const ADDRESS_DRAWS: u64 = 9;

/// One row of the `customer` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Customer {
    /// `c_custkey`.
    pub custkey: u32,
    /// `c_address`.
    pub address: InlineStr<25>,
    /// `c_city`: the nation cut or padded to 9 characters, then a digit.
    pub city: InlineStr<10>,
    /// Index of `c_nation` in dbgen's nation list (0..25).
    pub nation_key: u8,
    /// `c_nation`.
    pub nation: &'static str,
    /// Index of `c_region` in dbgen's region list (0..5).
    pub region_key: u8,
    /// `c_region`.
    pub region: &'static str,
    /// `c_phone`.
    pub phone: InlineStr<15>,
    /// `c_mktsegment`.
    pub mktsegment: &'static str,
}

impl Customer {
    /// `c_name`, "Customer#" and the key in 9 digits.
    pub fn name(&self) -> InlineStr<18> {
        let mut s = InlineStr::new();
        s.push_bytes(b"Customer#");
        s.push_padded(u64::from(self.custkey), 9);
        s
    }

    /// Appends the `.tbl` line, newline included.
    pub fn write_tbl(&self, out: &mut Vec<u8>) {
        push_u64(out, u64::from(self.custkey));
        out.extend_from_slice(b"|Customer#");
        push_u64_padded(out, u64::from(self.custkey), 9);
        out.push(b'|');
        for s in [
            self.address.as_bytes(),
            self.city.as_bytes(),
            self.nation.as_bytes(),
            self.region.as_bytes(),
            self.phone.as_bytes(),
            self.mktsegment.as_bytes(),
        ] {
            out.extend_from_slice(s);
            out.push(b'|');
        }
        out.push(b'\n');
    }
}

impl fmt::Display for Customer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        display_via(f, |b| self.write_tbl(b))
    }
}

/// Generates the `customer` table, or one partition of it.
#[derive(Debug, Clone)]
pub struct CustomerGenerator {
    start: u64,
    end: u64,
    /// Draws of stream 0 made by the part and supplier tables before this one.
    shared_before: u64,
    /// Draws of the phone stream made by the supplier table before this one.
    phone_before: u64,
}

impl CustomerGenerator {
    /// Partition `part` (1-based) of `part_count` of the customer table at scale factor `sf`.
    pub fn new(sf: f64, part: usize, part_count: usize) -> Result<Self> {
        Self::with_scale(&Scale::new(sf)?, part, part_count)
    }

    pub(crate) fn with_scale(scale: &Scale, part: usize, part_count: usize) -> Result<Self> {
        let (start, end) = partition_range(scale.customer_rows(), part, part_count)?;
        Ok(Self {
            start,
            end,
            shared_before: SHARED_DRAWS_PER_PART * scale.part_rows() + scale.supplier_rows(),
            phone_before: PHONE_DRAWS * scale.supplier_rows(),
        })
    }

    /// The rows of this partition.
    pub fn iter(&self) -> CustomerIter {
        let before = self.start - 1;
        CustomerIter {
            next: self.start,
            end: self.end,
            address: Stream::new(seed::C_ADDR, ADDRESS_DRAWS * before),
            nation: Stream::new(seed::C_NTRG, before),
            shared: Stream::new(seed::SHARED_0, self.shared_before + before),
            phone: Stream::new(seed::C_PHNE, self.phone_before + PHONE_DRAWS * before),
            segment: Stream::new(seed::C_MSEG, before),
        }
    }
}

impl IntoIterator for &CustomerGenerator {
    type Item = Customer;
    type IntoIter = CustomerIter;
    fn into_iter(self) -> CustomerIter {
        self.iter()
    }
}

impl IntoIterator for CustomerGenerator {
    type Item = Customer;
    type IntoIter = CustomerIter;
    fn into_iter(self) -> CustomerIter {
        self.iter()
    }
}

/// Iterator over [`Customer`] rows.
#[derive(Debug, Clone)]
pub struct CustomerIter {
    next: u64,
    end: u64,
    address: Stream,
    nation: Stream,
    shared: Stream,
    phone: Stream,
    segment: Stream,
}

impl Iterator for CustomerIter {
    type Item = Customer;

    #[inline]
    fn next(&mut self) -> Option<Customer> {
        if self.next >= self.end {
            return None;
        }
        let custkey = self.next as u32;
        self.next += 1;
        let address = contact::address(&mut self.address);
        let nation_key = contact::nation(&mut self.nation);
        let (nation, region_key) = NATIONS[usize::from(nation_key)];
        Some(Customer {
            custkey,
            address,
            city: contact::city(nation_key, &mut self.shared),
            nation_key,
            nation,
            region_key,
            region: REGIONS[usize::from(region_key)],
            phone: contact::phone(nation_key, &mut self.phone),
            mktsegment: SEGMENTS[self.segment.uniform(1, SEGMENTS.len() as i64) as usize - 1],
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.end - self.next) as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for CustomerIter {}
impl FusedIterator for CustomerIter {}
