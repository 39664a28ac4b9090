//! A query's conditions: literals, the predicate on one column ([`Predicate`]), a joined
//! dimension ([`Join`]) with its conditions over several columns ([`Cond`]) and its join
//! index choice, with their YAML / JSON shapes.

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

    pub(super) fn is_empty(&self) -> bool {
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
    pub(super) fn has_empty_part(&self) -> bool {
        match self {
            Cond::Where(m) => m.is_empty() || m.values().any(Predicate::is_empty),
            Cond::All(v) | Cond::Any(v) => v.is_empty() || v.iter().any(Cond::has_empty_part),
        }
    }

    /// Its lists' lengths (a `where`'s columns, an `all`'s or `any`'s parts), nested.
    pub(super) fn list_lengths(&self) -> Vec<usize> {
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
