//! The `pg-tpch` result document of `pmolap pg tpch` (docs/pg.md describes every field) and the summary
//! computed from it: per query the median seconds per tier, cold and warm, and each
//! tier's speedup over the slowest tier.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::header::Header;

/// The document kind.
pub const KIND: &str = crate::kind::PG_TPCH.name;
/// Newest format version written and read.
pub const FORMAT_VERSION: u32 = crate::kind::PG_TPCH.format_version;

/// What is known about the storage behind a tier path.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DeviceInfo {
    /// The path as given.
    pub path: PathBuf,
    pub mount_point: PathBuf,
    /// `/proc/mounts` source (`/dev/vda`, `tmpfs`).
    pub device: String,
    pub fs_type: String,
    pub mount_options: String,
    /// `/sys/block/<dev>/device/model` (or vendor), when the device has one.
    pub model: Option<String>,
    /// `/sys/block/<dev>/queue/rotational`.
    pub rotational: Option<bool>,
    /// Free bytes when checked.
    pub free_bytes: u64,
}

/// How a cold run dropped the tier's files from the page cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ColdMethod {
    /// `syncfs` + `posix_fadvise(DONTNEED)` on every file of the data directory and the
    /// tier's tablespace.
    Fadvise,
    /// Nothing could be dropped: the "cold" runs are warm and are labelled so.
    None,
}

/// The whole run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TpchReport {
    /// Kind `pg-tpch`; `partial` when interrupted: only the queries that finished are in
    /// it.
    #[serde(flatten)]
    pub header: Header,
    pub config: TpchConfig,
    pub server: ServerInfo,
    pub load: LoadSummary,
    pub tiers: Vec<TierRun>,
    /// One per query run: its answer (identical on every tier and repetition).
    pub answers: Vec<Answer>,
    /// Wall seconds of the whole command (generation, loads, queries, teardown excluded).
    pub seconds_total: f64,
}

/// What was asked.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TpchConfig {
    pub sf: f64,
    pub tier_paths: Vec<PathBuf>,
    pub reps: usize,
    pub queries: Vec<u32>,
    /// Parallel COPY streams (and index-build connections).
    pub streams: usize,
    /// Where the run directory (data directory, socket, generated files) was made.
    pub work_dir: PathBuf,
}

/// The server and its settings.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ServerInfo {
    /// `postgres --version`.
    pub version: String,
    /// The user the server ran as (`postgres` when pmolap ran as root).
    pub run_as: String,
    pub settings: Vec<Setting>,
    /// The run directory's device (data directory, WAL, catalog).
    pub work_device: DeviceInfo,
}

/// One server setting.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Setting {
    pub name: String,
    pub value: String,
}

/// Generation and the load comparison.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LoadSummary {
    /// Rows of all eight tables.
    pub rows: u64,
    /// Bytes of the generated `.tbl` files.
    pub tbl_bytes: u64,
    pub generate_seconds: f64,
    /// The single-stream `psql \copy` of the same files into the first tier (no indexes);
    /// `None` when skipped.
    pub psql_copy_seconds: Option<f64>,
    /// The parallel COPY into the first tier (no indexes yet), measured in the same run.
    pub parallel_copy_seconds: f64,
}

impl LoadSummary {
    /// Rows per second of the parallel COPY into the first tier.
    pub fn parallel_rows_per_s(&self) -> f64 {
        self.rows as f64 / self.parallel_copy_seconds.max(1e-9)
    }

    /// Rows per second of the `psql \copy` baseline.
    pub fn psql_rows_per_s(&self) -> Option<f64> {
        self.psql_copy_seconds
            .map(|s| self.rows as f64 / s.max(1e-9))
    }
}

/// Everything measured on one tier.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TierRun {
    /// Short name for tables (`/dev/shm (tmpfs)`).
    pub name: String,
    pub device: DeviceInfo,
    pub cold_method: ColdMethod,
    /// What dropping the cache did or why it could not (one line).
    pub cold_note: String,
    pub copy_seconds: f64,
    pub index_seconds: f64,
    pub vacuum_analyze_seconds: f64,
    /// `pg_database_size` after loading.
    pub database_bytes: u64,
    pub queries: Vec<QueryRun>,
}

