//! `pmolap ssb load`'s work: the five SSB tables (from the generators, or dbgen's `.tbl`
//! files) written as one new database generation and published whole, then reopened on a
//! tier with checksums verified.

use std::path::Path;
use std::time::Instant;

use pmolap_store::rowref::row_refs;
use pmolap_store::{
    DatabaseSnapshot, DatabaseWriter, DbWriteOptions, OpenOptions, Placement, RowRef,
    Table as StoreTable, TableBuilder, WriteOptions,
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
    // The dimensions' keys in their stored (hierarchy) order, for the fact's row refs.
    let mut dim_keys: Vec<(Table, Vec<i64>)> = Vec::new();
    for table in Table::ALL {
        pmolap_os::signal::check()?;
        let expected = match tbl_dir {
            Some(_) => 0,
            None => row_count(table, sf)?,
        };
        on_table(table, expected);
        let t0 = Instant::now();
        let mut builder = match tbl_dir {
            Some(d) => pmolap_store::load_tbl(&d.join(table.file_name()), &schema(table))?,
            None => build_table(table, sf, progress)?,
        };
        pmolap_os::signal::check()?;
        arrange(table, &mut builder, &mut dim_keys)?;
        let m = writer.add_table(&table.to_string(), builder, table_opts)?;
        done.push(LoadedTable {
            table,
            rows: m.rows,
            seconds: t0.elapsed().as_secs_f64(),
        });
    }
    pmolap_os::signal::check()?;
    for r in ROW_REFS {
        writer.add_row_ref(r.row_ref())?;
    }
    writer.commit()?;
    Ok(done)
}

/// A foreign key of `lineorder` that gets a row-reference column
/// ([`pmolap_store::rowref`]), and the hierarchy its dimension's rows are stored in.
#[derive(Debug, Clone, Copy)]
pub struct RowRefSpec {
    pub key: &'static str,
    pub dim: Table,
    pub dim_key: &'static str,
    /// The dimension's row order: coarsest level first, the key last (a total order).
    pub order: &'static [&'static str],
}

impl RowRefSpec {
    fn row_ref(&self) -> RowRef {
        RowRef {
            table: Table::LineOrder.to_string(),
            key: self.key.into(),
            column: RowRef::column_name(self.key, self.dim.name()),
            dim: self.dim.to_string(),
            dim_key: self.dim_key.into(),
            order: self.order.iter().map(|c| c.to_string()).collect(),
        }
    }
}

/// The row references a load writes. Customer and supplier rows are stored by region,
/// nation, city; part rows by manufacturer, category, brand: a predicate on one level
/// (`c_region = 'ASIA'`, `p_category = 'MFGR#12'`, `s_nation = 'PERU'`) selects one run of
/// rows, so the fact side tests a range of references instead of a bitmap. The date
/// dimension gets none: `lo_orderdate`'s ids already follow the calendar.
pub const ROW_REFS: [RowRefSpec; 3] = [
    RowRefSpec {
        key: "lo_custkey",
        dim: Table::Customer,
        dim_key: "c_custkey",
        order: &["c_region", "c_nation", "c_city", "c_custkey"],
    },
    RowRefSpec {
        key: "lo_partkey",
        dim: Table::Part,
        dim_key: "p_partkey",
        order: &["p_mfgr", "p_category", "p_brand1", "p_partkey"],
    },
    RowRefSpec {
        key: "lo_suppkey",
        dim: Table::Supplier,
        dim_key: "s_suppkey",
        order: &["s_region", "s_nation", "s_city", "s_suppkey"],
    },
];

/// Puts a dimension's rows in its hierarchy order (keeping its keys for the fact), or
/// adds the fact's row-reference columns. Dimensions come before the fact in
/// [`Table::ALL`].
fn arrange(
    table: Table,
    b: &mut TableBuilder,
    dim_keys: &mut Vec<(Table, Vec<i64>)>,
) -> Result<()> {
    let no_column = |t: Table, c: &str| Error::Load(format!("table {t} has no int column {c}"));
    if let Some(spec) = ROW_REFS.iter().find(|r| r.dim == table) {
        b.sort_rows_by(spec.order)?;
        let keys = b
            .int_column(spec.dim_key)
            .ok_or_else(|| no_column(table, spec.dim_key))?;
        dim_keys.push((table, keys.to_vec()));
    }
    if table == Table::LineOrder {
        for spec in &ROW_REFS {
            let (_, keys) = dim_keys
                .iter()
                .find(|(t, _)| *t == spec.dim)
                .ok_or_else(|| Error::Load(format!("{} is loaded after {table}", spec.dim)))?;
            let fk = b
                .int_column(spec.key)
                .ok_or_else(|| no_column(table, spec.key))?;
            let refs = row_refs(fk, keys)?;
            b.add_int_column(&RowRef::column_name(spec.key, spec.dim.name()), refs)?;
        }
    }
    Ok(())
}

/// Reopens every table of the database `dir` under `placement` with checksums verified;
/// returns (table name, rows, seconds) per table.
pub fn reopen_database(dir: &Path, placement: &Placement) -> Result<Vec<(String, usize, f64)>> {
    let snapshot = DatabaseSnapshot::open(dir)?;
    let mut out = Vec::new();
    for (name, path) in snapshot.tables() {
        let t0 = Instant::now();
        let t = StoreTable::open_with(path, placement, &OpenOptions::default())?;
        t.verify()?;
        out.push((name.clone(), t.rows(), t0.elapsed().as_secs_f64()));
    }
    Ok(out)
}
