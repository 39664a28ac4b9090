//! The syntax helpers of the translation: a WHERE clause's AND / OR parts, literals
//! (numbers, strings, decimals, `DATE '…'`), and the refusal of a comparison with NULL.

use sqlparser::ast::{self, BinaryOperator, UnaryOperator, Value};

use super::{at, unsupported};
use crate::error::{Error, Result};
use crate::query::Literal;

/// The `AND`-separated parts of `e`.
pub(super) fn conjuncts(e: &ast::Expr) -> Vec<&ast::Expr> {
    match e {
        ast::Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            let mut v = conjuncts(left);
            v.extend(conjuncts(right));
            v
        }
        ast::Expr::Nested(inner)
            if matches!(
                inner.as_ref(),
                ast::Expr::BinaryOp {
                    op: BinaryOperator::And,
                    ..
                }
            ) =>
        {
            conjuncts(inner)
        }
        _ => vec![e],
    }
}

/// The `OR`-separated parts of `e`.
pub(super) fn disjuncts(e: &ast::Expr) -> Vec<&ast::Expr> {
    match e {
        ast::Expr::BinaryOp {
            left,
            op: BinaryOperator::Or,
            right,
        } => {
            let mut v = disjuncts(left);
            v.extend(disjuncts(right));
            v
        }
        ast::Expr::Nested(inner) => disjuncts(inner),
        _ => vec![e],
    }
}

/// An integer or string literal.
pub(super) fn literal(e: &ast::Expr) -> Result<Literal> {
    match e {
        ast::Expr::Value(v) => match &v.value {
            Value::Number(n, _) => match n.parse::<i64>() {
                Ok(v) => Ok(Literal::Int(v)),
                // A decimal number, read exactly at its column's scale when run.
                Err(_) if is_decimal(n) => Ok(Literal::Dec(n.clone())),
                Err(_) => Err(unsupported(
                    "the number (64-bit integers and decimals `1.25`)",
                    e,
                )),
            },
            Value::SingleQuotedString(s) => Ok(Literal::Str(s.clone())),
            Value::Null => Err(Error::Query(format!(
                "SQL: a comparison with NULL{} is never true: write IS NULL or IS NOT NULL",
                at(e)
            ))),
            _ => Err(unsupported("the literal", e)),
        },
        ast::Expr::TypedString(ts) if matches!(ts.data_type, ast::DataType::Date) => {
            match &ts.value.value {
                Value::SingleQuotedString(s) => Ok(Literal::Date(s.clone())),
                _ => Err(unsupported("the date literal", e)),
            }
        }
        ast::Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => match literal(expr)? {
            Literal::Int(v) => Ok(Literal::Int(-v)),
            Literal::Dec(d) if !d.starts_with('-') => Ok(Literal::Dec(format!("-{d}"))),
            _ => Err(unsupported("the literal", e)),
        },
        ast::Expr::Nested(inner) => literal(inner),
        _ => Err(unsupported("the operand (a literal is needed)", e)),
    }
}

/// The literal `NULL` (parenthesised or not).
pub(super) fn is_null(e: &ast::Expr) -> bool {
    match e {
        ast::Expr::Value(v) => matches!(v.value, Value::Null),
        ast::Expr::Nested(inner) => is_null(inner),
        _ => false,
    }
}

/// The refusal of `col = NULL`, `col <> NULL` and every other comparison with the
/// literal NULL: never true in SQL (NULL, not a boolean), so one almost always means IS
/// [NOT] NULL; the error says which.
pub(super) fn null_comparison(e: &ast::Expr, op: &BinaryOperator) -> Error {
    let write = match op {
        BinaryOperator::Eq => "write IS NULL",
        BinaryOperator::NotEq => "write IS NOT NULL",
        _ => "write IS NULL or IS NOT NULL",
    };
    Error::Query(format!(
        "SQL: `{e}`{}: a comparison with NULL is never true; {write}",
        at(e)
    ))
}

/// `digits.digits` (either side may be empty, not both): a decimal literal.
pub(super) fn is_decimal(n: &str) -> bool {
    let (a, b) = n.split_once('.').unwrap_or((n, "x"));
    !(a.is_empty() && b.is_empty())
        && a.bytes().all(|c| c.is_ascii_digit())
        && b.bytes().all(|c| c.is_ascii_digit())
}
