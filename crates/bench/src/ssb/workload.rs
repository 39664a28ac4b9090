//! The placement advisor's input from a real run (placement paper §4.1): the queries run
//! on the database with every structure in DRAM — first timed without counters
//! (`T_DRAM`), then once more with the store's access counters on — and written as a
//! `pmolap_place::Workload` (per structure its bytes, type, width and counts per access
//! type). The queries are the SSB ones or any of the engine's family (a SQL script is
//! translated against the database's schema: [`translate`]).

use std::path::Path;

use indicatif::ProgressBar;

use pmolap_engine::{Query, Script, Session};
use pmolap_place::{StoreTable, Workload};
use pmolap_tier::Topology;

use super::data::{database_dir_noting, open_database, DataOptions};
use super::run::median;
use super::validate::open_fresh_dram;
use crate::error::{Error, Result};

/// Checks that the database of `data` is SSB — its fact table `lineorder`, the one the
/// built-in SSB queries read (its schema read without reading its data); otherwise a
/// one-line error saying so and to pass a query file of its schema.
pub fn check_ssb_database(data: &DataOptions, pb: &ProgressBar) -> Result<()> {
    let dir = database_dir_noting(data, pb)?;
    let db = open_database(&dir, "home", false)?;
    match db.fact_table() {
        Some(("lineorder", _)) => Ok(()),
        fact => Err(Error::Ssb(format!(
            "{}: this database is not SSB (its fact table is {}, not `lineorder`), so the \
             built-in SSB queries do not apply: pass --queries FILE.sql with queries of its schema",
            dir.display(),
            fact.map_or("missing".to_string(), |(n, _)| format!("`{n}`"))
        ))),
    }
}

/// The statements of `script` as queries of the database of `data` (its schema read
/// without reading its data).
pub fn translate(data: &DataOptions, script: &Script, pb: &ProgressBar) -> Result<Vec<Query>> {
    let dir = database_dir_noting(data, pb)?;
    let db = open_database(&dir, "home", false)?;
    let columns = |t: &str| {
        db.table(t)
            .ok()
            .map(|t| t.column_names().map(str::to_string).collect())
    };
    Ok(script.queries_with(&columns, &|t| db.synonym(t))?)
}

/// How long [`ssb_workload`] runs whole passes of the queries before it times them (at
/// least one pass). A single warm-up run per query was not enough: the T_DRAM recorded
/// right after the process started measured 1.2-1.3x the all-DRAM runs `place validate`
/// made minutes later with the same procedure (2026-11-27, SF 1, quiet: 33.4 ms vs
/// 25.0-28.0 ms), and every promise `advise` made from it was that much too generous.
const WARM_UP: std::time::Duration = std::time::Duration::from_secs(2);

/// Runs whole passes of `queries` on `p` until [`WARM_UP`] has passed (at least one).
pub(crate) fn warm_up(p: &Session, queries: &[Query]) -> Result<()> {
    let t0 = std::time::Instant::now();
    loop {
        for q in queries {
            if pmolap_os::signal::interrupted() {
                return Err(pmolap_os::Error::Interrupted.into());
            }
            p.run(q)?;
        }
        if t0.elapsed() >= WARM_UP {
            return Ok(());
        }
    }
}

/// Samples of the database's page costs a recording takes ([`ssb_workload`]).
const PAGE_SAMPLES: usize = 9;

