//! Guards the column store against the inputs cargo-fuzz found crashing it (fuzz/,
//! docs/results.md "Reliability: fuzzing"): each crasher, fed as its fuzz target fed it,
//! now gives a clean one-line error.

use std::path::Path;

use pmolap_store::format::{Header, FORMAT_VERSION, HEADER_USED, OFF_HEADER_CRC, OFF_VERSION};

fn crasher(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz_crashers")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn one_line(e: impl std::fmt::Display) -> String {
    let msg = e.to_string();
    assert!(!msg.contains('\n'), "a multi-line error: {msg}");
    msg
}

/// store_manifest: a structure header (the input's first 64 bytes, header checksum made
/// to match) whose payload length overflows `4096 + length` in the size check.
#[test]
fn header_payload_length_near_u64_max_is_refused() {
    let b = crasher("store_manifest-header-payload-len-overflow");
    let mut head = b[..HEADER_USED].to_vec();
    // The crasher predates format version 2: bring its version up to this build's.
    head[OFF_VERSION..OFF_VERSION + 4].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    let crc = crc32fast::hash(&head[..OFF_HEADER_CRC]);
    head[OFF_HEADER_CRC..OFF_HEADER_CRC + 4].copy_from_slice(&crc.to_le_bytes());
    let file_len = u64::from_le_bytes(b[HEADER_USED..HEADER_USED + 8].try_into().unwrap());
    let e = Header::decode(Path::new("c0000.dv.g1"), &head, file_len).unwrap_err();
    let msg = one_line(e);
    assert!(msg.contains("payload length"), "{msg}");
}
