//! The recorded-page model (workload format 2) against hand-computed misses and costs:
//! cold first touches, readahead streams, an LRU cache holding the working set (no
//! misses in the steady state) or one page short of a cyclic scan (every access a
//! miss), per-query pricing inside the whole workload, the fallback for workloads
//! without page records, and the format's checks.

use pmolap_place::pages::{recorded_misses, PageMisses};
use pmolap_place::{
    Assignment, Encoding, Model, ModelOptions, PageBasis, PageCosts, Profile, QueryLoad,
    StructureLoad, StructurePages, Workload,
};
use pmolap_store::format::FORMAT_VERSION;
use pmolap_store::{AccessCounts, ColumnType, PageStep, StructureKind};

const PAGE: u64 = 4096;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

fn dv(column: &str, pages: u64) -> StructureLoad {
    StructureLoad {
        table: "t".into(),
        column: column.into(),
        kind: StructureKind::DataVector,
        bytes: pages * PAGE,
        value_type: ColumnType::Int,
        encoding: Some(Encoding::Uncompressed),
        bit_width: Some(8),
        counts: AccessCounts::scans(1),
    }
}

fn step(step: u32, runs: &[[u32; 2]]) -> PageStep {
    PageStep {
        step,
        runs: runs.to_vec(),
    }
}

/// A workload of `structures` whose query `q` touched `pages[q]` (structure, steps).
fn workload(structures: Vec<StructureLoad>, pages: Vec<Vec<(usize, Vec<PageStep>)>>) -> Workload {
    let n = structures.len();
    let mut w = Workload::new(FORMAT_VERSION, 1e6 * pages.len() as f64, structures).unwrap();
    w.queries = pages
        .into_iter()
        .enumerate()
        .map(|(i, p)| QueryLoad {
            id: format!("q{i}"),
            t_dram_ns: 1e6,
            counts: vec![AccessCounts::scans(1); n],
            pages: p
                .into_iter()
                .map(|(structure, steps)| StructurePages { structure, steps })
                .collect(),
        })
        .collect();
    w.page_bytes = Some(PAGE);
    w.validate("<test>").unwrap();
    w
}

fn disk(readahead: u64) -> Profile {
    let mut p = Profile::optane_200();
    p.tier = "disk".into();
    p.pages = Some(PageCosts {
        page_bytes: PAGE,
        random_page_ns: 50_000.0,
        sequential_page_ns: 2_000.0,
        fault_pages: 1,
        readahead_pages: Some(readahead),
        note: None,
    });
    p
}

fn misses(w: &Workload, cache_pages: Option<u64>, window: u64) -> PageMisses {
    let p = disk(window);
    recorded_misses(w, &|_| true, p.pages.as_ref().unwrap(), cache_pages).unwrap()
}

fn pm(sequential: f64, faults: f64) -> PageMisses {
    PageMisses { sequential, faults }
}

#[test]
fn cold_counts_first_touches_and_readahead_streams() {
    // One query scans pages 0..9 in step 1 and again in step 2: 10 first touches, one
    // fault then 9 pages streamed.
    let w = workload(
        vec![dv("a", 10)],
        vec![vec![(0, vec![step(1, &[[0, 10]]), step(2, &[[0, 10]])])]],
    );
    assert_eq!(misses(&w, None, 32), pm(9.0, 1.0));
    // Pages 0, 5 and 100 of a 200-page structure with a 32-page window: a fault, a
    // stream over the 5-page gap, a fault; with a 4-page window, three faults.
    let w = workload(
        vec![dv("a", 200)],
        vec![vec![(0, vec![step(1, &[[0, 1], [5, 1], [100, 1]])])]],
    );
    assert_eq!(misses(&w, None, 32), pm(5.0, 2.0));
    assert_eq!(misses(&w, None, 4), pm(0.0, 3.0));
    // A fault reads `fault_pages` around it: with 8, the fault at 100 reads 96..103, so
    // 102 costs nothing; 150 faults (a 1-page readahead window: no stream).
    let w = workload(
        vec![dv("a", 200)],
        vec![vec![(0, vec![step(1, &[[100, 1], [102, 1], [150, 1]])])]],
    );
    let mut p8 = disk(1);
    p8.pages.as_mut().unwrap().fault_pages = 8;
    let m8 = recorded_misses(&w, &|_| true, p8.pages.as_ref().unwrap(), None).unwrap();
    assert_eq!(m8, pm(0.0, 2.0));
    assert_eq!(misses(&w, None, 1), pm(0.0, 3.0));
    // Cold: every query starts empty, so two queries touching the same page fault twice.
    let w = workload(
        vec![dv("a", 10)],
        vec![
            vec![(0, vec![step(1, &[[3, 1]])])],
            vec![(0, vec![step(1, &[[3, 1]])])],
        ],
    );
    assert_eq!(misses(&w, None, 32), pm(0.0, 2.0));
    // Cost: two threads; sequential pages stall both, faults overlap.
    let p = disk(32);
    let pc = p.pages.as_ref().unwrap();
    assert!(close(
        pm(9.0, 1.0).cost(pc, 2),
        2.0 * 9.0 * 2_000.0 + 50_000.0
    ));
}

