//! The recorded-page model (workload format 2) against hand-computed reads and costs:
//! cold read-around and readahead windows, an LRU cache holding the working set (no
//! reads in the steady state) or one page short of a cyclic scan (every touch a fault),
//! read-around windows thrashing a cache the touched pages alone would fit, per-query
//! pricing inside the whole workload, the fallback for workloads without page records,
//! the prediction's band at ±10 % of the cache (a cliff of the miss curve), and the
//! format's checks.

use pmolap_place::pagecache::Policy;
use pmolap_place::pages::{recorded_reads, PageReads};
use pmolap_place::{
    Assignment, Model, ModelOptions, PageBasis, PageCosts, Profile, QueryLoad, StructureLoad,
    StructurePages, Workload,
};
use pmolap_store::format::FORMAT_VERSION;
use pmolap_store::{AccessCounts, PageStep};

mod common;

use common::{paged_dv as dv, PAGE};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
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

/// A cyclic workload: query 0 scans a's 6 pages, query 1 b's 4 pages.
fn cyclic() -> Workload {
    workload(
        vec![dv("a", 6), dv("b", 4)],
        vec![
            vec![(0, vec![step(1, &[[0, 6]])])],
            vec![(1, vec![step(1, &[[0, 4]])])],
        ],
    )
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
        fault_page_ns: Some(20_000.0),
        fault_latency_ns: None,
        reclaim_page_ns: None,
        streams: None,
        note: None,
    });
    p
}

/// Pages read and faults of every structure of `w`.
fn reads(w: &Workload, cache_pages: Option<u64>, window: u64) -> (f64, f64) {
    let p = disk(window);
    let r = recorded_reads(
        w,
        &|_| true,
        p.pages.as_ref().unwrap(),
        cache_pages,
        Policy::Lru,
    )
    .unwrap();
    assert_eq!(r.around + r.by_streams.iter().sum::<f64>(), r.read);
    (r.read, r.faults)
}

fn pr(read: f64, faults: f64) -> (f64, f64) {
    (read, faults)
}

#[test]
fn cold_reads_read_around_and_readahead_windows() {
    // One query scans pages 0..9 in step 1 and again in step 2, 4-page windows: the
    // fault at 0 reads 0..3 and marks 3; 3 reads 4..7 and marks 4; 4 reads 8..9 (the
    // end); step 2 hits. One fault, every page read once.
    let w = workload(
        vec![dv("a", 10)],
        vec![vec![(0, vec![step(1, &[[0, 10]]), step(2, &[[0, 10]])])]],
    );
    assert_eq!(reads(&w, None, 4), pr(10.0, 1.0));
    // Pages 0, 50 and 100 of a 200-page structure: three faults, each reading its
    // window (4 pages; 32 pages from 16 before it, cut at the start for page 0).
    let w = workload(
        vec![dv("a", 200)],
        vec![vec![(0, vec![step(1, &[[0, 1], [50, 1], [100, 1]])])]],
    );
    assert_eq!(reads(&w, None, 4), pr(12.0, 3.0));
    assert_eq!(reads(&w, None, 32), pr(96.0, 3.0));
    // A touch inside an earlier window is a hit: 100 reads 96..103 and marks 102; 101
    // hits; 102 hits its mark and reads the next window 104..111 ahead; 150 faults.
    let w = workload(
        vec![dv("a", 200)],
        vec![vec![(0, vec![step(1, &[[100, 1], [101, 1], [150, 1]])])]],
    );
    assert_eq!(reads(&w, None, 8), pr(16.0, 2.0));
    let w = workload(
        vec![dv("a", 200)],
        vec![vec![(0, vec![step(1, &[[100, 1], [102, 1], [150, 1]])])]],
    );
    assert_eq!(reads(&w, None, 8), pr(24.0, 2.0));
    assert_eq!(reads(&w, None, 1), pr(3.0, 3.0));
    // Cold: every query starts empty, so two queries touching the same page fault twice.
    let w = workload(
        vec![dv("a", 10)],
        vec![
            vec![(0, vec![step(1, &[[3, 1]])])],
            vec![(0, vec![step(1, &[[3, 1]])])],
        ],
    );
    assert_eq!(reads(&w, None, 1), pr(2.0, 2.0));
    // Cost: two threads; pages read around faults and ahead stall both.
    let p = disk(32);
    let pc = p.pages.as_ref().unwrap();
    assert!(close(
        PageReads::new(4.0, 6.0, 1.0).cost(pc, 2),
        2.0 * (4.0 * 20_000.0 + 6.0 * 2_000.0)
    ));
    // The scan of pages 0..9 with 4-page windows: 4 pages around the fault, 6 ahead.
    let w = workload(
        vec![dv("a", 10)],
        vec![vec![(0, vec![step(1, &[[0, 10]])])]],
    );
    let r = recorded_reads(
        &w,
        &|_| true,
        disk(4).pages.as_ref().unwrap(),
        None,
        Policy::default(),
    )
    .unwrap();
    assert_eq!((r.around, r.by_streams[0]), (4.0, 6.0));
    // The device's counters: pages read in bytes, faults.
    let io = PageReads::new(4.0, 6.0, 1.0).io(pc);
    assert_eq!((io.read_bytes, io.major_faults), (10.0 * PAGE as f64, 1.0));
}