/// Runs `queries` on the database of `data` in DRAM and returns its workload.
///
/// `T_DRAM` (the one definition every `place` command uses, `docs/placement.md`): per
/// query, the median over `reps` runs of its wall time on one open database with every
/// structure copied to DRAM, after whole passes of the queries for [`WARM_UP`] (join
/// indexes built, as in every setting of `place validate`), the timed runs in `reps`
/// whole passes, times the worker threads (the model adds CPU time, summed over
/// threads); the workload's is the sum over the queries. The counts are those of one more
/// run of each query, counted, kept per query. The workload records its worker threads.
pub fn ssb_workload(
    data: &DataOptions,
    queries: &[Query],
    reps: usize,
    pb: &ProgressBar,
) -> Result<Workload> {
    if queries.is_empty() {
        return Err(Error::Ssb("no queries to run".into()));
    }
    if reps == 0 {
        return Err(Error::Ssb("--reps must be at least 1".into()));
    }
    let topo = Topology::detect()?;
    let dir = database_dir_noting(data, pb)?;
    // One all-DRAM database for every run, as `place validate` measures its baseline
    // and a process that keeps its data in DRAM runs: the queries warmed up (join indexes
    // built, lazily made state made, the machine busy), then timed, then counted.
    let p = Session::new(open_fresh_dram(&dir)?, &topo, data.exec.clone())?;
    let threads = p.layout().threads;
    pb.set_length((queries.len() * (reps + 2)) as u64);
    let stop = || -> Result<()> {
        if pmolap_os::signal::interrupted() {
            return Err(Error::Ssb(
                "interrupted before every query was timed".into(),
            ));
        }
        Ok(())
    };
    pb.set_message("warm-up");
    warm_up(&p, queries)?;
    pb.inc(queries.len() as u64);
    let mut times = vec![Vec::with_capacity(reps); queries.len()];
    for _ in 0..reps {
        for (q, t) in queries.iter().zip(&mut times) {
            stop()?;
            pb.set_message(format!("Q{}", q.label()));
            t.push(p.run(q)?.total_ms);
            pb.inc(1);
        }
    }
    let mut per_query = Vec::new();
    let mut pages = Vec::new();
    let mut wall_ms = 0.0;
    for (q, times) in queries.iter().zip(&times) {
        let med = median(times);
        wall_ms += med;
        // The counted run: what one more run of the query reads.
        for (_, t) in p.database().tables() {
            t.reset_counters();
            t.set_counting(true);
        }
        let run = p.run(q);
        let counts: Vec<_> = p
            .database()
            .tables()
            .map(|(_, t)| {
                t.set_counting(false);
                t.access_counts()
            })
            .collect();
        run?;
        pages.push(
            p.database()
                .tables()
                .map(|(n, t)| (n.to_string(), t.page_traces()))
                .collect::<Vec<_>>(),
        );
        per_query.push((q.id.clone(), med * 1e6 * threads as f64, counts));
        pb.inc(1);
    }
    // The slow tier's page costs on the database's own files, as `place validate`
    // samples them beside every placement: what the advice's promise is priced with
    // (`pmolap_place::calibration`).
    pb.set_message("page costs");
    let files = p.database().files();
    drop(p);
    let probe = crate::ssb::validate::probe::Probe::new(
        &files,
        threads,
        crate::tierprofile::readahead_pages(&dir, pmolap_store::pagelog::PAGE_BYTES),
    )?;
    let mut samples = Vec::with_capacity(PAGE_SAMPLES);
    for _ in 0..PAGE_SAMPLES {
        stop()?;
        samples.push(probe.sample()?);
    }
    let db = open_database(&dir, "home", false)?;
    let names: Vec<String> = db.tables().map(|(n, _)| n.to_string()).collect();
    let infos: Vec<_> = db.tables().map(|(_, t)| t.info()).collect();
    let tables: Vec<StoreTable<'_>> = names
        .iter()
        .zip(&infos)
        .zip(&per_query[0].2)
        .map(|((name, info), counts)| StoreTable { name, info, counts })
        .collect();
    let mut w = Workload::from_store_queries(&tables, &per_query)?;
    w.threads = Some(threads as u32);
    w.attach_pages(pmolap_store::pagelog::PAGE_BYTES, &pages)?;
    w.page_samples = samples;
    w.description = format!(
        "{} queries ({}) on {}, {threads} threads; T_DRAM = {wall_ms:.1} ms wall x {threads} threads, on an open all-DRAM database after {} s of warm-up passes",
        queries.len(),
        queries
            .iter()
            .map(|q| q.id.as_str())
            .collect::<Vec<_>>()
            .join(","),
        dir.display(),
        WARM_UP.as_secs(),
    );
    Ok(w)
}

/// The workload a validation predicts from: the file `given` (recorded with `pmolap place
/// workload` and the same queries), else recorded now on the database of `data` (3 timed
/// runs per query, [`ssb_workload`]).
pub fn given_or_recorded(
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
            ssb_workload(data, queries, 3, pb)
        }
    }
}

/// One query's counted-run times (ms) with page recording on and off.
#[derive(Debug, Clone)]
pub struct RecordingTimes {
    pub id: String,
    pub on_ms: Vec<f64>,
    pub off_ms: Vec<f64>,
}

/// What recording pages costs the counted run (issue 33: at most 5 %): `rounds` times,
/// every query's counted run (counters on, on one open all-DRAM database after the
/// warm-up passes, as [`ssb_workload`] runs it) with page recording on and off,
/// alternated — on first in odd rounds, off first in even ones, so drift falls on both
/// alike. Recording is on
/// again when it returns.
pub fn recording_overhead(
    data: &DataOptions,
    queries: &[Query],
    rounds: usize,
    pb: &ProgressBar,
) -> Result<Vec<RecordingTimes>> {
    let topo = Topology::detect()?;
    let dir = database_dir_noting(data, pb)?;
    let mut out: Vec<RecordingTimes> = queries
        .iter()
        .map(|q| RecordingTimes {
            id: q.id.clone(),
            on_ms: Vec::new(),
            off_ms: Vec::new(),
        })
        .collect();
    pb.set_length((2 * rounds * queries.len()) as u64);
    let p = Session::new(open_fresh_dram(&dir)?, &topo, data.exec.clone())?;
    warm_up(&p, queries)?;
    let counted = |q: &Query, pages: bool| -> Result<f64> {
        pmolap_store::pagelog::set_recording(pages);
        for (_, t) in p.database().tables() {
            t.reset_counters();
            t.set_counting(true);
        }
        let ms = p.run(q).map(|r| r.total_ms);
        for (_, t) in p.database().tables() {
            t.set_counting(false);
        }
        Ok(ms?)
    };
    let result = (|| -> Result<()> {
        for round in 0..rounds {
            let order = if round % 2 == 0 {
                [true, false]
            } else {
                [false, true]
            };
            for (q, r) in queries.iter().zip(&mut out) {
                for pages in order {
                    if pmolap_os::signal::interrupted() {
                        return Err(pmolap_os::Error::Interrupted.into());
                    }
                    let ms = counted(q, pages)?;
                    if pages {
                        r.on_ms.push(ms);
                    } else {
                        r.off_ms.push(ms);
                    }
                    pb.inc(1);
                }
            }
        }
        Ok(())
    })();
    pmolap_store::pagelog::set_recording(true);
    result.map(|()| out)
}
