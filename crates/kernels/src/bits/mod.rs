//! Bit-packed value-id kernels: unpacking ids of any width 1..=32 into `u32`, and a
//! range predicate (`id - lo <= span`, wrapping) evaluated on the packed words straight
//! into bitmasks and selection vectors — in AVX-512, AVX2 and portable variants; and the
//! loops over the values decoded from the ids (`values`), compiled per variant.
//!
//! The layout is [`crate::bitpack`]'s: id `i` of width `w` occupies bits `i*w .. i*w+w`
//! of a little-endian stream of `u64` words, so 64 ids of width `w` are exactly `w` words
//! (a *group*). The SIMD kernels work on whole groups and read up
//! to [`BitKernels::slack_words`] words past the last group they are given; the safe
//! functions here hand them only groups followed by that much data and do the rest (an
//! unaligned head, the last groups of a vector, a tail shorter than a group) with the
//! portable code, so any `(start, len)` of any vector is accepted.
//!
//! The AVX-512 variant unpacks by `vpermb` where the CPU has AVX-512 VBMI (and BW), and
//! ids of at most 8 bits a byte each (reported as `avx512+vbmi`; `avx512.rs`).
//!
//! The variant is chosen once per process: the widest the CPU has ([`Isa::best`]),
//! unless [`set_isa`] picks another (the CLI's `--bits-isa`, to compare them);
//! [`active`] says which runs.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

use pmolap_tier::kernel::Isa;
use pmolap_tier::{CpuFeatures, Result};

use crate::bitpack::{get_unpadded, GROUP};

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod fused;
mod portable;
mod values;

#[cfg(test)]
mod tests;

pub use self::fused::{Packed, Pair};
pub use self::values::Arith;

/// Groups per block of masks kept on the stack by [`BitKernels::select_range`].
const BLOCK: usize = 64;

type UnpackFn = unsafe fn(*const u64, u32, usize, *mut u32);
/// Ranges as `(lo, span)` pairs: a pointer and a count in `1..=FUSED_RUNS`.
type RangeFn = unsafe fn(*const u64, u32, usize, *const (u32, u32), usize, *mut u64);

/// Up to this many ranges are tested in one pass over the packed words (each id unpacked
/// once, compared with every range); more in passes of this many, the masks ORed.
pub const FUSED_RUNS: usize = 4;
type SelectFn = unsafe fn(*const u64, usize, u32, *mut u32) -> usize;
type BitmapFn = unsafe fn(*const u64, u32, usize, *const u64, u32, *mut u64);
type UnpackSelectedFn = unsafe fn(*const u64, u32, usize, *const u64, *mut u32) -> usize;
type SumPackedFn = unsafe fn(*const u64, u32, usize, *const u64) -> u64;
type MinMaxPackedFn = unsafe fn(*const u64, u32, usize, *const u64) -> (u32, u32);
type MinMaxPairFn =
    unsafe fn(*const u64, u32, *const u64, u32, usize, *const u64, Pair) -> (i64, i64);

type DotPackedFn = unsafe fn(*const u64, u32, *const u64, u32, usize, *const u64) -> (u64, u64);

/// A test of value ids.
#[derive(Debug, Clone, Copy)]
pub enum Pred<'a> {
    /// `id - lo <= span` (wrapping): ids `lo ..= lo + span`.
    Range { lo: u32, span: u32 },
    /// Bit `id % 64` of word `id / 64` set (ids past the bitmap fail).
    Bitmap(&'a [u64]),
    /// `id - lo <= span` for any `(lo, span)` of the list (none: no id passes): a few
    /// runs of ids, each id unpacked once and compared with up to [`FUSED_RUNS`] of them.
    Ranges(&'a [(u32, u32)]),
}

impl Pred<'_> {
    #[inline(always)]
    fn passes(&self, id: u32) -> bool {
        match *self {
            Pred::Range { lo, span } => id.wrapping_sub(lo) <= span,
            Pred::Bitmap(b) => portable::bit(b, bitmap_limit(b), id),
            Pred::Ranges(r) => in_ranges(r, id),
        }
    }
}

