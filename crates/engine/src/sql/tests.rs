//! Unit tests of the SQL translation: the family's constructs into the query model,
//! and refusals naming the construct and its position.

use super::*;
use crate::query::{AggFn, Expr, Literal};

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
        "select c_city, s_city, d_year, sum(lo_revenue) as revenue from customer, lineorder, supplier, date where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_orderdate = d_datekey and (c_city='UNITED KI1' or c_city='UNITED KI5') and (s_city='UNITED KI1' or s_city='UNITED KI5') and d_year >= 1992 and d_year <= 1997 group by c_city, s_city, d_year order by d_year asc, revenue desc",
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
        "select d_year, sum(lo_revenue) as r, count(*) from lineorder, date where lo_orderdate = d_datekey group by d_year order by sum(lo_revenue) desc, 1, COUNT(*) limit 3",
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

/// A script's statements split by the parser's tokens — several on a line, a `;` inside a
/// string splitting nothing — named by `-- Qx.y` comments or numbered by position.
#[test]
fn a_script_holds_several_statements_named_or_numbered() {
    let text = "select sum(lo_revenue) from lineorder; select count(*) from lineorder where lo_discount = 1;\n\
                -- Q2.1\n-- another comment\nselect sum(lo_tax) from lineorder\n  where lo_quantity in (1, 2);;\n\
                select count(*) from lineorder where lo_shipmode = 'A;B' -- trailing\n";
    let s = Script::parse(text).unwrap();
    assert_eq!(s.ids().collect::<Vec<_>>(), ["1", "2", "2.1", "4"]);
    let qs = s.queries(&ssb_tables_with_tax).unwrap();
    assert_eq!(qs.len(), 4);
    assert_eq!(qs[2].id, "2.1");
    assert_eq!(
        qs[3].filters["lo_shipmode"].eq,
        Some(Literal::Str("A;B".into()))
    );
    // Errors name the statement when there are several.
    let e = Script::parse("select 1 from lineorder; select sum(x from lineorder")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("query 2: SQL:"), "{e}");
    let e = Script::parse(
        "select sum(lo_revenue) from lineorder;\n-- Q3\nselect sum(zz) from lineorder",
    )
    .unwrap()
    .queries(&ssb_tables)
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("query 3: SQL:") && e.contains("`zz`"), "{e}");
    for empty in ["", " ;; ", "-- Q1.1\n"] {
        let e = Script::parse(empty).unwrap_err().to_string();
        assert_eq!(e, "SQL: no statement");
    }
    // One statement wanted by `parse_sql`.
    let e = parse_sql(
        "select 1 from lineorder; select 2 from lineorder",
        "x",
        &ssb_tables,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("2 statements"), "{e}");
}

fn ssb_tables_with_tax(t: &str) -> Option<Vec<String>> {
    let mut cols = ssb_tables(t)?;
    if t == "lineorder" {
        cols.extend(["lo_tax".to_string(), "lo_shipmode".to_string()]);
    }
    Some(cols)
}

/// An unknown column compared with a literal is named, on either side and in an OR.
#[test]
fn an_unknown_column_is_named_not_the_literal() {
    for sql in [
        "select sum(lo_revenue) from lineorder where zz = 3",
        "select sum(lo_revenue) from lineorder where 3 < zz",
        "select sum(lo_revenue) from lineorder where zz = 3 or zz = 4",
        "select sum(lo_revenue) from lineorder, date where zz = d_datekey",
        "select sum(lo_revenue) from lineorder where zz between 1 and 2",
    ] {
        let e = parse_sql(sql, "x", &ssb_tables).unwrap_err().to_string();
        assert!(e.contains("has the column `zz`"), "{sql}: {e}");
        assert!(!e.contains("`3`"), "{sql}: {e}");
        assert!(e.contains("line 1 column"), "{sql}: {e}");
    }
}

