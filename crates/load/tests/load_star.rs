//! Guards `pmolap_load::load_star` end to end at the library level: a small star written
//! in temp files loads into a database whose DATABASE names the fact and the DECIMAL /
//! DATE columns, whose values are stored as scaled integers and yyyymmdd, whose
//! dimensions are stored in the order derived from their data, whose fact has one
//! row-reference column per foreign key; and each kind of bad input fails with one line
//! naming file, line and column, writing nothing (an existing database stays as it was).

use std::path::{Path, PathBuf};

use pmolap_load::{load_star, LoadOptions};
use pmolap_store::{DatabaseSnapshot, LogicalType, Placement, RowRef, Table, Value};

const SCHEMA: &str = "
CREATE TABLE region_dim (
    shop_id INTEGER PRIMARY KEY,
    city    VARCHAR(12) NOT NULL,
    country CHAR(2) NOT NULL,
    opened  DATE NOT NULL
);
CREATE TABLE day (
    d     DATE PRIMARY KEY,
    month SMALLINT NOT NULL
);
CREATE TABLE sale (
    id     BIGINT NOT NULL,
    shop   INTEGER NOT NULL REFERENCES region_dim (shop_id),
    d      DATE NOT NULL,
    amount NUMERIC(8,2) NOT NULL,
    qty    DECIMAL(5,3) NOT NULL,
    memo   TEXT,
    PRIMARY KEY (id),
    FOREIGN KEY (d) REFERENCES day (d)
);
";

/// Shops with keys out of hierarchy order: the loader stores them country, city, key.
const SHOPS: &str = "shop_id,city,country,opened
7,Lyon,FR,2001-02-03
3,Boston,US,1999-12-31
5,Paris,FR,2010-06-30
1,Lyon,FR,2020-01-01
9,Austin,US,2005-05-05
";

/// dbgen style: `|` with a trailing `|`, no header, days out of order.
const DAYS: &str = "2024-03-01|3|
2024-02-29|2|
2024-01-15|1|
";

/// Tab separated, no header; a quoted field with the delimiter inside.
const SALES: &str = "100\t7\t2024-02-29\t12.50\t1.5\tfirst
101\t3\t2024-01-15\t-0.05\t0.001\t\"a\tb\"
102\t9\t2024-03-01\t999999.99\t12\tx
103\t1\t2024-03-01\t0\t+2.250\ty
";

struct Case {
    _tmp: tempfile::TempDir,
    schema: PathBuf,
    from: PathBuf,
    out: PathBuf,
}

/// The star above in a temp dir, with `edit(file name, text)` applied to each file.
fn case(edit: impl Fn(&str, &str) -> String) -> Case {
    let tmp = tempfile::tempdir().unwrap();
    let from = tmp.path().join("in");
    std::fs::create_dir(&from).unwrap();
    let schema = tmp.path().join("schema.sql");
    std::fs::write(&schema, edit("schema.sql", SCHEMA)).unwrap();
    for (name, text) in [
        ("region_dim.csv", SHOPS),
        ("day.tbl", DAYS),
        ("sale.tsv", SALES),
    ] {
        std::fs::write(from.join(name), edit(name, text)).unwrap();
    }
    let out = tmp.path().join("db");
    Case {
        _tmp: tmp,
        schema,
        from,
        out,
    }
}

fn load(c: &Case) -> pmolap_load::Result<Vec<pmolap_load::LoadedTable>> {
    load_star(&c.schema, &c.from, &c.out, &LoadOptions::default(), &|_| {})
}

fn open(db: &Path, name: &str) -> Table {
    Table::open(&db.join(name), &Placement::home())
        .or_else(|_| {
            let snap = DatabaseSnapshot::open(db)?;
            let dir = snap
                .tables()
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, d)| d.clone())
                .unwrap();
            Table::open(&dir, &Placement::home())
        })
        .unwrap()
}