/// Whether `id` lies in any of the `(lo, span)` runs (every run compared, no branch on
/// the outcome: a filter keeping some of its rows mispredicts an early exit).
#[inline(always)]
pub fn in_ranges(runs: &[(u32, u32)], id: u32) -> bool {
    runs.iter().fold(false, |any, &(lo, span)| {
        any | (id.wrapping_sub(lo) <= span)
    })
}

/// Ids a bitmap covers, as the kernels take it (a bitmap of 2^32 bits or more covers
/// every id but `u32::MAX`; no plan builds one).
fn bitmap_limit(b: &[u64]) -> u32 {
    u32::try_from(b.len().saturating_mul(64)).unwrap_or(u32::MAX)
}

/// One variant of the bit kernels.
#[derive(Debug, Clone, Copy)]
pub struct BitKernels {
    isa: Isa,
    /// What reports call it: the ISA's name, `avx512+vbmi` for the `vpermb` unpacker.
    name: &'static str,
    slack: usize,
    unpack: UnpackFn,
    unpack_selected: UnpackSelectedFn,
    sum_packed: SumPackedFn,
    dot_packed: DotPackedFn,
    min_max_packed: MinMaxPackedFn,
    min_max_pair_packed: MinMaxPairFn,
    range: RangeFn,
    bitmap: BitmapFn,
    select: SelectFn,
    /// [`Self::select`] without skipping empty mask words.
    select_every: SelectFn,
    /// Ids up to this wide are tested against a bitmap by a byte lookup (0: none).
    byte_bitmap_width: u32,
}

static PORTABLE: BitKernels = BitKernels {
    isa: Isa::Portable,
    name: "portable",
    slack: 0,
    unpack: portable::unpack_raw,
    unpack_selected: portable::unpack_selected_raw,
    sum_packed: portable::sum_packed_raw,
    dot_packed: portable::dot_packed_raw,
    min_max_packed: portable::min_max_packed_raw,
    min_max_pair_packed: portable::min_max_pair_packed_raw,
    range: portable::range_raw,
    bitmap: portable::bitmap_raw,
    select: portable::select_raw,
    select_every: portable::select_raw,
    byte_bitmap_width: 0,
};

#[cfg(target_arch = "x86_64")]
static AVX2: BitKernels = BitKernels {
    isa: Isa::Avx2,
    name: "avx2",
    slack: avx2::SLACK_WORDS,
    unpack: avx2::unpack,
    unpack_selected: avx2::unpack_selected,
    sum_packed: avx2::sum_packed,
    dot_packed: avx2::dot_packed,
    min_max_packed: avx2::min_max_packed,
    min_max_pair_packed: avx2::min_max_pair_packed,
    range: avx2::range,
    bitmap: avx2::bitmap,
    select: avx2::select,
    select_every: avx2::select,
    byte_bitmap_width: 0,
};

#[cfg(target_arch = "x86_64")]
static AVX512: BitKernels = BitKernels {
    isa: Isa::Avx512,
    name: "avx512",
    slack: avx512::SLACK_WORDS,
    unpack: avx512::unpack,
    unpack_selected: avx512::unpack_selected,
    sum_packed: avx512::sum_packed,
    dot_packed: avx512::dot_packed,
    min_max_packed: avx512::min_max_packed,
    min_max_pair_packed: avx512::min_max_pair_packed,
    range: avx512::range,
    bitmap: avx512::bitmap,
    select: avx512::select,
    select_every: avx512::select_every,
    byte_bitmap_width: 0,
};

#[cfg(target_arch = "x86_64")]
/// The AVX-512 kernels with the `vpermb` unpacker (CPUs with avx512vbmi).
static AVX512_VBMI: BitKernels = BitKernels {
    isa: Isa::Avx512,
    name: "avx512+vbmi",
    slack: avx512::SLACK_WORDS,
    unpack: avx512::unpack_vbmi,
    unpack_selected: avx512::unpack_selected_vbmi,
    sum_packed: avx512::sum_packed_vbmi,
    dot_packed: avx512::dot_packed_vbmi,
    min_max_packed: avx512::min_max_packed_vbmi,
    min_max_pair_packed: avx512::min_max_pair_packed_vbmi,
    range: avx512::range_vbmi,
    bitmap: avx512::bitmap_vbmi,
    select: avx512::select,
    select_every: avx512::select_every,
    byte_bitmap_width: avx512::BYTE_WIDTH,
};