/// Hostile sizes end with one line each: long chains of operators are refused before the
/// parser builds a tree that deep (which walking, printing or dropping would overflow the
/// stack on), deep nesting at the parser's recursion limit, long IN lists and texts at
/// their bounds; chains up to the bound translate (or are refused) on a test thread's
/// stack.
#[test]
fn operator_chains_nesting_and_lists_are_bounded() {
    let one_line = |text: &str, want: &str| {
        let e = parse_sql(text, "x", &ssb_tables).unwrap_err().to_string();
        assert!(e.contains(want), "{}: {e}", &text[..60.min(text.len())]);
        assert_eq!(e.lines().count(), 1);
        assert!(e.len() < 400, "{e}");
    };
    let ors = |n: usize| {
        (0..n)
            .map(|i| format!("lo_discount = {i}"))
            .collect::<Vec<_>>()
            .join(" or ")
    };
    let sum_of = |n: usize| vec!["lo_revenue"; n].join(" + ");
    // 100,000 terms (as short as they come, to stay under the text's bound).
    one_line(
        &format!(
            "select sum(lo_revenue) from lineorder where {}",
            vec!["x=1"; 100_000].join(" or ")
        ),
        "more than 256 operators",
    );
    one_line(
        &format!(
            "select sum({}) from lineorder",
            vec!["a"; 100_000].join("+")
        ),
        "more than 256 operators",
    );
    one_line(
        &format!(
            "select sum(lo_revenue) from lineorder where {}lo_discount = 1{}",
            "(".repeat(100_000),
            ")".repeat(100_000)
        ),
        "nested more than 50 levels",
    );
    let list: Vec<String> = (0..=MAX_LIST_ITEMS).map(|i| i.to_string()).collect();
    one_line(
        &format!(
            "select sum(lo_revenue) from lineorder where lo_discount in ({})",
            list.join(",")
        ),
        "an IN list of 65537 values",
    );
    one_line(&" ".repeat(MAX_SQL_BYTES + 1), "more than the limit");
    // At the bounds: the longest chains allowed go through (or are refused) in one piece.
    let near = (MAX_OPERATORS - 10) / 2;
    let q = parse_sql(
        &format!("select sum(lo_revenue) from lineorder where {}", ors(near)),
        "x",
        &ssb_tables,
    )
    .unwrap();
    assert_eq!(
        q.filters["lo_discount"].one_of.as_ref().unwrap().len(),
        near
    );
    one_line(
        &format!("select sum({}) from lineorder", sum_of(MAX_OPERATORS - 10)),
        "a column is needed",
    );
    one_line(
        &format!(
            "select sum(lo_revenue) from lineorder where {} or lo_quantity = 1",
            ors(near)
        ),
        "OR over several columns",
    );
    let nested = format!(
        "select sum(lo_revenue) from lineorder where {}lo_discount = 1{}",
        "(".repeat(MAX_NESTING - 5),
        ")".repeat(MAX_NESTING - 5)
    );
    assert!(parse_sql(&nested, "x", &ssb_tables).is_ok());
    // Both at once: a chain at the bound inside nesting at the bound, refused whole.
    one_line(
        &format!(
            "select sum(lo_revenue) from lineorder where {}{} or lo_quantity = 1{}",
            "(".repeat(MAX_NESTING - 10),
            ors(near),
            ")".repeat(MAX_NESTING - 10)
        ),
        "OR over several columns",
    );
}

