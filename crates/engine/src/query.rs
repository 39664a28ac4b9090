//! Star-join queries as data: fact-table predicates, joined dimensions with their
//! predicates and carried (group-by) attributes, aggregates (SUM, COUNT, MIN, MAX, AVG of
//! fact-column expressions), the select list, order by and limit. Read from YAML or JSON; checked for
//! shape here and against a database's schemas when planned.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

mod aggregate;
mod predicate;

pub use aggregate::{AggFn, Aggregate, Expr, Op, OrderKey};
pub use predicate::{Cond, IndexChoice, Join, Literal, Predicate};

/// A star-join query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Query {
    /// A name for reports (`1.1`, …).
    #[serde(default)]
    pub id: String,
    /// The fact table; empty (a YAML query without `fact:`): the database's
    /// ([`crate::Database::fact_table`]), filled in when the query runs.
    #[serde(default)]
    pub fact: String,
    /// Predicates on fact columns.
    #[serde(default, rename = "where")]
    pub filters: BTreeMap<String, Predicate>,
    #[serde(default)]
    pub joins: Vec<Join>,
    /// Fact columns the query groups by (besides the joins' carried columns).
    #[serde(default)]
    pub carry: Vec<String>,
    pub aggregates: Vec<Aggregate>,
    /// Output columns, in order: aggregate names and carried columns.
    pub select: Vec<String>,
    /// The names the answer gives selected carried columns other than their own
    /// (`SELECT d_year AS y`): select entry → name. Absent from older documents.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub aliases: BTreeMap<String, String>,
    #[serde(default)]
    pub order_by: Vec<OrderKey>,
    #[serde(default)]
    pub limit: Option<usize>,
}

/// The most items of any list of a query: a predicate's values, the joins, the
/// aggregates, the carried columns, the select list, the order by.
pub const MAX_LIST_ITEMS: usize = 65_536;

