//! The SSB on every tier of the machine (SIGMOD'21 Fig. 14: slowdown against DRAM) and the
//! Table 1 ladder (1 thread → all threads → + pinning → + striping and replication) per
//! tier. The tiers come from the machine's one tier list (`Topology::tiers_for`).

use std::path::Path;

use indicatif::ProgressBar;
use pmolap_engine::{ExecOptions, Query, QueryRun, Session};
use pmolap_results::{kind, Header, Machine};
use pmolap_tier::{Pinning, TierClass, Topology};

use super::data::{
    database_dir, database_dir_noting, open_cold, open_database, DataOptions, Where,
};
use super::run::{run_queries, Reps, Source};
use crate::error::{Error, Result};

pub use pmolap_results::ssb::{BreakdownReport, LadderStep, TierChoice, TiersConfig};

/// The machine's tiers for a database in `dir` (the disk tier is the database's own
/// files, `home`), and notes on what was left out and why.
pub fn machine_tiers(topo: &Topology, dir: &Path) -> (Vec<TierChoice>, Vec<String>) {
    let mut out = Vec::new();
    let mut notes = Vec::new();
    let all = topo.tiers_for(&dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf()));
    for t in &all {
        let spec = match t.class {
            TierClass::Devdax => {
                notes.push(format!(
                    "{} skipped: a device-DAX device holds one structure, a database has hundreds (use an fsdax mount)",
                    t.spec
                ));
                continue;
            }
            TierClass::Disk => "home".to_string(),
            _ => t.spec.clone(),
        };
        out.push(TierChoice {
            name: t.name.clone(),
            spec,
            cold: t.cold,
            class: t.class,
        });
    }
    if !all.iter().any(|t| t.class == TierClass::Disk) {
        notes.push(format!(
            "{} is on a tmpfs or DAX mount: no disk tier (put --data on a disk to measure one)",
            dir.display()
        ));
    }
    if !all
        .iter()
        .any(|t| matches!(t.class, TierClass::NumaNode | TierClass::FarMemory))
    {
        notes.push("one NUMA node: `dram` is its memory; no far-NUMA or CXL tier".into());
    }
    if !all
        .iter()
        .any(|t| matches!(t.class, TierClass::Fsdax | TierClass::Devdax))
    {
        notes.push("no persistent memory (no DAX device or mount)".into());
    }
    (out, notes)
}

/// The machine's tiers that `only` names (all when empty; cold ones only with
/// `with_cold`): a spec, the whole name, or one word of the name.
pub fn chosen_tiers(
    topo: &Topology,
    dir: &Path,
    only: &[String],
    with_cold: bool,
) -> Result<(Vec<TierChoice>, Vec<String>)> {
    let (mut choices, notes) = machine_tiers(topo, dir);
    choices.retain(|c| with_cold || !c.cold);
    if !only.is_empty() {
        choices.retain(|c| only.iter().any(|o| tier_matches(c, o)));
        if choices.is_empty() {
            return Err(Error::Ssb(format!(
                "--only {}: no such tier on this machine",
                only.join(",")
            )));
        }
    }
    Ok((choices, notes))
}

fn tier_matches(c: &TierChoice, o: &str) -> bool {
    o == c.spec
        || o == c.name
        || c.name
            .split_whitespace()
            .any(|w| w == o || w.trim_start_matches("/dev/") == o)
}

/// One tier's figures, with the engine's runs.
pub type TierResult = pmolap_results::ssb::TierResult<QueryRun>;

/// The result document of `ssb tiers` (Fig. 14), with the engine's runs.
pub type TiersReport = pmolap_results::ssb::TiersReport<QueryRun>;

