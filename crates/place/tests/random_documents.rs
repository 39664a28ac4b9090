//! Guards the entry points of the `place_workload`, `place_profile` and `placement` fuzz
//! targets on stable, in every `cargo test`: random bytes and mutations of valid
//! documents (digits, signs, huge numbers, cut text) either fail with a one-line error
//! or give a document that is modelled, solved and checked without a panic or an
//! overflow — and the hostile numbers of issue 32 are refused by name.

use pmolap_place::{
    solve_budget, solve_target, Assignment, Encoding, Granularity, Model, ModelOptions,
    PlacementFile, Profile, StructureLoad, TwoTierProblem, Workload,
};
use pmolap_store::{AccessCounts, ColumnType, StructureKind};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const WORKLOAD: &str = include_str!("../../../fuzz/corpus/place_workload/seed-workload.json");
const PROFILE: &str = include_str!("../../../fuzz/corpus/place_profile/seed-profile.json");
const PLACEMENT: &str = include_str!("../../../fuzz/corpus/placement/seed-placement.json");

/// Tokens a mutation splices in: what breaks number checks and parsers.
const TOKENS: &[&str] = &[
    "18446744073709551615",
    "18446744073709551616",
    "9223372036854775808",
    "-1e12",
    "1e308",
    "-0",
    "NaN",
    "0",
    "1",
    "\"\"",
    "null",
    "[]",
    "{}",
    "\"dram\"",
    "\"optane-200\"",
    ",",
    "}",
];

/// `seed` with 1–4 random edits: a token spliced over a number or anywhere, a byte
/// flipped, or the text cut.
fn mutate(rng: &mut StdRng, seed: &str) -> Vec<u8> {
    let mut b = seed.as_bytes().to_vec();
    for _ in 0..rng.gen_range(1..=4) {
        let at = rng.gen_range(0..b.len().max(1));
        match rng.gen_range(0..4) {
            0 => {
                // Replace the number starting at or after `at` with a token.
                let Some(start) = (at..b.len()).find(|&i| b[i].is_ascii_digit()) else {
                    continue;
                };
                let end = (start..b.len())
                    .find(|&i| !(b[i].is_ascii_digit() || b"+-.eE".contains(&b[i])))
                    .unwrap_or(b.len());
                let t = TOKENS[rng.gen_range(0..TOKENS.len())].as_bytes();
                b.splice(start..end, t.iter().copied());
            }
            1 => {
                let t = TOKENS[rng.gen_range(0..TOKENS.len())].as_bytes();
                b.splice(at..at, t.iter().copied());
            }
            2 => {
                if let Some(x) = b.get_mut(at) {
                    *x ^= 1 << rng.gen_range(0..8);
                }
            }
            _ => b.truncate(at),
        }
    }
    b
}

fn inputs(seed: &str, n: usize, rng_seed: u64) -> Vec<Vec<u8>> {
    let mut rng = StdRng::seed_from_u64(rng_seed);
    let mut v = vec![seed.as_bytes().to_vec()];
    for i in 0..n {
        if i % 8 == 0 {
            let len = rng.gen_range(0..200);
            v.push((0..len).map(|_| rng.gen()).collect());
        } else {
            v.push(mutate(&mut rng, seed));
        }
    }
    v
}

fn one_line(e: impl std::fmt::Display) {
    let e = e.to_string();
    assert!(!e.contains('\n'), "a multi-line error: {e}");
}

/// A fixed workload: one structure of each kind and variant, counts of every type.
fn fixed_workload(store_format: u32) -> Workload {
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
    Workload::new(
        store_format,
        1e9,
        vec![
            s(
                "t",
                "a",
                StructureKind::DataVector,
                ColumnType::Int,
                Some(17),
            ),
            s("t", "a", StructureKind::Dictionary, ColumnType::Int, None),
            s("t", "b", StructureKind::Dictionary, ColumnType::Str, None),
            s(
                "u",
                "c",
                StructureKind::InvertedIndex,
                ColumnType::Int,
                None,
            ),
        ],
    )
    .unwrap()
}

/// What the `place_workload` fuzz target does with one input.
fn workload_case(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let w = match Workload::parse("fuzz.json", text) {
        Ok(w) => w,
        Err(e) => return one_line(e),
    };
    if w.structures.len() > 24 {
        return;
    }
    let mut p = Profile::optane_200();
    p.store_format = w.store_format;
    let m = Model::new(ModelOptions::new(1 << 20)).unwrap();
    let _ = m.predict(
        &w,
        std::slice::from_ref(&p),
        &Assignment::all(w.structures.len(), 1),
    );
    for g in [Granularity::Structure, Granularity::Table] {
        if let Ok(problem) = TwoTierProblem::new(&w, &m, &p, g) {
            let _ = solve_budget(&problem, 0.1).map_err(one_line);
            let _ = solve_target(&problem, 0.5).map_err(one_line);
        }
    }
}

/// What the `place_profile` fuzz target does with one input.
fn profile_case(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let p = match Profile::parse("fuzz.json", text) {
        Ok(p) => p,
        Err(e) => return one_line(e),
    };
    let w = fixed_workload(p.store_format);
    for page_model in [false, true] {
        let mut o = ModelOptions::new(1 << 20);
        o.page_model = page_model;
        let m = Model::new(o).unwrap();
        let Ok(pred) = m.predict(&w, std::slice::from_ref(&p), &Assignment::all(4, 1)) else {
            continue;
        };
        assert!(
            pred.t_ns.is_finite() && pred.t_ns >= 0.0,
            "t = {}",
            pred.t_ns
        );
    }
}

