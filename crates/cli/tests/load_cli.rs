//! Guards `pmolap load` (a user's star schema) and `pmolap sql` on what it loads: the
//! checked-in star-retail schema (workloads/star-retail: DECIMAL measures, a DATE key,
//! `,` / tab / dbgen `|` files) loads, its dimensions are stored in the order their data's
//! hierarchies give, and star queries answer what workloads/star-retail/expected.py
//! computes independently (exact decimals); bad input — a bad decimal, a foreign key with
//! no dimension row, a duplicate primary key, a NULL, malformed DDL, a wrong column
//! count — is one line naming file, line and column, and writes nothing.

mod common;

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use common::{ok, pmolap, read_json, refused, repo};

fn retail() -> PathBuf {
    repo().join("workloads/star-retail")
}

/// `pmolap load` of `schema` and the files in `from` into `out`.
fn load(schema: &Path, from: &Path, out: &Path) -> std::process::Command {
    let mut c = pmolap();
    c.arg("load")
        .arg("--schema")
        .arg(schema)
        .arg("--from")
        .arg(from)
        .arg("--out")
        .arg(out);
    c
}

/// The queries whose answers expected.py computes (q1..q13, in order; q8..q13 are about
/// NULLs: a NULL store key, quantity, discount and colour).
const QUERIES: &str = "
select st_region, sum(sa_quantity * sa_price) as revenue, count(*) as n
  from sales, store where sa_store = st_id and sa_date >= DATE '2024-01-01'
  group by st_region order by st_region;
select p_category, p_brand, sum(sa_price), min(sa_price), max(sa_date)
  from sales join product on sa_product = p_id where p_category = 'Home'
  group by p_category, p_brand order by p_brand;
select d_month, sum(sa_quantity), avg(sa_discount) from sales, day
  where sa_date = d_date and d_weekday in ('Saturday', 'Sunday')
  group by d_month order by d_month;
select count(*), sum(sa_price * sa_discount) from sales, store, day
  where sa_store = st_id and sa_date = d_date and st_city = 'Chicago'
    and d_date < DATE '2024-01-01' and sa_quantity >= 5.5;
select st_city, sum(sa_quantity) from sales, store, product
  where sa_store = st_id and sa_product = p_id and st_region = 'EU' and sa_price <= 50
    and p_color <> 'red'
  group by st_city order by st_city;
select p_list_price, count(*) from sales, product
  where sa_product = p_id and p_category = 'Audio'
  group by p_list_price order by p_list_price;
select sa_date, sum(sa_discount) from sales
  where sa_date between DATE '2024-02-10' and DATE '2024-02-17'
  group by sa_date order by sa_date;
select count(*), count(sa_store), count(sa_discount), sum(sa_discount), avg(sa_quantity)
  from sales;
select st_region, count(*) from sales, store where sa_store = st_id
  group by st_region order by st_region;
select count(*), sum(sa_price) from sales where sa_store is null;
select sa_discount, count(*) from sales group by sa_discount order by sa_discount;
select count(*), sum(sa_discount), min(sa_quantity), count(sa_quantity) from sales
  where sa_discount is null and sa_quantity is null;
select p_color, count(*), sum(sa_quantity) from sales, product
  where sa_product = p_id and sa_quantity is not null and sa_discount < 0.2
  group by p_color order by p_color";

