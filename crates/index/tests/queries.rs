//! Query correctness: exact-match, window and partial-match answers of the Elf equal a
//! brute-force scan, on many seeded random data sets (duplicates, MonoLists, sparse and
//! dense first dimensions, 1 to 6 dimensions) and random queries, on `dram` and `file:`.

use pmolap_index::elf::{self, MAX_VALUE};
use pmolap_index::{Elf, Error};
use pmolap_tier::TierSpec;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

fn scan(dims: usize, flat: &[u32], lo: &[u32], hi: &[u32]) -> Vec<u32> {
    let mut out: Vec<u32> = flat
        .chunks(dims)
        .enumerate()
        .filter(|(_, r)| {
            r.iter()
                .zip(lo.iter().zip(hi))
                .all(|(v, (l, h))| l <= v && v <= h)
        })
        .map(|(i, _)| i as u32)
        .collect();
    out.sort_unstable();
    out
}

fn sorted(mut v: Vec<u32>) -> Vec<u32> {
    v.sort_unstable();
    v
}

fn random_data(rng: &mut SmallRng) -> (usize, Vec<u32>, Vec<u32>) {
    let dims = rng.gen_range(1..=6);
    let rows = rng.gen_range(0..=300);
    // Per-dimension maxima: tiny (many duplicates), medium, wide.
    let maxima: Vec<u32> = (0..dims)
        .map(|d| match rng.gen_range(0..4) {
            0 => 0,
            1 => 3,
            2 => 100,
            _ if d == 0 => 5000,
            _ => MAX_VALUE,
        })
        .collect();
    let mut flat = Vec::with_capacity(rows * dims);
    for _ in 0..rows {
        for &m in &maxima {
            flat.push(rng.gen_range(0..=m));
        }
    }
    (dims, flat, maxima)
}

fn random_bounds(
    rng: &mut SmallRng,
    flat: &[u32],
    dims: usize,
    maxima: &[u32],
) -> (Vec<u32>, Vec<u32>) {
    let rows = flat.len() / dims;
    let mut lo = Vec::new();
    let mut hi = Vec::new();
    for (d, &m) in maxima.iter().enumerate() {
        // Bounds from existing values (as in the paper) or random ones.
        let pick = |rng: &mut SmallRng| {
            if rows > 0 && rng.gen_bool(0.7) {
                flat[rng.gen_range(0..rows) * dims + d]
            } else {
                rng.gen_range(0..=m.saturating_add(2))
            }
        };
        let (a, b) = (pick(rng), pick(rng));
        let (a, b) = if rng.gen_bool(0.9) {
            (a.min(b), a.max(b))
        } else {
            (a, b)
        };
        lo.push(a);
        hi.push(b);
    }
    (lo, hi)
}

fn check(elf: &Elf, dims: usize, flat: &[u32], maxima: &[u32], rng: &mut SmallRng) {
    let rows = flat.len() / dims;
    assert_eq!(elf.rows(), rows);
    for _ in 0..40 {
        // Exact match on an existing row and on a random key.
        if rows > 0 {
            let r = rng.gen_range(0..rows);
            let key = &flat[r * dims..r * dims + dims];
            let got = elf.exact(key).unwrap();
            assert!(got.contains(&(r as u32)));
            assert_eq!(got, scan(dims, flat, key, key), "exact {key:?}");
        }
        let key: Vec<u32> = maxima.iter().map(|&m| rng.gen_range(0..=m)).collect();
        assert_eq!(elf.exact(&key).unwrap(), scan(dims, flat, &key, &key));

        let (lo, hi) = random_bounds(rng, flat, dims, maxima);
        let got = elf.range(&lo, &hi).unwrap();
        assert_eq!(
            sorted(got),
            scan(dims, flat, &lo, &hi),
            "range {lo:?}..{hi:?}"
        );

        let bounds: Vec<Option<(u32, u32)>> = (0..dims)
            .map(|d| rng.gen_bool(0.5).then(|| (lo[d], hi[d])))
            .collect();
        let plo: Vec<u32> = bounds.iter().map(|b| b.map_or(0, |b| b.0)).collect();
        let phi: Vec<u32> = bounds.iter().map(|b| b.map_or(u32::MAX, |b| b.1)).collect();
        let got = elf.partial(&bounds).unwrap();
        assert_eq!(
            sorted(got),
            scan(dims, flat, &plo, &phi),
            "partial {bounds:?}"
        );
    }
}

