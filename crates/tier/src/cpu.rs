//! CPU features that decide which kernels and flush instructions can run.

use serde::{Deserialize, Serialize};

/// Environment variable naming CPU features to treat as absent (see [`CpuFeatures::detect`]).
pub const HIDE_ENV: &str = "PMOLAP_HIDE_CPU_FEATURES";

/// The instruction-set features pmolap cares about.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuFeatures {
    /// AVX-512 Foundation, with POPCNT (which every CPU with AVX-512 or AVX2 has, and
    /// the bit kernels count masks with): reported only when both are there.
    pub avx512f: bool,
    /// AVX-512 VBMI and BW (`vpermb`, a byte permute across the register; byte compares),
    /// used by the bit kernels to unpack ids of up to 25 bits (absent from documents
    /// before it was kept).
    #[serde(default)]
    pub avx512vbmi: bool,
    /// AVX2, with POPCNT (as for `avx512f`).
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
        // What the CPU reports does not change while the process runs: read it once
        // (`/proc/cpuinfo` three times otherwise, on every region made).
        static RAW: std::sync::OnceLock<CpuFeatures> = std::sync::OnceLock::new();
        let mut f = *RAW.get_or_init(Self::detect_raw);
        if let Ok(hide) = std::env::var(HIDE_ENV) {
            for name in hide.split(',').map(str::trim) {
                match name {
                    // VBMI is an extension of AVX-512F: hidden with it.
                    "avx512f" => (f.avx512f, f.avx512vbmi) = (false, false),
                    "avx512vbmi" => f.avx512vbmi = false,
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
            // One read of the flags line for the three features CPUID detection in std
            // does not cover.
            let flags = cpuinfo_flags();
            let cpuinfo_has = |flag: &str| has_flag(&flags, flag);
            CpuFeatures {
                avx512f: std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("popcnt"),
                avx512vbmi: std::arch::is_x86_feature_detected!("avx512vbmi")
                    && std::arch::is_x86_feature_detected!("avx512bw"),
                avx2: std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("popcnt"),
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
            avx512f: has("avx512f") && has("popcnt"),
            avx512vbmi: has("avx512vbmi") && has("avx512bw"),
            avx2: has("avx2") && has("popcnt"),
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
            ("avx512vbmi", self.avx512vbmi),
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
/// The `flags` line of `/proc/cpuinfo` (empty when it cannot be read).
#[cfg(target_arch = "x86_64")]
fn cpuinfo_flags() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("flags"))
                .map(str::to_string)
        })
        .unwrap_or_default()
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
        let f = CpuFeatures::from_cpuinfo_flags("flags\t\t: fpu sse2 popcnt clflush avx2 clwb");
        assert!(f.avx2 && f.clwb && f.clflush);
        // The kernels count masks with POPCNT: AVX2 or AVX-512 without it is not offered.
        let g = CpuFeatures::from_cpuinfo_flags("flags\t\t: fpu sse2 avx2 avx512f");
        assert!(!g.avx2 && !g.avx512f);
        assert!(!f.avx512f && !f.clflushopt && !f.movdir64b);
        assert_eq!(f.names(), vec!["avx2", "clwb", "clflush"]);
    }
}

/// The cache sizes the placement model needs (`S_LLC` = L3 + every core's L2), read from
/// `/sys/devices/system/cpu/cpuN/cache/index*` (`level`, `type`, `size`) of CPU 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheSizes {
    /// Bytes of L2 per core (unified), if the kernel reports it.
    pub l2_per_core: Option<u64>,
    /// Bytes of the L3 CPU 0 shares, if the kernel reports it.
    pub l3_shared: Option<u64>,
}

impl CacheSizes {
    /// Reads CPU 0's caches under `root` (normally `/`).
    pub fn detect_at(root: &std::path::Path) -> CacheSizes {
        let mut c = CacheSizes::default();
        let base = root.join("sys/devices/system/cpu/cpu0/cache");
        let Ok(rd) = std::fs::read_dir(&base) else {
            return c;
        };
        for e in rd.flatten() {
            let read = |f: &str| std::fs::read_to_string(e.path().join(f)).unwrap_or_default();
            let (level, ty, size) = (read("level"), read("type"), read("size"));
            let Some(bytes) = parse_cache_size(size.trim()) else {
                continue;
            };
            if ty.trim() == "Instruction" {
                continue;
            }
            match level.trim() {
                "2" => c.l2_per_core = Some(bytes),
                "3" => c.l3_shared = Some(bytes),
                _ => {}
            }
        }
        c
    }

    /// `S_LLC` for `cores` physical cores and `sockets` sockets: every socket's L3 plus
    /// every core's L2 (None when the kernel reports neither).
    pub fn llc_bytes(&self, cores: usize, sockets: usize) -> Option<u64> {
        if self.l2_per_core.is_none() && self.l3_shared.is_none() {
            return None;
        }
        Some(
            self.l3_shared.unwrap_or(0) * sockets.max(1) as u64
                + self.l2_per_core.unwrap_or(0) * cores.max(1) as u64,
        )
    }
}

/// `32K`, `512K`, `32768K`, `1M` or plain bytes.
fn parse_cache_size(s: &str) -> Option<u64> {
    let (num, mult) = match s.as_bytes().last()? {
        b'K' => (&s[..s.len() - 1], 1u64 << 10),
        b'M' => (&s[..s.len() - 1], 1 << 20),
        b'G' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<u64>().ok().map(|n| n * mult)
}

#[cfg(test)]
mod cache_tests {
    use super::*;

    #[test]
    fn cache_sizes_from_a_fixture_tree() {
        let d = tempfile::tempdir().unwrap();
        for (i, level, ty, size) in [
            (0, "1", "Data", "32K"),
            (1, "1", "Instruction", "32K"),
            (2, "2", "Unified", "512K"),
            (3, "3", "Unified", "32768K"),
        ] {
            let p = d
                .path()
                .join(format!("sys/devices/system/cpu/cpu0/cache/index{i}"));
            std::fs::create_dir_all(&p).unwrap();
            std::fs::write(p.join("level"), level).unwrap();
            std::fs::write(p.join("type"), ty).unwrap();
            std::fs::write(p.join("size"), size).unwrap();
        }
        let c = CacheSizes::detect_at(d.path());
        assert_eq!(c.l2_per_core, Some(512 << 10));
        assert_eq!(c.l3_shared, Some(32 << 20));
        assert_eq!(c.llc_bytes(2, 1), Some((32 << 20) + 2 * (512 << 10)));
        assert_eq!(
            CacheSizes::detect_at(&d.path().join("none")).llc_bytes(2, 1),
            None
        );
    }
}
