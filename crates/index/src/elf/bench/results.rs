//! The result document of the Elf selective-caching benchmark (`kind` `elfbench`),
//! defined in `pmolap_results::elfbench` (the report reads it from there).

pub use pmolap_results::elfbench::*;

/// `x` when it is a finite number (a ratio over a zero or NaN is `None`).
pub(crate) fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}
