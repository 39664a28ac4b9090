//! `pmolap ssb load`: parses, shows progress and prints; the load itself (one database
//! generation published whole) is `pmolap_ssb::load_database`.

use std::path::Path;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};

use pmolap_ssb::{load_database, reopen_database};
use pmolap_store::{Placement, WriteOptions};
use pmolap_tier::TierSpec;

/// Loads the five SSB tables at `sf` (or from dbgen's `.tbl` files in `tbl_dir`) into the
/// database `out`, then reopens each on `tier` (`home`: where it was written) with
/// checksums verified. `dictionary_only`: no frame-of-reference int columns.
pub fn load(
    sf: f64,
    tier: &str,
    out: &Path,
    tbl_dir: Option<&Path>,
    dictionary_only: bool,
    quiet: bool,
) -> Result<()> {
    let placement = if tier == "home" {
        Placement::home()
    } else {
        Placement::all(tier.parse::<TierSpec>().context("--tier")?)
    };
    let pb = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(0)
    };
    pb.set_style(
        ProgressStyle::with_template("{msg:>10} {bar:30} {pos}/{len} rows")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let on_table = |t: pmolap_ssb::Table, rows: u64| {
        pb.set_message(t.to_string());
        pb.set_position(0);
        pb.set_length(rows);
    };
    let opts = WriteOptions {
        dictionary_only,
        ..WriteOptions::default()
    };
    let loaded = load_database(sf, out, tbl_dir, &opts, &on_table, &|n| pb.inc(n))
        .with_context(|| format!("loading into {}", out.display()))?;
    pb.finish_and_clear();
    let reopened = reopen_database(out, &placement).with_context(|| {
        format!(
            "{} was loaded and committed, but reopening it on {tier} to verify it failed",
            out.display()
        )
    })?;
    if !quiet {
        for l in &loaded {
            let name = l.table.to_string();
            let secs = reopened
                .iter()
                .find(|(n, _, _)| *n == name)
                .map_or(f64::NAN, |r| r.2);
            println!(
                "{name:>10}: {} rows written in {:.2} s, reopened on {tier} with checksums verified in {secs:.2} s -> {}",
                l.rows,
                l.seconds,
                out.join(&name).display()
            );
        }
    }
    Ok(())
}
