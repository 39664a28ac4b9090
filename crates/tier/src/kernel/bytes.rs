//! Byte search in a small array: "which of these 16 (or 32) bytes equal `needle`?" as a
//! bitmask, the fingerprint probe of hash tables with one-byte fingerprints (Dash).
//!
//! Three variants: SSE2 (baseline x86-64, one `pcmpeqb` + `pmovmskb`), AVX2 (one ymm for
//! 32 bytes) and a portable loop; [`match_byte16`] and [`match_byte32`] dispatch at run
//! time on the CPU's features (detected once; `PMOLAP_HIDE_CPU_FEATURES=avx2` forces the
//! SSE2 path). The tests check every variant against the portable one.

use std::sync::OnceLock;

use crate::cpu::CpuFeatures;

/// Which implementation the dispatching functions use on this CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByteMatchIsa {
    Avx2,
    Sse2,
    Portable,
}

/// The byte-match implementation of this CPU, chosen once.
pub fn byte_match_isa() -> ByteMatchIsa {
    static ISA: OnceLock<ByteMatchIsa> = OnceLock::new();
    *ISA.get_or_init(|| {
        let f = CpuFeatures::detect();
        if cfg!(target_arch = "x86_64") {
            if f.avx2 {
                ByteMatchIsa::Avx2
            } else {
                ByteMatchIsa::Sse2
            }
        } else {
            ByteMatchIsa::Portable
        }
    })
}

/// Bit `i` of the result is set iff `bytes[i] == needle` (portable).
pub fn match_byte16_portable(bytes: &[u8; 16], needle: u8) -> u16 {
    let mut m = 0u16;
    for (i, &b) in bytes.iter().enumerate() {
        m |= u16::from(b == needle) << i;
    }
    m
}

/// Bit `i` of the result is set iff `bytes[i] == needle` (portable).
pub fn match_byte32_portable(bytes: &[u8; 32], needle: u8) -> u32 {
    let mut m = 0u32;
    for (i, &b) in bytes.iter().enumerate() {
        m |= u32::from(b == needle) << i;
    }
    m
}

/// Bit `i` of the result is set iff `bytes[i] == needle` (SSE2, baseline x86-64).
#[cfg(target_arch = "x86_64")]
#[inline]
pub fn match_byte16_sse2(bytes: &[u8; 16], needle: u8) -> u16 {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of baseline x86-64; the unaligned load reads exactly the 16
    // bytes of `bytes`.
    unsafe {
        let v = _mm_loadu_si128(bytes.as_ptr().cast::<__m128i>());
        let eq = _mm_cmpeq_epi8(v, _mm_set1_epi8(needle as i8));
        _mm_movemask_epi8(eq) as u16
    }
}

/// Bit `i` of the result is set iff `bytes[i] == needle` (two SSE2 compares).
#[cfg(target_arch = "x86_64")]
#[inline]
pub fn match_byte32_sse2(bytes: &[u8; 32], needle: u8) -> u32 {
    let (lo, hi) = bytes.split_at(16);
    let lo: &[u8; 16] = lo.try_into().expect("16 bytes");
    let hi: &[u8; 16] = hi.try_into().expect("16 bytes");
    u32::from(match_byte16_sse2(lo, needle)) | (u32::from(match_byte16_sse2(hi, needle)) << 16)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn match_byte32_avx2_inner(bytes: &[u8; 32], needle: u8) -> u32 {
    use std::arch::x86_64::*;
    // SAFETY: the unaligned load reads exactly the 32 bytes of `bytes`; avx2 is enabled
    // for this function.
    let v = unsafe { _mm256_loadu_si256(bytes.as_ptr().cast::<__m256i>()) };
    let eq = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(needle as i8));
    _mm256_movemask_epi8(eq) as u32
}

/// Bit `i` of the result is set iff `bytes[i] == needle` (AVX2); `None` if the CPU has
/// no AVX2.
#[cfg(target_arch = "x86_64")]
pub fn match_byte32_avx2(bytes: &[u8; 32], needle: u8) -> Option<u32> {
    if !std::arch::is_x86_feature_detected!("avx2") {
        return None;
    }
    // SAFETY: the CPU has avx2, checked just above.
    Some(unsafe { match_byte32_avx2_inner(bytes, needle) })
}

/// Bit `i` of the result is set iff `bytes[i] == needle`, with the CPU's best variant
/// (a 16-byte compare is one SSE2 instruction on every x86-64 CPU).
#[inline]
pub fn match_byte16(bytes: &[u8; 16], needle: u8) -> u16 {
    #[cfg(target_arch = "x86_64")]
    {
        match_byte16_sse2(bytes, needle)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        match_byte16_portable(bytes, needle)
    }
}

/// Bit `i` of the result is set iff `bytes[i] == needle`, with the CPU's best variant.
#[inline]
pub fn match_byte32(bytes: &[u8; 32], needle: u8) -> u32 {
    match byte_match_isa() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `byte_match_isa` chose Avx2 only because the CPU reports avx2.
        ByteMatchIsa::Avx2 => unsafe { match_byte32_avx2_inner(bytes, needle) },
        #[cfg(target_arch = "x86_64")]
        ByteMatchIsa::Sse2 => match_byte32_sse2(bytes, needle),
        _ => match_byte32_portable(bytes, needle),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arrays() -> Vec<[u8; 32]> {
        let mut out = vec![[0u8; 32], [0xff; 32], [0x80; 32]];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200 {
            let mut a = [0u8; 32];
            for b in &mut a {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Few distinct values, so matches are common.
                *b = [0u8, 1, 0x7f, 0x80, 0xfe, 0xff, (x >> 32) as u8][(x % 7) as usize];
            }
            out.push(a);
        }
        out
    }

    #[test]
    fn every_variant_agrees_with_the_portable_one() {
        for a in arrays() {
            let lo: [u8; 16] = a[..16].try_into().unwrap();
            for needle in [0u8, 1, 0x7f, 0x80, 0xfe, 0xff, a[5], a[31]] {
                let want32 = match_byte32_portable(&a, needle);
                let want16 = match_byte16_portable(&lo, needle);
                assert_eq!(match_byte32(&a, needle), want32);
                assert_eq!(match_byte16(&lo, needle), want16);
                #[cfg(target_arch = "x86_64")]
                {
                    assert_eq!(match_byte16_sse2(&lo, needle), want16);
                    assert_eq!(match_byte32_sse2(&a, needle), want32);
                    if let Some(m) = match_byte32_avx2(&a, needle) {
                        assert_eq!(m, want32);
                    }
                }
            }
        }
    }

    #[test]
    fn portable_sets_exactly_the_matching_bits() {
        let mut a = [3u8; 32];
        a[0] = 9;
        a[17] = 9;
        a[31] = 9;
        assert_eq!(match_byte32_portable(&a, 9), 1 | (1 << 17) | (1 << 31));
        assert_eq!(match_byte32_portable(&a, 4), 0);
        assert_eq!(match_byte32_portable(&a, 3).count_ones(), 29);
    }
}