fn ints(t: &Table, col: &str) -> Vec<i64> {
    let c = t.column(col).unwrap();
    (0..t.rows())
        .map(|r| match c.value(r) {
            Value::Int(v) => v,
            Value::Str(s) => panic!("{col}: a string {s}"),
        })
        .collect()
}

fn strs(t: &Table, col: &str) -> Vec<String> {
    let c = t.column(col).unwrap();
    (0..t.rows())
        .map(|r| match c.value(r) {
            Value::Str(s) => s.to_string(),
            Value::Int(v) => panic!("{col}: an int {v}"),
        })
        .collect()
}

#[test]
fn a_star_loads_with_typed_values_derived_order_and_row_references() {
    let c = case(|_, t| t.to_string());
    let loaded = load(&c).unwrap();
    let names: Vec<&str> = loaded.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["region_dim", "day", "sale"]);
    assert_eq!(loaded[0].order, ["country", "city", "shop_id"]);
    assert_eq!(loaded[1].order, ["d"]);
    assert!(loaded[2].order.is_empty());

    let snap = DatabaseSnapshot::open(&c.out).unwrap();
    let m = snap.manifest().expect("a DATABASE file");
    assert_eq!(m.meta.get("fact").and_then(|v| v.as_str()), Some("sale"));
    let dec = |precision, scale| Some(LogicalType::Decimal { precision, scale });
    assert_eq!(m.logical_type("sale", "amount"), dec(8, 2));
    assert_eq!(m.logical_type("sale", "qty"), dec(5, 3));
    assert_eq!(m.logical_type("sale", "d"), Some(LogicalType::Date));
    assert_eq!(
        m.logical_type("region_dim", "opened"),
        Some(LogicalType::Date)
    );
    assert_eq!(m.logical_type("sale", "shop"), None);
    assert_eq!(m.logical_type("sale", "memo"), None);
    assert_eq!(m.row_refs.len(), 2);
    drop(snap);

    // Dimensions: rows in the derived order (FR before US, then city, then key).
    let shops = open(&c.out, "region_dim");
    assert_eq!(ints(&shops, "shop_id"), [1, 7, 5, 9, 3]);
    assert_eq!(
        strs(&shops, "city"),
        ["Lyon", "Lyon", "Paris", "Austin", "Boston"]
    );
    assert_eq!(
        ints(&shops, "opened"),
        [20200101, 20010203, 20100630, 20050505, 19991231]
    );
    let days = open(&c.out, "day");
    assert_eq!(ints(&days, "d"), [20240115, 20240229, 20240301]);
    assert_eq!(ints(&days, "month"), [1, 2, 3]);

    // The fact: in file order, decimals scaled exactly, the quoted tab kept.
    let sale = open(&c.out, "sale");
    assert_eq!(ints(&sale, "id"), [100, 101, 102, 103]);
    assert_eq!(ints(&sale, "amount"), [1250, -5, 99999999, 0]);
    assert_eq!(ints(&sale, "qty"), [1500, 1, 12000, 2250]);
    assert_eq!(ints(&sale, "d"), [20240229, 20240115, 20240301, 20240301]);
    assert_eq!(strs(&sale, "memo"), ["first", "a\tb", "x", "y"]);
    // Each foreign key's row reference is the dimension row of its key.
    let shop_ref = RowRef::column_name("shop", "region_dim");
    assert_eq!(ints(&sale, &shop_ref), [1, 4, 3, 0]);
    let day_ref = RowRef::column_name("d", "day");
    assert_eq!(ints(&sale, &day_ref), [1, 0, 2, 2]);
}

/// Loads `c`, expects it to fail with one line containing every `parts`, and the output
/// directory to hold no database.
fn fails(c: &Case, parts: &[&str]) {
    let e = load(c).expect_err("the load should fail").to_string();
    assert!(!e.contains('\n'), "not one line: {e}");
    for p in parts {
        assert!(e.contains(p), "`{p}` not in: {e}");
    }
    assert!(
        DatabaseSnapshot::open(&c.out).is_err(),
        "a database was written: {e}"
    );
}

