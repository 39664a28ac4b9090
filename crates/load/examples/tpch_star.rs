//! The retail star of bench/retail-star: TPC-H data from the `tpchgen` crate (dbgen-
//! conformant) reshaped into a star — the fact `sales` is LINEITEM with its order's date,
//! customer and priority; the dimensions are `customer` and `supplier` (with their nation
//! and region names), `part` and `day` (every calendar day of 1992–1998) — written as
//! CSV files with a header, one per table, for `pmolap load --schema
//! bench/retail-star/schema.sql`.
//!
//!     cargo run --release -p pmolap-load --example tpch_star -- --sf 0.5 --out DIR
//!
//! SF 0.5 is ~3.0 M fact rows, SF 5 ~30 M. Deterministic: the same SF writes the same
//! files.

use std::fmt::Write as _;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use tpchgen::generators::{
    CustomerGenerator, LineItemGenerator, NationGenerator, OrderGenerator, PartGenerator,
    RegionGenerator, SupplierGenerator,
};

type Res<T> = Result<T, String>;

/// A CSV file written line by line.
struct Csv {
    path: PathBuf,
    w: BufWriter<std::fs::File>,
    line: String,
    rows: u64,
}

impl Csv {
    fn create(dir: &Path, table: &str, header: &str) -> Res<Csv> {
        let path = dir.join(format!("{table}.csv"));
        let f = std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut c = Csv {
            path,
            w: BufWriter::with_capacity(1 << 20, f),
            line: String::with_capacity(256),
            rows: 0,
        };
        c.line.push_str(header);
        c.end()?;
        c.rows = 0;
        Ok(c)
    }

    /// Writes the line built in `self.line`.
    fn end(&mut self) -> Res<()> {
        self.line.push('\n');
        self.w
            .write_all(self.line.as_bytes())
            .map_err(|e| format!("{}: {e}", self.path.display()))?;
        self.line.clear();
        self.rows += 1;
        Ok(())
    }

    fn finish(mut self) -> Res<u64> {
        self.w
            .flush()
            .map_err(|e| format!("{}: {e}", self.path.display()))?;
        Ok(self.rows)
    }
}

/// `v` (an integer of `scale` decimals) as text.
fn decimal(out: &mut String, v: i64, scale: u32) {
    let p = 10i64.pow(scale);
    let sign = if v < 0 { "-" } else { "" };
    let _ = write!(
        out,
        "{sign}{}.{:0>w$}",
        v.unsigned_abs() / p as u64,
        v.unsigned_abs() % p as u64,
        w = scale as usize
    );
}

fn days_in_month(y: i32, m: u32) -> u32 {
    match m {
        4 | 6 | 9 | 11 => 30,
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        _ => 31,
    }
}

const WEEKDAYS: [&str; 7] = [
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "Monday",
    "Tuesday",
];