/// OR across several columns of one dimension — mixed with AND, IN, BETWEEN and
/// parentheses — is one condition of that join (evaluated on its rows); an OR of
/// equalities on one column stays an IN list.
#[test]
fn or_across_columns_of_one_dimension_is_a_condition_of_its_join() {
    use crate::query::{Cond, Predicate};
    let q = parse_sql(
        "select sum(l.lo_revenue) from lineorder l, part p where l.lo_partkey = p.p_partkey \
         and (p.p_category = 'MFGR#12' or p_brand1 in ('MFGR#2221', 'MFGR#2222') \
              or (p_mfgr = 'MFGR#1' and p.p_category <> 'MFGR#11')) \
         and p_mfgr between 'MFGR#1' and 'MFGR#3' and (p_mfgr = 'MFGR#1' or p_mfgr = 'MFGR#2')",
        "or",
        &ssb_tables,
    )
    .unwrap();
    let j = &q.joins[0];
    let s = |v: &str| Literal::Str(v.into());
    let one = |col: &str, p: Predicate| Cond::Where([(col.to_string(), p)].into());
    assert_eq!(
        j.conditions,
        [Cond::Any(vec![
            one(
                "p_category",
                Predicate {
                    eq: Some(s("MFGR#12")),
                    ..Default::default()
                }
            ),
            one(
                "p_brand1",
                Predicate {
                    one_of: Some(vec![s("MFGR#2221"), s("MFGR#2222")]),
                    ..Default::default()
                }
            ),
            Cond::All(vec![
                one(
                    "p_mfgr",
                    Predicate {
                        eq: Some(s("MFGR#1")),
                        ..Default::default()
                    }
                ),
                one(
                    "p_category",
                    Predicate {
                        ne: Some(s("MFGR#11")),
                        ..Default::default()
                    }
                ),
            ]),
        ])]
    );
    assert_eq!(
        j.filters["p_mfgr"].between,
        Some((s("MFGR#1"), s("MFGR#3")))
    );
    assert_eq!(
        j.filters["p_mfgr"].one_of,
        Some(vec![s("MFGR#1"), s("MFGR#2")])
    );
    // Outside: an OR over fact columns, over two tables, or holding a join equality.
    for (sql, want) in [
        (
            "select sum(lo_revenue) from lineorder where lo_quantity < 3 or lo_discount = 2",
            "the OR over several columns of the fact table `lo_quantity < 3 OR lo_discount = 2` at line 1 column 45",
        ),
        (
            "select sum(lo_revenue) from lineorder, part where lo_partkey = p_partkey and (p_mfgr = 'a' or lo_discount = 2)",
            "the OR over several tables",
        ),
        (
            "select sum(lo_revenue) from lineorder, part where lo_partkey = p_partkey or p_mfgr = 'a'",
            "the join equality inside an OR",
        ),
        (
            "select sum(lo_revenue) from lineorder, part where lo_partkey = p_partkey and (p_mfgr = 'a' or p_mfgr like 'b')",
            "the condition `p_mfgr LIKE 'b'` at line 1 column",
        ),
    ] {
        let e = parse_sql(sql, "x", &ssb_tables).unwrap_err().to_string();
        assert!(e.contains(want), "{sql}: {e}");
        assert_eq!(e.lines().count(), 1);
    }
}

/// GROUP BY names the selected columns in any order, by name, qualified name or
/// position, and may name more (grouped by, not selected); a selected column it leaves
/// out is refused.
#[test]
fn group_by_in_any_order_and_of_more_columns_than_selected() {
    let q = parse_sql(
        "select d.d_year, sum(l.lo_revenue) from lineorder as l join date d on l.lo_orderdate = d.d_datekey \
         join customer c on c.c_custkey = l.lo_custkey group by c.c_nation, lo_discount, 1",
        "g",
        &ssb_tables,
    )
    .unwrap();
    assert_eq!(q.select, ["d_year", "sum(l.lo_revenue)"]);
    assert_eq!(q.carry, ["lo_discount"]);
    let carry = |dim: &str| q.joins.iter().find(|j| j.dim == dim).unwrap().carry.clone();
    assert_eq!(carry("date"), ["d_year"]);
    assert_eq!(carry("customer"), ["c_nation"]);
    for (sql, want) in [
        (
            "select d_year, c_nation, count(*) from lineorder, date, customer where lo_orderdate = d_datekey and lo_custkey = c_custkey group by d_year",
            "the selected column `c_nation` is not in GROUP BY (d_year)",
        ),
        (
            "select d_year, count(*) from lineorder, date where lo_orderdate = d_datekey",
            "the selected column `d_year` is not in GROUP BY (there is none)",
        ),
        (
            "select d_year, count(*) from lineorder, date where lo_orderdate = d_datekey group by 2",
            "GROUP BY position (not a selected column's position) `2` at line 1 column",
        ),
    ] {
        let e = parse_sql(sql, "x", &ssb_tables).unwrap_err().to_string();
        assert!(e.contains(want), "{sql}: {e}");
    }
}

