//! Star Schema Benchmark (SSB) data generator whose output is byte-identical to the
//! original SSBM `dbgen` (version of 2/28/10) run as `TZ=UTC dbgen -s SF -T a`.
//!
//! One generator per table, in the style of `tpchgen-rs`: [`PartGenerator`],
//! [`SupplierGenerator`], [`CustomerGenerator`], [`DateGenerator`] and
//! [`LineOrderGenerator`] take a scale factor and a partition (`part` of `part_count`,
//! 1-based) and iterate typed rows ([`Part`], [`Supplier`], [`Customer`], [`Date`],
//! [`LineOrder`]) whose `Display` is exactly the dbgen line (without the newline) and whose
//! `write_tbl` appends it (with the newline) to a byte buffer. Every partition positions
//! its random streams by skip-ahead, so concatenating the partitions gives the same bytes
//! for any partition count; [`generate_table`] uses that to format in parallel.
//!
//! ```
//! use pmolap_ssb::{generate_table, row_count, PartGenerator, Table};
//! let first = PartGenerator::new(0.01, 1, 1)?.iter().next().unwrap();
//! assert_eq!(
//!     first.to_string(),
//!     "1|lace spring|MFGR#1|MFGR#11|MFGR#1121|goldenrod|PROMO BURNISHED COPPER|7|JUMBO PKG|"
//! );
//! let mut tbl = Vec::new();
//! let rows = generate_table(Table::Supplier, 0.01, &mut tbl, 2)?;
//! assert_eq!(rows, row_count(Table::Supplier, 0.01)?);
//! # Ok::<(), pmolap_ssb::Error>(())
//! ```
//!
//! # How dbgen draws (and the quirks reproduced here)
//!
//! Every column is drawn from one of dbgen's 48 Park–Miller streams
//! (`x ← 16807·x mod 2^31−1`, value `low + ⌊x/(2^31−1) · (high−low+1)⌋` in doubles). After
//! each row dbgen advances every stream belonging to the row's table to a fixed per-row
//! "boundary", so a row's draws start at a computable position. The SSB-specific rules:
//!
//! - **Tables are generated in one process in the order part, supplier, customer, date,
//!   lineorder**, and streams are never reset between tables, so what one table leaves in
//!   a shared stream is where the next one starts. The output therefore matches `-T a`
//!   (all tables), not a run of a single table with `-T c` etc.
//! - **Stream 0 is shared.** The part category is drawn with stream number 97 and the
//!   city digit (suppliers and customers) with 98; both are out of range, and dbgen's
//!   `UnifInt` then falls back to stream 0, which is also the part manufacturer's. No row
//!   boundary resynchronises it, so stream 0 runs on continuously: 2 draws per part, then
//!   1 per supplier, then 1 per customer. Customer cities depend on the part and supplier
//!   counts.
//! - **Suppliers draw their phone numbers from the customer phone stream** (`C_PHNE_SD`, 3
//!   draws per row), so customer phones start after 3 × suppliers draws.
//! - **The date table advances the order streams.** In SSBM the date table has table
//!   number 4, which is TPC-H's ORDER; after each date row dbgen moves every ORDER stream
//!   (order date, customer key, priority, line count, ...) by one. Lineorder generation
//!   (table LINE, whose row boundary does not touch ORDER streams) thus starts those
//!   streams `date rows` draws in. Line streams advance by exactly 7 per order.
//! - **Row counts.** Part: 200,000 · ⌊1 + log2 SF⌋. Lineorder part keys are drawn from
//!   1..=200,000 · (⌊ln SF⌋ + 1) — natural log, so above SF 1 (e.g. SF 10: 800,000 parts,
//!   keys up to 600,000) some parts are never ordered. Suppliers 2,000 · SF, customers
//!   30,000 · SF, orders 1,500,000 · SF with 1–7 lines each. SF ≥ 1 is truncated to an
//!   integer (SF 1.5 is SF 1). Below SF 1 every base count is scaled and truncated
//!   (`(long)(base · SF)`, at least 1), **including the date table** (25 rows at SF 0.01),
//!   and the part count uses the scaled base with log2(1) = 0.
//! - **Customer keys divisible by 3 are nudged**: a drawn key `k` with `k % 3 == 0`
//!   becomes `k + 1`, or `k − 1` when `k` is the largest key (so a third of the customers
//!   never order).
//! - **Sparse order keys**: order `i` gets key `((i >> 3) << 5) | (i & 7)` (keys 1–7,
//!   32–39, 64–71, ...).
//! - **Order dates** are day offsets 0..=2405 from 1992-01-01 (the calendar less 151 days
//!   of room), commit dates 30..=90 days later. The supply cost is `6 · price / 10`, the
//!   revenue `price · qty · (100 − discount) / 100`, the order total the sum over lines of
//!   `revenue · (100 + tax) / 100`, all in integer cents.
//! - **Part name and colour**: a shuffle of all 92 colours (92 draws of one stream); the
//!   first colour is `p_color` and the next two are `p_name`. Brands print without padding
//!   (`MFGR#111` for brand 1, `MFGR#1140` for brand 40).
//! - **Texts**: addresses are 6–24 characters from `0-9a-z A-Z,`, five characters per draw
//!   of 6 bits each; the city is the nation cut or space-padded to 9 characters plus a
//!   digit; phones are `NN-AAA-EEE-NNNN` with `NN` = 10 + nation index; region of a nation
//!   is the running sum of the weights in dbgen's `nations` list.
//! - **The date table** (dbgen uses `localtime` of 1992-01-01 06:01:01 UTC plus whole days;
//!   with `TZ=UTC` that is simply consecutive days): the weekday *name* is that of the next
//!   day (1992-01-01, a Wednesday, is printed "Thursday", day-in-week 5, with Sunday = 1
//!   counted from that shifted day); months are spelled "Augest" and "Octorber";
//!   `d_lastdayinmonthfl` is **0** on the last day of a month and 1 otherwise; the week
//!   number is day-of-year / 7 + 1; seasons are Christmas (Nov–Dec), Summer (May–Aug),
//!   Winter (Jan–Mar), Spring (Apr), Fall (Sep–Oct).
//! - SF ≥ 1000 is rejected: there dbgen switches to a BCD order-key path not reproduced.
#![forbid(unsafe_code)]