/// Replaces `from` by `to` in file `file` only.
fn edit(file: &'static str, from: &'static str, to: &'static str) -> impl Fn(&str, &str) -> String {
    move |name, text| {
        if name == file {
            assert!(text.contains(from), "{from} not in {file}");
            text.replacen(from, to, 1)
        } else {
            text.to_string()
        }
    }
}

#[test]
fn a_decimal_that_does_not_fit_names_file_line_and_column() {
    fails(
        &case(edit("sale.tsv", "12.50", "12.505")),
        &["sale.tsv:1:", "column 4 `amount`", "12.505", "DECIMAL(8,2)"],
    );
    fails(
        &case(edit("sale.tsv", "999999.99", "1000000.00")),
        &["sale.tsv:3:", "column 4 `amount`", "DECIMAL(8,2)"],
    );
    fails(
        &case(edit("sale.tsv", "0.001", "0,001")),
        &["sale.tsv:2:", "column 5 `qty`", "0,001"],
    );
}

#[test]
fn a_bad_date_or_integer_names_file_line_and_column() {
    fails(
        &case(edit("day.tbl", "2024-02-29", "2023-02-29")),
        &["day.tbl:2:", "column 1 `d`", "2023-02-29"],
    );
    fails(
        &case(edit("day.tbl", "|3|", "|70000|")),
        &["day.tbl:1:", "column 2 `month`", "SMALLINT"],
    );
    fails(
        &case(edit("region_dim.csv", "9,Austin", "nine,Austin")),
        &["region_dim.csv:6:", "column 1 `shop_id`", "nine"],
    );
}

#[test]
fn a_string_longer_than_declared_is_refused() {
    fails(
        &case(edit("region_dim.csv", "Lyon,FR,2001", "Lyon,FRA,2001")),
        &["region_dim.csv:2:", "column 3 `country`"],
    );
}

#[test]
fn a_foreign_key_without_a_dimension_row_is_refused() {
    fails(
        &case(edit("sale.tsv", "102\t9\t", "102\t8\t")),
        &["sale.tsv:3:", "column 2 `shop`", "8", "region_dim"],
    );
    fails(
        &case(edit("sale.tsv", "103\t1\t2024-03-01", "103\t1\t2024-03-02")),
        &["sale.tsv:4:", "column 3 `d`", "2024-03-02", "day"],
    );
}

#[test]
fn a_duplicate_primary_key_is_refused() {
    fails(
        &case(edit("region_dim.csv", "1,Lyon,FR,2020", "5,Lyon,FR,2020")),
        &[
            "region_dim.csv:5:",
            "`shop_id`",
            "duplicate primary key",
            "line 4",
        ],
    );
    fails(
        &case(edit("sale.tsv", "103\t1", "100\t1")),
        &["sale.tsv:4:", "`id`", "duplicate primary key"],
    );
}

#[test]
fn nulls_in_not_null_columns_and_primary_keys_are_refused() {
    fails(
        &case(edit("sale.tsv", "\t1.5\t", "\t\t")),
        &["sale.tsv:1:", "column 5 `qty`", "NOT NULL"],
    );
    fails(
        &case(edit("region_dim.csv", "7,Lyon", ",Lyon")),
        &[
            "region_dim.csv:2:",
            "column 1 `shop_id`",
            "NULL",
            "primary key",
        ],
    );
    fails(
        &case(edit("sale.tsv", "101\t3", "\t3")),
        &["sale.tsv:2:", "column 1 `id`", "primary key"],
    );
}

