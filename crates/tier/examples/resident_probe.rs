//! Reading data the page cache holds through a file mapping vs the same bytes copied to
//! DRAM (anonymous memory): ns per 4 KiB page, touching every 64-byte line or one word
//! per page. Usage: `cargo run --release -p pmolap-tier --example resident_probe -- DIR [MiB]`
//! (writes DIR/resident-probe.bin, refused if it exists, removed at the end).
use std::hint::black_box;
use std::io::Write;
use std::time::Instant;

use pmolap_tier::{ReadOnlyRegion, Region, RegionOptions, TierSpec};

fn scan(b: &[u8], stride: usize) -> u64 {
    let mut s = 0u64;
    let mut i = 0;
    while i + 8 <= b.len() {
        s = s.wrapping_add(u64::from_ne_bytes(b[i..i + 8].try_into().unwrap()));
        i += stride;
    }
    s
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let dir = std::path::PathBuf::from(&a[1]);
    let mib: usize = a.get(2).map_or(512, |s| s.parse().unwrap());
    let len = mib << 20;
    let path = dir.join("resident-probe.bin");
    {
        // A file already there is not ours to overwrite.
        let mut f = std::fs::File::create_new(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (remove it first)", path.display()));
        let chunk: Vec<u8> = (0..(1 << 20)).map(|i| (i * 7) as u8).collect();
        for _ in 0..mib {
            f.write_all(&chunk).unwrap();
        }
        f.sync_all().unwrap();
    }
    let opts = RegionOptions {
        prefault: true,
        ..RegionOptions::default()
    };
    let file = ReadOnlyRegion::open(&path, len, &opts).unwrap();
    let mut dram = Region::new(&TierSpec::Dram { node: None }, len, &opts).unwrap();
    dram.as_mut_slice().copy_from_slice(file.as_slice());
    let pages = (len / 4096) as f64;
    for stride in [64usize, 4096] {
        let (mut f_ns, mut d_ns) = (Vec::new(), Vec::new());
        for _ in 0..7 {
            for (which, out) in [(0, &mut f_ns), (1, &mut d_ns)] {
                let b = if which == 0 {
                    file.as_slice()
                } else {
                    dram.as_slice()
                };
                let t = Instant::now();
                black_box(scan(black_box(b), stride));
                out.push(t.elapsed().as_nanos() as f64 / pages);
            }
        }
        f_ns.sort_by(f64::total_cmp);
        d_ns.sort_by(f64::total_cmp);
        println!(
            "stride {stride}: file-mapped {:.1} ns/page (min {:.1}), dram {:.1} (min {:.1}), ratio {:.3}",
            f_ns[3], f_ns[0], d_ns[3], d_ns[0], f_ns[3] / d_ns[3]
        );
    }
    drop(file);
    std::fs::remove_file(&path).unwrap();
}
