//! `pmolap store info DIR [--json]`: a column-store table's schema, row count, and per
//! column the size, bit width and location (tier, file, durability) of every structure;
//! given a database directory, what `DATABASE` records (fact table, row references,
//! DECIMAL/DATE types, synonyms) and then each of its tables.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Subcommand;

use std::collections::BTreeMap;

use serde::Serialize;

use pmolap_store::{
    ColumnEncoding, DatabaseSnapshot, OpenOptions, Placement, RowRef, StructureKind, Table,
    TableInfo, TypedColumn,
};

#[derive(Debug, Subcommand)]
pub enum StoreCommand {
    /// Schema, rows, and per column the size, bit width and tier of every structure (of
    /// one table, or of every table of a database).
    Info {
        /// A table directory, `<database>/<table>`, or a database directory.
        dir: PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Runs one `pmolap store` subcommand.
pub fn run(cmd: &StoreCommand) -> Result<()> {
    match cmd {
        StoreCommand::Info { dir, json } => info(dir, *json),
    }
}

/// Opens the table in `dir` in place (checksums verified) and prints what it is; a
/// database directory: the database, then each table.
pub fn info(dir: &Path, json: bool) -> Result<()> {
    if dir.join(pmolap_store::database::DATABASE).is_file() {
        return database_info(dir, json);
    }
    let info = table_info(dir)?;
    if json {
        crate::output::print_json(&info, "the table info")
    } else {
        crate::output::print_text(&render(&info, &|_| None))
    }
}

fn table_info(dir: &Path) -> Result<TableInfo> {
    let table = Table::open_with(dir, &Placement::home(), &OpenOptions::default())
        .and_then(|t| t.verify().map(|()| t))
        .with_context(|| format!("opening the column-store table in {}", dir.display()))?;
    Ok(table.info())
}

/// A database as `store info --json` prints it.
#[derive(Debug, Serialize)]
struct DatabaseInfo<'a> {
    database: &'a Path,
    format_version: u32,
    generation: u64,
    meta: &'a BTreeMap<String, serde_json::Value>,
    row_refs: &'a [RowRef],
    types: &'a [TypedColumn],
    tables: Vec<TableInfo>,
}

/// The database in `dir` (its shared lock held while reading): what `DATABASE` records,
/// then every table (checksums verified), its DECIMAL and DATE columns so named.
fn database_info(dir: &Path, json: bool) -> Result<()> {
    let snap = DatabaseSnapshot::open(dir)
        .with_context(|| format!("opening the database in {}", dir.display()))?;
    let m = snap
        .manifest()
        .with_context(|| format!("{}: no DATABASE file", dir.display()))?;
    let tables = snap
        .tables()
        .iter()
        .map(|(_, path)| table_info(path))
        .collect::<Result<Vec<_>>>()?;
    let info = DatabaseInfo {
        database: dir,
        format_version: m.format_version,
        generation: m.generation,
        meta: &m.meta,
        row_refs: &m.row_refs,
        types: &m.types,
        tables,
    };
    if json {
        return crate::output::print_json(&info, "the database info");
    }
    let mut s = String::new();
    let _ = writeln!(s, "database   {}", dir.display());
    let _ = writeln!(
        s,
        "format     version {}, generation {}",
        m.format_version, m.generation
    );
    for (k, v) in &m.meta {
        let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
        let _ = writeln!(s, "{:<10} {v}", k);
    }
    let names: Vec<String> = snap
        .tables()
        .iter()
        .zip(&info.tables)
        .map(|((n, _), t)| format!("{n} ({} rows)", t.rows))
        .collect();
    let _ = writeln!(s, "tables     {}", names.join(", "));
    for r in &m.row_refs {
        let order = if r.order.is_empty() {
            String::new()
        } else {
            format!(", its rows ordered by {}", r.order.join(", "))
        };
        let _ = writeln!(
            s,
            "row refs   {}.{} -> {}.{} (column {}{order})",
            r.table, r.key, r.dim, r.dim_key, r.column
        );
    }
    for ((name, _), t) in snap.tables().iter().zip(&info.tables) {
        let _ = writeln!(s);
        s.push_str(&render(t, &|c| {
            m.logical_type(name, c)
                .map(|ty| ty.to_string().to_lowercase())
        }));
    }
    crate::output::print_text(&s)
}

fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// The text report; `logical(column)` names a column's DECIMAL or DATE type.
fn render(info: &TableInfo, logical: &dyn Fn(&str) -> Option<String>) -> String {
    let mut s = String::new();
    let total: u64 = info
        .columns
        .iter()
        .flat_map(|c| c.structures.iter().map(|st| st.info.file_bytes))
        .sum();
    let _ = writeln!(s, "table      {}", info.dir.display());
    let _ = writeln!(
        s,
        "format     version {}, generation {}",
        info.format_version, info.generation
    );
    let _ = writeln!(s, "rows       {}", info.rows);
    let _ = writeln!(
        s,
        "columns    {} ({} in {} structure files)",
        info.columns.len(),
        human(total),
        info.columns
            .iter()
            .map(|c| c.structures.len())
            .sum::<usize>()
    );
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "{:<20} {:<4} {:>10} {:>5}  {:<15} {:>10}  {:<10} {:<14} file",
        "column", "type", "value ids", "bits", "structure", "size", "tier", "durability"
    );
    for c in &info.columns {
        for (i, sd) in c.structures.iter().enumerate() {
            let st = &sd.info;
            let (name, ty, distinct, bits) = if i == 0 {
                (
                    c.name.as_str(),
                    logical(&c.name).unwrap_or_else(|| c.ty.to_string()),
                    c.dict_len.to_string(),
                    c.bit_width.to_string(),
                )
            } else {
                ("", String::new(), String::new(), String::new())
            };
            let tier = if st.zero_copy {
                "home".to_string()
            } else {
                st.tier.clone()
            };
            let file = st
                .region_path
                .as_deref()
                .unwrap_or(st.file.as_path())
                .file_name()
                .map(|f| f.to_string_lossy().to_string())
                .unwrap_or_default();
            let structure = match (sd.kind, c.encoding) {
                (StructureKind::Dictionary, ColumnEncoding::Frame) => "frame".to_string(),
                (k, _) => k.to_string(),
            };
            let _ = writeln!(
                s,
                "{name:<20} {ty:<4} {distinct:>10} {bits:>5}  {structure:<15} {:>10}  {tier:<10} {:<14} {file}",
                human(st.file_bytes),
                st.durability
            );
        }
    }
    s
}
