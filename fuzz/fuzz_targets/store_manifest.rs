//! Guards the column store's byte decoders: `Manifest::decode` and `Header::decode` on
//! any bytes, as given and with their checksums made to match (so the checks behind the
//! checksums are reached); what decodes must encode and decode to the same value.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use pmolap_store::format::{Header, HEADER_USED, MANIFEST_MAGIC, MF_BODY, PAYLOAD_OFFSET};
use pmolap_store::Manifest;

fn manifest(b: &[u8]) {
    let path = Path::new("MANIFEST");
    if let Ok(m) = Manifest::decode(path, b) {
        let enc = m.encode().expect("a decoded manifest encodes");
        let back = Manifest::decode(path, &enc).expect("an encoded manifest decodes");
        assert_eq!(back, m);
        let _ = (m.schema(), m.file_names().count());
    }
}

fuzz_target!(|data: &[u8]| {
    // As given.
    manifest(data);
    // As a manifest body behind a valid header.
    let mut framed = MANIFEST_MAGIC.to_vec();
    framed.extend_from_slice(&[0u8; MF_BODY - 8]);
    framed[8..12].copy_from_slice(&pmolap_store::format::FORMAT_VERSION.to_le_bytes());
    framed.extend_from_slice(data);
    pmolap_fuzz::fix_manifest(&mut framed);
    manifest(&framed);
    let head = &data[..data.len().min(HEADER_USED)];
    // A structure header: the input's first 64 bytes, the file length its next 8 (or the
    // length the header asks for), as given and with the header checksum fixed.
    let file_len = match data.get(HEADER_USED..HEADER_USED + 8) {
        Some(b) => u64::from_le_bytes(b.try_into().expect("8 bytes")),
        None => PAYLOAD_OFFSET as u64 + data.len() as u64,
    };
    let path = Path::new("c0000.dv.g1");
    let _ = Header::decode(path, head, file_len);
    if head.len() == HEADER_USED {
        let mut fixed = head.to_vec();
        pmolap_fuzz::fix_structure(&mut fixed, false);
        if let Ok(h) = Header::decode(path, &fixed, file_len) {
            let enc = h.encode();
            assert_eq!(Header::decode(path, &enc, file_len).ok(), Some(h));
        }
    }
});
