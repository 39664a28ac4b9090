//! The Elf index file: written files reopen (in place and onto other tiers) with the same
//! array and answers; foreign, damaged (magic, version, checksums) and truncated files
//! are refused with one-line errors naming the file and the problem.

use std::path::Path;

use pmolap_index::elf::{self};
use pmolap_index::{Elf, Error, WriteOptions};
use pmolap_tier::TierSpec;

fn dram() -> TierSpec {
    TierSpec::Dram { node: None }
}

fn write_sample(path: &Path) -> Vec<u32> {
    let flat = elf::uniform_rows(3000, 4, 20, 11);
    Elf::write(path, 4, &flat, &WriteOptions::default()).unwrap();
    flat
}

fn open_err(path: &Path) -> Error {
    let e = Elf::open(path, &dram()).unwrap_err();
    let s = e.to_string();
    assert!(!s.contains('\n'), "{s}");
    assert!(
        s.contains(&path.display().to_string()),
        "names the file: {s}"
    );
    e
}

#[test]
fn write_then_open_in_place_and_on_other_tiers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.elf");
    let flat = write_sample(&path);
    let built = Elf::build(4, &flat, &dram()).unwrap();
    let file_tier = TierSpec::File { path: path.clone() };
    let in_place = Elf::open(&path, &file_tier).unwrap();
    let on_dram = Elf::open(&path, &dram()).unwrap();
    let on_dir = Elf::open(
        &path,
        &TierSpec::File {
            path: dir.path().to_path_buf(),
        },
    )
    .unwrap();
    for e in [&in_place, &on_dram, &on_dir] {
        assert_eq!(e.words(), built.words());
        assert_eq!((e.dims(), e.rows()), (4, 3000));
        assert_eq!(
            e.range(&[0, 5, 0, 0], &[20, 9, 20, 3]).unwrap(),
            built.range(&[0, 5, 0, 0], &[20, 9, 20, 3]).unwrap()
        );
    }
    assert_eq!(
        in_place.region().info().path.as_deref(),
        Some(path.as_path())
    );
    assert!(on_dram.region().info().path.is_none());
    // The file layout: header page + 4 bytes a word, nothing else left behind.
    let len = std::fs::metadata(&path).unwrap().len();
    assert_eq!(len, 4096 + 4 * built.words().len() as u64);
    drop(on_dir); // its temporary region file in `dir` was unlinked once mapped
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["a.elf", "a.elf.lock"], "no leftovers");
    // A writer cannot replace the index under a reader that maps it in place.
    let flat2 = elf::uniform_rows(10, 4, 3, 12);
    let e = Elf::write(&path, 4, &flat2, &WriteOptions::default()).unwrap_err();
    assert!(e.to_string().contains("open for reading"), "{e}");
    assert_eq!(
        in_place.words(),
        built.words(),
        "the reader's index is intact"
    );
    // Rewriting replaces the index once the reader is gone.
    drop(in_place);
    Elf::write(&path, 4, &flat2, &WriteOptions::default()).unwrap();
    assert_eq!(Elf::open(&path, &dram()).unwrap().rows(), 10);
}

#[test]
fn empty_index_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.elf");
    Elf::write(&path, 3, &[], &WriteOptions::default()).unwrap();
    let e = Elf::open(&path, &dram()).unwrap();
    assert_eq!(e.rows(), 0);
    assert!(e.range(&[0; 3], &[9; 3]).unwrap().is_empty());
}

fn patch(path: &Path, off: usize, bytes: &[u8]) {
    let mut data = std::fs::read(path).unwrap();
    data[off..off + bytes.len()].copy_from_slice(bytes);
    std::fs::write(path, data).unwrap();
}

#[test]
fn damaged_and_foreign_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.elf");

    write_sample(&path);
    patch(&path, 0, b"NOTANELF");
    assert!(matches!(open_err(&path), Error::NotElf { .. }));

    std::fs::write(&path, b"hello, world\n").unwrap();
    assert!(matches!(open_err(&path), Error::NotElf { .. }));

    std::fs::write(&path, b"").unwrap();
    assert!(matches!(open_err(&path), Error::Truncated { .. }));

    write_sample(&path);
    patch(&path, 8, &7u32.to_le_bytes());
    let e = open_err(&path);
    assert!(matches!(e, Error::Version { found: 7, .. }), "{e}");

    write_sample(&path);
    patch(&path, 12, &5u32.to_le_bytes()); // dims, under the header checksum
    let e = open_err(&path);
    assert!(matches!(e, Error::Checksum { what: "header", .. }), "{e}");

    write_sample(&path);
    let len = std::fs::metadata(&path).unwrap().len() as usize;
    patch(&path, len - 4, &[0xAB, 0xCD, 0xEF, 0x01]);
    let e = open_err(&path);
    assert!(
        matches!(
            e,
            Error::Checksum {
                what: "payload",
                ..
            }
        ),
        "{e}"
    );

    write_sample(&path);
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.set_len(len as u64 - 100).unwrap();
    let e = open_err(&path);
    assert!(matches!(e, Error::Truncated { .. }), "{e}");
    f.set_len(2000).unwrap();
    assert!(matches!(open_err(&path), Error::Truncated { .. }));
    // Refusing did not change the file (no growth, no rebuild).
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 2000);

    let missing = dir.path().join("missing.elf");
    assert!(matches!(open_err(&missing), Error::Io { .. }));
    assert!(!missing.exists());
}