/// `ssb tiers`: every query on every chosen tier; `on_tier(name)` is called as a tier
/// starts (progress), `pb` ticks per run.
pub fn tiers(
    data: &DataOptions,
    queries: &[Query],
    reps: impl Into<Reps>,
    only: &[String],
    pb: &ProgressBar,
    on_tier: &dyn Fn(&TierChoice),
) -> Result<TiersReport> {
    let reps: Reps = reps.into();
    if reps.min == 0 {
        return Err(Error::Ssb("--reps must be at least 1".into()));
    }
    let topo = Topology::detect()?;
    let dir = database_dir_noting(data, pb)?;
    let (choices, notes) = chosen_tiers(&topo, &dir, only, true)?;
    let mut results = Vec::new();
    for c in &choices {
        if pmolap_os::signal::interrupted() {
            break;
        }
        on_tier(c);
        pb.set_position(0);
        pb.set_length((queries.len() * reps.max) as u64);
        let exec = data.exec.clone();
        let figs = if c.cold {
            let p = Session::new(open_cold(&dir, Where::Tier("home"))?, &topo, exec)?;
            run_queries(Source::Cold(&p), queries, reps, pb)?
        } else {
            let p = Session::new(open_database(&dir, &c.spec, true)?, &topo, exec)?;
            run_queries(Source::Warm(&p), queries, reps, pb)?
        };
        if figs.is_empty() {
            break;
        }
        results.push(TierResult {
            tier: c.clone(),
            queries: figs,
        });
    }
    if results.is_empty() {
        return Err(Error::Ssb(
            "interrupted before the first tier finished a query".into(),
        ));
    }
    Ok(TiersReport {
        header: Header::new(
            kind::SSB_TIERS,
            Machine::from_topology(&topo),
            pmolap_os::signal::interrupted(),
        ),
        config: TiersConfig {
            data: dir,
            reps: reps.max,
            reps_rule: reps.rule(),
            threads: data.exec.threads,
            pin: data.exec.pin.to_string(),
        },
        notes,
        tiers: results,
    })
}

/// The ladder's rungs: (name, options) over `base` with `all` threads.
fn ladder(base: &ExecOptions, all: usize) -> Vec<(&'static str, ExecOptions)> {
    let rung = |threads, pin, numa| ExecOptions {
        threads,
        pin,
        stripe: numa,
        replicate_dims: numa,
        ..base.clone()
    };
    vec![
        ("1 thread", rung(1, Pinning::None, false)),
        ("all threads", rung(all, Pinning::None, false)),
        ("+ pinning (cores)", rung(all, Pinning::Cores, false)),
        ("+ stripe + replicate dims", rung(all, Pinning::Cores, true)),
    ]
}

/// `ssb breakdown`: the Table 1 ladder for `query` on every warm tier (or `only`);
/// `on_step` sees each rung as it finishes.
pub fn breakdown(
    data: &DataOptions,
    query: &Query,
    reps: impl Into<Reps>,
    only: &[String],
    on_step: &dyn Fn(&LadderStep),
) -> Result<BreakdownReport> {
    let reps: Reps = reps.into();
    if reps.min == 0 {
        return Err(Error::Ssb("--reps must be at least 1".into()));
    }
    let topo = Topology::detect()?;
    let dir = database_dir(data, &|_, _| {}, &|_| {})?;
    let (choices, notes) = chosen_tiers(&topo, &dir, only, false)?;
    let all = match data.exec.threads {
        0 => topo.cpus.len().max(1),
        n => n,
    };
    let rungs = ladder(&data.exec, all);
    let mut steps = Vec::new();
    'tiers: for c in &choices {
        // One open per tier; each rung only re-lays out threads and partitions.
        let mut db = Some(open_database(&dir, &c.spec, true)?);
        let mut first: Option<(f64, Option<pmolap_results::stats::Spread>)> = None;
        for (name, opts) in &rungs {
            if pmolap_os::signal::interrupted() {
                break 'tiers;
            }
            let Some(d) = db.take() else {
                break;
            };
            let p = Session::new(d, &topo, opts.clone())?;
            let figs = run_queries(
                Source::Warm(&p),
                std::slice::from_ref(query),
                reps,
                &ProgressBar::hidden(),
            )?;
            let Some(f) = figs.first() else {
                break 'tiers;
            };
            let (ms, spread) = (f.median_ms, f.spread());
            let is_first = first.is_none();
            let (first_ms, first_spread) = *first.get_or_insert((ms, spread));
            let step = LadderStep {
                tier: c.name.clone(),
                step: name.to_string(),
                threads: p.layout().threads,
                pin: p.layout().pin.to_string(),
                striped: p.layout().striped,
                replicated: p.layout().replicated,
                notes: p
                    .layout()
                    .notes
                    .iter()
                    .chain(&p.layout().no_ops)
                    .cloned()
                    .collect(),
                median_ms: ms,
                speedup_vs_first: first_ms / ms,
                times_ms: f.times_ms.clone(),
                // The first rung against itself is no comparison.
                speedup: first_spread
                    .zip(spread)
                    .filter(|_| !is_first)
                    .and_then(|(a, b)| pmolap_results::stats::Ratio::of(&a, &b)),
            };
            on_step(&step);
            steps.push(step);
            db = Some(p.into_database());
        }
    }
    Ok(BreakdownReport {
        header: Header::new(
            kind::SSB_BREAKDOWN,
            Machine::from_topology(&topo),
            pmolap_os::signal::interrupted(),
        ),
        query: query.id.clone(),
        reps: reps.max,
        reps_rule: reps.rule(),
        notes,
        steps,
    })
}