pub mod columns;
mod contact;
mod customer;
mod date;
mod dists;
mod generate;
mod lineorder;
pub mod load;
mod part;
mod partition;
mod rng;
mod scale;
mod supplier;
mod text;

use std::fmt;
use std::str::FromStr;

pub use columns::{build_table, schema, schema_of, TABLES};
pub use customer::{Customer, CustomerGenerator, CustomerIter};
pub use date::{Date, DateGenerator, DateIter};
pub use generate::{generate_table, generate_table_with_progress, row_count};
pub use lineorder::{order_key, retail_price, LineOrder, LineOrderGenerator, LineOrderIter};
pub use load::{load_database, reopen_database, LoadedTable};
pub use part::{Part, PartGenerator, PartIter};
pub use partition::PartitionIter;
pub use scale::{Scale, MAX_SCALE_FACTOR};
pub use supplier::{Supplier, SupplierGenerator, SupplierIter};
pub use text::InlineStr;

/// Errors of the SSB generator.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The scale factor is not a finite number above 0.
    #[error("invalid scale factor {0}: it must be a finite number above 0")]
    InvalidScaleFactor(f64),
    /// The scale factor is beyond what this generator reproduces.
    #[error(
        "scale factor {0} is not supported: from SF 1000 on dbgen switches to a BCD \
         order-key code path that this generator does not reproduce"
    )]
    UnsupportedScaleFactor(f64),
    /// A partition outside `1..=part_count`, or zero partitions.
    #[error("invalid partition {part} of {part_count}: partitions are numbered 1..=part_count")]
    InvalidPartition {
        /// The partition asked for.
        part: usize,
        /// The number of partitions.
        part_count: usize,
    },
    /// A table name that is not one of the five SSB tables.
    #[error("unknown SSB table {0:?}: expected one of customer, date, lineorder, part, supplier")]
    UnknownTable(String),
    /// A generator thread stopped without delivering its chunk.
    #[error("a generator thread stopped unexpectedly")]
    WorkerFailed,
    /// Writing the output failed.
    #[error("writing SSB data: {0}")]
    Io(#[from] std::io::Error),
    /// The column store failed (writing, publishing or reopening a table).
    #[error(transparent)]
    Store(#[from] pmolap_store::Error),
    /// A tier operation failed, or the run was interrupted.
    #[error(transparent)]
    Tier(#[from] pmolap_os::Error),
    /// A load that cannot be carried out as asked, described in one line.
    #[error("{0}")]
    Load(String),
}

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The five SSB tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Table {
    /// `customer`.
    Customer,
    /// `date` (dbgen's `date.tbl`).
    Date,
    /// `lineorder`, the fact table.
    LineOrder,
    /// `part`.
    Part,
    /// `supplier`.
    Supplier,
}

impl Table {
    /// All tables, in dbgen's generation order.
    pub const ALL: [Table; 5] = [
        Table::Part,
        Table::Supplier,
        Table::Customer,
        Table::Date,
        Table::LineOrder,
    ];

    /// The table name as dbgen spells its file ("lineorder").
    pub fn name(self) -> &'static str {
        match self {
            Table::Customer => "customer",
            Table::Date => "date",
            Table::LineOrder => "lineorder",
            Table::Part => "part",
            Table::Supplier => "supplier",
        }
    }

    /// The file dbgen writes ("lineorder.tbl").
    pub fn file_name(self) -> String {
        format!("{}.tbl", self.name())
    }
}

impl fmt::Display for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Table {
    type Err = Error;

    /// Accepts the table name in any case, with or without `.tbl`.
    fn from_str(s: &str) -> Result<Self> {
        let lower = s.trim().to_ascii_lowercase();
        let name = lower.strip_suffix(".tbl").unwrap_or(&lower);
        Table::ALL
            .into_iter()
            .find(|t| t.name() == name)
            .ok_or_else(|| Error::UnknownTable(s.to_string()))
    }
}