#[test]
fn nulls_load_where_the_schema_allows_them() {
    // A nullable foreign key and a nullable attribute, each NULL once (an empty field);
    // the literal NULL is a string like any other.
    let c = case(|name, text| match name {
        "schema.sql" => text.replace("shop   INTEGER NOT NULL", "shop   INTEGER"),
        "sale.tsv" => text
            .replace("102\t9\t", "102\t\t")
            .replace("\tfirst", "\t")
            .replace("\tx\n", "\tNULL\n"),
        "region_dim.csv" => text.replace("Lyon,FR,2020", "Lyon,,2020"),
        _ => text.to_string(),
    });
    // A NOT NULL dimension attribute: refused first.
    fails(&c, &["region_dim.csv:5:", "`country`", "NOT NULL"]);
    let schema = std::fs::read_to_string(&c.schema).unwrap();
    std::fs::write(
        &c.schema,
        schema.replace("country CHAR(2) NOT NULL", "country CHAR(2)"),
    )
    .unwrap();
    let loaded = load(&c).unwrap();
    assert_eq!(loaded[2].rows, 4);
    let sale = open(&c.out, "sale");
    let id = ints(&sale, "id");
    let row = |k: i64| id.iter().position(|&x| x == k).unwrap();
    let shop = sale.column("shop").unwrap();
    assert!(shop.is_null(row(102)));
    assert_eq!(shop.nulls(), 1);
    let memo = sale.column("memo").unwrap();
    assert!(memo.is_null(row(100)) && !memo.is_null(row(101)));
    assert_eq!(memo.value_or_null(row(102)), Some(Value::Str("NULL")));
    // The NULL key's row reference is the dimension's row count: it joins no row.
    let refs = sale
        .column(&RowRef::column_name("shop", "region_dim"))
        .unwrap();
    assert_eq!(refs.value(row(102)), Value::Int(5));
    assert_eq!(refs.null_id(), None);
    let dim = open(&c.out, "region_dim");
    let country = dim.column("country").unwrap();
    assert_eq!(country.nulls(), 1);
    let key = ints(&dim, "shop_id");
    let one = key.iter().position(|&k| k == 1).unwrap();
    assert!(country.is_null(one));
}

#[test]
fn a_wrong_number_of_fields_is_refused() {
    fails(
        &case(edit("sale.tsv", "\tx\n", "\tx\textra\n")),
        &["sale.tsv:3:", "7 fields", "6 columns"],
    );
    fails(
        &case(edit("day.tbl", "2024-01-15|1|", "2024-01-15")),
        &["day.tbl:3:", "1 fields, table day has 2 columns"],
    );
}

#[test]
fn malformed_or_non_star_schemas_are_refused() {
    for (from, to, part) in [
        ("CREATE TABLE day (", "CREATE TABLE day ((", "schema.sql"),
        ("NUMERIC(8,2)", "FLOAT", "FLOAT"),
        ("NUMERIC(8,2)", "NUMERIC(19,2)", "amount"),
        (",\n    FOREIGN KEY (d) REFERENCES day (d)", "", "day"),
        (
            "REFERENCES region_dim (shop_id)",
            "REFERENCES nowhere (id)",
            "nowhere",
        ),
    ] {
        let c = case(edit("schema.sql", from, to));
        let e = load(&c).expect_err(to).to_string();
        assert!(!e.contains('\n'), "not one line: {e}");
        assert!(e.contains("schema.sql"), "no file named: {e}");
        assert!(e.contains(part), "`{part}` not in: {e}");
        assert!(DatabaseSnapshot::open(&c.out).is_err());
    }
}

#[test]
fn a_failed_load_leaves_the_existing_database_as_it_was() {
    let c = case(|_, t| t.to_string());
    load(&c).unwrap();
    let before = ints(&open(&c.out, "sale"), "amount");
    std::fs::write(
        c.from.join("sale.tsv"),
        SALES.replacen("102\t9\t", "102\t8\t", 1),
    )
    .unwrap();
    let e = load(&c).unwrap_err().to_string();
    assert!(e.contains("sale.tsv:3:"), "{e}");
    assert_eq!(ints(&open(&c.out, "sale"), "amount"), before);
    // A missing table file fails before anything is written.
    std::fs::remove_file(c.from.join("day.tbl")).unwrap();
    let e = load(&c).unwrap_err().to_string();
    assert!(e.contains("no file for table day"), "{e}");
    assert_eq!(ints(&open(&c.out, "sale"), "amount"), before);
}
