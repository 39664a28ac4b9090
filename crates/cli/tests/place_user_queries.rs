//! Guards `pmolap place workload` on the user's own SQL and YAML queries and `place
//! advise`'s default profile (the newest measured here, else a one-line refusal naming
//! what to do); the rest of `pmolap place`: tests/place_cli.rs.

mod common;

use std::path::Path;

use common::place::test_profile;
use common::{ok, pmolap, read_json, refused, ssb_load};

/// `place workload --queries FILE.sql|FILE.yaml` records the user's own queries (named in
/// the document); `advise` without --profile takes the newest profile measured here in
/// results/place/profiles/, and without one says to run `place profile` or name one.
#[test]
fn user_queries_and_the_default_profile() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let data = root.join("ssb");
    ssb_load("0.01", &data);
    let sql = root.join("mine.sql");
    std::fs::write(
        &sql,
        "-- Q9.1\nselect sum(lo_revenue) from lineorder where lo_quantity < 10;\n\
         -- Q9.2\nselect d_year, sum(lo_revenue) as revenue from lineorder, ddate \
         where lo_orderdate = d_datekey and lo_quantity < 25 group by d_year order by d_year;\n",
    )
    .unwrap();
    let record = |queries: &Path, out: &Path| {
        ok(pmolap()
            .current_dir(root)
            .args(["place", "workload", "--reps", "1", "--queries"])
            .arg(queries)
            .arg("--data")
            .arg(&data)
            .arg("--out")
            .arg(out))
    };
    let w = root.join("w-sql.json");
    record(&sql, &w);
    let doc = read_json(&w);
    let ids: Vec<&str> = doc["queries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["9.1", "9.2"]);
    assert!(
        doc["description"].as_str().unwrap().contains("mine.sql"),
        "{doc}"
    );
    assert!(doc["threads"].as_u64().unwrap() >= 1);
    let revenue_scans: u64 = doc["structures"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["column"] == "lo_revenue" && s["kind"] == "data_vector")
        .map(|s| {
            s["counts"]["scan"].as_u64().unwrap()
                + s["counts"]["lookup"].as_u64().unwrap()
                + s["counts"]["near_dense"].as_u64().unwrap()
                + s["counts"]["medium_dense"].as_u64().unwrap()
                + s["counts"]["far_dense"].as_u64().unwrap()
        })
        .sum();
    assert!(revenue_scans > 0, "lo_revenue never read: {doc}");

    // YAML: a query as data, under its own id.
    let yaml = root.join("mine.yaml");
    std::fs::write(
        &yaml,
        "id: by-mode\n\
         where: { lo_quantity: { le: 10 } }\n\
         carry: [lo_shipmode]\n\
         joins:\n  - { dim: customer, on: [lo_custkey, c_custkey], carry: [c_region] }\n\
         aggregates: [{ name: revenue, sum: lo_revenue }]\n\
         select: [lo_shipmode, c_region, revenue]\n",
    )
    .unwrap();
    let wy = root.join("w-yaml.json");
    record(&yaml, &wy);
    assert_eq!(read_json(&wy)["queries"][0]["id"], "by-mode");

    // No profile measured here and none named: one line saying what to do.
    let advise = |extra: &[&str]| {
        let mut c = pmolap();
        c.current_dir(root)
            .args(["place", "advise", "--llc", "1048576", "--budget", "10%"])
            .args(extra)
            .arg("--workload")
            .arg(&w)
            .arg("--out")
            .arg(root.join("p.json"));
        c
    };
    let e = refused(&mut advise(&[]));
    assert!(
        e.contains("place profile") && e.contains("--profile"),
        "{e}"
    );
    // One measured here, in the default place: taken, and said so.
    let profiles = root.join("results/place/profiles");
    std::fs::create_dir_all(&profiles).unwrap();
    test_profile(
        &profiles.join("disk.json"),
        pmolap_store::format::FORMAT_VERSION,
    );
    let out = ok(&mut advise(&[]));
    assert!(
        out.contains("measured profile results/place/profiles/disk.json"),
        "{out}"
    );
    assert_eq!(read_json(&root.join("p.json"))["tiers"][1]["name"], "disk");
    // A published one by name is labelled model output.
    // (replacing the placement this test wrote needs --overwrite: issue 32)
    let out = ok(&mut advise(&["--profile", "optane-100", "--overwrite"]));
    assert!(out.contains("model output (published profile)"), "{out}");
}
