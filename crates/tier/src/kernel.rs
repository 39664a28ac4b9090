//! The memory access kernels: SIMD loops that read or write a region in fixed-size
//! accesses, as the paper (§3) and PerMA-Bench measure bandwidth.
//!
//! * **Reads** load every 64 B cache line of an access into vector registers (AVX-512:
//!   one zmm per line, AVX2: two ymm, portable: eight volatile `u64` loads) and XOR them
//!   into accumulators. The result of a run is the XOR of every `u64` word loaded, which
//!   is the same for every ISA, and goes through [`std::hint::black_box`] so the loads
//!   cannot be optimised away.
//! * **Writes** store a fixed pattern ([`PATTERN`], kept in registers, no source buffer):
//!   non-temporal stores for [`PersistMode::NtStore`], regular stores followed by
//!   `clwb`/`clflushopt`/`clflush` of every line of the access for the flush modes, and
//!   regular stores only for [`PersistMode::None`]. With `sfence: true` an `sfence`
//!   follows every access, which is what makes each access durable before the next.
//!   For accesses of 512 B and more the flush follows each 512 B block (as PerMA-Bench
//!   does), so every line of the access is flushed before the access's fence.
//!
//! The inner loop is specialised per size class: 64, 128 and 256 B accesses are fully
//! unrolled (1, 2, 4 lines); larger ones (powers of two, so multiples of 512 B) run a
//! loop unrolled by 8 lines. [`Kernel::new`] picks the monomorphised function once, so
//! the hot loop has no branch on the ISA, the operation or the flush instruction.

use std::fmt;
use std::hint::black_box;
use std::str::FromStr;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::cpu::CpuFeatures;
use crate::error::{Error, Result};
use crate::persist::{self, PersistMode, CACHE_LINE};
use crate::region::MemView;

/// The data every write kernel stores: word `i` of each 64 B line is `PATTERN[i]`.
pub const PATTERN: [u64; 8] = [
    0x706d_6f6c_6170_0000,
    0x706d_6f6c_6170_0101,
    0x706d_6f6c_6170_0202,
    0x706d_6f6c_6170_0303,
    0x706d_6f6c_6170_0404,
    0x706d_6f6c_6170_0505,
    0x706d_6f6c_6170_0606,
    0x706d_6f6c_6170_0707,
];

/// The instruction set a kernel is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Isa {
    /// 512-bit zmm registers (`avx512f`): one register per cache line.
    Avx512,
    /// 256-bit ymm registers (`avx2`): two registers per cache line.
    Avx2,
    /// Plain 64-bit loads and stores: eight per cache line.
    Portable,
}

impl Isa {
    pub const ALL: [Isa; 3] = [Isa::Avx512, Isa::Avx2, Isa::Portable];

    /// The CPU feature this ISA needs, if any.
    pub fn required_feature(self) -> Option<&'static str> {
        match self {
            Isa::Avx512 => Some("avx512f"),
            Isa::Avx2 => Some("avx2"),
            Isa::Portable => None,
        }
    }

    /// Whether a CPU with features `f` can run this ISA.
    pub fn supported(self, f: &CpuFeatures) -> bool {
        match self {
            Isa::Avx512 => f.avx512f,
            Isa::Avx2 => f.avx2,
            Isa::Portable => true,
        }
    }

    /// The widest ISA of a CPU with features `f`.
    pub fn best(f: &CpuFeatures) -> Isa {
        if f.avx512f {
            Isa::Avx512
        } else if f.avx2 {
            Isa::Avx2
        } else {
            Isa::Portable
        }
    }

    /// `auto` picks [`Isa::best`]; a named ISA the CPU lacks is a
    /// [`Error::MissingCpuFeature`]; anything else is [`Error::Invalid`].
    pub fn select(choice: &str, f: &CpuFeatures) -> Result<Isa> {
        if choice == "auto" {
            return Ok(Isa::best(f));
        }
        let isa: Isa = choice.parse()?;
        isa.check(f)?;
        Ok(isa)
    }

    fn check(self, f: &CpuFeatures) -> Result<()> {
        match self.required_feature() {
            Some(feature) if !self.supported(f) => Err(Error::MissingCpuFeature(feature)),
            _ => Ok(()),
        }
    }
}

impl fmt::Display for Isa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Isa::Avx512 => "avx512",
            Isa::Avx2 => "avx2",
            Isa::Portable => "portable",
        })
    }
}

