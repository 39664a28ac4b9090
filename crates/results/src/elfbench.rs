//! The result document of the Elf selective-caching benchmark (`kind` `elfbench`):
//! settings, machine, build figures, q/s per query type and caching variant with the
//! baselines, the exact-match selectivity sweep (Fig. 5) and the cold runs (Fig. 4).
//! Ratios that cannot be computed (no hybrid run, a baseline that did no query) are
//! `null`, never NaN.

use serde::{Deserialize, Serialize};

use crate::header::Header;

/// The `kind` of the document.
pub const KIND: &str = crate::kind::ELFBENCH.name;
/// The format version this build writes and the newest it reads.
pub const FORMAT_VERSION: u32 = crate::kind::ELFBENCH.format_version;

/// Everything one `pmolap elf bench` measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchReport {
    /// Kind [`KIND`]; `partial` when the run was interrupted (SIGINT/SIGTERM) before it
    /// ended.
    #[serde(flatten)]
    pub header: Header,
    /// Seconds since the Unix epoch when the run started.
    pub started_unix: u64,
    pub params: Settings,
    pub build: BuildFigures,
    pub query_types: Vec<QueryTypeResult>,
    pub selectivity: Vec<SelectivityPoint>,
    /// Exact match with the index file's pages dropped first (empty with `--no-cold`).
    pub cold: Vec<ColdRun>,
}

/// The benchmark's settings as run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Settings {
    pub rows: usize,
    pub dims: usize,
    pub max_value: u32,
    pub seed: u64,
    /// The persistent tier (`file:DIR`).
    pub tier: String,
    pub exact_queries: usize,
    pub range_queries: usize,
    pub window: usize,
    pub range_selectivity: f64,
    pub cache_bytes: usize,
    pub max_secs: f64,
}

/// Build times and sizes of the index and the baselines.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BuildFigures {
    pub tier: String,
    pub elf_seconds: f64,
    pub elf_bytes: usize,
    pub column_scan_seconds: f64,
    pub column_scan_bytes: usize,
    pub sorted_projection_seconds: f64,
    pub sorted_projection_bytes: usize,
}

/// One query type (`exact`, `range`, `partial`): every variant and the baselines.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct QueryTypeResult {
    pub query_type: String,
    pub tier: String,
    /// Queries in the stream (a variant may stop earlier at the time limit).
    pub queries: usize,
    pub variants: Vec<VariantResult>,
    pub baselines: Vec<BaselineResult>,
    pub pm_speedup_over_column_scan: Option<f64>,
    pub pm_speedup_over_sorted_projection: Option<f64>,
}

/// One caching variant on one query stream.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct VariantResult {
    pub variant: String,
    pub queries: usize,
    pub seconds: f64,
    pub qps: f64,
    /// The median of the per-window q/s (the overall q/s with fewer than 3 windows).
    pub qps_median_window: f64,
    pub relative_to_hybrid: Option<f64>,
    pub speedup_over_column_scan: Option<f64>,
    pub speedup_over_sorted_projection: Option<f64>,
    /// Queries per window of [`qps_per_window`](Self::qps_per_window).
    pub window_queries: usize,
    pub qps_per_window: Vec<f64>,
    pub dram_hits: u64,
    pub pm_reads: u64,
    pub hit_ratio: f64,
    pub admitted: u64,
    pub evicted: u64,
    pub dram_bytes: usize,
    pub setup_seconds: f64,
    pub result_rows: u64,
}

/// A column scan or the sorted projection on the same queries (a prefix of them).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BaselineResult {
    pub name: String,
    pub tier: String,
    pub queries: usize,
    pub qps: f64,
    pub result_rows: u64,
}

/// Exact match with keys drawn from a fraction of the tuples (Fig. 5).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SelectivityPoint {
    pub fraction_of_tuples: f64,
    pub tier: String,
    pub variants: Vec<SelectivityVariant>,
}

/// One variant at one selectivity.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SelectivityVariant {
    pub variant: String,
    pub qps: f64,
    pub hit_ratio: f64,
}

/// One variant with the index file's pages dropped from the page cache first (Fig. 4).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ColdRun {
    pub variant: String,
    pub tier: String,
    pub setup_seconds: f64,
    pub queries: usize,
    pub qps: f64,
    pub window_queries: usize,
    pub qps_per_window: Vec<f64>,
    pub hit_ratio: f64,
}