fn host() -> &'static CpuFeatures {
    static HOST: OnceLock<CpuFeatures> = OnceLock::new();
    HOST.get_or_init(CpuFeatures::detect)
}

const UNSET: u8 = 0;
/// The ISA [`set_isa`] chose (0: none yet, else `1 + index in Isa::ALL`).
static CHOSEN: AtomicU8 = AtomicU8::new(UNSET);

/// Makes `isa` the variant every later call in this process runs; an ISA this CPU lacks
/// is a [`pmolap_os::Error::MissingCpuFeature`].
pub fn set_isa(isa: Isa) -> Result<()> {
    BitKernels::new(isa)?;
    let i = Isa::ALL.iter().position(|&x| x == isa).unwrap_or(0);
    CHOSEN.store(i as u8 + 1, Ordering::Relaxed);
    Ok(())
}

/// The variant that runs: the one [`set_isa`] chose, else the widest of this CPU.
#[inline]
pub fn active() -> &'static BitKernels {
    match CHOSEN.load(Ordering::Relaxed) {
        UNSET => {
            static BEST: OnceLock<&'static BitKernels> = OnceLock::new();
            BEST.get_or_init(|| table(Isa::best(host())))
        }
        i => table(Isa::ALL[(i - 1) as usize]),
    }
}

fn table(isa: Isa) -> &'static BitKernels {
    match isa {
        // The `vpermb` unpacker wherever the CPU has it (1.4-1.9x per id).
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 if host().avx512vbmi => &AVX512_VBMI,
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => &AVX512,
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => &AVX2,
        _ => &PORTABLE,
    }
}

/// # Safety
/// The CPU has POPCNT.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn count_ones_popcnt(words: &[u64]) -> usize {
    words.iter().map(|w| w.count_ones() as usize).sum()
}

/// [`BitKernels::unpack`] of the [`active`] variant.
#[inline]
pub fn unpack(words: &[u64], width: u32, start: usize, out: &mut [u32]) {
    active().unpack(words, width, start, out)
}

/// [`BitKernels::frame_decode`] of the [`active`] variant.
#[inline]
pub fn frame_decode(out: &mut [i64], ids: &[u32], min: i64) {
    active().frame_decode(out, ids, min)
}

/// [`BitKernels::frame_combine`] of the [`active`] variant.
#[inline]
pub fn frame_combine(op: Arith, vals: &mut [i64], ids: &[u32], min: i64) {
    active().frame_combine(op, vals, ids, min)
}

/// [`BitKernels::gather`] of the [`active`] variant.
#[inline]
pub fn gather(src: &[u32], idx: &[u32], out: &mut [u32]) {
    active().gather(src, idx, out)
}

/// [`BitKernels::sum`] of the [`active`] variant.
#[inline]
pub fn sum(vals: &[i64]) -> i128 {
    active().sum(vals)
}

/// [`BitKernels::select_range`] of the [`active`] variant.
#[inline]
pub fn select_range(
    words: &[u64],
    width: u32,
    start: usize,
    lo: u32,
    span: u32,
    sel: &mut [u32],
) -> usize {
    active().select_range(words, width, start, lo, span, sel)
}

/// [`BitKernels::range_mask`] of the [`active`] variant.
#[inline]
pub fn range_mask(
    words: &[u64],
    width: u32,
    start: usize,
    n: usize,
    lo: u32,
    span: u32,
    masks: &mut [u64],
) {
    active().range_mask(words, width, start, n, lo, span, masks)
}

/// [`BitKernels::test_mask`] of the [`active`] variant.
#[inline]
pub fn test_mask(
    words: &[u64],
    width: u32,
    start: usize,
    n: usize,
    pred: Pred<'_>,
    masks: &mut [u64],
) {
    active().test_mask(words, width, start, n, pred, masks)
}

/// [`BitKernels::select`] of the [`active`] variant.
#[inline]
pub fn select(words: &[u64], width: u32, start: usize, pred: Pred<'_>, sel: &mut [u32]) -> usize {
    active().select(words, width, start, pred, sel)
}

