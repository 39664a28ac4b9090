//! Star-join queries as data: fact-table predicates, joined dimensions with their
//! predicates and carried (group-by) attributes, aggregates (SUM, COUNT, MIN, MAX, AVG of
//! fact-column expressions), the select list, order by and limit. Read from YAML or JSON; checked for
//! shape here and against a database's schemas when planned.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};

use crate::error::{Error, Result};

/// A literal in a predicate: an integer or a string; from SQL also a decimal number
/// (`1.25`, as written) and a date (`DATE '2000-01-31'`), which — like a string on a
/// DECIMAL or DATE column — are read at the column's type when the query is run on a
/// database (`crate::typed`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Literal {
    Int(i64),
    Str(String),
    Dec(String),
    Date(String),
}

impl<'de> Deserialize<'de> for Literal {
    /// An integer (within i64) or a string; anything else is named in the error (an
    /// untagged derive would only say "did not match any variant").
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Literal;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a literal: an integer or a string")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<Literal, E> {
                Ok(Literal::Int(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<Literal, E> {
                i64::try_from(v).map(Literal::Int).map_err(|_| {
                    E::custom(format!("literal {v} is beyond the 64-bit integer range"))
                })
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> std::result::Result<Literal, E> {
                Err(E::custom(format!(
                    "literal {v}: only integers and strings are supported (columns are integers or strings)"
                )))
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> std::result::Result<Literal, E> {
                Err(E::custom(format!(
                    "literal {v}: a boolean; write an integer or a quoted string"
                )))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<Literal, E> {
                Ok(Literal::Str(v.to_string()))
            }
            fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<Literal, E> {
                Err(E::custom("an empty literal; write an integer or a string"))
            }
        }
        d.deserialize_any(V)
    }
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Int(v) => write!(f, "{v}"),
            Literal::Str(s) => write!(f, "'{s}'"),
            Literal::Dec(s) => f.write_str(s),
            Literal::Date(s) => write!(f, "DATE '{s}'"),
        }
    }
}

/// A predicate on one column; every bound given must hold (a conjunction), so
/// `{ge: 1992, le: 1997}` is a range, `{in: [a, b]}` a set and `{is_null: true}` the
/// NULLs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Predicate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eq: Option<Literal>,
    #[serde(default, rename = "in", skip_serializing_if = "Option::is_none")]
    pub one_of: Option<Vec<Literal>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub between: Option<(Literal, Literal)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lt: Option<Literal>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub le: Option<Literal>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gt: Option<Literal>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ge: Option<Literal>,
    /// Every value but this one (SQL `<>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ne: Option<Literal>,
    /// None of these values (SQL `NOT IN`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_in: Option<Vec<Literal>>,
    /// Outside this closed range (SQL `NOT BETWEEN`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_between: Option<(Literal, Literal)>,
    /// `true`: the value is NULL (SQL `IS NULL`); `false`: it is not (`IS NOT NULL`).
    /// Every other bound holds for no NULL (a comparison with NULL is not true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_null: Option<bool>,
}

impl Predicate {
    /// Every literal of the predicate.
    pub fn literals(&self) -> Vec<&Literal> {
        let mut v: Vec<&Literal> = Vec::new();
        v.extend(&self.eq);
        if let Some(l) = &self.one_of {
            v.extend(l);
        }
        if let Some((a, b)) = &self.between {
            v.push(a);
            v.push(b);
        }
        v.extend(&self.lt);
        v.extend(&self.le);
        v.extend(&self.gt);
        v.extend(&self.ge);
        v.extend(&self.ne);
        if let Some(l) = &self.not_in {
            v.extend(l);
        }
        if let Some((a, b)) = &self.not_between {
            v.push(a);
            v.push(b);
        }
        v
    }

    /// Every literal of the predicate, to rewrite.
    pub fn literals_mut(&mut self) -> Vec<&mut Literal> {
        let mut v: Vec<&mut Literal> = Vec::new();
        v.extend(&mut self.eq);
        if let Some(l) = &mut self.one_of {
            v.extend(l.iter_mut());
        }
        if let Some((a, b)) = &mut self.between {
            v.push(a);
            v.push(b);
        }
        v.extend(&mut self.lt);
        v.extend(&mut self.le);
        v.extend(&mut self.gt);
        v.extend(&mut self.ge);
        v.extend(&mut self.ne);
        if let Some(l) = &mut self.not_in {
            v.extend(l.iter_mut());
        }
        if let Some((a, b)) = &mut self.not_between {
            v.push(a);
            v.push(b);
        }
        v
    }

    fn is_empty(&self) -> bool {
        self.literals().is_empty()
            && self.one_of.is_none()
            && self.not_in.is_none()
            && self.is_null.is_none()
    }
}

