//! Making stores durable: non-temporal stores, cache-line write-back/flush instructions
//! (`clwb`, `clflushopt`, `clflush`) followed by `sfence`, and `msync` for page-cache files.
//!
//! Which instruction is used is chosen from the CPU's features and the tier's
//! [`Durability`], and can be forced; forcing an instruction the CPU lacks is an error.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::cpu::CpuFeatures;
use pmolap_os::{Error, Result};

/// Size of a CPU cache line on every CPU pmolap supports.
pub const CACHE_LINE: usize = 64;

/// How stores of a write reach the persistence domain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PersistMode {
    /// Non-temporal (streaming) stores that bypass the cache (`vmovntdq`).
    NtStore,
    /// Regular stores, then `clwb` per cache line (write back, line stays cached).
    Clwb,
    /// Regular stores, then `clflushopt` per cache line (flush, weakly ordered).
    Clflushopt,
    /// Regular stores, then `clflush` per cache line (flush, strongly ordered).
    Clflush,
    /// Regular stores, nothing else (the data sits in the CPU caches).
    None,
}

impl PersistMode {
    pub const ALL: [PersistMode; 5] = [
        PersistMode::NtStore,
        PersistMode::Clwb,
        PersistMode::Clflushopt,
        PersistMode::Clflush,
        PersistMode::None,
    ];

    /// The CPU feature the mode needs, if any beyond baseline x86-64.
    pub fn required_feature(self) -> Option<&'static str> {
        match self {
            PersistMode::Clwb => Some("clwb"),
            PersistMode::Clflushopt => Some("clflushopt"),
            _ => None,
        }
    }

    /// Errors if the CPU cannot execute this mode.
    pub fn check(self, f: &CpuFeatures) -> Result<()> {
        match self {
            PersistMode::Clwb if !f.clwb => Err(Error::MissingCpuFeature("clwb")),
            PersistMode::Clflushopt if !f.clflushopt => Err(Error::MissingCpuFeature("clflushopt")),
            _ => Ok(()),
        }
    }

    /// The best cache-line flush instruction of this CPU: clwb, else clflushopt, else clflush.
    pub fn best_flush(f: &CpuFeatures) -> PersistMode {
        if f.clwb {
            PersistMode::Clwb
        } else if f.clflushopt {
            PersistMode::Clflushopt
        } else {
            PersistMode::Clflush
        }
    }

    /// The default for bulk writes on any tier: non-temporal stores, as in the paper (§4):
    /// they bypass the caches on DRAM and page-cache files too, so figures are comparable.
    pub const DEFAULT: PersistMode = PersistMode::NtStore;
}

impl fmt::Display for PersistMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PersistMode::NtStore => "nt-store",
            PersistMode::Clwb => "clwb",
            PersistMode::Clflushopt => "clflushopt",
            PersistMode::Clflush => "clflush",
            PersistMode::None => "none",
        })
    }
}

impl FromStr for PersistMode {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        PersistMode::ALL
            .into_iter()
            .find(|m| m.to_string() == s)
            .ok_or_else(|| Error::Invalid(format!("unknown persist instruction `{s}`; use nt-store, clwb, clflushopt, clflush or none")))
    }
}

/// What it takes to make a region's stores durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Durability {
    /// DRAM: nothing survives a power loss; persisting is a no-op.
    Volatile,
    /// A page-cache file: `msync(MS_SYNC)` writes the dirty pages back.
    PageCache,
    /// Byte-addressable persistent memory (devdax, or fsdax mapped with `MAP_SYNC`):
    /// cache-line flush + `sfence` makes stores durable, no system call.
    CacheFlush,
}

impl fmt::Display for Durability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Durability::Volatile => "none (volatile)",
            Durability::PageCache => "msync",
            Durability::CacheFlush => "cache-line flush + sfence (MAP_SYNC)",
        })
    }
}

/// Store fence: orders all earlier stores (incl. non-temporal ones and `clwb`/`clflushopt`)
/// before later ones.
#[inline]
pub fn sfence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `sfence` has no memory operands and is part of baseline x86-64 (SSE).
    unsafe {
        std::arch::x86_64::_mm_sfence()
    }
}

/// Flushes (or writes back) every cache line that overlaps `ptr..ptr+len` with `mode`'s
/// instruction. `NtStore` and `None` flush nothing. No fence is issued.
///
/// # Safety
/// `ptr..ptr+len` must lie inside one live mapping of this process. The caller must
/// have checked `mode` against the CPU's features ([`PersistMode::check`]).
#[inline]
pub unsafe fn flush_lines(mode: PersistMode, ptr: *const u8, len: usize) {
    if len == 0 {
        return;
    }
    let start = (ptr as usize) & !(CACHE_LINE - 1);
    let end = ptr as usize + len;
    let mut line = start;
    while line < end {
        // SAFETY: `line` is in a cache line that overlaps the caller's live range, and
        // the caller checked that the CPU has the instruction.
        unsafe { flush_line(mode, line as *const u8) };
        line += CACHE_LINE;
    }
}

