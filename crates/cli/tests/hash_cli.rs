//! Guards `pmolap hash build|check|bench`: a built table checks clean, a damaged one is
//! reported with a non-zero exit, and bad input gets a one-line error, never a panic.

mod common;

use std::path::Path;

use common::{ok, pmolap, refused};

fn scratch() -> tempfile::TempDir {
    if Path::new("/dev/shm").is_dir() {
        tempfile::tempdir_in("/dev/shm").unwrap()
    } else {
        tempfile::tempdir().unwrap()
    }
}

fn word(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().unwrap())
}

#[test]
fn built_table_checks_clean_and_damage_is_reported() {
    let dir = scratch();
    let t = dir.path().join("t.dash");
    ok(pmolap().args(["hash", "build", "--items", "3000"]).arg(&t));
    let out = ok(pmolap().args(["hash", "check"]).arg(&t));
    let rep: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(rep["items"], 3000);
    assert_eq!(rep["problems"].as_array().unwrap().len(), 0);
    // Refuses to overwrite.
    let e = refused(pmolap().args(["hash", "build"]).arg(&t));
    assert!(e.contains("already exists"), "{e}");
    // Flip the fingerprint of the first item of segment 0, bucket 0.
    let mut b = std::fs::read(&t).unwrap();
    let seg_off = word(&b, 5) as usize;
    let bucket = (seg_off + 32) * 8;
    let alloc = (word(&b, seg_off + 32) >> 32) & 0x3fff;
    assert_ne!(alloc, 0, "bucket 0 holds an item");
    b[bucket + 16 + alloc.trailing_zeros() as usize] ^= 0xff;
    std::fs::write(&t, &b).unwrap();
    let e = refused(pmolap().args(["hash", "check"]).arg(&t));
    assert!(e.contains("fingerprint mismatch"), "{e}");
}

#[test]
fn bad_input_is_one_line() {
    let dir = scratch();
    let f = dir.path().join("x");
    std::fs::write(&f, vec![7u8; 10_000]).unwrap();
    let e = refused(pmolap().args(["hash", "check"]).arg(&f));
    assert!(e.contains("not a Dash"), "{e}");
    let e = refused(
        pmolap()
            .args(["hash", "check"])
            .arg(dir.path().join("missing")),
    );
    assert!(e.contains("missing"), "{e}");
    let e = refused(pmolap().args(["hash", "bench", "--keys", "10", "--tier", "dram@many"]));
    assert!(e.contains("not a key count"), "{e}");
}

/// Every bench command saves its document by default (README, "Results"): `hash bench`
/// without --out writes results/hashbench-YYYYMMDD-HHMMSS.json (UTC) under the current
/// directory, and the lookups carry their spread.
#[test]
fn bench_saves_by_default_with_spreads() {
    let dir = scratch();
    let out = ok(pmolap()
        .current_dir(dir.path())
        .args([
            "hash",
            "bench",
            "--quiet",
            "--keys",
            "2000",
            "--threads",
            "1",
        ])
        .args(["--reps", "3", "--recovery-items", "100"])
        .arg("--recovery-dir")
        .arg(dir.path()));
    let files: Vec<_> = std::fs::read_dir(dir.path().join("results"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let name = &files[0];
    assert!(
        name.starts_with("hashbench-20") && name.ends_with(".json") && name.len() == 30,
        "{name}"
    );
    assert!(out.contains(&format!("results: results/{name}")), "{out}");
    assert!(out.contains(", 3 reps)"), "{out}");
    let doc = common::read_json(&dir.path().join("results").join(name));
    let p = &doc["dash"][0]["points"][0]["positive_lookup"];
    assert_eq!(p["n"], 3, "{doc}");
    assert!(
        doc["dram_ratios"][0]["positive"]["verdict"].is_string(),
        "{doc}"
    );
}