#[inline(always)]
fn check(words: &[u64], width: u32, start: usize, n: usize) {
    assert!(
        (1..=32).contains(&width),
        "bit width {width} outside 1..=32"
    );
    let end_bit = (start + n) * width as usize;
    assert!(
        end_bit.div_ceil(64) <= words.len(),
        "ids {start}..{} of width {width} past the {} words given",
        start + n,
        words.len()
    );
}

/// [`BitKernels::select`] without SIMD: unpack a block, then one branch-free pass that
/// tests each id and writes its offset (cheaper than going through bitmasks in scalar
/// code).
fn portable_select(
    words: &[u64],
    width: u32,
    start: usize,
    pred: Pred<'_>,
    sel: &mut [u32],
) -> usize {
    let mut ids = [0u32; BLOCK * GROUP];
    let (mut k, mut i) = (0, 0);
    let n = sel.len();
    while i < n {
        let len = (n - i).min(BLOCK * GROUP);
        let ids = &mut ids[..len];
        PORTABLE.unpack(words, width, start + i, ids);
        match pred {
            Pred::Range { lo, span } => {
                for (j, &id) in ids.iter().enumerate() {
                    sel[k] = (i + j) as u32;
                    k += usize::from(id.wrapping_sub(lo) <= span);
                }
            }
            Pred::Bitmap(b) => {
                let limit = bitmap_limit(b);
                for (j, &id) in ids.iter().enumerate() {
                    sel[k] = (i + j) as u32;
                    k += usize::from(portable::bit(b, limit, id));
                }
            }
            Pred::Ranges(r) => {
                for (j, &id) in ids.iter().enumerate() {
                    sel[k] = (i + j) as u32;
                    k += usize::from(in_ranges(r, id));
                }
            }
        }
        i += len;
    }
    k
}

