//! Join indexes: a dimension's key → its row. A dense array indexed by `key - min` when
//! the keys are dense (SSB's surrogate keys are), else an open-addressing hash table with
//! linear probing (SSB's yyyymmdd date keys: 2,556 days over a span of ~70,000), or, when
//! asked for (`--join-index dash`), the Dash extendible hash table of `pmolap_index::dash`
//! in DRAM. `auto` never picks Dash: measured on SSB SF 1 its probes are as fast as the
//! linear-probing table's but it takes ~3x longer to build (docs/results.md, "Dash hash
//! table"), so the linear-probing table stays the choice for sparse keys.

use pmolap_index::dash::{Dash, DashOptions};

use pmolap_store::table::Column;
use pmolap_store::{AccessCounts, ColumnType};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::query::IndexChoice;

/// Largest key span (as a multiple of the row count) a dense index accepts under `auto`.
const DENSE_SPAN_FACTOR: u64 = 8;
/// Empty slot / absent key marker in both layouts (rows are stored + 1).
const NONE: u32 = 0;

/// A built join index.
#[derive(Debug)]
pub enum JoinIndex {
    /// `rows[key - min]` = row + 1, or 0.
    Dense { min: i64, rows: Vec<u32> },
    /// Linear probing over a power-of-two table.
    Hash {
        mask: usize,
        keys: Vec<i64>,
        rows: Vec<u32>,
    },
    /// The Dash hash table: key → row.
    Dash(Box<Dash>),
}

/// What a join index is, for reports.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JoinIndexInfo {
    pub kind: String,
    pub entries: usize,
    pub bytes: usize,
}

#[inline]
fn slot(key: i64, mask: usize) -> usize {
    (key as u64)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(32) as usize
        & mask
}

impl JoinIndex {
    /// Builds the index of `col` (an int key column of `table`).
    pub fn build(table: &str, col: &Column, choice: IndexChoice) -> Result<JoinIndex> {
        if col.ty() != ColumnType::Int {
            return Err(Error::Query(format!(
                "join key {table}.{} is a {} column; join keys must be int columns",
                col.name(),
                col.ty()
            )));
        }
        let n = col.rows();
        let dict = col.dict.ints();
        let mut keys = Vec::with_capacity(n);
        let counting = col.dict.counting();
        col.dv.for_each_block(|_, ids| {
            if counting {
                col.dict.record(&AccessCounts::of_batch(ids));
            }
            keys.extend(ids.iter().map(|&c| dict.get(c as usize)))
        });
        let (min, max) = match (dict.first(), dict.last()) {
            (Some(a), Some(b)) => (a, b),
            _ => (0, -1),
        };
        let span = (max as i128 - min as i128 + 1).max(0) as u64;
        let dense_ok = span <= (n as u64).max(1024) * DENSE_SPAN_FACTOR;
        let dense = match choice {
            IndexChoice::Auto => dense_ok,
            IndexChoice::Dense if span > u32::MAX as u64 || span > 1 << 31 => {
                return Err(Error::Query(format!(
                    "join key {table}.{}: a dense index over keys {min}..={max} would need {span} slots",
                    col.name()
                )))
            }
            IndexChoice::Dense => true,
            IndexChoice::Hash | IndexChoice::Dash => false,
        };
        let dup = |k: i64| {
            Error::Query(format!(
                "join key {table}.{} is not unique: {k} appears twice",
                col.name()
            ))
        };
        if n >= u32::MAX as usize {
            return Err(Error::Query(format!("dimension {table} has too many rows")));
        }
        if choice == IndexChoice::Dash {
            let d = Dash::new_dram(DashOptions::for_items(n))
                .map_err(|e| Error::Query(format!("join index of {table}: {e}")))?;
            for (r, &k) in keys.iter().enumerate() {
                let old = d
                    .insert(k as u64, r as u64)
                    .map_err(|e| Error::Query(format!("join index of {table}: {e}")))?;
                if old.is_some() {
                    return Err(dup(k));
                }
            }
            return Ok(JoinIndex::Dash(Box::new(d)));
        }
        if dense {
            let mut rows = vec![NONE; span as usize];
            for (r, &k) in keys.iter().enumerate() {
                let s = &mut rows[(k - min) as usize];
                if *s != NONE {
                    return Err(dup(k));
                }
                *s = r as u32 + 1;
            }
            Ok(JoinIndex::Dense { min, rows })
        } else {
            let cap = (n * 2).next_power_of_two().max(16);
            let mask = cap - 1;
            let mut hk = vec![0i64; cap];
            let mut hr = vec![NONE; cap];
            for (r, &k) in keys.iter().enumerate() {
                let mut s = slot(k, mask);
                while hr[s] != NONE {
                    if hk[s] == k {
                        return Err(dup(k));
                    }
                    s = (s + 1) & mask;
                }
                hk[s] = k;
                hr[s] = r as u32 + 1;
            }
            Ok(JoinIndex::Hash {
                mask,
                keys: hk,
                rows: hr,
            })
        }
    }

    /// The row holding `key`.
    #[inline]
    pub fn get(&self, key: i64) -> Option<u32> {
        let r = match self {
            JoinIndex::Dense { min, rows } => {
                let i = key.wrapping_sub(*min);
                if i < 0 || i as u64 >= rows.len() as u64 {
                    NONE
                } else {
                    rows[i as usize]
                }
            }
            JoinIndex::Hash { mask, keys, rows } => {
                let mut s = slot(key, *mask);
                loop {
                    if rows[s] == NONE || keys[s] == key {
                        break rows[s];
                    }
                    s = (s + 1) & mask;
                }
            }
            // A DRAM table never needs recovery and only this process writes its
            // directory, so a lookup cannot fail; an error would read as "absent".
            JoinIndex::Dash(d) => return d.get(key as u64).ok().flatten().map(|r| r as u32),
        };
        r.checked_sub(1)
    }

    pub fn info(&self) -> JoinIndexInfo {
        match self {
            JoinIndex::Dense { rows, .. } => JoinIndexInfo {
                kind: "dense".into(),
                entries: rows.iter().filter(|&&r| r != NONE).count(),
                bytes: rows.len() * 4,
            },
            JoinIndex::Hash { keys, rows, .. } => JoinIndexInfo {
                kind: "hash".into(),
                entries: rows.iter().filter(|&&r| r != NONE).count(),
                bytes: keys.len() * 12,
            },
            JoinIndex::Dash(d) => {
                let rep = d.footprint();
                JoinIndexInfo {
                    kind: "dash".into(),
                    entries: rep.0 as usize,
                    bytes: rep.1 as usize,
                }
            }
        }
    }
}
