//! The load itself: every table of a star schema read from its file, keys checked
//! (a duplicate primary key, a foreign key with no dimension row: one line naming file,
//! line and column), dimensions put in their derived order ([`crate::order`]), the fact
//! given a row-reference column per foreign key, and everything written as one new
//! database generation, published whole (a writer lock, one commit: a failure at any
//! point leaves the old database as it was). The rows come from files ([`load_star`]) or
//! from anything that fills a builder ([`load_tables`]: `pmolap ssb load`'s generator).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use pmolap_store::rowref::row_refs;
use pmolap_store::{
    DatabaseSnapshot, DatabaseWriter, DbWriteOptions, LogicalType, OpenOptions, Placement, RowRef,
    Table as StoreTable, TableBuilder, WriteOptions,
};

use crate::ddl::{parse_schema, ColType, StarSchema, TableSpec, MAX_SCHEMA_BYTES};
use crate::order::dimension_order;
use crate::source::{is_parquet, position, read_table};
use crate::text::{find_file, store_schema};
use crate::{Error, Result};

/// How [`load_star`] / [`load_tables`] write.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// How each table is written (encodings, threads).
    pub write: WriteOptions,
    /// What `DATABASE`'s meta records beside `fact` and `synonyms`; empty: `workload:
    /// star` and `source` (the directory read), as [`load_star`] writes it.
    pub meta: BTreeMap<String, serde_json::Value>,
    /// A foreign key with no dimension row joins nothing (its row reference is the
    /// dimension's row count) instead of failing the load: dbgen's SSB tables below SF 1,
    /// whose scaled-down date table lacks most order dates.
    pub dangling_keys_join_nothing: bool,
    /// Which foreign keys get a row-reference column.
    pub row_refs: RowRefs,
}

/// Which foreign keys of the fact get a row-reference column (`<fk>@<dim>`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum RowRefs {
    /// Every one (a join reads the dimension row directly, no join index is built).
    #[default]
    Every,
    /// Only those whose dimension is not stored in key order: where it is, the fact
    /// key's value ids already follow the dimension's rows and the engine's join index
    /// on the key (built at the first query, in one pass over the dimension's keys)
    /// gives the same ranges. `pmolap ssb load` writes so: its databases keep the
    /// layout they always had (no `lo_orderdate@date`).
    Reordered,
}

/// One table of a load.
#[derive(Debug, Clone)]
pub struct LoadedTable {
    pub name: String,
    /// The file it was read from (a generated table: what generated it).
    pub file: PathBuf,
    pub rows: u64,
    /// The columns its rows are stored by (dimensions; empty for the fact).
    pub order: Vec<String>,
    /// Seconds to read, check, encode and write it.
    pub seconds: f64,
}

/// A table's rows, read from a file or made by a generator, and where each came from.
#[derive(Debug)]
pub struct TableRows {
    /// The rows, in the columns of [`store_schema`] of the table.
    pub builder: TableBuilder,
    pub origin: Origin,
}

/// Where a table's rows came from, for messages naming a row.
#[derive(Debug, Clone)]
pub enum Origin {
    /// Read from `file`; row `i` is line `lines[i]`.
    File { file: PathBuf, lines: Vec<u64> },
    /// Made by a generator (e.g. `SSB generator, SF 1`); row `i` is its row `i + 1`.
    Generated(String),
}

impl Origin {
    /// `file:line` (or `generator: row n`) of row `row`.
    fn at(&self, row: usize) -> String {
        match self {
            Origin::File { file, lines } => {
                position(file, lines.get(row).copied().unwrap_or_default())
            }
            Origin::Generated(what) => format!("{what}: row {}", row + 1),
        }
    }

    fn path(&self) -> PathBuf {
        match self {
            Origin::File { file, .. } => file.clone(),
            Origin::Generated(what) => PathBuf::from(what),
        }
    }
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
    load_files(&star, from, out, opts, on_table)
}

