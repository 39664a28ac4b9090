//! Scale factor handling: how many rows each table gets and the key ranges the fact
//! table draws from, computed with dbgen's own (partly floating-point) arithmetic.

use crate::{Error, Result};

/// dbgen's base row counts at SF 1 (`tdefs[]` in `driver.c`).
const PART_BASE: u64 = 200_000;
const SUPPLIER_BASE: u64 = 2_000;
const CUSTOMER_BASE: u64 = 30_000;
const DATE_BASE: u64 = 2_556;
/// 150,000 × `ORDERS_PER_CUST` (10): orders, not lineorder rows.
const ORDER_BASE: u64 = 1_500_000;

/// From SF 1000 on, dbgen (built without 64-bit support, as on Linux) switches its order
/// keys to a BCD code path whose output this generator does not reproduce.
pub const MAX_SCALE_FACTOR: f64 = 1000.0;

/// A validated scale factor with everything derived from it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    sf: f64,
    /// dbgen's integer `scale`: 1 below SF 1, else the SF truncated.
    scale: u64,
    part_base: u64,
    supplier_base: u64,
    customer_base: u64,
    date_base: u64,
    order_base: u64,
}

/// `(long)(base * sf)`, at least 1: dbgen's scaling of a base count below SF 1.
fn scaled_base(base: u64, sf: f64) -> u64 {
    ((base as f64 * sf) as u64).max(1)
}

impl Scale {
    /// Validates `sf` (finite, > 0, < [`MAX_SCALE_FACTOR`]).
    pub fn new(sf: f64) -> Result<Self> {
        if !sf.is_finite() || sf <= 0.0 {
            return Err(Error::InvalidScaleFactor(sf));
        }
        if sf >= MAX_SCALE_FACTOR {
            return Err(Error::UnsupportedScaleFactor(sf));
        }
        Ok(if sf < 1.0 {
            Self {
                sf,
                scale: 1,
                part_base: scaled_base(PART_BASE, sf),
                supplier_base: scaled_base(SUPPLIER_BASE, sf),
                customer_base: scaled_base(CUSTOMER_BASE, sf),
                date_base: scaled_base(DATE_BASE, sf),
                order_base: scaled_base(ORDER_BASE, sf),
            }
        } else {
            Self {
                sf,
                scale: sf as u64,
                part_base: PART_BASE,
                supplier_base: SUPPLIER_BASE,
                customer_base: CUSTOMER_BASE,
                date_base: DATE_BASE,
                order_base: ORDER_BASE,
            }
        })
    }

    /// The scale factor as given.
    pub fn sf(&self) -> f64 {
        self.sf
    }

    /// Part rows: base × ⌊1 + log2(scale)⌋.
    pub fn part_rows(&self) -> u64 {
        let s = self.scale as f64;
        (self.part_base as f64 * (1.0 + s.ln() / 2f64.ln()).floor()) as u64
    }

    /// Supplier rows.
    pub fn supplier_rows(&self) -> u64 {
        self.supplier_base * self.scale
    }

    /// Customer rows.
    pub fn customer_rows(&self) -> u64 {
        self.customer_base * self.scale
    }

    /// Date rows: 2556 from SF 1 on, scaled (and truncated) below.
    pub fn date_rows(&self) -> u64 {
        self.date_base
    }

    /// Orders (each one has 1 to 7 lineorder rows).
    pub fn orders(&self) -> u64 {
        self.order_base * self.scale
    }

    /// Largest part key a lineorder row draws: base × (⌊ln scale⌋ + 1) — natural log,
    /// unlike the part table's log2, so above SF 1 some parts are never ordered.
    pub fn max_partkey(&self) -> u64 {
        let s = self.scale as f64;
        (self.part_base as f64 * (s.ln().floor() + 1.0)) as u64
    }

    /// Largest supplier key a lineorder row draws.
    pub fn max_suppkey(&self) -> u64 {
        self.supplier_base * self.scale
    }

    /// Largest customer key a lineorder row draws.
    pub fn max_custkey(&self) -> u64 {
        self.customer_base * self.scale
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() {
        let s = Scale::new(0.01).unwrap();
        assert_eq!(
            (
                s.part_rows(),
                s.supplier_rows(),
                s.customer_rows(),
                s.date_rows(),
                s.orders()
            ),
            (2000, 20, 300, 25, 15_000)
        );
        let s = Scale::new(1.0).unwrap();
        assert_eq!(
            (s.part_rows(), s.max_partkey(), s.date_rows()),
            (200_000, 200_000, 2556)
        );
        let s = Scale::new(10.0).unwrap();
        assert_eq!((s.part_rows(), s.max_partkey()), (800_000, 600_000));
        let s = Scale::new(100.0).unwrap();
        assert_eq!((s.part_rows(), s.max_partkey()), (1_400_000, 1_000_000));
        assert!(Scale::new(0.0).is_err());
        assert!(Scale::new(f64::NAN).is_err());
        assert!(Scale::new(1000.0).is_err());
    }
}
