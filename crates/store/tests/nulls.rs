//! Guards NULLs in the store: a NULL is the value id one past its column's dictionary
//! (int dictionary, int frame, strings, an all-NULL column, an inverted index), the
//! manifest of such a table is version 3 and lists each column's NULL count, rows sorted
//! by a nullable column keep NULLs last, and a table without NULLs is written as before
//! (manifest version 2, no `nulls` field).

use pmolap_store::format::{MANIFEST, MANIFEST_NULLS_VERSION};
use pmolap_store::{ColumnType, Placement, Schema, Table, TableBuilder, Value, WriteOptions};

fn schema() -> Schema {
    Schema::new([
        ("k", ColumnType::Int),
        ("dict", ColumnType::Int),
        ("frame", ColumnType::Int),
        ("s", ColumnType::Str),
        ("none", ColumnType::Int),
        ("nostr", ColumnType::Str),
    ])
    .unwrap()
}

/// Row `i`'s values, None for NULL: `dict` sparse values NULL every 3rd row, `frame`
/// 8,192 dense values NULL every 5th, `s` NULL every 4th, `none` and `nostr` always NULL.
fn want(i: usize) -> [Option<Value<'static>>; 6] {
    const S: [&str; 3] = ["a", "b", "zz"];
    [
        Some(Value::Int(i as i64)),
        (!i.is_multiple_of(3)).then_some(Value::Int((i as i64 % 11) * 1_000_000_007)),
        (!i.is_multiple_of(5)).then_some(Value::Int(i as i64 % 8192 - 100)),
        (!i.is_multiple_of(4)).then_some(Value::Str(S[i % 3])),
        None,
        None,
    ]
}

fn build(rows: usize) -> TableBuilder {
    let mut b = TableBuilder::new(schema());
    for i in 0..rows {
        for (c, v) in want(i).into_iter().enumerate() {
            match v {
                Some(v) => b.push_value(c, v).unwrap(),
                None => b.push_null(c).unwrap(),
            }
        }
    }
    b
}

#[test]
fn nulls_are_the_id_past_the_dictionary() {
    let dir = tempfile::tempdir().unwrap();
    let rows = 10_000;
    let opts = WriteOptions::default().with_index(&["s", "dict"]);
    let m = build(rows).finish(dir.path(), &opts).unwrap();
    assert_eq!(m.format_version, MANIFEST_NULLS_VERSION);
    let nulls: Vec<u64> = m.columns.iter().map(|c| c.nulls).collect();
    let count = |f: &dyn Fn(usize) -> bool| (0..rows).filter(|&i| f(i)).count() as u64;
    assert_eq!(
        nulls,
        [
            0,
            count(&|i| i % 3 == 0),
            count(&|i| i % 5 == 0),
            count(&|i| i % 4 == 0),
            rows as u64,
            rows as u64
        ]
    );
    assert_eq!(m.columns[2].encoding.to_string(), "frame");
    // The placeholders are no values: the dictionaries hold the column's values only.
    assert_eq!(m.columns[1].dict_len, 11);
    assert_eq!(m.columns[3].dict_len, 3);
    assert_eq!((m.columns[4].dict_len, m.columns[5].dict_len), (0, 0));
    let bytes = std::fs::read(dir.path().join(MANIFEST)).unwrap();
    assert_eq!(&bytes[8..12], &3u32.to_le_bytes());

    let t = Table::open(dir.path(), &Placement::default()).unwrap();
    for i in (0..rows).step_by(7) {
        assert_eq!(t.row_or_nulls(i).unwrap(), want(i).to_vec(), "row {i}");
    }
    let s = t.column("s").unwrap();
    assert_eq!(s.null_id(), Some(3));
    assert_eq!(s.ids(), 4);
    assert!(s.is_null(0) && !s.is_null(1));
    // The index lists the NULL rows under the NULL id.
    let ix = s.index.as_ref().unwrap();
    assert_eq!(ix.len(), 4);
    assert_eq!(ix.rows_of(3).len() as u64, s.nulls());
    // A selection by value never holds a NULL row.
    let d = t.column("dict").unwrap();
    let picked = d
        .rows_between(Value::Int(i64::MIN), Value::Int(i64::MAX))
        .unwrap();
    assert_eq!(picked.len() as u64, rows as u64 - d.nulls());
    assert!(picked.iter().all(|&r| r % 3 != 0));
    assert_eq!(t.column("k").unwrap().null_id(), None);
}

