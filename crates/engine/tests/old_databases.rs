//! Guards that SSB databases written before `ssb load` went through the generic load —
//! whose `DATABASE` names no fact table and records no synonyms — still answer: the fact
//! table is the one their row references start from (else the largest), and the SSB
//! texts' `ddate` still names `date` there (and only there: another database has no
//! such name unless its schema declared it).

use std::collections::BTreeMap;
use std::path::Path;

use pmolap_engine::{ExecOptions, OutValue, Session};
use pmolap_ssb::{build_table, Table};
use pmolap_store::rowref::row_refs;
use pmolap_store::{DatabaseWriter, DbWriteOptions, Placement, RowRef, WriteOptions};
use pmolap_tier::Topology;

/// The SSB tables date, customer and lineorder at SF 0.01 written as a database with
/// `meta` and, with `refs`, the row reference of lo_custkey (as `ssb load` wrote them).
fn write(dir: &Path, meta: serde_json::Value, refs: bool) {
    let meta: BTreeMap<String, serde_json::Value> = serde_json::from_value(meta).unwrap();
    let mut w = DatabaseWriter::begin(
        dir,
        &DbWriteOptions {
            meta,
            ..Default::default()
        },
    )
    .unwrap();
    let sf = 0.01;
    let customer = build_table(Table::Customer, sf, &|_| {}).unwrap();
    let keys = customer.int_column("c_custkey").unwrap().to_vec();
    w.add_table("customer", customer, &WriteOptions::default())
        .unwrap();
    let date = build_table(Table::Date, sf, &|_| {}).unwrap();
    w.add_table("date", date, &WriteOptions::default()).unwrap();
    let mut fact = build_table(Table::LineOrder, sf, &|_| {}).unwrap();
    if refs {
        let r = row_refs(fact.int_column("lo_custkey").unwrap(), &keys).unwrap();
        fact.add_int_column("lo_custkey@customer", r).unwrap();
    }
    w.add_table("lineorder", fact, &WriteOptions::default())
        .unwrap();
    if refs {
        w.add_row_ref(RowRef {
            table: "lineorder".into(),
            key: "lo_custkey".into(),
            column: "lo_custkey@customer".into(),
            dim: "customer".into(),
            dim_key: "c_custkey".into(),
            order: vec![],
        })
        .unwrap();
    }
    w.commit().unwrap();
}

fn session(dir: &Path) -> Session {
    Session::open(
        dir,
        &Placement::home(),
        false,
        &Topology::detect().unwrap(),
        ExecOptions {
            threads: 2,
            oversubscribe: true,
            ..ExecOptions::default()
        },
    )
    .unwrap()
}

fn answer(s: &Session, sql: &str) -> pmolap_engine::Result<Vec<Vec<OutValue>>> {
    Ok(s.sql(sql)?.remove(0).rows)
}

const BY_YEAR: &str = "select d_year, count(*) from lineorder, TABLE where lo_orderdate = d_datekey and c_region = 'ASIA' and lo_custkey = c_custkey group by d_year order by d_year";

#[test]
fn an_ssb_database_written_before_answers_ddate_on_its_fact_table() {
    let tmp = tempfile::tempdir().unwrap();
    let old = tmp.path().join("old");
    write(
        &old,
        serde_json::json!({"workload": "ssb", "sf": 0.01}),
        true,
    );
    let s = session(&old);
    assert_eq!(s.database().fact_table().unwrap().0, "lineorder");
    let by_date = answer(&s, &BY_YEAR.replace("TABLE", "date, customer")).unwrap();
    assert!(!by_date.is_empty());
    let by_ddate = answer(&s, &BY_YEAR.replace("TABLE", "ddate, customer")).unwrap();
    assert_eq!(by_ddate, by_date);
    // A YAML query naming no fact table runs on it.
    let q = pmolap_engine::parse_queries(
        "- { id: n, aggregates: [{ name: n, count: \"*\" }], select: [n] }",
        "q.yaml",
    )
    .unwrap();
    let n = s.run(&q[0]).unwrap().rows;
    assert_eq!(
        n,
        vec![vec![OutValue::Int(
            s.database().table("lineorder").unwrap().rows() as i64
        )]]
    );

    // Without row references the fact table is the largest; `ddate` still resolves.
    let no_refs = tmp.path().join("no-refs");
    write(&no_refs, serde_json::json!({"workload": "ssb"}), false);
    let s = session(&no_refs);
    assert_eq!(s.database().fact_table().unwrap().0, "lineorder");
    assert_eq!(
        answer(&s, &BY_YEAR.replace("TABLE", "ddate, customer")).unwrap(),
        by_date
    );

    // Another database has no `ddate`.
    let other = tmp.path().join("other");
    write(&other, serde_json::json!({"workload": "star"}), true);
    let e = answer(
        &session(&other),
        &BY_YEAR.replace("TABLE", "ddate, customer"),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("ddate") && e.contains("not in the database"),
        "{e}"
    );
}
