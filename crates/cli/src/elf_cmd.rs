//! `pmolap elf`: build an Elf index file, query it through a caching variant, and run the
//! selective-caching benchmark (`pmolap_index::elf::bench`, printed here).

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result};
pub use pmolap_index::elf::bench::BenchParams;
use pmolap_index::elf::{self, CachedElf, Variant};
use pmolap_index::Elf;
use pmolap_tier::TierSpec;

/// Builds the paper's uniform data (`rows` × `dims`, values `0..=max_value`, from `seed`)
/// and writes it as an Elf index file at `out` (atomic commit). Prints a summary.
pub fn build(rows: usize, dims: usize, max_value: u32, seed: u64, out: &Path) -> Result<()> {
    elf::check_build_size(rows, dims).context("elf build")?;
    let t = Instant::now();
    let flat = elf::uniform_rows(rows, dims, max_value, seed);
    let gen_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let e = Elf::write(out, dims, &flat, &Default::default())
        .with_context(|| format!("writing the Elf index {}", out.display()))?;
    let build_s = t.elapsed().as_secs_f64();
    println!(
        "{}: {} rows x {} dims, {:.1} MiB, generated in {gen_s:.2} s, built and written in {build_s:.2} s",
        out.display(),
        e.rows(),
        e.dims(),
        e.size_bytes() as f64 / (1 << 20) as f64
    );
    Ok(())
}

/// Builds an Elf over columns of a column-store table: the dimensions are the columns'
/// value ids (the dictionaries are order-preserving, so value ranges stay code ranges)
/// and the TIDs are the table's row numbers.
pub fn build_from_table(table: &Path, columns: &[String], out: &Path) -> Result<()> {
    anyhow::ensure!(
        !columns.is_empty(),
        "--columns: name at least one column of the table"
    );
    let t = Instant::now();
    let tab = pmolap_store::Table::open(table, &pmolap_store::Placement::home())
        .with_context(|| format!("opening the table in {}", table.display()))?;
    let rows = tab.rows();
    let dims = columns.len();
    let mut flat = vec![0u32; rows * dims];
    let mut ids = vec![0u32; rows];
    for (d, name) in columns.iter().enumerate() {
        let col = tab
            .column(name)
            .with_context(|| format!("{}: column `{name}`", table.display()))?;
        col.dv.unpack(0, &mut ids);
        for (r, id) in ids.iter().enumerate() {
            flat[r * dims + d] = *id;
        }
    }
    let read_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let e = Elf::write(out, dims, &flat, &Default::default())
        .with_context(|| format!("writing the Elf index {}", out.display()))?;
    println!(
        "{}: {} rows x {} dims ({}) from {}, {:.1} MiB, columns read in {read_s:.2} s, built and written in {:.2} s",
        out.display(),
        e.rows(),
        e.dims(),
        columns.join(","),
        table.display(),
        e.size_bytes() as f64 / (1 << 20) as f64,
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Opens the index at `index` onto `tier` (e.g. `file:PATH-of-the-index` = in place,
/// `dram` = the hybrid copy), reads it through `variant` (see [`Variant::parse`]) and
/// prints the TIDs of the rows inside the window `lo..=hi` (exact match: `lo == hi`;
/// an unrestricted dimension: 0 and 4294967295). Returns the TIDs.
pub fn query(index: &Path, tier: &str, variant: &str, lo: &[u32], hi: &[u32]) -> Result<Vec<u32>> {
    let tier: TierSpec = tier.parse()?;
    let variant = Variant::parse(variant)?;
    let e = Elf::open(index, &tier).with_context(|| format!("opening {}", index.display()))?;
    let mut c = CachedElf::new(&e, variant);
    let t = Instant::now();
    let tids = if lo == hi {
        c.exact(lo)?
    } else {
        c.range(lo, hi)?
    };
    let secs = t.elapsed().as_secs_f64();
    for t in &tids {
        println!("{t}");
    }
    let s = c.stats();
    eprintln!(
        "{} rows in {:.3} ms ({}; {} list reads from DRAM, {} from the array on {})",
        tids.len(),
        secs * 1e3,
        variant.name(),
        s.dram,
        s.pm,
        tier
    );
    Ok(tids)
}

/// `pmolap elf bench`: the benchmark of [`pmolap_index::elf::bench`] with its progress
/// lines on stderr; the document goes to `p.out`.
pub fn bench(p: &BenchParams) -> Result<()> {
    pmolap_index::elf::bench::bench(p, &|line| eprintln!("{line}"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_and_query_a_small_index() {
        let dir = tempfile::tempdir().unwrap();
        let idx = dir.path().join("i.elf");
        build(500, 3, 5, 1, &idx).unwrap();
        let tier = format!("file:{}", idx.display());
        let all = query(&idx, &tier, "static-2", &[0, 0, 0], &[5, 5, 5]).unwrap();
        assert_eq!(all.len(), 500);
    }
}
