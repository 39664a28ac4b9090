//! Build → open → every value equal, on dram, `file:` (tempdir) and `/dev/shm`, with
//! mixed placements; scans, gathers, bitmaps and the access counters.

mod common;

use std::path::Path;

use pmolap_store::{
    AccessCounts, ColumnEncoding, Location, Placement, StructureKind, Table, TableBuilder, Value,
    WriteOptions,
};
use pmolap_tier::TierSpec;

/// Enough rows for `dense` to be a frame of reference.
const ROWS: usize = 5000;

fn check_all_values(t: &Table, rows: usize, seed: u64) {
    assert_eq!(t.rows(), rows);
    for i in 0..rows {
        common::assert_row(t, i, seed, "the table");
    }
    for col in t.columns().unwrap() {
        let mut ids = vec![0u32; rows];
        col.dv.unpack(0, &mut ids);
        for (i, &id) in ids.iter().enumerate() {
            assert_eq!(id, col.value_id(i), "{} row {i}", col.name());
        }
        let rows_idx: Vec<u32> = (0..rows as u32).rev().step_by(3).collect();
        let mut g = vec![0u32; rows_idx.len()];
        col.dv.gather(&rows_idx, &mut g);
        for (k, &r) in rows_idx.iter().enumerate() {
            assert_eq!(g[k], ids[r as usize]);
        }
    }
}

fn check_selections(t: &Table, seed: u64) {
    let small = t.column("small").unwrap();
    let lo = Value::Int(seed as i64 + 2);
    let hi = Value::Int(seed as i64 + 4);
    let want: Vec<u32> = (0..t.rows())
        .filter(|&i| (2..=4).contains(&(i % 7)))
        .map(|i| i as u32)
        .collect();
    assert_eq!(small.rows_between(lo, hi).unwrap(), want, "via index");
    let codes = small.dict.code_range(lo, hi).unwrap().unwrap();
    assert_eq!(small.dv.scan_range(codes.clone()), want, "via scan");
    let bm = small.bitmap_between(lo, hi).unwrap();
    assert_eq!(bm.iter_ones().collect::<Vec<_>>(), want);
    assert_eq!(bm.count_ones(), want.len());
    let name = t.column("name").unwrap();
    let got = name
        .rows_between(Value::Str("MAIL"), Value::Str("MAIL#9"))
        .unwrap();
    let want: Vec<u32> = (0..t.rows())
        .filter(|&i| {
            let s = common::row(i, seed).3;
            s.as_str() >= "MAIL" && s.as_str() <= "MAIL#9"
        })
        .map(|i| i as u32)
        .collect();
    assert!(!want.is_empty());
    assert_eq!(got, want);
    let id = t.column("id").unwrap();
    assert!(id
        .rows_between(Value::Int(10), Value::Int(5))
        .unwrap()
        .is_empty());
    assert!(id.rows_between(Value::Str("x"), Value::Str("y")).is_err());
}

fn open_and_check(dir: &Path, p: &Placement) -> Table {
    let t = Table::open(dir, p).unwrap_or_else(|e| panic!("open with {p:?}: {e}"));
    check_all_values(&t, ROWS, 1);
    check_selections(&t, 1);
    t
}

