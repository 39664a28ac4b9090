//! One text field as a value of its declared type: integers in their type's range,
//! DECIMAL(p,s) as the exact integer value·10^s, DATE as the integer yyyymmdd, strings
//! within their declared length. A value that does not fit is a message saying why.

use crate::ddl::ColType;

/// Parses `f` as an integer of `ty` (every type but the strings).
pub fn parse_int(f: &str, ty: ColType) -> Result<i64, String> {
    match ty {
        ColType::SmallInt | ColType::Integer | ColType::BigInt => {
            let (lo, hi) = int_bounds(ty);
            ranged(f, lo, hi, &ty.to_string())
        }
        ColType::Decimal { precision, scale } => parse_decimal(f, precision, scale),
        ColType::Date => parse_date(f),
        ColType::Str { .. } => Err("a string column".into()),
    }
}

/// The range of an integer type (BIGINT's for the other int-stored types).
pub fn int_bounds(ty: ColType) -> (i64, i64) {
    match ty {
        ColType::SmallInt => (i16::MIN as i64, i16::MAX as i64),
        ColType::Integer => (i32::MIN as i64, i32::MAX as i64),
        _ => (i64::MIN, i64::MAX),
    }
}

fn ranged(f: &str, lo: i64, hi: i64, what: &str) -> Result<i64, String> {
    let t = f.trim();
    match t.parse::<i64>() {
        Ok(v) if (lo..=hi).contains(&v) => Ok(v),
        _ if t.parse::<i128>().is_ok() => Err(format!(
            "`{}` is outside the {what} range {lo}..={hi}",
            excerpt(t)
        )),
        _ => Err(format!("`{}` is not an integer ({what})", excerpt(t))),
    }
}

/// `[-+]digits[.digits]` with at most `precision` digits of which at most `scale` after
/// the point, as the integer value·10^scale. More decimals than the scale are refused
/// (no silent rounding).
pub fn parse_decimal(f: &str, precision: u32, scale: u32) -> Result<i64, String> {
    let t = f.trim();
    let ty = format!("DECIMAL({precision},{scale})");
    let bad = || format!("`{}` is not a decimal number ({ty})", excerpt(t));
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    if (int.is_empty() && frac.is_empty())
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(bad());
    }
    let frac_sig = frac.trim_end_matches('0');
    if frac_sig.len() > scale as usize {
        return Err(format!(
            "`{}` has {} decimals, more than the scale of {ty}",
            excerpt(t),
            frac_sig.len()
        ));
    }
    let int_sig = int.trim_start_matches('0');
    if int_sig.len() + scale as usize > precision as usize {
        return Err(format!(
            "`{}` has {} digits before the point, more than {ty} holds ({})",
            excerpt(t),
            int_sig.len(),
            precision - scale
        ));
    }
    let mut v: i64 = 0;
    let digits = int_sig
        .bytes()
        .chain(frac_sig.bytes())
        .chain(std::iter::repeat_n(b'0', scale as usize - frac_sig.len()));
    for d in digits {
        // At most 18 digits: no overflow.
        v = v * 10 + (d - b'0') as i64;
    }
    Ok(if neg { -v } else { v })
}

/// `YYYY-MM-DD` (a real calendar day, years 1..=9999) as the integer yyyymmdd.
pub fn parse_date(f: &str) -> Result<i64, String> {
    let t = f.trim();
    let bad = || format!("`{}` is not a date (YYYY-MM-DD)", excerpt(t));
    let b = t.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return Err(bad());
    }
    let num = |s: &str| {
        s.parse::<u32>()
            .ok()
            .filter(|_| s.bytes().all(|c| c.is_ascii_digit()))
    };
    let (Some(y), Some(m), Some(d)) = (num(&t[..4]), num(&t[5..7]), num(&t[8..])) else {
        return Err(bad());
    };
    if y == 0 || !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
        return Err(format!("`{}` is not a day of the calendar", excerpt(t)));
    }
    Ok((y * 10_000 + m * 100 + d) as i64)
}

fn days_in_month(y: u32, m: u32) -> u32 {
    match m {
        4 | 6 | 9 | 11 => 30,
        2 if (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400) => 29,
        2 => 28,
        _ => 31,
    }
}

/// Checks a string against its declared length (in characters).
pub fn check_str(f: &str, ty: ColType) -> Result<(), String> {
    if let ColType::Str { max_chars: Some(n) } = ty {
        let len = f.chars().count() as u64;
        if len > n {
            return Err(format!(
                "`{}` has {len} characters, more than {ty} holds",
                excerpt(f)
            ));
        }
    }
    Ok(())
}

/// `m` on one line, its control characters escaped (a message that echoes input, or
/// another crate's text, stays one line).
pub fn one_line(m: &str) -> String {
    m.chars()
        .flat_map(|c| {
            let esc: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            esc
        })
        .collect()
}

/// At most 40 characters of `s` for a message, control characters escaped (a quoted
/// field may hold a line break; a message stays one line).
pub fn excerpt(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == 40 {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_exact_scaled_integers() {
        assert_eq!(parse_decimal("12.5", 9, 2), Ok(1250));
        assert_eq!(parse_decimal("-0.05", 9, 2), Ok(-5));
        assert_eq!(parse_decimal("7", 9, 2), Ok(700));
        assert_eq!(parse_decimal(".5", 3, 1), Ok(5));
        assert_eq!(parse_decimal("1.2300", 9, 2), Ok(123));
        assert_eq!(parse_decimal("9999999.99", 9, 2), Ok(999_999_999));
        assert_eq!(
            parse_decimal("999999999999999999", 18, 0),
            Ok(999_999_999_999_999_999)
        );
        for bad in ["1.234", "12345678.9", "1,5", "", "-", "1.2.3", "abc", "1e3"] {
            assert!(parse_decimal(bad, 9, 2).is_err(), "{bad}");
        }
    }

    #[test]
    fn dates_are_calendar_days() {
        assert_eq!(parse_date("2000-02-29"), Ok(20000229));
        assert_eq!(parse_date("1999-12-31"), Ok(19991231));
        for bad in [
            "1900-02-29",
            "2000-13-01",
            "2000-1-01",
            "20000101",
            "2000-04-31",
        ] {
            assert!(parse_date(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn integers_stay_in_their_range() {
        assert_eq!(parse_int("-32768", ColType::SmallInt), Ok(-32768));
        assert!(parse_int("32768", ColType::SmallInt).is_err());
        assert!(parse_int("2147483648", ColType::Integer).is_err());
        assert!(parse_int("99999999999999999999", ColType::BigInt)
            .unwrap_err()
            .contains("outside"));
        assert!(parse_int("1.0", ColType::Integer).is_err());
        assert!(check_str("abcd", ColType::Str { max_chars: Some(3) }).is_err());
        assert!(check_str("äbc", ColType::Str { max_chars: Some(3) }).is_ok());
    }
}
