//! DECIMAL and DATE columns (`pmolap_store::LogicalType`, listed in `DATABASE`): a
//! query's literals on them read at the column's type before planning (`1.5` on a
//! DECIMAL(9,2) column is the stored integer 150, `DATE '2000-01-31'` on a DATE column
//! 20000131), and the answer's values of such columns and of aggregates over them
//! written at their scale (`150` → `1.50`; `a * b` of two decimals at the sum of their
//! scales) or as dates. A database without such columns (SSB) is not touched.

use pmolap_store::LogicalType;

use crate::answer::{Double, OutValue};
use crate::db::Database;
use crate::error::{Error, Result};
use crate::query::{AggFn, Expr, Literal, Op, Query};

/// How a select-list item's values are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shown {
    /// As computed.
    Plain,
    /// An integer at this decimal scale (an AVG: a double divided by 10^scale).
    Scaled(u32),
    /// The integer yyyymmdd as `YYYY-MM-DD`.
    Date,
}

/// `q` with its literals read at their columns' types, and how each select item is
/// written; None when the database has no DECIMAL or DATE column (nothing to do).
pub(crate) fn bind(db: &Database, q: &Query) -> Result<Option<(Query, Vec<Shown>)>> {
    if !db.has_logical_types() {
        return Ok(None);
    }
    let mut out = q.clone();
    for (col, p) in out.filters.iter_mut() {
        let ty = db.logical_type(&q.fact, col);
        for l in p.literals_mut() {
            read_literal(l, ty, &q.fact, col)?;
        }
    }
    for j in out.joins.iter_mut() {
        for (col, p) in j.filters.iter_mut() {
            let ty = db.logical_type(&j.dim, col);
            for l in p.literals_mut() {
                read_literal(l, ty, &j.dim, col)?;
            }
        }
        for c in j.conditions.iter_mut() {
            for (col, p) in c.predicates_mut() {
                let ty = db.logical_type(&j.dim, col);
                for l in p.literals_mut() {
                    read_literal(l, ty, &j.dim, col)?;
                }
            }
        }
    }
    // Every aggregate's type is checked, also one only ordered by (not selected).
    for a in &q.aggregates {
        if let (Some(e), f) = (&a.arg, a.func) {
            if f != AggFn::Count {
                aggregate_shown(db, &q.fact, e, f, &a.text())?;
            }
        }
    }
    let mut shown = Vec::with_capacity(q.select.len());
    for name in &q.select {
        let s = if let Some(a) = q.aggregates.iter().find(|a| &a.name == name) {
            match (&a.arg, a.func) {
                (_, AggFn::Count) | (None, _) => Shown::Plain,
                (Some(e), f) => aggregate_shown(db, &q.fact, e, f, &a.text())?,
            }
        } else {
            let table = if q.carry.contains(name) {
                Some(q.fact.as_str())
            } else {
                q.joins
                    .iter()
                    .find(|j| j.carry.contains(name))
                    .map(|j| j.dim.as_str())
            };
            match table.and_then(|t| db.logical_type(t, name)) {
                Some(LogicalType::Decimal { scale, .. }) => Shown::Scaled(scale),
                Some(LogicalType::Date) => Shown::Date,
                None => Shown::Plain,
            }
        };
        shown.push(s);
    }
    Ok(Some((out, shown)))
}

/// How `f(e)` over fact columns is written: the scale of `e` (`a * b`: the sum of the
/// scales; `a ± b`: the one scale both have), or a date for MIN / MAX of a date.
fn aggregate_shown(db: &Database, fact: &str, e: &Expr, f: AggFn, text: &str) -> Result<Shown> {
    let of = |c: &str| db.logical_type(fact, c);
    let scale = |t: Option<LogicalType>| match t {
        Some(LogicalType::Decimal { scale, .. }) => Some(scale),
        _ => None,
    };
    let date = |c: &str| matches!(of(c), Some(LogicalType::Date));
    let refuse = |why: &str| Err(Error::Query(format!("SQL: {text}: {why}")));
    if e.columns().iter().any(|c| date(c)) {
        return match (e, f) {
            (Expr::Col(_), AggFn::Min | AggFn::Max) => Ok(Shown::Date),
            _ => refuse("only MIN, MAX and COUNT take a DATE column (no date arithmetic yet)"),
        };
    }
    let s = match e {
        Expr::Col(c) => scale(of(c)).unwrap_or(0),
        Expr::Bin(a, Op::Mul, b) => scale(of(a)).unwrap_or(0) + scale(of(b)).unwrap_or(0),
        Expr::Bin(a, _, b) => {
            let (sa, sb) = (scale(of(a)).unwrap_or(0), scale(of(b)).unwrap_or(0));
            if sa != sb {
                return refuse(&format!(
                    "adds or subtracts values of scales {sa} and {sb} (not supported yet; both sides need one scale)"
                ));
            }
            sa
        }
    };
    Ok(if s == 0 {
        Shown::Plain
    } else {
        Shown::Scaled(s)
    })
}

