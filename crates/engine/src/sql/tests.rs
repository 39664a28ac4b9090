//! Unit tests of the SQL translation: the family's constructs into the query model,
//! and refusals naming the construct and its position.

use super::*;

fn ssb_tables(t: &str) -> Option<Vec<String>> {
    let cols: &[&str] = match t {
        "lineorder" => &[
            "lo_orderdate",
            "lo_custkey",
            "lo_partkey",
            "lo_suppkey",
            "lo_quantity",
            "lo_discount",
            "lo_extendedprice",
            "lo_revenue",
            "lo_supplycost",
        ],
        "date" => &[
            "d_datekey",
            "d_year",
            "d_yearmonthnum",
            "d_yearmonth",
            "d_weeknuminyear",
        ],
        "part" => &["p_partkey", "p_category", "p_brand1", "p_mfgr"],
        "supplier" => &["s_suppkey", "s_region", "s_nation", "s_city"],
        "customer" => &["c_custkey", "c_region", "c_nation", "c_city"],
        _ => return None,
    };
    Some(cols.iter().map(|c| c.to_string()).collect())
}

#[test]
fn q3_3_translates() {
    let q = parse_sql(
        "select c_city, s_city, d_year, sum(lo_revenue) as revenue from customer, lineorder, supplier, ddate where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_orderdate = d_datekey and (c_city='UNITED KI1' or c_city='UNITED KI5') and (s_city='UNITED KI1' or s_city='UNITED KI5') and d_year >= 1992 and d_year <= 1997 group by c_city, s_city, d_year order by d_year asc, revenue desc",
        "3.3",
        &ssb_tables,
    )
    .unwrap();
    assert_eq!(q.fact, "lineorder");
    assert_eq!(q.joins.len(), 3);
    let c = q.joins.iter().find(|j| j.dim == "customer").unwrap();
    assert_eq!(c.on, ("lo_custkey".into(), "c_custkey".into()));
    assert_eq!(
        c.filters["c_city"].one_of,
        Some(vec![
            Literal::Str("UNITED KI1".into()),
            Literal::Str("UNITED KI5".into())
        ])
    );
    let d = q.joins.iter().find(|j| j.dim == "date").unwrap();
    assert_eq!(d.filters["d_year"].ge, Some(Literal::Int(1992)));
    assert_eq!(d.filters["d_year"].le, Some(Literal::Int(1997)));
    assert_eq!(q.select, ["c_city", "s_city", "d_year", "revenue"]);
    assert_eq!(q.order_by.len(), 2);
    assert!(q.order_by[1].desc && q.order_by[1].name == "revenue");
}

#[test]
fn outside_the_family_is_named_with_its_position() {
    let bad = [
        (
            "select sum(lo_revenue) from lineorder where lo_quantity like 3",
            "condition",
        ),
        ("select avgx(lo_revenue) from lineorder", "function"),
        (
            "select sum(lo_revenue) from lineorder, part",
            "no join equality",
        ),
        ("select sum(lo_revenue) from nope", "not in the database"),
        (
            "select sum(lo_revenue) from lineorder where lo_quantity = lo_discount",
            "two columns",
        ),
        ("delete from lineorder", "statement"),
        (
            "select sum(lo_revenue) from lineorder where lo_quantity < 3 or lo_discount = 2",
            "OR",
        ),
    ];
    for (sql, want) in bad {
        let e = parse_sql(sql, "x", &ssb_tables).unwrap_err().to_string();
        assert!(e.contains(want), "{sql}: {e}");
        assert_eq!(e.lines().count(), 1);
    }
    let e = parse_sql(
        "select sum(lo_revenue) from lineorder where lo_quantity like 3",
        "x",
        &ssb_tables,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("line 1 column"), "{e}");
}

#[test]
fn every_aggregate_and_negated_predicates_translate() {
    let q = parse_sql(
        "select count(*), count(lo_revenue) as c2, min(lo_discount) lo, max(lo_extendedprice * lo_discount) as hi, avg(lo_revenue - lo_supplycost) as m from lineorder where lo_quantity not in (1, 2) and lo_discount not between 3 and 5",
        "a",
        &ssb_tables,
    )
    .unwrap();
    assert!(q.joins.is_empty() && q.carry.is_empty());
    let got: Vec<(AggFn, Option<String>)> = q
        .aggregates
        .iter()
        .map(|a| (a.func, a.arg.as_ref().map(Expr::to_string)))
        .collect();
    assert_eq!(
        got,
        [
            (AggFn::Count, None),
            (AggFn::Count, Some("lo_revenue".into())),
            (AggFn::Min, Some("lo_discount".into())),
            (AggFn::Max, Some("lo_extendedprice * lo_discount".into())),
            (AggFn::Avg, Some("lo_revenue - lo_supplycost".into())),
        ]
    );
    assert_eq!(q.select, ["count(*)", "c2", "lo", "hi", "m"]);
    assert_eq!(
        q.filters["lo_quantity"].not_in,
        Some(vec![Literal::Int(1), Literal::Int(2)])
    );
    assert_eq!(
        q.filters["lo_discount"].not_between,
        Some((Literal::Int(3), Literal::Int(5)))
    );
}

#[test]
fn order_by_an_aggregate_written_again_or_a_position() {
    let q = parse_sql(
        "select d_year, sum(lo_revenue) as r, count(*) from lineorder, ddate where lo_orderdate = d_datekey group by d_year order by sum(lo_revenue) desc, 1, COUNT(*) limit 3",
        "o",
        &ssb_tables,
    )
    .unwrap();
    let keys: Vec<(&str, bool)> = q
        .order_by
        .iter()
        .map(|k| (k.name.as_str(), k.desc))
        .collect();
    assert_eq!(keys, [("r", true), ("d_year", false), ("count(*)", false)]);
    assert_eq!(q.limit, Some(3));
}
