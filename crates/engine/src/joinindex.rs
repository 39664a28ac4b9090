//! Join indexes: a dimension's key → its row. A dense array indexed by `key - min` when
//! the keys are dense (SSB's surrogate keys are), else an open-addressing hash table with
//! linear probing (SSB's yyyymmdd date keys: 2,556 days over a span of ~70,000), or, when
//! asked for (`--join-index dash`), the Dash extendible hash table of `pmolap_index::dash`
//! in DRAM. `auto` never picks Dash: measured on SSB SF 1 its probes are as fast as the
//! linear-probing table's but it takes ~3x longer to build (docs/results.md, "Dash hash
//! table"), so the linear-probing table stays the choice for sparse keys.

use pmolap_index::dash::{Dash, DashOptions};

use pmolap_store::dictionary::IntValues;
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
                col.dict.record_reads(ids);
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

    /// `code[row]` for the row holding each of `keys` (`miss` for a key no row holds), in
    /// the keys' order: a join's lookup table by fact value id. A frame of keys over a
    /// dense index reads a slice of the index (no dispatch per key): 1.33 ms → 0.3 for
    /// the 600,000 part keys at SF 10, planned on one thread.
    pub fn codes_of(&self, keys: IntValues<'_>, code: &[u32], miss: u32) -> Vec<u32> {
        let of_row = |r: u32| r.checked_sub(1).map_or(miss, |r| code[r as usize]);
        if let (IntValues::Frame { min: first, len }, JoinIndex::Dense { min, rows }) = (keys, self)
        {
            let mut out = vec![miss; len];
            // Key `first + i` sits at `rows[first + i - min]` where that is in the index.
            let off = i128::from(first) - i128::from(*min);
            let lo = (-off).clamp(0, len as i128);
            let hi = (rows.len() as i128 - off).clamp(0, len as i128);
            if lo < hi {
                let src = &rows[(off + lo) as usize..(off + hi) as usize];
                for (o, &r) in out[lo as usize..hi as usize].iter_mut().zip(src) {
                    *o = of_row(r);
                }
            }
            return out;
        }
        keys.iter()
            .map(|k| self.get(k).map_or(miss, |r| code[r as usize]))
            .collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The lookup table read as a slice of a dense index equals a lookup per key, for
    /// frames of keys starting before, inside and past the index, and for sorted keys.
    #[test]
    fn codes_of_a_frame_equal_a_lookup_per_key() {
        // Keys 100..130, every third from 101 absent (row 0, the last present); row r has
        // code 7r.
        let rows: Vec<u32> = (0..30)
            .map(|i| if i % 3 == 1 { NONE } else { i + 1 })
            .collect();
        let index = JoinIndex::Dense { min: 100, rows };
        let code: Vec<u32> = (0..30).map(|r| 7 * r).collect();
        let per_key = |keys: IntValues<'_>| -> Vec<u32> {
            keys.iter()
                .map(|k| index.get(k).map_or(MISS_CODE, |r| code[r as usize]))
                .collect()
        };
        const MISS_CODE: u32 = u32::MAX;
        for first in [-5i64, 90, 99, 100, 101, 117, 129, 130, 400] {
            for len in [0usize, 1, 5, 29, 30, 31, 60] {
                let keys = IntValues::Frame { min: first, len };
                let got = index.codes_of(keys, &code, MISS_CODE);
                assert_eq!(got, per_key(keys), "frame from {first}, {len} keys");
            }
        }
        let sorted = [95i64, 100, 102, 103, 128, 131];
        let keys = IntValues::Sorted(&sorted);
        assert_eq!(index.codes_of(keys, &code, MISS_CODE), per_key(keys));
        assert_eq!(
            index.codes_of(IntValues::Frame { min: 100, len: 3 }, &code, MISS_CODE),
            vec![0, MISS_CODE, 14]
        );
    }
}
