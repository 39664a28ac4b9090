//! Guards `pmolap elf build --table`: an Elf over columns of a column-store table answers
//! window queries on value ids exactly like a scan of the table, and bad columns are
//! refused with one line; `elf bench` saves its document by default.

mod common;

use pmolap_store::{Placement, Table};

use common::{ok, pmolap, refused, ssb_load};

#[test]
fn elf_over_store_columns_matches_a_scan() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("ssb");
    ssb_load("0.01", &data);
    let idx = dir.path().join("lo.elf");
    let cols = ["lo_discount", "lo_quantity", "lo_shipmode"];
    ok(pmolap()
        .args(["elf", "build", "--table"])
        .arg(data.join("lineorder"))
        .args(["--columns", &cols.join(",")])
        .arg(&idx));
    let (lo, hi) = ([1u32, 0, 2], [3u32, 23, 4]);
    let out = ok(pmolap()
        .args([
            "elf", "query", "--tier", "dram", "--lo", "1,0,2", "--hi", "3,23,4",
        ])
        .arg(&idx));
    let mut got: Vec<u32> = out.lines().filter_map(|l| l.trim().parse().ok()).collect();
    got.sort_unstable();
    let t = Table::open(&data.join("lineorder"), &Placement::home()).unwrap();
    let c: Vec<_> = cols.iter().map(|n| t.column(n).unwrap()).collect();
    let want: Vec<u32> = (0..t.rows())
        .filter(|&r| (0..3).all(|d| (lo[d]..=hi[d]).contains(&c[d].value_id(r))))
        .map(|r| r as u32)
        .collect();
    assert!(!want.is_empty());
    assert_eq!(got, want);

    let err = refused(
        pmolap()
            .args(["elf", "build", "--table"])
            .arg(data.join("lineorder"))
            .args(["--columns", "lo_nope"])
            .arg(dir.path().join("x.elf")),
    );
    assert!(err.contains("lo_nope"), "{err}");
}

/// Like every bench command, `elf bench` without --out saves its document to
/// results/elf-bench-YYYYMMDD-HHMMSS.json (UTC) under the current directory.
#[test]
fn bench_saves_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let out = ok(pmolap()
        .current_dir(dir.path())
        .args([
            "elf", "bench", "--rows", "2000", "--dims", "3", "--dir", ".",
        ])
        .args([
            "--exact-queries",
            "200",
            "--range-queries",
            "5",
            "--window",
            "100",
        ])
        .args(["--max-secs", "0.2", "--no-cold"]));
    let names = common::entries(&dir.path().join("results"));
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(
        names[0].starts_with("elf-bench-20")
            && names[0].len() == "elf-bench-YYYYMMDD-HHMMSS.json".len(),
        "{names:?}"
    );
    assert!(
        out.contains(&format!("results: results/{}", names[0])),
        "{out}"
    );
    let doc = common::read_json(&dir.path().join("results").join(&names[0]));
    assert_eq!(doc["kind"], "elfbench");
}
