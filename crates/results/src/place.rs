//! The `place-validate` document of `pmolap place validate` (the placement model's
//! predictions against measurements on the machine's real tiers), and the placement
//! settings it records ([`Setting`], [`Granularity`]).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::header::Header;
use crate::Detail;

/// The format version of the document.
pub const FORMAT_VERSION: u32 = crate::kind::PLACE_VALIDATE.format_version;

/// What moves together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Granularity {
    /// Each dictionary, data vector and inverted index on its own (the paper's default).
    #[default]
    Structure,
    /// All structures of a column together.
    Column,
    /// All structures of a table together.
    Table,
}

impl std::str::FromStr for Granularity {
    type Err = crate::Error;
    fn from_str(s: &str) -> crate::Result<Self> {
        match s {
            "structure" => Ok(Granularity::Structure),
            "column" => Ok(Granularity::Column),
            "table" => Ok(Granularity::Table),
            _ => Err(crate::Error::Invalid(format!(
                "granularity `{s}`: use structure, column or table"
            ))),
        }
    }
}

/// The smallest page cache bound `cache:SIZE` takes: the memory cgroup's limit is SIZE
/// plus the queries' working memory measured on the all-DRAM placement, and what a run
/// allocates beyond that measurement (page tables, kernel memory, allocator arenas) must
/// fit in the reclaimable page cache or the kernel's OOM killer ends the run without a
/// word (2026-11-27: `cache:1MiB` at SF 0.01 was killed in 1 of 4 runs).
pub const MIN_CACHE_BYTES: u64 = 8 << 20;

/// How the slow tier's pages are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Setting {
    /// Pages dropped before every query.
    Cold,
    /// The page cache bounded by a memory cgroup, kept between queries.
    Cache { bytes: u64 },
}

impl std::str::FromStr for Setting {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        if s == "cold" {
            return Ok(Setting::Cold);
        }
        match s.strip_prefix("cache:") {
            Some(size) => match crate::size::parse_size(size)? {
                b if b < MIN_CACHE_BYTES => Err(format!(
                    "setting `{s}`: the page cache bound must be at least {} MiB (below that the queries' own memory, which shares the memory cgroup's limit, varies by more than the bound and the kernel kills the run)",
                    MIN_CACHE_BYTES >> 20
                )),
                bytes => Ok(Setting::Cache { bytes }),
            },
            None => Err(format!(
                "setting `{s}`: use `cold` (pages dropped before each query) or `cache:SIZE` (page cache bounded by a memory cgroup)"
            )),
        }
    }
}

impl std::fmt::Display for Setting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Setting::Cold => f.write_str("cold"),
            Setting::Cache { bytes } => write!(f, "cache:{bytes}"),
        }
    }
}

/// The relative times the model variants predict.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct Predicted {
    /// The paper's model (Eq. 2–6, per access).
    pub paper: f64,
    /// No-Cache ablation (CMR ≡ 1).
    pub no_cmr: f64,
    /// No-Dense ablation (dense lookups priced as random).
    pub no_dense: f64,
    /// The page model (profiles with page costs only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<f64>,
}

/// One query under one placement.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct QueryPoint {
    pub id: String,
    pub median_ms: f64,
    pub times_ms: Vec<f64>,
    /// Median / the all-DRAM placement's median.
    pub measured: f64,
    pub predicted: Predicted,
    /// What the device did per run (median over the runs; absent in older documents and
    /// where the kernel has no counters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io: Option<IoFigures>,
    /// What the page model says the device reads for it (page-granular profiles only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicted_io: Option<IoFigures>,
}

/// What the storage device did (or is predicted to do) for a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct IoFigures {
    /// Bytes read from storage: `/proc/self/io` `read_bytes` (submitted reads: mmap
    /// faults and the kernel's readahead of every thread).
    pub read_bytes: f64,
    /// Major faults (`getrusage` `ru_majflt`: faults that waited for a read).
    pub major_faults: f64,
}

