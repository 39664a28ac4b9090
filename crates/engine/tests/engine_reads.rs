//! Guards what a run reports about its reads of the random star schema: the store's
//! access counters, the fact bytes a query reads, and joins through row references
//! tested as a range.

mod star;

use std::collections::BTreeMap;

use pmolap_engine::query::IndexChoice;
use pmolap_engine::{run_query, Database, ExecOptions, Layout, Query, StripedFact};
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
        if !counting {
            assert_eq!((dict_y.total(), dv_y.total(), dv_x.total()), (0, 0, 0));
            continue;
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
        let dir = tempfile::tempdir().unwrap();
        let data = star(&mut Rng(seed), dir.path(), rows, false);
        let db = Database::open(dir.path(), &Placement::home(), &OpenOptions::default()).unwrap();
        let opts = ExecOptions::default();
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
