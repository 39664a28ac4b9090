//! Guards the wider SQL family (issue 35) end to end on the checked-in star-retail schema:
//! ORs across several columns of one dimension, table aliases, GROUP BY in any order, by
//! position and of columns not selected, ORDER BY aggregates and group-by columns that
//! are not selected, `count(*)` with ORDER BY and LIMIT, `a * b` of decimals at the sum
//! of their scales, DATE ranges and aliases on group-by columns (named by GROUP BY and
//! ORDER BY, heading the answer's column) give DuckDB's answers; an OR across fact
//! columns stays a one-line error with its position.

mod common;

use std::path::Path;

use serde_json::{json, Value};

use common::{ok, pmolap, read_json, refused, repo};

/// The queries (q1..q4, in order).
const QUERIES: &str = "
select s.st_region, count(*) from sales f join store s on f.sa_store = s.st_id
  join product p on f.sa_product = p.p_id
  where (p.p_color = 'red' or p.p_brand in ('Acme', 'Dune') or (p_category = 'Audio' and p_list_price < 50))
    and f.sa_date between DATE '2024-01-01' and DATE '2024-01-31'
  group by s.st_city, 1 order by sum(f.sa_quantity * f.sa_price) desc, s.st_city limit 4;
select d_weekday, count(*) from sales, day where sa_date = d_date
  group by d_weekday order by count(*) desc, d_weekday limit 3;
select max(sa_quantity * sa_discount), min(sa_price * sa_discount), sum(sa_price - sa_discount), count(*)
  from sales where sa_date >= '2024-02-01';
select d.d_month, s.st_region, sum(f.sa_price) as total from sales f, day d, store s
  where f.sa_date = d.d_date and f.sa_store = s.st_id
    and (d.d_weekday = 'Monday' or d.d_year = 2023) and (s.st_city = 'Tokyo' or s.st_name = 'Bay')
  group by s.st_region, d.d_month order by total desc limit 3";

/// DuckDB 2.0.0's answers to QUERIES on the same files and schema.sql (loaded as
/// bench/sql-vs-duckdb/diff.py's `load_retail` does; decimals as DuckDB prints them).
fn expected() -> Value {
    json!({
        "1": [["AM", 13], ["EU", 13], ["AS", 8], ["EU", 10]],
        "2": [["Sunday", 27], ["Saturday", 25], ["Wednesday", 25]],
        "3": [["2.750", "0.0000", "2798.46", 49]],
        "4": [["2023-12", "AM", "301.38"], ["2024-02", "AS", "92.72"], ["2024-01", "AM", "91.54"]]
    })
}

fn load(db: &Path) {
    let retail = repo().join("workloads/star-retail");
    ok(pmolap()
        .arg("load")
        .arg("--schema")
        .arg(retail.join("schema.sql"))
        .arg("--from")
        .arg(&retail)
        .arg("--out")
        .arg(db)
        .arg("--quiet"));
}

#[test]
fn the_wider_family_gives_duckdbs_answers() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("db");
    load(&db);
    let answers = tmp.path().join("answers.json");
    ok(pmolap()
        .args(["sql", "--quiet", "--data"])
        .arg(&db)
        .arg("--answers")
        .arg(&answers)
        .arg(QUERIES));
    assert_eq!(read_json(&answers), expected());
    // The answer's columns are the select list's: the group-by column and the aggregate
    // only ordered by are left out.
    let out = ok(pmolap()
        .args(["sql", "--format", "csv", "--data"])
        .arg(&db)
        .arg(QUERIES.split(';').next().unwrap()));
    assert!(out.starts_with("st_region,count(*)\r\nAM,13\r\n"), "{out}");
}

#[test]
fn an_or_across_fact_columns_is_one_line_with_its_position() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("db");
    load(&db);
    let e = refused(
        pmolap()
            .args(["sql", "--data"])
            .arg(&db)
            .arg("select count(*) from sales where sa_price < 10 or sa_discount = 0.05"),
    );
    assert!(
        e.contains("the OR over several columns of the fact table")
            && e.contains("at line 1 column 34"),
        "{e}"
    );
}

/// `SELECT p_color AS c, d_year AS y … GROUP BY y, c ORDER BY c DESC, y`: DuckDB 2.0.0's
/// rows and column names (`c,y,q`) on the same files.
#[test]
fn aliases_on_group_by_columns_name_the_answer_and_group_and_order_by() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("db");
    load(&db);
    let out = ok(pmolap()
        .args(["sql", "--format", "csv", "--data"])
        .arg(&db)
        .arg(
            "select p_color as c, d_year as y, sum(sa_quantity) as q from sales, product, day \
         where sa_product = p_id and sa_date = d_date group by y, c order by c desc, y limit 4",
        ));
    assert_eq!(
        out,
        "c,y,q\r\nred,2023,65.5\r\nred,2024,285.0\r\ngreen,2023,97.5\r\ngreen,2024,343.0\r\n"
    );
}
