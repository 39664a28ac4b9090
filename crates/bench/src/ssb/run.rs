//! Timed runs of star-join queries on one tier (`ssb run`, `ssb query`): each query is
//! warmed up once, then run `reps` times; per query the median and the plan of the last
//! run. After an interrupt the runs stop at the next query or repetition and the document
//! says it is partial.

use indicatif::ProgressBar;

use pmolap_engine::query::IndexChoice;
use pmolap_engine::{Layout, Query, QueryRun, Script, Session};
use pmolap_os::cgroup::MemoryLimit;
use pmolap_results::{kind, Header, Machine};
use pmolap_tier::Topology;

use super::data::{database_dir_noting, load_placement, make_cold, open_cold, DataOptions, Where};
use crate::error::{Error, Result};

pub use pmolap_results::ssb::{RunConfig, RunSetting};

/// Per-query figures of a run, with the engine's last run of the query.
pub type QueryFigures = pmolap_results::ssb::QueryFigures<QueryRun>;

/// The result document of `ssb run` / `ssb query`, with the engine's runs and layout.
pub type RunReport = pmolap_results::ssb::RunReport<QueryRun, Layout>;

/// The median of `v` (NaN when empty).
pub(crate) fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}

/// How many timed runs each query gets: at least `min`, then more while the query's timed
/// runs so far took less than `budget`, up to `max`. A plain count `n` is `n..=n`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reps {
    pub min: usize,
    pub max: usize,
    pub budget: std::time::Duration,
}

impl From<usize> for Reps {
    fn from(n: usize) -> Reps {
        Reps {
            min: n,
            max: n,
            budget: std::time::Duration::ZERO,
        }
    }
}

impl Reps {
    /// `min` to `max` timed runs, until `budget` seconds of them.
    pub fn budget(min: usize, max: usize, secs: f64) -> Reps {
        Reps {
            min,
            max: max.max(min),
            budget: std::time::Duration::from_secs_f64(secs.max(0.0)),
        }
    }

    /// How the rule reads in a document (`None` for a plain count).
    pub fn rule(&self) -> Option<String> {
        (self.min != self.max).then(|| {
            format!(
                "{} to {} timed runs per query, more while they took under {:.2} s",
                self.min,
                self.max,
                self.budget.as_secs_f64()
            )
        })
    }

    fn check(&self) -> Result<()> {
        if self.min == 0 {
            return Err(Error::Ssb("--reps must be at least 1".into()));
        }
        Ok(())
    }
}

