//! A lazily opened table (`pmolap sql`'s open) maps a column's structures on the first
//! use of the column but faults each one's pages in only on the first use of that
//! structure: a use of the dictionary alone leaves the data vector's pages untouched, a
//! use of the column maps every page of it (by its checks, or by a prefault when
//! unverified).

mod common;

use std::path::Path;

use pmolap_store::{OpenOptions, Placement, Table};
use pmolap_tier::RegionOptions;

/// Resident bytes of this process's mappings of `file` (`Rss` in /proc/self/smaps).
fn rss_of(file: &Path) -> u64 {
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
    let want = file.to_str().unwrap();
    let mut rss = 0;
    let mut inside = false;
    for line in smaps.lines() {
        let mut f = line.split_whitespace();
        match (f.next(), f.next()) {
            (Some(first), _) if first.contains('-') && !first.ends_with(':') => {
                inside = line.ends_with(want);
            }
            (Some("Rss:"), Some(kb)) if inside => rss += kb.parse::<u64>().unwrap() * 1024,
            _ => {}
        }
    }
    rss
}

#[test]
fn a_structure_is_faulted_in_on_its_own_first_use() {
    let good = tempfile::tempdir().unwrap();
    common::build(good.path(), 300_000, 5);
    let dv = good.path().join("c0000.dv.g1");
    let dv_bytes = std::fs::metadata(&dv).unwrap().len();
    assert!(dv_bytes > 64 << 10, "{dv_bytes} bytes: too small to tell");
    for verify in [true, false] {
        let opts = OpenOptions {
            verify_checksums: verify,
            region: RegionOptions {
                prefault: true,
                ..RegionOptions::default()
            },
            lazy: true,
        };
        let t = Table::open_with(good.path(), &Placement::home(), &opts).unwrap();
        assert!(t.dictionary("id").unwrap().len() > 1000);
        // Mapped with its column, none of its pages faulted in: at most the one the
        // data vector's open read through the mapping.
        let before = rss_of(&dv);
        assert!(
            before <= 8 << 10,
            "verify {verify}: {before} of {dv_bytes} bytes of the data vector resident after a use of the dictionary alone"
        );
        let col = t.column("id").unwrap();
        let after = rss_of(&dv);
        assert!(
            after + 8192 >= dv_bytes,
            "verify {verify}: {after} of {dv_bytes} bytes resident after the column's first use"
        );
        assert_eq!(col.rows(), 300_000);
        drop(t);
    }
}
