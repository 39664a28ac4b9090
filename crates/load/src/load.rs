//! The load itself: every table of a star schema read from its file, keys checked
//! (a duplicate primary key, a foreign key with no dimension row: one line naming file,
//! line and column), dimensions put in their derived order ([`crate::order`]), the fact
//! given a row-reference column per foreign key, and everything written as one new
//! database generation, published whole — the same writer lock and commit as
//! `pmolap ssb load`: a failure at any point leaves the old database as it was.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use pmolap_store::rowref::row_refs;
use pmolap_store::{
    DatabaseWriter, DbWriteOptions, LogicalType, RowRef, TableBuilder, WriteOptions,
};

use crate::ddl::{parse_schema, ColType, StarSchema, TableSpec, MAX_SCHEMA_BYTES};
use crate::order::dimension_order;
use crate::source::{is_parquet, position, read_table};
use crate::text::{find_file, store_schema};
use crate::{Error, Result};

/// How [`load_star`] writes.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// How each table is written (encodings, threads).
    pub write: WriteOptions,
}

/// One table of a load.
#[derive(Debug, Clone)]
pub struct LoadedTable {
    pub name: String,
    pub file: PathBuf,
    pub rows: u64,
    /// The columns its rows are stored by (dimensions; empty for the fact).
    pub order: Vec<String>,
    /// Seconds to read, check, encode and write it.
    pub seconds: f64,
}

/// Reads the schema file `schema` and each table's file in `from`, and writes them as a
/// new generation of the database `out`, published whole. `on_table(name)` is called
/// as each table starts.
pub fn load_star(
    schema: &Path,
    from: &Path,
    out: &Path,
    opts: &LoadOptions,
    on_table: &dyn Fn(&str),
) -> Result<Vec<LoadedTable>> {
    let text = pmolap_os::input::read_bounded(schema, MAX_SCHEMA_BYTES)?;
    let star = parse_schema(&text, &schema.display().to_string())?;
    if !from.is_dir() {
        return Err(Error::Data(format!(
            "{}: not a directory (--from names the directory of the tables' files)",
            from.display()
        )));
    }
    // Every input first: a missing file fails before anything is written.
    let files = star
        .tables
        .iter()
        .map(|t| find_file(from, t))
        .collect::<Result<Vec<_>>>()?;
    let mut meta = BTreeMap::new();
    meta.insert("workload".to_string(), serde_json::json!("star"));
    meta.insert("fact".to_string(), serde_json::json!(star.fact().name));
    meta.insert(
        "source".to_string(),
        serde_json::json!(format!("{}", from.display())),
    );
    let mut writer = DatabaseWriter::begin(
        out,
        &DbWriteOptions {
            meta,
            ..Default::default()
        },
    )?;
    let mut done = Vec::new();
    // Per dimension: its keys in stored order.
    let mut keys: HashMap<String, Vec<i64>> = HashMap::new();
    let n = star.tables.len();
    for (i, (t, file)) in star.tables.iter().zip(&files).enumerate() {
        pmolap_os::signal::check()?;
        on_table(&t.name);
        let t0 = Instant::now();
        let (mut b, lines) = read_table(file, t, &store_schema(t)?)?;
        check_primary_key(t, &b, &lines, file)?;
        let order = if i + 1 < n {
            let order = dimension_order(t, &b);
            let cols: Vec<&str> = order.iter().map(String::as_str).collect();
            b.sort_rows_by(&cols)?;
            let pk = &t.primary_key[0];
            let k = b
                .int_column(pk)
                .ok_or_else(|| Error::Schema(format!("{}.{pk} is not an int column", t.name)))?;
            keys.insert(t.name.clone(), k.to_vec());
            order
        } else {
            add_row_refs(&star, &mut b, &lines, file, &keys)?;
            Vec::new()
        };
        pmolap_os::signal::check()?;
        let m = writer.add_table(&t.name, b, &opts.write)?;
        for c in &t.columns {
            if let Some(ty) = logical(c.ty) {
                writer.set_type(&t.name, &c.name, ty)?;
            }
        }
        done.push(LoadedTable {
            name: t.name.clone(),
            file: file.clone(),
            rows: m.rows,
            order,
            seconds: t0.elapsed().as_secs_f64(),
        });
    }
    let fact = star.fact();
    for fk in &fact.foreign_keys {
        let d = star
            .tables
            .iter()
            .find(|t| t.name == fk.table)
            .ok_or_else(|| Error::Schema(format!("no dimension {}", fk.table)))?;
        let order = done
            .iter()
            .find(|l| l.name == d.name)
            .map(|l| l.order.clone())
            .unwrap_or_default();
        writer.add_row_ref(RowRef {
            table: fact.name.clone(),
            key: fk.column.clone(),
            column: RowRef::column_name(&fk.column, &d.name),
            dim: d.name.clone(),
            dim_key: d.primary_key[0].clone(),
            order,
        })?;
    }
    pmolap_os::signal::check()?;
    writer.commit()?;
    Ok(done)
}

