//! The `lineorder` fact table: `LineOrderGenerator` → [`LineOrder`] rows. Rows come in
//! orders of 1 to 7 lines; partitions split the table by orders.

use std::fmt;
use std::iter::FusedIterator;

use crate::date::CALENDAR;
use crate::dists::{PRIORITIES, SHIP_MODES};
use crate::partition::partition_range;
use crate::rng::{seed, small_skips, Stream};
use crate::scale::Scale;
use crate::text::{display_via, push_date, push_u64};
use crate::Result;

/// Most lines in one order (`O_LCNT_MAX`); every line stream advances this far per order.
const MAX_LINES: usize = 7;
/// Order dates are drawn as day offsets `0..=ORDER_DATE_SPAN` from 1992-01-01: the whole
/// calendar less 121 + 30 days of ship and receipt room, less one.
const ORDER_DATE_SPAN: i64 = 2557 - (121 + 30) - 1;
/// Commit date: order date plus 30..=90 days.
const COMMIT_MIN: i64 = 30;
const COMMIT_MAX: i64 = 90;
/// Every customer key divisible by this is moved to a neighbour (`CUST_MORTALITY`).
const CUSTOMER_MORTALITY: u64 = 3;

const LINE_SKIPS: [u64; MAX_LINES + 1] = small_skips();

/// Order priorities as dbgen prints them in lineorder: its 11-byte buffer cuts
/// "4-NOT SPECIFIED" to "4-NOT SPECI" (the overflowing bytes land in the ship priority,
/// which is then set to 0, ending the string).
const PRINTED_PRIORITIES: [&str; PRIORITIES.len()] = {
    let mut p = PRIORITIES;
    p[3] = "4-NOT SPECI";
    p
};

/// One row of the `lineorder` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineOrder {
    /// `lo_orderkey` (sparse: dbgen leaves gaps, see [`order_key`]).
    pub orderkey: u64,
    /// `lo_linenumber`, 1..=7.
    pub linenumber: u8,
    /// `lo_custkey`.
    pub custkey: u32,
    /// `lo_partkey`.
    pub partkey: u32,
    /// `lo_suppkey`.
    pub suppkey: u32,
    /// `lo_orderdate`, yyyymmdd.
    pub orderdate: u32,
    /// `lo_orderpriority` as dbgen prints it ("4-NOT SPECIFIED" is cut to "4-NOT SPECI").
    pub orderpriority: &'static str,
    /// `lo_shippriority` (always 0).
    pub shippriority: u8,
    /// `lo_quantity`, 1..=50.
    pub quantity: u8,
    /// `lo_extendedprice` (cents): retail price × quantity.
    pub extendedprice: u32,
    /// `lo_ordtotalprice` (cents): the order's total with discount and tax.
    pub ordtotalprice: u32,
    /// `lo_discount`, percent 0..=10.
    pub discount: u8,
    /// `lo_revenue` (cents): extended price × (100 − discount) / 100.
    pub revenue: u32,
    /// `lo_supplycost` (cents): 6 × retail price / 10.
    pub supplycost: u32,
    /// `lo_tax`, percent 0..=8.
    pub tax: u8,
    /// `lo_commitdate`, yyyymmdd.
    pub commitdate: u32,
    /// `lo_shipmode`.
    pub shipmode: &'static str,
}

impl LineOrder {
    /// Appends the `.tbl` line, newline included.
    #[inline]
    pub fn write_tbl(&self, out: &mut Vec<u8>) {
        push_u64(out, self.orderkey);
        out.push(b'|');
        push_u64(out, u64::from(self.linenumber));
        out.push(b'|');
        push_u64(out, u64::from(self.custkey));
        out.push(b'|');
        push_u64(out, u64::from(self.partkey));
        out.push(b'|');
        push_u64(out, u64::from(self.suppkey));
        out.push(b'|');
        push_date(out, self.orderdate);
        out.push(b'|');
        out.extend_from_slice(self.orderpriority.as_bytes());
        out.push(b'|');
        push_u64(out, u64::from(self.shippriority));
        out.push(b'|');
        push_u64(out, u64::from(self.quantity));
        out.push(b'|');
        push_u64(out, u64::from(self.extendedprice));
        out.push(b'|');
        push_u64(out, u64::from(self.ordtotalprice));
        out.push(b'|');
        push_u64(out, u64::from(self.discount));
        out.push(b'|');
        push_u64(out, u64::from(self.revenue));
        out.push(b'|');
        push_u64(out, u64::from(self.supplycost));
        out.push(b'|');
        push_u64(out, u64::from(self.tax));
        out.push(b'|');
        push_date(out, self.commitdate);
        out.push(b'|');
        out.extend_from_slice(self.shipmode.as_bytes());
        out.extend_from_slice(b"|\n");
    }
}

