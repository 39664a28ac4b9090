//! The row order of a dimension, derived from its declared key and its data: rows stored
//! so that a predicate on one level of a hierarchy found in the data selects one run of
//! rows (the fact side then tests a range of row references, not a bitmap).
//!
//! The rule (docs/load.md):
//! - a dimension keyed by a DATE is stored in key order (the calendar: a year, a month
//!   or a range of days is one run of keys already);
//! - a dimension whose key order already keeps a hierarchy of two levels in runs (two
//!   attribute columns, the finer determining the coarser, each value of each one run of
//!   rows in key order: keys assigned along a hierarchy, as SSB's yyyymmdd date keys) is
//!   stored in key order;
//! - any other dimension is stored by the longest chain of its attribute columns (not the
//!   key; not a column with one value, nor one with a value per row) in which each column
//!   functionally determines the one before it in the data — city → nation → region is
//!   stored region, nation, city — coarsest first, then by the key. Between two columns
//!   with as many distinct values that determine each other, the one declared first is
//!   the coarser; among chains of equal length, the one of the earliest declared columns
//!   wins. No chain of two: the attribute with the fewest values (the first declared on a
//!   tie), then the key.

use std::collections::HashMap;

use pmolap_store::TableBuilder;

use crate::ddl::{ColType, TableSpec};

/// The columns to sort dimension `t`'s rows by (its primary key last), from the data in
/// `b`.
pub fn dimension_order(t: &TableSpec, b: &TableBuilder) -> Vec<String> {
    let key = t.primary_key[0].clone();
    if t.column(&key).is_some_and(|c| c.ty == ColType::Date) {
        return vec![key];
    }
    let rows = b.rows();
    // (declared position, name, per-row codes, distinct values) of each candidate.
    let mut cands: Vec<(usize, &str, Vec<u64>, usize)> = Vec::new();
    for (pos, c) in t.columns.iter().enumerate() {
        if c.name == key {
            continue;
        }
        let Some(codes) = b.row_codes(&c.name) else {
            continue;
        };
        let mut seen: Vec<u64> = codes.clone();
        seen.sort_unstable();
        seen.dedup();
        let distinct = seen.len();
        if distinct > 1 && distinct < rows {
            cands.push((pos, &c.name, codes, distinct));
        }
    }
    // Coarse to fine: fewer values first, the declared order on a tie.
    cands.sort_by_key(|c| (c.3, c.0));
    if keys_follow_a_hierarchy(b, &key, &cands) {
        return vec![key];
    }
    // best[i]: the best chain (indexes into cands) ending at candidate i.
    let mut best: Vec<Vec<usize>> = Vec::with_capacity(cands.len());
    for i in 0..cands.len() {
        let mut chain = vec![i];
        for j in 0..i {
            if determines(&cands[i].2, &cands[j].2) {
                let mut c = best[j].clone();
                c.push(i);
                if better(&c, &chain, &cands) {
                    chain = c;
                }
            }
        }
        best.push(chain);
    }
    let mut order: Vec<String> = best
        .iter()
        .fold(None::<&Vec<usize>>, |acc, c| match acc {
            Some(a) if !better(c, a, &cands) => Some(a),
            _ => Some(c),
        })
        .map(|c| c.iter().map(|&i| cands[i].1.to_string()).collect())
        .unwrap_or_default();
    order.push(key);
    order
}

/// Whether the key order already keeps a hierarchy of two levels in runs: two candidate
/// columns, the finer determining the coarser, each value of each one run of rows when
/// the rows are sorted by the key (keys assigned along a hierarchy, as SSB's yyyymmdd
/// date keys are: year and month are runs of keys).
fn keys_follow_a_hierarchy(
    b: &TableBuilder,
    key: &str,
    cands: &[(usize, &str, Vec<u64>, usize)],
) -> bool {
    let Some(keys) = b.int_column(key) else {
        return false;
    };
    let mut perm: Vec<u32> = (0..keys.len() as u32).collect();
    perm.sort_unstable_by_key(|&r| keys[r as usize]);
    let runs: Vec<bool> = cands
        .iter()
        .map(|c| {
            // One run per value: as many value changes along the key order as values - 1.
            let changes = perm
                .windows(2)
                .filter(|w| c.2[w[0] as usize] != c.2[w[1] as usize])
                .count();
            changes + 1 == c.3
        })
        .collect();
    (0..cands.len()).any(|i| {
        runs[i]
            && (0..i)
                .any(|j| runs[j] && cands[j].3 < cands[i].3 && determines(&cands[i].2, &cands[j].2))
    })
}

