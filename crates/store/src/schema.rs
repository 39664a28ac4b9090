//! Table schemas and values: column names and types (`Int` = i64, `Str` = UTF-8 string).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The type of a column's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ColumnType {
    /// 64-bit signed integers.
    Int,
    /// UTF-8 strings.
    Str,
}

impl fmt::Display for ColumnType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ColumnType::Int => "int",
            ColumnType::Str => "str",
        })
    }
}

/// One column of a schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColumnDef {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: ColumnType,
}

/// The columns of a table, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schema {
    pub columns: Vec<ColumnDef>,
}

impl Schema {
    /// A schema from `(name, type)` pairs; names must be unique and non-empty.
    pub fn new<S: Into<String>>(cols: impl IntoIterator<Item = (S, ColumnType)>) -> Result<Self> {
        let columns: Vec<ColumnDef> = cols
            .into_iter()
            .map(|(name, ty)| ColumnDef {
                name: name.into(),
                ty,
            })
            .collect();
        for (i, c) in columns.iter().enumerate() {
            if c.name.is_empty() {
                return Err(Error::Schema(format!("column {i} has an empty name")));
            }
            if columns[..i].iter().any(|o| o.name == c.name) {
                return Err(Error::Schema(format!(
                    "column name `{}` appears twice",
                    c.name
                )));
            }
        }
        Ok(Schema { columns })
    }

    pub fn len(&self) -> usize {
        self.columns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }

    /// The position of the column called `name`.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }
}

/// A value, borrowed: what rows are built from and what lookups return.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Value<'a> {
    Int(i64),
    Str(&'a str),
}

impl Value<'_> {
    pub fn ty(&self) -> ColumnType {
        match self {
            Value::Int(_) => ColumnType::Int,
            Value::Str(_) => ColumnType::Str,
        }
    }

    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(v) => Some(*v),
            Value::Str(_) => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            Value::Int(_) => None,
        }
    }
}

impl fmt::Display for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Str(s) => f.write_str(s),
        }
    }
}

/// What an int column's values mean when it is not a plain integer: the store keeps them
/// as i64 (sorted dictionary or frame like any int column); `DATABASE` lists the column
/// with its logical type ([`crate::DatabaseManifest::types`]) so that literals, sums and
/// answers are read at the right scale.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum LogicalType {
    /// `DECIMAL(precision, scale)`: the value times 10^scale, exact (precision ≤ 18).
    Decimal { precision: u32, scale: u32 },
    /// `DATE`: the day as the integer yyyymmdd (2000-01-31 is 20000131), so that the
    /// calendar order is the integer order and SSB's date keys are the same shape.
    Date,
}

impl LogicalType {
    /// The largest precision a DECIMAL may have (its scaled values fit an i64).
    pub const MAX_PRECISION: u32 = 18;
}

impl fmt::Display for LogicalType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LogicalType::Decimal { precision, scale } => write!(f, "DECIMAL({precision},{scale})"),
            LogicalType::Date => f.write_str("DATE"),
        }
    }
}

/// A column of a database table with a [`LogicalType`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypedColumn {
    pub table: String,
    pub column: String,
    #[serde(flatten)]
    pub ty: LogicalType,
}
