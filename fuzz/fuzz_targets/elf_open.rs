//! Guards opening an Elf index file: any bytes written as an index file either fail
//! `Elf::open` (both checksums verified) with a clean error or open into an index that
//! answers exact, window and partial queries without panicking. Bit 0 of the first
//! input byte recomputes the header checksum, so the header's fields are fuzzed behind
//! it; the payload checksum is never recomputed: a payload forged with a matching
//! checksum is outside what the format defends against (docs/formats.md, "Elf index").
#![no_main]

use libfuzzer_sys::fuzz_target;
use pmolap_index::elf::cache;
use pmolap_index::Elf;
use pmolap_tier::TierSpec;

/// Header bytes covered by the header checksum, and where that checksum is (the "Elf
/// index" header table of docs/formats.md).
const HEADER_CRC_COVERS: usize = 40;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, file)) = data.split_first() else {
        return;
    };
    let mut file = file.to_vec();
    if mode & 1 != 0 && file.len() >= HEADER_CRC_COVERS + 4 {
        let crc = crc32fast::hash(&file[..HEADER_CRC_COVERS]);
        file[HEADER_CRC_COVERS..HEADER_CRC_COVERS + 4].copy_from_slice(&crc.to_le_bytes());
    }
    let path = pmolap_fuzz::scratch().join("fuzz.elf");
    std::fs::write(&path, &file).expect("the index file");
    let tier = if mode & 2 != 0 {
        TierSpec::File { path: path.clone() }
    } else {
        TierSpec::Dram { node: None }
    };
    let elf = match Elf::open(&path, &tier) {
        Ok(elf) => elf,
        Err(e) => {
            let msg = e.to_string();
            assert!(!msg.contains('\n'), "a multi-line error: {msg}");
            return;
        }
    };
    let d = elf.dims();
    let all = elf
        .partial(&vec![None; d])
        .expect("a full partial-match query");
    let lo = vec![0u32; d];
    let hi = vec![u32::MAX; d];
    assert_eq!(elf.range(&lo, &hi).expect("a full window"), all);
    let key: Vec<u32> = (0..d).map(|i| u32::from(mode) + i as u32).collect();
    let _ = elf.exact(&key).expect("an exact-match query");
    let _ = cache::lists(&elf);
    assert!(elf.exact(&key[1..]).is_err());
});
