//! A query's aggregates and order: fact-column expressions ([`Expr`], [`Op`]), the
//! aggregate functions ([`AggFn`], [`Aggregate`]) and ORDER BY keys ([`OrderKey`]), with
//! their YAML / JSON shapes.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};

use crate::error::{Error, Result};

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