/// Reads literal `l` on `table.col` of logical type `ty`: a number on a DECIMAL column as
/// its scaled integer (exactly: more decimals than the scale are refused), a date on a
/// DATE column as yyyymmdd. A decimal or date literal on any other column stays (and the
/// plan names the mismatch).
fn read_literal(l: &mut Literal, ty: Option<LogicalType>, table: &str, col: &str) -> Result<()> {
    let bad = |why: String| Error::Query(format!("SQL: {table}.{col} {l}: {why}"));
    let v = match (ty, &*l) {
        (Some(LogicalType::Decimal { scale, .. }), Literal::Int(v)) => v
            .checked_mul(10i64.pow(scale))
            .ok_or_else(|| bad(format!("beyond the range of DECIMAL scale {scale}")))?,
        (Some(LogicalType::Decimal { scale, .. }), Literal::Dec(t) | Literal::Str(t)) => {
            scaled(t, scale).map_err(bad)?
        }
        (Some(LogicalType::Date), Literal::Date(t) | Literal::Str(t)) => date(t).map_err(bad)?,
        (Some(LogicalType::Date), _) => {
            return Err(bad(
                "a DATE column is compared with DATE 'YYYY-MM-DD'".into()
            ))
        }
        _ => return Ok(()),
    };
    *l = Literal::Int(v);
    Ok(())
}

/// `[-]digits[.digits]` as the integer value·10^scale.
fn scaled(t: &str, scale: u32) -> std::result::Result<i64, String> {
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    let ok = !(int.is_empty() && frac.is_empty())
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b.is_ascii_digit());
    if !ok {
        return Err("not a decimal number".into());
    }
    let frac = frac.trim_end_matches('0');
    if frac.len() > scale as usize {
        return Err(format!(
            "more decimals than the column's scale of {scale} (no rounding)"
        ));
    }
    let mut v: i64 = 0;
    let zeros = std::iter::repeat_n(b'0', scale as usize - frac.len());
    for d in int.bytes().chain(frac.bytes()).chain(zeros) {
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add((d - b'0') as i64))
            .ok_or_else(|| "beyond the 64-bit range at the column's scale".to_string())?;
    }
    Ok(if neg { -v } else { v })
}

/// `YYYY-MM-DD` as yyyymmdd (the month and day checked for range only; a day that is not
/// in the calendar matches nothing).
fn date(t: &str) -> std::result::Result<i64, String> {
    let b = t.as_bytes();
    let digits = |r: std::ops::Range<usize>| {
        b[r].iter().try_fold(0i64, |a, &c| {
            c.is_ascii_digit().then(|| a * 10 + (c - b'0') as i64)
        })
    };
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return Err("not a date (YYYY-MM-DD)".into());
    }
    match (digits(0..4), digits(5..7), digits(8..10)) {
        (Some(y), Some(m), Some(d)) if (1..=12).contains(&m) && (1..=31).contains(&d) => {
            Ok(y * 10_000 + m * 100 + d)
        }
        _ => Err("not a date (YYYY-MM-DD)".into()),
    }
}

/// Writes `rows`' values as `shown` says.
pub(crate) fn show(rows: &mut [Vec<OutValue>], shown: &[Shown]) {
    for row in rows {
        for (v, s) in row.iter_mut().zip(shown) {
            *v = match (s, &*v) {
                (Shown::Scaled(sc), OutValue::Int(x)) => OutValue::Str(decimal(*x, *sc)),
                (Shown::Scaled(sc), OutValue::Float(x)) => {
                    OutValue::Float(Double(x.0 / 10f64.powi(*sc as i32)))
                }
                (Shown::Date, OutValue::Int(x)) => OutValue::Str(format!(
                    "{:04}-{:02}-{:02}",
                    x / 10_000,
                    x / 100 % 100,
                    x % 100
                )),
                _ => continue,
            };
        }
    }
}

/// The positions of `shown`'s exact decimal columns in `rows` (after [`show`]): those
/// written at a scale whose values are text (an AVG at a scale is a double).
pub(crate) fn decimal_columns(rows: &[Vec<OutValue>], shown: &[Shown]) -> Vec<usize> {
    (0..shown.len())
        .filter(|&i| {
            matches!(shown[i], Shown::Scaled(_))
                && rows
                    .iter()
                    .all(|r| matches!(r.get(i), Some(OutValue::Str(_) | OutValue::Null)))
        })
        .collect()
}

/// The integer `x`·10^-scale written exactly with `scale` decimals.
pub(crate) fn decimal(x: i64, scale: u32) -> String {
    if scale == 0 {
        return x.to_string();
    }
    let p = 10u128.pow(scale);
    let a = x.unsigned_abs() as u128;
    let sign = if x < 0 { "-" } else { "" };
    format!("{sign}{}.{:0width$}", a / p, a % p, width = scale as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_read_and_write_exactly() {
        assert_eq!(scaled("1.5", 2), Ok(150));
        assert_eq!(scaled("-0.05", 2), Ok(-5));
        assert_eq!(scaled("3", 2), Ok(300));
        assert!(scaled("1.005", 2).is_err());
        assert!(scaled("99999999999999999999", 2).is_err());
        assert_eq!(decimal(150, 2), "1.50");
        assert_eq!(decimal(-5, 2), "-0.05");
        assert_eq!(decimal(i64::MIN, 3), "-9223372036854775.808");
        assert_eq!(decimal(7, 0), "7");
        assert_eq!(date("2000-01-31"), Ok(20000131));
        assert!(date("2000-1-31").is_err());
    }
}