/// [`load_star`] of a schema already read: each table from its file in `from`.
pub fn load_files(
    star: &StarSchema,
    from: &Path,
    out: &Path,
    opts: &LoadOptions,
    on_table: &dyn Fn(&str),
) -> Result<Vec<LoadedTable>> {
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
        .map(|t| Ok((t.name.clone(), find_file(from, t)?)))
        .collect::<Result<HashMap<_, _>>>()?;
    let mut opts = opts.clone();
    if opts.meta.is_empty() {
        opts.meta
            .insert("workload".to_string(), serde_json::json!("star"));
        opts.meta.insert(
            "source".to_string(),
            serde_json::json!(format!("{}", from.display())),
        );
    }
    let mut read = |t: &TableSpec| -> Result<TableRows> {
        let file = &files[&t.name];
        let (builder, lines) = read_table(file, t, &store_schema(t)?)?;
        Ok(TableRows {
            builder,
            origin: Origin::File {
                file: file.clone(),
                lines,
            },
        })
    };
    load_tables(star, &mut read, out, &opts, on_table)
}

/// The load itself, whatever the rows come from: `read(table)` gives each table's rows
/// (dimensions first, the fact last, in [`StarSchema::tables`] order), in the columns of
/// [`store_schema`]; keys are checked, dimensions ordered ([`dimension_order`]), the
/// fact given its row-reference columns, and everything written as a new generation of
/// the database `out`, published whole. `on_table(name)` is called as each table starts.
pub fn load_tables(
    star: &StarSchema,
    read: &mut dyn FnMut(&TableSpec) -> Result<TableRows>,
    out: &Path,
    opts: &LoadOptions,
    on_table: &dyn Fn(&str),
) -> Result<Vec<LoadedTable>> {
    let mut meta = opts.meta.clone();
    meta.insert("fact".to_string(), serde_json::json!(star.fact().name));
    if !star.synonyms.is_empty() {
        meta.insert(
            "synonyms".to_string(),
            serde_json::json!(star.synonyms.iter().cloned().collect::<BTreeMap<_, _>>()),
        );
    }
    let mut writer = DatabaseWriter::begin(
        out,
        &DbWriteOptions {
            meta,
            ..Default::default()
        },
    )?;
    let mut done = Vec::new();
    // Per dimension: its keys in stored order, and whether that is its key order.
    let mut keys: HashMap<String, (Vec<i64>, bool)> = HashMap::new();
    let n = star.tables.len();
    for (i, t) in star.tables.iter().enumerate() {
        pmolap_os::signal::check()?;
        on_table(&t.name);
        let t0 = Instant::now();
        let TableRows {
            builder: mut b,
            origin,
        } = read(t)?;
        let schema = store_schema(t)?;
        if *b.schema() != schema {
            return Err(Error::Schema(format!(
                "{}: the rows given have other columns than table {} declares",
                origin.path().display(),
                t.name
            )));
        }
        check_primary_key(t, &b, &origin)?;
        let order = if i + 1 < n {
            let order = dimension_order(t, &b);
            let cols: Vec<&str> = order.iter().map(String::as_str).collect();
            b.sort_rows_by(&cols)?;
            let pk = &t.primary_key[0];
            let k = b
                .int_column(pk)
                .ok_or_else(|| Error::Schema(format!("{}.{pk} is not an int column", t.name)))?;
            keys.insert(t.name.clone(), (k.to_vec(), order == [pk.clone()]));
            order
        } else {
            add_row_refs(star, &mut b, &origin, &keys, opts)?;
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
            file: origin.path(),
            rows: m.rows,
            order,
            seconds: t0.elapsed().as_secs_f64(),
        });
    }
    let fact = star.fact();
    for fk in &fact.foreign_keys {
        if !gets_row_ref(&fk.table, &keys, opts) {
            continue;
        }
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

/// Whether the foreign key into `dim` gets a row-reference column under `opts`.
fn gets_row_ref(dim: &str, keys: &HashMap<String, (Vec<i64>, bool)>, opts: &LoadOptions) -> bool {
    match opts.row_refs {
        RowRefs::Every => true,
        RowRefs::Reordered => keys.get(dim).is_none_or(|(_, key_order)| !key_order),
    }
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

/// Fails naming the line of the first row whose primary key an earlier row has. Rows
/// already in strictly increasing key order (integer keys: a generator's or dbgen's fact
/// table) pass in one look at each row; else sorts row numbers by key (4 bytes a row
/// beside the keys' codes, no per-row allocation) and compares neighbours.
fn check_primary_key(t: &TableSpec, b: &TableBuilder, origin: &Origin) -> Result<()> {
    if t.primary_key.is_empty() {
        return Ok(());
    }
    let ints: Option<Vec<&[i64]>> = t.primary_key.iter().map(|c| b.int_column(c)).collect();
    if let Some(ints) = ints {
        let increasing = (1..b.rows()).all(|r| {
            ints.iter()
                .map(|c| c[r - 1].cmp(&c[r]))
                .find(|o| o.is_ne())
                .is_some_and(|o| o.is_lt())
        });
        if increasing {
            return Ok(());
        }
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
        let earlier = match origin {
            Origin::File { file, lines } => format!(
                "{} {}",
                if is_parquet(file) { "row" } else { "line" },
                lines.get(first).copied().unwrap_or_default()
            ),
            Origin::Generated(_) => format!("row {}", first + 1),
        };
        return Err(Error::Data(format!(
            "{}: column {pos} `{}`: duplicate primary key ({}) — {earlier} has it too",
            origin.at(again),
            t.primary_key[0],
            t.primary_key.join(", "),
        )));
    }
    Ok(())
}

/// Adds the fact's row-reference column of each foreign key that gets one
/// ([`LoadOptions::row_refs`]); fails naming the line of the first key with no
/// dimension row (unless [`LoadOptions::dangling_keys_join_nothing`]).
fn add_row_refs(
    star: &StarSchema,
    b: &mut TableBuilder,
    origin: &Origin,
    keys: &HashMap<String, (Vec<i64>, bool)>,
    opts: &LoadOptions,
) -> Result<()> {
    let fact = star.fact();
    for fk in &fact.foreign_keys {
        let (dim_keys, _) = keys
            .get(&fk.table)
            .ok_or_else(|| Error::Schema(format!("dimension {} is not loaded", fk.table)))?;
        let add = gets_row_ref(&fk.table, keys, opts);
        if !add && opts.dangling_keys_join_nothing {
            continue; // nothing to check, nothing to add
        }
        let values = b.int_column(&fk.column).ok_or_else(|| {
            Error::Schema(format!("{}.{} is no int column", fact.name, fk.column))
        })?;
        let mut refs = row_refs(values, dim_keys)?;
        let missing = dim_keys.len() as i64;
        // A NULL key joins no row: its reference is the dimension's row count, as a
        // dangling key's would be (the engine's join misses it).
        let nulls = b.nulls(&fk.column);
        if let Some(n) = nulls {
            for (x, _) in refs.iter_mut().zip(n).filter(|(_, &n)| n) {
                *x = missing;
            }
        }
        let is_null = |r: usize| nulls.is_some_and(|n| n[r]);
        let dangling = (0..refs.len()).find(|&r| refs[r] == missing && !is_null(r));
        if let Some(r) = dangling.filter(|_| !opts.dangling_keys_join_nothing) {
            let (pos, ty) = fact
                .columns
                .iter()
                .enumerate()
                .find(|(_, c)| c.name == fk.column)
                .map_or((0, ColType::BigInt), |(i, c)| (i + 1, c.ty));
            let d = star.tables.iter().find(|t| t.name == fk.table);
            return Err(Error::Data(format!(
                "{}: column {pos} `{}`: foreign key {} has no row in {} ({})",
                origin.at(r),
                fk.column,
                shown(values[r], ty),
                fk.table,
                d.map_or(String::new(), |d| d.primary_key.join(", "))
            )));
        }
        if add {
            b.add_int_column(&RowRef::column_name(&fk.column, &fk.table), refs)?;
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
