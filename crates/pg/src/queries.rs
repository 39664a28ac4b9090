//! The 22 TPC-H queries (default substitution parameters), shipped as
//! `workloads/tpch/queries/qN.sql` and compiled in.

/// Query texts, `QUERIES[n - 1]` being Qn.
pub const QUERIES: [&str; 22] = [
    include_str!("../../../workloads/tpch/queries/q1.sql"),
    include_str!("../../../workloads/tpch/queries/q2.sql"),
    include_str!("../../../workloads/tpch/queries/q3.sql"),
    include_str!("../../../workloads/tpch/queries/q4.sql"),
    include_str!("../../../workloads/tpch/queries/q5.sql"),
    include_str!("../../../workloads/tpch/queries/q6.sql"),
    include_str!("../../../workloads/tpch/queries/q7.sql"),
    include_str!("../../../workloads/tpch/queries/q8.sql"),
    include_str!("../../../workloads/tpch/queries/q9.sql"),
    include_str!("../../../workloads/tpch/queries/q10.sql"),
    include_str!("../../../workloads/tpch/queries/q11.sql"),
    include_str!("../../../workloads/tpch/queries/q12.sql"),
    include_str!("../../../workloads/tpch/queries/q13.sql"),
    include_str!("../../../workloads/tpch/queries/q14.sql"),
    include_str!("../../../workloads/tpch/queries/q15.sql"),
    include_str!("../../../workloads/tpch/queries/q16.sql"),
    include_str!("../../../workloads/tpch/queries/q17.sql"),
    include_str!("../../../workloads/tpch/queries/q18.sql"),
    include_str!("../../../workloads/tpch/queries/q19.sql"),
    include_str!("../../../workloads/tpch/queries/q20.sql"),
    include_str!("../../../workloads/tpch/queries/q21.sql"),
    include_str!("../../../workloads/tpch/queries/q22.sql"),
];

/// Parses a query list like `1,6,14`, or `all`. Refuses an empty list (an empty
/// `--queries ""` is a mistake, not a request for every query), numbers outside 1..=22
/// and repeats.
pub fn parse_list(s: &str) -> Result<Vec<u32>, String> {
    if s.trim() == "all" {
        return Ok((1..=22).collect());
    }
    if s.trim().is_empty() {
        return Err(
            "--queries is empty: name the queries (such as 1,6,14) or pass `all`".to_string(),
        );
    }
    let mut out = Vec::new();
    for part in s.split(',') {
        let p = part.trim().trim_start_matches(['q', 'Q']);
        let n: u32 = p
            .parse()
            .map_err(|_| format!("query {part:?} is not a TPC-H query number (1 to 22)"))?;
        if !(1..=22).contains(&n) {
            return Err(format!("query {n} is not a TPC-H query number (1 to 22)"));
        }
        if out.contains(&n) {
            return Err(format!("query {n} is listed twice"));
        }
        out.push(n);
    }
    Ok(out)
}

/// The text of Qn.
pub fn text(n: u32) -> &'static str {
    QUERIES[(n.clamp(1, 22) - 1) as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parse_and_refuse() {
        assert_eq!(parse_list("all").unwrap().len(), 22);
        assert!(parse_list("").unwrap_err().contains("empty"));
        assert!(parse_list(" ").unwrap_err().contains("empty"));
        assert_eq!(parse_list("1, 6,q14").unwrap(), vec![1, 6, 14]);
        assert!(parse_list("0").unwrap_err().contains("1 to 22"));
        assert!(parse_list("23").is_err());
        assert!(parse_list("1,1").unwrap_err().contains("twice"));
        assert!(parse_list("x").is_err());
    }

    #[test]
    fn every_text_is_its_query() {
        for n in 1..=22u32 {
            let t = text(n);
            assert!(t.starts_with(&format!("-- TPC-H Q{n},")), "Q{n}");
            assert!(t.to_lowercase().contains("select"));
            assert!(!t.contains(';'), "Q{n}: one statement, no terminator");
        }
    }
}