/// What `python3 workloads/star-retail/expected.py` prints (Python's exact decimals over
/// the files, no pmolap code), keyed as `pmolap sql --answers` numbers the statements;
/// DuckDB 2.0.0 gives the same on the same files and schema (`duckdb_check.py`).
fn expected() -> Value {
    json!({
        "1": [["AM", "17042.510", 42], ["AS", "5891.945", 21], ["EU", "22253.680", 59]],
        "2": [["Home", "Cosy", "2842.20", "11.27", "2024-02-16"], ["Home", "Dune", "930.53", "15.99", "2024-02-15"]],
        "3": [["2023-12", "81.5", 0.09333333333333334], ["2024-01", "129.0", 0.10454545454545454], ["2024-02", "89.0", 0.15]],
        "4": [[5, "14.3915"]],
        "5": [["Berlin", "15.5"], ["Hamburg", "27.0"], ["Paris", "58.5"]],
        "6": [["5.49", 10], ["86.95", 17], ["89.49", 10]],
        "7": [["2024-02-10", "0.50"], ["2024-02-11", "0.30"], ["2024-02-12", "0.05"], ["2024-02-13", "0.05"], ["2024-02-14", "0.55"], ["2024-02-15", "0.25"], ["2024-02-16", "0.15"], ["2024-02-17", "0.75"]],
        "8": [[160, 155, 152, "15.80", 5.987261146496815]],
        "9": [["AM", 59], ["AS", 22], ["EU", 74]],
        "10": [[5, "316.43"]],
        "11": [["0.00", 42], ["0.05", 30], ["0.10", 38], ["0.25", 42], [null, 8]],
        "12": [[2, null, null, 0]],
        "13": [["black", 11, "59.5"], ["green", 54, "333.0"], ["red", 37, "202.5"], [null, 7, "34.5"]]
    })
}

/// Equal, doubles within 1e-12 relative (AVG is a double in both).
fn same(got: &Value, want: &Value) -> bool {
    match (got, want) {
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
        }
        (Value::Number(a), Value::Number(b)) if a.is_f64() || b.is_f64() => {
            let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
            (a - b).abs() <= 1e-12 * b.abs().max(1.0)
        }
        (a, b) => a == b,
    }
}

/// The star-retail schema loads, each dimension in the order its keys and data give
/// (docs/load.md), and the thirteen queries answer what the independent computation gives.
#[test]
fn retail_star_loads_and_answers_match_independent_values() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("db");
    let out = ok(&mut load(&retail().join("schema.sql"), &retail(), &db));
    // Store keys were assigned along region and city (each a run of keys): key order.
    assert!(out.contains("rows ordered by st_id)"), "{out}");
    assert!(
        out.contains("rows ordered by p_category, p_brand, p_id"),
        "{out}"
    );
    assert!(out.contains("rows ordered by d_date"), "{out}");
    assert!(out.contains("160 rows"), "{out}");
    let answers = tmp.path().join("answers.json");
    ok(pmolap()
        .args(["sql", "--quiet", "--data"])
        .arg(&db)
        .arg("--answers")
        .arg(&answers)
        .arg(QUERIES));
    let got = read_json(&answers);
    let want = expected();
    assert_eq!(got.as_object().unwrap().len(), 13, "{got}");
    for (q, rows) in want.as_object().unwrap() {
        assert!(
            same(&got[q], rows),
            "query {q}: got {}, want {rows}",
            got[q]
        );
    }
}

/// A literal with more decimals than its column's scale, or a number on a DATE column,
/// is refused in one line; a literal at the scale (`1.50` = `1.5`) is read exactly.
#[test]
fn decimal_and_date_literals_are_read_at_the_column_type() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("db");
    ok(load(&retail().join("schema.sql"), &retail(), &db).arg("--quiet"));
    let sql = |q: &str| {
        let mut c = pmolap();
        c.args(["sql", "--quiet", "--data"]).arg(&db).arg(q);
        c
    };
    let e = refused(&mut sql(
        "select count(*) from sales where sa_price > 1.005",
    ));
    assert!(
        e.contains("sales.sa_price 1.005") && e.contains("scale"),
        "{e}"
    );
    let e = refused(&mut sql(
        "select count(*) from sales where sa_date > 20240101",
    ));
    assert!(e.contains("DATE 'YYYY-MM-DD'"), "{e}");
    let e = refused(&mut sql("select sum(sa_date) from sales"));
    assert!(e.contains("only MIN, MAX and COUNT take a DATE"), "{e}");
    let e = refused(&mut sql("select sum(sa_price + sa_quantity) from sales"));
    assert!(e.contains("scales 2 and 1"), "{e}");
    let answers = tmp.path().join("a.json");
    ok(sql("select count(*) from sales where sa_discount = 0.250; select count(*) from sales where sa_discount = '0.25'")
        .arg("--answers")
        .arg(&answers));
    let a = read_json(&answers);
    assert_eq!(a["1"], a["2"]);
    assert!(a["1"][0][0].as_i64().unwrap() > 0, "{a}");
}