/// One joined dimension.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Join {
    /// The dimension table.
    pub dim: String,
    /// `[fact foreign-key column, dimension key column]`.
    pub on: (String, String),
    /// Predicates on dimension columns.
    #[serde(default, rename = "where")]
    pub filters: BTreeMap<String, Predicate>,
    /// Conditions over several of its columns, each of which must hold as well (SQL `OR`
    /// across columns: `{any: [{where: {a: {eq: N}}}, {where: {b: {eq: N}}}]}`),
    /// evaluated on the dimension's rows when planned.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Cond>,
    /// Dimension columns the query groups by.
    #[serde(default)]
    pub carry: Vec<String>,
    /// Join index to use: `auto` (dense array when the keys are dense, else hash), `dense`,
    /// `hash` or `dash` (the Dash extendible hash table, in DRAM).
    #[serde(default)]
    pub index: IndexChoice,
}

/// A condition on one dimension's rows: predicates on its columns that all hold
/// (`where`), conditions that all hold (`all`), or conditions of which one holds (`any`).
/// In YAML a mapping of exactly one of those keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cond {
    Where(BTreeMap<String, Predicate>),
    All(Vec<Cond>),
    Any(Vec<Cond>),
}

/// The YAML / JSON shape of a [`Cond`].
#[derive(Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct CondDoc {
    #[serde(default, rename = "where", skip_serializing_if = "Option::is_none")]
    preds: Option<BTreeMap<String, Predicate>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    all: Option<Vec<Cond>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    any: Option<Vec<Cond>>,
}

impl Serialize for Cond {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut d = CondDoc::default();
        match self {
            Cond::Where(m) => d.preds = Some(m.clone()),
            Cond::All(v) => d.all = Some(v.clone()),
            Cond::Any(v) => d.any = Some(v.clone()),
        }
        d.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Cond {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let doc = CondDoc::deserialize(d)?;
        match (doc.preds, doc.all, doc.any) {
            (Some(m), None, None) => Ok(Cond::Where(m)),
            (None, Some(v), None) => Ok(Cond::All(v)),
            (None, None, Some(v)) => Ok(Cond::Any(v)),
            _ => Err(serde::de::Error::custom(
                "a condition is one of `where: {column: predicate}`, `all: [conditions]` or `any: [conditions]`",
            )),
        }
    }
}

impl Cond {
    /// Every `(column, predicate)` of the condition, depth first.
    pub fn predicates(&self) -> Vec<(&String, &Predicate)> {
        match self {
            Cond::Where(m) => m.iter().collect(),
            Cond::All(v) | Cond::Any(v) => v.iter().flat_map(Cond::predicates).collect(),
        }
    }

    /// Every `(column, predicate)` of the condition, to rewrite.
    pub fn predicates_mut(&mut self) -> Vec<(&String, &mut Predicate)> {
        match self {
            Cond::Where(m) => m.iter_mut().collect(),
            Cond::All(v) | Cond::Any(v) => v.iter_mut().flat_map(Cond::predicates_mut).collect(),
        }
    }

    /// Whether some part of it is empty (no predicate, or no condition to choose from).
    fn has_empty_part(&self) -> bool {
        match self {
            Cond::Where(m) => m.is_empty() || m.values().any(Predicate::is_empty),
            Cond::All(v) | Cond::Any(v) => v.is_empty() || v.iter().any(Cond::has_empty_part),
        }
    }

    /// Its lists' lengths (a `where`'s columns, an `all`'s or `any`'s parts), nested.
    fn list_lengths(&self) -> Vec<usize> {
        match self {
            Cond::Where(m) => vec![m.len()],
            Cond::All(v) | Cond::Any(v) => std::iter::once(v.len())
                .chain(v.iter().flat_map(Cond::list_lengths))
                .collect(),
        }
    }
}

/// Which join index a dimension uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IndexChoice {
    #[default]
    Auto,
    Dense,
    Hash,
    /// The Dash hash table (`pmolap_index::dash`) in DRAM.
    Dash,
}

impl std::str::FromStr for IndexChoice {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(IndexChoice::Auto),
            "dense" => Ok(IndexChoice::Dense),
            "hash" => Ok(IndexChoice::Hash),
            "dash" => Ok(IndexChoice::Dash),
            _ => Err(Error::Query(format!(
                "unknown join index `{s}`; use auto, dense, hash or dash"
            ))),
        }
    }
}

/// An arithmetic operator of an aggregate expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Op {
    Add,
    Sub,
    Mul,
}

/// A fact-column expression: a column, or two columns joined by `+`, `-` or `*`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Expr {
    Col(String),
    Bin(String, Op, String),
}

impl Expr {
    pub fn columns(&self) -> Vec<&str> {
        match self {
            Expr::Col(c) => vec![c],
            Expr::Bin(a, _, b) => vec![a, b],
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Col(c) => f.write_str(c),
            Expr::Bin(a, op, b) => {
                let o = match op {
                    Op::Add => '+',
                    Op::Sub => '-',
                    Op::Mul => '*',
                };
                write!(f, "{a} {o} {b}")
            }
        }
    }
}

