//! Damaged, truncated, foreign and mismatched files each give a clear one-line error
//! naming the file and the problem: at open (headers, sizes, the manifest) or on the
//! first use of the damaged column (payload checksums, order, ids in range), never later
//! and never for a column not used.

mod common;

use std::path::{Path, PathBuf};

use pmolap_store::format::{OFF_ENTRIES, OFF_HEADER_CRC, OFF_VERSION, PAYLOAD_OFFSET};
use pmolap_store::{OpenOptions, Placement, Table};

/// A fresh copy of a good table, and the path of column 0's data vector in it.
fn fresh(good: &Path) -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    common::copy_dir(good, d.path());
    let dv = d.path().join("c0000.dv.g1");
    assert!(dv.exists());
    (d, dv)
}

/// The one-line error of opening the table in `dir` and using every column.
#[track_caller]
fn open_err(dir: &Path) -> String {
    let e = match Table::open(dir, &Placement::home()).and_then(|t| t.verify()) {
        Ok(_) => panic!("{} opened and verified despite the damage", dir.display()),
        Err(e) => e.to_string(),
    };
    assert!(!e.contains('\n'), "one line: {e}");
    e
}

/// Sets the header's entry count of `path` and makes its header checksum match.
fn set_entries(path: &Path, entries: u64) {
    let mut b = std::fs::read(path).unwrap();
    b[OFF_ENTRIES..OFF_ENTRIES + 8].copy_from_slice(&entries.to_le_bytes());
    let crc = crc32fast::hash(&b[..OFF_HEADER_CRC]);
    b[OFF_HEADER_CRC..OFF_HEADER_CRC + 4].copy_from_slice(&crc.to_le_bytes());
    std::fs::write(path, b).unwrap();
}

fn patch(path: &Path, at: usize, f: impl FnOnce(&mut u8)) {
    let mut b = std::fs::read(path).unwrap();
    f(&mut b[at]);
    std::fs::write(path, b).unwrap();
}

#[test]
fn every_kind_of_damage_is_named() {
    let good = tempfile::tempdir().unwrap();
    common::build(good.path(), 500, 3);
    Table::open(good.path(), &Placement::home()).unwrap();

    // A flipped payload bit: checksum mismatch (and opens when checks are skipped).
    let (d, dv) = fresh(good.path());
    patch(&dv, PAYLOAD_OFFSET + 10, |b| *b ^= 0x10);
    let e = open_err(d.path());
    assert!(
        e.contains("c0000.dv.g1") && e.contains("payload checksum mismatch"),
        "{e}"
    );
    let fast = OpenOptions {
        verify_checksums: false,
        ..OpenOptions::default()
    };
    Table::open_with(d.path(), &Placement::home(), &fast).unwrap();
    // Damage copied onto another tier is caught as well.
    let e = match Table::open(d.path(), &"dram".parse().unwrap()).and_then(|t| t.verify()) {
        Ok(_) => panic!("damage on a copy went unnoticed"),
        Err(e) => e.to_string(),
    };
    assert!(e.contains("payload checksum mismatch"), "{e}");

    // Truncated.
    let (d, dv) = fresh(good.path());
    let len = std::fs::metadata(&dv).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&dv)
        .unwrap()
        .set_len(len - 8)
        .unwrap();
    let e = open_err(d.path());
    assert!(e.contains("c0000.dv.g1") && e.contains("truncated"), "{e}");
    std::fs::write(&dv, b"short").unwrap();
    let e = open_err(d.path());
    assert!(e.contains("truncated: 5 bytes"), "{e}");

    // Trailing garbage.
    let (d, dv) = fresh(good.path());
    let mut b = std::fs::read(&dv).unwrap();
    b.extend_from_slice(&[0; 16]);
    std::fs::write(&dv, b).unwrap();
    let e = open_err(d.path());
    assert!(e.contains("16 trailing bytes"), "{e}");

    // Foreign file.
    let (d, dv) = fresh(good.path());
    std::fs::write(&dv, vec![b'x'; len as usize]).unwrap();
    let e = open_err(d.path());
    assert!(e.contains("c0000.dv.g1") && e.contains("bad magic"), "{e}");

    // Another format version.
    let (d, dv) = fresh(good.path());
    patch(&dv, OFF_VERSION, |b| *b = 1);
    let e = open_err(d.path());
    assert!(
        e.contains("format version 1, this build reads version 2"),
        "{e}"
    );

    // Damaged header field.
    let (d, dv) = fresh(good.path());
    patch(&dv, 33, |b| *b ^= 1);
    let e = open_err(d.path());
    assert!(e.contains("header checksum mismatch"), "{e}");

    // A structure file of another column swapped in.
    let (d, dv) = fresh(good.path());
    std::fs::copy(d.path().join("c0001.dv.g1"), &dv).unwrap();
    let e = open_err(d.path());
    assert!(e.contains("c0000.dv.g1") && e.contains("column 1"), "{e}");

    // The same file of another table (same column, same generation).
    let other = tempfile::tempdir().unwrap();
    common::build(other.path(), 500, 4);
    let (d, _) = fresh(good.path());
    std::fs::copy(
        other.path().join("c0000.dict.g1"),
        d.path().join("c0000.dict.g1"),
    )
    .unwrap();
    let e = open_err(d.path());
    assert!(
        e.contains("c0000.dict.g1") && e.contains("differs from the manifest"),
        "{e}"
    );

    // A missing file.
    let (d, dv) = fresh(good.path());
    std::fs::remove_file(&dv).unwrap();
    let e = open_err(d.path());
    assert!(e.contains("c0000.dv.g1") && e.contains("missing"), "{e}");
}