#[test]
fn lru_cache_holding_the_working_set_misses_nothing_once_warm() {
    // A cyclic workload: query 0 scans a's 6 pages, query 1 b's 4 pages; no readahead.
    // The steady state (the pass after the warm-up) of a 10-page cache: the working set
    // fits, the compulsory misses were the warm-up's, nothing is read.
    let w = cyclic();
    assert_eq!(reads(&w, Some(10), 1), pr(0.0, 0.0));
    assert_eq!(reads(&w, Some(1000), 1), pr(0.0, 0.0));
    // One page smaller than the cycle: LRU evicts each page just before its reuse, so
    // every touch faults.
    assert_eq!(reads(&w, Some(9), 1), pr(10.0, 10.0));
    assert_eq!(reads(&w, Some(1), 1), pr(10.0, 10.0));
    // Through the model: the bounded cache prices the placement, here all slow.
    let p = disk(1);
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
    assert!(close(model(Some(9 * PAGE)), 10.0 * 20_000.0));
    // Cold (pages dropped before each query): every page once per query, the same here.
    assert!(close(model(None), 10.0 * 20_000.0));
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
fn a_prediction_on_a_cliff_of_the_miss_curve_says_so() {
    // The cyclic workload above behind exactly its 10 pages: 10 % less cache (9 pages)
    // and every touch faults, 10 % more and nothing is read.
    let w = cyclic();
    let mut p = disk(1);
    p.pages.as_mut().unwrap().fault_page_ns = Some(500_000.0);
    let o = pmolap_place::AdviceOptions::new(&w, 1 << 20);
    let slow = Assignment::all(2, 1);
    let band = o.cache_band(&w, &p, &slow, 10 * PAGE).unwrap();
    // T_DRAM 2 ms; 10 faults of 0.5 ms each: 1 + 5 / 2.
    assert!(close(band.less, 3.5), "{band:?}");
    assert!(close(band.at, 1.0) && close(band.more, 1.0), "{band:?}");
    assert!(band.on_cliff());
    assert_eq!(band.range(), (1.0, band.less));
    // Far from the cliff (a cache of 100 pages) the three agree.
    let flat = o.cache_band(&w, &p, &slow, 100 * PAGE).unwrap();
    assert!(!flat.on_cliff(), "{flat:?}");
    assert_eq!(flat.range(), (1.0, 1.0));
}

#[test]
fn read_around_windows_fill_a_small_cache_and_thrash() {
    // Query 0 touches one page of a, query 1 one page of b (16 pages each). The two
    // touched pages fit any cache of 2 pages, but each fault reads an 8-page window: in
    // an 8-page cache b's window evicts a's touched page and a's b's, so in the steady
    // state both queries fault and read their windows again. With 9 pages the touched
    // page (the most recent) outlives the other's window: nothing is read.
    let w = workload(
        vec![dv("a", 16), dv("b", 16)],
        vec![
            vec![(0, vec![step(1, &[[0, 1]])])],
            vec![(1, vec![step(1, &[[0, 1]])])],
        ],
    );
    assert_eq!(reads(&w, Some(8), 8), pr(16.0, 2.0));
    assert_eq!(reads(&w, Some(9), 8), pr(0.0, 0.0));
    // Without read-around the two pages fit 2.
    assert_eq!(reads(&w, Some(2), 1), pr(0.0, 0.0));
    // predict_io states it in the device's units.
    let p = disk(8);
    let m = Model::new(ModelOptions {
        page_cache_bytes: Some(8 * PAGE),
        // Counted by hand for one LRU list.
        reclaim: Policy::Lru,
        ..ModelOptions::new(1 << 20)
    })
    .unwrap();
    let io = m
        .predict_io(&w, std::slice::from_ref(&p), &Assignment::all(2, 1))
        .unwrap();
    assert_eq!((io.read_bytes, io.major_faults), (16.0 * PAGE as f64, 2.0));
    assert_eq!(
        m.predict_io(&w, std::slice::from_ref(&p), &Assignment::all(2, 0))
            .unwrap()
            .read_bytes,
        0.0
    );
}

#[test]
fn per_query_predictions_are_priced_inside_the_whole_workload() {
    // Query 0 reads a's 6 pages, query 1 a's first 2 and b's 4: behind a 7-page cache
    // each query's misses depend on what the other left (no readahead).
    let w = workload(
        vec![dv("a", 6), dv("b", 4)],
        vec![
            vec![(0, vec![step(1, &[[0, 6]])])],
            vec![(0, vec![step(1, &[[0, 2]])]), (1, vec![step(2, &[[0, 4]])])],
        ],
    );
    let p = disk(1);
    let m = Model::new(ModelOptions {
        page_cache_bytes: Some(7 * PAGE),
        // Counted by hand for one LRU list.
        reclaim: Policy::Lru,
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
    // a0, a1 were touched 5 distinct pages ago (hits); a2..a5 9 ago (4 faults). Query
    // 1: a0, a1 hit, b0..b3 fault.
    let q = |i| m.predict(&w.query(i).unwrap(), ps, &slow).unwrap().t_ns;
    let each = 4.0 * 20_000.0;
    assert!(close(q(0), each) && close(q(1), each), "{} {}", q(0), q(1));
    assert!(close(whole, 2.0 * each), "{whole}");
    // With 10 pages the cycle fits: nothing misses.
    let m10 = Model::new(ModelOptions {
        page_cache_bytes: Some(10 * PAGE),
        // Counted by hand for one LRU list.
        reclaim: Policy::Lru,
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
    // Recorded: pages 0..9 touched, one fault reading its 32-page window (from page 0).
    let t = m.costs(&rec, &p).unwrap()[0];
    assert!(close(t, 32.0 * 20_000.0), "{t}");
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