#[test]
fn lru_cache_holding_the_working_set_misses_nothing_once_warm() {
    // A cyclic workload: query 0 scans a's 6 pages, query 1 b's 4 pages. The steady
    // state (the pass after the warm-up) of a 10-page cache: the working set fits, the
    // compulsory misses were the warm-up's, nothing misses.
    let w = workload(
        vec![dv("a", 6), dv("b", 4)],
        vec![
            vec![(0, vec![step(1, &[[0, 6]])])],
            vec![(1, vec![step(1, &[[0, 4]])])],
        ],
    );
    assert_eq!(misses(&w, Some(10), 32), pm(0.0, 0.0));
    assert_eq!(misses(&w, Some(1000), 32), pm(0.0, 0.0));
    // One page smaller than the cycle: LRU evicts each page just before its reuse, so
    // every access misses: per query a fault and the rest streamed.
    assert_eq!(misses(&w, Some(9), 32), pm(5.0 + 3.0, 2.0));
    assert_eq!(misses(&w, Some(1), 32), pm(8.0, 2.0));
    // Through the model: the bounded cache prices the placement, here all slow.
    let p = disk(32);
    let slow = Assignment::all(2, 1);
    let model = |cache: Option<u64>| {
        Model::new(ModelOptions {
            page_cache_bytes: cache,
            io_threads: 1,
            ..ModelOptions::new(1 << 20)
        })
        .unwrap()
        .predict(&w, std::slice::from_ref(&p), &slow)
        .unwrap()
        .t_ns
    };
    assert_eq!(model(Some(10 * PAGE)), 0.0);
    assert!(close(model(Some(9 * PAGE)), 8.0 * 2_000.0 + 2.0 * 50_000.0));
    // Cold (pages dropped before each query): every page once per query, the same here.
    assert!(close(model(None), 8.0 * 2_000.0 + 2.0 * 50_000.0));
    // Only b on the slow tier: its 4 pages fit a 4-page cache.
    let b_slow = Assignment { tier: vec![0, 1] };
    let mb = Model::new(ModelOptions {
        page_cache_bytes: Some(4 * PAGE),
        ..ModelOptions::new(1 << 20)
    })
    .unwrap();
    let t = mb
        .predict(&w, std::slice::from_ref(&p), &b_slow)
        .unwrap()
        .t_ns;
    assert_eq!(t, 0.0);
}

#[test]
fn per_query_predictions_are_priced_inside_the_whole_workload() {
    // Query 0 reads a's 6 pages, query 1 a's first 2 and b's 4: behind a 7-page cache
    // each query's misses depend on what the other left.
    let w = workload(
        vec![dv("a", 6), dv("b", 4)],
        vec![
            vec![(0, vec![step(1, &[[0, 6]])])],
            vec![(0, vec![step(1, &[[0, 2]])]), (1, vec![step(2, &[[0, 4]])])],
        ],
    );
    let p = disk(32);
    let m = Model::new(ModelOptions {
        page_cache_bytes: Some(7 * PAGE),
        ..ModelOptions::new(1 << 20)
    })
    .unwrap();
    let slow = Assignment::all(2, 1);
    let ps = std::slice::from_ref(&p);
    let whole = m.predict(&w, ps, &slow).unwrap().t_ns;
    let parts: f64 = (0..2)
        .map(|i| m.predict(&w.query(i).unwrap(), ps, &slow).unwrap().t_ns)
        .sum();
    assert!(close(whole, parts), "{whole} vs {parts}");
    // By hand: stream a0..a5 | a0 a1 b0..b3, repeated. Query 0 in the steady state:
    // a0, a1 saw 5 distinct pages since their reuse in query 1 (hits); a2..a5 saw 9
    // (misses): a fault at a2 and 3 pages streamed. Query 1: a0, a1 hit (5 pages in
    // between), b0..b3 saw 9 (b's others, a0..a5): misses, a fault and 3 streamed.
    let q = |i| m.predict(&w.query(i).unwrap(), ps, &slow).unwrap().t_ns;
    let each = 50_000.0 + 3.0 * 2_000.0;
    assert!(close(q(0), each) && close(q(1), each), "{} {}", q(0), q(1));
    assert!(close(whole, 2.0 * each), "{whole}");
    // With 10 pages the cycle fits: nothing misses.
    let m10 = Model::new(ModelOptions {
        page_cache_bytes: Some(10 * PAGE),
        ..ModelOptions::new(1 << 20)
    })
    .unwrap();
    assert_eq!(
        m10.predict(&w.query(1).unwrap(), ps, &slow).unwrap().t_ns,
        0.0
    );
}

