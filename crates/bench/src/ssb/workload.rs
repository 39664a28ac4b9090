//! The placement advisor's input from a real run (placement paper §4.1): the queries run
//! on the database with every structure in DRAM — first timed without counters
//! (`T_DRAM`), then once more with the store's access counters on — and written as a
//! `pmolap_place::Workload` (per structure its bytes, type, width and counts per access
//! type).

use indicatif::ProgressBar;

use pmolap_engine::{Query, Session};
use pmolap_place::{StoreTable, Workload};
use pmolap_tier::Topology;

use super::data::{database_dir_noting, open_database, DataOptions};
use super::run::{run_queries, Source};
use crate::error::{Error, Result};

/// Runs `queries` on the database of `data` in DRAM and returns its workload: `T_DRAM` is
/// the sum of the queries' median wall times × the worker threads (the model adds CPU
/// time, summed over threads), the counts those of one counted run of each query on a
/// freshly opened database (so the join indexes are built, as in a cold run), kept per
/// query as well.
pub fn ssb_workload(
    data: &DataOptions,
    queries: &[Query],
    reps: usize,
    pb: &ProgressBar,
) -> Result<Workload> {
    if queries.is_empty() {
        return Err(Error::Ssb("no queries to run".into()));
    }
    let topo = Topology::detect()?;
    let dir = database_dir_noting(data, pb)?;
    let p = Session::new(open_database(&dir, "dram", true)?, &topo, data.exec.clone())?;
    pb.set_length((queries.len() * (reps + 1)) as u64);
    let figs = run_queries(Source::Warm(&p), queries, reps, pb)?;
    if figs.len() < queries.len() {
        return Err(Error::Ssb(
            "interrupted before every query was timed".into(),
        ));
    }
    let wall_ms: f64 = figs.iter().map(|f| f.median_ms).sum();
    let threads = p.layout().threads as f64;
    let names: Vec<String> = p.database().tables().map(|(n, _)| n.to_string()).collect();
    let mut per_query = Vec::new();
    let mut pages = Vec::new();
    for (q, f) in queries.iter().zip(&figs) {
        // A fresh preparation per query, as a cold run has: building the join indexes
        // (reading the dimension keys) is part of the query's accesses.
        let p = Session::new(open_database(&dir, "dram", true)?, &topo, data.exec.clone())?;
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
        per_query.push((q.id.clone(), f.median_ms * 1e6 * threads, counts));
        pb.inc(1);
    }
    let infos: Vec<_> = p.database().tables().map(|(_, t)| t.info()).collect();
    let tables: Vec<StoreTable<'_>> = names
        .iter()
        .zip(&infos)
        .zip(&per_query[0].2)
        .map(|((name, info), counts)| StoreTable { name, info, counts })
        .collect();
    let mut w = Workload::from_store_queries(&tables, &per_query)?;
    w.attach_pages(pmolap_store::pagelog::PAGE_BYTES, &pages)?;
    w.description = format!(
        "{} queries ({}) on {}, {} threads; T_DRAM = {wall_ms:.1} ms wall x {} threads",
        queries.len(),
        queries
            .iter()
            .map(|q| q.id.as_str())
            .collect::<Vec<_>>()
            .join(","),
        dir.display(),
        p.layout().threads,
        p.layout().threads
    );
    Ok(w)
}
