//! Every SIMD variant of the bit kernels against the portable one, for every width
//! 1..=32, odd starts and lengths, and vectors ending right after the ids (no slack).

use super::*;

pub(super) fn noise(len: usize, seed: u64) -> Vec<u64> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
        .collect()
}

/// The variants this CPU runs besides portable; prints a line for each it cannot.
pub(super) fn simd_variants() -> Vec<&'static BitKernels> {
    let mut v = Vec::new();
    for isa in [Isa::Avx512, Isa::Avx2] {
        match BitKernels::new(isa) {
            Ok(k) => v.push(k),
            Err(e) => println!("skipping the {isa} bit kernels: {e}"),
        }
    }
    // `BitKernels::new(Avx512)` is the `vpermb` variant where the CPU has avx512vbmi:
    // the `vpermt2d` one is tested too.
    #[cfg(target_arch = "x86_64")]
    if host().avx512f && host().avx512vbmi {
        v.push(&AVX512);
    } else if host().avx512f {
        println!("skipping the avx512+vbmi bit kernels: the CPU has no avx512vbmi");
    }
    v
}

fn reference_ids(words: &[u64], width: u32, start: usize, n: usize) -> Vec<u32> {
    (start..start + n)
        .map(|i| get_unpadded(words, width, i))
        .collect()
}

const SHAPES: [(usize, usize); 9] = [
    (0, 0),
    (0, 64),
    (0, 1000),
    (1, 63),
    (5, 200),
    (63, 130),
    (64, 4096),
    (128, 64 * 70 + 7),
    (3, 64 * 130 + 33),
];

#[test]
fn unpack_matches_portable_every_width() {
    let variants = simd_variants();
    for width in 1..=32u32 {
        for &(start, n) in &SHAPES {
            // Exactly as many words as the ids need: the last groups have no slack.
            let len = ((start + n) * width as usize).div_ceil(64);
            let words = noise(len, u64::from(width) * 131 + n as u64);
            let want = reference_ids(&words, width, start, n);
            let mut out = vec![0u32; n];
            PORTABLE.unpack(&words, width, start, &mut out);
            assert_eq!(out, want, "portable, width {width} start {start} n {n}");
            for k in &variants {
                let mut out = vec![u32::MAX; n];
                k.unpack(&words, width, start, &mut out);
                assert_eq!(out, want, "{}, width {width} start {start} n {n}", k.name());
                // With room after the ids every whole group takes the SIMD path.
                let mut padded = words.clone();
                padded.extend(noise(k.slack_words(), 7));
                let mut out = vec![u32::MAX; n];
                k.unpack(&padded, width, start, &mut out);
                assert_eq!(
                    out,
                    want,
                    "{} padded, width {width} start {start} n {n}",
                    k.name()
                );
            }
        }
    }
}

#[test]
fn range_and_ranges_masks_and_selections_match_portable_every_width() {
    let variants = simd_variants();
    for width in 1..=32u32 {
        let max = if width == 32 {
            u32::MAX
        } else {
            (1u32 << width) - 1
        };
        let preds = [
            (0, 0),
            (0, max),
            (max / 3, max / 4),
            (max / 2, 0),
            (max, 0),
            (max, u32::MAX),    // every id passes (wrapping)
            (max / 2 + 1, max), // wraps around past 2^32
        ];
        for &(start, n) in &SHAPES {
            let len = ((start + n) * width as usize).div_ceil(64) + 16;
            let words = noise(len, u64::from(width) * 17 + start as u64);
            let ids = reference_ids(&words, width, start, n);
            // Each variant's selection and masks against the ids tested one by one.
            let check = |pred: Pred<'_>, what: &str| {
                let want: Vec<u32> = (0..n as u32)
                    .filter(|&i| pred.passes(ids[i as usize]))
                    .collect();
                let mut want_masks = vec![0u64; n.div_ceil(64)];
                for &i in &want {
                    want_masks[i as usize / 64] |= 1 << (i % 64);
                }
                for k in std::iter::once(&PORTABLE).chain(variants.iter().copied()) {
                    let what = format!("{} width {width} start {start} n {n} {what}", k.name());
                    let mut sel = vec![u32::MAX; n];
                    let c = k.select(&words, width, start, pred, &mut sel);
                    assert_eq!(&sel[..c], &want[..], "select {what}");
                    let mut masks = vec![u64::MAX; n.div_ceil(64)];
                    k.test_mask(&words, width, start, n, pred, &mut masks);
                    assert_eq!(masks, want_masks, "masks {what}");
                }
            };
            for &(lo, span) in &preds {
                check(Pred::Range { lo, span }, &format!("lo {lo} span {span}"));
            }
            // A few runs (the join filters through row references): none, two, three
            // (one wrapping), all seven (a fused pass and a further one), overlapping
            // ones among them; and one to five runs apart from each other (each fused
            // kernel, and five in two passes), where dropping any changes the masks.
            let apart = [
                (max / 7, max / 9),
                (0, 0),
                (max / 2, max / 11),
                (max - max / 5, max / 13),
                (max, 0),
            ];
            for runs in [
                &preds[..0],
                &preds[..2],
                &preds[4..],
                &preds[..],
                &apart[..1],
                &apart[..2],
                &apart[..3],
                &apart[..4],
                &apart[..],
            ] {
                check(Pred::Ranges(runs), &format!("runs {runs:?}"));
            }
        }
    }
}