/// The store's logical type of a declared type (None: a plain integer or string).
fn logical(ty: ColType) -> Option<LogicalType> {
    match ty {
        ColType::Decimal { precision, scale } => Some(LogicalType::Decimal { precision, scale }),
        ColType::Date => Some(LogicalType::Date),
        _ => None,
    }
}

/// `v` as the file wrote it (a date as YYYY-MM-DD).
fn shown(v: i64, ty: ColType) -> String {
    match ty {
        ColType::Date => format!("{:04}-{:02}-{:02}", v / 10_000, v / 100 % 100, v % 100),
        _ => v.to_string(),
    }
}

/// Fails naming the line of the first row whose primary key an earlier row has. Sorts
/// row numbers by key (4 bytes a row beside the keys' codes, no per-row allocation) and
/// compares neighbours.
fn check_primary_key(t: &TableSpec, b: &TableBuilder, lines: &[u64], file: &Path) -> Result<()> {
    if t.primary_key.is_empty() {
        return Ok(());
    }
    let codes = t
        .primary_key
        .iter()
        .map(|c| {
            b.row_codes(c)
                .ok_or_else(|| Error::Schema(format!("{}: no column {c}", t.name)))
        })
        .collect::<Result<Vec<_>>>()?;
    let key = |r: u32| codes.iter().map(move |c| c[r as usize]);
    let mut perm: Vec<u32> = (0..b.rows() as u32).collect();
    perm.sort_unstable_by(|&x, &y| key(x).cmp(key(y)).then(x.cmp(&y)));
    // Of all rows whose key an earlier row has, the first in the file.
    let dup = perm
        .windows(2)
        .filter(|w| key(w[0]).eq(key(w[1])))
        .min_by_key(|w| w[1]);
    if let Some(w) = dup {
        let (first, again) = (w[0] as usize, w[1] as usize);
        let pos = t
            .columns
            .iter()
            .position(|c| c.name == t.primary_key[0])
            .map_or(0, |p| p + 1);
        return Err(Error::Data(format!(
            "{}: column {pos} `{}`: duplicate primary key ({}) — {} {} has it too",
            position(file, lines[again]),
            t.primary_key[0],
            t.primary_key.join(", "),
            if is_parquet(file) { "row" } else { "line" },
            lines[first]
        )));
    }
    Ok(())
}

/// Adds the fact's row-reference column of each foreign key; fails naming the line of
/// the first key with no dimension row.
fn add_row_refs(
    star: &StarSchema,
    b: &mut TableBuilder,
    lines: &[u64],
    file: &Path,
    keys: &HashMap<String, Vec<i64>>,
) -> Result<()> {
    let fact = star.fact();
    for fk in &fact.foreign_keys {
        let dim_keys = keys
            .get(&fk.table)
            .ok_or_else(|| Error::Schema(format!("dimension {} is not loaded", fk.table)))?;
        let values = b.int_column(&fk.column).ok_or_else(|| {
            Error::Schema(format!("{}.{} is no int column", fact.name, fk.column))
        })?;
        let refs = row_refs(values, dim_keys)?;
        let missing = dim_keys.len() as i64;
        if let Some(r) = refs.iter().position(|&x| x == missing) {
            let (pos, ty) = fact
                .columns
                .iter()
                .enumerate()
                .find(|(_, c)| c.name == fk.column)
                .map_or((0, ColType::BigInt), |(i, c)| (i + 1, c.ty));
            let d = star.tables.iter().find(|t| t.name == fk.table);
            return Err(Error::Data(format!(
                "{}: column {pos} `{}`: foreign key {} has no row in {} ({})",
                position(file, lines[r]),
                fk.column,
                shown(values[r], ty),
                fk.table,
                d.map_or(String::new(), |d| d.primary_key.join(", "))
            )));
        }
        b.add_int_column(&RowRef::column_name(&fk.column, &fk.table), refs)?;
    }
    Ok(())
}
