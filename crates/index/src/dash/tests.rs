use std::collections::HashMap;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::*;
use crate::error::Error;

/// A scratch directory on tmpfs where there is one (msync per update is cheap there).
fn scratch() -> tempfile::TempDir {
    if std::path::Path::new("/dev/shm").is_dir() {
        tempfile::tempdir_in("/dev/shm").unwrap()
    } else {
        tempfile::tempdir().unwrap()
    }
}

fn small() -> DashOptions {
    DashOptions {
        max_segments: 256,
        initial_depth: 0,
    }
}

#[test]
fn matches_a_hash_map_through_splits() {
    let d = Dash::new_dram(small()).unwrap();
    let mut model = HashMap::new();
    let mut rng = SmallRng::seed_from_u64(7);
    for i in 0..40_000u64 {
        let k = rng.gen_range(0..30_000u64);
        match rng.gen_range(0..10) {
            0..=6 => assert_eq!(d.insert(k, i).unwrap(), model.insert(k, i), "insert {k}"),
            7..=8 => assert_eq!(d.remove(k).unwrap(), model.remove(&k), "remove {k}"),
            _ => assert_eq!(d.get(k).unwrap(), model.get(&k).copied(), "get {k}"),
        }
    }
    for k in 0..30_000u64 {
        assert_eq!(d.get(k).unwrap(), model.get(&k).copied(), "key {k}");
    }
    let rep = d.check().unwrap();
    assert!(rep.problems.is_empty(), "{:?}", rep.problems);
    assert_eq!(rep.items, model.len() as u64);
    assert_eq!(d.len(), model.len() as u64);
    let (splits, doublings, _) = d.split_stats();
    assert!(
        splits > 10 && doublings > 3,
        "{splits} splits, {doublings} doublings"
    );
}

#[test]
fn segments_fill_to_ninety_percent_before_splitting() {
    let d = Dash::new_dram(DashOptions::for_items(400_000)).unwrap();
    for k in 0..400_000u64 {
        d.insert(k.wrapping_mul(0x2545_f491_4f6c_dd1d), k).unwrap();
    }
    let (splits, _, fill) = d.split_stats();
    assert!(splits > 100);
    assert!(fill >= 0.9, "segments split at {:.3} average fill", fill);
}

#[test]
fn full_table_is_an_error_not_a_panic() {
    let d = Dash::new_dram(DashOptions {
        max_segments: 2,
        initial_depth: 0,
    })
    .unwrap();
    let mut err = None;
    for k in 0..10_000u64 {
        if let Err(e) = d.insert(k, k) {
            err = Some(e);
            break;
        }
    }
    assert!(matches!(err, Some(Error::TableFull(_))), "{err:?}");
    assert!(d.check().unwrap().problems.is_empty());
}

#[test]
fn readers_see_old_or_new_values_while_a_writer_runs() {
    let d = Dash::new_dram(DashOptions::for_items(200_000)).unwrap();
    for k in 0..20_000u64 {
        d.insert(k, k << 20).unwrap();
    }
    std::thread::scope(|s| {
        let d = &d;
        s.spawn(move || {
            // Updates (value = key << 20 | round) and new keys (forcing splits).
            for round in 1..4u64 {
                for k in 0..20_000u64 {
                    d.insert(k, k << 20 | round).unwrap();
                }
            }
            for k in 100_000..160_000u64 {
                d.insert(k, k << 20).unwrap();
            }
        });
        for _ in 0..2 {
            s.spawn(move || {
                for _ in 0..4 {
                    for k in 0..20_000u64 {
                        let v = d.get(k).unwrap().expect("present key");
                        assert_eq!(v >> 20, k, "key {k} read value {v:#x}");
                    }
                }
            });
        }
    });
    assert!(d.check().unwrap().problems.is_empty());
}

#[test]
fn a_file_table_reopens_after_clean_close_and_after_a_crash() {
    let dir = scratch();
    let path = dir.path().join("t.dash");
    let spec = format!("file:{}", path.display()).parse().unwrap();
    let d = Dash::create(&spec, small(), None).unwrap();
    for k in 0..5_000u64 {
        d.insert(k, k + 1).unwrap();
    }
    d.close().unwrap();
    let d = Dash::open(&path, None).unwrap();
    assert_eq!(d.get(4_999).unwrap(), Some(5_000));
    for k in 5_000..8_000u64 {
        d.insert(k, k + 1).unwrap();
    }
    drop(d); // no close: reopening recovers
    let d = Dash::open(&path, None).unwrap();
    assert_eq!(d.get(7_999).unwrap(), Some(8_000));
    let rep = d.check().unwrap();
    assert!(rep.recovered_segments > 0);
    assert!(rep.problems.is_empty(), "{:?}", rep.problems);
    assert_eq!(rep.items, 8_000);
}

#[test]
fn a_damaged_header_is_refused() {
    let dir = scratch();
    let path = dir.path().join("t.dash");
    let spec = format!("file:{}", path.display()).parse().unwrap();
    Dash::create(&spec, small(), None).unwrap().close().unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[16] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    let e = Dash::open(&path, None).unwrap_err().to_string();
    assert!(e.contains("checksum"), "{e}");
    bytes[0] = b'X';
    std::fs::write(&path, &bytes).unwrap();
    let e = Dash::open(&path, None).unwrap_err().to_string();
    assert!(e.contains("not a Dash"), "{e}");
}
