//! Guards `pmolap pg tpch` against a real PostgreSQL server: at SF 0.01 on one tier the
//! answers of Q1 and Q6 equal aggregates computed here straight from the tpchgen rows,
//! the document carries the device metadata, and nothing of the cluster is left behind;
//! tier and work paths may be relative.
//! Bad tier paths and scale factors that do not fit are refused before anything starts. Skips (one line) only where no
//! PostgreSQL server binaries are installed.

mod common;

use tpchgen::generators::LineItemGenerator;

use common::pg::{have_server, leftovers, open_tempdir};
use common::{ok, pmolap, read_json, refused};

/// Cents as PostgreSQL prints numeric(_, 2); ten-thousandths as numeric(_, 4).
fn scale2(v: i64) -> String {
    format!("{}.{:02}", v / 100, v % 100)
}
fn scale4(v: i64) -> String {
    format!("{}.{:04}", v / 10000, v % 10000)
}

#[test]
fn answers_match_aggregates_computed_from_the_generator() {
    if !have_server() {
        return;
    }
    let tier = open_tempdir("pg-tpch-test");
    let work = open_tempdir("pg-tpch-test");
    let json = work.path().join("r.json");
    ok(pmolap()
        .args([
            "pg",
            "tpch",
            "--sf",
            "0.01",
            "--queries",
            "1,6",
            "--quiet",
            "--tier",
        ])
        // Relative paths (as `pmolap demo --out target/x` gives them): tablespace
        // locations must be absolute, so pmolap resolves them from its directory.
        .arg(tier.path().file_name().unwrap())
        .arg("--work-dir")
        .arg(work.path().file_name().unwrap())
        .arg("--json")
        .arg(&json)
        .current_dir("/var/tmp"));
    let doc = read_json(&json);
    assert_eq!(doc["kind"], "pg-tpch");
    assert_eq!(doc["load"]["rows"], 86805);
    let t0 = &doc["tiers"][0];
    assert!(!t0["device"]["fs_type"].as_str().unwrap().is_empty());
    assert!(t0["device"]["mount_options"].is_string());
    assert_eq!(t0["queries"].as_array().unwrap().len(), 2);

    // Independently: Q6 and Q1 over the generator's rows.
    let mut q6: i64 = 0;
    let mut q1: std::collections::BTreeMap<(String, String), (i64, i64, u64)> = Default::default();
    for l in LineItemGenerator::new(0.01, 1, 1).iter() {
        let ship = l.l_shipdate.to_string();
        let disc = l.l_discount.0;
        if ship.as_str() >= "1994-01-01"
            && ship.as_str() < "1995-01-01"
            && (5..=7).contains(&disc)
            && l.l_quantity < 24
        {
            q6 += l.l_extendedprice.0 * disc;
        }
        if ship.as_str() <= "1998-09-02" {
            let e = q1
                .entry((l.l_returnflag.to_string(), l.l_linestatus.to_string()))
                .or_default();
            e.0 += l.l_quantity * 100;
            e.1 += l.l_extendedprice.0;
            e.2 += 1;
        }
    }
    let answer = |q: u64| {
        doc["answers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["query"] == q)
            .cloned()
            .unwrap()
    };
    let a6 = answer(6);
    assert_eq!(a6["rows"], 1);
    assert_eq!(a6["head"][0][0].as_str().unwrap(), scale4(q6));
    let a1 = answer(1);
    assert_eq!(a1["rows"], q1.len() as u64);
    for (row, ((flag, status), (qty, price, n))) in a1["head"].as_array().unwrap().iter().zip(&q1) {
        assert_eq!(row[0].as_str().unwrap(), flag);
        assert_eq!(row[1].as_str().unwrap(), status);
        assert_eq!(
            row[2].as_str().unwrap(),
            scale2(*qty),
            "sum_qty {flag}{status}"
        );
        assert_eq!(row[3].as_str().unwrap(), scale2(*price), "sum_base_price");
        assert_eq!(row[9].as_str().unwrap(), n.to_string(), "count_order");
    }
    assert!(
        leftovers(tier.path()).is_empty(),
        "{:?}",
        leftovers(tier.path())
    );
    assert!(
        leftovers(work.path()).is_empty(),
        "{:?}",
        leftovers(work.path())
    );
}

#[test]
fn bad_tier_paths_are_refused_before_anything_starts() {
    let t = open_tempdir("pg-tpch-test");
    let missing = t.path().join("missing");
    let file = t.path().join("file");
    std::fs::write(&file, b"x").unwrap();
    for (tier, want) in [(&missing, "cannot use it"), (&file, "not a directory")] {
        let err = refused(
            pmolap()
                .args(["pg", "tpch", "--sf", "0.01", "--quiet", "--tier"])
                .arg(tier)
                .arg("--work-dir")
                .arg(t.path()),
        );
        assert!(
            err.contains(want) && err.contains(&*tier.to_string_lossy()),
            "{err}"
        );
    }
    // Far too large a scale factor for the room there (the tier and the run directory
    // on one filesystem add up, tmpfs counts against RAM): one line naming the largest
    // scale factor that fits (issue 34 item 9).
    let err = refused(
        pmolap()
            .args(["pg", "tpch", "--sf", "900", "--quiet", "--tier"])
            .arg(t.path())
            .arg("--work-dir")
            .arg(t.path()),
    );
    assert!(err.contains("--sf 900 does not fit: "), "{err}");
    assert!(err.contains("GB free"), "{err}");
    assert!(
        err.contains("the largest scale factor that fits here is ")
            || err.contains("no scale factor fits here"),
        "{err}"
    );
    assert!(leftovers(t.path()).is_empty());
    // A scale factor that is not a number or `largest`: clap's usage error.
    let o = pmolap()
        .args(["pg", "tpch", "--sf", "big", "--quiet", "--tier"])
        .arg(t.path())
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("`largest`"));
}