impl fmt::Display for LineOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        display_via(f, |b| self.write_tbl(b))
    }
}

/// dbgen's sparse order key for order number `index` (1-based): the low 3 bits are kept
/// and two zero bits are inserted above them, so only 8 of every 32 keys are used.
pub fn order_key(index: u64) -> u64 {
    ((index >> 3) << 5) | (index & 7)
}

/// A part's retail price in cents (dbgen's `rpb_routine`).
pub fn retail_price(partkey: u64) -> u64 {
    90_000 + (partkey / 10) % 20_001 + (partkey % 1000) * 100
}

/// The streams drawn once per order. dbgen files them under its ORDER table, which shares
/// its number with the SSB date table, so each date row advances them by one first.
#[derive(Debug, Clone)]
struct OrderStreams {
    date: Stream,
    customer: Stream,
    priority: Stream,
    lines: Stream,
}

impl OrderStreams {
    fn new(date_rows: u64, before: u64) -> Self {
        let skip = date_rows + before;
        Self {
            date: Stream::new(seed::O_ODATE, skip),
            customer: Stream::new(seed::O_CKEY, skip),
            priority: Stream::new(seed::O_PRIO, skip),
            lines: Stream::new(seed::O_LCNT, skip),
        }
    }
}

/// The streams drawn once per line, each advanced by exactly 7 draws per order.
#[derive(Debug, Clone)]
struct LineStreams {
    partkey: Stream,
    suppkey: Stream,
    quantity: Stream,
    discount: Stream,
    tax: Stream,
    commit: Stream,
    shipmode: Stream,
}

impl LineStreams {
    fn new(before: u64) -> Self {
        let skip = MAX_LINES as u64 * before;
        Self {
            partkey: Stream::new(seed::L_PKEY, skip),
            suppkey: Stream::new(seed::L_SKEY, skip),
            quantity: Stream::new(seed::L_QTY, skip),
            discount: Stream::new(seed::L_DCNT, skip),
            tax: Stream::new(seed::L_TAX, skip),
            commit: Stream::new(seed::L_CDTE, skip),
            shipmode: Stream::new(seed::L_SMODE, skip),
        }
    }

    /// Moves every stream past the unused draws of an order with `lines` lines.
    fn finish_order(&mut self, lines: usize) {
        let m = LINE_SKIPS[MAX_LINES - lines];
        for s in [
            &mut self.partkey,
            &mut self.suppkey,
            &mut self.quantity,
            &mut self.discount,
            &mut self.tax,
            &mut self.commit,
            &mut self.shipmode,
        ] {
            s.skip_by_multiplier(m);
        }
    }
}

/// Generates the `lineorder` table, or one partition of it (a range of orders).
#[derive(Debug, Clone)]
pub struct LineOrderGenerator {
    start: u64,
    end: u64,
    date_rows: u64,
    max_custkey: u64,
    max_partkey: u64,
    max_suppkey: u64,
}

impl LineOrderGenerator {
    /// Partition `part` (1-based) of `part_count` of the lineorder table at scale factor
    /// `sf`. Partitions hold equal numbers of orders (±1), not of rows.
    pub fn new(sf: f64, part: usize, part_count: usize) -> Result<Self> {
        Self::with_scale(&Scale::new(sf)?, part, part_count)
    }

    pub(crate) fn with_scale(scale: &Scale, part: usize, part_count: usize) -> Result<Self> {
        let (start, end) = partition_range(scale.orders(), part, part_count)?;
        Ok(Self {
            start,
            end,
            date_rows: scale.date_rows(),
            max_custkey: scale.max_custkey(),
            max_partkey: scale.max_partkey(),
            max_suppkey: scale.max_suppkey(),
        })
    }

    /// Number of lineorder rows in this partition (draws only the line-count stream).
    pub fn row_count(&self) -> u64 {
        let mut streams = OrderStreams::new(self.date_rows, self.start - 1);
        (self.start..self.end)
            .map(|_| streams.lines.uniform(1, MAX_LINES as i64) as u64)
            .sum()
    }

    /// The rows of this partition.
    pub fn iter(&self) -> LineOrderIter {
        let before = self.start - 1;
        LineOrderIter {
            next_order: self.start,
            end_order: self.end,
            max_custkey: self.max_custkey as i64,
            max_partkey: self.max_partkey as i64,
            max_suppkey: self.max_suppkey as i64,
            order: OrderStreams::new(self.date_rows, before),
            line: LineStreams::new(before),
            lines: [None; MAX_LINES],
            len: 0,
            pos: 0,
        }
    }
}

