//! Byte sizes written the way people write them: `64`, `4K`, `4KiB`, `64M`, `2G`, `1T`.

use serde::{Deserialize, Deserializer};

/// Parses a byte size; suffixes K/M/G/T (optionally followed by `B` or `iB`) are binary.
/// With a unit the number may have a decimal fraction (`23.6MiB`, `1.5G`: what the
/// reports print), rounded down to whole bytes; a bare number of bytes may not.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let int_end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (int, rest) = t.split_at(int_end);
    let (frac, suffix) = match rest.strip_prefix('.') {
        Some(r) => r.split_at(r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len())),
        None => ("", rest),
    };
    if int.is_empty() || (rest.starts_with('.') && frac.is_empty()) {
        return Err(format!("`{s}` is not a size (e.g. 64, 4K, 2G, 23.6MiB)"));
    }
    let shift = match suffix.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        "T" | "TB" | "TIB" => 40,
        other => {
            return Err(format!(
                "`{s}` has an unknown unit `{other}` (use K, M, G or T)"
            ))
        }
    };
    if shift == 0 && !frac.is_empty() {
        return Err(format!("`{s}` is not a whole number of bytes"));
    }
    let too_large = || format!("`{s}` is too large");
    // (int.frac) << shift, exactly: the digits as one integer over 10^len(frac).
    let frac = &frac[..frac.len().min(18)];
    let digits: u128 = format!("{int}{frac}").parse().map_err(|_| too_large())?;
    let bytes =
        digits.checked_mul(1 << shift).ok_or_else(too_large)? / 10u128.pow(frac.len() as u32);
    u64::try_from(bytes).map_err(|_| too_large())
}

/// Formats a byte size compactly with binary units: 64B, 4K, 64M, 2G (exact when possible).
pub fn format_size(n: u64) -> String {
    for (shift, unit) in [(40, "T"), (30, "G"), (20, "M"), (10, "K")] {
        if n >= 1 << shift && n.is_multiple_of(1 << shift) {
            return format!("{}{unit}", n >> shift);
        }
    }
    if n >= 1 << 30 {
        return format!("{:.1}G", n as f64 / (1u64 << 30) as f64);
    }
    if n >= 1 << 20 {
        return format!("{:.1}M", n as f64 / (1u64 << 20) as f64);
    }
    format!("{n}B")
}

/// A size in a config file: an integer or a string with a unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size(pub u64);

impl<'de> Deserialize<'de> for Size {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            N(u64),
            S(String),
        }
        match Raw::deserialize(d)? {
            Raw::N(n) => Ok(Size(n)),
            Raw::S(s) => parse_size(&s).map(Size).map_err(serde::de::Error::custom),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_formats() {
        for (s, n) in [
            ("64", 64),
            ("4K", 4096),
            ("4KiB", 4096),
            ("64m", 64 << 20),
            ("2G", 2 << 30),
            ("1TB", 1 << 40),
        ] {
            assert_eq!(parse_size(s).unwrap(), n, "{s}");
        }
        for (s, n) in [
            ("23.6MiB", 24_746_393),
            ("1.5G", 3 << 29),
            ("0.5K", 512),
            ("94.4 MiB", 98_985_574),
        ] {
            assert_eq!(parse_size(s).unwrap(), n, "{s}");
        }
        assert!(parse_size("1.5")
            .unwrap_err()
            .contains("whole number of bytes"));
        for bad in ["", ".5M", "5.M", "M", "1.2.3M"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
        assert!(parse_size("4X").unwrap_err().contains("unknown unit"));
        assert!(parse_size("9999999999999999999999999999999999999T")
            .unwrap_err()
            .contains("too large"));
        assert!(parse_size("99999999999999T")
            .unwrap_err()
            .contains("too large"));
        assert_eq!(format_size(4096), "4K");
        assert_eq!(format_size(64), "64B");
        assert_eq!(format_size(3 << 30), "3G");
    }
}