#[test]
fn round_trip_on_every_tier_and_placement() {
    let home = tempfile::tempdir().unwrap();
    let m = common::build(home.path(), ROWS, 1);
    assert_eq!(m.generation, 1);
    assert_eq!(m.columns[1].dict_len, 7);
    assert_eq!(m.columns[1].bit_width, 3);
    assert!(m.columns[1].has_index && !m.columns[0].has_index);
    // `dense` (5,000 distinct values in a range of 8,192) is a frame of reference; `id`
    // (spread over a range of 10^6) keeps its dictionary.
    assert_eq!(m.columns[4].encoding, ColumnEncoding::Frame);
    assert!(m.columns[4].dict_len > 5000 && m.columns[4].dict_len <= 8192);
    assert_eq!(m.columns[4].bit_width, 13);
    assert_eq!(m.columns[0].encoding, ColumnEncoding::Dictionary);

    let t = open_and_check(home.path(), &Placement::home());
    let info = t.info();
    for c in &info.columns {
        for s in c.structures.iter().map(|d| &d.info) {
            assert!(s.zero_copy, "{s:?}");
            assert!(s.tier.starts_with("file:"), "{s:?}");
            assert_eq!(s.durability, "msync");
        }
    }
    drop(t);
    // `file:` naming the table directory is home too.
    let t = open_and_check(
        home.path(),
        &Placement::all(TierSpec::File {
            path: home.path().to_path_buf(),
        }),
    );
    assert!(t.info().columns[0].structures[0].info.zero_copy);

    let t = open_and_check(home.path(), &Placement::all(TierSpec::Dram { node: None }));
    for c in t.info().columns {
        for s in c.structures.iter().map(|d| &d.info) {
            assert!(!s.zero_copy);
            assert_eq!(s.tier, "dram");
            assert_eq!(s.durability, "none (volatile)");
        }
    }

    let other = tempfile::tempdir().unwrap();
    let mixed = Placement::all(TierSpec::Dram { node: None })
        .with_kind(
            StructureKind::DataVector,
            Location::Tier(TierSpec::File {
                path: other.path().to_path_buf(),
            }),
        )
        .with_kind(StructureKind::InvertedIndex, Location::Home)
        .with("name", StructureKind::Dictionary, Location::Home);
    let t = open_and_check(home.path(), &mixed);
    let info = t.info();
    let id = &info.columns[0];
    assert_eq!(id.structures[0].info.tier, "dram");
    assert!(id.structures[1].info.tier.starts_with("file:"));
    assert!(!id.structures[1].info.zero_copy);
    assert!(id.structures[1]
        .info
        .region_path
        .as_ref()
        .unwrap()
        .starts_with(other.path()));
    assert!(info.columns[3].structures[0].info.zero_copy);
    assert!(info.columns[1].structures[2].info.zero_copy);
    drop(t);
    assert_eq!(
        std::fs::read_dir(other.path()).unwrap().count(),
        0,
        "temporary copies are removed when the table closes"
    );

    if Path::new("/dev/shm").is_dir() {
        let shm = tempfile::tempdir_in("/dev/shm").unwrap();
        // Copies onto a /dev/shm file tier ...
        open_and_check(
            home.path(),
            &Placement::all(TierSpec::File {
                path: shm.path().to_path_buf(),
            }),
        );
        // ... and a table built on /dev/shm itself.
        let shm_table = tempfile::tempdir_in("/dev/shm").unwrap();
        common::build(shm_table.path(), ROWS, 1);
        open_and_check(shm_table.path(), &Placement::home());
        open_and_check(
            shm_table.path(),
            &"dram,dv=home".parse::<Placement>().unwrap(),
        );
    }
}

#[test]
fn rebuilding_replaces_the_generation_and_removes_old_files() {
    let dir = tempfile::tempdir().unwrap();
    common::build(dir.path(), 100, 1);
    let m = common::build(dir.path(), 200, 2);
    assert_eq!(m.generation, 2);
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert!(
        names.iter().all(|n| n == "MANIFEST" || n.ends_with(".g2")),
        "{names:?}"
    );
    let t = Table::open(dir.path(), &Placement::home()).unwrap();
    check_all_values(&t, 200, 2);
}

#[test]
fn empty_and_single_value_tables() {
    let dir = tempfile::tempdir().unwrap();
    common::builder(0, 0)
        .finish(dir.path(), &WriteOptions::default().with_index(&["id"]))
        .unwrap();
    let t = Table::open(dir.path(), &Placement::home()).unwrap();
    assert_eq!(t.rows(), 0);
    assert!(t.column("id").unwrap().dv.scan_range(0..=0).is_empty());
    let dir = tempfile::tempdir().unwrap();
    let mut b = TableBuilder::new(common::schema());
    for _ in 0..70 {
        b.push_row(&[
            Value::Int(5),
            Value::Int(5),
            Value::Int(5),
            Value::Str("x"),
            Value::Int(5),
        ])
        .unwrap();
    }
    b.finish(dir.path(), &WriteOptions::default()).unwrap();
    let t = Table::open(dir.path(), &Placement::home()).unwrap();
    assert_eq!(t.column("id").unwrap().dv.width(), 1);
    assert_eq!(t.row(69).unwrap()[3], Value::Str("x"));
}

