//! Crash safety of `Elf::write`: a child process (this test binary, re-executed) rewrites
//! an index and aborts right after its Nth write/persist step, for every N; afterwards the
//! file opens — checksums verified — as exactly the old index or exactly the new one
//! (or no index, on a first build), and a later write cleans up and succeeds.

use pmolap_os::durable::crash;
use std::path::Path;

use pmolap_index::elf;
use pmolap_index::{Elf, WriteOptions};
use pmolap_tier::TierSpec;

const ENV_PATH: &str = "PMOLAP_ELF_CRASH_PATH";
const ENV_STEP: &str = "PMOLAP_ELF_CRASH_STEP";

fn data(seed: u64) -> Vec<u32> {
    // Seed 1: the old index (500 rows), seed 2: the new one (1500 rows).
    elf::uniform_rows(500 * (2 * seed as usize - 1), 5, 30, seed)
}

fn opts(crash: Option<u64>) -> WriteOptions {
    WriteOptions {
        persist_chunk: 4096, // many persist points
        crash_after_step: crash,
    }
}

/// The child side: does nothing unless the parent set the environment.
#[test]
fn crash_child() {
    let (Ok(path), Ok(step)) = (std::env::var(ENV_PATH), std::env::var(ENV_STEP)) else {
        return;
    };
    Elf::write(
        Path::new(&path),
        5,
        &data(2),
        &opts(Some(step.parse().unwrap())),
    )
    .unwrap();
}

/// Runs the child on `path` with crash point `step` (the workspace's one crash harness);
/// true if it crashed.
fn run_child(path: &Path, step: u64) -> bool {
    crash::run_child(
        "crash_child",
        &[
            (ENV_PATH.to_string(), path.display().to_string()),
            (ENV_STEP.to_string(), step.to_string()),
        ],
    )
}

/// Which seed's index `path` holds (the whole array compared), or None for no file.
fn which(path: &Path) -> Option<u64> {
    if !path.exists() {
        return None;
    }
    let e = Elf::open(path, &TierSpec::Dram { node: None })
        .unwrap_or_else(|e| panic!("after a crash the index does not open: {e}"));
    let seed = if e.rows() == 500 { 1 } else { 2 };
    let fresh = Elf::build(5, &data(seed), &TierSpec::Dram { node: None }).unwrap();
    assert_eq!(
        e.words(),
        fresh.words(),
        "seed {seed}: not exactly the index written"
    );
    Some(seed)
}

#[test]
fn crash_at_every_step_leaves_old_or_new_index() {
    let mut saw_new = false;
    for step in 1..200 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("i.elf");
        Elf::write(&path, 5, &data(1), &opts(None)).unwrap();
        let crashed = run_child(&path, step);
        let got = which(&path);
        if !crashed {
            assert_eq!(got, Some(2), "a write that did not crash publishes");
            assert!(step > 10, "only {} crash points were exercised", step - 1);
            assert!(saw_new, "some crash after the rename left the new index");
            return;
        }
        assert!(got.is_some(), "step {step}: the old index was lost");
        saw_new |= got == Some(2);
        if step % 4 == 0 {
            Elf::write(&path, 5, &data(2), &opts(None)).unwrap();
            assert_eq!(which(&path), Some(2));
            let mut names: Vec<String> = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            assert_eq!(names, ["i.elf", "i.elf.lock"], "leftovers");
        }
    }
    panic!("the write never ran to completion");
}

#[test]
fn crash_on_first_write_leaves_no_index_or_the_new_one() {
    for step in (1..40).step_by(3) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("i.elf");
        let crashed = run_child(&path, step);
        let got = which(&path);
        if !crashed {
            assert_eq!(got, Some(2));
            return;
        }
        assert!(got.is_none() || got == Some(2), "step {step}");
    }
}
