//! Reading data the page cache holds through a file mapping vs the same bytes copied to
//! DRAM (anonymous memory): ns per 4 KiB page, touching every 64-byte line or one word
//! per page, and ns per random 8-byte load (independent, then a dependent chain).
//! Usage: `cargo run --release -p pmolap-tier --example resident_probe -- DIR [MiB] [small]`
//! (writes DIR/resident-probe.bin, refused if it exists, removed at the end). `small`
//! drops the file's pages and reads them back one 4 KiB page at a time with read-ahead off
//! (`POSIX_FADV_RANDOM`), so the page cache holds them in single-page folios instead of
//! the large folios a sequential write or read leaves (ext4 since Linux 6.x).
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

/// `n` random 8-byte loads over `b`; dependent: each address depends on the last value.
fn random(b: &[u8], n: usize, seed: u64, dependent: bool) -> u64 {
    let words = (b.len() / 8) as u64;
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut s = 0u64;
    for _ in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let k = if dependent {
            (x ^ (s & 1)) % words
        } else {
            x % words
        } as usize
            * 8;
        s = s.wrapping_add(u64::from_ne_bytes(b[k..k + 8].try_into().unwrap()));
    }
    s
}

/// Runs `f` on the file mapping and the DRAM copy in turn, 7 times each; prints the
/// median (and min) ns per unit of `f`'s count and the ratio of the medians.
fn alternate(
    label: &str,
    unit: &str,
    file: &ReadOnlyRegion,
    dram: &Region,
    mut f: impl FnMut(&[u8], u64) -> usize,
) {
    let (mut f_ns, mut d_ns) = (Vec::new(), Vec::new());
    for round in 0..7u64 {
        for (b, out) in [(file.as_slice(), &mut f_ns), (dram.as_slice(), &mut d_ns)] {
            let t = Instant::now();
            let n = f(b, round);
            out.push(t.elapsed().as_nanos() as f64 / n as f64);
        }
    }
    f_ns.sort_by(f64::total_cmp);
    d_ns.sort_by(f64::total_cmp);
    println!(
        "{label}: file-mapped {:.1} ns/{unit} (min {:.1}), dram {:.1} (min {:.1}), ratio {:.3}",
        f_ns[3],
        f_ns[0],
        d_ns[3],
        d_ns[0],
        f_ns[3] / d_ns[3]
    );
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
    if a.get(3).map(String::as_str) == Some("small") {
        use pmolap_tier::io::{fadvise, Advice};
        use std::os::unix::fs::FileExt;
        let f = std::fs::File::open(&path).unwrap();
        fadvise(&f, &path, Advice::DontNeed).unwrap();
        fadvise(&f, &path, Advice::Random).unwrap();
        let mut page = vec![0u8; 4096];
        for off in (0..len as u64).step_by(4096) {
            f.read_exact_at(&mut page, off).unwrap();
        }
    }
    let opts = RegionOptions {
        prefault: true,
        ..RegionOptions::default()
    };
    let file = ReadOnlyRegion::open(&path, len, &opts).unwrap();
    let mut dram = Region::new(&TierSpec::Dram { node: None }, len, &opts).unwrap();
    dram.as_mut_slice().copy_from_slice(file.as_slice());
    let pages = len / 4096;
    for stride in [64usize, 4096] {
        let label = format!("stride {stride}");
        alternate(&label, "page", &file, &dram, |b, _| {
            black_box(scan(black_box(b), stride));
            pages
        });
    }
    // Random 8-byte loads (independent, then a dependent chain): what a lookup pays.
    for (label, dependent) in [("random independent", false), ("random dependent", true)] {
        alternate(label, "load", &file, &dram, |b, round| {
            black_box(random(black_box(b), pages, round + 1, dependent));
            pages
        });
    }
    drop(file);
    std::fs::remove_file(&path).unwrap();
}
