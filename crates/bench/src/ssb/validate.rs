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
//! The placements are the paper's fixed ones (all slow, data vectors only, dictionaries
//! only) and exactly the placements `pmolap place advise` writes for the grid
//! ([`pmolap_place::grid`]: budgets 0–50 %, targets 25–90 %), solved by the one
//! [`pmolap_place::Advisor`] with the same [`AdviceOptions`]. For each, per query and for
//! the whole workload, the measured relative time (median time / the all-DRAM
//! placement's median time, both measured here in the same run) and the relative time
//! each model variant predicts: the paper's model, its two ablations (No-Cache,
//! No-Dense) and, where the profile has page costs, the page model. Every prediction
//! uses the workload's `T_DRAM` and per-query counts — the numbers `advise` promises
//! with — and the advised model's relative errors |predicted/measured − 1| are the
//! accuracy later advice on this workload states ([`AdvisedError`]).

use std::path::PathBuf;

use indicatif::ProgressBar;
use pmolap_engine::{Database, Query, Session};
use pmolap_os::cgroup::MemoryLimit;
use pmolap_place::placement::{
    PlacedStructure, PlacementTier, PLACEMENT_FORMAT, PLACEMENT_VERSION,
};
use pmolap_place::{
    scenarios, AdviceOptions, Assignment, Model, ModelOptions, PlacementFile, Profile, Workload,
    BUDGETS, REFERENCE_TIER, TARGETS,
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
    /// The advice's options (`place advise` with the same ones writes the placements
    /// measured); their I/O threads must be the run's worker threads.
    pub advice: AdviceOptions,
}

pub use pmolap_results::place::{
    AdvisedError, CgroupFigures, ErrorSummary, Predicted, QueryPoint, ScenarioResult,
    ValidateConfig,
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
        accuracy: None,
        origin: None,
    }
}

/// Opens `dir` with every structure copied to DRAM, reading the files only to copy them,
/// then drops the files' pages: the all-DRAM run of `T_DRAM` and of the cold baseline.
pub(crate) fn open_fresh_dram(dir: &std::path::Path) -> Result<Database> {
    let pf = PlacementFile {
        format: PLACEMENT_FORMAT.into(),
        version: PLACEMENT_VERSION,
        tiers: vec![PlacementTier {
            name: REFERENCE_TIER.into(),
            location: None,
            capacity_bytes: None,
        }],
        structures: Vec::new(),
        predicted: None,
        accuracy: None,
        origin: None,
    };
    open_cold(dir, &pf)
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

/// The model variants for `o`: the paper's model and its two ablations (per access,
/// with the advice's S_LLC), and the page model exactly as advised (behind the setting's
/// bounded cache, if any).
fn models(o: &ValidateOptions) -> Result<[(&'static str, Model); 4]> {
    let base = ModelOptions {
        page_model: false,
        ..ModelOptions::new(o.advice.llc_bytes)
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
        ("page", o.advice.predicting(cache_of(o.setting))?),
    ])
}

/// The page cache a setting keeps between queries.
fn cache_of(s: Setting) -> Option<u64> {
    match s {
        Setting::Cold => None,
        Setting::Cache { bytes } => Some(bytes),
    }
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
    let threads = Session::new(open_fresh_dram(&dir)?, &topo, o.data.exec.clone())?
        .layout()
        .threads;
    if let Some(t) = w.threads {
        if t as usize != threads {
            return Err(Error::Ssb(format!(
                "the workload was recorded with {t} worker threads, this run has {threads}: give the same --threads (T_DRAM and the page costs are for {t})"
            )));
        }
    }
    if o.advice.io_threads as usize != threads {
        return Err(Error::Ssb(format!(
            "the advice's I/O threads ({}) are not this run's worker threads ({threads})",
            o.advice.io_threads
        )));
    }
    let chosen = scenarios(&w, &o.profile, &o.advice)?;
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
    let models = models(o)?;
    let advised = o.advice.predicting(cache_of(o.setting))?;
    // Predictions with the workload's T_DRAM (the one definition advise uses).
    let per_query: Vec<Workload> = (0..w.queries.len()).filter_map(|i| w.query(i)).collect();
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
    let ps = std::slice::from_ref(&o.profile);
    let mut results = Vec::new();
    let mut advised_err = (Vec::new(), Vec::new());
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
            let measured = m / baseline[i].median_ms;
            let pred = advised.predict(&per_query[i], ps, &s.assignment)?.relative;
            advised_err.0.push((pred / measured - 1.0).abs());
            queries.push(QueryPoint {
                id: o.queries[i].id.clone(),
                median_ms: m,
                times_ms: t.clone(),
                measured,
                predicted: predict(&models, &per_query[i], &o.profile, &s.assignment)?,
            });
        }
        let sum: f64 = queries.iter().map(|q| q.median_ms).sum();
        let measured = sum / base_sum;
        let pred = advised.predict(&w, ps, &s.assignment)?.relative;
        advised_err.1.push((pred / measured - 1.0).abs());
        results.push(ScenarioResult {
            name: s.name.clone(),
            slow_structures: w
                .structures
                .iter()
                .zip(&s.assignment.tier)
                .filter(|(_, &t)| t == 1)
                .map(|(st, _)| st.id())
                .collect(),
            slow_bytes: s.share.bytes,
            slow_fraction: s.share.fraction,
            slow_accessed_bytes: Some(s.share.accessed_bytes),
            slow_accessed_fraction: Some(s.share.accessed_fraction),
            measured,
            predicted: predict(&models, &w, &o.profile, &s.assignment)?,
            queries,
        });
    }
    let errors = error_summaries(&results, o.profile.pages.is_some());
    let max = |v: &[f64]| v.iter().copied().fold(f64::NAN, f64::max);
    let advised = (!results.is_empty()).then(|| AdvisedError {
        model: o.advice.model_name(&o.profile).into(),
        query_median: median(&advised_err.0),
        query_max: max(&advised_err.0),
        workload_median: median(&advised_err.1),
        workload_max: max(&advised_err.1),
        placements: results.len(),
    });
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
            granularity: o.advice.granularity,
            llc_bytes: o.advice.llc_bytes,
            slow_fs,
            budgets: BUDGETS.to_vec(),
            targets: TARGETS.to_vec(),
            t_dram_ns: Some(w.t_dram_ns),
            io_threads: Some(o.advice.io_threads),
        },
        workload: w,
        baseline,
        scenarios: results,
        errors,
        advised,
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
