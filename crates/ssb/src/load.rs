//! `pmolap ssb load`'s work: the five SSB tables (from the generators, or dbgen's `.tbl`
//! files) written as one new database generation and published whole, then reopened on a
//! tier with checksums verified.

use std::path::Path;
use std::time::Instant;

use pmolap_store::{
    DatabaseSnapshot, DatabaseWriter, DbWriteOptions, OpenOptions, Placement, Table as StoreTable,
    WriteOptions,
};

use crate::columns::{build_table, schema};
use crate::{row_count, Error, Result, Table};

/// One table of a load.
#[derive(Debug, Clone)]
pub struct LoadedTable {
    pub table: Table,
    pub rows: u64,
    /// Seconds to generate (or read), encode and write it.
    pub seconds: f64,
}

/// Generates (or, with `tbl_dir`, reads `<table>.tbl` from it) the five tables at `sf`,
/// writes them as a new generation of the database `out` and publishes them together: a
/// failure, a missing or bad input, out of room or an interrupt at any point leaves the
/// old database exactly as it was. `table_opts` say how each table is written (its
/// encodings, threads). `on_table(table, expected rows or 0)` is called as each table
/// starts, `progress(rows)` as rows are generated.
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
    let mut meta = std::collections::BTreeMap::new();
    meta.insert("workload".to_string(), serde_json::json!("ssb"));
    match tbl_dir {
        Some(d) => meta.insert(
            "source".into(),
            serde_json::json!(format!("tbl:{}", d.display())),
        ),
        None => meta.insert("sf".into(), serde_json::json!(sf)),
    };
    let mut writer = DatabaseWriter::begin(
        out,
        &DbWriteOptions {
            meta,
            ..Default::default()
        },
    )?;
    let mut done = Vec::new();
    for table in Table::ALL {
        pmolap_tier::signal::check()?;
        let expected = match tbl_dir {
            Some(_) => 0,
            None => row_count(table, sf)?,
        };
        on_table(table, expected);
        let t0 = Instant::now();
        let builder = match tbl_dir {
            Some(d) => pmolap_store::load_tbl(&d.join(table.file_name()), &schema(table))?,
            None => build_table(table, sf, progress)?,
        };
        pmolap_tier::signal::check()?;
        let m = writer.add_table(&table.to_string(), builder, table_opts)?;
        done.push(LoadedTable {
            table,
            rows: m.rows,
            seconds: t0.elapsed().as_secs_f64(),
        });
    }
    pmolap_tier::signal::check()?;
    writer.commit()?;
    Ok(done)
}

/// Reopens every table of the database `dir` under `placement` with checksums verified;
/// returns (table name, rows, seconds) per table.
pub fn reopen_database(dir: &Path, placement: &Placement) -> Result<Vec<(String, usize, f64)>> {
    let snapshot = DatabaseSnapshot::open(dir)?;
    let mut out = Vec::new();
    for (name, path) in snapshot.tables() {
        let t0 = Instant::now();
        let t = StoreTable::open_with(path, placement, &OpenOptions::default())?;
        out.push((name.clone(), t.rows(), t0.elapsed().as_secs_f64()));
    }
    Ok(out)
}