impl IoFigures {
    /// The sum of `figs` (`None` if any is missing or there are none).
    pub fn sum<'a>(figs: impl IntoIterator<Item = Option<&'a IoFigures>>) -> Option<IoFigures> {
        let mut out: Option<IoFigures> = None;
        for f in figs {
            let f = f?;
            let o = out.get_or_insert_with(IoFigures::default);
            o.read_bytes += f.read_bytes;
            o.major_faults += f.major_faults;
        }
        out
    }
}

/// One placement: what it moves, what was measured, what the models predict.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ScenarioResult {
    pub name: String,
    /// The structures on the slow tier (`table.column.kind`), in the workload's order;
    /// absent in documents written before it was recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slow_structures: Vec<String>,
    /// Bytes on the slow tier and their share of all bytes (never-accessed included).
    pub slow_bytes: u64,
    pub slow_fraction: f64,
    /// Bytes on the slow tier of the structures the workload accesses, and their share
    /// of the accessed bytes (the headline share; absent in documents from before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slow_accessed_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slow_accessed_fraction: Option<f64>,
    /// Sum of the queries' medians / the sum of the all-DRAM medians measured beside it
    /// (the runs just before and just after this placement's).
    pub measured: f64,
    /// The models' relative times, `1 + ΔT / T_DRAM` with `T_DRAM` the all-DRAM time
    /// measured beside the placement (its `measured` divides by the same): the model
    /// prices `ΔT`, the slow tier's extra time; `T_DRAM` is measured. Documents written
    /// before 2026-11-27 11:00 divided by the workload's recorded `T_DRAM`.
    pub predicted: Predicted,
    /// What `place advise` promised for this placement: the advised model's relative
    /// time with the workload's recorded `T_DRAM` (absent in older documents: then
    /// `predicted`'s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub promised: Option<f64>,
    /// Behind a bounded cache, the promise's lowest and highest relative time with 10 %
    /// less and more of the cache the page model was given (a cliff of the miss curve
    /// shows as a wide range; absent cold, for other models and in older documents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub promised_band: Option<(f64, f64)>,
    /// The promise priced with the page costs the run sampled beside its placements
    /// (the profile calibrated with the run's samples, [`Calibration::used`]) instead of
    /// the workload's: the highest of the band behind a bounded cache, the prediction
    /// cold; relative to the recorded `T_DRAM` like `promised`. What the advice promised
    /// on the device as the run found it (absent where the run sampled no page costs and
    /// in older documents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub promised_run_costs: Option<f64>,
    pub queries: Vec<QueryPoint>,
    /// The sum over the queries of what the device did per run (absent in older
    /// documents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io: Option<IoFigures>,
    /// The page model's bytes read and faults, summed over the queries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicted_io: Option<IoFigures>,
    /// The page cache the run's memory cgroup held at the end of this placement's runs
    /// (`cache:` settings and the OS-alone baseline; absent otherwise and in older
    /// documents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_cache_bytes: Option<u64>,
    /// Which frames held the placement's structures and the reference's at the end of its
    /// runs (absent where the process may not read frame numbers and in older documents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frames: Option<FramesFigures>,
    /// An advised placement that is a baseline the model predicted faster than the
    /// solver's optimum at the same DRAM bytes: its kind (absent otherwise and in older
    /// documents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advice_baseline: Option<String>,
}

impl ScenarioResult {
    /// The headline share on the slow tier: of the accessed bytes where the document has
    /// it, else of all bytes (older documents).
    pub fn headline_fraction(&self) -> f64 {
        self.slow_accessed_fraction.unwrap_or(self.slow_fraction)
    }
}

/// Where a placement's pages lay in physical memory at the end of its runs
/// ([`pmolap_tier::frames`]): served from the page cache, reading costs more or less
/// than a DRAM copy with the frames that hold it (large folios, contiguous frames the TLB
/// coalesces, or single scattered pages).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FramesFigures {
    /// The structures on the slow tier, mapped from their files (the page cache's frames).
    pub mapped: pmolap_tier::frames::Frames,
    /// The placement's DRAM copies.
    pub copies: pmolap_tier::frames::Frames,
    /// The all-DRAM reference database's copies.
    pub reference: pmolap_tier::frames::Frames,
}

