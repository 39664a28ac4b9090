//! Whole-database commits: a child process (this test binary, re-executed through the
//! workspace's one crash harness) loads a new generation of a two-table database and
//! aborts after its Nth write/persist step, for every N; afterwards the directory opens
//! as exactly the old database or exactly the new one — checked by a star-join query's
//! answer — never new dimensions beside an old fact table; the next writer cleans up.

use std::path::Path;

use pmolap_engine::{
    parse_queries, run_query, Database, ExecOptions, Layout, OutValue, StripedFact,
};
use pmolap_os::durable::crash;
use pmolap_store::database::{DatabaseWriter, DbWriteOptions};
use pmolap_store::table::OpenOptions;
use pmolap_store::{ColumnDef, ColumnType, Placement, Schema, TableBuilder, Value};
use pmolap_tier::{RegionOptions, Topology};

const ENV_DIR: &str = "PMOLAP_DB_CRASH_DIR";
const ENV_STEP: &str = "PMOLAP_DB_CRASH_STEP";

const QUERY: &str = r#"
id: "g"
fact: fact
joins:
  - { dim: dim, on: [f_key, d_key], carry: [d_group] }
aggregates: [{ name: total, sum: f_val }]
select: [d_group, total]
order_by: [d_group]
"#;

fn schema(cols: &[(&str, ColumnType)]) -> Schema {
    Schema {
        columns: cols
            .iter()
            .map(|(n, t)| ColumnDef {
                name: n.to_string(),
                ty: *t,
            })
            .collect(),
    }
}

/// Writes generation `seed` of the database: the dimension's groups and the fact
/// table's values both depend on the seed, so a mix of generations answers differently.
fn load(dir: &Path, seed: i64, crash_at: Option<u64>) {
    let mut w = DatabaseWriter::begin(
        dir,
        &DbWriteOptions {
            crash_after_step: crash_at,
            ..Default::default()
        },
    )
    .unwrap();
    let mut d = TableBuilder::new(schema(&[
        ("d_key", ColumnType::Int),
        ("d_group", ColumnType::Str),
    ]));
    for k in 0..20i64 {
        let g = format!("g{}", (k * seed) % 3);
        d.push_row(&[Value::Int(k), Value::Str(&g)]).unwrap();
    }
    let mut f = TableBuilder::new(schema(&[
        ("f_key", ColumnType::Int),
        ("f_val", ColumnType::Int),
    ]));
    for r in 0..(300 * seed) {
        f.push_row(&[Value::Int(r % 20), Value::Int(r * seed + 1)])
            .unwrap();
    }
    let opts = pmolap_store::WriteOptions {
        threads: 1,
        ..Default::default()
    };
    // The dimension first: a crash between the tables is the case that mixed
    // generations before whole-database commits.
    w.add_table("dim", d, &opts).unwrap();
    w.add_table("fact", f, &opts).unwrap();
    w.commit().unwrap();
}

fn answer(dir: &Path) -> Option<Vec<Vec<OutValue>>> {
    let db = match Database::open(dir, &Placement::home(), &OpenOptions::default()) {
        Ok(db) => db,
        Err(e) if e.to_string().contains("no tables here") => return None,
        Err(e) => panic!("after a crash the database does not open: {e}"),
    };
    let q = &parse_queries(QUERY, "test").unwrap()[0];
    let opts = ExecOptions {
        threads: 1,
        ..Default::default()
    };
    let fact = db.table("fact").unwrap();
    let layout = Layout::new(&Topology::detect().unwrap(), &opts, fact.rows()).unwrap();
    let region = RegionOptions::default();
    let striped = StripedFact::new(fact, &[], &layout, &region).unwrap();
    Some(
        run_query(&db, q, &layout, &striped, &opts, &region)
            .unwrap()
            .rows,
    )
}

/// The child side: does nothing unless the parent set the environment.
#[test]
fn crash_child() {
    let (Ok(dir), Some(step)) = (std::env::var(ENV_DIR), crash::child_step(ENV_STEP)) else {
        return;
    };
    load(Path::new(&dir), 2, Some(step));
}

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn crash_at_every_step_leaves_the_old_or_the_new_database() {
    let want = |seed| {
        let d = tempfile::tempdir().unwrap();
        load(d.path(), seed, None);
        answer(d.path()).unwrap()
    };
    let (old, new) = (want(1), want(2));
    assert_ne!(old, new, "the two generations must answer differently");
    let mut saw_new = false;
    let mut saw_old = false;
    let points = crash::every_step(
        "crash_child",
        ENV_STEP,
        400,
        |_| {
            let d = tempfile::tempdir().unwrap();
            load(d.path(), 1, None);
            let vars = vec![(ENV_DIR.to_string(), d.path().display().to_string())];
            (d, vars)
        },
        |step, crashed, d| {
            let got = answer(d.path()).expect("a database existed before");
            if got == new {
                saw_new = true;
            } else {
                assert_eq!(got, old, "step {step}: neither the old nor the new answer");
                assert!(crashed, "a load that completed publishes the new database");
                saw_old = true;
            }
            // Recovery: the next writer removes what the crashed one left.
            if step % 7 == 0 || !crashed {
                load(d.path(), 2, None);
                assert_eq!(answer(d.path()).unwrap(), new);
                assert_eq!(entries(d.path()), ["DATABASE", "LOCK", "g3"], "step {step}");
            }
        },
    );
    assert!(points > 30, "only {points} crash points were exercised");
    assert!(
        saw_old && saw_new,
        "crashes before and after the commit point"
    );
}

#[test]
fn a_failed_load_leaves_the_old_database_and_no_staging() {
    let d = tempfile::tempdir().unwrap();
    load(d.path(), 1, None);
    let before = answer(d.path()).unwrap();
    {
        let mut w = DatabaseWriter::begin(d.path(), &DbWriteOptions::default()).unwrap();
        let mut t = TableBuilder::new(schema(&[("d_key", ColumnType::Int)]));
        t.push_row(&[Value::Int(1)]).unwrap();
        w.add_table("dim", t, &Default::default()).unwrap();
        // The load stops here (an error, a missing input, Ctrl-C): no commit.
    }
    assert_eq!(answer(d.path()).unwrap(), before);
    assert_eq!(entries(d.path()), ["DATABASE", "LOCK", "g1"]);
}

#[test]
fn one_writer_and_no_writer_under_a_reader() {
    let d = tempfile::tempdir().unwrap();
    load(d.path(), 1, None);
    let w = DatabaseWriter::begin(d.path(), &DbWriteOptions::default()).unwrap();
    let e = DatabaseWriter::begin(d.path(), &DbWriteOptions::default()).unwrap_err();
    assert!(e.to_string().contains("is being written by pid"), "{e}");
    let e = Database::open(d.path(), &Placement::home(), &OpenOptions::default()).unwrap_err();
    assert!(e.to_string().contains("is being written by pid"), "{e}");
    drop(w);
    let db = Database::open(d.path(), &Placement::home(), &OpenOptions::default()).unwrap();
    let e = DatabaseWriter::begin(d.path(), &DbWriteOptions::default()).unwrap_err();
    assert!(e.to_string().contains("open for reading"), "{e}");
    drop(db);
    load(d.path(), 2, None);
}