/// A copy of star-retail in `dir` with `file`'s 1-based line `line` replaced by `with`
/// (None: removed).
fn broken(dir: &Path, file: &str, line: usize, with: Option<&str>) {
    std::fs::create_dir_all(dir).unwrap();
    for e in std::fs::read_dir(retail()).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, dir.join(p.file_name().unwrap())).unwrap();
    }
    let p = dir.join(file);
    let text = std::fs::read_to_string(&p).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    match with {
        Some(w) => lines[line - 1] = w.to_string(),
        None => {
            lines.remove(line - 1);
        }
    }
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
}

/// Each bad input is one line naming the file, the line and the column, and leaves no
/// database behind (and an existing one as it was).
#[test]
fn bad_input_is_one_line_naming_file_line_and_column() {
    let tmp = tempfile::tempdir().unwrap();
    let sales = "sa_id,sa_date,sa_store,sa_product,sa_quantity,sa_price,sa_discount";
    let cases: &[(&str, usize, Option<&str>, &[&str])] = &[
        (
            "sales.csv",
            5,
            Some("2000,2024-01-02,1,20,1.0,12.345,0"),
            &["sales.csv:5: column 6 `sa_price`", "more than the scale"],
        ),
        (
            "sales.csv",
            7,
            Some("2001,2024-01-02,99,20,1.0,12.34,0"),
            &[
                "sales.csv:7: column 3 `sa_store`",
                "foreign key 99 has no row in store",
            ],
        ),
        (
            "sales.csv",
            8,
            Some("2002,2024-03-30,1,20,1.0,12.34,0"),
            &[
                "sales.csv:8: column 2 `sa_date`",
                "foreign key 2024-03-30 has no row in day",
            ],
        ),
        (
            "store.csv",
            4,
            Some("1,Twin,Hamburg,EU"),
            &["store.csv:", "column 1 `st_id`: duplicate primary key"],
        ),
        (
            "sales.csv",
            10,
            Some("1003,2024-01-02,1,20,1.0,12.34,0"),
            &["sales.csv:10: column 1 `sa_id`: duplicate primary key (sa_id) — line 2 has it too"],
        ),
        (
            "sales.csv",
            4,
            Some("2003,2024-01-02,1,20,1.0,,0"),
            &["sales.csv:4: column 6 `sa_price`", "NULL", "NOT NULL"],
        ),
        (
            "sales.csv",
            6,
            Some(",2024-01-02,1,20,1.0,12.34,0"),
            &["sales.csv:6: column 1 `sa_id`", "NULL", "primary key"],
        ),
        (
            "store.csv",
            3,
            Some(",Twin,Hamburg,EU"),
            &["store.csv:3: column 1 `st_id`", "NULL", "primary key"],
        ),
        (
            "product.tsv",
            3,
            Some("30\tx\tred\tAcme\tTools"),
            &["product.tsv:3: 5 fields, table product has 6 columns"],
        ),
        (
            "day.tbl",
            2,
            Some("2024-02-30|2024-02|2024|Friday|"),
            &["day.tbl:2: column 1 `d_date`", "not a day of the calendar"],
        ),
        (
            "schema.sql",
            6,
            Some("    st_id     INTEGER PRIMARY KEY"),
            &["schema.sql: not SQL"],
        ),
        ("sales.csv", 1, Some(sales), &[]), // unchanged: a control, loads
    ];
    for (i, (file, line, with, want)) in cases.iter().enumerate() {
        let dir = tmp.path().join(format!("in{i}"));
        broken(&dir, file, *line, *with);
        let db = tmp.path().join(format!("db{i}"));
        let mut cmd = load(&dir.join("schema.sql"), &dir, &db);
        if want.is_empty() {
            ok(&mut cmd);
            continue;
        }
        let e = refused(&mut cmd);
        for w in *want {
            assert!(e.contains(w), "{file}:{line}: `{w}` not in: {e}");
        }
        assert!(
            !db.join("DATABASE").exists()
                && !std::fs::read_dir(&db)
                    .map(|rd| rd
                        .flatten()
                        .any(|e| e.file_name().to_string_lossy().starts_with('g')))
                    .unwrap_or(false),
            "{file}: something was written"
        );
    }
    // A bad load over an existing database leaves it as it was.
    let db = tmp.path().join("kept");
    ok(load(&retail().join("schema.sql"), &retail(), &db).arg("--quiet"));
    let before = std::fs::read(db.join("DATABASE")).unwrap();
    let dir = tmp.path().join("bad");
    broken(&dir, "sales.csv", 9, Some("x"));
    let e = refused(&mut load(&dir.join("schema.sql"), &dir, &db));
    assert!(e.contains("sales.csv:9: 1 fields"), "{e}");
    assert_eq!(std::fs::read(db.join("DATABASE")).unwrap(), before);
}