impl FromStr for Isa {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Isa::ALL
            .into_iter()
            .find(|i| i.to_string() == s)
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "unknown kernel ISA `{s}`; use auto, avx512, avx2 or portable"
                ))
            })
    }
}

/// What a kernel does with each access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessOp {
    /// Load every cache line of the access.
    Read,
    /// Store the pattern into every cache line of the access, persisted with `persist`,
    /// and an `sfence` after each access if `sfence`.
    Write { persist: PersistMode, sfence: bool },
}

impl fmt::Display for AccessOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AccessOp::Read => f.write_str("read"),
            AccessOp::Write { persist, sfence } => {
                write!(f, "write {persist}{}", if *sfence { "+sfence" } else { "" })
            }
        }
    }
}

// The operation of a monomorphised kernel, as a const generic parameter.
const W_READ: u8 = 0;
const W_NT: u8 = 1;
const W_STORE: u8 = 2;
const W_CLWB: u8 = 3;
const W_CLFLUSHOPT: u8 = 4;
const W_CLFLUSH: u8 = 5;

/// The flush instruction of a write operation code (`None` for no flush).
const fn flush_mode(w: u8) -> PersistMode {
    match w {
        W_CLWB => PersistMode::Clwb,
        W_CLFLUSHOPT => PersistMode::Clflushopt,
        W_CLFLUSH => PersistMode::Clflush,
        _ => PersistMode::None,
    }
}

/// `(p, access_size, stride, count)`: `count` accesses at `p`, `p + stride`, …
type StridedFn = unsafe fn(*mut u8, usize, usize, usize) -> u64;
/// `(base, access_size, limit, offsets)`: one access at `base + o` for each offset `o`;
/// `Err(i)` if `offsets[i]` is above `limit` or not 64-byte aligned (nothing done for it).
type OffsetsFn = unsafe fn(*mut u8, usize, usize, &[usize]) -> std::result::Result<u64, usize>;