/// Flushes the one cache line that holds `p`.
///
/// # Safety
/// `p` must point into a live mapping; the CPU must support `mode`'s instruction.
#[inline(always)]
pub unsafe fn flush_line(mode: PersistMode, p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    match mode {
        // SAFETY: caller guarantees `p` is mapped and the CPU has clwb.
        PersistMode::Clwb => unsafe {
            std::arch::asm!("clwb [{0}]", in(reg) p, options(nostack, preserves_flags))
        },
        // SAFETY: caller guarantees `p` is mapped and the CPU has clflushopt.
        PersistMode::Clflushopt => unsafe {
            std::arch::asm!("clflushopt [{0}]", in(reg) p, options(nostack, preserves_flags))
        },
        // SAFETY: clflush is baseline x86-64; `p` is mapped per the caller.
        PersistMode::Clflush => unsafe { std::arch::x86_64::_mm_clflush(p) },
        PersistMode::NtStore | PersistMode::None => {}
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (mode, p);
}

/// Copies `src` to `dst` with non-temporal stores where `dst` is 16-byte aligned
/// (`movntdq`, baseline x86-64), and plain stores flushed with `flush` for the unaligned
/// head and tail. Issues no fence: follow with [`sfence`] to make the copy durable.
///
/// # Safety
/// `dst..dst+src.len()` must be writable memory of a live mapping that does not overlap
/// `src`; the CPU must support `flush` ([`PersistMode::check`]).
pub unsafe fn copy_nt(dst: *mut u8, src: &[u8], flush: PersistMode) {
    let len = src.len();
    let head = (dst.align_offset(16)).min(len);
    // SAFETY: `head <= len`; both ranges are valid per the caller and do not overlap.
    unsafe {
        std::ptr::copy_nonoverlapping(src.as_ptr(), dst, head);
        flush_lines(flush, dst, head);
    }
    let body = (len - head) / 16 * 16;
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
        let mut i = head;
        while i < head + body {
            // SAFETY: `i + 16 <= len`, so the unaligned load reads inside `src` and the
            // store writes inside `dst`; `dst + i` is 16-byte aligned by construction.
            unsafe {
                let v = _mm_loadu_si128(src.as_ptr().add(i).cast::<__m128i>());
                _mm_stream_si128(dst.add(i).cast::<__m128i>(), v);
            }
            i += 16;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: as for the head.
    unsafe {
        std::ptr::copy_nonoverlapping(src.as_ptr().add(head), dst.add(head), body);
    }
    let tail = head + body;
    // SAFETY: `tail <= len`; the rest of both ranges is valid per the caller.
    unsafe {
        std::ptr::copy_nonoverlapping(src.as_ptr().add(tail), dst.add(tail), len - tail);
        flush_lines(flush, dst.add(tail), len - tail);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for m in PersistMode::ALL {
            assert_eq!(m.to_string().parse::<PersistMode>().unwrap(), m);
        }
        assert!("clwbb"
            .parse::<PersistMode>()
            .unwrap_err()
            .to_string()
            .contains("clwbb"));
    }

    #[test]
    fn missing_instruction_is_an_error() {
        let f = CpuFeatures {
            clflush: true,
            ..CpuFeatures::default()
        };
        assert!(PersistMode::Clwb.check(&f).is_err());
        assert!(PersistMode::Clflushopt.check(&f).is_err());
        assert!(PersistMode::Clflush.check(&f).is_ok());
        assert_eq!(PersistMode::best_flush(&f), PersistMode::Clflush);
        let g = CpuFeatures {
            clwb: true,
            clflushopt: true,
            ..f
        };
        assert_eq!(PersistMode::best_flush(&g), PersistMode::Clwb);
    }

    #[test]
    fn nt_copy_copies_every_alignment() {
        let f = CpuFeatures::detect();
        let src: Vec<u8> = (0..300u32).map(|i| (i * 7 + 3) as u8).collect();
        for off in 0..20 {
            for len in [0, 1, 15, 16, 17, 63, 64, 200, 280] {
                let mut dst = vec![0u8; 320];
                // SAFETY: `off + len <= 300 < 320`; distinct buffers; mode checked below.
                unsafe {
                    copy_nt(
                        dst.as_mut_ptr().add(off),
                        &src[..len],
                        PersistMode::best_flush(&f),
                    )
                };
                sfence();
                assert_eq!(&dst[off..off + len], &src[..len], "off {off} len {len}");
                assert!(
                    dst[..off].iter().all(|&b| b == 0) && dst[off + len..].iter().all(|&b| b == 0)
                );
            }
        }
    }

    #[test]
    fn flushing_a_buffer_keeps_its_content() {
        let f = CpuFeatures::detect();
        let mut buf = vec![7u8; 4096 + 13];
        for m in PersistMode::ALL {
            if m.check(&f).is_err() {
                continue;
            }
            buf[100] = 9;
            // SAFETY: the range is inside `buf`, and the mode was checked.
            unsafe { flush_lines(m, buf.as_ptr().add(5), 4000) };
            sfence();
            assert_eq!(buf[100], 9);
        }
    }
}
