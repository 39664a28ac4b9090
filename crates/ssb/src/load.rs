//! `pmolap ssb load`'s work: the five SSB tables (from the generators, or dbgen's `.tbl`
//! files) loaded through the generic star-schema load of `pmolap load`
//! ([`pmolap_load::load_tables`]) with the SSB schema file `workloads/ssb/schema.sql`:
//! one new database generation published whole, then reopened on a tier with checksums
//! verified. Nothing here knows SSB's hierarchies: the dimensions' row orders are
//! derived from their data as for any star schema (docs/load.md).

use std::path::Path;

use pmolap_load::{
    load_tables, parse_schema, store_schema, LoadOptions, Origin, RowRefs, TableRows,
};
use pmolap_store::{Placement, WriteOptions};

use crate::columns::build_table;
use crate::{row_count, Error, Result, Table};

/// The SSB schema as `pmolap load` reads it (`workloads/ssb/schema.sql`): the columns of
/// [`crate::schema`], the keys, and `ddate` (the query texts' name of `date`).
pub const SCHEMA_SQL: &str = include_str!("../../../workloads/ssb/schema.sql");

/// One table of a load.
#[derive(Debug, Clone)]
pub struct LoadedTable {
    pub table: Table,
    pub rows: u64,
    /// Seconds to generate (or read), check, encode and write it.
    pub seconds: f64,
}

/// Generates (or, with `tbl_dir`, reads `<table>.tbl` from it) the five tables at `sf`,
/// writes them as a new generation of the database `out` and publishes them together: a
/// failure, a missing or bad input, out of room or an interrupt at any point leaves the
/// old database exactly as it was. `table_opts` say how each table is written (its
/// encodings, threads). `on_table(table, expected rows or 0)` is called as each table
/// starts, `progress(rows)` as rows are generated.
///
/// The load is `pmolap load`'s with [`SCHEMA_SQL`], and two options: a foreign key with
/// no dimension row joins nothing (dbgen's date table below SF 1 lacks most order dates),
/// and only a dimension not stored in key order gets a row-reference column (the date
/// table at SF ≥ 1 is in key order: no `lo_orderdate@date`, as databases written before).
pub fn load_database(
    sf: f64,
    out: &Path,
    tbl_dir: Option<&Path>,
    table_opts: &WriteOptions,
    on_table: &dyn Fn(Table, u64),
    progress: &dyn Fn(u64),
) -> Result<Vec<LoadedTable>> {
    if !(sf > 0.0 && sf.is_finite()) {
        return Err(Error::InvalidScaleFactor(sf));
    }
    if let Some(d) = tbl_dir {
        // Every input first: a missing file fails before anything is written.
        for table in Table::ALL {
            let f = d.join(table.file_name());
            if !f.is_file() {
                return Err(Error::Load(format!(
                    "{}: missing (--tbl needs all five SSB tables); nothing was written",
                    f.display()
                )));
            }
        }
    }
    let star = parse_schema(SCHEMA_SQL, "workloads/ssb/schema.sql").map_err(load_error)?;
    let mut meta = std::collections::BTreeMap::new();
    meta.insert("workload".to_string(), serde_json::json!("ssb"));
    match tbl_dir {
        Some(d) => meta.insert(
            "source".into(),
            serde_json::json!(format!("tbl:{}", d.display())),
        ),
        None => meta.insert("sf".into(), serde_json::json!(sf)),
    };
    let opts = LoadOptions {
        write: table_opts.clone(),
        meta,
        dangling_keys_join_nothing: true,
        row_refs: RowRefs::Reordered,
    };
    let mut read = |t: &pmolap_load::TableSpec| -> pmolap_load::Result<TableRows> {
        let table: Table = t
            .name
            .parse()
            .map_err(|e: Error| pmolap_load::Error::Schema(e.to_string()))?;
        let expected = match tbl_dir {
            Some(_) => 0,
            None => row_count(table, sf).map_err(|e| pmolap_load::Error::Data(e.to_string()))?,
        };
        on_table(table, expected);
        Ok(match tbl_dir {
            Some(d) => {
                let file = d.join(table.file_name());
                let (builder, lines) = pmolap_load::text::read_table(&file, t, &store_schema(t)?)?;
                TableRows {
                    builder,
                    origin: Origin::File { file, lines },
                }
            }
            None => TableRows {
                builder: build_table(table, sf, progress).map_err(|e| match e {
                    Error::Tier(e) => pmolap_load::Error::Os(e),
                    Error::Store(e) => pmolap_load::Error::Store(e),
                    e => pmolap_load::Error::Data(e.to_string()),
                })?,
                origin: Origin::Generated(format!("the SSB generator at SF {sf}, {table}")),
            },
        })
    };
    let loaded = load_tables(&star, &mut read, out, &opts, &|_| {}).map_err(load_error)?;
    loaded
        .into_iter()
        .map(|l| {
            Ok(LoadedTable {
                table: l.name.parse()?,
                rows: l.rows,
                seconds: l.seconds,
            })
        })
        .collect()
}

/// The generic load's error as this crate's: an interrupt stays an interrupt (exit 130),
/// a store error a store error.
fn load_error(e: pmolap_load::Error) -> Error {
    match e {
        pmolap_load::Error::Os(e) => Error::Tier(e),
        pmolap_load::Error::Store(e) => Error::Store(e),
        e => Error::Load(e.to_string()),
    }
}

/// Reopens every table of the database `dir` under `placement` with checksums verified;
/// returns (table name, rows, seconds) per table.
pub fn reopen_database(dir: &Path, placement: &Placement) -> Result<Vec<(String, usize, f64)>> {
    pmolap_load::reopen_database(dir, placement).map_err(load_error)
}
