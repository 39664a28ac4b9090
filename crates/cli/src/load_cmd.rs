//! `pmolap load`: a user's star schema (CREATE TABLE file + a delimited text file per
//! table) into a database — parses the flags, shows progress and prints; the load is
//! `pmolap_load::load_star`, the reopen check `pmolap_load::reopen_database`.

use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use pmolap_load::{load_star, LoadOptions};
use pmolap_store::{Placement, WriteOptions};
use pmolap_tier::TierSpec;

/// Flags of `pmolap load`.
#[derive(Debug, Args)]
pub struct LoadArgs {
    /// The schema: CREATE TABLE statements with PRIMARY KEY and REFERENCES (docs/load.md).
    #[arg(long)]
    schema: PathBuf,
    /// The directory of the tables' files: `<table>.csv`, `.tbl`, `.tsv` or `.txt`
    /// (`|`, `,` or tab; a header line optional).
    #[arg(long)]
    from: PathBuf,
    /// The database directory (created if missing; a database there is replaced whole).
    #[arg(long)]
    out: PathBuf,
    /// Where to reopen the tables to verify them: `home` (where they were written) or a
    /// tier spec (`dram`, `file:PATH`, …).
    #[arg(long, default_value = "home")]
    tier: String,
    /// Encode every column with a sorted dictionary (no frame-of-reference int columns).
    #[arg(long)]
    dictionary_only: bool,
    /// No per-table lines.
    #[arg(long)]
    quiet: bool,
}

/// Runs `pmolap load`.
pub fn run(a: &LoadArgs) -> Result<()> {
    let placement = if a.tier == "home" {
        Placement::home()
    } else {
        Placement::all(a.tier.parse::<TierSpec>().context("--tier")?)
    };
    let opts = LoadOptions {
        write: WriteOptions {
            dictionary_only: a.dictionary_only,
            ..WriteOptions::default()
        },
        ..LoadOptions::default()
    };
    // Progress on a terminal only (an error stays the one line on stderr).
    let progress = !a.quiet && std::io::stderr().is_terminal();
    let loaded = load_star(&a.schema, &a.from, &a.out, &opts, &|t| {
        if progress {
            eprintln!("loading {t} …");
        }
    })
    .with_context(|| format!("loading into {}", a.out.display()))?;
    let reopened = pmolap_load::reopen_database(&a.out, &placement).with_context(|| {
        format!(
            "{} was loaded and committed, but reopening it on {} to verify it failed",
            a.out.display(),
            a.tier
        )
    })?;
    if !a.quiet {
        for l in &loaded {
            let secs = reopened
                .iter()
                .find(|(n, _, _)| *n == l.name)
                .map_or(f64::NAN, |r| r.2);
            let order = if l.order.is_empty() {
                "the fact table".to_string()
            } else {
                format!("rows ordered by {}", l.order.join(", "))
            };
            println!(
                "{:>12}: {} rows from {} in {:.2} s ({order}), reopened on {} with checksums verified in {secs:.2} s",
                l.name,
                l.rows,
                l.file.display(),
                l.seconds,
                a.tier
            );
        }
    }
    Ok(())
}
