//! Guards `pmolap ssb run | query | tiers | breakdown`: the 13 SSB answers equal the
//! reference (DuckDB's) exactly at SF 1 and SF 0.01, custom query files run, the tier
//! table and the Table 1 ladder run end to end, and bad input gives one-line errors.

mod common;

use std::path::Path;

use serde_json::Value;

use common::{fails, ok, one_line_error, pmolap, read_json, reference_or_skip, ssb_load};

/// The reference writes SQL NULL as the string "None".
fn normalise(v: &Value) -> Value {
    match v {
        Value::String(s) if s == "None" => Value::Null,
        Value::Array(a) => Value::Array(a.iter().map(normalise).collect()),
        other => other.clone(),
    }
}

/// Compares every query's rows with the reference; a failure names the query and its
/// first differing row.
fn check_answers(got: &Path, want: &Path) {
    let got: Value = serde_json::from_str(&std::fs::read_to_string(got).unwrap()).unwrap();
    let want: Value = serde_json::from_str(&std::fs::read_to_string(want).unwrap()).unwrap();
    let want = want.as_object().unwrap();
    assert_eq!(want.len(), 13);
    for (q, rows) in want {
        let rows = normalise(rows);
        let rows = rows.as_array().unwrap();
        let g = got[q]
            .as_array()
            .unwrap_or_else(|| panic!("no answer for Q{q}"));
        for (i, (a, b)) in g.iter().zip(rows).enumerate() {
            assert_eq!(a, b, "Q{q}: first bad row {i}: got {a}, want {b}");
        }
        assert_eq!(
            g.len(),
            rows.len(),
            "Q{q}: {} rows, want {}",
            g.len(),
            rows.len()
        );
    }
}

#[test]
fn sf1_answers_equal_reference() {
    let Some(reference) = reference_or_skip("answers-sf1.json") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("sf1");
    ssb_load("1", &data);
    let answers = dir.path().join("answers.json");
    let json = dir.path().join("run.json");
    let out = ok(pmolap()
        .args([
            "ssb",
            "run",
            "--quiet",
            "--threads",
            "2",
            "--reps",
            "1",
            "--data",
        ])
        .arg(&data)
        .arg("--answers")
        .arg(&answers)
        .arg("--json")
        .arg(&json));
    check_answers(&answers, &reference);
    assert!(out.contains("median ms"), "{out}");
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(r["queries"].as_array().unwrap().len(), 13);
    assert!(r["machine"]["cpu_model"].is_string());
    assert_eq!(r["config"]["reps"], 1);
    let q21 = &r["queries"][3];
    assert_eq!(q21["id"], "2.1");
    assert_eq!(q21["rows"], 280);
    assert!(q21["gbps"].as_f64().unwrap() > 0.0);
    // yyyymmdd dates (2,556 days over a span of ~70,000) get a hash index; part and
    // supplier are joined through the load's row references, their rows stored by
    // hierarchy, so `p_category = 'MFGR#12'` and `s_region = 'AMERICA'` are ranges.
    let joins = &q21["last"]["joins"];
    assert_eq!(joins[0]["dim"], "date");
    assert_eq!(joins[0]["index"]["kind"], "hash");
    assert_eq!(joins[1]["dim"], "part");
    assert_eq!(joins[1]["index"]["kind"], "row refs (lo_partkey@part)");
    assert_eq!(joins[1]["filter"], "range + lookup");
    assert_eq!(joins[2]["dim"], "supplier");
    assert_eq!(joins[2]["filter"], "range");
    let kernel = r["config"]["bits_kernel"].as_str().unwrap();
    assert!(
        ["avx512+vbmi", "avx512", "avx2", "portable"].contains(&kernel),
        "{kernel}"
    );
    // The portable bit kernels give the same answers as the ones chosen for this CPU.
    ok(pmolap()
        .args(["ssb", "run", "--quiet", "--threads", "2", "--reps", "1"])
        .args(["--bits-isa", "portable", "--data"])
        .arg(&data)
        .arg("--answers")
        .arg(&answers));
    check_answers(&answers, &reference);
}

#[test]
fn sf001_answers_equal_reference_nulls_included() {
    let Some(reference) = reference_or_skip("answers-sf0.01.json") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    ssb_load("0.01", dir.path());
    let answers = dir.path().join("answers.json");
    // Small morsels: every unaligned and short path of the bit kernels runs.
    for (index, isa) in [
        ("auto", "auto"),
        ("hash", "auto"),
        ("dash", "auto"),
        ("auto", "portable"),
    ] {
        ok(pmolap()
            .args(["ssb", "run", "--quiet", "--threads", "2", "--reps", "1"])
            .args([
                "--join-index",
                index,
                "--morsel",
                "128",
                "--bits-isa",
                isa,
                "--data",
            ])
            .arg(dir.path())
            .arg("--answers")
            .arg(&answers));
        check_answers(&answers, &reference);
    }
}