impl TierRun {
    /// Rows per second of this tier's parallel COPY.
    pub fn copy_rows_per_s(&self, rows: u64) -> f64 {
        rows as f64 / self.copy_seconds.max(1e-9)
    }

    /// Whether the cold runs really were cold.
    pub fn cold_is_cold(&self) -> bool {
        self.cold_method != ColdMethod::None
    }
}

/// One query on one tier: every repetition.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct QueryRun {
    pub query: u32,
    /// Seconds of each cold run (server restarted, tier files dropped from the cache).
    pub cold_seconds: Vec<f64>,
    /// Seconds of each warm run (repeated at once after the cold one).
    pub warm_seconds: Vec<f64>,
    /// The plan's top node (`EXPLAIN (FORMAT JSON)`).
    pub top_node: String,
}

impl QueryRun {
    pub fn cold_median(&self) -> f64 {
        median(&self.cold_seconds)
    }

    pub fn warm_median(&self) -> f64 {
        median(&self.warm_seconds)
    }
}

/// A query's answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Answer {
    pub query: u32,
    pub rows: u64,
    /// MD5 (hex) of the answer's rows as text, sorted (order-independent).
    pub digest: String,
    /// The first rows (up to [`HEAD_ROWS`]) as text, `None` for NULL.
    pub head: Vec<Vec<Option<String>>>,
}

/// Rows kept in [`Answer::head`].
pub const HEAD_ROWS: usize = 5;

pub use crate::stats::median;

/// One row of the per-query table.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryRow {
    pub query: u32,
    /// Per tier (document order): median cold and warm seconds.
    pub cold: Vec<f64>,
    pub warm: Vec<f64>,
    /// Per tier: slowest tier's median over this tier's, cold and warm.
    pub cold_speedup: Vec<f64>,
    pub warm_speedup: Vec<f64>,
}

/// Per tier: the mean of its per-query speedups over the slowest tier, cold and warm,
/// its total seconds, and the ratio of totals (the slowest tier's total over this
/// tier's: the paper's 4.2x is this one) with its range and noise verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct TierSummary {
    pub tier: String,
    pub cold_avg_speedup: f64,
    pub warm_avg_speedup: f64,
    pub cold_total: f64,
    pub warm_total: f64,
    /// Total seconds over the queries every tier finished: median, min–max sums.
    pub cold_total_spread: Option<crate::stats::Spread>,
    pub warm_total_spread: Option<crate::stats::Spread>,
    /// The slowest tier's total over this tier's (`stats::Ratio`).
    pub cold_total_speedup: Option<crate::stats::Ratio>,
    pub warm_total_speedup: Option<crate::stats::Ratio>,
}

impl TpchReport {
    /// The per-query table over the queries every tier finished.
    pub fn rows(&self) -> Vec<QueryRow> {
        let Some(first) = self.tiers.first() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for q in first.queries.iter().map(|q| q.query) {
            let runs: Option<Vec<&QueryRun>> = self
                .tiers
                .iter()
                .map(|t| t.queries.iter().find(|r| r.query == q))
                .collect();
            let Some(runs) = runs else { continue };
            let cold: Vec<f64> = runs.iter().map(|r| r.cold_median()).collect();
            let warm: Vec<f64> = runs.iter().map(|r| r.warm_median()).collect();
            let speed = |v: &[f64]| {
                let slowest = v.iter().copied().fold(0.0, f64::max);
                v.iter().map(|x| slowest / x.max(1e-9)).collect::<Vec<_>>()
            };
            out.push(QueryRow {
                query: q,
                cold_speedup: speed(&cold),
                warm_speedup: speed(&warm),
                cold,
                warm,
            });
        }
        out
    }