impl IntoIterator for &LineOrderGenerator {
    type Item = LineOrder;
    type IntoIter = LineOrderIter;
    fn into_iter(self) -> LineOrderIter {
        self.iter()
    }
}

impl IntoIterator for LineOrderGenerator {
    type Item = LineOrder;
    type IntoIter = LineOrderIter;
    fn into_iter(self) -> LineOrderIter {
        self.iter()
    }
}

/// Iterator over [`LineOrder`] rows.
#[derive(Debug, Clone)]
pub struct LineOrderIter {
    next_order: u64,
    end_order: u64,
    max_custkey: i64,
    max_partkey: i64,
    max_suppkey: i64,
    order: OrderStreams,
    line: LineStreams,
    /// The lines of the current order, `pos..len` not yet returned.
    lines: [Option<LineOrder>; MAX_LINES],
    len: usize,
    pos: usize,
}

impl LineOrderIter {
    /// Generates order number `index` into `self.lines`.
    fn make_order(&mut self, index: u64) {
        let o = &mut self.order;
        let day = o.date.uniform(0, ORDER_DATE_SPAN) as usize;
        let orderdate = CALENDAR[day];
        let orderkey = order_key(index);
        let max_custkey = self.max_custkey;
        let mut custkey = o.customer.uniform(1, max_custkey);
        // dbgen moves keys divisible by 3 to key + 1 (or, at the top key, key − 1).
        let mut delta = 1;
        while (custkey as u64).is_multiple_of(CUSTOMER_MORTALITY) {
            custkey = (custkey + delta).min(max_custkey);
            delta = -delta;
        }
        let orderpriority =
            PRINTED_PRIORITIES[o.priority.uniform(1, PRIORITIES.len() as i64) as usize - 1];
        let lines = o.lines.uniform(1, MAX_LINES as i64) as usize;

        let l = &mut self.line;
        let mut total = 0u64;
        for (n, slot) in self.lines[..lines].iter_mut().enumerate() {
            let partkey = l.partkey.uniform(1, self.max_partkey) as u64;
            let suppkey = l.suppkey.uniform(1, self.max_suppkey) as u32;
            let quantity = l.quantity.uniform(1, 50) as u64;
            let discount = l.discount.uniform(0, 10) as u64;
            let tax = l.tax.uniform(0, 8) as u64;
            let commit = day + l.commit.uniform(COMMIT_MIN, COMMIT_MAX) as usize;
            let shipmode = SHIP_MODES[l.shipmode.uniform(1, SHIP_MODES.len() as i64) as usize - 1];
            let price = retail_price(partkey);
            let extended = price * quantity;
            let revenue = extended * (100 - discount) / 100;
            total += revenue * (100 + tax) / 100;
            *slot = Some(LineOrder {
                orderkey,
                linenumber: n as u8 + 1,
                custkey: custkey as u32,
                partkey: partkey as u32,
                suppkey,
                orderdate,
                orderpriority,
                shippriority: 0,
                quantity: quantity as u8,
                extendedprice: extended as u32,
                ordtotalprice: 0,
                discount: discount as u8,
                revenue: revenue as u32,
                supplycost: (6 * price / 10) as u32,
                tax: tax as u8,
                commitdate: CALENDAR[commit],
                shipmode,
            });
        }
        l.finish_order(lines);
        for row in self.lines[..lines].iter_mut().flatten() {
            row.ordtotalprice = total as u32;
        }
        self.len = lines;
        self.pos = 0;
    }
}

impl Iterator for LineOrderIter {
    type Item = LineOrder;

    #[inline]
    fn next(&mut self) -> Option<LineOrder> {
        if self.pos == self.len {
            if self.next_order >= self.end_order {
                return None;
            }
            let index = self.next_order;
            self.next_order += 1;
            self.make_order(index);
        }
        let row = self.lines[self.pos];
        self.pos += 1;
        row
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let buffered = self.len - self.pos;
        let orders = (self.end_order - self.next_order) as usize;
        (
            buffered + orders,
            orders
                .checked_mul(MAX_LINES)
                .and_then(|n| n.checked_add(buffered)),
        )
    }
}

impl FusedIterator for LineOrderIter {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncated_priority() {
        assert_eq!(PRIORITIES[3], "4-NOT SPECIFIED");
        assert_eq!(PRINTED_PRIORITIES[3], "4-NOT SPECI");
    }

    #[test]
    fn sparse_keys() {
        let keys: Vec<u64> = (1..=10).map(order_key).collect();
        assert_eq!(keys, [1, 2, 3, 4, 5, 6, 7, 32, 33, 34]);
    }
}