fn generate(sf: f64, dir: &Path) -> Res<Vec<(&'static str, u64)>> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let regions: Vec<String> = RegionGenerator::new(sf, 1, 1)
        .iter()
        .map(|r| r.r_name.to_string())
        .collect();
    // Per nation key: (nation name, region name).
    let nations: Vec<(String, String)> = NationGenerator::new(sf, 1, 1)
        .iter()
        .map(|n| {
            (
                n.n_name.to_string(),
                regions[n.n_regionkey as usize].clone(),
            )
        })
        .collect();
    let mut out = Vec::new();

    // 1992-01-01 is a Wednesday; 1998-12-31 ends the range of TPC-H's order dates.
    let mut c = Csv::create(dir, "day", "d_date,d_year,d_quarter,d_month,d_weekday")?;
    let mut n = 0usize;
    for y in 1992..=1998 {
        for m in 1..=12u32 {
            for d in 1..=days_in_month(y, m) {
                let _ = write!(
                    c.line,
                    "{y}-{m:02}-{d:02},{y},{y}-Q{},{y}-{m:02},{}",
                    (m - 1) / 3 + 1,
                    WEEKDAYS[n % 7]
                );
                c.end()?;
                n += 1;
            }
        }
    }
    out.push(("day", c.finish()?));

    let mut c = Csv::create(
        dir,
        "customer",
        "c_custkey,c_name,c_nation,c_region,c_mktsegment,c_acctbal",
    )?;
    for r in CustomerGenerator::new(sf, 1, 1).iter() {
        let (nation, region) = &nations[r.c_nationkey as usize];
        let _ = write!(
            c.line,
            "{},{},{nation},{region},{},",
            r.c_custkey, r.c_name, r.c_mktsegment
        );
        decimal(&mut c.line, r.c_acctbal.0, 2);
        c.end()?;
    }
    out.push(("customer", c.finish()?));

    let mut c = Csv::create(
        dir,
        "supplier",
        "s_suppkey,s_name,s_nation,s_region,s_acctbal",
    )?;
    for r in SupplierGenerator::new(sf, 1, 1).iter() {
        let (nation, region) = &nations[r.s_nationkey as usize];
        let _ = write!(c.line, "{},{},{nation},{region},", r.s_suppkey, r.s_name);
        decimal(&mut c.line, r.s_acctbal.0, 2);
        c.end()?;
    }
    out.push(("supplier", c.finish()?));

    let mut c = Csv::create(
        dir,
        "part",
        "p_partkey,p_mfgr,p_brand,p_type,p_size,p_container,p_retailprice",
    )?;
    for r in PartGenerator::new(sf, 1, 1).iter() {
        let _ = write!(
            c.line,
            "{},{},{},{},{},{},",
            r.p_partkey, r.p_mfgr, r.p_brand, r.p_type, r.p_size, r.p_container
        );
        decimal(&mut c.line, r.p_retailprice.0, 2);
        c.end()?;
    }
    out.push(("part", c.finish()?));

    // LINEITEM and ORDERS are both in order-key order: walk them together.
    let mut c = Csv::create(
        dir,
        "sales",
        "lo_orderkey,lo_linenumber,lo_orderdate,lo_custkey,lo_partkey,lo_suppkey,\
         lo_orderpriority,lo_shipmode,lo_returnflag,lo_linestatus,lo_shipdate,\
         lo_quantity,lo_extendedprice,lo_discount,lo_tax,lo_revenue",
    )?;
    let orders = OrderGenerator::new(sf, 1, 1);
    let mut orders = orders.iter();
    let mut order = orders.next().ok_or("no orders")?;
    for l in LineItemGenerator::new(sf, 1, 1).iter() {
        while order.o_orderkey < l.l_orderkey {
            order = orders
                .next()
                .ok_or_else(|| format!("no order {}", l.l_orderkey))?;
        }
        if order.o_orderkey != l.l_orderkey {
            return Err(format!("line item of order {} has none", l.l_orderkey));
        }
        let _ = write!(
            c.line,
            "{},{},{},{},{},{},{},{},{},{},{},{},",
            l.l_orderkey,
            l.l_linenumber,
            order.o_orderdate,
            order.o_custkey,
            l.l_partkey,
            l.l_suppkey,
            order.o_orderpriority,
            l.l_shipmode,
            l.l_returnflag,
            l.l_linestatus,
            l.l_shipdate,
            l.l_quantity
        );
        let (price, discount, tax) = (l.l_extendedprice.0, l.l_discount.0, l.l_tax.0);
        for (v, scale) in [(price, 2), (discount, 2), (tax, 2)] {
            decimal(&mut c.line, v, scale);
            c.line.push(',');
        }
        // extendedprice · (1 − discount), exact at scale 4.
        decimal(&mut c.line, price * (100 - discount), 4);
        c.end()?;
    }
    out.push(("sales", c.finish()?));
    Ok(out)
}

fn main() {
    let mut sf = 0.5;
    let mut dir = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match (a.as_str(), args.next()) {
            ("--sf", Some(v)) => match v.parse::<f64>() {
                Ok(v) if v > 0.0 && v.is_finite() => sf = v,
                _ => fail(&format!("--sf {v}: not a scale factor > 0")),
            },
            ("--out", Some(v)) => dir = Some(PathBuf::from(v)),
            _ => fail("usage: tpch_star [--sf SF] --out DIR"),
        }
    }
    let dir = dir.unwrap_or_else(|| fail("usage: tpch_star [--sf SF] --out DIR"));
    match generate(sf, &dir) {
        Ok(tables) => {
            for (t, rows) in tables {
                println!("{t} {rows}");
            }
        }
        Err(e) => fail(&e),
    }
}

fn fail(m: &str) -> ! {
    eprintln!("error: {m}");
    std::process::exit(1)
}
