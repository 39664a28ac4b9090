//! The placement advisor's input from a real run (placement paper §4.1): the queries run
//! on the database with every structure in DRAM — first timed without counters
//! (`T_DRAM`), then once more with the store's access counters on — and written as a
//! `pmolap_place::Workload` (per structure its bytes, type, width and counts per access
//! type).

use indicatif::ProgressBar;

use pmolap_engine::Query;
use pmolap_place::{StoreTable, Workload};
use pmolap_tier::Topology;

use super::data::{database_dir_noting, open_database, DataOptions, Prepared};
use super::run::{run_queries, Source};
use crate::error::{Error, Result};

/// Runs `queries` on the database of `data` in DRAM and returns its workload: `T_DRAM` is
/// the sum of the queries' median wall times × the worker threads (the model adds CPU
/// time, summed over threads), the counts those of one counted run of each query.
pub fn ssb_workload(
    data: &DataOptions,
    queries: &[Query],
    reps: usize,
    pb: &ProgressBar,
) -> Result<Workload> {
    let topo = Topology::detect()?;
    let dir = database_dir_noting(data, pb)?;
    let p = Prepared::new(open_database(&dir, "dram", true)?, &topo, data.exec.clone())?;
    pb.set_length((queries.len() * (reps + 1)) as u64);
    let figs = run_queries(Source::Warm(&p), queries, reps, pb)?;
    if figs.len() < queries.len() {
        return Err(Error::Ssb(
            "interrupted before every query was timed".into(),
        ));
    }
    let wall_ms: f64 = figs.iter().map(|f| f.median_ms).sum();
    let t_dram_ns = wall_ms * 1e6 * p.layout.threads as f64;
    for (_, t) in p.db.tables() {
        t.reset_counters();
        t.set_counting(true);
    }
    for q in queries {
        p.run(q)?;
        pb.inc(1);
    }
    let infos: Vec<_> =
        p.db.tables()
            .map(|(n, t)| {
                t.set_counting(false);
                (n.to_string(), t.info(), t.access_counts())
            })
            .collect();
    let tables: Vec<StoreTable<'_>> = infos
        .iter()
        .map(|(name, info, counts)| StoreTable { name, info, counts })
        .collect();
    let mut w = Workload::from_store(&tables, t_dram_ns)?;
    w.description = format!(
        "{} queries ({}) on {}, {} threads; T_DRAM = {wall_ms:.1} ms wall x {} threads",
        queries.len(),
        queries
            .iter()
            .map(|q| q.id.as_str())
            .collect::<Vec<_>>()
            .join(","),
        dir.display(),
        p.layout.threads,
        p.layout.threads
    );
    Ok(w)
}
