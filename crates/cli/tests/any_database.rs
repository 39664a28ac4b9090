//! Guards that everything after a load works on a database that is not SSB
//! (workloads/star-retail, loaded by `pmolap load`): `pmolap query FILE` (SQL, and YAML
//! naming no fact table) and its alias `ssb query`, `pmolap tiers --queries FILE.sql` on
//! the machine's tiers, `place workload --queries FILE.sql`, and `store info` of the
//! database — each answering what workloads/star-retail/expected.py computes; without
//! `--queries` (the SSB queries) a one-line error saying the database is not SSB.

mod common;

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use common::{ok, pmolap, read_json, refused, repo};

/// star-retail loaded into `<tmp>/db`.
fn retail_db(tmp: &Path) -> PathBuf {
    let from = repo().join("workloads/star-retail");
    let db = tmp.join("db");
    ok(pmolap()
        .args(["load", "--quiet", "--schema"])
        .arg(from.join("schema.sql"))
        .arg("--from")
        .arg(&from)
        .arg("--out")
        .arg(&db));
    db
}

/// Two of load_cli.rs's queries (its q1 and q5), named.
const SQL: &str = "
-- Q1
select st_region, sum(sa_quantity * sa_price) as revenue, count(*) as n
  from sales, store where sa_store = st_id and sa_date >= DATE '2024-01-01'
  group by st_region order by st_region;
-- Q5
select st_city, sum(sa_quantity) from sales, store, product
  where sa_store = st_id and sa_product = p_id and st_region = 'EU' and sa_price <= 50
    and p_color <> 'red'
  group by st_city order by st_city;
";

/// What expected.py gives for them (load_cli.rs's `expected()`, q1 and q5).
fn expected() -> Value {
    json!({
        "1": [["AM", "17042.510", 42], ["AS", "5891.945", 21], ["EU", "22253.680", 59]],
        "5": [["Berlin", "15.5"], ["Hamburg", "27.0"], ["Paris", "58.5"]]
    })
}

fn write_sql(tmp: &Path) -> PathBuf {
    let f = tmp.join("q.sql");
    std::fs::write(&f, SQL).unwrap();
    f
}

/// `pmolap query FILE.sql` answers on a non-SSB database, as `ssb query` (the alias)
/// does; a YAML query without `fact:` runs on the database's fact table (`sales`, not
/// `lineorder`).
#[test]
fn query_runs_a_file_on_any_database() {
    let tmp = tempfile::tempdir().unwrap();
    let db = retail_db(tmp.path());
    let sql = write_sql(tmp.path());
    for (cmd, name) in [
        (&["query"][..], "a.json"),
        (&["ssb", "query"][..], "b.json"),
    ] {
        let answers = tmp.path().join(name);
        ok(pmolap()
            .args(cmd)
            .arg(&sql)
            .args(["--quiet", "--reps", "1", "--data"])
            .arg(&db)
            .arg("--answers")
            .arg(&answers));
        assert_eq!(read_json(&answers), expected(), "{cmd:?}");
    }
    let yaml = tmp.path().join("q.yaml");
    std::fs::write(
        &yaml,
        r#"- id: eu
  joins:
    - { dim: store, on: [sa_store, st_id], where: { st_region: { eq: EU } }, carry: [st_region] }
  aggregates: [{ name: n, count: "*" }]
  select: [st_region, n]
"#,
    )
    .unwrap();
    let answers = tmp.path().join("y.json");
    let out = ok(pmolap()
        .arg("query")
        .arg(&yaml)
        .args(["--quiet", "--reps", "1", "--data"])
        .arg(&db)
        .arg("--answers")
        .arg(&answers));
    assert!(out.contains("eu"), "{out}");
    // 74 of the 160 sales are in an EU store (counted over sales.csv and store.csv; 5
    // have a NULL store and join none).
    assert_eq!(read_json(&answers)["eu"], json!([["EU", 74]]));
    // The SSB queries on it are refused in one line naming what is missing.
    let e = refused(
        pmolap()
            .args([
                "ssb",
                "run",
                "--quiet",
                "--reps",
                "1",
                "--queries",
                "1.1",
                "--data",
            ])
            .arg(&db),
    );
    assert!(
        e.contains("fact table `sales` has no column `lo_discount`"),
        "{e}"
    );
}