/// What the `placement` fuzz target does with one input.
fn placement_case(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let pf = match PlacementFile::parse("fuzz.json", text) {
        Ok(pf) => pf,
        Err(e) => return one_line(e),
    };
    let p = Profile::optane_200();
    let w = fixed_workload(p.store_format);
    let _ = pf.assignment(&w, std::slice::from_ref(&p));
    for s in &pf.structures {
        let _ = pf.to_store_placement(&s.table);
    }
    let _ = pf.check_capacities(1 << 30, |_, c, _| (c.len() as u64).checked_mul(4096));
}

#[test]
fn random_and_mutated_workloads() {
    workload_case(WORKLOAD.as_bytes());
    Workload::parse("seed", WORKLOAD).expect("the seed workload is valid");
    for d in inputs(WORKLOAD, 3000, 1) {
        workload_case(&d);
    }
}

#[test]
fn random_and_mutated_profiles() {
    Profile::parse("seed", PROFILE).expect("the seed profile is valid");
    for d in inputs(PROFILE, 3000, 2) {
        profile_case(&d);
    }
}

#[test]
fn random_and_mutated_placements() {
    PlacementFile::parse("seed", PLACEMENT).expect("the seed placement is valid");
    for d in inputs(PLACEMENT, 3000, 3) {
        placement_case(&d);
    }
}

#[test]
fn hostile_numbers_are_refused_by_name() {
    let w = WORKLOAD.replace("\"bytes\": 2457600", "\"bytes\": 18446744073709551000");
    let e = Workload::parse("w", &w).unwrap_err().to_string();
    assert!(e.contains("more than 2^64 bytes"), "{e}");
    let w = WORKLOAD.replacen("\"scan\": 600000", "\"scan\": 18446744073709551615", 1);
    let e = Workload::parse("w", &w).unwrap_err().to_string();
    assert!(e.contains("more than 2^64 accesses"), "{e}");
    let w = WORKLOAD.replacen("\"lookup\": 10,", "\"lookup\": 18446744073709551615,", 2);
    let e = Workload::parse("w", &w).unwrap_err().to_string();
    assert!(e.contains("accesses"), "{e}");

    let p = PROFILE.replace("\"random_page_ns\": 80000.0", "\"random_page_ns\": -1e12");
    let e = Profile::parse("p", &p).unwrap_err().to_string();
    assert!(e.contains("pages.random_page_ns"), "{e}");
    let p = PROFILE.replace(
        "\"sequential_page_ns\": 2000.0",
        "\"sequential_page_ns\": 1e300",
    );
    assert!(Profile::parse("p", &p).is_err());
    let p = PROFILE.replace("\"extra_ns\": 225.8", "\"extra_ns\": 1e20");
    let e = Profile::parse("p", &p).unwrap_err().to_string();
    assert!(e.contains("extra_ns"), "{e}");
    let p = PROFILE.replace("\"dram_ns\": 589.4", "\"dram_ns\": -5");
    let e = Profile::parse("p", &p).unwrap_err().to_string();
    assert!(e.contains("dram_ns"), "{e}");
    let p = PROFILE.replace("\"fault_pages\": 8", "\"fault_pages\": 0");
    assert!(Profile::parse("p", &p).is_err());
    // Noise below zero in an extra cost stays accepted (clamped by the model).
    assert!(PROFILE.contains("-0.3"));

    let pl = PLACEMENT.replace("\"t_ns\": 1200000000.0", "\"t_ns\": -1");
    assert_ne!(pl, PLACEMENT);
    let e = PlacementFile::parse("pl", &pl).unwrap_err().to_string();
    assert!(e.contains("predicted"), "{e}");
    // A promise behind a cache below one of its own predictions is refused; the highest
    // of the three reads.
    let behind = |promise: &str| {
        PLACEMENT.replace(
            "\"t_ns\": 1200000000.0",
            &format!("\"behind_cache\": {{\"cache_bytes\": 4096, \"less\": 1.5, \"at\": 1.2, \"more\": 1.0, \"promise\": {promise}}}, \"t_ns\": 1200000000.0"),
        )
    };
    let pf = PlacementFile::parse("pl", &behind("1.5")).unwrap();
    assert_eq!(pf.predicted.unwrap().behind_cache.unwrap().promise, 1.5);
    let e = PlacementFile::parse("pl", &behind("1.2"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("predicted.behind_cache"), "{e}");
    let pl = PLACEMENT.replace("\"capacity_bytes\": 1000000000", "\"capacity_bytes\": 1");
    let pf = PlacementFile::parse("pl", &pl).unwrap();
    let e = pf
        .check_capacities(1 << 30, |_, _, _| Some(1 << 20))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("tiers[1] (optane-200)") && e.contains("capacity_bytes 1 "),
        "{e}"
    );
    PlacementFile::parse("pl", PLACEMENT)
        .unwrap()
        .check_capacities(1 << 30, |_, _, _| Some(1 << 20))
        .unwrap();
}

#[test]
fn the_solvers_refuse_past_their_bound() {
    let mut w = fixed_workload(Profile::optane_200().store_format);
    let proto = w.structures[0].clone();
    w.structures = (0..pmolap_place::solve::MAX_STRUCTURES + 1)
        .map(|i| StructureLoad {
            column: format!("c{i}"),
            bytes: 1000 + i as u64,
            ..proto.clone()
        })
        .collect();
    w.validate("w").unwrap();
    let m = Model::new(ModelOptions::new(1 << 20)).unwrap();
    let e = TwoTierProblem::new(&w, &m, &Profile::optane_200(), Granularity::Structure)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("too big to solve") && e.contains("4097 structures"),
        "{e}"
    );
}
