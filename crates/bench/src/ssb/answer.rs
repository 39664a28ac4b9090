//! Answers of star-join SQL as a query tool gives them (`pmolap sql`): each statement's
//! column names and rows, run once on the database as it is — its structures where its
//! files are unless a tier is asked for, each column's structures opened, prefaulted and
//! verified on its first use — or, for timing, warmed up once and run `reps` times.

use indicatif::ProgressBar;

use pmolap_engine::session::query_open_options;
use pmolap_engine::{OutValue, Script, Session};
use pmolap_results::stats::Spread;
use pmolap_tier::Topology;

use super::data::{database_dir_noting, load_placement, DataOptions, Where};
use super::run::{run_queries, Source};
use crate::error::{Error, Result};

/// One statement's answer.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The statement's name (`-- Qx.y` before it, else its number from 1).
    pub id: String,
    /// The output columns: the select list's aliases, else the expression as written
    /// (`sum(lo_revenue)`), and the group-by columns by name.
    pub columns: Vec<String>,
    /// The rows, each in the order of `columns`.
    pub rows: Vec<Vec<OutValue>>,
    /// The positions of the exact DECIMAL columns (values as text: `QueryRun::decimal_columns`).
    pub decimal_columns: Vec<usize>,
    /// Wall time of each timed run in ms (one run: the one that answered).
    pub times_ms: Vec<f64>,
}

impl Answer {
    /// The median and min–max of the timed runs.
    pub fn spread(&self) -> Option<Spread> {
        Spread::of(&self.times_ms)
    }
}

/// What [`answer`] found.
#[derive(Debug)]
pub struct Answers {
    pub answers: Vec<Answer>,
    /// Conditions that change a result (a layout other than asked), one line each.
    pub notes: Vec<String>,
    /// Whether each statement was warmed up once before its timed runs.
    pub warmed_up: bool,
    /// The open database the statements ran on. A one-off process about to exit may
    /// leak it (`std::mem::forget`): dropping it unmaps every structure first, work the
    /// kernel's teardown of the whole process then does again, cheaper, at exit.
    pub session: Session,
}

/// Runs every statement of `script` on the database of `data` with every structure on
/// `tier` (`home`: mapped from its files, no copy) or where `data.placement` puts it.
/// The database is opened lazily ([`query_open_options`]): each column's structures are
/// opened, prefaulted and verified on its first use, so a one-off statement pays for
/// the columns it reads only. `reps == 1`:
/// each statement runs once (no warm-up); more: each is warmed up once, then timed
/// `reps` times (the answer of the last run). After an interrupt it stops before the
/// next run and returns the statements that ran.
pub fn answer(
    data: &DataOptions,
    tier: &str,
    script: &Script,
    reps: usize,
    pb: &ProgressBar,
) -> Result<Answers> {
    if reps == 0 {
        return Err(Error::Ssb("--reps must be at least 1".into()));
    }
    let pf = data.placement.as_deref().map(load_placement).transpose()?;
    let dir = database_dir_noting(data, pb)?;
    let at = match &pf {
        Some(pf) => Where::Placement(pf),
        None => Where::Tier(tier),
    };
    let db = at.open_with(&dir, &query_open_options())?;
    let topo = Topology::cached()?;
    let session = Session::new(db, topo, data.exec.clone())?;
    let queries = session.queries(script)?;
    let notes = session.layout().notes.clone();
    pb.set_length((queries.len() * reps) as u64);
    let answers = if reps == 1 {
        let mut out = Vec::with_capacity(queries.len());
        for q in &queries {
            if pmolap_os::signal::interrupted() {
                break;
            }
            let run = session.run(q)?;
            pb.inc(1);
            out.push(Answer {
                id: q.id.clone(),
                columns: run.columns,
                rows: run.rows,
                decimal_columns: run.decimal_columns,
                times_ms: vec![run.total_ms],
            });
        }
        out
    } else {
        run_queries(Source::Warm(&session), &queries, reps, pb)?
            .into_iter()
            .map(|f| Answer {
                id: f.id,
                columns: f.last.columns,
                rows: f.last.rows,
                decimal_columns: f.last.decimal_columns,
                times_ms: f.times_ms,
            })
            .collect()
    };
    Ok(Answers {
        answers,
        notes,
        warmed_up: reps > 1,
        session,
    })
}
