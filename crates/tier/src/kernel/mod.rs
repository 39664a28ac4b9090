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
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::cpu::CpuFeatures;
use crate::persist::{self, PersistMode, CACHE_LINE};
use pmolap_os::{Error, Result};

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

    /// Ok if a CPU with features `f` can run this ISA, else
    /// [`Error::MissingCpuFeature`] naming the feature it lacks.
    pub fn check(self, f: &CpuFeatures) -> Result<()> {
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

#[macro_use]
mod drivers;
#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
pub mod bytes;
mod dispatch;
mod portable;

pub use self::dispatch::Kernel;

#[cfg(test)]
mod tests;
