//! `pmolap place validate`: the placement model's predictions against measurements on
//! the machine's real tiers (issue 12, item 6). The slow tier is the database's own files
//! on their filesystem (the structures mapped from `home`), the fast tier DRAM (copies):
//!
//! - **cold** — every timed run reopens the database under the placement and drops its
//!   files' pages first (`POSIX_FADV_DONTNEED`), so each query faults its slow data in;
//! - **cache:SIZE** — the database is opened once per placement, its pages dropped, and
//!   the process then enters a memory cgroup ([`pmolap_os::cgroup::MemoryLimit`]) whose
//!   limit is SIZE plus the queries' own working memory (measured on the all-DRAM
//!   placement first): the slow tier's page cache is bounded by about SIZE; every query
//!   runs once to warm up, then `reps` times.
//!
//! The placements are the paper's (§6): all slow, data vectors only, dictionaries only,
//! budgets 0–50 % and targets 25–75 %, solved by the paper's model on the given profile.
//! For each, per query and for the whole workload, the measured relative time (median
//! time / the all-DRAM placement's median time, both measured here in the same run) and
//! the relative time each model variant predicts: the paper's model, its two ablations
//! (No-Cache, No-Dense) and, where the profile has page costs, the page model. The
//! prediction uses the measured all-DRAM time as `T_DRAM` (the same procedure as the
//! measurement: a cold reopen includes building the join indexes) and the workload's
//! per-query access counts.

use std::path::{Path, PathBuf};

use indicatif::ProgressBar;
use pmolap_engine::{Database, Query, Session};
use pmolap_os::cgroup::MemoryLimit;
use pmolap_place::placement::{
    PlacedStructure, PlacementTier, PLACEMENT_FORMAT, PLACEMENT_VERSION,
};
use pmolap_place::{
    scenarios, Assignment, Granularity, Model, ModelOptions, PlacementFile, Profile, Workload,
    REFERENCE_TIER,
};
use pmolap_results::{kind, Header, Machine};
use pmolap_tier::Topology;

use super::data::{database_dir_noting, DataOptions, Where};
use super::run::median;
use crate::error::{Error, Result};

pub use pmolap_results::place::Setting;

/// What to validate.
#[derive(Debug, Clone)]
pub struct ValidateOptions {
    pub data: DataOptions,
    pub queries: Vec<Query>,
    pub reps: usize,
    /// The slow tier's profile (measured on it: `pmolap place profile`).
    pub profile: Profile,
    pub setting: Setting,
    pub granularity: Granularity,
    /// `S_LLC` in bytes.
    pub llc_bytes: u64,
}

pub use pmolap_results::place::{
    CgroupFigures, ErrorSummary, Predicted, QueryPoint, ScenarioResult, ValidateConfig,
};

/// The `place-validate` document, with the placement model's workload.
pub type ValidateReport = pmolap_results::place::ValidateReport<Workload>;

/// An in-memory placement document: structures on tier 1 of `a` mapped from their files
/// (`home`), the rest copied to DRAM.
fn placement_of(w: &Workload, profile: &Profile, a: &Assignment) -> PlacementFile {
    PlacementFile {
        format: PLACEMENT_FORMAT.into(),
        version: PLACEMENT_VERSION,
        tiers: vec![
            PlacementTier {
                name: REFERENCE_TIER.into(),
                location: None,
                capacity_bytes: None,
            },
            PlacementTier {
                name: profile.tier.clone(),
                location: Some("home".into()),
                capacity_bytes: None,
            },
        ],
        structures: w
            .structures
            .iter()
            .zip(&a.tier)
            .filter(|(_, &t)| t == 1)
            .map(|(s, _)| PlacedStructure {
                table: s.table.clone(),
                column: s.column.clone(),
                kind: s.kind,
                tier: profile.tier.clone(),
            })
            .collect(),
        predicted: None,
        origin: None,
    }
}

