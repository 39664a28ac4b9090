//! What the fuzz targets share: a scratch directory per process, checksum fix-ups (so
//! the fuzzer reaches the checks behind a checksum instead of stopping at it), and the
//! small fixed tables the targets open or plan against.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use pmolap_store::format::{
    HEADER_USED, MF_BODY, MF_OFF_CRC, MF_OFF_LEN, OFF_HEADER_CRC, OFF_PAYLOAD_CRC, PAYLOAD_OFFSET,
};
use pmolap_store::{ColumnType, Schema, TableBuilder, Value, WriteOptions};

/// A scratch directory that lives as long as the process (removed by the OS's temp
/// cleaning, not by us: libFuzzer exits without running destructors).
pub fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = tempfile::Builder::new()
            .prefix("pmolap-fuzz-")
            .tempdir()
            .expect("a scratch directory in $TMPDIR");
        d.keep()
    })
}

/// Little-endian u32 from up to 4 bytes at `at` (missing bytes read as zero).
pub fn u32_from(data: &[u8], at: usize) -> u32 {
    let mut b = [0u8; 4];
    for (i, x) in b.iter_mut().enumerate() {
        *x = data.get(at + i).copied().unwrap_or(0);
    }
    u32::from_le_bytes(b)
}

/// Makes a manifest's length field and body checksum match its body (bytes 24..).
pub fn fix_manifest(b: &mut [u8]) {
    if b.len() < MF_BODY {
        return;
    }
    let len = (b.len() - MF_BODY) as u64;
    let crc = crc32fast::hash(&b[MF_BODY..]);
    b[MF_OFF_LEN..MF_OFF_LEN + 8].copy_from_slice(&len.to_le_bytes());
    b[MF_OFF_CRC..MF_OFF_CRC + 4].copy_from_slice(&crc.to_le_bytes());
}

/// Makes a structure file's payload checksum (when `payload`) and header checksum match
/// its bytes; returns the payload checksum now in the header.
pub fn fix_structure(b: &mut [u8], payload: bool) -> Option<u32> {
    if b.len() < HEADER_USED {
        return None;
    }
    if payload && b.len() >= PAYLOAD_OFFSET {
        let crc = crc32fast::hash(&b[PAYLOAD_OFFSET..]);
        b[OFF_PAYLOAD_CRC..OFF_PAYLOAD_CRC + 4].copy_from_slice(&crc.to_le_bytes());
    }
    let crc = crc32fast::hash(&b[..OFF_HEADER_CRC]);
    b[OFF_HEADER_CRC..OFF_HEADER_CRC + 4].copy_from_slice(&crc.to_le_bytes());
    Some(u32_from(b, OFF_PAYLOAD_CRC))
}

/// Writes a small table of `schema` to `dir`: `rows` rows, every int column
/// `row % keys + 1`, every string column `<name>#<row % 3>`, inverted indexes on
/// `indexed`.
pub fn write_table(dir: &Path, schema: Schema, rows: usize, keys: usize, indexed: &[&str]) {
    let cols: Vec<(String, ColumnType)> = schema
        .columns
        .iter()
        .map(|c| (c.name.clone(), c.ty))
        .collect();
    let mut b = TableBuilder::new(schema);
    for r in 0..rows {
        let strs: Vec<String> = cols.iter().map(|(n, _)| format!("{n}#{}", r % 3)).collect();
        let row: Vec<Value<'_>> = cols
            .iter()
            .zip(&strs)
            .map(|((_, ty), s)| match ty {
                ColumnType::Int => Value::Int((r % keys) as i64 + 1),
                ColumnType::Str => Value::Str(s),
            })
            .collect();
        b.push_row(&row).expect("a row of the schema");
    }
    b.finish(dir, &WriteOptions::default().with_index(indexed))
        .expect("the fixed table writes");
}

/// A tiny SSB database in the scratch directory: the five SSB schemas with 6 rows per
/// dimension (keys 1..=6) and 24 fact rows (`query_yaml` and `sql_text` plan against it).
pub fn tiny_ssb() -> pmolap_engine::Database {
    let dir = scratch().join("ssb");
    for t in pmolap_ssb::TABLES {
        let rows = if t == "lineorder" { 24 } else { 6 };
        write_table(
            &dir.join(t),
            pmolap_ssb::schema_of(t).expect("an SSB table"),
            rows,
            6,
            &[],
        );
    }
    pmolap_engine::Database::open(
        &dir,
        &pmolap_store::Placement::home(),
        &pmolap_store::table::OpenOptions::default(),
    )
    .expect("the tiny SSB database opens")
}

/// A fixed workload of the store format `store_format`: one structure of every kind and
/// variant the built-in profiles price, with counts of every access type
/// (`place_profile` and `placement` model and check against it).
pub fn place_workload(store_format: u32) -> pmolap_place::Workload {
    use pmolap_place::{Encoding, StructureLoad, Workload};
    use pmolap_store::{AccessCounts, StructureKind};
    let counts = AccessCounts {
        scan: 100_000,
        lookup: 1000,
        near_dense: 100,
        medium_dense: 10,
        far_dense: 1,
    };
    let s = |table: &str, column: &str, kind, ty, bit_width| StructureLoad {
        table: table.into(),
        column: column.into(),
        kind,
        bytes: 1 << 20,
        value_type: ty,
        encoding: (kind == StructureKind::DataVector).then_some(Encoding::Uncompressed),
        bit_width,
        counts,
    };
    let structures = vec![
        s("t", "a", StructureKind::DataVector, ColumnType::Int, Some(17)),
        s("t", "a", StructureKind::Dictionary, ColumnType::Int, None),
        s("t", "b", StructureKind::Dictionary, ColumnType::Str, None),
        s("u", "c", StructureKind::InvertedIndex, ColumnType::Int, None),
    ];
    Workload::new(store_format, 1e9, structures).expect("the fixed workload is valid")
}
