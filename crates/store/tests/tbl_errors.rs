//! `.tbl` loading: good files load; a wrong field count or a bad number names the file
//! and the line.

mod common;

use pmolap_store::{load_tbl, ColumnType, Placement, Schema, Table, Value, WriteOptions};

fn schema() -> Schema {
    Schema::new([
        ("k", ColumnType::Int),
        ("s", ColumnType::Str),
        ("v", ColumnType::Int),
    ])
    .unwrap()
}

#[test]
fn good_file_loads() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("t.tbl");
    std::fs::write(&p, "1|abc|-5|\n2|a b|7|\r\n\n3||0|").unwrap();
    let b = load_tbl(&p, &schema()).unwrap();
    assert_eq!(b.rows(), 3);
    let out = d.path().join("t");
    b.finish(&out, &WriteOptions::default()).unwrap();
    let t = Table::open(&out, &Placement::home()).unwrap();
    assert_eq!(
        t.row(1).unwrap(),
        vec![Value::Int(2), Value::Str("a b"), Value::Int(7)]
    );
    assert_eq!(
        t.row(2).unwrap(),
        vec![Value::Int(3), Value::Str(""), Value::Int(0)]
    );
}

#[test]
fn errors_name_file_and_line() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("bad.tbl");
    for (text, line, needle) in [
        (
            "1|a|2|\n2|b|3|\n3|c|\n",
            3,
            "2 fields, the schema has 3 columns",
        ),
        ("1|a|2|\n2|b|3|4|\n", 2, "4 fields"),
        (
            "1|a|2|\n2|b|3|\n3|c|4|\n4|d|5|\n5|e|x5|\n",
            5,
            "field 3 (`v`): `x5` is not an integer",
        ),
        ("1|a|2\n", 1, "does not end with `|`"),
        ("99999999999999999999|a|2|\n", 1, "is not an integer"),
    ] {
        std::fs::write(&p, text).unwrap();
        let e = load_tbl(&p, &schema()).unwrap_err().to_string();
        let want = format!("{}:{line}: ", p.display());
        assert!(e.starts_with(&want), "{e} (want {want})");
        assert!(e.contains(needle), "{e}");
        assert!(!e.contains('\n'));
    }
    let e = load_tbl(&d.path().join("missing.tbl"), &schema())
        .unwrap_err()
        .to_string();
    assert!(e.contains("missing.tbl"), "{e}");
}