/// A header whose entry count is past anything a file can hold, with its header checksum
/// made to match (found by review while writing the `store_open` fuzz target: the size
/// arithmetic overflowed, a panic, instead of refusing the file).
#[test]
fn entry_counts_past_any_file_are_refused() {
    let good = tempfile::tempdir().unwrap();
    common::build(good.path(), 100, 3);
    // c0001: an indexed int column; c0003: an indexed string column.
    for file in [
        "c0001.dv.g1",
        "c0001.inv.g1",
        "c0003.dict.g1",
        "c0003.inv.g1",
    ] {
        for entries in [u64::MAX, 1 << 61, 1 << 62] {
            let (d, _) = fresh(good.path());
            set_entries(&d.path().join(file), entries);
            let e = open_err(d.path());
            assert!(e.contains(file), "{file} entries {entries}: {e}");
        }
    }
}

/// An int frame whose id count is zero or past 32-bit ids (header checksum made to
/// match) is refused naming the file, before any id is decoded through it.
#[test]
fn frames_past_their_id_range_are_refused() {
    let good = tempfile::tempdir().unwrap();
    let m = common::build(good.path(), 5000, 3);
    assert_eq!(m.columns[4].encoding, pmolap_store::ColumnEncoding::Frame);
    let file = "c0004.dict.g1";
    for entries in [0, (1 << 32) + 1, 1 << 40, u64::MAX] {
        let (d, _) = fresh(good.path());
        set_entries(&d.path().join(file), entries);
        let e = open_err(d.path());
        assert!(
            e.contains(file) && e.contains("int frame"),
            "entries {entries}: {e}"
        );
    }
}

/// Payload damage is found on the first use of its column, before any value of it is
/// read, and again on every later use; a column not used reads (lazy verification).
#[test]
fn payload_damage_fails_the_first_use_of_its_column_only() {
    let good = tempfile::tempdir().unwrap();
    common::build(good.path(), 500, 3);
    for (file, col) in [
        ("c0000.dv.g1", "id"),
        ("c0003.dict.g1", "name"),
        ("c0001.inv.g1", "small"),
    ] {
        let (d, _) = fresh(good.path());
        let path = d.path().join(file);
        let len = std::fs::metadata(&path).unwrap().len() as usize;
        patch(&path, len - 1, |b| *b ^= 0x01);
        let t = Table::open(d.path(), &Placement::home()).expect("damage found lazily");
        let other = t.column("dense").expect("an untouched column reads");
        assert_eq!(other.rows(), 500);
        assert!(t.column_names().any(|c| c == col));
        for _ in 0..2 {
            let e = t.column(col).unwrap_err().to_string();
            assert!(
                e.contains(file) && e.contains("payload checksum mismatch") && !e.contains('\n'),
                "{file}: {e}"
            );
        }
        assert!(t.columns().is_err() && t.row(0).is_err() && t.verify().is_err());
        // Off: trusted, not checked.
        let fast = OpenOptions {
            verify_checksums: false,
            ..OpenOptions::default()
        };
        let t = Table::open_with(d.path(), &Placement::home(), &fast).unwrap();
        t.column(col).unwrap();
    }
    // A dictionary alone can be verified without the column's data vector.
    let (d, dv) = fresh(good.path());
    patch(&dv, PAYLOAD_OFFSET + 10, |b| *b ^= 0x10);
    let t = Table::open(d.path(), &Placement::home()).unwrap();
    assert!(t.dictionary("id").is_ok());
    assert!(t.column("id").is_err());
}

