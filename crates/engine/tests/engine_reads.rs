//! Guards what a run reports about its reads of the random star schema: the store's
//! access counters, the fact bytes a query reads, joins through row references tested as
//! a range, or as ranges and then a bitmap, and sparse selections read by their bitmask.

mod star;

use std::collections::BTreeMap;

use pmolap_engine::query::IndexChoice;
use pmolap_engine::{run_query, Database, ExecOptions, Layout, OutValue, Query, StripedFact};
use pmolap_store::table::OpenOptions;
use pmolap_store::Placement;
use pmolap_tier::{RegionOptions, Topology};

use star::*;

/// The probe reads raw payloads with its own kernels; with the store's counters on it must
/// still count every access (dictionaries only: a frame reads no memory to decode, and
/// counts nothing): the aggregated `f_y` is decoded through its dictionary
/// exactly once per qualifying row, `f_x` twice (s1, s2), each read at least once from
/// its data vector (`f_x` too: a column under two aggregates is fetched once per morsel);
/// the first step scans every fact row; with counting off, nothing.
#[test]
fn probe_counts_fact_accesses_when_counting() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(0xc0_4e75);
    let rows = 20_011;
    let data = star(&mut rng, dir.path(), rows, true);
    let db = Database::open(dir.path(), &Placement::home(), &OpenOptions::default()).unwrap();
    let topo = Topology::detect().unwrap();
    let region = RegionOptions::default();
    let opts = ExecOptions {
        threads: 2,
        morsel_rows: 1024,
        oversubscribe: true,
        ..ExecOptions::default()
    };
    let layout = Layout::new(&topo, &opts, rows).unwrap();
    let fact = db.table("fact").unwrap();
    let striped = StripedFact::new(fact, &[], &layout, &region).unwrap();
    let col = |name: &str| fact.column(name).unwrap();
    let mut counted_rows = 0;
    for i in 0..25 {
        let q = random_query(&mut rng, &data, i, true);
        fact.reset_counters();
        fact.set_counting(i % 5 != 4);
        let run = run_query(&db, &q, &layout, &striped, &opts, &region).unwrap();
        let counting = fact.counting();
        fact.set_counting(false);
        let k = run.exec.rows_qualifying;
        let (dict_y, dv_y) = (col("f_y").dict.counts(), col("f_y").dv.counts());
        let (dict_x, dv_x) = (col("f_x").dict.counts(), col("f_x").dv.counts());
        let pages = |steps: Vec<pmolap_store::PageStep>, morsels: bool| {
            let mut all: Vec<u32> = steps
                .iter()
                .filter(|s| (s.step > 0) == morsels)
                .flat_map(|s| s.pages())
                .collect();
            all.sort_unstable();
            all.dedup();
            all
        };
        if !counting {
            assert_eq!((dict_y.total(), dv_y.total(), dv_x.total()), (0, 0, 0));
            assert!(
                col("f_y").dv.page_steps().is_empty() && col("f_y").dict.page_steps().is_empty()
            );
            continue;
        }
        // Pages recorded with the counts: the decoded ids' dictionary pages (within the
        // file, past its header page), steps within the query's 32.
        let dict_pages = pages(col("f_y").dict.page_steps(), true);
        assert_eq!(
            dict_pages.is_empty(),
            k == 0,
            "{}: f_y dictionary pages",
            q.id
        );
        let file = col("f_y").dict.file_pages() as u32;
        assert!(
            dict_pages.iter().all(|&p| p >= 1 && p < file),
            "{}: {dict_pages:?}",
            q.id
        );
        for c in ["f_y", "f_x"] {
            assert!(
                col(c).dv.page_steps().iter().all(|s| s.step <= 32),
                "{}",
                q.id
            );
        }
        assert_eq!(dict_y.total(), k, "{}: f_y dictionary", q.id);
        counted_rows += k;
        assert_eq!(dict_y.scan, 0, "{}", q.id);
        assert!(dict_x.total() >= 2 * k, "{}: {dict_x:?} < 2 x {k}", q.id);
        assert!(dv_y.total() >= k && dv_x.total() >= k, "{}", q.id);
        if !run.steps.is_empty() && run.exec.morsels > 0 {
            let scanned: u64 = ["f_a", "f_b", "f_a@a", "f_b@b", "f_x", "f_mode"]
                .iter()
                .map(|c| col(c).dv.counts().scan)
                .max()
                .unwrap();
            assert!(
                scanned >= rows as u64,
                "{}: first step scanned {scanned}",
                q.id
            );
            // The scanned column's morsels recorded every payload page.
            let covered = ["f_a", "f_b", "f_a@a", "f_b@b", "f_x", "f_mode"]
                .iter()
                .filter(|c| col(c).dv.counts().scan >= rows as u64)
                .all(|c| {
                    let want: Vec<u32> = (1..col(c).dv.file_pages() as u32).collect();
                    pages(col(c).dv.page_steps(), true) == want
                });
            assert!(
                covered,
                "{}: a scanned column's pages not all recorded",
                q.id
            );
        }
    }
    assert!(
        counted_rows > 0,
        "no query qualified a row: the test checked nothing"
    );
}

