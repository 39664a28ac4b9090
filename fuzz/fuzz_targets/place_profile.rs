//! Guards the placement advisor's profile documents: any text read as a profile file
//! parses into a validated profile (finite, non-negative, plausible costs) or a clean
//! one-line error, and a valid one prices a fixed workload (per access, and with the
//! page model when it has page costs) into finite, non-negative costs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pmolap_place::{Assignment, Model, ModelOptions, Profile};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let p = match Profile::parse("fuzz.json", text) {
        Ok(p) => p,
        Err(e) => {
            assert!(!e.to_string().contains('\n'), "a multi-line error: {e}");
            return;
        }
    };
    let w = pmolap_fuzz::place_workload(p.store_format);
    for page_model in [false, true] {
        let mut o = ModelOptions::new(1 << 20);
        o.page_model = page_model;
        let m = Model::new(o).expect("a valid model");
        let Ok(pred) = m.predict(&w, std::slice::from_ref(&p), &Assignment::all(w.structures.len(), 1)) else {
            continue;
        };
        assert!(pred.t_ns.is_finite() && pred.t_ns >= 0.0, "t = {}", pred.t_ns);
    }
});
