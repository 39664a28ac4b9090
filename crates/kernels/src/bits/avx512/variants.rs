//! The AVX-512 kernels the dispatch table names: each generic kernel of `avx512.rs`
//! compiled for the `vpermt2d` unpacker (`avx512f`) and for the `vpermb` one
//! (`avx512vbmi`, ids of up to [`VBMI_MAX_WIDTH`] bits; wider ones take the `vpermt2d`
//! unpacker there too), and the VBMI entries that send ids of at most 8 bits to the
//! byte kernels (`bytes.rs`).

use super::bytes;
use super::*;

macro_rules! variants {
    ($($name:ident, $vbmi:ident, $generic:ident [$($perm:ty),*] [$($vb:ty),*] when ($fits:expr)
        ($($arg:ident: $ty:ty),*) $(-> $ret:ty)?;)*) => {$(
        /// # Safety
        #[doc = concat!("As [`", stringify!($generic), "`]; the CPU has avx512f.")]
        #[target_feature(enable = "avx512f,popcnt")]
        pub(in crate::bits) unsafe fn $name($($arg: $ty),*) $(-> $ret)? {
            // SAFETY: the caller's contract.
            unsafe { $generic::<$($perm),*>($($arg),*) }
        }

        /// # Safety
        #[doc = concat!("As [`", stringify!($generic), "`]; the CPU has avx512f, avx512bw and avx512vbmi.")]
        #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
        pub(in crate::bits) unsafe fn $vbmi($($arg: $ty),*) $(-> $ret)? {
            // SAFETY: the caller's contract; `Vbmi` only up to its widest ids.
            unsafe {
                if $fits {
                    $generic::<$($vb),*>($($arg),*)
                } else {
                    $generic::<$($perm),*>($($arg),*)
                }
            }
        }
    )*};
}

variants! {
    unpack, unpack_vbmi, unpack_q [Perm] [Vbmi] when (width <= VBMI_MAX_WIDTH)
        (src: *const u64, width: u32, groups: usize, out: *mut u32);
    unpack_selected, unpack_selected_vbmi, unpack_selected_q [Perm] [Vbmi]
        when (width <= VBMI_MAX_WIDTH)
        (src: *const u64, width: u32, groups: usize, masks: *const u64, out: *mut u32) -> usize;
    range, range_dwords_vbmi, range_q [Perm] [Vbmi] when (width <= VBMI_MAX_WIDTH)
        (src: *const u64, width: u32, groups: usize, runs: *const (u32, u32), nruns: usize,
         out: *mut u64);
    bitmap, bitmap_dwords_vbmi, bitmap_q [Perm] [Vbmi] when (width <= VBMI_MAX_WIDTH)
        (src: *const u64, width: u32, groups: usize, bitmap: *const u64, limit: u32, out: *mut u64);
    sum_packed, sum_packed_dwords_vbmi, sum_packed_q [Perm] [Vbmi] when (width <= VBMI_MAX_WIDTH)
        (src: *const u64, width: u32, groups: usize, masks: *const u64) -> u64;
    min_max_packed, min_max_packed_dwords_vbmi, min_max_packed_q [Perm] [Vbmi]
        when (width <= VBMI_MAX_WIDTH)
        (src: *const u64, width: u32, groups: usize, masks: *const u64) -> (u32, u32);
    dot_packed, dot_packed_vbmi, dot_packed_q [Perm, Perm] [Vbmi, Vbmi]
        when (wa.max(wb) <= VBMI_MAX_WIDTH)
        (a: *const u64, wa: u32, b: *const u64, wb: u32, groups: usize, masks: *const u64)
        -> (u64, u64);
    min_max_pair_packed, min_max_pair_packed_vbmi, min_max_pair_packed_q [Perm, Perm] [Vbmi, Vbmi]
        when (wa.max(wb) <= VBMI_MAX_WIDTH)
        (a: *const u64, wa: u32, b: *const u64, wb: u32, groups: usize, masks: *const u64, op: Pair)
        -> (i64, i64);
}

/// # Safety
/// As [`range_q`]; the CPU has avx512f, avx512bw and avx512vbmi.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
pub(in crate::bits) unsafe fn range_vbmi(
    src: *const u64,
    width: u32,
    groups: usize,
    runs: *const (u32, u32),
    nruns: usize,
    out: *mut u64,
) {
    // SAFETY: the caller's contract (`runs` holds `nruns >= 1` pairs); bytes only for
    // one range over ids of up to 8 bits that does not wrap in a byte (then
    // `id - lo <= span` is the same in 8 and 32 bits for every id below 256).
    unsafe {
        let (lo, span) = *runs;
        match (u8::try_from(lo), u8::try_from(span)) {
            (Ok(l), Ok(sp))
                if nruns == 1 && width <= bytes::MAX_WIDTH && l.checked_add(sp).is_some() =>
            {
                bytes::range(src, width, groups, l, sp, out)
            }
            _ => range_dwords_vbmi(src, width, groups, runs, nruns, out),
        }
    }
}

/// # Safety
/// As [`bitmap_q`]; the CPU has avx512f, avx512bw and avx512vbmi.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
pub(in crate::bits) unsafe fn bitmap_vbmi(
    src: *const u64,
    width: u32,
    groups: usize,
    bitmap: *const u64,
    limit: u32,
    out: *mut u64,
) {
    if width > bytes::MAX_WIDTH {
        // SAFETY: the caller's contract.
        unsafe { bitmap_dwords_vbmi(src, width, groups, bitmap, limit, out) };
        return;
    }
    // Every id of 8 bits, the bits from `limit` up clear (those ids fail).
    let mut table = [0u8; 32];
    let covered = limit.min(256) as usize;
    // SAFETY: the caller's contract: `bitmap` is readable for `limit.div_ceil(32)`
    // dwords, so for the `covered.div_ceil(8)` bytes copied.
    unsafe {
        std::ptr::copy_nonoverlapping(bitmap.cast::<u8>(), table.as_mut_ptr(), covered.div_ceil(8))
    };
    if !covered.is_multiple_of(8) {
        table[covered / 8] &= (1u8 << (covered % 8)) - 1;
    }
    // SAFETY: the caller's contract; ids of up to 8 bits.
    unsafe { bytes::bitmap(src, width, groups, &table, out) }
}

/// # Safety
/// As [`sum_packed_q`]; the CPU has avx512f, avx512bw and avx512vbmi.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
pub(in crate::bits) unsafe fn sum_packed_vbmi(
    src: *const u64,
    width: u32,
    groups: usize,
    masks: *const u64,
) -> u64 {
    // SAFETY: the caller's contract; bytes only for ids of up to 8 bits.
    unsafe {
        if width <= bytes::MAX_WIDTH {
            bytes::sum_packed(src, width, groups, masks)
        } else {
            sum_packed_dwords_vbmi(src, width, groups, masks)
        }
    }
}

/// # Safety
/// As [`min_max_packed_q`]; the CPU has avx512f, avx512bw and avx512vbmi.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
pub(in crate::bits) unsafe fn min_max_packed_vbmi(
    src: *const u64,
    width: u32,
    groups: usize,
    masks: *const u64,
) -> (u32, u32) {
    // SAFETY: the caller's contract; bytes only for ids of up to 8 bits.
    unsafe {
        if width <= bytes::MAX_WIDTH {
            bytes::min_max_packed(src, width, groups, masks)
        } else {
            min_max_packed_dwords_vbmi(src, width, groups, masks)
        }
    }
}