#[test]
fn sorting_by_a_nullable_column_puts_nulls_last() {
    let mut b = build(40);
    b.sort_rows_by(&["s", "dict"]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    b.finish(dir.path(), &WriteOptions::default()).unwrap();
    let t = Table::open(dir.path(), &Placement::default()).unwrap();
    let keys: Vec<(Option<String>, Option<i64>)> = (0..40)
        .map(|r| {
            let row = t.row_or_nulls(r).unwrap();
            (
                row[3].map(|v| v.to_string()),
                row[1].and_then(|v| v.as_int()),
            )
        })
        .collect();
    let mut sorted = keys.clone();
    // None last: sort by (is_none, value).
    sorted.sort_by_key(|(s, d)| (s.is_none(), s.clone(), d.is_none(), *d));
    assert_eq!(keys, sorted);
    // Every row is still whole: its key names its values.
    for r in 0..40 {
        let row = t.row_or_nulls(r).unwrap();
        let Some(Value::Int(k)) = row[0] else {
            panic!("key")
        };
        assert_eq!(row, want(k as usize).to_vec());
    }
}

#[test]
fn a_table_without_nulls_is_written_as_before() {
    let mut b = TableBuilder::new(Schema::new([("a", ColumnType::Int)]).unwrap());
    for i in 0..10 {
        b.push_row(&[Value::Int(i)]).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let m = b.finish(dir.path(), &WriteOptions::default()).unwrap();
    assert_eq!(m.format_version, 2);
    let bytes = std::fs::read(dir.path().join(MANIFEST)).unwrap();
    assert_eq!(&bytes[8..12], &2u32.to_le_bytes());
    assert!(!String::from_utf8_lossy(&bytes).contains("nulls"));
}

#[test]
fn a_manifest_disagreeing_about_nulls_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    build(100)
        .finish(dir.path(), &WriteOptions::default())
        .unwrap();
    let path = dir.path().join(MANIFEST);
    let bytes = std::fs::read(&path).unwrap();
    // Version 2 in header and body, NULLs still listed (checksum recomputed).
    let body = String::from_utf8(bytes[24..].to_vec())
        .unwrap()
        .replace("\"format_version\": 3", "\"format_version\": 2");
    let mut forged = bytes[..24].to_vec();
    forged[8..12].copy_from_slice(&2u32.to_le_bytes());
    forged[12..16].copy_from_slice(&crc32fast::hash(body.as_bytes()).to_le_bytes());
    forged[16..24].copy_from_slice(&(body.len() as u64).to_le_bytes());
    forged.extend_from_slice(body.as_bytes());
    std::fs::write(&path, forged).unwrap();
    let e = Table::open(dir.path(), &Placement::default()).unwrap_err();
    assert!(e.to_string().contains("columns with NULLs"), "{e}");
}

const ENV_DIR: &str = "PMOLAP_STORE_NULLS_CRASH_DIR";
const ENV_STEP: &str = "PMOLAP_STORE_NULLS_CRASH_STEP";

/// The crash child: rebuilds the table in `ENV_DIR` with NULLs, aborting at step
/// `ENV_STEP` (nothing unless the parent set both).
#[test]
fn nulls_crash_child() {
    let (Ok(dir), Some(step)) = (
        std::env::var(ENV_DIR),
        pmolap_os::durable::crash::child_step(ENV_STEP),
    ) else {
        return;
    };
    let opts = WriteOptions {
        threads: 1,
        crash_after_step: Some(step),
        ..WriteOptions::default()
    }
    .with_index(&["s"]);
    build(300)
        .finish(std::path::Path::new(&dir), &opts)
        .unwrap();
}

/// A table without NULLs (version 2) replaced by one with NULLs (version 3), the build
/// stopped after every step: the directory opens as exactly the old table or exactly the
/// new one, NULLs and all.
#[test]
fn a_crash_replacing_a_table_by_one_with_nulls_leaves_old_or_new() {
    let mut saw_new = false;
    let steps = pmolap_os::durable::crash::every_step(
        "nulls_crash_child",
        ENV_STEP,
        200,
        |_| {
            let dir = tempfile::tempdir().unwrap();
            let mut b = TableBuilder::new(schema());
            for i in 0..10 {
                let s = format!("{i}");
                let row = [0, 1, 2, 4].map(Value::Int);
                b.push_row(&[
                    row[0],
                    row[1],
                    row[2],
                    Value::Str(&s),
                    row[3],
                    Value::Str(&s),
                ])
                .unwrap();
            }
            b.finish(dir.path(), &WriteOptions::default()).unwrap();
            let vars = vec![(ENV_DIR.to_string(), dir.path().display().to_string())];
            (dir, vars)
        },
        |step, crashed, dir| {
            let t = Table::open(dir.path(), &Placement::default())
                .unwrap_or_else(|e| panic!("step {step}: {e}"));
            match t.rows() {
                10 => {
                    assert_eq!(t.manifest().format_version, 2, "step {step}");
                    assert!(crashed, "step {step}: a finished build left the old table");
                }
                300 => {
                    saw_new = true;
                    assert_eq!(t.manifest().format_version, 3, "step {step}");
                    for i in 0..300 {
                        assert_eq!(t.row_or_nulls(i).unwrap(), want(i).to_vec(), "step {step}");
                    }
                }
                n => panic!("step {step}: {n} rows"),
            }
        },
    );
    assert!(steps > 10, "{steps} crash points");
    assert!(saw_new);
}