/// Absolute errors |predicted − measured| of one model variant.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ErrorSummary {
    pub model: String,
    /// Over the placements, whole workload.
    pub workload_median: f64,
    pub workload_max: f64,
    /// Over every (placement, query).
    pub query_median: f64,
    pub query_max: f64,
}

/// The memory cgroup of a `cache:` run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CgroupFigures {
    /// The queries' own working memory, measured on the all-DRAM placement.
    pub working_bytes: u64,
    /// The limit set: the cache bound plus the working memory.
    pub limit_bytes: u64,
    /// Largest page cache seen at the end of a placement's runs.
    pub max_page_cache_bytes: u64,
    /// The page cache the page model was given: the bytes pages actually held
    /// (`max_page_cache_bytes`), or the cache bound where the group reported none
    /// (absent in older documents, which gave the model the bound).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_cache_bytes: Option<u64>,
}

/// Relative errors |predicted / measured − 1| of the model `pmolap place advise` uses
/// (the page model on a page-granular tier, else the paper's), over the validated
/// placements: what an advice on this tier states as its accuracy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AdvisedError {
    /// `page` or `paper`.
    pub model: String,
    /// Over every (placement, query).
    pub query_median: f64,
    pub query_max: f64,
    /// Over the placements, whole workload.
    pub workload_median: f64,
    pub workload_max: f64,
    /// How many placements were measured.
    pub placements: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ValidateConfig {
    pub data: PathBuf,
    pub setting: Setting,
    /// Timed repetitions of each placement's queries (with `min_time_s`, the least).
    pub reps: usize,
    /// Past `reps`, each placement's timed runs went on until they added up to this many
    /// seconds (in the cold setting each query's to its share, this over the queries),
    /// at most `max_reps` repetitions (absent: exactly `reps`, and in older documents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_time_s: Option<f64>,
    /// The most repetitions `min_time_s` could take a placement to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_reps: Option<usize>,
    pub threads: usize,
    pub queries: Vec<String>,
    pub profile_tier: String,
    pub profile_source: String,
    pub granularity: Granularity,
    pub llc_bytes: u64,
    /// The filesystem of the slow tier (the database's files).
    pub slow_fs: String,
    /// The budgets (share of `T_DRAM`) whose advised placements were measured
    /// (absent in older documents).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub budgets: Vec<f64>,
    /// The targets (share of the accessed bytes on the slow tier) likewise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<f64>,
    /// The workload's `T_DRAM` (ns) the placements were solved and predicted with (absent
    /// in older documents, which predicted with the measured all-DRAM time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_dram_ns: Option<f64>,
    /// Workers sharing the slow tier's device in the model (absent in older documents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_threads: Option<u32>,
}

/// The `place-validate` document; `Workload` is the placement model's workload
/// (`pmolap_place::Workload`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ValidateReport<Workload = Detail> {
    /// Kind `place-validate`.
    #[serde(flatten)]
    pub header: Header,
    pub config: ValidateConfig,
    pub workload: Workload,
    /// The all-DRAM placement measured with the same procedure: per query, ms.
    pub baseline: Vec<QueryPoint>,
    pub scenarios: Vec<ScenarioResult>,
    pub errors: Vec<ErrorSummary>,
    /// The advised model's relative errors (absent in older documents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advised: Option<AdvisedError>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cgroup: Option<CgroupFigures>,
    /// The baselines measured in the same run at the DRAM bytes of the advised placements
    /// (absent in older documents).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub baselines: Vec<Baseline>,
    /// The slow tier's page costs sampled in the run beside every placement, and the
    /// medians each `predicted` of the page model used (absent in older documents and
    /// for a profile without page costs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<Calibration>,
}

/// One sample of the slow tier's page costs in a validation run, on the database's own
/// files (ns; `None` where the database has no file of the kind).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PageSample {
    /// Wall ns per page of one cold stream over the same pass warm.
    pub one_stream_ns: Option<f64>,
    /// Wall ns per page of three cold streams over the same pass warm.
    pub three_streams_ns: Option<f64>,
    /// Wall ns per page read around an isolated fault.
    pub fault_page_ns: Option<f64>,
    /// Wall ns of a fault on a small file.
    pub fault_latency_ns: Option<f64>,
}