/// A star schema of `rows` fact rows in a temporary database, opened, with the plumbing
/// to run SQL on it (default execution options).
struct Fixture {
    _dir: tempfile::TempDir,
    data: BTreeMap<String, Data>,
    db: Database,
    layout: Layout,
    striped: StripedFact,
    opts: ExecOptions,
}

impl Fixture {
    fn new(seed: u64, rows: usize) -> Fixture {
        Fixture::sized(seed, rows, 300, ExecOptions::default())
    }

    /// With `dim_a` rows in dimension `a` and the options `opts`.
    fn sized(seed: u64, rows: usize, dim_a: i64, opts: ExecOptions) -> Fixture {
        Fixture::with(seed, rows, dim_a, false, opts)
    }

    /// [`Fixture::sized`], every integer column a sorted dictionary when
    /// `dictionary_only` (no frames of reference).
    fn with(
        seed: u64,
        rows: usize,
        dim_a: i64,
        dictionary_only: bool,
        opts: ExecOptions,
    ) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let data = star_sized(&mut Rng(seed), dir.path(), rows, dictionary_only, dim_a);
        let db = Database::open(dir.path(), &Placement::home(), &OpenOptions::default()).unwrap();
        let layout = Layout::new(&Topology::detect().unwrap(), &opts, rows).unwrap();
        let fact = db.table("fact").unwrap();
        let striped = StripedFact::new(fact, &[], &layout, &RegionOptions::default()).unwrap();
        Fixture {
            _dir: dir,
            data,
            db,
            layout,
            striped,
            opts,
        }
    }

    fn sql(&self, sql: &str) -> Query {
        let tables = |t: &str| {
            self.data
                .get(t)
                .map(|d| d.cols.iter().map(|c| c.0.clone()).collect())
        };
        pmolap_engine::sql::parse_sql(sql, "q", &tables).unwrap()
    }

    fn run(&self, q: &Query) -> pmolap_engine::QueryRun {
        let region = RegionOptions::default();
        run_query(
            &self.db,
            q,
            &self.layout,
            &self.striped,
            &self.opts,
            &region,
        )
        .unwrap()
    }
}

/// The bandwidth figure's numerator: only the fact columns the probe reads. A join on
/// `f_b` that neither filters (every key hits) nor carries is eliminated and its key
/// column not counted; a filtering join's key column and the aggregates' columns are.
#[test]
fn fact_bytes_count_the_columns_read() {
    let rows = 5_000;
    let f = Fixture::new(0xb17e5, rows);
    let fact = f.db.table("fact").unwrap();
    let bytes = |c: &str| fact.column(c).unwrap().dv.words().len() as u64 * 8;
    let eliminated = f.run(&f.sql("select sum(f_x) from fact, b where f_b = b_key"));
    assert_eq!(eliminated.exec.rows_qualifying, rows as u64);
    assert_eq!(eliminated.fact_bytes, bytes("f_x"));
    // Under `auto` the join reads the row-reference column, not the key.
    let filtered =
        f.run(&f.sql("select sum(f_x * f_y) from fact, a where f_a = a_key and a_key < 100"));
    assert_eq!(filtered.joins[0].index.kind, "row refs (f_a@a)");
    assert_eq!(
        filtered.fact_bytes,
        bytes("f_a@a") + bytes("f_x") + bytes("f_y")
    );
}

/// A predicate on the attribute a dimension's rows are ordered by selects one run of
/// rows: the join through the row references tests a range, the one through the key a
/// bitmap, with equal answers.
#[test]
fn ordered_dimension_joins_by_a_range_of_row_refs() {
    let f = Fixture::new(0x05ee_d0bd, 7_000);
    let mut q = f.sql(
        "select a_grp, count(*), sum(f_x) from fact, a where f_a = a_key \
         and a_name = 'CAT' group by a_grp order by a_grp",
    );
    let by_ref = f.run(&q);
    q.joins[0].index = IndexChoice::Dense;
    let by_key = f.run(&q);
    assert_eq!(by_ref.joins[0].filter, "range + lookup");
    assert_eq!(by_key.joins[0].filter, "bitmap + lookup");
    assert!(!by_ref.rows.is_empty());
    assert_eq!(by_ref.rows, by_key.rows);
}

