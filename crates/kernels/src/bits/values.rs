//! Kernels over the values the aggregates decode from value ids: a frame of reference's
//! decode (`min + id`), `a op b` against a frame with wrapping arithmetic (for callers
//! that ruled overflow out), and the reductions (exact sum, minimum, maximum; exact sums
//! of ids and of products of two ids, from which a frame's sums follow).
//!
//! Each is one plain loop, compiled once per variant with that ISA's target features:
//! the same source vectorises to 8 lanes of `i64` with AVX-512, 4 with AVX2 and 2 with
//! the SSE2 every x86-64 has (the portable variant, and the reference the others are
//! tested against). Measured on the loop that needs it most, `avg(lo_extendedprice *
//! lo_discount)` over all rows: see docs/engine.md.

use super::BitKernels;
#[cfg(target_arch = "x86_64")]
use pmolap_tier::kernel::Isa;

/// The arithmetic of `a op b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arith {
    Add,
    Sub,
    Mul,
}

/// The loops, shared by every variant (inlined into each).
mod body {
    use super::Arith;

    #[inline(always)]
    pub(super) fn frame_decode(out: &mut [i64], ids: &[u32], min: i64) {
        for (v, &id) in out.iter_mut().zip(ids) {
            *v = min.wrapping_add(i64::from(id));
        }
    }

    #[inline(always)]
    fn each(vals: &mut [i64], ids: &[u32], min: i64, f: impl Fn(i64, i64) -> i64) {
        for (v, &id) in vals.iter_mut().zip(ids) {
            *v = f(*v, min.wrapping_add(i64::from(id)));
        }
    }

    #[inline(always)]
    pub(super) fn frame_combine(op: Arith, vals: &mut [i64], ids: &[u32], min: i64) {
        match op {
            Arith::Add => each(vals, ids, min, i64::wrapping_add),
            Arith::Sub => each(vals, ids, min, i64::wrapping_sub),
            Arith::Mul => each(vals, ids, min, i64::wrapping_mul),
        }
    }

    /// The low 32 bits of each value summed unsigned, the high 32 bits signed: neither
    /// can overflow below 2^32 values, so the loop has no test and vectorises.
    #[inline(always)]
    pub(super) fn sum(vals: &[i64]) -> i128 {
        let (mut lo, mut hi) = (0u64, 0i64);
        for &v in vals {
            lo += v as u64 & 0xffff_ffff;
            hi += v >> 32;
        }
        (i128::from(hi) << 32) + i128::from(lo)
    }

    #[inline(always)]
    pub(super) fn sum_ids(ids: &[u32]) -> u64 {
        ids.iter().map(|&x| u64::from(x)).sum()
    }

    /// Each 64-bit product split as in [`sum`]: exact below 2^32 pairs.
    #[inline(always)]
    pub(super) fn dot_ids(a: &[u32], b: &[u32]) -> u128 {
        let (mut lo, mut hi) = (0u64, 0u64);
        for (&x, &y) in a.iter().zip(b) {
            let p = u64::from(x) * u64::from(y);
            lo += p & 0xffff_ffff;
            hi += p >> 32;
        }
        (u128::from(hi) << 32) + u128::from(lo)
    }

    /// Rows per block of [`group_sums`] and [`group_counts`]: one pass per group over a
    /// block that stays in the L1 cache.
    const GROUP_BLOCK: usize = 1024;

    /// `out[g] += Σ vals[j]` over the rows `j` with `keys[j] == g` (wrapping): one pass per
    /// group, a compare and a masked add, no store per row.
    #[inline(always)]
    pub(super) fn group_sums(vals: &[i64], keys: &[u32], out: &mut [i64]) {
        for (v, k) in vals.chunks(GROUP_BLOCK).zip(keys.chunks(GROUP_BLOCK)) {
            for (g, o) in out.iter_mut().enumerate() {
                let g = g as u32;
                let s = v.iter().zip(k).fold(0i64, |s, (&v, &k)| {
                    s.wrapping_add(if k == g { v } else { 0 })
                });
                *o = o.wrapping_add(s);
            }
        }
    }

    /// `out[g] +=` the rows `j` with `keys[j] == g`.
    #[inline(always)]
    pub(super) fn group_counts(keys: &[u32], out: &mut [u64]) {
        for k in keys.chunks(GROUP_BLOCK) {
            for (g, o) in out.iter_mut().enumerate() {
                let g = g as u32;
                *o += k.iter().map(|&k| u64::from(k == g)).sum::<u64>();
            }
        }
    }

