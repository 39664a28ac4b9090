//! The Star Schema Benchmark's five tables: their column-store schemas (column names of
//! the SSB paper; the date table is `date`).

use pmolap_store::{ColumnType, Schema};

use crate::error::{Error, Result};

use ColumnType::{Int, Str};

/// The SSB tables, by directory name, fact table first.
pub const TABLES: [&str; 5] = ["lineorder", "part", "supplier", "customer", "date"];

/// The SSB schema of `table`, with the column names of the SSB paper.
pub fn schema(table: &str) -> Result<Schema> {
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
        other => {
            return Err(Error::Query(format!(
                "no SSB table `{other}`; the tables are {}",
                TABLES.join(", ")
            )))
        }
    };
    Ok(Schema::new(cols.iter().map(|(n, t)| (n.to_string(), *t)))?)
}