#[test]
fn builder_rejects_bad_rows() {
    let mut b = TableBuilder::new(common::schema());
    let e = b.push_row(&[Value::Int(1)]).unwrap_err().to_string();
    assert!(e.contains("1 values"), "{e}");
    let e = b
        .push_row(&[
            Value::Int(1),
            Value::Str("x"),
            Value::Int(1),
            Value::Str("x"),
            Value::Int(1),
        ])
        .unwrap_err()
        .to_string();
    assert!(e.contains("`small` is int"), "{e}");
    b.extend_ints(0, &[1, 2]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = b
        .finish(dir.path(), &WriteOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("column `small` has 0 values"), "{e}");
}

#[test]
fn counters_count_per_batch_and_are_off_by_default() {
    let dir = tempfile::tempdir().unwrap();
    // Dictionaries only: `small` (0..7) would be a frame, whose decoding counts nothing.
    let opts = WriteOptions {
        dictionary_only: true,
        ..WriteOptions::default()
    };
    common::builder(ROWS, 1)
        .finish(dir.path(), &opts.with_index(&["small", "name"]))
        .unwrap();
    let t = Table::open(dir.path(), &Placement::home()).unwrap();
    let c = t.column("small").unwrap();
    let mut buf = vec![0u32; 1000];
    c.dv.unpack(0, &mut buf);
    assert_eq!(
        c.counts().data_vector,
        AccessCounts::default(),
        "off by default"
    );
    t.set_counting(true);
    c.dv.unpack(0, &mut buf);
    c.dv.gather(&[0, 1, 5, 100, 2000, 2001], &mut buf[..6]);
    let _ = c.value(7);
    let _ = c.dict.code_range_int(2, 3).unwrap();
    let _ = c.rows_between(Value::Int(2), Value::Int(4)).unwrap();
    let counts = c.counts();
    assert_eq!(
        counts.data_vector,
        AccessCounts {
            scan: 1000,
            lookup: 1 + 1,
            near_dense: 3,
            medium_dense: 1,
            far_dense: 1,
        }
    );
    assert!(counts.dictionary.lookup >= 2, "{counts:?}");
    let ix = counts.inverted_index.unwrap();
    assert_eq!((ix.lookup, ix.near_dense), (1, 2));
    t.reset_counters();
    assert_eq!(t.access_counts()[1].data_vector.total(), 0);
    t.set_counting(false);
}

/// A frame of reference and a dictionary of the same column answer alike: values, value
/// ranges (also between values the column lacks), gathers; the frame counts no
/// dictionary accesses.
#[test]
fn a_frame_answers_as_its_dictionary_does() {
    let (fd, dd) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    common::build(fd.path(), ROWS, 3);
    let opts = WriteOptions {
        dictionary_only: true,
        ..WriteOptions::default()
    };
    common::builder(ROWS, 3).finish(dd.path(), &opts).unwrap();
    let (ft, dt) = (
        Table::open(fd.path(), &Placement::home()).unwrap(),
        Table::open(dd.path(), &Placement::home()).unwrap(),
    );
    let (f, d) = (ft.column("dense").unwrap(), dt.column("dense").unwrap());
    assert_eq!(f.dict.encoding(), ColumnEncoding::Frame);
    assert_eq!(d.dict.encoding(), ColumnEncoding::Dictionary);
    assert!(f.dict.len() > d.dict.len() && f.dict.len() <= 8192);
    for row in 0..ROWS {
        assert_eq!(f.value(row), d.value(row), "row {row}");
    }
    let min = d.dict.ints().first().unwrap();
    let max = d.dict.ints().last().unwrap();
    assert_eq!(
        (f.dict.ints().first(), f.dict.ints().last()),
        (Some(min), Some(max))
    );
    let mut x = 12345u64;
    for _ in 0..300 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let a = min - 50 + (x >> 33) as i64 % (max - min + 100);
        let b = a + (x >> 17) as i64 % 600 - 50;
        let (fr, dr) = (
            f.rows_between(Value::Int(a), Value::Int(b)).unwrap(),
            d.rows_between(Value::Int(a), Value::Int(b)).unwrap(),
        );
        assert_eq!(fr, dr, "rows with {a} <= dense <= {b}");
    }
    let ids: Vec<u32> = (0..ROWS).map(|r| f.value_id(r)).collect();
    let mut got = vec![0i64; ROWS];
    f.dict.gather_ints(&ids, &mut got).unwrap();
    let want: Vec<i64> = (0..ROWS).map(|r| common::row(r, 3).4).collect();
    assert_eq!(got, want);
    ft.set_counting(true);
    f.dict.gather_ints(&ids, &mut got).unwrap();
    let _ = f.value(3);
    let _ = f
        .rows_between(Value::Int(min), Value::Int(min + 10))
        .unwrap();
    assert_eq!(
        f.counts().dictionary.total(),
        0,
        "a frame reads no dictionary"
    );
}
