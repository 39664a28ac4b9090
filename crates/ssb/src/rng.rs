//! The Park–Miller "minimal standard" random streams that dbgen draws every column from,
//! with O(log n) skip-ahead so any row range can be generated independently.

/// The modulus, 2^31 − 1 (a Mersenne prime).
const MODULUS: u64 = 0x7FFF_FFFF;
/// The multiplier (a primitive root modulo [`MODULUS`]).
const MULTIPLIER: u64 = 16807;
/// `MODULUS` as the double dbgen divides by.
const MODULUS_F64: f64 = 2_147_483_647.0;

/// Initial seeds of the dbgen streams this generator uses, by dbgen's stream number
/// (`rnd.h`). Streams dbgen reserves but the SSB tables never print are omitted.
pub(crate) mod seed {
    /// Stream 0 (`P_MFG_SD`): part manufacturer *and*, through dbgen's out-of-range
    /// stream numbers 97 and 98, part category and every supplier/customer city digit.
    pub const SHARED_0: u32 = 1;
    pub const P_BRND: u32 = 46_831_694;
    pub const P_TYPE: u32 = 1_841_581_359;
    pub const P_SIZE: u32 = 1_193_163_244;
    pub const P_CNTR: u32 = 727_633_698;
    pub const O_ODATE: u32 = 1_066_728_069;
    pub const L_QTY: u32 = 209_208_115;
    pub const L_DCNT: u32 = 554_590_007;
    pub const L_TAX: u32 = 721_958_466;
    pub const L_SMODE: u32 = 675_466_456;
    pub const L_PKEY: u32 = 1_808_217_256;
    pub const L_SKEY: u32 = 2_095_021_727;
    pub const L_CDTE: u32 = 904_914_315;
    pub const C_ADDR: u32 = 881_155_353;
    pub const C_NTRG: u32 = 1_489_529_863;
    pub const C_PHNE: u32 = 1_521_138_112;
    pub const C_MSEG: u32 = 1_140_279_430;
    pub const S_ADDR: u32 = 706_178_559;
    pub const S_NTRG: u32 = 110_356_601;
    pub const P_NAME: u32 = 709_314_158;
    pub const O_PRIO: u32 = 591_449_447;
    pub const O_CKEY: u32 = 851_767_375;
    pub const O_LCNT: u32 = 1_434_868_289;
}

/// `x mod (2^31 − 1)` for `x < 2^62`, without a division.
#[inline(always)]
const fn reduce(x: u64) -> u64 {
    let r = (x & MODULUS) + (x >> 31);
    let r = (r & MODULUS) + (r >> 31);
    if r >= MODULUS {
        r - MODULUS
    } else {
        r
    }
}

/// `MULTIPLIER^n mod MODULUS`.
pub(crate) const fn multiplier_pow(mut n: u64) -> u64 {
    let mut result = 1u64;
    let mut base = MULTIPLIER;
    while n > 0 {
        if n & 1 == 1 {
            result = reduce(result * base);
        }
        base = reduce(base * base);
        n >>= 1;
    }
    result
}

/// `MULTIPLIER^k` for `k` in `0..N`: skipping a few draws without a loop.
pub(crate) const fn small_skips<const N: usize>() -> [u64; N] {
    let mut out = [1u64; N];
    let mut k = 1;
    while k < N {
        out[k] = reduce(out[k - 1] * MULTIPLIER);
        k += 1;
    }
    out
}

/// One random stream: its current value in `1..2^31-1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stream {
    value: u64,
}

impl Stream {
    /// The stream with dbgen's initial `seed`, advanced by `skip` draws.
    pub(crate) fn new(seed: u32, skip: u64) -> Self {
        let mut s = Self {
            value: u64::from(seed),
        };
        s.skip(skip);
        s
    }

    /// Advances the stream by `n` draws (dbgen's `NthElement`).
    pub(crate) fn skip(&mut self, n: u64) {
        if n > 0 {
            self.value = reduce(self.value * multiplier_pow(n));
        }
    }

    /// Advances the stream by `n` draws, given `mult = MULTIPLIER^n mod MODULUS`.
    #[inline(always)]
    pub(crate) fn skip_by_multiplier(&mut self, mult: u64) {
        self.value = reduce(self.value * mult);
    }

    /// The next raw value (dbgen's `NextRand`).
    #[inline(always)]
    fn next_raw(&mut self) -> u64 {
        self.value = reduce(self.value * MULTIPLIER);
        self.value
    }

    /// A value uniform in `low..=high`, computed exactly as dbgen's `UnifInt` does
    /// (including its double-precision rounding).
    #[inline(always)]
    pub(crate) fn uniform(&mut self, low: i64, high: i64) -> i64 {
        let range = (high - low + 1) as f64;
        let v = self.next_raw() as f64;
        low + ((v / MODULUS_F64) * range) as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// dbgen's Schrage-method `NextRand`, for checking the fast reduction.
    fn next_rand_schrage(seed: i64) -> i64 {
        let (a, m, q, r) = (16807i64, 2_147_483_647i64, 127_773i64, 2836i64);
        let u = seed / q;
        let v = seed - q * u;
        let mut s = a * v - u * r;
        if s < 0 {
            s += m;
        }
        s
    }

    #[test]
    fn matches_schrage_and_skip() {
        let mut s = Stream::new(seed::P_NAME, 0);
        let mut reference = i64::from(seed::P_NAME);
        for _ in 0..10_000 {
            reference = next_rand_schrage(reference);
            assert_eq!(s.next_raw() as i64, reference);
        }
        let mut a = Stream::new(seed::L_PKEY, 0);
        for _ in 0..12_345 {
            a.next_raw();
        }
        assert_eq!(a, Stream::new(seed::L_PKEY, 12_345));
        let mut b = Stream::new(seed::L_PKEY, 100);
        b.skip_by_multiplier(multiplier_pow(12_245));
        assert_eq!(a, b);
    }

    #[test]
    fn uniform_first_draws() {
        // Stream 0 starts at 1: the first part's manufacturer and category are both 1.
        let mut s = Stream::new(seed::SHARED_0, 0);
        assert_eq!(s.uniform(1, 5), 1);
        assert_eq!(s.uniform(1, 5), 1);
    }
}
