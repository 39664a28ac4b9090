//! The packed value-id layout, defined once for the store that writes it and the kernels
//! that read it: value id `i` of a data vector occupies bits `i*w .. i*w+w` of a
//! little-endian stream of `u64` words (`w` = bit width, 1..=32), followed by one zero
//! padding word so that any id can be read with one unaligned two-word load ([`get`]).
//!
//! 64 ids of width `w` fill exactly `w` words (a *group*, [`GROUP`]), so whole groups are
//! packed and unpacked by code monomorphised per width (`const W`, chosen by the one
//! width dispatch here, `by_width!`): every shift and mask is a constant and the loop
//! body has no data-dependent branch, which lets LLVM unroll and vectorise it.
//! Unpacking is [`crate::bits`] (AVX-512, AVX2 or portable, each tested against its
//! portable variant there); the tests here check every variant against [`get`], id by id.

/// Ids per packing group: a group of width `w` is exactly `w` words.
pub const GROUP: usize = 64;

/// The minimal bit width for `distinct` value ids: `ceil(log2(distinct))`, at least 1.
pub fn width_for(distinct: usize) -> u32 {
    if distinct <= 2 {
        1
    } else {
        usize::BITS - (distinct - 1).leading_zeros()
    }
}

/// Words of a packed vector of `n` ids of width `w`, padding word included.
pub fn words_for(n: usize, width: u32) -> usize {
    (n * width as usize).div_ceil(64) + 1
}

/// [`words_for`], or None where `n × width` bits overflow (a damaged header's counts).
pub fn checked_words_for(n: usize, width: u32) -> Option<usize> {
    Some(n.checked_mul(width as usize)?.div_ceil(64) + 1)
}

#[inline(always)]
fn mask(width: u32) -> u64 {
    (1u64 << width) - 1
}

/// Reads id `i` (any width 1..=32). `words` must include the padding word.
#[inline(always)]
pub fn get(words: &[u64], width: u32, i: usize) -> u32 {
    let bit = i * width as usize;
    let wi = bit >> 6;
    let sh = (bit & 63) as u32;
    let two = (words[wi] as u128) | ((words[wi + 1] as u128) << 64);
    ((two >> sh) as u64 & mask(width)) as u32
}

/// [`get`] from words without the padding word (any `(start, len)` of any vector the bit
/// kernels are given): the next word is read only when the id straddles into it.
#[inline(always)]
pub(crate) fn get_unpadded(words: &[u64], width: u32, i: usize) -> u32 {
    let bit = i * width as usize;
    let (wi, sh) = (bit >> 6, (bit & 63) as u32);
    let mut v = words[wi] >> sh;
    if sh + width > 64 {
        v |= words[wi + 1] << (64 - sh);
    }
    (v & mask(width)) as u32
}

/// Writes id `i` into zeroed (or previously cleared) bits.
#[inline(always)]
fn put_or(words: &mut [u64], width: u32, i: usize, v: u32) {
    let bit = i * width as usize;
    let wi = bit >> 6;
    let sh = (bit & 63) as u32;
    let two = ((v as u64 & mask(width)) as u128) << sh;
    words[wi] |= two as u64;
    words[wi + 1] |= (two >> 64) as u64;
}

#[inline(always)]
fn pack_group<const W: usize>(src: &[u32], out: &mut [u64]) {
    let src = &src[..GROUP];
    let out = &mut out[..W];
    let m = mask(W as u32);
    let mut acc = [0u64; W];
    for (i, &v) in src.iter().enumerate() {
        let v = v as u64 & m;
        let bit = i * W;
        let wi = bit / 64;
        let sh = bit % 64;
        acc[wi] |= v << sh;
        if sh + W > 64 {
            acc[wi + 1] |= v >> (64 - sh);
        }
    }
    out.copy_from_slice(&acc);
}

fn pack_groups<const W: usize>(ids: &[u32], words: &mut [u64]) {
    for (chunk, dst) in ids.chunks_exact(GROUP).zip(words.chunks_exact_mut(W)) {
        pack_group::<W>(chunk, dst);
    }
}