impl BitKernels {
    /// The variant for `isa`; one this CPU lacks is a
    /// [`pmolap_os::Error::MissingCpuFeature`].
    pub fn new(isa: Isa) -> Result<&'static BitKernels> {
        isa.check(host())?;
        Ok(table(isa))
    }

    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// The set bits of `words` (a selection's masks): by `popcnt` in the SIMD variants
    /// (whose ISA implies it, `CpuFeatures`); code compiled for baseline x86-64 counts
    /// with a dozen shifts and masks per word instead (a morsel's 1,024 masks after each
    /// whole-morsel step).
    pub fn count_ones(&self, words: &[u64]) -> usize {
        #[cfg(target_arch = "x86_64")]
        if self.isa != Isa::Portable {
            // SAFETY: a SIMD variant is only made for a CPU whose AVX2 or AVX-512 was
            // detected with POPCNT (`CpuFeatures::detect`, checked by `BitKernels::new`
            // and `Isa::best`).
            return unsafe { count_ones_popcnt(words) };
        }
        words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The variant's name in reports: its ISA's, or `avx512+vbmi` for the AVX-512
    /// kernels that unpack by `vpermb`.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Whether [`Pred::Bitmap`] of `words` words is tested from registers (a permute
    /// per lane, about 0.2 ns per id on a Zen 4) rather than by gathering its words
    /// (0.53 ns): up to 4096 bits for AVX-512, 2048 for AVX2, never for portable.
    pub fn bitmap_in_registers(&self, words: usize) -> bool {
        let bits = match self.isa {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => avx512::TABLE_BITS,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => avx2::TABLE_BITS,
            _ => 0,
        };
        words.saturating_mul(64) <= bits as usize
    }

    /// Whether [`Pred::Bitmap`] over ids `width` bits wide is tested by a byte lookup
    /// (the `vpermb` kernels, ids of at most 8 bits: a 256-bit table in one register, at
    /// about a range test's cost) rather than across several registers or by gathers.
    pub fn bitmap_by_bytes(&self, width: u32) -> bool {
        width <= self.byte_bitmap_width
    }

    /// Words a SIMD kernel may read past the groups it is given (0 for portable).
    pub fn slack_words(&self) -> usize {
        self.slack
    }

    /// Of the `groups` groups from group `g0`, how many the SIMD kernel may take: those
    /// followed by [`Self::slack_words`] words inside `words`.
    #[inline(always)]
    fn fast_groups(&self, words: &[u64], width: u32, g0: usize, groups: usize) -> usize {
        let w = width as usize;
        let room = words.len().saturating_sub(self.slack) / w;
        room.saturating_sub(g0).min(groups)
    }

    /// Unpacks ids `start .. start + out.len()` into `out`. Panics (like a slice index)
    /// when the width is outside 1..=32 or the ids run past `words`.
    pub fn unpack(&self, words: &[u64], width: u32, start: usize, out: &mut [u32]) {
        let n = out.len();
        check(words, width, start, n);
        let head = ((GROUP - start % GROUP) % GROUP).min(n);
        for (k, o) in out[..head].iter_mut().enumerate() {
            *o = get_unpadded(words, width, start + k);
        }
        let groups = (n - head) / GROUP;
        let g0 = (start + head) / GROUP;
        let fast = self.fast_groups(words, width, g0, groups);
        let w = width as usize;
        let body = &mut out[head..head + groups * GROUP];
        let (simd, rest) = body.split_at_mut(fast * GROUP);
        if fast > 0 {
            // SAFETY: groups g0..g0+fast and SLACK words after them lie in `words`
            // (fast_groups), `simd` holds fast * 64 ids, `width` is in 1..=32 (check),
            // and `BitKernels::new` / `Isa::best` checked the ISA against this CPU.
            unsafe { (self.unpack)(words[g0 * w..].as_ptr(), width, fast, simd.as_mut_ptr()) };
        }
        portable::unpack(&words[(g0 + fast) * w..], width, rest);
        for (k, o) in out.iter_mut().enumerate().skip(head + groups * GROUP) {
            *o = get_unpadded(words, width, start + k);
        }
    }

    /// Writes the ids `start + i` (`i < n`) whose bit `i % 64` of `masks[i / 64]` is
    /// set into `out`, in order; returns their count — an unpack and a selection in one
    /// pass, without the unpacked morsel in memory. Bits past `n` are ignored. Panics
    /// (like a slice index) when the width is outside 1..=32, the ids run past `words`,
    /// `masks` holds fewer than `n` bits or `out` fewer than `n` entries.
    pub fn unpack_selected(
        &self,
        words: &[u64],
        width: u32,
        start: usize,
        n: usize,
        masks: &[u64],
        out: &mut [u32],
    ) -> usize {
        check(words, width, start, n);
        assert!(
            masks.len() * GROUP >= n && out.len() >= n,
            "{n} ids: {} masks, room for {}",
            masks.len(),
            out.len()
        );
        // Rows `from..n` one at a time, after `k` ids (`k <= from`: `out` has room).
        let tail = |from: usize, mut k: usize, out: &mut [u32]| {
            for i in from..n {
                out[k] = get_unpadded(words, width, start + i);
                k += ((masks[i / GROUP] >> (i % GROUP)) & 1) as usize;
            }
            k
        };
        if !start.is_multiple_of(GROUP) {
            return tail(0, 0, out);
        }
        let mut k = 0;
        let groups = n / GROUP;
        let g0 = start / GROUP;
        let w = width as usize;
        let fast = self.fast_groups(words, width, g0, groups);
        if fast > 0 {
            // SAFETY: groups g0..g0+fast and SLACK words after them lie in `words`
            // (fast_groups), `masks` holds `groups >= fast` words and `out` at least
            // `n >= fast * 64` entries (asserted), `width` is in 1..=32 (check), and
            // `BitKernels::new` / `Isa::best` checked the ISA against this CPU.
            k = unsafe {
                (self.unpack_selected)(
                    words[g0 * w..].as_ptr(),
                    width,
                    fast,
                    masks.as_ptr(),
                    out.as_mut_ptr(),
                )
            };
        }
        // `k <= fast * 64`, so `out[k..]` holds the `(groups - fast) * 64` the rest need.
        k += portable::unpack_selected(
            &words[(g0 + fast) * w..],
            width,
            &masks[fast..groups],
            &mut out[k..],
        );
        tail(groups * GROUP, k, out)
    }

    /// [`Self::test_mask`] with [`Pred::Range`].
    #[allow(clippy::too_many_arguments)]
    pub fn range_mask(
        &self,
        words: &[u64],
        width: u32,
        start: usize,
        n: usize,
        lo: u32,
        span: u32,
        masks: &mut [u64],
    ) {
        self.test_mask(words, width, start, n, Pred::Range { lo, span }, masks)
    }

    /// Bit `i % 64` of `masks[i / 64]`: whether id `start + i` passes `pred`, for
    /// `i < n`; bits past `n` are 0. `masks` holds `n.div_ceil(64)`.
    pub fn test_mask(
        &self,
        words: &[u64],
        width: u32,
        start: usize,
        n: usize,
        pred: Pred<'_>,
        masks: &mut [u64],
    ) {
        check(words, width, start, n);
        let masks = &mut masks[..n.div_ceil(GROUP)];
        let one;
        let runs: &[(u32, u32)] = match pred {
            Pred::Ranges(runs) if runs.is_empty() || runs.len() > FUSED_RUNS => {
                return self.ranges_mask(words, width, start, n, runs, masks);
            }
            Pred::Ranges(runs) => runs,
            Pred::Range { lo, span } => {
                one = [(lo, span)];
                &one
            }
            Pred::Bitmap(_) => &[],
        };
        let pass = |i: usize| u64::from(pred.passes(get_unpadded(words, width, start + i)));
        if !start.is_multiple_of(GROUP) {
            masks.fill(0);
            for i in 0..n {
                masks[i / GROUP] |= pass(i) << (i % GROUP);
            }
            return;
        }
        let groups = n / GROUP;
        let g0 = start / GROUP;
        let w = width as usize;
        if let Pred::Bitmap(b) = pred {
            if b.is_empty() {
                // No id passes; and the kernels need a bitmap to read.
                masks.fill(0);
                return;
            }
        }
        let fast = self.fast_groups(words, width, g0, groups);
        if fast > 0 {
            let src = words[g0 * w..].as_ptr();
            let out = masks.as_mut_ptr();
            // SAFETY: groups g0..g0+fast and SLACK words after them lie in `words`
            // (fast_groups), `masks` holds at least `groups >= fast` words, `width` is
            // in 1..=32 (check), a bitmap is non-empty and covers `bitmap_limit` bits,
            // ranges number 1..=FUSED_RUNS, and `BitKernels::new` / `Isa::best` checked
            // the ISA against this CPU.
            unsafe {
                match pred {
                    Pred::Range { .. } | Pred::Ranges(_) => {
                        (self.range)(src, width, fast, runs.as_ptr(), runs.len(), out)
                    }
                    Pred::Bitmap(b) => {
                        (self.bitmap)(src, width, fast, b.as_ptr(), bitmap_limit(b), out)
                    }
                }
            }
        }
        let rest = &words[(g0 + fast) * w..];
        let out = &mut masks[fast..groups];
        match pred {
            Pred::Range { .. } | Pred::Ranges(_) => portable::range(rest, width, runs, out),
            Pred::Bitmap(b) => portable::bitmap(rest, width, b, bitmap_limit(b), out),
        }
        if groups * GROUP < n {
            let mut m = 0;
            for i in groups * GROUP..n {
                m |= pass(i) << (i % GROUP);
            }
            masks[groups] = m;
        }
    }

    /// [`Self::test_mask`] of more than [`FUSED_RUNS`] ranges, or none: the first
    /// `FUSED_RUNS` into `masks`, each further pass of as many into a block on the
    /// stack, ORed in.
    fn ranges_mask(
        &self,
        words: &[u64],
        width: u32,
        start: usize,
        n: usize,
        runs: &[(u32, u32)],
        masks: &mut [u64],
    ) {
        let mut passes = runs.chunks(FUSED_RUNS);
        let Some(first) = passes.next() else {
            masks.fill(0);
            return;
        };
        self.test_mask(words, width, start, n, Pred::Ranges(first), masks);
        let mut block = [0u64; BLOCK];
        for chunk in passes {
            let mut i = 0;
            while i < n {
                let len = (n - i).min(BLOCK * GROUP);
                let block = &mut block[..len.div_ceil(GROUP)];
                self.test_mask(words, width, start + i, len, Pred::Ranges(chunk), block);
                // `i` is a multiple of the block's ids, so its masks start at word i / 64.
                for (m, b) in masks[i / GROUP..].iter_mut().zip(block.iter()) {
                    *m |= b;
                }
                i += len;
            }
        }
    }

    /// Writes the offsets `i < n` of the set bits of `masks` (bit `i % 64` of
    /// `masks[i / 64]`), ascending, into `sel`; returns their count. Panics when `masks`
    /// holds fewer than `n` bits or `sel` fewer than `n` entries, or `n` exceeds 2^32.
    pub fn mask_select(&self, masks: &[u64], n: usize, sel: &mut [u32]) -> usize {
        self.mask_select_of(masks, n, 0, sel)
    }

    /// [`Self::mask_select`] of a mask the caller knows holds `k` set bits: from one a
    /// word on average the AVX-512 kernel then compresses every word rather than skip
    /// the empty ones, about a third of them at random, on a branch that mispredicts
    /// (SF 10, two threads, Zen 5, alternated: R11, a mask at one row in sixty, 1.08x;
    /// R9's at one row in 125, where most words are empty, keeps the skip). A wrong `k`
    /// only picks the slower way.
    pub fn mask_select_of(&self, masks: &[u64], n: usize, k: usize, sel: &mut [u32]) -> usize {
        assert!(
            masks.len() * GROUP >= n && sel.len() >= n,
            "{n} bits: {} masks, {} offsets",
            masks.len(),
            sel.len()
        );
        assert!(u32::try_from(n).is_ok(), "{n} offsets do not fit u32");
        self.offsets(masks, n, 0, sel, k * GROUP >= n)
    }

    /// `base +` the offsets `i < n` of the set bits of `masks` into `sel`; their count,
    /// by the kernel that compresses `every` word or the one that skips empty ones.
    /// (The callers have checked that `base + n` fits u32.)
    #[inline]
    fn offsets(&self, masks: &[u64], n: usize, base: u32, sel: &mut [u32], every: bool) -> usize {
        let whole = n / GROUP;
        assert!(masks.len() >= whole && sel.len() >= whole * GROUP);
        let kernel = if every {
            self.select_every
        } else {
            self.select
        };
        // SAFETY: `masks` holds `whole` words and `sel` at least `whole * 64` entries
        // (asserted; the slices' own bounds check the tail below), and
        // `BitKernels::new` / `Isa::best` checked the ISA against this CPU.
        let mut k = unsafe { kernel(masks.as_ptr(), whole, base, sel.as_mut_ptr()) };
        if whole * GROUP < n {
            let m = masks[whole];
            for b in 0..n - whole * GROUP {
                // `k <= whole * 64 + b < n`.
                sel[k] = base + (whole * GROUP + b) as u32;
                k += ((m >> b) & 1) as usize;
            }
        }
        k
    }

    /// [`Self::select`] with [`Pred::Range`].
    pub fn select_range(
        &self,
        words: &[u64],
        width: u32,
        start: usize,
        lo: u32,
        span: u32,
        sel: &mut [u32],
    ) -> usize {
        self.select(words, width, start, Pred::Range { lo, span }, sel)
    }

    /// Writes the offsets `i` (ascending, `i < sel.len()`) of the ids `start + i` that
    /// pass `pred` into `sel`; returns their count. Offsets are `u32`: `sel` holds at
    /// most 2^32 entries.
    pub fn select(
        &self,
        words: &[u64],
        width: u32,
        start: usize,
        pred: Pred<'_>,
        sel: &mut [u32],
    ) -> usize {
        let n = sel.len();
        check(words, width, start, n);
        assert!(u32::try_from(n).is_ok(), "{n} offsets do not fit u32");
        if self.isa == Isa::Portable {
            return portable_select(words, width, start, pred, sel);
        }
        let mut masks = [0u64; BLOCK];
        let mut k = 0;
        let mut i = 0;
        while i < n {
            let len = (n - i).min(BLOCK * GROUP);
            let groups = len.div_ceil(GROUP);
            self.test_mask(words, width, start + i, len, pred, &mut masks);
            // `masks` holds `groups <= BLOCK` words (`len` bits); `k <= i`, so `sel[k..]`
            // holds at least `n - i >= len` entries; `i + len <= n` fits u32 (asserted).
            k += self.offsets(&masks[..groups], len, i as u32, &mut sel[k..], false);
            i += len;
        }
        k
    }
}