#[test]
fn bitmap_masks_and_selections_match_portable_every_width() {
    let variants = simd_variants();
    for width in 1..=32u32 {
        let domain = 1usize << width.min(12);
        // Bitmaps covering fewer ids than the width allows (ids past them fail), all of
        // the small domains, and none.
        // The kernels read bitmaps of up to 512 ids per AVX-512 register (256 per AVX2
        // one) from 1, 2, 4 or 8 registers and gather from larger ones: lengths on
        // either side of each switch.
        let mut bitmaps = vec![
            noise(domain.div_ceil(64), u64::from(width)),
            noise(domain.div_ceil(128), 3),
            vec![u64::MAX; 1],
            Vec::new(),
        ];
        if width == 7 || width == 13 {
            for words in [3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65] {
                bitmaps.push(noise(words, words as u64));
            }
        }
        for &(start, n) in &SHAPES {
            let len = ((start + n) * width as usize).div_ceil(64) + 16;
            let words = noise(len, u64::from(width) * 29 + start as u64);
            let ids = reference_ids(&words, width, start, n);
            for bm in &bitmaps {
                let bit = |id: u32| {
                    (id as usize) < bm.len() * 64 && bm[id as usize / 64] >> (id % 64) & 1 == 1
                };
                let want: Vec<u32> = (0..n as u32).filter(|&i| bit(ids[i as usize])).collect();
                let mut want_masks = vec![0u64; n.div_ceil(64)];
                for &i in &want {
                    want_masks[i as usize / 64] |= 1 << (i % 64);
                }
                for k in std::iter::once(&PORTABLE).chain(variants.iter().copied()) {
                    let what = format!(
                        "{} width {width} start {start} n {n} bitmap of {} words",
                        k.name(),
                        bm.len()
                    );
                    let mut sel = vec![u32::MAX; n];
                    let c = k.select(&words, width, start, Pred::Bitmap(bm), &mut sel);
                    assert_eq!(&sel[..c], &want[..], "select {what}");
                    let mut masks = vec![u64::MAX; n.div_ceil(64)];
                    k.test_mask(&words, width, start, n, Pred::Bitmap(bm), &mut masks);
                    assert_eq!(masks, want_masks, "masks {what}");
                }
            }
        }
    }
}

#[test]
fn set_isa_refuses_what_the_cpu_lacks_and_reports_the_choice() {
    for isa in Isa::ALL {
        match BitKernels::new(isa) {
            Ok(k) => assert_eq!(k.isa(), isa),
            Err(e) => {
                assert!(set_isa(isa).is_err());
                println!("{isa} not on this CPU: {e}");
            }
        }
    }
    assert_eq!(BitKernels::new(Isa::Portable).unwrap().slack_words(), 0);
}

#[test]
#[should_panic(expected = "past the")]
fn ids_past_the_words_panic() {
    let words = [0u64; 2];
    let mut out = [0u32; 20];
    active().unpack(&words, 7, 0, &mut out);
}

#[test]
fn mask_select_matches_the_set_bits() {
    let mut kernels = simd_variants();
    kernels.push(&PORTABLE);
    for (seed, n) in [0usize, 1, 63, 64, 65, 1000, 4096, 16 * 1024 + 33]
        .into_iter()
        .enumerate()
    {
        // Sparse, half and dense masks, with bits set past `n` that must not count.
        for density in [1u64, 32, 63] {
            let masks = masks_of_density(n.div_ceil(64) + 1, seed as u64 * 7 + density, density);
            let want: Vec<u32> = (0..n as u32)
                .filter(|&i| masks[i as usize / 64] >> (i % 64) & 1 == 1)
                .collect();
            for k in &kernels {
                // Skipping the empty words (no count given), and compressing every one
                // (the count of a dense mask).
                for count in [0, n] {
                    let mut sel = vec![u32::MAX; n];
                    let got = k.mask_select_of(&masks, n, count, &mut sel);
                    assert_eq!(
                        &sel[..got],
                        &want[..],
                        "{} n {n} density {density} count {count}",
                        k.name()
                    );
                }
            }
        }
    }
}

/// Masks with about `density` of every 64 bits set (0 and 64 included), bits past the
/// ids set too (they must not count).
fn masks_of_density(words: usize, seed: u64, density: u64) -> Vec<u64> {
    noise(words, seed)
        .iter()
        .map(|&x| {
            (0..64).fold(0u64, |m, b| {
                m | (u64::from((x.rotate_left(b) ^ (x >> 7)) % 64 < density) << b)
            })
        })
        .collect()
}