/// Generates the per-access body and the two drivers of one ISA. Expects, in scope:
/// `V` (the registers of one line), `zero`, `xor`, `fold`, `pattern` and the unsafe
/// `load`, `store`, `stream`, all for one 64-byte-aligned line. The first attribute is
/// the inlining hint of the per-access helpers (`inline(always)` cannot be combined with
/// `target_feature`), the rest the ISA's target features.
macro_rules! drivers {
    (#[$inline:meta] $(#[$feat:meta])*) => {
        /// One access of `LINES` lines at `p` (`LINES == 0`: `size` bytes, 8 lines per
        /// iteration).
        ///
        /// # Safety
        /// `p..p+size` lies inside one live mapping, `p` is 64-byte aligned, `size` is
        /// `LINES * 64` (or a multiple of 512 when `LINES == 0`), and the CPU has this
        /// module's ISA and the flush instruction of `W`.
        $(#[$feat])*
        #[$inline]
        unsafe fn access<const LINES: usize, const W: u8, const FENCE: bool>(
            p: *mut u8,
            size: usize,
            acc: &mut [V; 4],
        ) {
            // SAFETY: every line touched is one of the `size / 64` aligned lines at `p`,
            // inside the caller's mapping; the ISA and flush instruction are available
            // (the caller's contract).
            unsafe {
                if W == W_READ {
                    if LINES == 0 {
                        let end = p.add(size);
                        let mut q = p;
                        while q < end {
                            acc[0] = xor(acc[0], load(q));
                            acc[1] = xor(acc[1], load(q.add(64)));
                            acc[2] = xor(acc[2], load(q.add(128)));
                            acc[3] = xor(acc[3], load(q.add(192)));
                            acc[0] = xor(acc[0], load(q.add(256)));
                            acc[1] = xor(acc[1], load(q.add(320)));
                            acc[2] = xor(acc[2], load(q.add(384)));
                            acc[3] = xor(acc[3], load(q.add(448)));
                            q = q.add(512);
                        }
                    } else {
                        // LINES is 1, 2 or 4, a constant: this loop is fully unrolled.
                        for (i, a) in acc.iter_mut().enumerate().take(LINES) {
                            *a = xor(*a, load(p.add(i * CACHE_LINE)));
                        }
                    }
                } else {
                    let v = pattern();
                    if LINES == 0 {
                        let end = p.add(size);
                        let mut q = p;
                        while q < end {
                            for i in 0..8 {
                                put::<W>(q.add(i * CACHE_LINE), v);
                            }
                            if W >= W_CLWB {
                                for i in 0..8 {
                                    persist::flush_line(flush_mode(W), q.add(i * CACHE_LINE));
                                }
                            }
                            q = q.add(512);
                        }
                    } else {
                        for i in 0..LINES {
                            put::<W>(p.add(i * CACHE_LINE), v);
                        }
                        if W >= W_CLWB {
                            for i in 0..LINES {
                                persist::flush_line(flush_mode(W), p.add(i * CACHE_LINE));
                            }
                        }
                    }
                    if FENCE {
                        persist::sfence();
                    }
                }
            }
        }

        /// Stores `v` into the line at `p`: non-temporal for `W_NT`, regular otherwise.
        ///
        /// # Safety
        /// As [`store`].
        $(#[$feat])*
        #[$inline]
        unsafe fn put<const W: u8>(p: *mut u8, v: V) {
            if W == W_NT {
                // SAFETY: the caller's contract is `stream`'s.
                unsafe { stream(p, v) }
            } else {
                // SAFETY: the caller's contract is `store`'s.
                unsafe { store(p, v) }
            }
        }

        /// # Safety
        /// `count` accesses of `size` bytes at `p + i * stride` lie inside one live
        /// mapping, `p` and `stride` are 64-byte aligned, and the CPU has the ISA and
        /// the flush instruction of `W`.
        $(#[$feat])*
        pub(super) unsafe fn strided<const LINES: usize, const W: u8, const FENCE: bool>(
            p: *mut u8,
            size: usize,
            stride: usize,
            count: usize,
        ) -> u64 {
            let mut acc = [zero(); 4];
            let mut q = p;
            for _ in 0..count {
                // SAFETY: access `i` is in bounds and aligned (the caller's contract).
                unsafe { access::<LINES, W, FENCE>(q, size, &mut acc) };
                q = q.wrapping_add(stride);
            }
            if W != W_READ && !FENCE {
                // Order the run's (possibly non-temporal) stores before whatever follows.
                persist::sfence();
            }
            fold(xor(xor(acc[0], acc[1]), xor(acc[2], acc[3])))
        }

        /// # Safety
        /// `base..base + limit + size` lies inside one live mapping, `base` is 64-byte
        /// aligned, and the CPU has the ISA and the flush instruction of `W`.
        $(#[$feat])*
        pub(super) unsafe fn offsets<const LINES: usize, const W: u8, const FENCE: bool>(
            base: *mut u8,
            size: usize,
            limit: usize,
            offsets: &[usize],
        ) -> std::result::Result<u64, usize> {
            let mut acc = [zero(); 4];
            let mut bad = None;
            for (i, &off) in offsets.iter().enumerate() {
                if off > limit || off % CACHE_LINE != 0 {
                    bad = Some(i);
                    break;
                }
                // SAFETY: `off + size <= limit + size` is inside the mapping and `off`
                // is 64-byte aligned, both checked just above.
                unsafe { access::<LINES, W, FENCE>(base.add(off), size, &mut acc) };
            }
            if W != W_READ && !FENCE {
                persist::sfence();
            }
            match bad {
                Some(i) => Err(i),
                None => Ok(fold(xor(xor(acc[0], acc[1]), xor(acc[2], acc[3])))),
            }
        }
    };
}

/// Picks the monomorphised drivers of one size class for an operation.
macro_rules! pick_op {
    ($m:ident, $lines:literal, $w:expr, $fence:expr) => {
        match ($w, $fence) {
            (W_NT, false) => pick_op!(@ $m, $lines, W_NT, false),
            (W_NT, true) => pick_op!(@ $m, $lines, W_NT, true),
            (W_STORE, false) => pick_op!(@ $m, $lines, W_STORE, false),
            (W_STORE, true) => pick_op!(@ $m, $lines, W_STORE, true),
            (W_CLWB, false) => pick_op!(@ $m, $lines, W_CLWB, false),
            (W_CLWB, true) => pick_op!(@ $m, $lines, W_CLWB, true),
            (W_CLFLUSHOPT, false) => pick_op!(@ $m, $lines, W_CLFLUSHOPT, false),
            (W_CLFLUSHOPT, true) => pick_op!(@ $m, $lines, W_CLFLUSHOPT, true),
            (W_CLFLUSH, false) => pick_op!(@ $m, $lines, W_CLFLUSH, false),
            (W_CLFLUSH, true) => pick_op!(@ $m, $lines, W_CLFLUSH, true),
            _ => pick_op!(@ $m, $lines, W_READ, false),
        }
    };
    (@ $m:ident, $lines:literal, $w:ident, $fence:literal) => {
        (
            $m::strided::<$lines, $w, $fence> as StridedFn,
            $m::offsets::<$lines, $w, $fence> as OffsetsFn,
        )
    };
}

/// Picks the drivers of ISA module `$m` for a size class (`lines`: 1, 2, 4; 0 = looped).
macro_rules! pick {
    ($m:ident, $lines:expr, $w:expr, $fence:expr) => {
        match $lines {
            1 => pick_op!($m, 1, $w, $fence),
            2 => pick_op!($m, 2, $w, $fence),
            4 => pick_op!($m, 4, $w, $fence),
            _ => pick_op!($m, 0, $w, $fence),
        }
    };
}

// AVX-512 intrinsics and `target_feature(enable = "avx512f")` are stable since Rust
// 1.89, the workspace's `rust-version`.
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    use super::{flush_mode, persist, CACHE_LINE, PATTERN, W_CLWB, W_NT, W_READ};

    type V = __m512i;

    #[target_feature(enable = "avx512f")]
    #[inline]
    fn zero() -> V {
        _mm512_setzero_si512()
    }

    #[target_feature(enable = "avx512f")]
    #[inline]
    fn xor(a: V, b: V) -> V {
        _mm512_xor_si512(a, b)
    }

    #[target_feature(enable = "avx512f")]
    #[inline]
    fn fold(v: V) -> u64 {
        // SAFETY: __m512i and [u64; 8] are both 64 bytes of plain integer data.
        let w: [u64; 8] = unsafe { std::mem::transmute::<V, [u64; 8]>(v) };
        w.iter().fold(0, |a, b| a ^ b)
    }

    #[target_feature(enable = "avx512f")]
    #[inline]
    fn pattern() -> V {
        let p = PATTERN.map(|w| w as i64);
        _mm512_set_epi64(p[7], p[6], p[5], p[4], p[3], p[2], p[1], p[0])
    }

    /// # Safety
    /// `p` is a 64-byte aligned line of a live mapping; the CPU has avx512f.
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn load(p: *const u8) -> V {
        // SAFETY: the caller's contract.
        unsafe { _mm512_load_si512(p.cast()) }
    }

    /// # Safety
    /// As [`load`].
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn store(p: *mut u8, v: V) {
        // SAFETY: the caller's contract.
        unsafe { _mm512_store_si512(p.cast(), v) }
    }

    /// # Safety
    /// As [`load`].
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn stream(p: *mut u8, v: V) {
        // SAFETY: the caller's contract.
        unsafe { _mm512_stream_si512(p.cast(), v) }
    }

    drivers!(#[inline] #[target_feature(enable = "avx512f")]);
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::{flush_mode, persist, CACHE_LINE, PATTERN, W_CLWB, W_NT, W_READ};

    type V = [__m256i; 2];

    #[target_feature(enable = "avx2")]
    #[inline]
    fn zero() -> V {
        [_mm256_setzero_si256(); 2]
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn xor(a: V, b: V) -> V {
        [_mm256_xor_si256(a[0], b[0]), _mm256_xor_si256(a[1], b[1])]
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn fold(v: V) -> u64 {
        // SAFETY: [__m256i; 2] and [u64; 8] are both 64 bytes of plain integer data.
        let w: [u64; 8] = unsafe { std::mem::transmute::<V, [u64; 8]>(v) };
        w.iter().fold(0, |a, b| a ^ b)
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn pattern() -> V {
        let p = PATTERN.map(|w| w as i64);
        [
            _mm256_set_epi64x(p[3], p[2], p[1], p[0]),
            _mm256_set_epi64x(p[7], p[6], p[5], p[4]),
        ]
    }

    /// # Safety
    /// `p` is a 64-byte aligned line of a live mapping; the CPU has avx2.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn load(p: *const u8) -> V {
        let p = p.cast::<__m256i>();
        // SAFETY: both halves are 32-byte aligned and inside the line (caller's contract).
        unsafe { [_mm256_load_si256(p), _mm256_load_si256(p.add(1))] }
    }

    /// # Safety
    /// As [`load`].
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn store(p: *mut u8, v: V) {
        let p = p.cast::<__m256i>();
        // SAFETY: both halves are 32-byte aligned and inside the line (caller's contract).
        unsafe {
            _mm256_store_si256(p, v[0]);
            _mm256_store_si256(p.add(1), v[1]);
        }
    }

    /// # Safety
    /// As [`load`].
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn stream(p: *mut u8, v: V) {
        let p = p.cast::<__m256i>();
        // SAFETY: both halves are 32-byte aligned and inside the line (caller's contract).
        unsafe {
            _mm256_stream_si256(p, v[0]);
            _mm256_stream_si256(p.add(1), v[1]);
        }
    }

    drivers!(#[inline] #[target_feature(enable = "avx2")]);
}

mod portable {
    use super::{flush_mode, persist, CACHE_LINE, PATTERN, W_CLWB, W_NT, W_READ};

    type V = [u64; 8];

    #[inline(always)]
    fn zero() -> V {
        [0; 8]
    }

    #[inline(always)]
    fn xor(a: V, b: V) -> V {
        std::array::from_fn(|i| a[i] ^ b[i])
    }

    #[inline(always)]
    fn fold(v: V) -> u64 {
        v.iter().fold(0, |a, b| a ^ b)
    }

    #[inline(always)]
    fn pattern() -> V {
        PATTERN
    }

    /// # Safety
    /// `p` is a 64-byte aligned line of a live mapping.
    #[inline(always)]
    unsafe fn load(p: *const u8) -> V {
        let p = p.cast::<u64>();
        // SAFETY: all eight words are aligned and inside the line (caller's contract).
        std::array::from_fn(|i| unsafe { p.add(i).read_volatile() })
    }

    /// # Safety
    /// As [`load`].
    #[inline(always)]
    unsafe fn store(p: *mut u8, v: V) {
        let p = p.cast::<u64>();
        for (i, w) in v.into_iter().enumerate() {
            // SAFETY: word `i` is aligned and inside the line (caller's contract).
            unsafe { p.add(i).write_volatile(w) };
        }
    }

    /// Non-temporal 64-bit stores (`movnti`, baseline x86-64); plain volatile stores
    /// elsewhere.
    ///
    /// # Safety
    /// As [`load`].
    #[inline(always)]
    unsafe fn stream(p: *mut u8, v: V) {
        #[cfg(target_arch = "x86_64")]
        {
            let p = p.cast::<i64>();
            for (i, w) in v.into_iter().enumerate() {
                // SAFETY: word `i` is aligned and inside the line (caller's contract);
                // movnti is part of SSE2, baseline on x86-64.
                unsafe { std::arch::x86_64::_mm_stream_si64(p.add(i), w as i64) };
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        // SAFETY: the caller's contract is `store`'s.
        unsafe {
            store(p, v)
        }
    }

    drivers!(#[inline(always)]);
}

/// The CPU this process runs on, detected once: kernels are checked against it as well
/// as against the features the caller passed, so a kernel can never run an instruction
/// the CPU lacks.
fn host() -> &'static CpuFeatures {
    static HOST: OnceLock<CpuFeatures> = OnceLock::new();
    HOST.get_or_init(CpuFeatures::detect)
}

/// A memory access kernel: an ISA, an operation and an access size, with the
/// monomorphised inner loops chosen once.
#[derive(Debug, Clone, Copy)]
pub struct Kernel {
    isa: Isa,
    op: AccessOp,
    access_size: usize,
    strided: StridedFn,
    offsets: OffsetsFn,
}

impl Kernel {
    /// A kernel for `access_size`-byte accesses (a power of two, at least 64). The ISA
    /// and the persist instruction must be supported by `f` (and by the CPU this runs on).
    pub fn new(isa: Isa, op: AccessOp, access_size: usize, f: &CpuFeatures) -> Result<Kernel> {
        if access_size < CACHE_LINE || !access_size.is_power_of_two() {
            return Err(Error::Invalid(format!(
                "access size {access_size} B is not a power of two of at least 64 B"
            )));
        }
        isa.check(f)?;
        isa.check(host())?;
        let (w, fence) = match op {
            AccessOp::Read => (W_READ, false),
            AccessOp::Write { persist, sfence } => {
                persist.check(f)?;
                persist.check(host())?;
                let w = match persist {
                    PersistMode::NtStore => W_NT,
                    PersistMode::None => W_STORE,
                    PersistMode::Clwb => W_CLWB,
                    PersistMode::Clflushopt => W_CLFLUSHOPT,
                    PersistMode::Clflush => W_CLFLUSH,
                };
                (w, sfence)
            }
        };
        let lines = match access_size {
            64 => 1,
            128 => 2,
            256 => 4,
            _ => 0,
        };
        let (strided, offsets) = match isa {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => pick!(avx512, lines, w, fence),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => pick!(avx2, lines, w, fence),
            #[cfg(not(target_arch = "x86_64"))]
            Isa::Avx512 | Isa::Avx2 => return Err(Error::MissingCpuFeature("x86_64")),
            Isa::Portable => pick!(portable, lines, w, fence),
        };
        Ok(Kernel {
            isa,
            op,
            access_size,
            strided,
            offsets,
        })
    }

    pub fn isa(&self) -> Isa {
        self.isa
    }

    pub fn op(&self) -> AccessOp {
        self.op
    }

    pub fn access_size(&self) -> usize {
        self.access_size
    }

    /// What runs, for results: e.g. `avx2 read 4096B (unrolled x8)`,
    /// `avx512 write nt-store+sfence 64B (1 line)`.
    pub fn name(&self) -> String {
        let shape = match self.access_size {
            64 => "1 line",
            128 => "unrolled x2",
            256 => "unrolled x4",
            _ => "unrolled x8",
        };
        format!("{} {} {}B ({shape})", self.isa, self.op, self.access_size)
    }

    /// `count` accesses at `start`, `start + stride`, `start + 2 * stride`, … (`stride`
    /// at least the access size, or 0 to hit the same chunk every time). `start` and
    /// `stride` must be multiples of 64; the whole span is bounds-checked up front.
    /// Returns the XOR of every `u64` loaded for reads, 0 for writes.
    pub fn run_strided(
        &self,
        view: &MemView<'_>,
        start: usize,
        stride: usize,
        count: usize,
    ) -> Result<u64> {
        if !start.is_multiple_of(CACHE_LINE) || !stride.is_multiple_of(CACHE_LINE) {
            return Err(Error::Invalid(format!(
                "kernel start {start} and stride {stride} must be multiples of 64 B"
            )));
        }
        if stride != 0 && stride < self.access_size {
            return Err(Error::Invalid(format!(
                "stride {stride} B is smaller than the access size {} B (use 0 to repeat one chunk)",
                self.access_size
            )));
        }
        if count == 0 {
            view.check(start, 0)?;
            return Ok(0);
        }
        let last = (count - 1)
            .checked_mul(stride)
            .and_then(|s| s.checked_add(start))
            .ok_or(Error::OutOfBounds {
                offset: start,
                len: usize::MAX,
                size: view.len(),
            })?;
        view.check(start, 0)?;
        view.check(last, self.access_size)?;
        // SAFETY: every access lies in `start..last + access_size`, checked inside the
        // view; `start` and `stride` are multiples of 64 and the mapping is page aligned;
        // `Kernel::new` checked the ISA and flush instruction against this CPU.
        let r = unsafe { (self.strided)(view.ptr_at(start), self.access_size, stride, count) };
        Ok(black_box(r))
    }

    /// One access at each offset (random patterns). Every offset must be a multiple of
    /// 64 with `offset + access_size <= view.len()`; the first that is not is an error
    /// (the accesses before it have been done).
    pub fn run_offsets(&self, view: &MemView<'_>, offsets: &[usize]) -> Result<u64> {
        let Some(limit) = view.len().checked_sub(self.access_size) else {
            return match offsets.first() {
                Some(&o) => Err(Error::OutOfBounds {
                    offset: o,
                    len: self.access_size,
                    size: view.len(),
                }),
                None => Ok(0),
            };
        };
        // SAFETY: the driver checks `offset <= limit` (so the access ends inside the
        // view) and 64-byte alignment before each access; the mapping is page aligned;
        // `Kernel::new` checked the ISA and flush instruction against this CPU.
        let r = unsafe { (self.offsets)(view.ptr_at(0), self.access_size, limit, offsets) };
        match r {
            Ok(v) => Ok(black_box(v)),
            Err(i) => {
                let o = offsets[i];
                if o > limit {
                    Err(Error::OutOfBounds {
                        offset: o,
                        len: self.access_size,
                        size: view.len(),
                    })
                } else {
                    Err(Error::Invalid(format!(
                        "access offset {o} is not a multiple of 64 B"
                    )))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::region::{Region, RegionOptions};
    use crate::spec::TierSpec;

    const SIZES: [usize; 5] = [64, 128, 256, 4096, 1 << 16];

    fn region(len: usize) -> Region {
        Region::new(
            &TierSpec::Dram { node: None },
            len,
            &RegionOptions {
                prefault: true,
                ..Default::default()
            },
        )
        .unwrap()
    }

    fn isas() -> Vec<Isa> {
        let f = CpuFeatures::detect();
        let v: Vec<Isa> = Isa::ALL.into_iter().filter(|i| i.supported(&f)).collect();
        assert!(v.contains(&Isa::Portable));
        v
    }

    fn write_ops() -> Vec<AccessOp> {
        let f = CpuFeatures::detect();
        PersistMode::ALL
            .into_iter()
            .filter(|m| m.check(&f).is_ok())
            .flat_map(|persist| [false, true].map(|sfence| AccessOp::Write { persist, sfence }))
            .collect()
    }

    /// Deterministic pseudo-random bytes.
    fn noise(len: usize, seed: u64) -> Vec<u8> {
        let mut x = seed | 1;
        (0..len / 8)
            .flat_map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x.to_le_bytes()
            })
            .collect()
    }

    fn words(b: &[u8]) -> impl Iterator<Item = u64> + '_ {
        b.chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
    }

    fn pattern_bytes(len: usize) -> Vec<u8> {
        (0..len / 8)
            .flat_map(|i| PATTERN[i % 8].to_le_bytes())
            .collect()
    }

    #[test]
    fn isa_names_and_selection() {
        for i in Isa::ALL {
            assert_eq!(i.to_string().parse::<Isa>().unwrap(), i);
            assert_eq!(serde_json::to_string(&i).unwrap(), format!("\"{i}\""));
        }
        let none = CpuFeatures::default();
        assert_eq!(Isa::select("auto", &none).unwrap(), Isa::Portable);
        assert!(matches!(
            Isa::select("avx512", &none),
            Err(Error::MissingCpuFeature("avx512f"))
        ));
        assert!(matches!(
            Isa::select("avx2", &none),
            Err(Error::MissingCpuFeature("avx2"))
        ));
        let e = Isa::select("sse", &none).unwrap_err().to_string();
        assert!(
            e.contains("sse")
                && e.contains("avx512")
                && e.contains("portable")
                && !e.contains('\n')
        );
        let both = CpuFeatures {
            avx512f: true,
            avx2: true,
            ..none
        };
        assert_eq!(Isa::best(&both), Isa::Avx512);
        assert_eq!(Isa::best(&CpuFeatures { avx2: true, ..none }), Isa::Avx2);
        assert_eq!(Isa::select("avx2", &both).unwrap(), Isa::Avx2);
    }

    #[test]
    fn bad_kernels_are_refused() {
        let f = CpuFeatures::detect();
        let none = CpuFeatures::default();
        assert!(matches!(
            Kernel::new(Isa::Avx512, AccessOp::Read, 64, &none),
            Err(Error::MissingCpuFeature("avx512f"))
        ));
        for size in [0, 32, 96, 100, 4095] {
            let e = Kernel::new(Isa::Portable, AccessOp::Read, size, &f)
                .unwrap_err()
                .to_string();
            assert!(e.contains(&size.to_string()), "{e}");
        }
        let w = AccessOp::Write {
            persist: PersistMode::Clwb,
            sfence: true,
        };
        assert!(matches!(
            Kernel::new(Isa::Portable, w, 64, &none),
            Err(Error::MissingCpuFeature("clwb"))
        ));
    }

    #[test]
    fn names_say_what_runs() {
        let f = CpuFeatures::detect();
        let k = Kernel::new(Isa::Portable, AccessOp::Read, 4096, &f).unwrap();
        assert_eq!(k.name(), "portable read 4096B (unrolled x8)");
        let w = AccessOp::Write {
            persist: PersistMode::NtStore,
            sfence: true,
        };
        let k = Kernel::new(Isa::Portable, w, 64, &f).unwrap();
        assert_eq!(k.name(), "portable write nt-store+sfence 64B (1 line)");
        assert_eq!((k.isa(), k.access_size(), k.op()), (Isa::Portable, 64, w));
    }

    #[test]
    fn writes_fill_exactly_the_targeted_chunks() {
        let f = CpuFeatures::detect();
        for size in SIZES {
            let (start, stride, count) = (192, 2 * size, 3);
            let len = start + 2 * stride + size + 4096;
            let mut r = region(len);
            let v = r.view();
            let background = vec![0xEEu8; len];
            for isa in isas() {
                for op in write_ops() {
                    let k = Kernel::new(isa, op, size, &f).unwrap();
                    v.copy_from(0, &background).unwrap();
                    assert_eq!(k.run_strided(&v, start, stride, count).unwrap(), 0);
                    let mut got = vec![0u8; len];
                    v.copy_to(0, &mut got).unwrap();
                    let mut want = background.clone();
                    for i in 0..count {
                        let at = start + i * stride;
                        want[at..at + size].copy_from_slice(&pattern_bytes(size));
                    }
                    assert!(got == want, "{}: wrong bytes", k.name());

                    // The same through offsets, out of order.
                    v.copy_from(0, &background).unwrap();
                    let offs = [start + 2 * stride, start];
                    assert_eq!(k.run_offsets(&v, &offs).unwrap(), 0);
                    v.copy_to(0, &mut got).unwrap();
                    want.copy_from_slice(&background);
                    for &at in &offs {
                        want[at..at + size].copy_from_slice(&pattern_bytes(size));
                    }
                    assert!(got == want, "{}: wrong bytes via offsets", k.name());
                }
            }
        }
    }

    #[test]
    fn reads_fold_the_same_on_every_isa() {
        let f = CpuFeatures::detect();
        for size in SIZES {
            let (start, stride, count) = (64 * 5, 3 * size, 3);
            let len = start + 2 * stride + size + 4096;
            let mut r = region(len);
            let v = r.view();
            let data = noise(len, size as u64);
            v.copy_from(0, &data).unwrap();
            let chunk = |at: usize| words(&data[at..at + size]).fold(0, |a, b| a ^ b);
            let want = (0..count)
                .map(|i| chunk(start + i * stride))
                .fold(0, |a, b| a ^ b);
            assert_ne!(want, 0);
            for isa in isas() {
                let k = Kernel::new(isa, AccessOp::Read, size, &f).unwrap();
                assert_eq!(
                    k.run_strided(&v, start, stride, count).unwrap(),
                    want,
                    "{}",
                    k.name()
                );
                // stride 0: three reads of one chunk fold to that chunk.
                assert_eq!(
                    k.run_strided(&v, start, 0, 3).unwrap(),
                    chunk(start),
                    "{}",
                    k.name()
                );
                let offs = [start + stride, 0, start + stride];
                assert_eq!(k.run_offsets(&v, &offs).unwrap(), chunk(0), "{}", k.name());
                assert_eq!(k.run_strided(&v, start, stride, 0).unwrap(), 0);
                // Reads leave the data alone.
                let mut back = vec![0u8; len];
                v.copy_to(0, &mut back).unwrap();
                assert!(back == data);
            }
        }
    }

    #[test]
    fn out_of_bounds_and_misaligned_runs_are_errors() {
        let f = CpuFeatures::detect();
        let mut r = region(64 * 1024);
        let v = r.view();
        let w = AccessOp::Write {
            persist: PersistMode::NtStore,
            sfence: false,
        };
        for isa in isas() {
            for op in [AccessOp::Read, w] {
                let k = Kernel::new(isa, op, 4096, &f).unwrap();
                assert!(k.run_strided(&v, 0, 4096, 16).is_ok());
                assert!(matches!(
                    k.run_strided(&v, 0, 4096, 17),
                    Err(Error::OutOfBounds { .. })
                ));
                assert!(matches!(
                    k.run_strided(&v, 61440 + 64, 0, 1),
                    Err(Error::OutOfBounds { .. })
                ));
                assert!(matches!(
                    k.run_strided(&v, 1 << 20, 4096, 0),
                    Err(Error::OutOfBounds { .. })
                ));
                assert!(k.run_strided(&v, 0, usize::MAX & !63, 3).is_err());
                assert!(k.run_strided(&v, 0, 4096, usize::MAX).is_err());
                assert!(matches!(
                    k.run_strided(&v, 8, 4096, 1),
                    Err(Error::Invalid(_))
                ));
                assert!(matches!(
                    k.run_strided(&v, 0, 4096 + 8, 1),
                    Err(Error::Invalid(_))
                ));
                assert!(matches!(
                    k.run_strided(&v, 0, 2048, 2),
                    Err(Error::Invalid(_))
                ));
                assert!(k.run_offsets(&v, &[0, 61440]).is_ok());
                assert!(matches!(
                    k.run_offsets(&v, &[0, 61440 + 64]),
                    Err(Error::OutOfBounds { .. })
                ));
                assert!(matches!(
                    k.run_offsets(&v, &[usize::MAX]),
                    Err(Error::OutOfBounds { .. })
                ));
                assert!(matches!(
                    k.run_offsets(&v, &[4096, 100]),
                    Err(Error::Invalid(_))
                ));
                assert_eq!(k.run_offsets(&v, &[]).unwrap(), 0);
            }
        }
        let mut small = region(64);
        let sv = small.view();
        let k = Kernel::new(Isa::Portable, AccessOp::Read, 128, &f).unwrap();
        assert!(k.run_offsets(&sv, &[0]).is_err());
        assert!(k.run_strided(&sv, 0, 0, 1).is_err());
    }
}
