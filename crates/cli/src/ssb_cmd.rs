//! `pmolap ssb gen`: writes Star Schema Benchmark `.tbl` files byte-identical to the
//! original SSBM dbgen (`TZ=UTC dbgen -s SF -T a`), formatted in parallel.

use std::fs::File;
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};

use pmolap_ssb::{generate_table_with_progress, row_count, Table};

/// The tables named in `tables` (each entry may itself be a comma-separated list), in the
/// order given without repeats; all five in dbgen's order when `tables` is empty.
fn parse_tables(tables: &[String]) -> Result<Vec<Table>> {
    let mut out = Vec::new();
    for name in tables.iter().flat_map(|t| t.split(',')).map(str::trim) {
        if name.is_empty() {
            continue;
        }
        let table: Table = name.parse().with_context(|| format!("--tables {name:?}"))?;
        if !out.contains(&table) {
            out.push(table);
        }
    }
    if out.is_empty() {
        out = Table::ALL.to_vec();
    }
    Ok(out)
}

/// Generates `<out>/<table>.tbl` for each table at scale factor `sf` with `threads`
/// formatting threads (0: all available cores), showing a progress bar per table and
/// printing one summary line per table.
pub fn gen(sf: f64, out: &Path, threads: usize, tables: &[String]) -> Result<()> {
    let tables = parse_tables(tables)?;
    let threads = if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    };
    std::fs::create_dir_all(out)
        .with_context(|| format!("creating output directory {}", out.display()))?;
    let style = ProgressStyle::with_template(
        "{prefix:>10} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} rows ({per_sec}, eta {eta})",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    let started = Instant::now();
    let mut all_rows = 0u64;
    for table in tables {
        let total = row_count(table, sf).with_context(|| format!("sizing the {table} table"))?;
        let path = out.join(table.file_name());
        let tmp = out.join(format!("{}.tmp", table.file_name()));
        let bar = ProgressBar::new(total)
            .with_style(style.clone())
            .with_prefix(table.name());
        let t0 = Instant::now();
        let file = File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
        let mut w = StopOnInterrupt(std::io::BufWriter::with_capacity(1 << 20, file));
        let generated = generate_table_with_progress(table, sf, &mut w, threads, |n| bar.inc(n))
            .map_err(anyhow::Error::from)
            .and_then(|rows| {
                std::io::Write::flush(&mut w.0)?;
                Ok(rows)
            })
            .with_context(|| format!("generating {} at SF {sf}", path.display()));
        drop(w);
        let rows = match generated {
            Ok(rows) => rows,
            Err(e) => {
                // Interrupted, out of room (also `ulimit -f`) or failed: no litter.
                bar.finish_and_clear();
                let _ = std::fs::remove_file(&tmp);
                return Err(e);
            }
        };
        std::fs::rename(&tmp, &path)
            .with_context(|| format!("renaming {} to {}", tmp.display(), path.display()))?;
        bar.finish_and_clear();
        let secs = t0.elapsed().as_secs_f64();
        let bytes = std::fs::metadata(&path)
            .with_context(|| format!("reading the size of {}", path.display()))?
            .len();
        println!(
            "{:<10} {:>12} rows {:>10.1} MB {:>8.3} s {:>10.2} M rows/s  {}",
            table.name(),
            rows,
            bytes as f64 / 1e6,
            secs,
            rows as f64 / secs.max(1e-9) / 1e6,
            path.display()
        );
        all_rows += rows;
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{:<10} {:>12} rows {:>21.3} s {:>10.2} M rows/s  (SF {sf}, {threads} threads)",
        "total",
        all_rows,
        secs,
        all_rows as f64 / secs.max(1e-9) / 1e6
    );
    Ok(())
}

/// A writer that fails once SIGINT/SIGTERM arrived, so a generator stops at its next
/// write and the caller can remove its temporary file.
struct StopOnInterrupt<W>(W);

impl<W: std::io::Write> std::io::Write for StopOnInterrupt<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if pmolap_os::signal::interrupted() {
            // Not ErrorKind::Interrupted: write_all would retry that forever.
            return Err(std::io::Error::other("interrupted"));
        }
        self.0.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_lists() {
        assert_eq!(parse_tables(&[]).unwrap(), Table::ALL.to_vec());
        assert_eq!(
            parse_tables(&["lineorder,part".into(), "part".into()]).unwrap(),
            vec![Table::LineOrder, Table::Part]
        );
        assert!(parse_tables(&["orders".into()]).is_err());
    }

    #[test]
    fn writes_files() {
        let dir = tempfile::tempdir().unwrap();
        gen(0.01, dir.path(), 2, &["supplier".into(), "date".into()]).unwrap();
        let supplier = std::fs::read_to_string(dir.path().join("supplier.tbl")).unwrap();
        assert_eq!(supplier.lines().count(), 20);
        assert!(supplier.starts_with("1|Supplier#000000001|sdrGnXCDRcfriBvY0KL,i|PERU     3|"));
        let date = std::fs::read_to_string(dir.path().join("date.tbl")).unwrap();
        assert_eq!(date.lines().count(), 25);
    }
}