/// Calls `$f::<W>(args)` for the `W` that equals `$width` (1..=32; any other width
/// panics): the one width dispatch of the packing code and the portable bit kernels.
macro_rules! by_width {
    ($width:expr, $f:ident, $($arg:expr),*) => {
        match $width {
            1 => $f::<1>($($arg),*), 2 => $f::<2>($($arg),*), 3 => $f::<3>($($arg),*),
            4 => $f::<4>($($arg),*), 5 => $f::<5>($($arg),*), 6 => $f::<6>($($arg),*),
            7 => $f::<7>($($arg),*), 8 => $f::<8>($($arg),*), 9 => $f::<9>($($arg),*),
            10 => $f::<10>($($arg),*), 11 => $f::<11>($($arg),*), 12 => $f::<12>($($arg),*),
            13 => $f::<13>($($arg),*), 14 => $f::<14>($($arg),*), 15 => $f::<15>($($arg),*),
            16 => $f::<16>($($arg),*), 17 => $f::<17>($($arg),*), 18 => $f::<18>($($arg),*),
            19 => $f::<19>($($arg),*), 20 => $f::<20>($($arg),*), 21 => $f::<21>($($arg),*),
            22 => $f::<22>($($arg),*), 23 => $f::<23>($($arg),*), 24 => $f::<24>($($arg),*),
            25 => $f::<25>($($arg),*), 26 => $f::<26>($($arg),*), 27 => $f::<27>($($arg),*),
            28 => $f::<28>($($arg),*), 29 => $f::<29>($($arg),*), 30 => $f::<30>($($arg),*),
            31 => $f::<31>($($arg),*), 32 => $f::<32>($($arg),*),
            w => panic!("bit width {w} outside 1..=32"),
        }
    };
}
pub(crate) use by_width;

/// Packs `ids` (each `< 2^width`) into `words`, which must hold
/// [`words_for`]`(ids.len(), width)` words; every word is overwritten.
pub fn pack(ids: &[u32], width: u32, words: &mut [u64]) {
    let full = ids.len() / GROUP * GROUP;
    let full_words = full / GROUP * width as usize;
    if full > 0 {
        by_width!(width, pack_groups, &ids[..full], &mut words[..full_words]);
    }
    for w in &mut words[full_words..] {
        *w = 0;
    }
    // The tail starts on a group (hence word) boundary: index it from there.
    let tail = &mut words[full_words..];
    for (k, &v) in ids[full..].iter().enumerate() {
        put_or(tail, width, k, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::{unpack, BitKernels};
    use pmolap_tier::kernel::Isa;

    fn ids(n: usize, width: u32, seed: u64) -> Vec<u32> {
        let mut x = seed | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x & mask(width)) as u32
            })
            .collect()
    }

    #[test]
    fn widths() {
        assert_eq!(width_for(0), 1);
        assert_eq!(width_for(1), 1);
        assert_eq!(width_for(2), 1);
        assert_eq!(width_for(3), 2);
        assert_eq!(width_for(4), 2);
        assert_eq!(width_for(5), 3);
        assert_eq!(width_for(1 << 20), 20);
        assert_eq!(width_for((1 << 20) + 1), 21);
        assert_eq!(width_for(1 << 32), 32);
        assert_eq!(words_for(0, 7), 1);
        assert_eq!(words_for(64, 7), 8);
    }

    #[test]
    fn round_trip_every_width() {
        for width in 1..=32u32 {
            for n in [0usize, 1, 63, 64, 65, 200, 1000] {
                let v = ids(n, width, width as u64 * 7919 + n as u64);
                let mut words = vec![u64::MAX; words_for(n, width)];
                pack(&v, width, &mut words);
                assert_eq!(*words.last().unwrap(), 0, "padding word, width {width}");
                for (i, &x) in v.iter().enumerate() {
                    assert_eq!(get(&words, width, i), x, "width {width} n {n} id {i}");
                    // Without the padding word: the reader the bit kernels use.
                    let exact = &words[..words.len() - 1];
                    assert_eq!(get_unpadded(exact, width, i), x, "unpadded, id {i}");
                }
                for start in [0usize, 1, 5, 63, 64, 130] {
                    if start > n {
                        continue;
                    }
                    // The reference: id by id.
                    let out: Vec<u32> = (start..n).map(|i| get(&words, width, i)).collect();
                    assert_eq!(out, v[start..], "width {width} n {n} start {start}");
                    let mut fast = vec![u32::MAX; n - start];
                    unpack(&words, width, start, &mut fast);
                    assert_eq!(fast, out, "dispatched, width {width} n {n} start {start}");
                    for isa in Isa::ALL {
                        let Ok(k) = BitKernels::new(isa) else {
                            continue;
                        };
                        fast.fill(u32::MAX);
                        k.unpack(&words, width, start, &mut fast);
                        assert_eq!(fast, out, "{isa}, width {width} n {n} start {start}");
                    }
                }
            }
        }
    }

    #[test]
    fn max_values_survive() {
        for width in 1..=32u32 {
            let v = vec![mask(width) as u32; 130];
            let mut words = vec![0; words_for(v.len(), width)];
            pack(&v, width, &mut words);
            let mut out = vec![0; 130];
            unpack(&words, width, 0, &mut out);
            assert_eq!(out, v, "width {width}");
        }
    }
}