#[test]
fn workloads_without_page_records_use_the_count_model() {
    let mut s = dv("a", 100);
    s.counts = AccessCounts::scans(40_960);
    let w = Workload::new(FORMAT_VERSION, 1e6, vec![s]).unwrap();
    assert_eq!(Model::page_basis(&w), PageBasis::Counts);
    let p = disk(32);
    let m = Model::new(ModelOptions::new(1 << 20)).unwrap();
    // 40960 8-bit entries: 10 pages in order.
    let t = m.costs(&w, &p).unwrap()[0];
    assert!(close(t, 10.0 * 2_000.0), "{t}");
    let rec = workload(
        vec![dv("a", 100)],
        vec![vec![(0, vec![step(1, &[[0, 10]])])]],
    );
    assert_eq!(Model::page_basis(&rec), PageBasis::Recorded);
    let t = m.costs(&rec, &p).unwrap()[0];
    assert!(close(t, 50_000.0 + 9.0 * 2_000.0), "{t}");
}

fn load_json(text: &str) -> pmolap_place::Result<Workload> {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("w.json");
    std::fs::write(&f, text).unwrap();
    Workload::load(&f)
}

#[test]
fn format_2_round_trips_and_format_1_still_reads() {
    let dir = tempfile::tempdir().unwrap();
    let w = workload(vec![dv("a", 10)], vec![vec![(0, vec![step(0, &[[1, 3]])])]]);
    let f = dir.path().join("w.json");
    w.save(&f).unwrap();
    let back = Workload::load(&f).unwrap();
    assert_eq!(back, w);
    // A version-1 document (no page records) loads and is priced from its counts.
    let mut v1 =
        serde_json::to_value(Workload::new(FORMAT_VERSION, 1e6, vec![dv("a", 10)]).unwrap())
            .unwrap();
    v1["version"] = 1.into();
    std::fs::write(&f, v1.to_string()).unwrap();
    let old = Workload::load(&f).unwrap();
    assert_eq!(old.version, 1);
    assert_eq!(Model::page_basis(&old), PageBasis::Counts);
    // Page records in a version-1 document, a run past the structure, runs out of
    // order, steps twice, a structure out of range: one-line errors.
    let mut bad = serde_json::to_value(&w).unwrap();
    bad["version"] = 1.into();
    let e = load_json(&bad.to_string()).unwrap_err().to_string();
    assert!(e.contains("version 2"), "{e}");
    for (path, value, says) in [
        (
            "/queries/0/pages/0/steps/0/runs/0",
            serde_json::json!([8, 3]),
            "past",
        ),
        (
            "/queries/0/pages/0/steps/0/runs",
            serde_json::json!([[5, 1], [1, 1]]),
            "out of order",
        ),
        (
            "/queries/0/pages/0/steps",
            serde_json::json!([{"step": 1, "runs": [[0, 1]]}, {"step": 1, "runs": [[0, 1]]}]),
            "step 1",
        ),
        (
            "/queries/0/pages/0/structure",
            serde_json::json!(4),
            "there are 1",
        ),
    ] {
        let mut v = serde_json::to_value(&w).unwrap();
        *v.pointer_mut(path).unwrap() = value;
        let e = load_json(&v.to_string()).unwrap_err().to_string();
        assert!(e.contains(says) && !e.contains('\n'), "{path}: {e}");
    }
}