/// A bitmap join whose passing rows lie in a narrow stretch of the dimension (one name
/// and a few groups of it, rows stored in that order, with holes: more than four runs) is
/// tested through its hull, the ranges first and the bitmap on the rows inside them, with
/// the answers of the join through the key (a bitmap over all rows) and of a count by
/// hand.
#[test]
fn a_bitmap_join_runs_through_its_hull() {
    let rows = 60_000;
    let opts = ExecOptions {
        threads: 2,
        morsel_rows: 1024,
        oversubscribe: true,
        ..ExecOptions::default()
    };
    let f = Fixture::sized(0x4a11, rows, 20_000, opts);
    let a = &f.data["a"];
    let int = |v: &V| match v {
        V::I(i) => *i,
        V::S(_) => unreachable!(),
    };
    let in_block = |r: usize| {
        matches!(&a.col("a_name")[r], V::S(s) if s == "BEE")
            && (1992..=1995).contains(&int(&a.col("a_grp")[r]))
    };
    // Holes: every 50th key of the block.
    let holes: Vec<i64> = (0..a.rows())
        .filter(|&r| in_block(r))
        .map(|r| int(&a.col("a_key")[r]))
        .step_by(50)
        .collect();
    assert!(
        holes.len() > 4,
        "too few rows in the block: {}",
        holes.len()
    );
    let list: Vec<String> = holes.iter().map(|k| k.to_string()).collect();
    let sql = format!(
        "select a_grp, count(*), sum(f_x) from fact, a where f_a = a_key \
         and a_name = 'BEE' and a_grp between 1992 and 1995 and a_key not in ({}) \
         group by a_grp order by a_grp",
        list.join(", ")
    );
    let mut q = f.sql(&sql);
    let hulled = f.run(&q);
    q.joins[0].index = IndexChoice::Dense;
    let by_key = f.run(&q);
    let join = |r: &pmolap_engine::QueryRun| {
        r.steps
            .iter()
            .find(|s| s.what == "join a")
            .map(|s| s.test.clone())
    };
    assert_eq!(join(&hulled).as_deref(), Some("ranges, then bitmap"));
    assert_eq!(join(&by_key).as_deref(), Some("bitmap"));
    // By hand: the passing keys, then the fact rows that reference them.
    let passing: BTreeMap<i64, i64> = (0..a.rows())
        .filter(|&r| in_block(r) && !holes.contains(&int(&a.col("a_key")[r])))
        .map(|r| (int(&a.col("a_key")[r]), int(&a.col("a_grp")[r])))
        .collect();
    let mut want: BTreeMap<i64, (i64, i64)> = BTreeMap::new();
    let fact = &f.data["fact"];
    for r in 0..fact.rows() {
        if let Some(&grp) = passing.get(&int(&fact.col("f_a")[r])) {
            let e = want.entry(grp).or_default();
            e.0 += 1;
            e.1 += int(&fact.col("f_x")[r]);
        }
    }
    let want: Vec<Vec<OutValue>> = want
        .into_iter()
        .map(|(g, (n, s))| vec![OutValue::Int(g), OutValue::Int(n), OutValue::Int(s)])
        .collect();
    assert_eq!(want.len(), 4, "rows of every group: {want:?}");
    assert_eq!(hulled.rows, want);
    assert_eq!(by_key.rows, want);
    // Without the group-by, the bitmap is the only test of the holes (no lookup of the
    // group codes drops their rows).
    let total = |i: usize| {
        want.iter().map(|r| r[i].clone()).fold(0, |t, v| match v {
            OutValue::Int(x) => t + x,
            _ => unreachable!(),
        })
    };
    let mut q = f.sql(
        &sql.replace("a_grp, count(*)", "count(*)")
            .replace("group by a_grp order by a_grp", ""),
    );
    let hulled = f.run(&q);
    q.joins[0].index = IndexChoice::Dense;
    let by_key = f.run(&q);
    assert_eq!(join(&hulled).as_deref(), Some("ranges, then bitmap"));
    let want = vec![vec![OutValue::Int(total(1)), OutValue::Int(total(2))]];
    assert_eq!(hulled.rows, want);
    assert_eq!(by_key.rows, want);
}