/// Opened lazily, a table reads its manifest alone: a missing file or a damaged header
/// of a column fails the first use of that column (one line naming the file, the same
/// on every later use) and never a use of another; opened eagerly (the default), the
/// open itself fails.
#[test]
fn a_lazy_open_fails_only_the_columns_whose_files_are_bad() {
    let good = tempfile::tempdir().unwrap();
    common::build(good.path(), 500, 3);
    let lazy = OpenOptions {
        lazy: true,
        ..OpenOptions::default()
    };
    let missing = |d: &Path| std::fs::remove_file(d.join("c0000.dv.g1")).unwrap();
    let header = |d: &Path| patch(&d.join("c0003.dict.g1"), 33, |b| *b ^= 1);
    type Damage<'a> = &'a dyn Fn(&Path);
    let cases: [(&str, &str, &str, Damage); 2] = [
        ("id", "c0000.dv.g1", "missing", &missing),
        ("name", "c0003.dict.g1", "header checksum mismatch", &header),
    ];
    for (col, file, problem, damage) in cases {
        let (d, _) = fresh(good.path());
        damage(d.path());
        let e = open_err(d.path());
        assert!(e.contains(file) && e.contains(problem), "{e}");
        let t = Table::open_with(d.path(), &Placement::home(), &lazy).expect("lazy open");
        assert_eq!(
            t.column("dense").expect("an untouched column reads").rows(),
            500
        );
        // The schema comes from the manifest: no file is read for it.
        assert!(t.column_type(col).is_ok() && t.column_names().any(|c| c == col));
        for _ in 0..2 {
            let e = t.column(col).unwrap_err().to_string();
            assert!(
                e.contains(file) && e.contains(problem) && !e.contains('\n'),
                "{col}: {e}"
            );
        }
        assert!(t.dictionary(col).is_err() && t.verify().is_err() && t.row(0).is_err());
        // Counters and info describe every column, opened or not.
        assert_eq!(t.access_counts().len(), t.manifest().columns.len());
        let info = t.info();
        let bad = info.columns.iter().find(|c| c.name == col).unwrap();
        assert!(bad.structures.iter().all(|s| s.info.tier.contains(problem)));
    }
}

#[test]
fn manifest_damage_is_named() {
    let good = tempfile::tempdir().unwrap();
    common::build(good.path(), 100, 3);

    let (d, _) = fresh(good.path());
    let m = d.path().join("MANIFEST");
    let len = std::fs::metadata(&m).unwrap().len() as usize;
    patch(&m, len - 20, |b| *b ^= 0x20);
    let e = open_err(d.path());
    assert!(
        e.contains("MANIFEST") && e.contains("manifest checksum mismatch"),
        "{e}"
    );

    let (d, _) = fresh(good.path());
    let m = d.path().join("MANIFEST");
    let b = std::fs::read(&m).unwrap();
    std::fs::write(&m, &b[..b.len() / 2]).unwrap();
    let e = open_err(d.path());
    assert!(e.contains("truncated or damaged"), "{e}");
    std::fs::write(&m, &b[..10]).unwrap();
    let e = open_err(d.path());
    assert!(e.contains("truncated manifest"), "{e}");

    let (d, _) = fresh(good.path());
    std::fs::write(
        d.path().join("MANIFEST"),
        "{\"a JSON file\": \"but not ours\"}",
    )
    .unwrap();
    let e = open_err(d.path());
    assert!(e.contains("bad magic"), "{e}");

    let empty = tempfile::tempdir().unwrap();
    let e = open_err(empty.path());
    assert!(e.contains("no column-store table here"), "{e}");
}