/// ORDER BY any aggregate — selected (however written: qualified, in other case) or
/// computed only to order by — and a group-by column that is not selected; `count(*)`
/// with ORDER BY and LIMIT.
#[test]
fn order_by_aggregates_and_group_columns_not_selected() {
    let q = parse_sql(
        "select d.d_year, count(*) from lineorder l, date d where l.lo_orderdate = d.d_datekey \
         group by d.d_year, d_yearmonth order by SUM(lo_revenue) desc, count(*), d.d_yearmonth, \
         max(l.lo_discount * l.lo_quantity) limit 2",
        "o",
        &ssb_tables,
    )
    .unwrap();
    assert_eq!(q.select, ["d_year", "count(*)"]);
    let aggs: Vec<String> = q.aggregates.iter().map(|a| a.text()).collect();
    assert_eq!(
        aggs,
        [
            "count(*)",
            "sum(lo_revenue)",
            "max(lo_discount * lo_quantity)"
        ]
    );
    let keys: Vec<(&str, bool)> = q
        .order_by
        .iter()
        .map(|k| (k.name.as_str(), k.desc))
        .collect();
    assert_eq!(
        keys,
        [
            ("SUM(lo_revenue)", true),
            ("count(*)", false),
            ("d_yearmonth", false),
            ("max(l.lo_discount * l.lo_quantity)", false)
        ]
    );
    // A selected aggregate written again with a qualified column is the same one.
    let q = parse_sql(
        "select sum(l.lo_revenue) as r, count(*) from lineorder l order by sum(lo_revenue), count(*) desc limit 1",
        "o",
        &ssb_tables,
    )
    .unwrap();
    assert_eq!(q.aggregates.len(), 2);
    assert_eq!(q.order_by[0].name, "r");
    assert_eq!(q.order_by[1].name, "count(*)");
    // A hidden aggregate's name never takes a selected one's.
    let q = parse_sql(
        "select min(lo_discount) as \"max(lo_discount)\" from lineorder order by max(lo_discount)",
        "o",
        &ssb_tables,
    )
    .unwrap();
    assert_eq!(q.order_by[0].name, "max(lo_discount)'");
    let e = parse_sql(
        "select d_year, count(*) from lineorder, date where lo_orderdate = d_datekey group by d_year order by d_yearmonth",
        "x",
        &ssb_tables,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("ORDER BY column (neither selected nor grouped by) `d_yearmonth` at line 1"),
        "{e}"
    );
}

/// A name that is no table resolves through the database's synonyms (the SSB texts'
/// `ddate` for `date`), qualified references through it included; without a synonym it
/// is an unknown table, and a synonym never hides a table of that name.
#[test]
fn another_name_of_a_table_resolves_through_the_synonyms() {
    let ddate = |n: &str| (n == "ddate").then(|| "date".to_string());
    let sql = "select ddate.d_year, sum(lo_revenue) from lineorder, ddate where lo_orderdate = d_datekey and ddate.d_year = 1993 group by ddate.d_year";
    let q = &Script::parse(sql)
        .unwrap()
        .queries_with(&ssb_tables, &ddate)
        .unwrap()[0];
    assert_eq!(q.joins[0].dim, "date");
    assert_eq!(q.joins[0].carry, ["d_year"]);
    let e = parse_sql(sql, "x", &ssb_tables).unwrap_err().to_string();
    assert!(
        e.contains("ddate") && e.contains("not in the database"),
        "{e}"
    );
    let to_part = |_: &str| Some("part".to_string());
    let q = &Script::parse(
        "select sum(lo_revenue) from lineorder, date where lo_orderdate = d_datekey",
    )
    .unwrap()
    .queries_with(&ssb_tables, &to_part)
    .unwrap()[0];
    assert_eq!(q.joins[0].dim, "date");
}