impl Query {
    /// Checks what can be checked without a database: lists within [`MAX_LIST_ITEMS`],
    /// names unique and known, no empty predicate.
    pub fn validate(&self) -> Result<()> {
        let q = |m: String| Error::Query(format!("query {}: {m}", self.label()));
        let preds = self.all_predicates();
        let mut lists: Vec<(String, usize)> = vec![
            ("joins".into(), self.joins.len()),
            ("aggregates".into(), self.aggregates.len()),
            ("carry".into(), self.carry.len()),
            ("select".into(), self.select.len()),
            ("order by".into(), self.order_by.len()),
        ];
        for j in &self.joins {
            lists.push((format!("the carry of {}", j.dim), j.carry.len()));
            lists.push((format!("the conditions of {}", j.dim), j.conditions.len()));
            for c in &j.conditions {
                for n in c.list_lengths() {
                    lists.push((format!("a condition of {}", j.dim), n));
                }
            }
        }
        for (col, p) in preds {
            for (what, l) in [("in", &p.one_of), ("not_in", &p.not_in)] {
                if let Some(l) = l {
                    lists.push((format!("`{what}` of `{col}`"), l.len()));
                }
            }
        }
        if let Some((what, n)) = lists.into_iter().find(|(_, n)| *n > MAX_LIST_ITEMS) {
            return Err(q(format!(
                "{what} holds {n} items, more than the limit of {MAX_LIST_ITEMS}"
            )));
        }
        if self.aggregates.is_empty() {
            return Err(q("needs at least one aggregate".into()));
        }
        let mut names: Vec<&str> = self.aggregates.iter().map(|a| a.name.as_str()).collect();
        names.extend(self.carry.iter().map(String::as_str));
        for j in &self.joins {
            names.extend(j.carry.iter().map(String::as_str));
        }
        let mut sorted = names.clone();
        sorted.sort_unstable();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return Err(q(format!("`{}` is named twice", w[0])));
        }
        for s in &self.select {
            if !names.contains(&s.as_str()) {
                return Err(q(format!(
                    "select `{s}` is neither an aggregate nor a carried column (have: {})",
                    names.join(", ")
                )));
            }
        }
        if let Some(k) = self.aliases.keys().find(|k| !self.select.contains(k)) {
            return Err(q(format!("alias of `{k}`, which is not selected")));
        }
        // An ORDER BY key may be an aggregate or a carried (group-by) column that is not
        // selected: computed, ordered by, and left out of the answer.
        for k in &self.order_by {
            if !names.contains(&k.name.as_str()) {
                return Err(q(format!(
                    "order by `{}` is neither an aggregate nor a carried column",
                    k.name
                )));
            }
        }
        let mut dims: Vec<&str> = self.joins.iter().map(|j| j.dim.as_str()).collect();
        dims.sort_unstable();
        if let Some(w) = dims.windows(2).find(|w| w[0] == w[1]) {
            return Err(q(format!("dimension `{}` is joined twice", w[0])));
        }
        for (col, p) in self.all_predicates() {
            if p.is_empty() {
                return Err(q(format!(
                    "the predicate on `{col}` is empty (use eq, ne, in, not_in, between, not_between, lt, le, gt, ge or is_null)"
                )));
            }
        }
        for j in &self.joins {
            if j.conditions.iter().any(Cond::has_empty_part) {
                return Err(q(format!(
                    "a condition on `{}` is empty (a `where` needs a predicate, an `all` or `any` a part)",
                    j.dim
                )));
            }
        }
        Ok(())
    }

    /// The names of the answer's columns: the select list, an aliased column under its
    /// alias.
    pub fn column_names(&self) -> Vec<String> {
        self.select
            .iter()
            .map(|s| self.aliases.get(s).unwrap_or(s).clone())
            .collect()
    }

    /// Every predicate of the query: the fact table's, the dimensions' and those inside
    /// the dimensions' conditions.
    fn all_predicates(&self) -> impl Iterator<Item = (&String, &Predicate)> {
        self.filters.iter().chain(self.joins.iter().flat_map(|j| {
            j.filters
                .iter()
                .chain(j.conditions.iter().flat_map(Cond::predicates))
        }))
    }

    /// This query with every join on the index `choice`.
    pub fn with_join_index(&self, choice: IndexChoice) -> Query {
        let mut q = self.clone();
        for j in &mut q.joins {
            j.index = choice;
        }
        q
    }

    /// `Q<id>` or `the query` when it has no id.
    pub fn label(&self) -> String {
        if self.id.is_empty() {
            "(unnamed)".into()
        } else {
            self.id.clone()
        }
    }
}

/// Parses one query or a list of queries from YAML (JSON is YAML too).
pub fn parse_queries(text: &str, origin: &str) -> Result<Vec<Query>> {
    // Deep nesting is refused before the parser sees it (parsers take quadratic time).
    pmolap_os::input::check_nesting(text, pmolap_os::input::MAX_NESTING, origin)?;
    // Parser messages may quote the input: keep them short.
    let short = |e: &dyn std::fmt::Display| pmolap_os::input::excerpt(&e.to_string(), 240);
    // Not an untagged enum: that would hide the real error. Look at the shape first and
    // report the error of the shape the text has.
    let value: serde_yaml_ng::Value = serde_yaml_ng::from_str(text)
        .map_err(|e| Error::Query(format!("{origin}: not YAML: {}", short(&e))))?;
    if !(value.is_sequence() || value.is_mapping()) {
        return Err(Error::Query(format!(
            "{origin}: expected a query (a mapping with `joins`, `aggregates`, `select`, …) or a list of them, found {}",
            match value {
                serde_yaml_ng::Value::Null => "nothing (an empty file)",
                serde_yaml_ng::Value::String(_) => "a string",
                serde_yaml_ng::Value::Number(_) => "a number",
                serde_yaml_ng::Value::Bool(_) => "a boolean",
                _ => "another kind of value",
            }
        )));
    }
    let queries = if value.is_sequence() {
        serde_yaml_ng::from_value::<Vec<Query>>(value)
    } else {
        serde_yaml_ng::from_value::<Query>(value).map(|q| vec![q])
    }
    .map_err(|e| Error::Query(format!("{origin}: {}", short(&e))))?;
    if queries.is_empty() {
        return Err(Error::Query(format!("{origin}: an empty list of queries")));
    }
    for q in &queries {
        q.validate()
            .map_err(|e| Error::Query(format!("{origin}: {e}")))?;
    }
    Ok(queries)
}