/// SSB through the generic path: dbgen's SF 0.01 tables (the reference's, with the fact
/// rows whose date the scaled-down date table lacks left out — a foreign key with no
/// dimension row is refused by `pmolap load`) loaded with workloads/ssb/schema.sql give
/// customer, part and supplier the hierarchy order `ssb load` hard-codes, and the 13
/// queries the same answers as `ssb load --tbl` of the same files.
#[test]
fn ssb_loads_through_the_generic_path_with_the_same_answers() {
    use std::io::BufRead;
    let Some(refdir) = common::reference_or_skip("sf0.01") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let tbl = tmp.path().join("tbl");
    std::fs::create_dir(&tbl).unwrap();
    let read = |t: &str| -> Vec<String> {
        let gz = std::fs::File::open(refdir.join(format!("{t}.tbl.gz"))).unwrap();
        std::io::BufReader::new(flate2::read::GzDecoder::new(gz))
            .lines()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    let dates = read("date");
    let keys: Vec<&str> = dates.iter().map(|l| l.split('|').next().unwrap()).collect();
    for t in ["customer", "date", "part", "supplier", "lineorder"] {
        let mut lines = read(t);
        if t == "lineorder" {
            lines.retain(|l| keys.contains(&l.split('|').nth(5).unwrap()));
            assert!(lines.len() > 500, "{} fact rows kept", lines.len());
        }
        std::fs::write(tbl.join(format!("{t}.tbl")), lines.join("\n") + "\n").unwrap();
    }
    let generic = tmp.path().join("generic");
    let out = ok(&mut load(
        &repo().join("workloads/ssb/schema.sql"),
        &tbl,
        &generic,
    ));
    for order in [
        "c_region, c_nation, c_city, c_custkey",
        "p_mfgr, p_category, p_brand1, p_partkey",
        "s_region, s_nation, s_city, s_suppkey",
    ] {
        assert!(out.contains(&format!("rows ordered by {order}")), "{out}");
    }
    let ssb = tmp.path().join("ssb");
    ok(pmolap()
        .args(["ssb", "load", "--quiet", "--tbl"])
        .arg(&tbl)
        .arg("--out")
        .arg(&ssb));
    let answers = |db: &Path, name: &str| {
        let a = tmp.path().join(name);
        ok(pmolap()
            .args(["ssb", "run", "--quiet", "--data"])
            .arg(db)
            .arg("--answers")
            .arg(&a));
        read_json(&a)
    };
    let (g, s) = (answers(&generic, "g.json"), answers(&ssb, "s.json"));
    assert_eq!(g.as_object().unwrap().len(), 13);
    assert!(
        g.as_object()
            .unwrap()
            .values()
            .filter(|r| r.as_array().is_some_and(|r| !r.is_empty()))
            .count()
            >= 5,
        "{g}"
    );
    assert_eq!(g, s);
}
