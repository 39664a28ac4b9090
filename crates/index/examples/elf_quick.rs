//! A quick measurement (not the paper's benchmark): builds an Elf over the paper's uniform
//! data (`ROWS` rows × 10 dimensions, values 0–100; default 1 M) on DRAM and as a file in
//! `DIR` (default the temp dir), and times exact-match, range and partial-match queries.
//! Usage: `cargo run --release -p pmolap-index --example elf_quick [ROWS] [DIR]`.

use std::time::Instant;

use pmolap_index::elf;
use pmolap_index::{Elf, WriteOptions};
use pmolap_tier::TierSpec;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let rows: usize = args.next().map_or(Ok(1_000_000), |s| s.parse())?;
    let dir = args.next().map_or_else(std::env::temp_dir, Into::into);
    let dims = 10;
    let flat = elf::uniform_rows(rows, dims, 100, 42);

    let t = Instant::now();
    let mem = Elf::build(dims, &flat, &TierSpec::Dram { node: None })?;
    println!(
        "build dram: {:.3} s, {} words ({:.1} MiB)",
        t.elapsed().as_secs_f64(),
        mem.words().len(),
        mem.size_bytes() as f64 / (1 << 20) as f64
    );
    let path = dir.join(format!("elf-quick-{}.elf", std::process::id()));
    let t = Instant::now();
    let file = Elf::write(&path, dims, &flat, &WriteOptions::default())?;
    println!(
        "write file {}: {:.3} s",
        path.display(),
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let reopened = Elf::open(&path, &TierSpec::Dram { node: None })?;
    println!(
        "open (verify + copy to dram): {:.3} s",
        t.elapsed().as_secs_f64()
    );
    assert_eq!(reopened.words(), mem.words());

    for (name, elf) in [("dram", &mem), ("file", &file)] {
        let mut rng = SmallRng::seed_from_u64(1);
        let n = 200_000;
        let mut out = Vec::new();
        let t = Instant::now();
        let mut found = 0;
        for _ in 0..n {
            let r = rng.gen_range(0..rows);
            out.clear();
            elf.exact_into(&flat[r * dims..r * dims + dims], &mut out)?;
            found += out.len();
        }
        let s = t.elapsed().as_secs_f64();
        println!("{name}: exact {:.0} q/s ({found} TIDs)", n as f64 / s);

        let n = 2_000;
        let t = Instant::now();
        let mut hits = 0;
        for _ in 0..n {
            // The paper's range query: bounds from the values of two random rows.
            let (a, b) = (rng.gen_range(0..rows), rng.gen_range(0..rows));
            let lo: Vec<u32> = (0..dims)
                .map(|d| flat[a * dims + d].min(flat[b * dims + d]))
                .collect();
            let hi: Vec<u32> = (0..dims)
                .map(|d| flat[a * dims + d].max(flat[b * dims + d]))
                .collect();
            out.clear();
            elf.range_into(&lo, &hi, &mut out)?;
            hits += out.len();
        }
        let s = t.elapsed().as_secs_f64();
        println!(
            "{name}: range {:.0} q/s ({:.1} TIDs/query)",
            n as f64 / s,
            hits as f64 / n as f64
        );

        let t = Instant::now();
        let mut hits = 0;
        for _ in 0..n {
            // Partial match: 3 random dimensions bounded (by two rows' values), others open.
            let (a, b) = (rng.gen_range(0..rows), rng.gen_range(0..rows));
            let mut bounds = vec![None; dims];
            for _ in 0..3 {
                let d = rng.gen_range(0..dims);
                let (x, y) = (flat[a * dims + d], flat[b * dims + d]);
                bounds[d] = Some((x.min(y), x.max(y)));
            }
            hits += elf.partial(&bounds)?.len();
        }
        let s = t.elapsed().as_secs_f64();
        println!(
            "{name}: partial {:.0} q/s ({:.1} TIDs/query)",
            n as f64 / s,
            hits as f64 / n as f64
        );
    }
    drop(file);
    std::fs::remove_file(&path)?;
    Ok(())
}