/// Opens `dir` under `pf` without reading the slow files, then drops every file's pages.
fn open_cold(dir: &std::path::Path, pf: &PlacementFile) -> Result<Database> {
    super::data::open_cold(dir, Where::Placement(pf))
}

/// Runs every query under one placement; per query its times (ms).
struct Runner<'a> {
    o: &'a ValidateOptions,
    dir: PathBuf,
    topo: Topology,
    pb: &'a ProgressBar,
}

impl Runner<'_> {
    fn cold(&self, pf: &PlacementFile) -> Result<Vec<Vec<f64>>> {
        let mut out = Vec::new();
        for q in &self.o.queries {
            let mut times = Vec::new();
            for _ in 0..self.o.reps {
                if pmolap_os::signal::interrupted() {
                    return Err(pmolap_os::Error::Interrupted.into());
                }
                let p = Session::new(
                    open_cold(&self.dir, pf)?,
                    &self.topo,
                    self.o.data.exec.clone(),
                )?;
                times.push(p.run(q)?.total_ms);
                self.pb.inc(1);
            }
            out.push(times);
        }
        Ok(out)
    }

    /// Warm-up pass, then `reps` timed passes, inside a cgroup of `limit` bytes (none:
    /// outside any new cgroup). Returns the times and the group's page cache at the end.
    fn cached(&self, pf: &PlacementFile, limit: Option<u64>) -> Result<(Vec<Vec<f64>>, u64, u64)> {
        let p = Session::new(
            open_cold(&self.dir, pf)?,
            &self.topo,
            self.o.data.exec.clone(),
        )?;
        let guard = match limit {
            Some(l) => Some(MemoryLimit::enter(l)?),
            None => Some(MemoryLimit::enter(1 << 50)?),
        };
        let mut out = vec![Vec::new(); self.o.queries.len()];
        for q in &self.o.queries {
            p.run(q)?;
        }
        for _ in 0..self.o.reps {
            for (i, q) in self.o.queries.iter().enumerate() {
                if pmolap_os::signal::interrupted() {
                    return Err(pmolap_os::Error::Interrupted.into());
                }
                out[i].push(p.run(q)?.total_ms);
                self.pb.inc(1);
            }
        }
        let cache = guard
            .as_ref()
            .and_then(|g| g.page_cache_bytes())
            .unwrap_or(0);
        let peak = guard.as_ref().and_then(|g| g.peak_bytes()).unwrap_or(0);
        drop(guard);
        drop(p);
        Ok((out, cache, peak))
    }
}