#[test]
fn unpack_selected_matches_the_selected_ids_every_width() {
    let mut kernels = simd_variants();
    kernels.push(&PORTABLE);
    for width in 1..=32u32 {
        for &(start, n) in &SHAPES {
            // No slack after the ids: the last groups go through the portable code.
            let len = ((start + n) * width as usize).div_ceil(64);
            let words = noise(len, u64::from(width) * 17 + n as u64);
            let ids = reference_ids(&words, width, start, n);
            for density in [0u64, 1, 20, 63, 64] {
                let masks = masks_of_density(n.div_ceil(64) + 1, u64::from(width), density);
                let want: Vec<u32> = (0..n)
                    .filter(|&i| masks[i / 64] >> (i % 64) & 1 == 1)
                    .map(|i| ids[i])
                    .collect();
                for k in &kernels {
                    let mut out = vec![u32::MAX; n];
                    let got = k.unpack_selected(&words, width, start, n, &masks, &mut out);
                    assert_eq!(
                        &out[..got],
                        &want[..],
                        "{} width {width} start {start} n {n} density {density}",
                        k.name()
                    );
                }
            }
        }
    }
}

#[test]
fn fused_sums_dots_and_extremes_match_the_rows_every_width() {
    let mut kernels = simd_variants();
    kernels.push(&PORTABLE);
    for width in 1..=32u32 {
        let wb = 33 - width;
        for &(start, n) in &SHAPES {
            // No slack after the ids: the last groups go through the portable code.
            let words_of = |w: u32, seed: u64| noise(((start + n) * w as usize).div_ceil(64), seed);
            let (wa_words, wb_words) = (words_of(width, u64::from(width)), words_of(wb, 99));
            let a = Packed {
                words: &wa_words,
                width,
                start,
            };
            let b = Packed {
                words: &wb_words,
                width: wb,
                start,
            };
            // Density 65: only the last row (the SIMD groups select none).
            for density in [0u64, 1, 20, 64, 65] {
                let mut masks = masks_of_density(n.div_ceil(64) + 1, u64::from(width) + 5, density);
                if density == 65 {
                    masks.fill(0);
                    if n > 0 {
                        masks[(n - 1) / 64] = 1 << ((n - 1) % 64);
                    }
                }
                for mask in [None, Some(&masks[..])] {
                    let on = |i: usize| mask.is_none_or(|m| m[i / 64] >> (i % 64) & 1 == 1);
                    let sum: u64 = (0..n).filter(|&i| on(i)).map(|i| u64::from(a.get(i))).sum();
                    let dot: u128 = (0..n)
                        .filter(|&i| on(i))
                        .map(|i| u128::from(a.get(i)) * u128::from(b.get(i)))
                        .sum();
                    let ids = (0..n).filter(|&i| on(i)).map(|i| a.get(i));
                    let min_max = ids.clone().min().zip(ids.max());
                    for k in &kernels {
                        let what = format!(
                            "{} widths {width}/{wb} start {start} n {n} density {density} mask {}",
                            k.name(),
                            mask.is_some()
                        );
                        assert_eq!(k.min_max_packed(a, n, mask), min_max, "min/max {what}");
                        let mut pairs = vec![Pair::Product {
                            a0: 3,
                            b0: 1 << (31 - width.min(31)),
                        }];
                        if width <= 31 && wb <= 31 {
                            pairs.extend([Pair::Sum, Pair::Difference]);
                        }
                        for op in pairs {
                            let v = |i: usize| {
                                let (x, y) = (i64::from(a.get(i)), i64::from(b.get(i)));
                                match op {
                                    Pair::Sum => x + y,
                                    Pair::Difference => x - y,
                                    // Wrapping like the kernels where the product leaves
                                    // 32 bits (their caller rules that out).
                                    Pair::Product { a0, b0 } => i64::from(
                                        ((x + i64::from(a0)) * (y + i64::from(b0))) as u32,
                                    ),
                                }
                            };
                            let vals = (0..n).filter(|&i| on(i)).map(v);
                            let want = vals.clone().min().zip(vals.max());
                            let got = k.min_max_pair_packed(a, b, n, mask, op);
                            assert_eq!(got, want, "pair extremes ({op:?}) {what}");
                        }
                        assert_eq!(k.sum_packed(a, n, mask), sum, "sum {what}");
                        assert_eq!(k.dot_packed(a, b, n, mask), dot, "dot {what}");
                    }
                }
            }
        }
    }
}

#[test]
fn mask_counts_match_portable() {
    for len in [0usize, 1, 7, 64, 1024, 1031] {
        let words = noise(len, len as u64 + 3);
        let want: usize = words.iter().map(|w| w.count_ones() as usize).sum();
        assert_eq!(PORTABLE.count_ones(&words), want, "portable, {len} words");
        for k in simd_variants() {
            assert_eq!(k.count_ones(&words), want, "{}, {len} words", k.name());
        }
    }
}