/// `pmolap tiers --queries FILE.sql` runs every query on the machine's tiers (DRAM first,
/// then /dev/shm and the database's own files on the disk where they exist), each tier
/// giving the same answers, and the slowdown table names them.
#[test]
fn tiers_runs_a_sql_file_on_the_machines_tiers() {
    let tmp = tempfile::tempdir().unwrap();
    let db = retail_db(tmp.path());
    let sql = write_sql(tmp.path());
    let json = tmp.path().join("tiers.json");
    let out = ok(pmolap()
        .args(["tiers", "--quiet", "--reps", "1", "--only", "dram,shm,home"])
        .arg("--queries")
        .arg(&sql)
        .arg("--data")
        .arg(&db)
        .arg("--json")
        .arg(&json));
    assert!(out.contains("vs dram"), "{out}");
    let doc = read_json(&json);
    let tiers = doc["tiers"].as_array().unwrap();
    assert!(tiers.len() >= 2, "dram and a file tier: {out}");
    assert_eq!(tiers[0]["tier"]["spec"], "dram");
    for t in tiers {
        let got: serde_json::Map<String, Value> = t["queries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| {
                (
                    q["id"].as_str().unwrap().to_string(),
                    q["last"]["rows"].clone(),
                )
            })
            .collect();
        assert_eq!(Value::Object(got), expected(), "{}", t["tier"]["name"]);
    }
}

/// Without `--queries`, `tiers` and `place workload` (the built-in SSB queries) on a
/// database that is not SSB are refused with one line saying so and to pass a query
/// file (not an error about a missing `lo_` column), writing nothing.
#[test]
fn the_ssb_queries_on_another_schema_say_to_pass_a_query_file() {
    let tmp = tempfile::tempdir().unwrap();
    let db = retail_db(tmp.path());
    let json = tmp.path().join("out.json");
    let tiers = refused(
        pmolap()
            .args(["tiers", "--quiet", "--reps", "1", "--data"])
            .arg(&db)
            .arg("--json")
            .arg(&json),
    );
    let place = refused(
        pmolap()
            .args(["place", "workload", "--reps", "1", "--data"])
            .arg(&db)
            .arg("--out")
            .arg(&json),
    );
    for e in [tiers, place] {
        assert!(
            e.contains("this database is not SSB (its fact table is `sales`, not `lineorder`)")
                && e.contains("pass --queries FILE.sql")
                && !e.contains("lo_"),
            "{e}"
        );
    }
    assert!(!json.exists());
}

/// `place workload --queries FILE.sql` records the star-retail structures the queries
/// read (fact and dimension columns, the row-reference columns), and `store info` of the
/// database shows what `DATABASE` records and every table.
#[test]
fn place_workload_and_store_info_on_any_database() {
    let tmp = tempfile::tempdir().unwrap();
    let db = retail_db(tmp.path());
    let sql = write_sql(tmp.path());
    let w = tmp.path().join("w.json");
    let out = ok(pmolap()
        .args(["place", "workload", "--reps", "1", "--queries"])
        .arg(&sql)
        .arg("--data")
        .arg(&db)
        .arg("--out")
        .arg(&w));
    assert!(out.contains("structures"), "{out}");
    let doc = read_json(&w);
    let read = |table: &str, column: &str| {
        doc["structures"].as_array().unwrap().iter().any(|s| {
            s["table"] == table
                && s["column"] == column
                && s["counts"]
                    .as_object()
                    .is_some_and(|c| c.values().any(|v| v.as_f64().unwrap_or(0.0) > 0.0))
        })
    };
    for (t, c) in [
        ("sales", "sa_quantity"),
        ("sales", "sa_price"),
        ("sales", "sa_store@store"),
        ("store", "st_region"),
        ("product", "p_color"),
    ] {
        assert!(read(t, c), "{t}.{c} not recorded as read: {doc}");
    }

    let text = ok(pmolap().args(["store", "info"]).arg(&db));
    for want in [
        "fact       sales",
        "row refs   sales.sa_store -> store.st_id (column sa_store@store",
        "its rows ordered by p_category, p_brand, p_id",
        "rows       160",
        "decimal(8,2)",
    ] {
        assert!(text.contains(want), "`{want}` missing:\n{text}");
    }
    let info: Value =
        serde_json::from_str(&ok(pmolap().args(["store", "info", "--json"]).arg(&db))).unwrap();
    assert_eq!(info["meta"]["fact"], "sales");
    assert_eq!(info["tables"].as_array().unwrap().len(), 4);
    assert_eq!(info["row_refs"].as_array().unwrap().len(), 3);
    // One table of it, by `<database>/<table>`, as before.
    let one = ok(pmolap().args(["store", "info"]).arg(db.join("store")));
    assert!(one.contains("rows       8"), "{one}");
}
