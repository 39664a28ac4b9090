//! Guards exact integer aggregation: a SUM (or AVG, or an `a * b` value) leaving the
//! 64-bit range is an error naming the aggregate — in one thread's state or in the merge
//! of two — never a wrapped number; sums right at the limit, MIN, MAX and COUNT of the
//! same extreme values are answered exactly.

use pmolap_engine::{
    parse_queries, run_query, Database, ExecOptions, Layout, OutValue, StripedFact,
};
use pmolap_store::table::OpenOptions;
use pmolap_store::{ColumnType, Placement, Schema, TableBuilder, Value, WriteOptions};
use pmolap_tier::{Pinning, RegionOptions, Topology};

const ROWS: usize = 128;
const HALF: i64 = i64::MAX / 2 + 1;

/// `big`: HALF at rows 0 and 64 (two morsels of 64), else 0; `edge`: i64::MAX at row 0,
/// else 0; `small`: 3.
fn table(dir: &std::path::Path) {
    let schema = Schema::new([
        ("big".to_string(), ColumnType::Int),
        ("edge".to_string(), ColumnType::Int),
        ("small".to_string(), ColumnType::Int),
    ])
    .unwrap();
    let mut b = TableBuilder::new(schema);
    for r in 0..ROWS {
        let big = if r % 64 == 0 { HALF } else { 0 };
        let edge = if r == 0 { i64::MAX } else { 0 };
        b.push_row(&[Value::Int(big), Value::Int(edge), Value::Int(3)])
            .unwrap();
    }
    b.finish(&dir.join("t"), &WriteOptions::default()).unwrap();
}

#[test]
fn sums_beyond_64_bits_are_errors_naming_the_aggregate() {
    let dir = tempfile::tempdir().unwrap();
    table(dir.path());
    let db = Database::open(dir.path(), &Placement::home(), &OpenOptions::default()).unwrap();
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
    }
}