/// What the run's predictions were calibrated with: every sample, in order, and the
/// medians used beside the promise's figures for the same costs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    pub samples: Vec<PageSample>,
    /// The medians over `samples` (what the page model used).
    pub used: PageSample,
    /// The same costs as the promise priced them: the profile's, calibrated with the
    /// workload's own samples where it has them (`place workload`'s `page_samples`).
    pub profile: PageSample,
}

/// The baselines an advice is compared with at equal DRAM bytes (issue 33, item 4).
pub const BASELINE_KINDS: [&str; 4] = ["hottest", "dictionaries", "never accessed", "os alone"];

/// One baseline placement, measured with the same procedure as the advised ones.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Baseline {
    /// One of [`BASELINE_KINDS`]: `hottest` (structures by accesses per byte into DRAM
    /// while they fit), `dictionaries` (dictionaries only, densest first, in DRAM),
    /// `never accessed` (only the never-accessed structures on the slow tier), `os alone`
    /// (everything on the slow tier, the page cache bounded by the DRAM bytes).
    pub kind: String,
    /// The DRAM bytes it was given: those of the advised placements in `placements`.
    pub dram_bytes: u64,
    /// The advised placements (names) it stands beside.
    pub placements: Vec<String>,
    /// `os alone`: the page cache bound of its run (the DRAM bytes plus the setting's
    /// own cache).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_bytes: Option<u64>,
    pub result: ScenarioResult,
}

/// Whole-workload time per repetition: the sum over the queries of each repetition's
/// time (ms); the repetitions every query has.
pub fn workload_times(queries: &[QueryPoint]) -> Vec<f64> {
    let reps = queries.iter().map(|q| q.times_ms.len()).min().unwrap_or(0);
    (0..reps)
        .map(|r| queries.iter().map(|q| q.times_ms[r]).sum())
        .collect()
}

impl ScenarioResult {
    /// The all-DRAM wall time (ms) measured beside this placement: its paired reference
    /// runs, the sum of its queries' medians over `measured`; `None` where not finite.
    pub fn reference_ms(&self) -> Option<f64> {
        let sum: f64 = self.queries.iter().map(|q| q.median_ms).sum();
        let r = sum / self.measured;
        (r.is_finite() && r > 0.0).then_some(r)
    }

    /// Whole-workload time per repetition restated at the all-DRAM time `dram_ms`: each
    /// repetition's extra time over the all-DRAM runs measured beside it
    /// ([`Self::reference_ms`]) added to `dram_ms`. Two placements measured minutes
    /// apart compare on the slow tier's extra time, not on how fast the CPU ran in
    /// between (it moves up to 2x on a shared host: docs/placement.md, "Promises and the
    /// CPU's speed"); `None` without a reference.
    pub fn restated_times(&self, dram_ms: f64) -> Option<Vec<f64>> {
        let reference = self.reference_ms()?;
        Some(
            workload_times(&self.queries)
                .into_iter()
                .map(|t| dram_ms + (t - reference))
                .collect(),
        )
    }
}