/// A fact filter keeping 3 % of the rows, then a 2-bit one keeping a third of those: the
/// second tests whole morsels (its column is narrow), and the aggregates, over columns of
/// at most 10 bits at 1 % of the rows, read by the bitmask with no selection vector
/// written — from the packed words where the columns are frames, by ids compressed by
/// the mask where they are dictionaries. The answers are those of a count by hand, and
/// so with a group-by (which writes the selection vector).
#[test]
fn a_sparse_bitmask_selection_reads_its_rows_by_the_mask() {
    let rows = 200_000;
    for dictionary_only in [false, true] {
        let f = Fixture::with(0x5a12e, rows, 300, dictionary_only, ExecOptions::default());
        let fact = &f.data["fact"];
        let int = |c: &str, r: usize| match &fact.col(c)[r] {
            V::I(i) => *i,
            V::S(_) => unreachable!(),
        };
        let passing: Vec<usize> = (0..rows)
            .filter(|&r| {
                (5..=7).contains(&int("f_x", r))
                    && matches!(&fact.col("f_mode")[r], V::S(s) if s == "AIR")
            })
            .collect();
        let share = passing.len() as f64 / rows as f64;
        assert!(
            (0.005..0.02).contains(&share),
            "{share}: not a sparse selection"
        );
        let fold = |rs: &[usize]| {
            vec![
                OutValue::Int(rs.len() as i64),
                OutValue::Int(rs.iter().map(|&r| int("f_y", r)).sum()),
                OutValue::Int(rs.iter().map(|&r| int("f_y", r)).min().unwrap()),
                OutValue::Int(rs.iter().map(|&r| int("f_x", r)).max().unwrap()),
                OutValue::Int(
                    rs.iter()
                        .map(|&r| int("f_x", r) * int("f_y", r))
                        .min()
                        .unwrap(),
                ),
                OutValue::Int(
                    rs.iter()
                        .map(|&r| int("f_x", r) + int("f_y", r))
                        .max()
                        .unwrap(),
                ),
            ]
        };
        let aggs = "count(*), sum(f_y), min(f_y), max(f_x), min(f_x * f_y), max(f_x + f_y)";
        let run = f.run(&f.sql(&format!(
            "select {aggs} from fact where f_x between 5 and 7 and f_mode = 'AIR'"
        )));
        assert_eq!(
            run.rows,
            vec![fold(&passing)],
            "dictionaries: {dictionary_only}"
        );
        let steps: Vec<&str> = run.steps.iter().map(|s| s.what.as_str()).collect();
        assert_eq!(steps, ["f_x", "f_mode"], "the selective filter first");
        // With a group-by on a dimension's attribute (the selection vector is written).
        let run = f.run(&f.sql(&format!(
            "select b_city, {aggs} from fact, b where f_b = b_key and f_x between 5 and 7 \
             and f_mode = 'AIR' group by b_city order by b_city"
        )));
        let b = &f.data["b"];
        let city: BTreeMap<i64, String> = (0..b.rows())
            .map(|r| match (&b.col("b_key")[r], &b.col("b_city")[r]) {
                (V::I(k), V::S(c)) => (*k, c.clone()),
                _ => unreachable!(),
            })
            .collect();
        let mut by_city: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for &r in &passing {
            by_city
                .entry(city[&int("f_b", r)].clone())
                .or_default()
                .push(r);
        }
        let want: Vec<Vec<OutValue>> = by_city
            .iter()
            .map(|(c, rs)| [vec![OutValue::Str(c.clone())], fold(rs)].concat())
            .collect();
        assert_eq!(run.rows, want, "grouped, dictionaries: {dictionary_only}");
    }
}

/// A join through the foreign key (a join index, not the row references) looks every key
/// of the key column's dictionary up once while planning: counted (one random lookup,
/// the rest near dense) and every page of the dictionary recorded in the planning step,
/// so the placement model knows the dictionary is read (issue 33: it was not, and a
/// dictionary "never accessed" faulted in every cold query).
#[test]
fn a_join_through_the_key_counts_its_dictionary_pass() {
    let f = Fixture::with(0xd1c7, 4_000, 300, true, ExecOptions::default());
    let fact = f.db.table("fact").unwrap();
    let dict = &fact.column("f_b").unwrap().dict;
    assert!(dict.len() > 1, "a sorted dictionary of several keys");
    let mut q = f.sql("select sum(f_x) from fact, b where f_b = b_key");
    q.joins[0].index = IndexChoice::Hash;
    for counting in [true, false] {
        fact.reset_counters();
        fact.set_counting(counting);
        f.run(&q);
        fact.set_counting(false);
        let c = dict.counts();
        let pages: Vec<u32> = dict
            .page_steps()
            .iter()
            .filter(|s| s.step == pmolap_store::pagelog::PLAN_STEP)
            .flat_map(|s| s.pages())
            .collect();
        if counting {
            assert_eq!((c.lookup, c.near_dense), (1, dict.len() as u64 - 1));
            // Every payload page (the header page is the file's first).
            let want: Vec<u32> = (1..dict.file_pages() as u32).collect();
            let mut got = pages.clone();
            got.sort_unstable();
            got.dedup();
            assert_eq!(got, want);
        } else {
            assert_eq!(c, pmolap_store::AccessCounts::default());
            assert!(pages.is_empty());
        }
    }
}
