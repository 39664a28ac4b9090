//! Shared helpers of the store's integration tests: a deterministic small table.
#![allow(dead_code)]

use std::path::Path;

use pmolap_store::{ColumnType, Manifest, Schema, TableBuilder, Value, WriteOptions};

pub const NAMES: [&str; 5] = ["", "AIR", "MAIL", "REG AIR", "TRUCK"];

/// Column values of row `i` of table variant `seed`. `dense` takes 8,192 values in a
/// range of 8,192: from 4,096 rows on the builder encodes it as a frame of reference.
pub fn row(i: usize, seed: u64) -> (i64, i64, i64, String, i64) {
    let id = ((i as u64 * 2_654_435_761 + seed) % 1_000_003) as i64 - 500_000;
    let small = (i % 7) as i64 + seed as i64;
    let sparse = (i as i64 * 1_000_000_007 + seed as i64) % 9_000_000_000_000;
    let s = format!("{}#{}", NAMES[i % 5], (i * 31 + seed as usize) % 53);
    let dense = ((i as i64 * 48_271) % 8192) - 4000 + seed as i64 * 100_000;
    (id, small, sparse, s, dense)
}

/// Asserts that row `i` of `t` holds [`row`]`(i, seed)`; `what` names the table in the
/// failure.
#[track_caller]
pub fn assert_row(t: &pmolap_store::Table, i: usize, seed: u64, what: &str) {
    let (a, c, d, s, e) = row(i, seed);
    assert_eq!(
        t.row(i).unwrap(),
        vec![
            Value::Int(a),
            Value::Int(c),
            Value::Int(d),
            Value::Str(&s),
            Value::Int(e)
        ],
        "row {i} of {what}"
    );
}

pub fn schema() -> Schema {
    Schema::new([
        ("id", ColumnType::Int),
        ("small", ColumnType::Int),
        ("sparse", ColumnType::Int),
        ("name", ColumnType::Str),
        ("dense", ColumnType::Int),
    ])
    .unwrap()
}

pub fn builder(rows: usize, seed: u64) -> TableBuilder {
    let mut b = TableBuilder::new(schema());
    for i in 0..rows {
        let (a, c, d, s, e) = row(i, seed);
        b.push_row(&[
            Value::Int(a),
            Value::Int(c),
            Value::Int(d),
            Value::Str(&s),
            Value::Int(e),
        ])
        .unwrap();
    }
    b
}

pub fn build(dir: &Path, rows: usize, seed: u64) -> Manifest {
    builder(rows, seed)
        .finish(dir, &WriteOptions::default().with_index(&["small", "name"]))
        .unwrap()
}

/// Copies every file of `from` into `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}