/// One advised placement against the baselines at its DRAM bytes.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// `budget 10%`, `target 75%`.
    pub placement: String,
    /// What the advice promises in this setting: the advised model's predicted relative
    /// time, and behind a bounded cache the highest of its predictions at 10 % less, the
    /// same and 10 % more cache ([`ScenarioResult::promised_band`]): the cache the
    /// kernel really gives the data is not known to 10 % (the queries' working memory
    /// and the kernel's reclaim decide it), so the advice promises the worst of the
    /// three. Documents without a band: the prediction alone.
    pub promised: f64,
    /// The advised model's prediction at the setting's cache itself (the promise's
    /// middle point; equal to `promised` cold).
    pub predicted: f64,
    pub measured: f64,
    /// measured ≤ promised × 1.1.
    pub kept: bool,
    /// The all-DRAM time measured beside the placement (its paired reference runs) over
    /// the workload's recorded `T_DRAM` the promise divides by: below 1 the CPU ran
    /// faster than when the workload was recorded (absent in documents without the
    /// recorded `T_DRAM`).
    pub dram_ratio: Option<f64>,
    /// The promise's extra time over the all-DRAM time measured beside the placement
    /// instead of the recorded one: `1 + (promised − 1) / dram_ratio`. The promise prices
    /// the slow tier's extra time; its ratio also moves with the CPU's speed, which on a
    /// shared host moves up to 2x between minutes (docs/placement.md, "Promises and the
    /// CPU's speed").
    pub promised_at_run: Option<f64>,
    /// measured ≤ promised_at_run × 1.1.
    pub kept_at_run: Option<bool>,
    /// The promise on the machine as the run found it: priced with the page costs the
    /// run sampled ([`ScenarioResult::promised_run_costs`]) and restated at the all-DRAM
    /// time measured beside the placement. The device's per-page costs move between
    /// minutes on a shared virtual disk (docs/placement.md, "Promises and the device's
    /// speed"); this is what the model promised for the device and CPU the run had.
    pub promised_at_run_costs: Option<f64>,
    /// measured ≤ promised_at_run_costs × 1.1.
    pub kept_at_run_costs: Option<bool>,
    /// Per baseline kind (in [`BASELINE_KINDS`] order): the advice's whole-workload time
    /// over the baseline's, both restated at one all-DRAM time
    /// ([`ValidateReport::against`]), with the verdict; `None` where none was measured.
    pub against: Vec<(&'static str, Option<crate::stats::Ratio>)>,
}

/// A relative time `1 + ΔT / T_DRAM` restated over an all-DRAM time `ratio` times
/// `T_DRAM`: `1 + (relative − 1) / ratio` (the same extra time `ΔT`).
pub fn at_dram(relative: f64, ratio: f64) -> f64 {
    1.0 + (relative - 1.0) / ratio
}

impl Predicted {
    /// The prediction of `model` (`page` or `paper`).
    pub fn of_model(&self, model: &str) -> Option<f64> {
        match model {
            "page" => self.page,
            _ => Some(self.paper),
        }
    }
}

impl ValidateConfig {
    /// How the repetitions went past `reps`, for a printout after "N reps":
    /// " (more, up to M, until a placement's timed runs add up to S s)"; empty where
    /// exactly `reps` ran.
    pub fn min_time_note(&self) -> String {
        match (self.min_time_s, self.max_reps) {
            (Some(s), Some(m)) => {
                format!(" (more, up to {m}, until a placement's timed runs add up to {s} s)")
            }
            _ => String::new(),
        }
    }
}

impl<W> ValidateReport<W> {
    /// The model advice solves with: the document's `advised.model`, else the page model
    /// where predicted, else the paper's.
    pub fn advised_model(&self) -> &str {
        match &self.advised {
            Some(a) => &a.model,
            None if self.scenarios.iter().any(|s| s.predicted.page.is_some()) => "page",
            None => "paper",
        }
    }

    /// The headline (the placement paper's "X % of the data on the slow tier within 10 %
    /// of DRAM", over the accessed bytes): the most of the accessed bytes on the slow tier
    /// among the placements and baselines whose relative time is within 10 % of DRAM,
    /// `(measured, as the advised model predicts)`; `None` where no placement is. The
    /// `os alone` baselines are left out: they put every byte on the slow tier and give
    /// their DRAM to its page cache, so their share says nothing of a placement.
    pub fn headline(&self) -> (Option<f64>, Option<f64>) {
        let (m, p) = self.headline_placements();
        (
            m.map(ScenarioResult::headline_fraction),
            p.map(ScenarioResult::headline_fraction),
        )
    }

    /// The placements (or baselines) behind [`ValidateReport::headline`]: the one with
    /// the most accessed bytes on the slow tier measured within 10 % of DRAM, and the one
    /// predicted so by the advised model (the first of equals).
    pub fn headline_placements(&self) -> (Option<&ScenarioResult>, Option<&ScenarioResult>) {
        let model = self.advised_model().to_string();
        let best = |f: &dyn Fn(&ScenarioResult) -> Option<f64>| {
            self.scenarios
                .iter()
                .chain(
                    self.baselines
                        .iter()
                        .filter(|b| b.kind != "os alone")
                        .map(|b| &b.result),
                )
                .filter(|s| f(s).is_some_and(|r| r <= 1.1))
                .fold(None, |m: Option<&ScenarioResult>, s| match m {
                    Some(m) if m.headline_fraction() >= s.headline_fraction() => Some(m),
                    _ => Some(s),
                })
        };
        (
            best(&|s| Some(s.measured)),
            best(&|s| s.predicted.of_model(&model)),
        )
    }

