//! Shared helpers of the store's integration tests: a deterministic small table.
#![allow(dead_code)]

use std::path::Path;

use pmolap_store::{ColumnType, Manifest, Schema, TableBuilder, Value, WriteOptions};

pub const NAMES: [&str; 5] = ["", "AIR", "MAIL", "REG AIR", "TRUCK"];

/// Column values of row `i` of table variant `seed`.
pub fn row(i: usize, seed: u64) -> (i64, i64, i64, String) {
    let id = ((i as u64 * 2_654_435_761 + seed) % 1_000_003) as i64 - 500_000;
    let small = (i % 7) as i64 + seed as i64;
    let sparse = (i as i64 * 1_000_000_007 + seed as i64) % 9_000_000_000_000;
    let s = format!("{}#{}", NAMES[i % 5], (i * 31 + seed as usize) % 53);
    (id, small, sparse, s)
}

pub fn schema() -> Schema {
    Schema::new([
        ("id", ColumnType::Int),
        ("small", ColumnType::Int),
        ("sparse", ColumnType::Int),
        ("name", ColumnType::Str),
    ])
    .unwrap()
}

pub fn builder(rows: usize, seed: u64) -> TableBuilder {
    let mut b = TableBuilder::new(schema());
    for i in 0..rows {
        let (a, c, d, s) = row(i, seed);
        b.push_row(&[Value::Int(a), Value::Int(c), Value::Int(d), Value::Str(&s)])
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