#[test]
fn query_files_tiers_and_breakdown_run() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("db");
    ssb_load("0.05", &data);

    // A custom query of the same shape: revenue by ship mode and customer region.
    let qfile = dir.path().join("q.yaml");
    std::fs::write(
        &qfile,
        "id: by-mode\n\
         where: { lo_quantity: { le: 10 } }\n\
         carry: [lo_shipmode]\n\
         joins:\n  - { dim: customer, on: [lo_custkey, c_custkey], carry: [c_region] }\n\
         aggregates: [{ name: revenue, sum: lo_revenue }]\n\
         select: [lo_shipmode, c_region, revenue]\n\
         order_by: [revenue desc]\n\
         limit: 5\n",
    )
    .unwrap();
    let answers = dir.path().join("a.json");
    let out = ok(pmolap()
        .args(["ssb", "query", "--quiet", "--reps", "1", "--data"])
        .arg(&data)
        .arg(&qfile)
        .arg("--answers")
        .arg(&answers));
    assert!(out.contains("by-mode"), "{out}");
    let a: Value = serde_json::from_str(&std::fs::read_to_string(&answers).unwrap()).unwrap();
    let rows = a["by-mode"].as_array().unwrap();
    assert_eq!(rows.len(), 5);
    let rev: Vec<i64> = rows.iter().map(|r| r[2].as_i64().unwrap()).collect();
    assert!(rev.windows(2).all(|w| w[0] >= w[1]), "{rev:?}");

    let json = dir.path().join("tiers.json");
    let out = ok(pmolap()
        .args([
            "ssb",
            "tiers",
            "--quiet",
            "--reps",
            "2",
            "--queries",
            "1.1,3.1",
        ])
        .args(["--only", "dram,file:/dev/shm", "--data"])
        .arg(&data)
        .arg("--json")
        .arg(&json));
    assert!(out.contains("slowdown"), "{out}");
    // Every time with its spread and repetitions (issue 34).
    assert!(out.contains(", 2 reps)"), "{out}");
    let t: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let tiers = t["tiers"].as_array().unwrap();
    assert!(!tiers.is_empty());
    assert_eq!(tiers[0]["tier"]["spec"], "dram");
    if tiers.len() > 1 {
        assert!(out.contains("geomean slowdown of"), "{out}");
    }

    let json = dir.path().join("breakdown.json");
    let out = ok(pmolap()
        .args([
            "ssb",
            "breakdown",
            "--query",
            "2.1",
            "--reps",
            "2",
            "--only",
            "dram",
        ])
        .arg("--data")
        .arg(&data)
        .arg("--json")
        .arg(&json));
    for step in ["1 thread", "all threads", "+ pinning", "+ stripe"] {
        assert!(out.contains(step), "{out}");
    }
    assert!(out.contains(", 2 reps)"), "{out}");
    let b = read_json(&json);
    let steps = b["steps"].as_array().unwrap();
    assert_eq!(steps[1]["times_ms"].as_array().unwrap().len(), 2);
    assert!(steps[1]["speedup"]["verdict"].is_string(), "{b}");
    // On one NUMA node striping and replication change nothing: the last rung is said
    // to be the rung before's configuration, not shown as a different one.
    let nodes = std::fs::read_dir("/sys/devices/system/node")
        .map(|d| {
            d.flatten()
                .filter(|e| {
                    let n = e.file_name().to_string_lossy().into_owned();
                    n.starts_with("node") && n[4..].parse::<u32>().is_ok()
                })
                .count()
        })
        .unwrap_or(1);
    if nodes <= 1 {
        let last = out.lines().find(|l| l.contains("+ stripe")).unwrap();
        assert!(
            last.contains("the same configuration as the rung before"),
            "{out}"
        );
    }
}

