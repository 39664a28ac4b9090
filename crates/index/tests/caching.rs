//! Selective caching: every variant returns exactly what the PM-only traversal (`Elf`'s
//! own queries) returns, on seeded random data and queries, including caches small
//! enough to evict constantly; and the hit counts behave as the variant promises.

use pmolap_index::elf::cache::{lists, static_cut};
use pmolap_index::elf::{CachedElf, Policy, Variant, MAX_VALUE};
use pmolap_index::Elf;
use pmolap_tier::TierSpec;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

fn variants(levels: usize) -> Vec<Variant> {
    let mut v = vec![Variant::Pm, Variant::Hybrid];
    for l in 0..=levels {
        v.push(Variant::Static { levels: l });
    }
    for policy in [Policy::Lru, Policy::TinyLfu] {
        for cap in [0, 64, 1 << 10, usize::MAX] {
            v.push(Variant::Dynamic {
                policy,
                capacity_bytes: cap,
            });
            v.push(Variant::StaticDynamic {
                levels: 2,
                policy,
                capacity_bytes: cap,
            });
        }
    }
    for b in [0, 256, 4 << 10, usize::MAX] {
        v.push(Variant::Probability { budget_bytes: b });
    }
    v
}

fn random_data(rng: &mut SmallRng) -> (usize, Vec<u32>, Vec<u32>) {
    let dims = rng.gen_range(1..=6);
    let rows = rng.gen_range(1..=400);
    let maxima: Vec<u32> = (0..dims)
        .map(|d| match rng.gen_range(0..4) {
            0 => 0,
            1 => 3,
            2 => 20,
            _ if d == 0 => 3000,
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

#[test]
fn every_variant_answers_like_pm() {
    let mut rng = SmallRng::seed_from_u64(0xE1F);
    for _ in 0..60 {
        let (dims, flat, maxima) = random_data(&mut rng);
        let elf = Elf::build(dims, &flat, &TierSpec::Dram { node: None }).unwrap();
        let rows = flat.len() / dims;
        // Queries: keys of existing rows, random keys, windows, partial matches.
        let mut exact = Vec::new();
        let mut ranges = Vec::new();
        let mut partial = Vec::new();
        for _ in 0..40 {
            let r = rng.gen_range(0..rows);
            exact.push(flat[r * dims..(r + 1) * dims].to_vec());
            exact.push(
                maxima
                    .iter()
                    .map(|&m| rng.gen_range(0..=m))
                    .collect::<Vec<_>>(),
            );
            let (mut lo, mut hi) = (Vec::new(), Vec::new());
            for &m in &maxima {
                let a = rng.gen_range(0..=m);
                let b = rng.gen_range(0..=m);
                lo.push(a.min(b));
                hi.push(a.max(b));
            }
            ranges.push((lo, hi));
            partial.push(
                maxima
                    .iter()
                    .map(|&m| {
                        rng.gen_bool(0.5).then(|| {
                            let a = rng.gen_range(0..=m);
                            (a, a.saturating_add(rng.gen_range(0..=m / 2 + 1)))
                        })
                    })
                    .collect::<Vec<_>>(),
            );
        }
        let want_e: Vec<_> = exact.iter().map(|k| elf.exact(k).unwrap()).collect();
        let want_r: Vec<_> = ranges
            .iter()
            .map(|(l, h)| elf.range(l, h).unwrap())
            .collect();
        let want_p: Vec<_> = partial.iter().map(|b| elf.partial(b).unwrap()).collect();
        for v in variants(dims) {
            let mut c = CachedElf::new(&elf, v);
            // Twice, so warm dynamic caches are checked as well as cold ones.
            for _ in 0..2 {
                for (k, w) in exact.iter().zip(&want_e) {
                    assert_eq!(&c.exact(k).unwrap(), w, "{} exact {k:?}", v.name());
                }
                for ((l, h), w) in ranges.iter().zip(&want_r) {
                    assert_eq!(&c.range(l, h).unwrap(), w, "{} range", v.name());
                }
                for (b, w) in partial.iter().zip(&want_p) {
                    assert_eq!(&c.partial(b).unwrap(), w, "{} partial", v.name());
                }
            }
            if let Variant::Dynamic { capacity_bytes, .. } = v {
                if capacity_bytes != usize::MAX {
                    assert!(c.dram_bytes() <= capacity_bytes, "{}", v.name());
                }
            }
        }
    }
}

#[test]
fn hit_counts() {
    let flat = pmolap_index::elf::uniform_rows(20_000, 5, 10, 7);
    let elf = Elf::build(5, &flat, &TierSpec::Dram { node: None }).unwrap();
    let keys: Vec<&[u32]> = flat.chunks(5).take(2000).collect();
    let run = |v: Variant| {
        let mut c = CachedElf::new(&elf, v);
        for k in &keys {
            assert!(!c.exact(k).unwrap().is_empty());
        }
        (c.stats(), c.dram_bytes())
    };
    let (pm, _) = run(Variant::Pm);
    assert_eq!(pm.dram, 0);
    let (hy, bytes) = run(Variant::Hybrid);
    assert_eq!(hy.pm, 0);
    assert_eq!(hy.dram, pm.pm);
    assert_eq!(bytes, elf.size_bytes());
    // Static 2 levels: the dense array and every level-1 list are DRAM hits.
    let (st, sbytes) = run(Variant::Static { levels: 2 });
    assert!(st.dram >= 2 * keys.len() as u64, "{st:?}");
    assert!(sbytes < elf.size_bytes() / 10, "{sbytes}");
    // An unlimited dynamic cache misses each list once.
    let (dy, _) = run(Variant::Dynamic {
        policy: Policy::Lru,
        capacity_bytes: usize::MAX,
    });
    assert_eq!(dy.dram + dy.pm, pm.pm);
    assert!(
        dy.dram > 0 && dy.admitted <= lists(&elf).len() as u64,
        "{dy:?}"
    );
    assert_eq!(dy.evicted, 0);
    // A budget of the whole tree in the probability variant hits every DimensionList.
    let (pr, _) = run(Variant::Probability {
        budget_bytes: usize::MAX,
    });
    assert!(pr.hit_ratio() > 0.5, "{pr:?}");
    // The static cut of 1 level is the end of the dense array.
    let all = lists(&elf);
    assert_eq!(static_cut(&elf, 1), 2 + 11);
    for k in 2..=5 {
        // The cut ends the last list of levels < k: the same as from the full walk.
        let want = all
            .iter()
            .filter(|l| (l.level as usize) < k)
            .map(|l| (l.offset + l.words) as usize)
            .max()
            .unwrap();
        assert_eq!(static_cut(&elf, k), want, "{k}");
    }
}

#[test]
fn baselines_answer_like_elf() {
    use pmolap_index::elf::baseline::{ColumnScan, SortedProjection};
    let mut rng = SmallRng::seed_from_u64(0xBA5E);
    for _ in 0..30 {
        let (dims, flat, maxima) = random_data(&mut rng);
        let tier = TierSpec::Dram { node: None };
        let elf = Elf::build(dims, &flat, &tier).unwrap();
        let scan = ColumnScan::build(dims, &flat, &tier).unwrap();
        let proj = SortedProjection::build(dims, &flat, &tier).unwrap();
        let rows = flat.len() / dims;
        for _ in 0..30 {
            let (mut lo, mut hi) = (Vec::new(), Vec::new());
            if rng.gen_bool(0.3) {
                let r = rng.gen_range(0..rows);
                lo = flat[r * dims..(r + 1) * dims].to_vec();
                hi = lo.clone();
            } else {
                for &m in &maxima {
                    if rng.gen_bool(0.3) {
                        lo.push(0);
                        hi.push(u32::MAX);
                    } else {
                        let a = rng.gen_range(0..=m);
                        let b = rng.gen_range(0..=m);
                        lo.push(a.min(b));
                        hi.push(a.max(b));
                    }
                }
            }
            let mut want = elf.range(&lo, &hi).unwrap();
            want.sort_unstable();
            let mut a = Vec::new();
            scan.range_into(&lo, &hi, &mut a);
            assert_eq!(a, want);
            let mut b = Vec::new();
            proj.range_into(&lo, &hi, &mut b);
            b.sort_unstable();
            assert_eq!(b, want);
        }
    }
}

#[test]
fn variant_names_round_trip() {
    for v in variants(3) {
        assert_eq!(Variant::parse(&v.name()).unwrap(), v, "{}", v.name());
    }
    assert_eq!(
        Variant::parse("static-2+dynamic-tinylfu-16MiB").unwrap(),
        Variant::StaticDynamic {
            levels: 2,
            policy: Policy::TinyLfu,
            capacity_bytes: 16 << 20
        }
    );
    assert!(Variant::parse("dynamic-fifo-1MiB").is_err());
    assert!(Variant::parse("static-x").is_err());
}