/// What queries run on: an engine session, each query warmed up once and then timed as
/// it is (warm) or with its pages dropped before every timed run ([`make_cold`]).
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    Warm(&'a Session),
    Cold(&'a Session),
}

/// Runs each query `reps` times ([`Reps`]: a count, or a range with a time budget) after
/// one warm-up run on a warm source, ticking `pb` per run. After an interrupt it stops
/// before the next run and returns the queries that have at least one timed run.
pub fn run_queries(
    src: Source<'_>,
    queries: &[Query],
    reps: impl Into<Reps>,
    pb: &ProgressBar,
) -> Result<Vec<QueryFigures>> {
    let reps = reps.into();
    reps.check()?;
    let mut out = Vec::new();
    for q in queries {
        if pmolap_os::signal::interrupted() {
            break;
        }
        pb.set_message(format!("Q{}", q.label()));
        let mut runs = Vec::new();
        let (Source::Warm(p) | Source::Cold(p)) = src;
        p.run(q)?;
        let t0 = std::time::Instant::now();
        for i in 0..reps.max {
            if pmolap_os::signal::interrupted() && !runs.is_empty() {
                break;
            }
            if i >= reps.min && t0.elapsed() >= reps.budget {
                break;
            }
            if let Source::Cold(p) = src {
                make_cold(p)?;
            }
            runs.push(p.run(q)?);
            pb.inc(1);
        }
        let times: Vec<f64> = runs.iter().map(|r| r.total_ms).collect();
        let med = median(&times);
        let plan_ms = median(&runs.iter().map(|r| r.plan_ms).collect::<Vec<_>>());
        let probe_ms = median(&runs.iter().map(|r| r.probe_ms).collect::<Vec<_>>());
        let Some(last) = runs.pop() else {
            break;
        };
        out.push(QueryFigures {
            id: q.id.clone(),
            median_ms: med,
            times_ms: times,
            rows: last.rows.len(),
            plan_ms,
            probe_ms,
            fact_bytes: last.fact_bytes,
            gbps: last.fact_bytes as f64 / (med / 1e3) / 1e9,
            last,
        });
    }
    Ok(out)
}

/// The queries of a run.
#[derive(Debug, Clone, Copy)]
pub enum Queries<'a> {
    /// Queries as data (the SSB queries, a YAML or JSON file).
    Given(&'a [Query]),
    /// A SQL script (its syntax already checked), translated against the database's
    /// schema once it is open.
    Sql(&'a Script),
}

impl Queries<'_> {
    /// How many queries.
    pub fn len(&self) -> usize {
        match self {
            Queries::Given(q) => q.len(),
            Queries::Sql(s) => s.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// `ssb run` / `ssb query` / `sql`: `queries` on the database of `data`, every structure
/// on `tier` (or where `data.placement` puts it), kept as `setting` says: `warm` opened
/// once (checksums verified, every page read in), each query warmed up once then timed
/// `reps` times; `cold` opened once ([`open_cold`]), each query warmed up, every database
/// file's pages dropped before each timed run ([`make_cold`]); `cache:SIZE` opened once
/// with its pages dropped, then every query warmed up and timed inside a memory cgroup limited to SIZE plus the queries'
/// own working memory (measured first, as in `place validate`). `pb` shows progress (its
/// length is set here).
pub fn run(
    data: &DataOptions,
    tier: &str,
    setting: RunSetting,
    queries: Queries<'_>,
    reps: usize,
    pb: &ProgressBar,
) -> Result<RunReport> {
    if reps == 0 {
        return Err(Error::Ssb("--reps must be at least 1".into()));
    }
    if setting == (RunSetting::Cache { bytes: 0 }) {
        return Err(Error::Ssb(
            "--setting cache:0: the page cache bound must be at least one byte".into(),
        ));
    }
    if let Some(f) = &data.placement {
        // A bad placement file fails before any database is built or opened.
        pmolap_place::PlacementFile::load(f)?;
    }
    let topo = Topology::detect()?;
    let dir = database_dir_noting(data, pb)?;
    let pf = data.placement.as_deref().map(load_placement).transpose()?;
    let (at, tier) = match (&pf, &data.placement) {
        (Some(pf), Some(f)) => (Where::Placement(pf), format!("placement:{}", f.display())),
        _ => (Where::Tier(tier), tier.to_string()),
    };
    let p = match setting {
        RunSetting::Warm => at.open(&dir, true)?,
        RunSetting::Cold | RunSetting::Cache { .. } => open_cold(&dir, at)?,
    };
    let p = Session::new(p, &topo, data.exec.clone())?;
    let translated;
    let queries = match queries {
        Queries::Given(q) => q,
        Queries::Sql(s) => {
            translated = p.queries(s)?;
            &translated[..]
        }
    };
    let layout = p.layout().clone();
    let bits_kernel = p.bits_kernel().to_string();
    let mut notes = layout.notes.clone();
    pb.set_length((queries.len() * reps) as u64);
    let figs = match setting {
        RunSetting::Warm => run_queries(Source::Warm(&p), queries, reps, pb)?,
        RunSetting::Cold => run_queries(Source::Cold(&p), queries, reps, pb)?,
        RunSetting::Cache { bytes } => {
            let (figs, note) = run_cached(p, bytes, &dir, at, &topo, data, queries, reps, pb)?;
            notes.push(note);
            figs
        }
    };
    let join_index =
        queries
            .first()
            .and_then(|q| q.joins.first())
            .map_or("auto".to_string(), |j| {
                let index = match data.exec.join_index {
                    IndexChoice::Auto => j.index,
                    every => every,
                };
                format!("{index:?}").to_lowercase()
            });
    Ok(RunReport {
        header: Header::new(
            kind::SSB_RUN,
            Machine::from_topology(&topo),
            pmolap_os::signal::interrupted(),
        ),
        config: RunConfig {
            data: dir,
            tier,
            reps,
            threads: layout.threads,
            pin: layout.pin.to_string(),
            stripe: layout.striped,
            replicate_dims: layout.replicated,
            morsel_rows: data.exec.morsel_rows,
            join_index,
            bits_kernel,
            setting,
        },
        notes,
        layout,
        queries: figs,
    })
}

/// The `cache:SIZE` runs. `p` (opened cold) runs every query once inside an unlimited
/// child cgroup, which measures the queries' own working memory (the group's peak less
/// its page cache); the database is then reopened cold (pages a process maps are not
/// dropped) and the queries run, warmed up and timed, inside a group limited to `bytes`
/// plus that working memory. Returns the figures and a note with the limit.
#[allow(clippy::too_many_arguments)]
fn run_cached(
    p: Session,
    bytes: u64,
    dir: &std::path::Path,
    at: Where<'_>,
    topo: &Topology,
    data: &DataOptions,
    queries: &[Query],
    reps: usize,
    pb: &ProgressBar,
) -> Result<(Vec<QueryFigures>, String)> {
    let probe = MemoryLimit::enter(1 << 50)?;
    for q in queries {
        if pmolap_os::signal::interrupted() {
            break;
        }
        p.run(q)?;
    }
    let peak = probe.peak_bytes().unwrap_or(0);
    let cache = probe.page_cache_bytes().unwrap_or(0);
    let working = peak.saturating_sub(cache);
    drop(probe);
    drop(p);
    let p = Session::new(open_cold(dir, at)?, topo, data.exec.clone())?;
    let limit = bytes.saturating_add(working);
    let guard = MemoryLimit::enter(limit)?;
    let figs = run_queries(Source::Warm(&p), queries, reps, pb)?;
    let seen = guard.page_cache_bytes();
    drop(guard);
    let note = format!(
        "cache: queries ran in a memory cgroup limited to {limit} bytes ({bytes} for the page cache + {working} of working memory, measured); page cache at the end: {}",
        seen.map_or_else(|| "unknown".to_string(), |b| format!("{b} bytes"))
    );
    Ok((figs, note))
}
