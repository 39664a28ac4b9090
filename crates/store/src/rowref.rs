//! Row references: a fact table's column that holds, for every row, the row of a
//! dimension its foreign key names, written with the database and listed in `DATABASE`.
//!
//! A join through it needs no join index (the dimension's per-row pass flags and group
//! codes are read by the reference directly), and when the dimension's rows are stored in
//! the order of a hierarchy (region, nation, city), a predicate on one level of it is a
//! contiguous run of rows: the fact side tests an id range instead of gathering a bitmap.
//! The foreign key column stays as it is, for predicates, groups and answers on its values.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// A row-reference column, as `DATABASE` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowRef {
    /// The table holding the foreign key and the reference column (`lineorder`).
    pub table: String,
    /// The foreign key column (`lo_custkey`).
    pub key: String,
    /// The reference column: per row, the dimension row whose `dim_key` equals `key`, or
    /// the dimension's row count when none does.
    pub column: String,
    /// The dimension (`customer`) and its key column (`c_custkey`).
    pub dim: String,
    pub dim_key: String,
    /// The columns the dimension's rows are ordered by (for reports; may be empty).
    #[serde(default)]
    pub order: Vec<String>,
}

impl RowRef {
    /// The reference column's name for foreign key `key` into `dim`: `lo_custkey@customer`
    /// (no SQL identifier can name it, so it never clashes with a user's column).
    pub fn column_name(key: &str, dim: &str) -> String {
        format!("{key}@{dim}")
    }
}

/// For each foreign key value of `fk`, the position in `dim_keys` holding it, or
/// `dim_keys.len()` when none does (a dangling key: no inner join matches it). Fails when
/// a dimension key appears twice.
pub fn row_refs(fk: &[i64], dim_keys: &[i64]) -> Result<Vec<i64>> {
    let m = dim_keys.len();
    let dup = |k: i64| Error::Schema(format!("dimension key {k} appears twice"));
    let (Some(&min), Some(&max)) = (dim_keys.iter().min(), dim_keys.iter().max()) else {
        return Ok(vec![0; fk.len()]);
    };
    let span = (max as i128 - min as i128 + 1) as u128;
    if span <= (8 * m as u128).max(1 << 16) {
        // Dense keys (surrogate keys): a row per key offset, u32::MAX for none.
        let mut at = vec![u32::MAX; span as usize];
        for (r, &k) in dim_keys.iter().enumerate() {
            let s = &mut at[(k - min) as usize];
            if *s != u32::MAX {
                return Err(dup(k));
            }
            *s = r as u32;
        }
        Ok(fk
            .iter()
            .map(|&k| {
                let off = k as i128 - min as i128;
                if (0..span as i128).contains(&off) && at[off as usize] != u32::MAX {
                    at[off as usize] as i64
                } else {
                    m as i64
                }
            })
            .collect())
    } else {
        let mut at = HashMap::with_capacity(m);
        for (r, &k) in dim_keys.iter().enumerate() {
            if at.insert(k, r as i64).is_some() {
                return Err(dup(k));
            }
        }
        Ok(fk
            .iter()
            .map(|k| at.get(k).copied().unwrap_or(m as i64))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every reference names the row holding the key, dangling keys the row count, in
    /// the dense and the hashed layout alike; a duplicate key is refused.
    #[test]
    fn refs_name_the_row_holding_the_key() {
        for dims in [
            vec![30i64, 10, 20, -5],
            vec![7_000_000_000, 3, 19_999_999_999, 4],
        ] {
            let fk: Vec<i64> = dims.iter().rev().copied().chain([11, i64::MIN]).collect();
            let refs = row_refs(&fk, &dims).unwrap();
            for (k, r) in fk.iter().zip(&refs) {
                match dims.iter().position(|d| d == k) {
                    Some(p) => assert_eq!(*r, p as i64, "key {k}"),
                    None => assert_eq!(*r, dims.len() as i64, "dangling key {k}"),
                }
            }
        }
        assert!(row_refs(&[1], &[5, 1, 5]).is_err());
        assert!(row_refs(&[1], &[5, 1 << 40, 5]).is_err());
        assert_eq!(row_refs(&[1, 2], &[]).unwrap(), vec![0, 0]);
    }
}
