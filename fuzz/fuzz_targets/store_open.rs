//! Guards opening a column-store table: a small valid table whose MANIFEST or one
//! structure file the input damages (bytes overwritten at an offset, or the file cut
//! there; checksums then made to match or not) must fail `Table::open` with checksum and
//! deep verification with a clean one-line error, or open into a table whose reads do
//! not panic.
#![no_main]

use std::path::Path;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use pmolap_store::format::MANIFEST;
use pmolap_store::{ColumnType, Manifest, Placement, Schema, Table, Value};
use pmolap_tier::TierSpec;

/// The valid table's files, the MANIFEST first.
fn pristine() -> &'static [(String, Vec<u8>)] {
    static FILES: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    FILES.get_or_init(|| {
        let dir = pmolap_fuzz::scratch().join("pristine");
        let schema = Schema::new([
            ("k", ColumnType::Int),
            ("s", ColumnType::Str),
            ("v", ColumnType::Int),
        ])
        .expect("a schema");
        pmolap_fuzz::write_table(&dir, schema, 40, 7, &["k", "s"]);
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
            .expect("the table directory")
            .map(|e| {
                let e = e.expect("a directory entry");
                let name = e.file_name().into_string().expect("a UTF-8 name");
                let bytes = std::fs::read(e.path()).expect("a table file");
                (name, bytes)
            })
            .collect();
        files.sort_by_key(|(n, _)| (n != MANIFEST, n.clone()));
        assert_eq!(files[0].0, MANIFEST);
        files
    })
}

/// Reads every row and range of every column of an opened table, once its columns are
/// verified (lazily, on first use: damage the open let through fails here, one line).
fn read_all(t: &Table) {
    let _ = t.info();
    let cols = match t.columns() {
        Ok(cols) => cols,
        Err(e) => {
            let msg = e.to_string();
            assert!(!msg.contains('\n'), "a multi-line error: {msg}");
            return;
        }
    };
    for r in 0..t.rows() {
        t.row(r).expect("verified columns read");
    }
    for c in cols {
        let (lo, hi) = match c.ty() {
            ColumnType::Int => (Value::Int(i64::MIN), Value::Int(i64::MAX)),
            ColumnType::Str => (Value::Str(""), Value::Str("\u{10ffff}")),
        };
        let all = c.rows_between(lo, hi).expect("a full range");
        assert_eq!(all.len(), c.rows());
        let _ = c.bitmap_between(lo, hi).expect("a full range");
        for r in 0..c.rows() {
            let v = c.value(r);
            let _ = c.rows_between(v, v).expect("a one-value range");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let [which, mode, rest @ ..] = data else {
        return;
    };
    let (fix, cut, on_dram) = (mode & 1 != 0, mode & 2 != 0, mode & 4 != 0);
    let mut files = pristine().to_vec();
    let i = *which as usize % files.len();
    {
        let f = &mut files[i].1;
        let at = pmolap_fuzz::u32_from(rest, 0) as usize % (f.len() + 1);
        let bytes = rest.get(4..).unwrap_or(&[]);
        if cut {
            f.truncate(at);
        }
        if f.len() < at + bytes.len() {
            f.resize(at + bytes.len(), 0);
        }
        f[at..at + bytes.len()].copy_from_slice(bytes);
    }
    if fix && i == 0 {
        pmolap_fuzz::fix_manifest(&mut files[0].1);
    } else if fix {
        let (name, f) = &mut files[i];
        let size = f.len() as u64;
        if let Some(crc) = pmolap_fuzz::fix_structure(f, true) {
            let name = name.clone();
            let mut m =
                Manifest::decode(Path::new(MANIFEST), &files[0].1).expect("the pristine manifest");
            for e in m.columns.iter_mut().flat_map(|c| c.files.iter_mut()) {
                if e.file == name {
                    e.size = size;
                    e.crc32 = crc;
                }
            }
            files[0].1 = m.encode().expect("a manifest encodes");
        }
    }
    let dir = pmolap_fuzz::scratch().join("open");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a table directory");
    for (name, bytes) in &files {
        std::fs::write(dir.join(name), bytes).expect("a table file");
    }
    let placement = if on_dram {
        Placement::all(TierSpec::Dram { node: None })
    } else {
        Placement::home()
    };
    match Table::open(&dir, &placement) {
        Ok(t) => read_all(&t),
        Err(e) => {
            let msg = e.to_string();
            assert!(!msg.contains('\n'), "a multi-line error: {msg}");
        }
    }
});
