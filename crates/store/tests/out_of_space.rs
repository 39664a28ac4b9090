//! Out of space: a table that does not fit is refused with a clear error before anything
//! is written (capacity check), or fails cleanly when the filesystem refuses mid-way
//! (a file-size limit set with `ulimit -f` in a child); either way nothing half-written
//! is published and the previous table still opens.

mod common;

use std::path::Path;
use std::process::Command;

use pmolap_store::{Error, Placement, Table, WriteOptions};

fn only_generation_one(dir: &Path) {
    for e in std::fs::read_dir(dir).unwrap() {
        let n = e.unwrap().file_name().to_string_lossy().to_string();
        assert!(n == "MANIFEST" || n.ends_with(".g1"), "leftover {n}");
    }
    let t = Table::open(dir, &Placement::home()).unwrap();
    assert_eq!(t.generation(), 1);
    assert_eq!(t.rows(), 100);
}

#[test]
fn capacity_check_refuses_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    common::build(dir.path(), 100, 1);
    let opts = WriteOptions {
        capacity_limit: Some(50_000),
        ..WriteOptions::default()
    };
    let e = common::builder(20_000, 2)
        .finish(dir.path(), &opts)
        .unwrap_err();
    assert!(matches!(e, Error::OutOfSpace { .. }), "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("out of space") && msg.contains("nothing was published"),
        "{msg}"
    );
    only_generation_one(dir.path());
}

const ENV_DIR: &str = "PMOLAP_STORE_FSIZE_DIR";

/// Child: builds a big table under a file-size limit and prints the error.
#[test]
fn fsize_child() {
    let Ok(dir) = std::env::var(ENV_DIR) else {
        return;
    };
    match common::builder(200_000, 2).finish(Path::new(&dir), &WriteOptions::default()) {
        Ok(_) => println!("RESULT: ok"),
        Err(e) => println!("RESULT: {e}"),
    }
}

#[test]
fn filesystem_refusal_mid_way_publishes_nothing() {
    if Command::new("sh").arg("-c").arg("true").status().is_err() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    common::build(dir.path(), 100, 1);
    // 64 KiB file-size limit; SIGXFSZ ignored so the write fails with EFBIG instead.
    let exe = std::env::current_exe().unwrap();
    let out = Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 128 && exec \"$0\" --exact fsize_child --nocapture --test-threads=1")
        .arg(&exe)
        .env(ENV_DIR, dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let Some(line) = stdout
        .lines()
        .find_map(|l| l.split_once("RESULT: ").map(|x| x.1))
    else {
        panic!(
            "child printed no result: {stdout} {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    assert!(
        line.contains("building the table failed, nothing was published") && line.contains(".g2"),
        "{line}"
    );
    only_generation_one(dir.path());
    // With the space back, the same build publishes.
    common::build(dir.path(), 200, 2);
    assert_eq!(
        Table::open(dir.path(), &Placement::home())
            .unwrap()
            .generation(),
        2
    );
}