#[test]
fn bad_input_is_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let e = one_line_error(
        &pmolap()
            .args(["ssb", "run", "--data"])
            .arg(dir.path().join("nope"))
            .output()
            .unwrap(),
    );
    assert!(e.contains("nope"), "{e}");
    let e = one_line_error(
        &pmolap()
            .args(["ssb", "run", "--queries", "9.9", "--data"])
            .arg(dir.path())
            .output()
            .unwrap(),
    );
    assert!(e.contains("no SSB query `9.9`"), "{e}");
    // The argument parser's refusal: its usage lines follow.
    let e = fails(
        &pmolap()
            .args(["ssb", "run", "--bits-isa", "sse", "--data"])
            .arg(dir.path())
            .output()
            .unwrap(),
    );
    assert!(e.contains("--bits-isa") && e.contains("sse"), "{e}");

    let data = dir.path().join("db");
    ssb_load("0.01", &data);
    let cases = [
        ("aggregates: [{name: r, sum: lo_nothing}]\nselect: [r]\n", "no column `lo_nothing`"),
        (
            "joins: [{dim: planet, on: [lo_custkey, c_custkey]}]\naggregates: [{name: r, sum: lo_revenue}]\nselect: [r]\n",
            "no table `planet`",
        ),
        (
            "where: {lo_quantity: {eq: ten}}\naggregates: [{name: r, sum: lo_revenue}]\nselect: [r]\n",
            "holds int values",
        ),
        ("aggregates: [{name: r, sum: lo_revenue}\n", "not YAML"),
        (
            "aggregates: [{name: r, sum: lo_shipmode}]\nselect: [r]\n",
            "is over the string column",
        ),
    ];
    for (i, (text, want)) in cases.iter().enumerate() {
        let f = dir.path().join(format!("bad{i}.yaml"));
        std::fs::write(&f, text).unwrap();
        let e = one_line_error(
            &pmolap()
                .args(["ssb", "query", "--quiet", "--reps", "1", "--data"])
                .arg(&data)
                .arg(&f)
                .output()
                .unwrap(),
        );
        assert!(e.contains(want), "{text}: {e}");
    }
    let e = one_line_error(
        &pmolap()
            .args(["ssb", "run", "--morsel", "100", "--data"])
            .arg(&data)
            .output()
            .unwrap(),
    );
    assert!(e.contains("multiple of 64"), "{e}");
}

/// The 13 SSB SQL texts of the reference, exactly as written, through the SQL front end
/// (`ssb query queries.sql` and `pmolap sql`): the reference's answers at SF 0.01, and a
/// construct outside the family refused with one line naming it.
#[test]
fn sql_texts_give_the_reference_answers() {
    let (Some(reference), Some(sql)) = (
        reference_or_skip("answers-sf0.01.json"),
        reference_or_skip("queries.sql"),
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("sf001");
    ssb_load("0.01", &data);
    let answers = dir.path().join("answers.json");
    ok(pmolap()
        .args(["ssb", "query", "--quiet", "--reps", "1", "--data"])
        .arg(&data)
        .arg("--answers")
        .arg(&answers)
        .arg(&sql));
    check_answers(&answers, &reference);
    let out = ok(pmolap()
        .args([
            "sql",
            "select sum(lo_revenue) as r from lineorder join ddate on lo_orderdate = d_datekey where d_year in (1993, 1994) and lo_discount between 1 and 3 and lo_quantity <> 7",
            "--quiet",
            "--data",
        ])
        .arg(&data));
    // The answer under its column name (the alias).
    assert!(
        out.lines().next().map(str::trim) == Some("r") && out.ends_with("(1 row)\n"),
        "{out}"
    );
    // Every aggregate, fact-only, no GROUP BY: over no rows, counts 0 and the rest NULL;
    // over every row, COUNT(*) is the fact table's rows (60176 at SF 0.01).
    let out = ok(pmolap()
        .args([
            "sql",
            "select count(*), sum(lo_revenue), min(lo_discount), max(lo_discount), avg(lo_quantity) from lineorder where lo_quantity not between 0 and 100;\nselect count(lo_tax) as n, min(lo_discount) as lo, max(lo_discount) as hi from lineorder",
            "--quiet",
            "--format",
            "json",
            "--data",
        ])
        .arg(&data));
    let answers: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        answers[0],
        serde_json::json!([{"count(*)": 0, "sum(lo_revenue)": null, "min(lo_discount)": null, "max(lo_discount)": null, "avg(lo_quantity)": null}]),
        "{out}"
    );
    assert_eq!(
        answers[1],
        serde_json::json!([{"n": 60176, "lo": 0, "hi": 10}]),
        "{out}"
    );
    let e = one_line_error(
        &pmolap()
            .args([
                "sql",
                "select sum(lo_revenue) from lineorder where lo_shipmode like 'AIR%'",
                "--quiet",
                "--data",
            ])
            .arg(&data)
            .output()
            .unwrap(),
    );
    assert!(e.contains("LIKE") && e.contains("line 1 column"), "{e}");
}
