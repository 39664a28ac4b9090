//! Guards the placement advisor's workload documents: any text read as a workload file
//! parses into a validated workload (sizes and counts whose sums fit in 64 bits) or a
//! clean one-line error, and a small valid one is modelled and solved (both modes, two
//! granularities) without panicking or overflowing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pmolap_place::{
    solve_budget, solve_target, Assignment, Granularity, Model, ModelOptions, Profile,
    TwoTierProblem, Workload,
};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let w = match Workload::parse("fuzz.json", text) {
        Ok(w) => w,
        Err(e) => {
            assert!(!e.to_string().contains('\n'), "a multi-line error: {e}");
            return;
        }
    };
    // The front of many units is bounded (docs/placement.md, "Bounds") but not fast
    // enough for a fuzz iteration.
    if w.structures.len() > 24 {
        return;
    }
    let mut p = Profile::optane_200();
    p.store_format = w.store_format;
    let m = Model::new(ModelOptions::new(1 << 20)).expect("a valid model");
    let _ = m.predict(&w, std::slice::from_ref(&p), &Assignment::all(w.structures.len(), 1));
    for g in [Granularity::Structure, Granularity::Table] {
        if let Ok(problem) = TwoTierProblem::new(&w, &m, &p, g) {
            let _ = solve_budget(&problem, 0.1);
            let _ = solve_target(&problem, 0.5);
        }
    }
});
