//! `pmolap store info DIR [--json]`: a column-store table's schema, row count, and per
//! column the size, bit width and location (tier, file, durability) of every structure.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Subcommand;

use pmolap_store::{ColumnEncoding, OpenOptions, Placement, StructureKind, Table, TableInfo};

#[derive(Debug, Subcommand)]
pub enum StoreCommand {
    /// Schema, rows, and per column the size, bit width and tier of every structure.
    Info {
        /// A table directory.
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

/// Opens the table in `dir` in place (checksums verified) and prints what it is.
pub fn info(dir: &Path, json: bool) -> Result<()> {
    let table = Table::open_with(dir, &Placement::home(), &OpenOptions::default())
        .and_then(|t| t.verify().map(|()| t))
        .with_context(|| format!("opening the column-store table in {}", dir.display()))?;
    let info = table.info();
    if json {
        crate::output::print_json(&info, "the table info")
    } else {
        crate::output::print_text(&render(&info))
    }
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

/// The text report.
fn render(info: &TableInfo) -> String {
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
                    c.ty.to_string(),
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