impl std::str::FromStr for Expr {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let ident = |t: &str| -> Result<String> {
            let t = t.trim();
            if !t.is_empty() && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                Ok(t.to_string())
            } else {
                Err(Error::Query(format!(
                    "expression `{s}`: `{t}` is not a column name (use `col`, `a * b`, `a - b` or `a + b`)"
                )))
            }
        };
        match s.find(['*', '-', '+']) {
            None => Ok(Expr::Col(ident(s)?)),
            Some(i) => {
                let op = match &s[i..=i] {
                    "*" => Op::Mul,
                    "-" => Op::Sub,
                    _ => Op::Add,
                };
                Ok(Expr::Bin(ident(&s[..i])?, op, ident(&s[i + 1..])?))
            }
        }
    }
}

impl<'de> Deserialize<'de> for Expr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// An aggregate function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AggFn {
    /// Sum of integers, exact: a sum beyond the 64-bit range is an error.
    Sum,
    /// Rows (`COUNT(*)`), or rows whose argument is not NULL (`COUNT(col)`).
    Count,
    Min,
    Max,
    /// The mean, as a double (the exact integer sum divided by the row count).
    Avg,
}

impl AggFn {
    /// Its SQL / YAML name.
    pub fn name(self) -> &'static str {
        match self {
            AggFn::Sum => "sum",
            AggFn::Count => "count",
            AggFn::Min => "min",
            AggFn::Max => "max",
            AggFn::Avg => "avg",
        }
    }
}

/// `name = func(arg)`; `arg` is None only for `COUNT(*)`. In YAML one key names the
/// function and holds the argument: `{name: r, sum: a * b}`, `{name: n, count: "*"}`,
/// `{name: lo, min: a}`, `{name: m, avg: a - b}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Aggregate {
    pub name: String,
    pub func: AggFn,
    pub arg: Option<Expr>,
}

impl Aggregate {
    /// `sum(expr)`, named.
    pub fn sum(name: &str, e: Expr) -> Aggregate {
        Aggregate {
            name: name.into(),
            func: AggFn::Sum,
            arg: Some(e),
        }
    }

    /// `func(arg)` as text (`sum(a * b)`, `count(*)`).
    pub fn text(&self) -> String {
        match &self.arg {
            Some(e) => format!("{}({e})", self.func.name()),
            None => format!("{}(*)", self.func.name()),
        }
    }
}

/// The YAML / JSON shape of an aggregate: a name and exactly one function key.
#[derive(Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct AggregateDoc {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sum: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    count: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    min: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    avg: Option<String>,
}

impl Serialize for Aggregate {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let text = self.arg.as_ref().map_or("*".to_string(), Expr::to_string);
        let mut d = AggregateDoc {
            name: self.name.clone(),
            ..Default::default()
        };
        *match self.func {
            AggFn::Sum => &mut d.sum,
            AggFn::Count => &mut d.count,
            AggFn::Min => &mut d.min,
            AggFn::Max => &mut d.max,
            AggFn::Avg => &mut d.avg,
        } = Some(text);
        d.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Aggregate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error as _;
        let doc = AggregateDoc::deserialize(d)?;
        let given: Vec<(AggFn, String)> = [
            (AggFn::Sum, doc.sum),
            (AggFn::Count, doc.count),
            (AggFn::Min, doc.min),
            (AggFn::Max, doc.max),
            (AggFn::Avg, doc.avg),
        ]
        .into_iter()
        .filter_map(|(f, t)| t.map(|t| (f, t)))
        .collect();
        let [(func, text)] = given.as_slice() else {
            return Err(D::Error::custom(format!(
                "aggregate `{}`: give exactly one of sum, count, min, max, avg (found {})",
                doc.name,
                given.len()
            )));
        };
        let arg = if text.trim() == "*" {
            if *func != AggFn::Count {
                return Err(D::Error::custom(format!(
                    "aggregate `{}`: `*` is an argument of count only",
                    doc.name
                )));
            }
            None
        } else {
            Some(text.parse::<Expr>().map_err(D::Error::custom)?)
        };
        Ok(Aggregate {
            name: doc.name,
            func: *func,
            arg,
        })
    }
}

/// One ORDER BY key: a select-list name, ascending unless `desc`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OrderKey {
    pub name: String,
    pub desc: bool,
}

impl<'de> Deserialize<'de> for OrderKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let mut parts = s.split_whitespace();
        let name = parts.next().unwrap_or_default().to_string();
        let desc = match parts.next().map(str::to_ascii_lowercase).as_deref() {
            None | Some("asc") => false,
            Some("desc") => true,
            Some(x) => {
                return Err(serde::de::Error::custom(format!(
                    "order key `{s}`: `{x}` is neither asc nor desc"
                )))
            }
        };
        if name.is_empty() || parts.next().is_some() {
            return Err(serde::de::Error::custom(format!(
                "order key `{s}`: write `name` or `name desc`"
            )));
        }
        Ok(OrderKey { name, desc })
    }
}

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
