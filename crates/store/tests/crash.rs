//! Crash safety: a child process (this test binary, re-executed) rebuilds a table and
//! aborts at the Nth write/persist step, for every N; afterwards the directory opens —
//! checksums verified — as exactly the previous table or exactly the new one (or no
//! table, when there was none), never a mix; and a later build cleans up and succeeds.

mod common;

use pmolap_os::durable::crash;
use std::path::Path;

use pmolap_store::{ColumnEncoding, Error, Placement, Table, WriteOptions};

/// The new table (ROWS rows) has a frame-of-reference column (`dense`), the old one
/// (ROWS / 2) has it as a dictionary.
const ROWS: usize = 6000;
const ENV_DIR: &str = "PMOLAP_STORE_CRASH_DIR";
const ENV_STEP: &str = "PMOLAP_STORE_CRASH_STEP";

/// The child side: does nothing unless the parent set the environment.
#[test]
fn crash_child() {
    let (Ok(dir), Ok(step)) = (std::env::var(ENV_DIR), std::env::var(ENV_STEP)) else {
        return;
    };
    let opts = WriteOptions {
        threads: 1,
        crash_after_step: Some(step.parse().unwrap()),
        ..WriteOptions::default()
    }
    .with_index(&["small", "name"]);
    common::builder(ROWS, 2)
        .finish(Path::new(&dir), &opts)
        .unwrap();
}

/// Runs the child on `dir` with crash point `step` (the workspace's one crash harness);
/// true if it crashed.
fn run_child(dir: &Path, step: u64) -> bool {
    crash::run_child(
        "crash_child",
        &[
            (ENV_DIR.to_string(), dir.display().to_string()),
            (ENV_STEP.to_string(), step.to_string()),
        ],
    )
}

/// Which seed's table `dir` holds (checking every value), or None for no table.
fn which_table(dir: &Path) -> Option<u64> {
    let t = match Table::open(dir, &Placement::home()) {
        Ok(t) => t,
        Err(Error::NoTable(_)) => return None,
        Err(e) => panic!("after a crash the table does not open: {e}"),
    };
    // The old table has ROWS / 2 rows of seed 1, the new one ROWS rows of seed 2.
    let (seed, rows) = if t.rows() == ROWS / 2 {
        (1, ROWS / 2)
    } else {
        (2, ROWS)
    };
    // The new table's `dense` column is a frame of reference, the old one's a dictionary.
    let want = if seed == 2 {
        ColumnEncoding::Frame
    } else {
        ColumnEncoding::Dictionary
    };
    assert_eq!(t.info().columns[4].encoding, want, "seed {seed}");
    assert_eq!(t.rows(), rows);
    assert_eq!(
        t.generation() == 1,
        seed == 1,
        "generation {}",
        t.generation()
    );
    for i in 0..rows {
        common::assert_row(&t, i, seed, &format!("generation {}", t.generation()));
    }
    Some(seed)
}

#[test]
fn crash_at_every_step_leaves_old_or_new_table() {
    let mut saw_new = false;
    for step in 1..200 {
        let dir = tempfile::tempdir().unwrap();
        common::build(dir.path(), ROWS / 2, 1);
        let crashed = run_child(dir.path(), step);
        let got = which_table(dir.path());
        assert!(got.is_some(), "step {step}: a table existed before");
        if !crashed {
            assert_eq!(got, Some(2), "a build that did not crash publishes");
            assert!(step > 20, "only {} crash points were exercised", step - 1);
            assert!(
                saw_new,
                "some crash after the commit point left the new table"
            );
            return;
        }
        saw_new |= got == Some(2);
        // Recovery: the next build cleans up leftovers and publishes.
        if step % 5 == 0 {
            let m = common::build(dir.path(), ROWS, 2);
            assert_eq!(which_table(dir.path()), Some(2));
            let files = std::fs::read_dir(dir.path()).unwrap().count();
            assert_eq!(files, m.file_names().count() + 1, "step {step}: leftovers");
        }
    }
    panic!("the build never ran to completion");
}

#[test]
fn crash_on_first_build_leaves_no_table_or_the_new_one() {
    for step in (1..40).step_by(3) {
        let dir = tempfile::tempdir().unwrap();
        let crashed = run_child(dir.path(), step);
        let got = which_table(dir.path());
        if crashed {
            assert!(got.is_none() || got == Some(2), "step {step}");
        } else {
            assert_eq!(got, Some(2));
            break;
        }
    }
}
