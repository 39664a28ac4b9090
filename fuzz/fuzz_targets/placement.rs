//! Guards placement documents: any text read as a placement file parses into a checked
//! placement or a clean one-line error, and a valid one is checked against a fixed
//! workload, turned into the store's placement per table and checked against tier
//! capacities without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pmolap_place::{PlacementFile, Profile};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let pf = match PlacementFile::parse("fuzz.json", text) {
        Ok(pf) => pf,
        Err(e) => {
            assert!(!e.to_string().contains('\n'), "a multi-line error: {e}");
            return;
        }
    };
    let p = Profile::optane_200();
    let w = pmolap_fuzz::place_workload(p.store_format);
    let _ = pf.assignment(&w, std::slice::from_ref(&p));
    for s in &pf.structures {
        let _ = pf.to_store_placement(&s.table);
    }
    let _ = pf.check_capacities(1 << 30, |_, c, _| (c.len() as u64).checked_mul(4096));
});