/// The 13 SSB queries, as data (`queries/ssb.yaml`).
pub fn ssb_queries() -> Vec<Query> {
    parse_queries(include_str!("../queries/ssb.yaml"), "queries/ssb.yaml")
        .expect("the embedded SSB queries parse (checked by a unit test)")
}

/// The SSB queries whose ids are listed (`all` or `1.1,2.3`), in the order given.
pub fn select_ssb(list: &str) -> Result<Vec<Query>> {
    let all = ssb_queries();
    if list.trim() == "all" {
        return Ok(all);
    }
    if list.split(',').all(|s| s.trim().is_empty()) {
        return Err(Error::Query(
            "no queries named; give `all` or a list such as 1.1,2.3".into(),
        ));
    }
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|id| {
            let id = id.trim_start_matches(['q', 'Q']);
            all.iter().find(|q| q.id == id).cloned().ok_or_else(|| {
                Error::Query(format!(
                    "no SSB query `{id}`; the queries are {}",
                    all.iter()
                        .map(|q| q.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ssb_queries_parse() {
        let q = ssb_queries();
        assert_eq!(q.len(), 13);
        assert_eq!(q[0].id, "1.1");
        assert_eq!(
            q[0].aggregates[0].arg,
            Some(Expr::Bin(
                "lo_extendedprice".into(),
                Op::Mul,
                "lo_discount".into()
            ))
        );
        assert_eq!(q[0].aggregates[0].func, AggFn::Sum);
        assert_eq!(
            q[6].order_by[1],
            OrderKey {
                name: "revenue".into(),
                desc: true
            }
        );
    }

    #[test]
    fn every_aggregate_reads_and_writes_back() {
        let text = "aggregates: [{name: n, count: \"*\"}, {name: c, count: a}, {name: lo, min: a}, {name: hi, max: a * b}, {name: m, avg: a - b}, {name: s, sum: a + b}]\nselect: [n, c, lo, hi, m, s]\nwhere: {a: {not_in: [1, 2], not_between: [5, 7]}}";
        let q = parse_queries(text, "t.yaml").unwrap().remove(0);
        let got: Vec<String> = q.aggregates.iter().map(Aggregate::text).collect();
        assert_eq!(
            got,
            [
                "count(*)",
                "count(a)",
                "min(a)",
                "max(a * b)",
                "avg(a - b)",
                "sum(a + b)"
            ]
        );
        assert_eq!(
            q.filters["a"].not_between,
            Some((Literal::Int(5), Literal::Int(7)))
        );
        let back = serde_yaml_ng::to_string(&q).unwrap();
        assert_eq!(parse_queries(&back, "back.yaml").unwrap()[0], q, "{back}");
    }

    /// Dimension conditions (an OR across columns) read from YAML and write back; empty
    /// parts are refused; ORDER BY may name an aggregate that is not selected, not an
    /// unknown name.
    #[test]
    fn dimension_conditions_read_and_write_back() {
        let text = "aggregates: [{name: r, sum: a}, {name: n, count: \"*\"}]\nselect: [r]\njoins:\n  - dim: part\n    on: [fk, pk]\n    conditions:\n      - any:\n          - where: {p_mfgr: {eq: \"MFGR#1\"}}\n          - all:\n              - where: {p_category: {eq: \"MFGR#21\"}}\n              - where: {p_size: {lt: 10}}\n";
        let q = parse_queries(text, "t.yaml").unwrap().remove(0);
        let Cond::Any(alts) = &q.joins[0].conditions[0] else {
            panic!("{q:?}")
        };
        assert_eq!(alts.len(), 2);
        assert_eq!(q.joins[0].conditions[0].predicates().len(), 3);
        let back = serde_yaml_ng::to_string(&q).unwrap();
        assert_eq!(parse_queries(&back, "back.yaml").unwrap()[0], q, "{back}");
        for (bad, want) in [
            ("[{any: []}]", "a condition on `part` is empty"),
            ("[{where: {}}]", "a condition on `part` is empty"),
            ("[{where: {x: {}}}]", "the predicate on `x` is empty"),
            ("[{some: []}]", "unknown field `some`"),
            ("[{all: [], any: []}]", "a condition is one of"),
        ] {
            let t = format!("aggregates: [{{name: r, sum: a}}]\nselect: [r]\njoins: [{{dim: part, on: [fk, pk], conditions: {bad}}}]");
            let e = parse_queries(&t, "t.yaml").unwrap_err().to_string();
            assert!(e.contains(want), "{bad}: {e}");
        }
        let q = parse_queries(
            "aggregates: [{name: r, sum: a}, {name: n, count: \"*\"}]\nselect: [r]\norder_by: [n desc]",
            "t.yaml",
        )
        .unwrap();
        assert!(q[0].order_by[0].desc);
        let e = parse_queries(
            "aggregates: [{name: r, sum: a}]\nselect: [r]\norder_by: [zz]",
            "t.yaml",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("order by `zz` is neither"), "{e}");
    }

    #[test]
    fn selects_by_id() {
        let q = select_ssb("q2.1, 4.3").unwrap();
        assert_eq!(
            q.iter().map(|q| q.id.as_str()).collect::<Vec<_>>(),
            ["2.1", "4.3"]
        );
        let e = select_ssb("5.1").unwrap_err().to_string();
        assert!(e.contains("no SSB query `5.1`"), "{e}");
    }

    #[test]
    fn bad_queries_are_named() {
        let bad = [
            ("aggregates: []\nselect: []", "at least one aggregate"),
            (
                "aggregates: [{name: r, sum: a}]\nselect: [x]",
                "select `x` is neither",
            ),
            (
                "aggregates: [{name: r, sum: a / b}]\nselect: [r]",
                "not a column name",
            ),
            (
                "aggregates: [{name: r, sum: a}]\nselect: [r]\norder_by: [r sideways]",
                "neither asc nor desc",
            ),
            (
                "aggregates: [{name: r, sum: a}]\nselect: [r]\nwhere: {a: {}}",
                "is empty",
            ),
            (
                "aggregates: [{name: r, sum: a}]\nselect: [r]\nwhere: {a: {like: x}}",
                "unknown field `like`",
            ),
            (
                "aggregates: [{name: r, sum: a}]\nselect: [r]\nfoo: 1",
                "unknown field `foo`",
            ),
            (
                "aggregates: [{name: r, sum: a, min: a}]\nselect: [r]",
                "exactly one of sum, count, min, max, avg (found 2)",
            ),
            (
                "aggregates: [{name: r}]\nselect: [r]",
                "exactly one of sum, count, min, max, avg (found 0)",
            ),
            (
                "aggregates: [{name: r, sum: \"*\"}]\nselect: [r]",
                "of count only",
            ),
            (
                "aggregates: [{name: r, median: a}]\nselect: [r]",
                "unknown field `median`",
            ),
        ];
        for (text, want) in bad {
            let e = parse_queries(text, "t.yaml").unwrap_err().to_string();
            assert!(e.contains(want), "{text}: {e}");
            assert!(e.starts_with("t.yaml"), "{e}");
        }
    }
}
