//! CPU features that decide which kernels and flush instructions can run.

use serde::{Deserialize, Serialize};

/// Environment variable naming CPU features to treat as absent (see [`CpuFeatures::detect`]).
pub const HIDE_ENV: &str = "PMOLAP_HIDE_CPU_FEATURES";

/// The instruction-set features pmolap cares about.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuFeatures {
    pub avx512f: bool,
    pub avx2: bool,
    pub clwb: bool,
    pub clflushopt: bool,
    /// `clflush` is part of SSE2 on every x86-64 CPU, but is still recorded.
    pub clflush: bool,
    pub movdir64b: bool,
}

impl CpuFeatures {
    /// The features of the CPU this process runs on, as the CPU reports them (CPUID),
    /// less any named in the environment variable [`HIDE_ENV`] (comma-separated, e.g.
    /// `avx512f,clwb`): that runs and tests the AVX2 or clflushopt paths on a CPU that
    /// has more. Features can only be hidden, never added.
    pub fn detect() -> Self {
        let mut f = Self::detect_raw();
        if let Ok(hide) = std::env::var(HIDE_ENV) {
            for name in hide.split(',').map(str::trim) {
                match name {
                    "avx512f" => f.avx512f = false,
                    "avx2" => f.avx2 = false,
                    "clwb" => f.clwb = false,
                    "clflushopt" => f.clflushopt = false,
                    "movdir64b" => f.movdir64b = false,
                    _ => {}
                }
            }
        }
        f
    }

    fn detect_raw() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            CpuFeatures {
                avx512f: std::arch::is_x86_feature_detected!("avx512f"),
                avx2: std::arch::is_x86_feature_detected!("avx2"),
                clwb: cpuinfo_has("clwb"),
                clflushopt: cpuinfo_has("clflushopt"),
                clflush: true,
                movdir64b: cpuinfo_has("movdir64b"),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            CpuFeatures::default()
        }
    }

    /// Parses the `flags` line of `/proc/cpuinfo` (the part after the colon, or the whole line).
    pub fn from_cpuinfo_flags(flags: &str) -> Self {
        let flags = flags.split_once(':').map_or(flags, |(_, f)| f);
        let has = |name: &str| flags.split_whitespace().any(|f| f == name);
        CpuFeatures {
            avx512f: has("avx512f"),
            avx2: has("avx2"),
            clwb: has("clwb"),
            clflushopt: has("clflushopt"),
            clflush: has("clflush"),
            movdir64b: has("movdir64b"),
        }
    }

    /// The names of the features present, in a fixed order.
    pub fn names(&self) -> Vec<&'static str> {
        let all = [
            ("avx512f", self.avx512f),
            ("avx2", self.avx2),
            ("clwb", self.clwb),
            ("clflushopt", self.clflushopt),
            ("clflush", self.clflush),
            ("movdir64b", self.movdir64b),
        ];
        all.iter().filter(|(_, on)| *on).map(|(n, _)| *n).collect()
    }
}

/// Whether `/proc/cpuinfo` lists `flag` (used for flags `is_x86_feature_detected!` lacks).
#[cfg(target_arch = "x86_64")]
fn cpuinfo_has(flag: &str) -> bool {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("flags"))
                .map(|l| has_flag(l, flag))
        })
        .unwrap_or(false)
}

#[cfg(target_arch = "x86_64")]
fn has_flag(line: &str, flag: &str) -> bool {
    line.split_whitespace().any(|f| f == flag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_flags_line() {
        let f = CpuFeatures::from_cpuinfo_flags("flags\t\t: fpu sse2 clflush avx2 clwb");
        assert!(f.avx2 && f.clwb && f.clflush);
        assert!(!f.avx512f && !f.clflushopt && !f.movdir64b);
        assert_eq!(f.names(), vec!["avx2", "clwb", "clflush"]);
    }
}