/// The model variants for `o`.
fn models(o: &ValidateOptions, threads: usize) -> Result<[(&'static str, Model); 4]> {
    let base = ModelOptions {
        page_model: false,
        ..ModelOptions::new(o.llc_bytes)
    };
    let cache = match o.setting {
        Setting::Cold => None,
        Setting::Cache { bytes } => Some(bytes),
    };
    Ok([
        ("paper", Model::new(base)?),
        (
            "no_cmr",
            Model::new(ModelOptions {
                cache_miss_ratio: false,
                ..base
            })?,
        ),
        (
            "no_dense",
            Model::new(ModelOptions {
                dense_classes: false,
                ..base
            })?,
        ),
        (
            "page",
            Model::new(ModelOptions {
                page_model: true,
                page_cache_bytes: cache,
                io_threads: threads as u32,
                ..base
            })?,
        ),
    ])
}

/// The four predictions for `w` under `a`.
fn predict(
    models: &[(&str, Model); 4],
    w: &Workload,
    profile: &Profile,
    a: &Assignment,
) -> Result<Predicted> {
    let ps = std::slice::from_ref(profile);
    let r = |m: &Model| -> Result<f64> { Ok(m.predict(w, ps, a)?.relative) };
    Ok(Predicted {
        paper: r(&models[0].1)?,
        no_cmr: r(&models[1].1)?,
        no_dense: r(&models[2].1)?,
        page: match profile.pages {
            Some(_) => Some(r(&models[3].1)?),
            None => None,
        },
    })
}

/// The workload a validation predicts from: the file `given` (recorded with `pmolap place
/// workload` and the same queries), else recorded now on the database of `data` (3 timed
/// runs per query, [`super::ssb_workload`]).
pub fn workload(
    data: &DataOptions,
    queries: &[Query],
    given: Option<&Path>,
    pb: &ProgressBar,
) -> Result<Workload> {
    match given {
        Some(f) => {
            Workload::load(f).map_err(|e| Error::Ssb(format!("--workload {}: {e}", f.display())))
        }
        None => {
            pb.set_message("workload");
            super::ssb_workload(data, queries, 3, pb)
        }
    }
}

/// Runs the validation: the workload is given (per-query counts needed) or measured.
pub fn validate(o: &ValidateOptions, w: Workload, pb: &ProgressBar) -> Result<ValidateReport> {
    if o.reps == 0 {
        return Err(Error::Ssb("--reps must be at least 1".into()));
    }
    if w.queries.len() != o.queries.len() {
        return Err(Error::Ssb(format!(
            "the workload has per-query counts for {} queries, {} are to run (record it with `pmolap place workload` and the same --queries)",
            w.queries.len(),
            o.queries.len()
        )));
    }
    let topo = Topology::detect()?;
    let dir = database_dir_noting(&o.data, pb)?;
    let slow_fs = topo
        .filesystem_for(&dir)
        .map_or_else(|| "unknown".to_string(), |f| f.fs_type.clone());
    let paper = Model::new(ModelOptions {
        page_model: false,
        ..ModelOptions::new(o.llc_bytes)
    })?;
    let chosen = scenarios(&w, &paper, &o.profile, o.granularity)?;
    let runner = Runner {
        o,
        dir: dir.clone(),
        topo,
        pb,
    };
    let n_runs = (chosen.len() + 1) * o.queries.len() * o.reps;
    pb.set_length(n_runs as u64);
    let all_dram = Assignment::all(w.structures.len(), 0);
    // Baseline first (and, for a cache setting, the working memory the limit adds).
    pb.set_message("all DRAM");
    let (base_times, cgroup) = match o.setting {
        Setting::Cold => (runner.cold(&placement_of(&w, &o.profile, &all_dram))?, None),
        Setting::Cache { bytes } => {
            let (t, _, peak) = runner.cached(&placement_of(&w, &o.profile, &all_dram), None)?;
            let fig = CgroupFigures {
                working_bytes: peak,
                limit_bytes: bytes + peak,
                max_page_cache_bytes: 0,
            };
            (t, Some(fig))
        }
    };
    let threads = Session::new(
        open_cold(&dir, &placement_of(&w, &o.profile, &all_dram))?,
        &runner.topo,
        o.data.exec.clone(),
    )?
    .layout()
    .threads;
    let models = models(o, threads)?;
    // T_DRAM per query: the measured all-DRAM median (CPU time: wall x threads).
    let mut wm = w.clone();
    for (q, t) in wm.queries.iter_mut().zip(&base_times) {
        q.t_dram_ns = median(t) * 1e6 * threads as f64;
    }
    wm.t_dram_ns = wm.queries.iter().map(|q| q.t_dram_ns).sum();
    let per_query: Vec<Workload> = (0..wm.queries.len()).filter_map(|i| wm.query(i)).collect();
    let baseline: Vec<QueryPoint> = o
        .queries
        .iter()
        .zip(&base_times)
        .map(|(q, t)| QueryPoint {
            id: q.id.clone(),
            median_ms: median(t),
            times_ms: t.clone(),
            measured: 1.0,
            predicted: Predicted {
                paper: 1.0,
                no_cmr: 1.0,
                no_dense: 1.0,
                page: o.profile.pages.as_ref().map(|_| 1.0),
            },
        })
        .collect();
    let base_sum: f64 = baseline.iter().map(|b| b.median_ms).sum();
    let mut results = Vec::new();
    let mut cg = cgroup;
    let mut partial = false;
    for s in &chosen {
        pb.set_message(s.name.clone());
        let pf = placement_of(&w, &o.profile, &s.assignment);
        let times = match (o.setting, &mut cg) {
            (Setting::Cache { .. }, Some(c)) => match runner.cached(&pf, Some(c.limit_bytes)) {
                Ok((t, cache, _)) => {
                    c.max_page_cache_bytes = c.max_page_cache_bytes.max(cache);
                    Ok(t)
                }
                Err(e) => Err(e),
            },
            _ => runner.cold(&pf),
        };
        let times = match times {
            Ok(t) => t,
            Err(Error::Tier(pmolap_os::Error::Interrupted)) => {
                partial = true;
                break;
            }
            Err(e) => return Err(e),
        };
        let mut queries = Vec::new();
        for (i, t) in times.iter().enumerate() {
            let m = median(t);
            queries.push(QueryPoint {
                id: o.queries[i].id.clone(),
                median_ms: m,
                times_ms: t.clone(),
                measured: m / baseline[i].median_ms,
                predicted: predict(&models, &per_query[i], &o.profile, &s.assignment)?,
            });
        }
        let sum: f64 = queries.iter().map(|q| q.median_ms).sum();
        results.push(ScenarioResult {
            name: s.name.clone(),
            slow_bytes: s.share.bytes,
            slow_fraction: s.share.fraction,
            slow_accessed_bytes: Some(s.share.accessed_bytes),
            slow_accessed_fraction: Some(s.share.accessed_fraction),
            measured: sum / base_sum,
            predicted: predict(&models, &wm, &o.profile, &s.assignment)?,
            queries,
        });
    }
    let errors = error_summaries(&results, o.profile.pages.is_some());
    Ok(ValidateReport {
        header: Header::new(
            kind::PLACE_VALIDATE,
            Machine::from_topology(&runner.topo),
            partial || pmolap_os::signal::interrupted(),
        ),
        config: ValidateConfig {
            data: dir,
            setting: o.setting,
            reps: o.reps,
            threads,
            queries: o.queries.iter().map(|q| q.id.clone()).collect(),
            profile_tier: o.profile.tier.clone(),
            profile_source: o.profile.source.to_string(),
            granularity: o.granularity,
            llc_bytes: o.llc_bytes,
            slow_fs,
        },
        workload: wm,
        baseline,
        scenarios: results,
        errors,
        cgroup: cg,
    })
}

/// Median and max absolute error of each model variant.
pub fn error_summaries(results: &[ScenarioResult], with_page: bool) -> Vec<ErrorSummary> {
    type Pick = fn(&Predicted) -> Option<f64>;
    let variants: [(&str, Pick); 4] = [
        ("paper", |p| Some(p.paper)),
        ("no_cmr", |p| Some(p.no_cmr)),
        ("no_dense", |p| Some(p.no_dense)),
        ("page", |p| p.page),
    ];
    let stats = |v: &[f64]| (median(v), v.iter().copied().fold(f64::NAN, f64::max));
    variants
        .iter()
        .filter(|(name, _)| with_page || *name != "page")
        .map(|(name, pick)| {
            let whole: Vec<f64> = results
                .iter()
                .filter_map(|r| pick(&r.predicted).map(|p| (p - r.measured).abs()))
                .collect();
            let per: Vec<f64> = results
                .iter()
                .flat_map(|r| r.queries.iter())
                .filter_map(|q| pick(&q.predicted).map(|p| (p - q.measured).abs()))
                .collect();
            let (wm, wx) = stats(&whole);
            let (qm, qx) = stats(&per);
            ErrorSummary {
                model: name.to_string(),
                workload_median: wm,
                workload_max: wx,
                query_median: qm,
                query_max: qx,
            }
        })
        .collect()
}
