//! Predicates as value-id sets of a sorted dictionary ([`CodeSet`]), the probe tests made
//! of them, and the sampled selectivity of a test over a fact column.

use pmolap_kernels::bitpack;
use pmolap_store::dictionary::Dictionary;
use pmolap_store::table::Column;
use pmolap_store::{AccessCounts, ColumnType};

use super::{FactCol, Test, MISS};
use crate::error::{Error, Result};
use crate::query::{Literal, Predicate};

/// First value id `>= x` (`strict`: `> x`) of a sorted dictionary.
fn bound(dict: &Dictionary, x: &Literal, strict: bool, what: &str) -> Result<u32> {
    let n = dict.len();
    let pp = match (dict.ty(), x) {
        (ColumnType::Int, Literal::Int(v)) => {
            let ints = dict.ints();
            // A binary search: one random lookup per probe (as `Dictionary` counts its own;
            // a frame's probes read no memory and `record` drops them).
            dict.record(&AccessCounts::lookups(
                (usize::BITS - ints.len().leading_zeros()) as u64,
            ));
            let pp = ints.partition_point(|e| if strict { e <= *v } else { e < *v });
            // The search's probes, replayed from its answer (the pages it read).
            if dict.counting() {
                let (mut lo, mut hi, mut path) = (0usize, ints.len(), Vec::new());
                while lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    path.push(mid as u32);
                    if mid < pp {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                dict.record_reads(&path);
            }
            pp
        }
        (ColumnType::Str, Literal::Str(s)) => {
            let (mut lo, mut hi) = (0usize, n);
            while lo < hi {
                let mid = (lo + hi) / 2;
                let e = dict.get(mid as u32);
                let e = e.as_str().unwrap_or_default();
                let before = if strict {
                    e <= s.as_str()
                } else {
                    e < s.as_str()
                };
                if before {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            lo
        }
        (ty, lit) => {
            return Err(Error::Query(format!(
                "{what} holds {ty} values; {lit} is not one"
            )))
        }
    };
    Ok(pp as u32)
}

/// The value ids of `dict` satisfying `p`: a range `[lo, hi)` and optionally a list.
pub(super) struct CodeSet {
    lo: u32,
    hi: u32,
    list: Option<Vec<u32>>,
}

impl CodeSet {
    /// The value ids of column `col` satisfying `p`. A NULL (the id one past the
    /// dictionary) satisfies `IS NULL` alone: a comparison with NULL is not true.
    pub(super) fn of_column(col: &Column, p: &Predicate, what: &str) -> Result<CodeSet> {
        let set = CodeSet::of(&col.dict, p, what)?;
        if p.is_null != Some(true) {
            return Ok(set);
        }
        // `IS NULL` and any other bound: nothing (after the literals were checked).
        let others = Predicate {
            is_null: None,
            ..p.clone()
        };
        Ok(match col.null_id() {
            Some(null) if others == Predicate::default() => CodeSet {
                lo: null,
                hi: null + 1,
                list: None,
            },
            _ => CodeSet {
                lo: 0,
                hi: 0,
                list: None,
            },
        })
    }

    fn of(dict: &Dictionary, p: &Predicate, what: &str) -> Result<CodeSet> {
        let n = dict.len() as u32;
        let (mut lo, mut hi) = (0u32, n);
        let mut narrow = |a: u32, b: u32| {
            lo = lo.max(a);
            hi = hi.min(b);
        };
        if let Some(x) = &p.eq {
            narrow(bound(dict, x, false, what)?, bound(dict, x, true, what)?);
        }
        if let Some((a, b)) = &p.between {
            narrow(bound(dict, a, false, what)?, bound(dict, b, true, what)?);
        }
        if let Some(x) = &p.lt {
            narrow(0, bound(dict, x, false, what)?);
        }
        if let Some(x) = &p.le {
            narrow(0, bound(dict, x, true, what)?);
        }
        if let Some(x) = &p.gt {
            narrow(bound(dict, x, true, what)?, n);
        }
        if let Some(x) = &p.ge {
            narrow(bound(dict, x, false, what)?, n);
        }
        // `not_between`: a hole at an end of the range narrows it; inside, a list.
        let mut hole: Option<(u32, u32)> = None;
        if let Some((a, b)) = &p.not_between {
            let (a, b) = (bound(dict, a, false, what)?, bound(dict, b, true, what)?);
            if a < b {
                if a <= lo {
                    lo = lo.max(b);
                } else if b >= hi {
                    hi = hi.min(a);
                } else {
                    hole = Some((a, b));
                }
            }
        }
        let list = match &p.one_of {
            None => None,
            Some(items) => {
                let mut l = Vec::new();
                for x in items {
                    let (a, b) = (bound(dict, x, false, what)?, bound(dict, x, true, what)?);
                    if a < b && a >= lo && a < hi {
                        l.push(a);
                    }
                }
                l.sort_unstable();
                l.dedup();
                Some(l)
            }
        };
        let list = match hole {
            None => list,
            Some((a, b)) => {
                let out = |c: &u32| *c < a || *c >= b;
                Some(match list {
                    Some(l) => l.into_iter().filter(out).collect(),
                    None => (lo..hi).filter(out).collect(),
                })
            }
        };
        // `ne` and `not_in`: every id of the set but the literals' (those the dictionary
        // holds).
        let mut excluded = Vec::new();
        for x in p.ne.iter().chain(p.not_in.iter().flatten()) {
            let (a, b) = (bound(dict, x, false, what)?, bound(dict, x, true, what)?);
            if a < b && a >= lo && a < hi {
                excluded.push(a);
            }
        }
        excluded.sort_unstable();
        let list = match list {
            _ if excluded.is_empty() => list,
            Some(mut l) => {
                l.retain(|c| excluded.binary_search(c).is_err());
                Some(l)
            }
            None => Some(
                (lo..hi)
                    .filter(|c| excluded.binary_search(c).is_err())
                    .collect(),
            ),
        };
        Ok(CodeSet { lo, hi, list })
    }

    pub(super) fn is_empty(&self) -> bool {
        self.lo >= self.hi || self.list.as_ref().is_some_and(Vec::is_empty)
    }

    /// Whether every id of a column of `ids` value ids (`Column::ids`: its dictionary's
    /// and the NULL id, if it has NULLs) is in the set.
    pub(super) fn is_full(&self, ids: usize) -> bool {
        match &self.list {
            // Ids in a list are distinct and below the column's ids.
            Some(l) => l.len() >= ids,
            None => self.lo == 0 && self.hi as usize >= ids,
        }
    }

    /// The set as ids `lo..hi`, when it is a range (not a list).
    pub(super) fn range(&self) -> Option<(u32, u32)> {
        self.list.is_none().then_some((self.lo, self.hi))
    }

    pub(super) fn contains(&self, c: u32) -> bool {
        match &self.list {
            Some(l) => l.binary_search(&c).is_ok(),
            None => c >= self.lo && c < self.hi,
        }
    }

    /// The probe test of the set over a column of `ids` value ids.
    pub(super) fn test(&self, ids: usize) -> Test {
        match &self.list {
            None => Test::Range {
                lo: self.lo,
                span: self.hi.wrapping_sub(self.lo).wrapping_sub(1),
            },
            Some(l) => {
                let mut bits = vec![0u64; ids.div_ceil(64) + 1];
                for &c in l {
                    bits[c as usize >> 6] |= 1 << (c & 63);
                }
                Test::Bits(bits)
            }
        }
    }
}

/// Value ids of every row of a column.
pub(super) fn all_ids(col: &Column) -> Vec<u32> {
    let mut v = Vec::with_capacity(col.rows());
    col.dv.for_each_block(|_, ids| v.extend_from_slice(ids));
    v
}

#[inline]
pub(crate) fn passes(test: &Test, id: u32) -> bool {
    match test {
        Test::Range { lo, span } => id.wrapping_sub(*lo) <= *span,
        Test::Bits(b) => b[id as usize >> 6] >> (id & 63) & 1 != 0,
        Test::Ranges(r) => pmolap_kernels::bits::in_ranges(r, id),
        Test::Lookup(l) => l.code(id) != MISS,
        Test::Code { len } => id < *len,
    }
}

/// The fraction of fact rows passing `test`, from an even sample of the column.
pub(super) fn sample_selectivity(col: &FactCol<'_>, rows: usize, test: &Test) -> f64 {
    const SAMPLES: usize = 4096;
    if rows == 0 {
        return 0.0;
    }
    let n = SAMPLES.min(rows);
    col.store.dv.record(&AccessCounts::lookups(n as u64));
    if col.store.dv.counting() {
        col.store
            .dv
            .record_reads((0..n).map(|i| (i as u128 * rows as u128 / n as u128) as u64));
    }
    let hits = (0..n)
        .filter(|&i| {
            let row = (i as u128 * rows as u128 / n as u128) as usize;
            passes(test, bitpack::get(col.words, col.width, row))
        })
        .count();
    hits as f64 / n as f64
}
