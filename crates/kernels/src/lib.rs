//! The packed value-id layout and the kernels that compute on it.
//!
//! [`bitpack`] defines the layout once (ids of width 1..=32 packed into `u64` words in
//! groups of 64, one padding word) with its packing code and its one width dispatch;
//! [`bits`] holds the engine's bit kernels that unpack, test and select packed ids and
//! loop over the values decoded from them, in AVX-512, AVX2 and portable variants, the
//! widest this CPU has chosen once per process ([`pmolap_tier::CpuFeatures`],
//! [`pmolap_tier::kernel::Isa`]); [`prefetch`] the software prefetch they and the
//! engine's hash probes use. Like `pmolap-tier` (mmap, NUMA, flush instructions) and
//! `pmolap-os` (signal handlers), a crate with `unsafe` code: SIMD intrinsics, each
//! `unsafe` block with a `// SAFETY:` line.

pub mod bitpack;
pub mod bits;
pub mod prefetch;