/// Whether chain `a` beats chain `b`: longer, or as long with earlier declared columns.
fn better(a: &[usize], b: &[usize], cands: &[(usize, &str, Vec<u64>, usize)]) -> bool {
    if a.len() != b.len() {
        return a.len() > b.len();
    }
    let pos = |c: &[usize]| c.iter().map(|&i| cands[i].0).collect::<Vec<_>>();
    pos(a) < pos(b)
}

/// Whether every value of `fine` occurs with one value of `coarse` (fine → coarse).
fn determines(fine: &[u64], coarse: &[u64]) -> bool {
    let mut m: HashMap<u64, u64> = HashMap::new();
    fine.iter()
        .zip(coarse)
        .all(|(f, c)| *m.entry(*f).or_insert(*c) == *c)
}

#[cfg(test)]
mod tests {
    use pmolap_store::{ColumnType, Schema, Value};

    use super::*;
    use crate::ddl::ColumnSpec;

    fn dim(cols: &[(&str, ColType)], rows: &[Vec<&str>]) -> (TableSpec, TableBuilder) {
        let t = TableSpec {
            name: "d".into(),
            columns: cols
                .iter()
                .map(|(n, ty)| ColumnSpec {
                    name: n.to_string(),
                    ty: *ty,
                    not_null: true,
                })
                .collect(),
            primary_key: vec![cols[0].0.to_string()],
            foreign_keys: vec![],
        };
        let schema = Schema::new(cols.iter().map(|(n, ty)| {
            (
                n.to_string(),
                if ty.is_int() {
                    ColumnType::Int
                } else {
                    ColumnType::Str
                },
            )
        }))
        .unwrap();
        let mut b = TableBuilder::new(schema);
        for r in rows {
            for (i, v) in r.iter().enumerate() {
                let v = if cols[i].1.is_int() {
                    Value::Int(v.parse().unwrap())
                } else {
                    Value::Str(v)
                };
                b.push_value(i, v).unwrap();
            }
        }
        (t, b)
    }

    const S: ColType = ColType::Str { max_chars: None };

    /// A hierarchy found in the data is the order, coarsest first, whatever the declared
    /// order; a column outside it (color) is left out.
    #[test]
    fn the_longest_dependency_chain_orders_a_dimension() {
        let (t, b) = dim(
            &[
                ("k", ColType::Integer),
                ("city", S),
                ("color", S),
                ("region", S),
                ("nation", S),
            ],
            &[
                vec!["4", "lyon", "red", "eu", "fr"],
                vec!["1", "paris", "red", "eu", "fr"],
                vec!["6", "rome", "blue", "eu", "it"],
                vec!["2", "lima", "blue", "am", "pe"],
                vec!["5", "lima", "green", "am", "pe"],
                vec!["3", "cusco", "red", "am", "pe"],
            ],
        );
        assert_eq!(dimension_order(&t, &b), ["region", "nation", "city", "k"]);
    }

    /// Keys assigned along a hierarchy (yyyymmdd: a month and a year are runs of keys)
    /// keep their order, although a longer dependency chain exists (month name →
    /// season); the rows' file order does not matter.
    #[test]
    fn keys_assigned_along_a_hierarchy_keep_their_order() {
        let (t, b) = dim(
            &[
                ("k", ColType::Integer),
                ("year", S),
                ("ym", S),
                ("month", S),
                ("season", S),
            ],
            &[
                vec!["19930201", "1993", "1993-02", "feb", "winter"],
                vec!["19920101", "1992", "1992-01", "jan", "winter"],
                vec!["19920102", "1992", "1992-01", "jan", "winter"],
                vec!["19920601", "1992", "1992-06", "jun", "summer"],
                vec!["19930601", "1993", "1993-06", "jun", "summer"],
                vec!["19930101", "1993", "1993-01", "jan", "winter"],
                vec!["19930102", "1993", "1993-01", "jan", "winter"],
            ],
        );
        assert_eq!(dimension_order(&t, &b), ["k"]);
    }

    /// A city in two nations breaks city → nation: the chain stops at nation.
    #[test]
    fn a_broken_dependency_ends_the_chain() {
        let (t, b) = dim(
            &[
                ("k", ColType::Integer),
                ("nation", S),
                ("city", S),
                ("region", S),
            ],
            &[
                vec!["1", "fr", "paris", "eu"],
                vec!["2", "us", "paris", "am"],
                vec!["3", "us", "austin", "am"],
                vec!["4", "it", "rome", "eu"],
            ],
        );
        assert_eq!(dimension_order(&t, &b), ["region", "nation", "k"]);
    }

    /// A dimension keyed by a date is stored in calendar order.
    #[test]
    fn date_keys_keep_the_calendar() {
        let (t, b) = dim(
            &[("d", ColType::Date), ("month", S)],
            &[vec!["20000201", "feb"], vec!["20000101", "jan"]],
        );
        assert_eq!(dimension_order(&t, &b), ["d"]);
    }
}
