//! The SSB schema as column-store tables (column names of the SSB paper; the date table
//! is `date`) and the mapping of every generated row onto those columns.

use pmolap_store::{ColumnType, Schema, TableBuilder, Value};

use crate::{
    CustomerGenerator, DateGenerator, Error, LineOrderGenerator, PartGenerator, Result,
    SupplierGenerator, Table,
};

use ColumnType::{Int, Str};

/// The column-store schema of `table`.
pub fn schema(table: Table) -> Schema {
    schema_of(&table.to_string()).expect("every SSB table has a schema")
}

/// The SSB tables, by directory name, fact table first.
pub const TABLES: [&str; 5] = ["lineorder", "part", "supplier", "customer", "date"];

/// The SSB schema of `table`, with the column names of the SSB paper.
pub fn schema_of(table: &str) -> Result<Schema> {
    let cols: &[(&str, ColumnType)] = match table {
        "lineorder" => &[
            ("lo_orderkey", Int),
            ("lo_linenumber", Int),
            ("lo_custkey", Int),
            ("lo_partkey", Int),
            ("lo_suppkey", Int),
            ("lo_orderdate", Int),
            ("lo_orderpriority", Str),
            ("lo_shippriority", Int),
            ("lo_quantity", Int),
            ("lo_extendedprice", Int),
            ("lo_ordtotalprice", Int),
            ("lo_discount", Int),
            ("lo_revenue", Int),
            ("lo_supplycost", Int),
            ("lo_tax", Int),
            ("lo_commitdate", Int),
            ("lo_shipmode", Str),
        ],
        "part" => &[
            ("p_partkey", Int),
            ("p_name", Str),
            ("p_mfgr", Str),
            ("p_category", Str),
            ("p_brand1", Str),
            ("p_color", Str),
            ("p_type", Str),
            ("p_size", Int),
            ("p_container", Str),
        ],
        "supplier" => &[
            ("s_suppkey", Int),
            ("s_name", Str),
            ("s_address", Str),
            ("s_city", Str),
            ("s_nation", Str),
            ("s_region", Str),
            ("s_phone", Str),
        ],
        "customer" => &[
            ("c_custkey", Int),
            ("c_name", Str),
            ("c_address", Str),
            ("c_city", Str),
            ("c_nation", Str),
            ("c_region", Str),
            ("c_phone", Str),
            ("c_mktsegment", Str),
        ],
        "date" => &[
            ("d_datekey", Int),
            ("d_date", Str),
            ("d_dayofweek", Str),
            ("d_month", Str),
            ("d_year", Int),
            ("d_yearmonthnum", Int),
            ("d_yearmonth", Str),
            ("d_daynuminweek", Int),
            ("d_daynuminmonth", Int),
            ("d_daynuminyear", Int),
            ("d_monthnuminyear", Int),
            ("d_weeknuminyear", Int),
            ("d_sellingseason", Str),
            ("d_lastdayinweekfl", Int),
            ("d_lastdayinmonthfl", Int),
            ("d_holidayfl", Int),
            ("d_weekdayfl", Int),
        ],
        other => return Err(Error::UnknownTable(other.to_string())),
    };
    Ok(Schema::new(cols.iter().map(|(n, t)| (n.to_string(), *t)))?)
}

/// Pushes every row of `table` at `sf`, straight from its generator (no text round
/// trip), into a column-store builder with the columns of [`schema`]. `progress` is
/// called with the rows added, every 64 Ki rows and at the end; an interrupt
/// (SIGINT/SIGTERM) stops it at the next such point.
pub fn build_table(table: Table, sf: f64, progress: &dyn Fn(u64)) -> Result<TableBuilder> {
    let mut b = TableBuilder::new(schema(table));
    let mut n = 0u64;
    let tick = |n: &mut u64| -> Result<()> {
        *n += 1;
        if n.is_multiple_of(65_536) {
            progress(65_536);
            pmolap_os::signal::check()?;
        }
        Ok(())
    };
    match table {
        Table::LineOrder => {
            for r in LineOrderGenerator::new(sf, 1, 1)? {
                b.push_row(&[
                    Value::Int(r.orderkey as i64),
                    Value::Int(r.linenumber.into()),
                    Value::Int(r.custkey.into()),
                    Value::Int(r.partkey.into()),
                    Value::Int(r.suppkey.into()),
                    Value::Int(r.orderdate.into()),
                    Value::Str(r.orderpriority),
                    Value::Int(r.shippriority.into()),
                    Value::Int(r.quantity.into()),
                    Value::Int(r.extendedprice.into()),
                    Value::Int(r.ordtotalprice.into()),
                    Value::Int(r.discount.into()),
                    Value::Int(r.revenue.into()),
                    Value::Int(r.supplycost.into()),
                    Value::Int(r.tax.into()),
                    Value::Int(r.commitdate.into()),
                    Value::Str(r.shipmode),
                ])?;
                tick(&mut n)?;
            }
        }
        Table::Part => {
            for r in PartGenerator::new(sf, 1, 1)? {
                b.push_row(&[
                    Value::Int(r.partkey.into()),
                    Value::Str(&r.name_text()),
                    Value::Str(&r.mfgr_text()),
                    Value::Str(&r.category_text()),
                    Value::Str(&r.brand_text()),
                    Value::Str(r.color),
                    Value::Str(r.part_type),
                    Value::Int(r.size.into()),
                    Value::Str(r.container),
                ])?;
                tick(&mut n)?;
            }
        }
        Table::Supplier => {
            for r in SupplierGenerator::new(sf, 1, 1)? {
                b.push_row(&[
                    Value::Int(r.suppkey.into()),
                    Value::Str(&r.name()),
                    Value::Str(&r.address),
                    Value::Str(&r.city),
                    Value::Str(r.nation),
                    Value::Str(r.region),
                    Value::Str(&r.phone),
                ])?;
                tick(&mut n)?;
            }
        }
        Table::Customer => {
            for r in CustomerGenerator::new(sf, 1, 1)? {
                b.push_row(&[
                    Value::Int(r.custkey.into()),
                    Value::Str(&r.name()),
                    Value::Str(&r.address),
                    Value::Str(&r.city),
                    Value::Str(r.nation),
                    Value::Str(r.region),
                    Value::Str(&r.phone),
                    Value::Str(r.mktsegment),
                ])?;
                tick(&mut n)?;
            }
        }
        Table::Date => {
            for r in DateGenerator::new(sf, 1, 1)? {
                b.push_row(&[
                    Value::Int(r.datekey.into()),
                    Value::Str(&r.date),
                    Value::Str(r.day_of_week),
                    Value::Str(r.month),
                    Value::Int(r.year.into()),
                    Value::Int(r.year_month_num.into()),
                    Value::Str(&r.year_month),
                    Value::Int(r.day_num_in_week.into()),
                    Value::Int(r.day_num_in_month.into()),
                    Value::Int(r.day_num_in_year.into()),
                    Value::Int(r.month_num_in_year.into()),
                    Value::Int(r.week_num_in_year.into()),
                    Value::Str(r.selling_season),
                    Value::Int(r.last_day_in_week_fl.into()),
                    Value::Int(r.last_day_in_month_fl.into()),
                    Value::Int(r.holiday_fl.into()),
                    Value::Int(r.weekday_fl.into()),
                ])?;
                tick(&mut n)?;
            }
        }
    }
    progress(n % 65_536);
    Ok(b)
}
