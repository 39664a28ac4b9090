//! Writes the binary seed inputs of `fuzz/corpus/` (Elf index files, table files, the
//! store_open mutation records); the text seeds are copied from the repository by hand
//! (fuzz/README.md). Run: `cargo run --manifest-path fuzz/Cargo.toml --example make_seeds`.

use std::path::Path;

use pmolap_index::{Elf, WriteOptions};
use pmolap_store::{ColumnType, Schema};

fn put(target: &str, name: &str, bytes: &[u8]) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(target);
    std::fs::create_dir_all(&dir).expect("a corpus directory");
    std::fs::write(dir.join(format!("seed-{name}")), bytes).expect("a seed file");
}

fn main() {
    let tmp = tempfile::tempdir().expect("a temp dir");

    // elf_open: mode byte, then a real index file (2 and 3 dimensions, duplicate rows).
    let elfs: [(&str, usize, Vec<u32>); 2] = [
        ("2d", 2, vec![0, 5, 1, 3, 1, 4, 3, 9, 0, 5]),
        ("3d", 3, vec![2, 1, 1, 2, 1, 1, 0, 7, 8, 2, 0, 3]),
    ];
    for (name, dims, flat) in elfs {
        let path = tmp.path().join(name);
        Elf::write(&path, dims, &flat, &WriteOptions::default()).expect("an Elf file");
        let file = std::fs::read(&path).expect("the Elf file");
        for mode in [0u8, 1] {
            let mut seed = vec![mode];
            seed.extend_from_slice(&file);
            put("elf_open", &format!("{name}-mode{mode}"), &seed);
        }
    }

    // store_manifest: a real MANIFEST, its JSON body, a real structure header.
    let dir = tmp.path().join("table");
    let schema = Schema::new([("k", ColumnType::Int), ("s", ColumnType::Str)]).expect("a schema");
    pmolap_fuzz::write_table(&dir, schema, 10, 4, &["k"]);
    let manifest = std::fs::read(dir.join("MANIFEST")).expect("the manifest");
    put("store_manifest", "manifest", &manifest);
    put(
        "store_manifest",
        "manifest-body",
        &manifest[pmolap_store::format::MF_BODY..],
    );
    let dv = std::fs::read(dir.join("c0000.dv.g1")).expect("a data vector");
    let mut head = dv[..pmolap_store::format::HEADER_USED].to_vec();
    head.extend_from_slice(&(dv.len() as u64).to_le_bytes());
    put("store_manifest", "dv-header", &head);

    // store_open: [file index, mode, offset u32 LE, bytes...]: untouched; one byte of the
    // manifest body with checksums fixed; a data-vector word with checksums fixed; a cut.
    put("store_open", "untouched", &[0, 0, 0, 0, 0, 0]);
    put("store_open", "untouched-dram", &[0, 4, 0, 0, 0, 0]);
    put("store_open", "manifest-rows", &[0, 1, 40, 0, 0, 0, b'9']);
    put("store_open", "dv-word", &[2, 1, 0, 16, 0, 0, 0xff, 0xff]);
    put("store_open", "cut-dict", &[1, 3, 0x10, 0x10, 0, 0]);
    // Header fields behind a matching header checksum (offsets: format.rs): the string
    // dictionary's entry count, a data vector's bit width.
    put("store_open", "hdr-entries", &[4, 1, 32, 0, 0, 0, 0x10]);
    put("store_open", "hdr-width", &[2, 1, 28, 0, 0, 0, 9]);
}