#[test]
fn random_data_and_queries_match_a_scan() {
    let mut rng = SmallRng::seed_from_u64(0xE1F);
    for case in 0..400 {
        let (dims, flat, maxima) = random_data(&mut rng);
        let elf = Elf::build(dims, &flat, &TierSpec::Dram { node: None })
            .unwrap_or_else(|e| panic!("case {case}: {e}"));
        check(&elf, dims, &flat, &maxima, &mut rng);
    }
}

#[test]
fn paper_data_on_a_file_tier_matches_a_scan() {
    let dir = tempfile::tempdir().unwrap();
    let flat = elf::uniform_rows(20_000, 10, 100, 7);
    let tier = TierSpec::File {
        path: dir.path().to_path_buf(),
    };
    let elf = Elf::build(10, &flat, &tier).unwrap();
    let mut rng = SmallRng::seed_from_u64(1);
    check(&elf, 10, &flat, &[100; 10], &mut rng);
    // Every row is found by its own key.
    for r in (0..20_000).step_by(97) {
        assert!(elf
            .exact(&flat[r * 10..r * 10 + 10])
            .unwrap()
            .contains(&(r as u32)));
    }
    // The whole domain returns every row, in key order.
    assert_eq!(elf.range(&[0; 10], &[100; 10]).unwrap().len(), 20_000);
}

#[test]
fn from_rows_equals_flat_build_and_generator_is_seeded() {
    let rows = vec![vec![3, 1], vec![0, 2], vec![3, 1]];
    let a = Elf::from_rows(&rows, &TierSpec::Dram { node: None }).unwrap();
    let b = Elf::build(2, &[3, 1, 0, 2, 3, 1], &TierSpec::Dram { node: None }).unwrap();
    assert_eq!(a.words(), b.words());
    assert_eq!(a.exact(&[3, 1]).unwrap(), vec![0, 2]);
    assert_eq!(a.exact(&[3, 2]).unwrap(), Vec::<u32>::new());
    assert_eq!(
        elf::uniform_rows(50, 10, 100, 3),
        elf::uniform_rows(50, 10, 100, 3)
    );
    assert_ne!(
        elf::uniform_rows(50, 10, 100, 3),
        elf::uniform_rows(50, 10, 100, 4)
    );
    assert!(elf::uniform_rows(1000, 10, 100, 3)
        .iter()
        .all(|&v| v <= 100));
}

#[test]
fn bad_input_and_queries_are_one_line_errors() {
    let dram = TierSpec::Dram { node: None };
    let e = Elf::from_rows(&[vec![1, 2], vec![1]], &dram).unwrap_err();
    assert!(matches!(e, Error::BadRows(_)), "{e}");
    let e = Elf::from_rows(&[], &dram).unwrap_err();
    assert!(matches!(e, Error::BadRows(_)), "{e}");
    let e = Elf::build(300, &[], &dram).unwrap_err();
    assert!(matches!(e, Error::Dimensions { dims: 300, .. }), "{e}");
    let e = Elf::build(2, &[1, u32::MAX], &dram).unwrap_err();
    assert!(matches!(e, Error::ValueTooWide { .. }), "{e}");
    let elf = Elf::build(2, &[1, 2], &dram).unwrap();
    let e = elf.exact(&[1]).unwrap_err();
    assert!(matches!(e, Error::BadQuery(_)), "{e}");
    let e = elf.range(&[1, 2], &[1]).unwrap_err();
    let s = e.to_string();
    assert!(!s.contains('\n') && s.contains("dimensions"), "{s}");
}