    #[inline(always)]
    pub(super) fn min(vals: &[i64], init: i64) -> i64 {
        vals.iter().copied().fold(init, i64::min)
    }

    #[inline(always)]
    pub(super) fn max(vals: &[i64], init: i64) -> i64 {
        vals.iter().copied().fold(init, i64::max)
    }

    /// # Safety
    /// Every index of `idx` (up to `out.len()`) is below `src.len()`.
    #[inline(always)]
    pub(super) unsafe fn gather_unchecked(src: &[u32], idx: &[u32], out: &mut [u32]) {
        for (o, &i) in out.iter_mut().zip(idx) {
            // SAFETY: the caller's contract.
            *o = unsafe { *src.get_unchecked(i as usize) };
        }
    }

    #[inline(always)]
    pub(super) fn min_id(ids: &[u32]) -> Option<u32> {
        ids.iter().copied().min()
    }

    #[inline(always)]
    pub(super) fn max_id(ids: &[u32]) -> Option<u32> {
        ids.iter().copied().max()
    }
}

/// A method of [`BitKernels`] running `body::$name` compiled for the variant's ISA (an
/// `unsafe fn` form for bodies with a contract: a private method with the same contract).
macro_rules! multiversion {
    ($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)?;) => {
        $(#[$doc])*
        #[inline]
        pub fn $name(&self, $($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx512f,popcnt")]
            fn avx512($($arg: $ty),*) $(-> $ret)? {
                body::$name($($arg),*)
            }
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2,popcnt")]
            fn avx2($($arg: $ty),*) $(-> $ret)? {
                body::$name($($arg),*)
            }
            match self.isa {
                // SAFETY: a `BitKernels` of this ISA is only handed out after the ISA was
                // checked against this CPU (`BitKernels::new`, `Isa::best`).
                #[cfg(target_arch = "x86_64")]
                Isa::Avx512 => unsafe { avx512($($arg),*) },
                // SAFETY: as above.
                #[cfg(target_arch = "x86_64")]
                Isa::Avx2 => unsafe { avx2($($arg),*) },
                _ => body::$name($($arg),*),
            }
        }
    };
    ($(#[$doc:meta])* unsafe fn $name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)?;) => {
        $(#[$doc])*
        #[inline]
        unsafe fn $name(&self, $($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx512f,popcnt")]
            unsafe fn avx512($($arg: $ty),*) $(-> $ret)? {
                // SAFETY: the caller's contract.
                unsafe { body::$name($($arg),*) }
            }
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2,popcnt")]
            unsafe fn avx2($($arg: $ty),*) $(-> $ret)? {
                // SAFETY: the caller's contract.
                unsafe { body::$name($($arg),*) }
            }
            // SAFETY: the caller's contract; a `BitKernels` of this ISA is only handed out
            // after the ISA was checked against this CPU (`BitKernels::new`, `Isa::best`).
            unsafe {
                match self.isa {
                    #[cfg(target_arch = "x86_64")]
                    Isa::Avx512 => avx512($($arg),*),
                    #[cfg(target_arch = "x86_64")]
                    Isa::Avx2 => avx2($($arg),*),
                    _ => body::$name($($arg),*),
                }
            }
        }
    };
}

impl BitKernels {
    /// `out[j] = src[idx[j]]` for `j < min(out.len(), idx.len())`: the selected rows' ids
    /// from an unpacked morsel. Panics (like a slice index) when an index is past `src`;
    /// checked once for all (one vectorised pass), so the loop itself has no test.
    #[inline]
    pub fn gather(&self, src: &[u32], idx: &[u32], out: &mut [u32]) {
        let idx = &idx[..idx.len().min(out.len())];
        if let Some(i) = self.max_id(idx) {
            assert!(
                (i as usize) < src.len(),
                "index {i} past the {} ids gathered from",
                src.len()
            );
        }
        // SAFETY: every index is below `src.len()` (checked above).
        unsafe { self.gather_unchecked(src, idx, out) }
    }

    multiversion! {
        /// [`Self::gather`] without the check.
        ///
        /// # Safety
        /// Every index of `idx` (up to `out.len()`) is below `src.len()`.
        unsafe fn gather_unchecked(src: &[u32], idx: &[u32], out: &mut [u32]);
    }

    multiversion! {
        /// `out[j] = min + ids[j]` (wrapping) for `j < min(out.len(), ids.len())`.
        fn frame_decode(out: &mut [i64], ids: &[u32], min: i64);
    }
    multiversion! {
        /// `vals[j] = vals[j] op (min + ids[j])`, all wrapping, for `j < min(vals.len(),
        /// ids.len())`: the caller has ruled overflow out.
        fn frame_combine(op: Arith, vals: &mut [i64], ids: &[u32], min: i64);
    }
    multiversion! {
        /// The exact sum of `vals` (fewer than 2^32 of them).
        fn sum(vals: &[i64]) -> i128;
    }
    multiversion! {
        /// The exact sum of `ids` (fewer than 2^32 of them).
        fn sum_ids(ids: &[u32]) -> u64;
    }
    multiversion! {
        /// The exact sum of `a[j] * b[j]` for `j < min(a.len(), b.len())` (fewer than
        /// 2^32 pairs).
        fn dot_ids(a: &[u32], b: &[u32]) -> u128;
    }
    multiversion! {
        /// `out[g] += Σ vals[j]` (wrapping) over the `j < min(vals.len(), keys.len())` with
        /// `keys[j] == g`, for every `g < out.len()`: the sums of a few groups without a
        /// store per row.
        fn group_sums(vals: &[i64], keys: &[u32], out: &mut [i64]);
    }
    multiversion! {
        /// `out[g] +=` the number of `keys` equal to `g`, for every `g < out.len()`.
        fn group_counts(keys: &[u32], out: &mut [u64]);
    }
    multiversion! {
        /// The smallest of `init` and `vals`.
        fn min(vals: &[i64], init: i64) -> i64;
    }
    multiversion! {
        /// The largest of `init` and `vals`.
        fn max(vals: &[i64], init: i64) -> i64;
    }
    multiversion! {
        /// The smallest id (`None` for none).
        fn min_id(ids: &[u32]) -> Option<u32>;
    }
    multiversion! {
        /// The largest id (`None` for none).
        fn max_id(ids: &[u32]) -> Option<u32>;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::tests::{noise, simd_variants};
    use crate::bits::PORTABLE;

    /// Ids and values of every magnitude, at lengths around the vector widths.
    fn cases() -> Vec<(Vec<u32>, Vec<i64>)> {
        let mut v = Vec::new();
        for (i, len) in [0usize, 1, 3, 7, 8, 9, 15, 16, 17, 31, 64, 1000, 4099]
            .into_iter()
            .enumerate()
        {
            let r = noise(2 * len, i as u64 + 1);
            let ids: Vec<u32> = r[..len].iter().map(|&x| (x >> (x % 33)) as u32).collect();
            let vals: Vec<i64> = r[len..].iter().map(|&x| (x as i64) >> (x % 64)).collect();
            v.push((ids, vals));
        }
        let extremes = vec![i64::MAX, i64::MIN, -1, 0, 1, i64::MAX, i64::MIN + 1];
        v.push((vec![u32::MAX, 0, 1, u32::MAX, 7, 0, 2], extremes));
        v
    }

    /// The sums and counts of a few groups, as a loop over the rows says, in every
    /// variant: keys at and past the groups asked for, every value magnitude (wrapping),
    /// lengths around the vector widths and the kernels' blocks.
    #[test]
    fn group_sums_and_counts_match_a_loop() {
        let mut variants = simd_variants();
        variants.push(&PORTABLE);
        for (i, len) in [0usize, 1, 7, 8, 9, 17, 1023, 1024, 1025, 3000]
            .into_iter()
            .enumerate()
        {
            let r = noise(2 * len, i as u64 + 40);
            let vals: Vec<i64> = r[..len].iter().map(|&x| (x as i64) >> (x % 64)).collect();
            for groups in [1usize, 2, 6, 8] {
                let keys: Vec<u32> = r[len..]
                    .iter()
                    .map(|&x| (x % (groups as u64 + 2)) as u32)
                    .collect();
                let (mut sums, mut counts) = (vec![5i64; groups], vec![3u64; groups]);
                for (&v, &k) in vals.iter().zip(&keys) {
                    if (k as usize) < groups {
                        sums[k as usize] = sums[k as usize].wrapping_add(v);
                        counts[k as usize] += 1;
                    }
                }
                for k in &variants {
                    let (mut s, mut c) = (vec![5i64; groups], vec![3u64; groups]);
                    k.group_sums(&vals, &keys, &mut s);
                    k.group_counts(&keys, &mut c);
                    let what = format!("{} on {len} rows, {groups} groups", k.name());
                    assert_eq!(s, sums, "group sums {what}");
                    assert_eq!(c, counts, "group counts {what}");
                }
            }
        }
    }

    #[test]
    fn value_kernels_match_portable() {
        let variants = simd_variants();
        let mins = [0, -1, 1 << 40, i64::MIN, i64::MAX - 5, -(1 << 31)];
        for (ids, vals) in cases() {
            let n = ids.len();
            let want_sum: i128 = vals.iter().map(|&x| i128::from(x)).sum();
            assert_eq!(PORTABLE.sum(&vals), want_sum, "portable sum of {n}");
            for k in &variants {
                let what = format!("{} on {n} values", k.name());
                assert_eq!(k.sum(&vals), want_sum, "sum {what}");
                for init in [i64::MAX, i64::MIN, 0] {
                    assert_eq!(k.min(&vals, init), PORTABLE.min(&vals, init), "min {what}");
                    assert_eq!(k.max(&vals, init), PORTABLE.max(&vals, init), "max {what}");
                }
                // Gathers at every index of a source of `n` ids (`ids` as the source).
                let idx: Vec<u32> = vals
                    .iter()
                    .map(|&v| (v as u64 % n.max(1) as u64) as u32)
                    .collect();
                let want: Vec<u32> = idx.iter().map(|&i| ids[i as usize]).collect();
                if n > 0 {
                    for kk in [&PORTABLE, *k] {
                        let mut out = vec![u32::MAX; n];
                        kk.gather(&ids, &idx, &mut out);
                        assert_eq!(out, want, "gather {} on {n} ids", kk.name());
                    }
                }
                let want_ids: u64 = ids.iter().map(|&x| u64::from(x)).sum();
                assert_eq!(PORTABLE.sum_ids(&ids), want_ids, "portable id sum of {n}");
                assert_eq!(k.sum_ids(&ids), want_ids, "id sum {what}");
                // The ids against themselves reversed (every product magnitude).
                let rev: Vec<u32> = ids.iter().rev().copied().collect();
                let want_dot: u128 = ids
                    .iter()
                    .zip(&rev)
                    .map(|(&x, &y)| u128::from(x) * u128::from(y))
                    .sum();
                assert_eq!(
                    PORTABLE.dot_ids(&ids, &rev),
                    want_dot,
                    "portable dot of {n}"
                );
                assert_eq!(k.dot_ids(&ids, &rev), want_dot, "dot {what}");
                assert_eq!(k.min_id(&ids), ids.iter().copied().min(), "min id {what}");
                assert_eq!(k.max_id(&ids), ids.iter().copied().max(), "max id {what}");
                for &min in &mins {
                    let decode = |k: &BitKernels| {
                        let mut out = vec![7i64; n];
                        k.frame_decode(&mut out, &ids, min);
                        out
                    };
                    let want: Vec<i64> = ids
                        .iter()
                        .map(|&id| min.wrapping_add(i64::from(id)))
                        .collect();
                    assert_eq!(decode(&PORTABLE), want, "portable decode, min {min}");
                    assert_eq!(decode(k), want, "decode {what}, min {min}");
                    for op in [Arith::Add, Arith::Sub, Arith::Mul] {
                        let combine = |k: &BitKernels| {
                            let mut v = vals.clone();
                            k.frame_combine(op, &mut v, &ids, min);
                            v
                        };
                        let want: Vec<i64> = vals
                            .iter()
                            .zip(&want)
                            .map(|(&a, &b)| match op {
                                Arith::Add => a.wrapping_add(b),
                                Arith::Sub => a.wrapping_sub(b),
                                Arith::Mul => a.wrapping_mul(b),
                            })
                            .collect();
                        assert_eq!(combine(&PORTABLE), want, "portable {op:?}, min {min}");
                        assert_eq!(combine(k), want, "{op:?} {what}, min {min}");
                    }
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "past the 4 ids")]
    fn a_gather_past_its_source_panics() {
        let mut out = [0u32; 3];
        crate::bits::active().gather(&[1, 2, 3, 4], &[0, 4, 1], &mut out);
    }
}
