//! Guards exact integer aggregation: a SUM (or AVG, or an `a * b` value) leaving the
//! 64-bit range is an error naming the aggregate — in one thread's state or in the merge
//! of two — never a wrapped number; sums right at the limit, MIN, MAX and COUNT of the
//! same extreme values are answered exactly — over dictionaries and over frames of
//! reference (whose sums are taken from the value ids without decoding).

use pmolap_engine::{
    parse_queries, run_query, Database, ExecOptions, Layout, OutValue, StripedFact,
};
use pmolap_store::table::OpenOptions;
use pmolap_store::{ColumnType, Placement, Schema, TableBuilder, Value, WriteOptions};
use pmolap_tier::{Pinning, RegionOptions, Topology};

const ROWS: usize = 128;
const HALF: i64 = i64::MAX / 2 + 1;

/// `big`: HALF at rows 0 and 64 (two morsels of 64), else 0; `edge`: i64::MAX at row 0,
/// else 0; `small`: 3; `near`: i64::MAX - 2 or - 1 (odd rows), `one`: 0 or 1 (odd rows)
/// — two frames of reference (ranges as narrow as their distinct values).
fn table(dir: &std::path::Path) {
    let schema = Schema::new([
        ("big".to_string(), ColumnType::Int),
        ("edge".to_string(), ColumnType::Int),
        ("small".to_string(), ColumnType::Int),
        ("near".to_string(), ColumnType::Int),
        ("one".to_string(), ColumnType::Int),
    ])
    .unwrap();
    let mut b = TableBuilder::new(schema);
    for r in 0..ROWS {
        let big = if r % 64 == 0 { HALF } else { 0 };
        let edge = if r == 0 { i64::MAX } else { 0 };
        let odd = (r % 2) as i64;
        b.push_row(&[
            Value::Int(big),
            Value::Int(edge),
            Value::Int(3),
            Value::Int(i64::MAX - 2 + odd),
            Value::Int(odd),
        ])
        .unwrap();
    }
    b.finish(&dir.join("t"), &WriteOptions::default()).unwrap();
}

#[test]
fn sums_beyond_64_bits_are_errors_naming_the_aggregate() {
    let dir = tempfile::tempdir().unwrap();
    table(dir.path());
    let db = Database::open(dir.path(), &Placement::home(), &OpenOptions::default()).unwrap();
    for c in ["near", "one"] {
        let col = &db.table("t").unwrap().column(c).unwrap().dict;
        assert_eq!(col.encoding(), pmolap_store::ColumnEncoding::Frame, "{c}");
    }
    let topo = Topology::detect().unwrap();
    let region = RegionOptions::default();
    let run = |yaml: &str, threads: usize| {
        let q = parse_queries(&format!("fact: t\n{yaml}"), "t.yaml")
            .unwrap()
            .remove(0);
        let opts = ExecOptions {
            threads,
            morsel_rows: 64,
            pin: Pinning::None,
            ..ExecOptions::default()
        };
        let layout = Layout::new(&topo, &opts, ROWS).unwrap();
        let striped = StripedFact::new(db.table("t").unwrap(), &[], &layout, &region).unwrap();
        run_query(&db, &q, &layout, &striped, &opts, &region)
    };
    for threads in [1, 2] {
        for (yaml, name) in [
            (
                "aggregates: [{name: total, sum: big}]\nselect: [total]",
                "total",
            ),
            (
                "aggregates: [{name: n, count: \"*\"}, {name: mean, avg: big}]\nselect: [n, mean]",
                "mean",
            ),
            (
                "aggregates: [{name: top, max: big * small}]\nselect: [top]",
                "top",
            ),
            (
                "aggregates: [{name: s, sum: edge + small}]\nselect: [s]",
                "s",
            ),
            (
                "aggregates: [{name: n, count: \"*\"}, {name: f, sum: near}]\nselect: [n, f]",
                "f",
            ),
            ("aggregates: [{name: f, avg: near}]\nselect: [f]", "f"),
        ] {
            let e = run(yaml, threads).unwrap_err().to_string();
            assert!(
                e.contains(&format!("aggregate `{name}`")) && e.contains("overflows"),
                "{threads} threads, {yaml}: {e}"
            );
            assert_eq!(e.lines().count(), 1);
        }
        let ok = run(
            "aggregates: [{name: s, sum: edge}, {name: lo, min: big}, {name: hi, max: big}, {name: n, count: big}]\nselect: [s, lo, hi, n]",
            threads,
        )
        .unwrap();
        assert_eq!(
            ok.rows,
            [[
                OutValue::Int(i64::MAX),
                OutValue::Int(0),
                OutValue::Int(HALF),
                OutValue::Int(ROWS as i64)
            ]]
        );
        // Frames: sums from the ids (`one * small` is 3 on the 64 odd rows).
        let half = ROWS as i64 / 2;
        let e = run(
            "where: {one: {eq: 1}}\naggregates: [{name: s, sum: near}]\nselect: [s]",
            threads,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("aggregate `s`") && e.contains("overflows"),
            "{e}"
        );
        let ok = run(
            "aggregates: [{name: a, sum: one * small}, {name: b, sum: one + small}, {name: c, sum: small - one}, {name: d, sum: one}, {name: e, max: near - one}]\nselect: [a, b, c, d, e]",
            threads,
        )
        .unwrap();
        assert_eq!(
            ok.rows,
            [[
                OutValue::Int(3 * half),
                OutValue::Int(half + 3 * ROWS as i64),
                OutValue::Int(3 * ROWS as i64 - half),
                OutValue::Int(half),
                OutValue::Int(i64::MAX - 2),
            ]]
        );
        let one_row = run(
            "where: {edge: {gt: 0}}\naggregates: [{name: s, sum: near}, {name: m, avg: near}]\nselect: [s, m]",
            threads,
        )
        .unwrap();
        assert_eq!(one_row.rows[0][0], OutValue::Int(i64::MAX - 2));
    }
}
