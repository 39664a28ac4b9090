//! Choosing and running a kernel: [`Kernel::new`] checks the ISA and flush instruction
//! against the caller's and the host's CPU features and picks the monomorphised drivers.

use std::hint::black_box;
use std::sync::OnceLock;

#[cfg(target_arch = "x86_64")]
use super::{avx2, avx512};
use super::{
    portable, AccessOp, Isa, OffsetsFn, StridedFn, W_CLFLUSH, W_CLFLUSHOPT, W_CLWB, W_NT, W_READ,
    W_STORE,
};
use crate::cpu::CpuFeatures;
use crate::persist::{PersistMode, CACHE_LINE};
use crate::region::MemView;
use pmolap_os::{Error, Result};

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