    /// The baseline of `kind` measured beside the advised placement `placement`.
    pub fn baseline_for(&self, kind: &str, placement: &str) -> Option<&Baseline> {
        self.baselines
            .iter()
            .find(|b| b.kind == kind && b.placements.iter().any(|p| p == placement))
    }

    /// The workload's recorded all-DRAM wall time (ms: `T_DRAM`'s CPU ns over the
    /// threads); `None` in documents without it.
    pub fn recorded_dram_ms(&self) -> Option<f64> {
        let t = self.config.t_dram_ns? / self.config.threads.max(1) as f64 / 1e6;
        (t > 0.0).then_some(t)
    }

    /// The advised placement `s` and the baseline of `kind` beside it, each as
    /// whole-workload times per repetition restated at one all-DRAM time (the recorded
    /// `T_DRAM`, else `s`'s paired reference): each one's extra time over its own paired
    /// all-DRAM runs ([`ScenarioResult::restated_times`]). `None` where no baseline of
    /// `kind` was measured beside it or a reference is missing.
    pub fn against(&self, kind: &str, s: &ScenarioResult) -> Option<(Vec<f64>, Vec<f64>)> {
        let b = self.baseline_for(kind, &s.name)?;
        let common = self.recorded_dram_ms().or_else(|| s.reference_ms())?;
        Some((s.restated_times(common)?, b.result.restated_times(common)?))
    }

    /// The all-DRAM wall time measured beside `s` (its paired reference runs: the sum
    /// of its queries' medians over `measured`) over the workload's recorded `T_DRAM`
    /// (wall: CPU ns over the threads) that promises divide by; `None` in documents
    /// without the recorded `T_DRAM`.
    pub fn dram_ratio(&self, s: &ScenarioResult) -> Option<f64> {
        Some(s.reference_ms()? / self.recorded_dram_ms()?)
    }

    /// Every advised placement (budgets and targets) against the baselines at its DRAM
    /// bytes, in the document's order.
    pub fn comparisons(&self) -> Vec<Comparison> {
        let model = self.advised_model().to_string();
        self.scenarios
            .iter()
            .filter(|s| s.name.starts_with("budget") || s.name.starts_with("target"))
            .map(|s| {
                let predicted = s
                    .promised
                    .or_else(|| s.predicted.of_model(&model))
                    .unwrap_or(f64::NAN);
                let promised = match s.promised_band {
                    Some((_, hi)) if hi.is_finite() => predicted.max(hi),
                    _ => predicted,
                };
                let against = BASELINE_KINDS
                    .iter()
                    .map(|&k| {
                        let r = self.against(k, s).and_then(|(mine, theirs)| {
                            crate::stats::Ratio::of(
                                &crate::stats::Spread::of(&mine)?,
                                &crate::stats::Spread::of(&theirs)?,
                            )
                        });
                        (k, r)
                    })
                    .collect();
                let dram_ratio = self.dram_ratio(s);
                let promised_at_run = dram_ratio.map(|r| at_dram(promised, r));
                let promised_at_run_costs = s
                    .promised_run_costs
                    .zip(dram_ratio)
                    .map(|(p, r)| at_dram(p, r));
                Comparison {
                    placement: s.name.clone(),
                    promised,
                    predicted,
                    measured: s.measured,
                    kept: s.measured <= promised * 1.1,
                    dram_ratio,
                    promised_at_run,
                    kept_at_run: promised_at_run.map(|p| s.measured <= p * 1.1),
                    promised_at_run_costs,
                    kept_at_run_costs: promised_at_run_costs.map(|p| s.measured <= p * 1.1),
                    against,
                }
            })
            .collect()
    }
}