    /// Per-tier averages of [`TpchReport::rows`], and the ratios of totals.
    pub fn summary(&self) -> Vec<TierSummary> {
        use crate::stats::{Ratio, Spread};
        let rows = self.rows();
        let n = rows.len().max(1) as f64;
        // Per tier, the total over the rows' queries as a spread.
        let total = |t: &TierRun, f: fn(&QueryRun) -> &Vec<f64>| {
            let parts: Option<Vec<Spread>> = rows
                .iter()
                .map(|r| Spread::of(f(t.queries.iter().find(|q| q.query == r.query)?)))
                .collect();
            Spread::sum(&parts?)
        };
        let cold: Vec<Option<Spread>> = self
            .tiers
            .iter()
            .map(|t| total(t, |q| &q.cold_seconds))
            .collect();
        let warm: Vec<Option<Spread>> = self
            .tiers
            .iter()
            .map(|t| total(t, |q| &q.warm_seconds))
            .collect();
        let slowest = |v: &[Option<Spread>]| {
            v.iter()
                .flatten()
                .copied()
                .max_by(|a, b| a.median.total_cmp(&b.median))
        };
        let (cold_slow, warm_slow) = (slowest(&cold), slowest(&warm));
        let speedup = |slow: Option<Spread>, this: Option<Spread>| Ratio::of(&slow?, &this?);
        self.tiers
            .iter()
            .enumerate()
            .map(|(i, t)| TierSummary {
                tier: t.name.clone(),
                cold_avg_speedup: rows.iter().map(|r| r.cold_speedup[i]).sum::<f64>() / n,
                warm_avg_speedup: rows.iter().map(|r| r.warm_speedup[i]).sum::<f64>() / n,
                cold_total: rows.iter().map(|r| r.cold[i]).sum(),
                warm_total: rows.iter().map(|r| r.warm[i]).sum(),
                cold_total_spread: cold[i],
                warm_total_spread: warm[i],
                cold_total_speedup: speedup(cold_slow, cold[i]),
                warm_total_speedup: speedup(warm_slow, warm[i]),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ratio of totals (the paper's 4.2x) from a recorded run: one repetition has no
    /// spread to judge by; three separate ones are a finding; the same times on both
    /// tiers are within noise.
    #[test]
    fn the_ratio_of_totals_carries_its_noise_verdict() {
        use crate::stats::Verdict;
        let text = include_str!("../../../docs/runs/pg-tpch-sf1-20261124.json");
        let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
        let doc: TpchReport = serde_json::from_value(v.clone()).unwrap();
        let s = doc.summary();
        let fast = s[0].cold_total_speedup.unwrap();
        assert!((fast.ratio - s[1].cold_total / s[0].cold_total).abs() < 1e-9);
        assert!(fast.ratio > 1.5, "{fast:?}");
        assert_eq!(fast.verdict, Verdict::Unknown);
        assert!((s[1].cold_total_speedup.unwrap().ratio - 1.0).abs() < 1e-12);
        // Three repetitions, ±1 %: the tiers' totals are far apart.
        let spread_out = |v: &mut serde_json::Value, same: bool| {
            let first: Vec<f64> = v["tiers"][0]["queries"]
                .as_array()
                .unwrap()
                .iter()
                .map(|q| q["cold_seconds"][0].as_f64().unwrap())
                .collect();
            for t in v["tiers"].as_array_mut().unwrap() {
                for (i, q) in t["queries"].as_array_mut().unwrap().iter_mut().enumerate() {
                    let x = if same {
                        first[i]
                    } else {
                        q["cold_seconds"][0].as_f64().unwrap()
                    };
                    q["cold_seconds"] = serde_json::json!([x * 0.99, x, x * 1.01]);
                }
            }
        };
        spread_out(&mut v, false);
        let doc: TpchReport = serde_json::from_value(v.clone()).unwrap();
        let r = doc.summary()[0].cold_total_speedup.unwrap();
        assert_eq!(r.verdict, Verdict::Outside, "{r:?}");
        assert!(!r.display().contains("noise"));
        spread_out(&mut v, true);
        let doc: TpchReport = serde_json::from_value(v).unwrap();
        let r = doc.summary()[0].cold_total_speedup.unwrap();
        assert_eq!(r.verdict, Verdict::WithinNoise, "{r:?}");
        assert_eq!(r.display(), "1.00x (within noise)");
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[]), 0.0);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