/// A comparison with the literal NULL (never true in SQL) is a one-line error with its
/// position saying to write IS NULL / IS NOT NULL, on either side, inside an OR, in an
/// IN list or BETWEEN; `IS [NOT] NULL` itself translates.
#[test]
fn a_comparison_with_null_says_to_write_is_null() {
    for (sql, want) in [
        (
            "select count(*) from lineorder where lo_discount = NULL",
            "`lo_discount = NULL` at line 1 column 38: a comparison with NULL is never true; write IS NULL",
        ),
        (
            "select count(*) from lineorder where lo_discount <> null",
            "`lo_discount <> NULL` at line 1 column 38: a comparison with NULL is never true; write IS NOT NULL",
        ),
        (
            "select count(*) from lineorder where NULL = lo_discount",
            "`NULL = lo_discount` at line 1 column 38: a comparison with NULL is never true; write IS NULL",
        ),
        (
            "select count(*) from lineorder where lo_discount < (NULL)",
            "a comparison with NULL is never true; write IS NULL or IS NOT NULL",
        ),
        (
            "select count(*) from lineorder, part where lo_partkey = p_partkey and (p_mfgr = 'MFGR#1' or p_category = NULL)",
            "`p_category = NULL` at line 1 column 93: a comparison with NULL is never true; write IS NULL",
        ),
        (
            "select count(*) from lineorder where lo_discount = 1 or lo_discount = NULL",
            "`lo_discount = NULL` at line 1 column 57: a comparison with NULL is never true; write IS NULL",
        ),
        (
            "select count(*) from lineorder where lo_discount in (1, NULL)",
            "write IS NULL or IS NOT NULL",
        ),
        (
            "select count(*) from lineorder where lo_discount between NULL and 3",
            "write IS NULL or IS NOT NULL",
        ),
    ] {
        let e = parse_sql(sql, "x", &ssb_tables).unwrap_err().to_string();
        assert!(e.contains(want), "{sql}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
    let q = parse_sql(
        "select count(*) from lineorder where lo_discount is null and lo_quantity is not null",
        "x",
        &ssb_tables,
    )
    .unwrap();
    assert_eq!(q.filters["lo_discount"].is_null, Some(true));
    assert_eq!(q.filters["lo_quantity"].is_null, Some(false));
}

/// A selected group-by column may have an alias: the answer's column is named by it, and
/// ORDER BY and GROUP BY may name it (GROUP BY: a column of that name comes first); an
/// alias naming two select items is refused.
#[test]
fn aliases_on_group_by_columns() {
    let q = parse_sql(
        "select d_year as y, c.c_nation as n, sum(lo_revenue) as s from lineorder, date, customer c \
         where lo_orderdate = d_datekey and lo_custkey = c_custkey group by y, c.c_nation order by y desc, n, s",
        "a",
        &ssb_tables,
    )
    .unwrap();
    assert_eq!(q.select, ["d_year", "c_nation", "s"]);
    assert_eq!(q.column_names(), ["y", "n", "s"]);
    let carry = |dim: &str| q.joins.iter().find(|j| j.dim == dim).unwrap().carry.clone();
    assert_eq!(carry("date"), ["d_year"]);
    assert_eq!(carry("customer"), ["c_nation"]);
    let keys: Vec<(&str, bool)> = q
        .order_by
        .iter()
        .map(|k| (k.name.as_str(), k.desc))
        .collect();
    assert_eq!(keys, [("d_year", true), ("c_nation", false), ("s", false)]);
    // GROUP BY the column itself, ORDER BY its alias.
    let q = parse_sql(
        "select d_year as y, count(*) from lineorder, date where lo_orderdate = d_datekey group by d_year order by y",
        "b",
        &ssb_tables,
    )
    .unwrap();
    assert_eq!(q.column_names(), ["y", "count(*)"]);
    assert_eq!(q.order_by[0].name, "d_year");
    // Written with the query (a query without aliases is written as before).
    let text = serde_yaml_ng::to_string(&q).unwrap();
    assert!(text.contains("aliases:\n  d_year: y\n"), "{text}");
    for (sql, want) in [
        (
            "select d_year as s, sum(lo_revenue) as s from lineorder, date where lo_orderdate = d_datekey group by d_year",
            "the alias `s` names two select items",
        ),
        (
            "select d_year as y, d_yearmonth, count(*) from lineorder, date where lo_orderdate = d_datekey group by d_year, y",
            "the selected column `d_yearmonth` is not in GROUP BY (d_year)",
        ),
        (
            "select d_year as y, count(*) from lineorder, date where lo_orderdate = d_datekey group by z",
            "no FROM table (lineorder, date) has the column `z`",
        ),
    ] {
        let e = parse_sql(sql, "x", &ssb_tables).unwrap_err().to_string();
        assert!(e.contains(want), "{sql}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
}
