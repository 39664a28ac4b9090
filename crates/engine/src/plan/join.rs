//! Joins at plan time: a dimension's predicates and carried attributes evaluated over its
//! rows (a pass flag and a group code per row), then turned into a join filter and a
//! group-code lookup keyed by the value id of the fact table's foreign key.

use std::collections::HashMap;

use pmolap_store::dictionary::IntValues;
use pmolap_store::table::Column;
use pmolap_store::{ColumnType, Table};

use super::codes::{all_ids, CodeSet};
use super::order::TestKind;
use super::{qerr, GroupSource, GroupValues, Hull, JoinReport, Lut, Planner, Step, Test, MISS};
use crate::db::Database;
use crate::error::Result;
use crate::joinindex::JoinIndexInfo;
use crate::query::{Cond, IndexChoice, Join, Predicate, Query};

/// Group codes of a dimension's rows: the carried tuples numbered densely among the
/// passing rows ([`MISS`] for the others), and the tuples' value ids by carried column and
/// code (decoded only for the result rows).
struct GroupCodes {
    code: Vec<u32>,
    tuple_ids: Vec<Vec<u32>>,
}

impl<'db> Planner<'_, 'db> {
    /// Evaluates join `j`: pushes its filter step and group-code lookup (and group
    /// source) and reports what was built.
    pub(super) fn join(&mut self, db: &'db Database, j: &Join) -> Result<JoinReport> {
        let query = self.query;
        let dim = db.table(&j.dim).map_err(|e| qerr(query, e.to_string()))?;
        let m = dim.rows();
        // Once the result is known to be empty, the remaining joins are only validated.
        let pass = dimension_pass(query, j, dim, !self.never)?;
        let carried: Vec<&'db Column> = j
            .carry
            .iter()
            .map(|c| dim_column(query, j, dim, c))
            .collect::<Result<_>>()?;
        check_carried_domain(query, j, &carried)?;
        let dim_rows_passing = pass
            .as_ref()
            .map_or(0, |p| p.iter().filter(|&&x| x).count());
        // The join filter, by value id of the fact foreign key, or (under `auto`, when the
        // database has one) of its row-reference column: then no join index is needed,
        // and the filter is a range when the passing rows are one run of the dimension's
        // (hierarchy) order.
        let via_ref = match j.index {
            IndexChoice::Auto => db.row_ref(&query.fact, &j.on.0, &j.dim, &j.on.1),
            _ => None,
        };
        // The key's type from the manifest: a join through the row references never reads
        // the key column, so it is opened (and verified) only for a join index below.
        if self.fact.column_type(&j.on.0)? != ColumnType::Int {
            return Err(qerr(
                query,
                format!("foreign key {}.{} is not an int column", query.fact, j.on.0),
            ));
        }
        let _ = dim_column(query, j, dim, &j.on.1)?;
        let evaluated = pass.is_some();
        let Some(pass) = pass.filter(|_| dim_rows_passing > 0) else {
            // No dimension row passes (or an earlier step passes nothing): the inner join
            // is empty, so is the result; no join index, lookup or step is built.
            self.never = true;
            return Ok(JoinReport {
                dim: j.dim.clone(),
                index: JoinIndexInfo {
                    kind: "none (empty result)".into(),
                    entries: 0,
                    bytes: 0,
                },
                index_build_ms: None,
                dim_rows: m,
                dim_rows_passing,
                groups: 0,
                filter: if evaluated {
                    "empty"
                } else {
                    "skipped (empty result)"
                }
                .into(),
                filter_bytes: 0,
            });
        };
        let GroupCodes { code, tuple_ids } = group_codes(&carried, &pass);
        let groups = tuple_ids.first().map_or(0, Vec::len);
        let (fk, lut, index, built) = match via_ref {
            Some(r) => {
                let ref_dict = &self.fact.column(&r.column)?.dict;
                // Every reference value is read once (counted for the placement model).
                ref_dict.record_scan();
                let refs = ref_dict.ints();
                let lut = codes_by_row(refs, &code, MISS).ok_or_else(|| {
                    qerr(query, format!("{}: a reference past {} rows", r.column, m))
                })?;
                let info = JoinIndexInfo {
                    kind: format!("row refs ({})", r.column),
                    entries: m,
                    bytes: 0,
                };
                (self.col(&r.column)?, lut, info, None)
            }
            None => {
                let (index, built) = db.join_index(&j.dim, &j.on.1, j.index)?;
                // Every key of the foreign key's dictionary is looked up once.
                let fk_dict = &self.fact.column(&j.on.0)?.dict;
                fk_dict.record_scan();
                let lut = index.codes_of(fk_dict.ints(), &code, MISS);
                (self.col(&j.on.0)?, lut, index.info(), built)
            }
        };
        let (mut filter_test, any_hit) = join_filter(&lut);
        if filter_test.is_none() && via_ref.is_none() && !lut.is_empty() {
            // Every key passes, but a NULL key (the id past the lookup table) joins no
            // row: the join still filters, on the keys that are not NULL.
            if self.fact.column(&j.on.0)?.null_id().is_some() {
                filter_test = Some(Test::Range {
                    lo: 0,
                    span: lut.len() as u32 - 1,
                });
            }
        }
        let filter = match (&filter_test, j.carry.is_empty()) {
            (None, true) => "eliminated",
            (None, false) => "lookup",
            (Some(Test::Range { .. }), true) => "range",
            (Some(Test::Range { .. }), false) => "range + lookup",
            (Some(Test::Ranges(_)), true) => "ranges",
            (Some(Test::Ranges(_)), false) => "ranges + lookup",
            (Some(_), true) => "bitmap",
            (Some(_), false) => "bitmap + lookup",
        };
        self.never |= !any_hit;
        let lut = Lut::narrow(lut, groups);
        let filter_bytes = match &filter_test {
            Some(Test::Bits(b)) => b.len() * 8,
            _ => 0,
        } + if j.carry.is_empty() {
            0
        } else {
            lut.bytes().len()
        };
        let report = JoinReport {
            dim: j.dim.clone(),
            index,
            index_build_ms: built,
            dim_rows: m,
            dim_rows_passing,
            groups,
            filter: filter.to_string(),
            filter_bytes,
        };
        let values = GroupValues::Tuples {
            columns: carried,
            ids: tuple_ids,
        };
        self.push_join_steps(j, fk, filter_test, lut, values);
        Ok(report)
    }

    /// The join's filter step (if it filters) and group-code lookup (if it carries).
    fn push_join_steps(
        &mut self,
        j: &Join,
        fk: usize,
        filter_test: Option<Test>,
        lut: Lut,
        values: GroupValues<'db>,
    ) {
        if let Some(test) = filter_test {
            let hull = match &test {
                Test::Bits(b) if TestKind::of_bitmap(b.len()) != TestKind::RegisterBitmap => {
                    hull(b).map(|runs| Hull {
                        runs,
                        selectivity: 0.0,
                    })
                }
                _ => None,
            };
            self.steps.push(Step {
                what: format!("join {}", j.dim),
                col: fk,
                test,
                stride: 0,
                selectivity: 0.0,
                group_only: false,
                hull,
            });
        }
        if !j.carry.is_empty() {
            self.steps.push(Step {
                what: format!("groups of {}", j.dim),
                col: fk,
                test: Test::Lookup(lut),
                stride: 0,
                selectivity: 0.0,
                group_only: true,
                hull: None,
            });
            self.sources.push((
                GroupSource {
                    columns: j.carry.clone(),
                    values,
                    stride: 0,
                },
                self.steps.len() as u64 - 1,
            ));
        }
    }
}

/// Column `name` of dimension `dim` of join `j`.
fn dim_column<'t>(query: &Query, j: &Join, dim: &'t Table, name: &str) -> Result<&'t Column> {
    dim.column(name).map_err(|e| match dim.column_type(name) {
        // There, but damaged: its file and the problem.
        Ok(_) => e.into(),
        Err(_) => qerr(
            query,
            format!(
                "dimension `{}` has no column `{name}` (have: {})",
                j.dim,
                dim.column_names().collect::<Vec<_>>().join(", ")
            ),
        ),
    })
}

/// Whether each row of `dim` passes every predicate and condition of join `j`; with
/// `evaluate` false the predicates are only validated (None).
fn dimension_pass(
    query: &Query,
    j: &Join,
    dim: &Table,
    evaluate: bool,
) -> Result<Option<Vec<bool>>> {
    let mut pass = evaluate.then(|| vec![true; dim.rows()]);
    for (name, p) in &j.filters {
        and_predicate(query, j, dim, name, p, pass.as_deref_mut())?;
    }
    for c in &j.conditions {
        let mut this = evaluate.then(|| vec![true; dim.rows()]);
        condition(query, j, dim, c, this.as_deref_mut())?;
        if let (Some(pass), Some(this)) = (pass.as_mut(), this) {
            for (p, t) in pass.iter_mut().zip(this) {
                *p &= t;
            }
        }
    }
    Ok(pass)
}

/// Clears the rows of `pass` (None: only validates) that fail predicate `p` on column
/// `name`.
fn and_predicate(
    query: &Query,
    j: &Join,
    dim: &Table,
    name: &str,
    p: &Predicate,
    pass: Option<&mut [bool]>,
) -> Result<()> {
    let col = dim_column(query, j, dim, name)?;
    let set = CodeSet::of_column(col, p, &format!("{}.{name}", j.dim))
        .map_err(|e| qerr(query, e.to_string()))?;
    let Some(pass) = pass else {
        return Ok(());
    };
    let ids = all_ids(col);
    match set.range() {
        // A range: two compares per row (the loop vectorises).
        Some((lo, hi)) => {
            for (p, &id) in pass.iter_mut().zip(&ids) {
                *p &= id >= lo && id < hi;
            }
        }
        // A list: its verdict per value id once (instead of a binary search per row),
        // then one table lookup per row.
        None => {
            let ok: Vec<bool> = (0..col.ids() as u32).map(|c| set.contains(c)).collect();
            for (p, &id) in pass.iter_mut().zip(&ids) {
                *p &= ok.get(id as usize).copied().unwrap_or(false);
            }
        }
    }
    Ok(())
}

/// Clears the rows of `pass` (all set on entry; None: only validates) that fail
/// condition `c`: a `where` as predicates, an `all` part by part, an `any` as the union
/// of its parts' rows.
fn condition(
    query: &Query,
    j: &Join,
    dim: &Table,
    c: &Cond,
    mut pass: Option<&mut [bool]>,
) -> Result<()> {
    match c {
        Cond::Where(preds) => {
            for (name, p) in preds {
                and_predicate(query, j, dim, name, p, pass.as_deref_mut())?;
            }
        }
        Cond::All(parts) => {
            for part in parts {
                condition(query, j, dim, part, pass.as_deref_mut())?;
            }
        }
        Cond::Any(parts) => {
            let mut any = pass.as_ref().map(|p| vec![false; p.len()]);
            for part in parts {
                let mut this = pass.as_ref().map(|p| vec![true; p.len()]);
                condition(query, j, dim, part, this.as_deref_mut())?;
                if let (Some(any), Some(this)) = (any.as_mut(), this) {
                    for (a, t) in any.iter_mut().zip(this) {
                        *a |= t;
                    }
                }
            }
            if let (Some(pass), Some(any)) = (pass, any) {
                for (p, a) in pass.iter_mut().zip(any) {
                    *p &= a;
                }
            }
        }
    }
    Ok(())
}

/// The mixed radix of the carried columns' value ids (their dictionary sizes, and one
/// more for the NULL id of a column with NULLs): a tuple's key must fit a u64.
fn carried_radix(carried: &[&Column]) -> Vec<u64> {
    carried.iter().map(|c| c.ids().max(1) as u64).collect()
}

/// Refuses carried columns whose value combinations do not fit a 64-bit key.
fn check_carried_domain(query: &Query, j: &Join, carried: &[&Column]) -> Result<()> {
    if carried_radix(carried)
        .iter()
        .try_fold(1u64, |acc, &r| acc.checked_mul(r))
        .is_none()
    {
        return Err(qerr(
            query,
            format!(
                "join {}: the carried columns have too many value combinations",
                j.dim
            ),
        ));
    }
    Ok(())
}

/// Group codes: carried tuples numbered densely among the passing rows (the carried
/// domain was checked by [`check_carried_domain`]), by [`number_tuples`].
fn group_codes(carried: &[&Column], pass: &[bool]) -> GroupCodes {
    if carried.is_empty() {
        let code = pass.iter().map(|&p| if p { 0 } else { MISS }).collect();
        return GroupCodes {
            code,
            tuple_ids: Vec::new(),
        };
    }
    let carried_ids: Vec<Vec<u32>> = carried.iter().map(|c| all_ids(c)).collect();
    let (code, firsts) = number_tuples(&carried_ids, &carried_radix(carried), pass);
    let tuple_ids = carried_ids
        .iter()
        .map(|ids| firsts.iter().map(|&r| ids[r]).collect())
        .collect();
    GroupCodes { code, tuple_ids }
}

/// The code of each row's tuple of value ids (`ids[column][row]`, keyed in mixed radix
/// `radix`): the tuples of passing rows numbered 0, 1, … in the order they first
/// appear, [`MISS`] for the other rows; and the row where each code first appears.
///
/// Whether a row passes is not branched on where it can be avoided: half of a
/// dimension's 800,000 rows passing mispredicts a branch per row (2.9 ms at SF 10 of a
/// plan of 12); a new tuple, which is rare, is the only branch. Where few rows pass (a
/// brand and a container among 800,000 parts: 0.6 %), a branch per row that is nearly
/// never taken skips the others (R12's plan 3.7 -> 2.8 ms).
fn number_tuples(ids: &[Vec<u32>], radix: &[u64], pass: &[bool]) -> (Vec<u32>, Vec<usize>) {
    let combos: u64 = radix.iter().product();
    let key = |r: usize| {
        ids.iter()
            .zip(radix)
            .fold(0u64, |k, (ids, &rad)| k * rad + ids[r] as u64)
    };
    // Tuple key → code: a dense array when the key space is small, else a hash map.
    let dense = combos <= 1 << 20;
    let mut dense_of: Vec<u32> = if dense {
        vec![MISS; combos as usize]
    } else {
        Vec::new()
    };
    let mut tuple_of: HashMap<u64, u32> = HashMap::new();
    let mut firsts: Vec<usize> = Vec::new();
    let mut code = vec![MISS; pass.len()];
    let passing = pass.iter().filter(|&&p| p).count();
    if passing * 16 < pass.len() {
        for r in (0..pass.len()).filter(|&r| pass[r]) {
            let next = firsts.len() as u32;
            let known = if dense {
                &mut dense_of[key(r) as usize]
            } else {
                tuple_of.entry(key(r)).or_insert(MISS)
            };
            if *known == MISS {
                *known = next;
                firsts.push(r);
            }
            code[r] = *known;
        }
        return (code, firsts);
    }
    for (r, (c, &p)) in code.iter_mut().zip(pass).enumerate() {
        let k = key(r);
        let mut known = if dense {
            dense_of[k as usize]
        } else if p {
            tuple_of.get(&k).copied().unwrap_or(MISS)
        } else {
            MISS
        };
        if p & (known == MISS) {
            known = firsts.len() as u32;
            firsts.push(r);
            if dense {
                dense_of[k as usize] = known;
            } else {
                tuple_of.insert(k, known);
            }
        }
        *c = if p { known } else { MISS };
    }
    (code, firsts)
}

/// `code[row]` for each row reference of `refs` (by value id), `miss` for the dimension's
/// row count (a dangling key); None for a reference past it (checked when the database
/// is opened). A frame of references is a slice of `code`.
fn codes_by_row(refs: IntValues<'_>, code: &[u32], miss: u32) -> Option<Vec<u32>> {
    let m = code.len() as i64;
    let of = |r: i64| match r {
        _ if r == m => Some(miss),
        0.. if r < m => Some(code[r as usize]),
        _ => None,
    };
    match refs {
        IntValues::Frame { min, len } if min >= 0 && min + len as i64 <= m => {
            Some(code[min as usize..min as usize + len].to_vec())
        }
        _ => refs.iter().map(of).collect(),
    }
}

/// The filter test of a join's lookup table (`None`: every fact key passes) and whether
/// any key passes at all.
///
/// A join becomes a filter step (unless every fact key passes) and, when it carries
/// attributes, a group-code lookup that runs after every filter, on the few rows left:
/// the filter probes a bit per value id (or a range, or a few), not a 32-bit code.
fn join_filter(lut: &[u32]) -> (Option<Test>, bool) {
    // One branch-free pass: a dimension of 800,000 keys half of which pass costs a
    // mispredicted branch per key when the hits are listed first (2.9 ms at SF 10).
    let mut bits = vec![0u64; lut.len().div_ceil(64) + 1];
    for (w, chunk) in bits.iter_mut().zip(lut.chunks(64)) {
        *w = chunk
            .iter()
            .enumerate()
            .fold(0, |x, (j, &g)| x | u64::from(g != MISS) << j);
    }
    let hits = pmolap_kernels::bits::active().count_ones(&bits);
    let bit_at = |i: usize, b: u32| (i * 64) as u32 + b;
    let first = bits
        .iter()
        .position(|&w| w != 0)
        .map(|i| bit_at(i, bits[i].trailing_zeros()));
    let last = bits
        .iter()
        .rposition(|&w| w != 0)
        .map(|i| bit_at(i, 63 - bits[i].leading_zeros()));
    let test = match first.zip(last) {
        _ if hits == lut.len() => None,
        Some((lo, hi)) if (hi - lo) as usize + 1 == hits => Some(Test::Range { lo, span: hi - lo }),
        _ => Some(match runs(&bits) {
            Some(r) => Test::Ranges(r),
            None => Test::Bits(bits),
        }),
    };
    (test, hits > 0)
}

/// A join filter of this many runs of passing keys at most is tested as ranges (one range
/// test each, about 0.06 ns per row on the packed words) rather than by a bitmap (0.2 ns
/// from registers, 0.45 gathered, AVX-512 on a Zen 4).
pub(super) const MAX_RUNS: usize = 4;

/// At most [`MAX_RUNS`] runs of ids, as `(first, last - first)`, that hold every set bit
/// of `bits`: from its first set bit to its last, split at the `MAX_RUNS - 1` widest gaps
/// of more than 64 ids (the earlier of equal ones). A word pass, not a bit pass:
/// a customer bitmap of 300,000 bits and 100,000 runs costs microseconds, where listing
/// the runs cost 0.7 ms of planning. None when no bit is set or the bits are at most
/// `MAX_RUNS` runs already (then they are the test).
pub(super) fn hull(bits: &[u64]) -> Option<Vec<(u32, u32)>> {
    if runs(bits).is_some() {
        return None;
    }
    let bit = |i: usize, b: u32| (i * 64) as u32 + b;
    let mut gaps: Vec<(u32, u32)> = Vec::with_capacity(MAX_RUNS);
    let (mut first, mut last): (Option<u32>, u32) = (None, 0);
    for (i, &w) in bits.iter().enumerate() {
        if w == 0 {
            continue;
        }
        let lo = bit(i, w.trailing_zeros());
        if first.is_some() && lo > last + 65 {
            // A gap of more than 64 ids (so none lies inside a word): `last + 1 ..= lo - 1`.
            // Keep the widest.
            let gap = (lo - last - 1, last);
            let at = gaps.partition_point(|g| g.0 >= gap.0);
            if at < MAX_RUNS - 1 {
                gaps.insert(at, gap);
                gaps.truncate(MAX_RUNS - 1);
            }
        }
        first.get_or_insert(lo);
        last = bit(i, 63 - w.leading_zeros());
    }
    let first = first?;
    // Cut after each kept gap's last set bit, in id order.
    let mut ends: Vec<(u32, u32)> = gaps
        .iter()
        .map(|&(len, end)| (end, end + len + 1))
        .collect();
    ends.sort_unstable();
    let mut out = Vec::with_capacity(MAX_RUNS);
    let mut start = first;
    for (end, next) in ends {
        out.push((start, end - start));
        start = next;
    }
    out.push((start, last - start));
    Some(out)
}

/// The runs of set bits of `bits` as `(first, last - first)`, when there are at most
/// [`MAX_RUNS`]; `bits` ends with a zero word.
fn runs(bits: &[u64]) -> Option<Vec<(u32, u32)>> {
    let mut out = Vec::new();
    let mut open = None;
    for (i, &w) in bits.iter().enumerate() {
        let prev_top = if i == 0 { 0 } else { bits[i - 1] >> 63 };
        let next_low = bits.get(i + 1).map_or(0, |n| n & 1);
        let mut starts = w & !(w << 1 | prev_top);
        let mut ends = w & !(w >> 1 | next_low << 63);
        // Within a word, a run's start comes before its end; a run open from an earlier
        // word ends first.
        loop {
            let (s, e) = (starts.trailing_zeros(), ends.trailing_zeros());
            if s == 64 && e == 64 {
                break;
            }
            let at = |b: u32| (i * 64) as u32 + b;
            if open.is_none() && s < 64 {
                open = Some(at(s));
                starts &= starts - 1;
            } else if let (Some(first), true) = (open, e < 64) {
                if out.len() == MAX_RUNS {
                    return None;
                }
                out.push((first, at(e) - first));
                open = None;
                ends &= ends - 1;
            } else {
                unreachable!("a run ends before it starts");
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    /// A tiny deterministic generator (xorshift) from `seed`.
    fn xorshift(seed: u64) -> impl FnMut() -> u64 {
        let mut x = seed;
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    use super::{join_filter, Test, MISS};

    /// The filter of `lut` as the definition says: no test when every key passes, a
    /// range when the passing keys are contiguous, ranges when they are at most
    /// `MAX_RUNS` runs, else a bitmap of them.
    fn reference(lut: &[u32]) -> (Option<Test>, bool) {
        let hits: Vec<u32> = (0..lut.len() as u32)
            .filter(|&c| lut[c as usize] != MISS)
            .collect();
        let mut runs: Vec<(u32, u32)> = Vec::new();
        for &c in &hits {
            match runs.last_mut() {
                Some((lo, span)) if *lo + *span + 1 == c => *span += 1,
                _ => runs.push((c, 0)),
            }
        }
        let test = match (hits.first(), hits.last()) {
            _ if hits.len() == lut.len() => None,
            (Some(&lo), Some(&hi)) if (hi - lo) as usize + 1 == hits.len() => {
                Some(Test::Range { lo, span: hi - lo })
            }
            _ if runs.len() <= super::MAX_RUNS => Some(Test::Ranges(runs)),
            _ => {
                let mut bits = vec![0u64; lut.len().div_ceil(64) + 1];
                for &c in &hits {
                    bits[c as usize >> 6] |= 1 << (c & 63);
                }
                Some(Test::Bits(bits))
            }
        };
        (test, !hits.is_empty())
    }

    /// A lookup table through row references: a frame is a slice of the codes, a sorted
    /// dictionary one code per reference, the row count (a dangling key) a miss, and a
    /// reference past it refused.
    #[test]
    fn codes_by_row_reads_the_referenced_rows() {
        use super::codes_by_row;
        use pmolap_store::dictionary::IntValues;
        let code = [5, MISS, 7, 8];
        let frame = |min, len| IntValues::Frame { min, len };
        assert_eq!(
            codes_by_row(frame(1, 3), &code, MISS),
            Some(vec![MISS, 7, 8])
        );
        assert_eq!(
            codes_by_row(frame(2, 3), &code, MISS),
            Some(vec![7, 8, MISS])
        );
        assert_eq!(codes_by_row(frame(3, 3), &code, MISS), None);
        let sorted = [0i64, 3, 4];
        assert_eq!(
            codes_by_row(IntValues::Sorted(&sorted), &code, MISS),
            Some(vec![5, 8, MISS])
        );
        assert_eq!(codes_by_row(IntValues::Sorted(&[-1]), &code, MISS), None);
    }

    /// Tuples numbered in the order they first appear among the passing rows, the
    /// others missing: on every density (the branch-free pass and the sparse one), with a
    /// dense key space and with one too large for it (a hash map).
    #[test]
    fn tuples_are_numbered_in_order_of_first_appearance() {
        let mut next = xorshift(0x51_7cc1_b727_220au64);
        for radix in [vec![7u64], vec![3, 5], vec![1 << 12, 1 << 12]] {
            for per_64 in [0u64, 1, 3, 8, 32, 64] {
                let rows = 2_000;
                let ids: Vec<Vec<u32>> = radix
                    .iter()
                    .map(|&r| (0..rows).map(|_| (next() % r.min(9)) as u32).collect())
                    .collect();
                let pass: Vec<bool> = (0..rows).map(|_| next() % 64 < per_64).collect();
                let (code, firsts) = super::number_tuples(&ids, &radix, &pass);
                // By definition: a list of the tuples seen so far.
                let mut seen: Vec<Vec<u32>> = Vec::new();
                let mut want_firsts = Vec::new();
                for r in 0..rows {
                    let t: Vec<u32> = ids.iter().map(|c| c[r]).collect();
                    let want = if !pass[r] {
                        MISS
                    } else if let Some(i) = seen.iter().position(|s| *s == t) {
                        i as u32
                    } else {
                        seen.push(t);
                        want_firsts.push(r);
                        seen.len() as u32 - 1
                    };
                    assert_eq!(code[r], want, "radix {radix:?} density {per_64}/64 row {r}");
                }
                assert_eq!(firsts, want_firsts, "radix {radix:?} density {per_64}/64");
            }
        }
    }

    /// The hull as its definition says, from the list of runs: split at the widest gaps
    /// of more than 64 ids, the earlier of equal ones.
    fn hull_reference(bits: &[u64]) -> Option<Vec<(u32, u32)>> {
        let set: Vec<u32> = (0..bits.len() as u32 * 64)
            .filter(|&b| bits[b as usize >> 6] >> (b & 63) & 1 != 0)
            .collect();
        let mut runs: Vec<(u32, u32)> = Vec::new();
        for &b in &set {
            match runs.last_mut() {
                Some((_, last)) if *last + 1 == b => *last = b,
                _ => runs.push((b, b)),
            }
        }
        if runs.len() <= super::MAX_RUNS {
            return None;
        }
        let mut gaps: Vec<(u32, usize)> = runs
            .windows(2)
            .enumerate()
            .map(|(i, w)| (w[1].0 - w[0].1 - 1, i))
            .filter(|g| g.0 > 64)
            .collect();
        gaps.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut cuts: Vec<usize> = gaps.iter().take(super::MAX_RUNS - 1).map(|g| g.1).collect();
        cuts.sort_unstable();
        let mut out = Vec::new();
        let mut start = 0;
        for c in cuts.into_iter().chain([runs.len() - 1]) {
            out.push((runs[start].0, runs[c].1 - runs[start].0));
            start = c + 1;
        }
        Some(out)
    }

    #[test]
    fn hull_holds_every_bit_and_splits_at_the_widest_gaps() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15u64);
        for words in [1usize, 2, 3, 8, 40] {
            for round in 0..200 {
                // Clusters of bits with gaps of every size, some across word edges.
                let mut bits = vec![0u64; words + 1];
                let n = words * 64;
                let clusters = 1 + next() as usize % 9;
                for _ in 0..clusters {
                    let at = next() as usize % n;
                    let len = 1 + next() as usize % [1, 8, 80][round % 3];
                    for b in at..(at + len).min(n) {
                        if !next().is_multiple_of(4) {
                            bits[b >> 6] |= 1 << (b & 63);
                        }
                    }
                }
                let got = super::hull(&bits);
                assert_eq!(got, hull_reference(&bits), "bits {bits:x?}");
                for r in got.iter().flatten() {
                    assert!(r.0 as usize + (r.1 as usize) < n);
                }
            }
        }
    }

    #[test]
    fn join_filter_matches_its_definition() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1du64);
        for len in [0usize, 1, 2, 63, 64, 65, 127, 128, 129, 1000] {
            // Random densities, then the shapes with edges: none, all, one run, one hole.
            for density in [0u64, 1, 8, 32, 63, 64] {
                let lut: Vec<u32> = (0..len)
                    .map(|_| if next() % 64 < density { 7 } else { MISS })
                    .collect();
                assert_eq!(
                    join_filter(&lut),
                    reference(&lut),
                    "len {len} density {density}"
                );
            }
            for (a, b) in [(0, len), (len / 3, len / 2), (len.saturating_sub(1), len)] {
                let run: Vec<u32> = (0..len)
                    .map(|i| if (a..b).contains(&i) { 0 } else { MISS })
                    .collect();
                assert_eq!(join_filter(&run), reference(&run), "len {len} run {a}..{b}");
                let hole: Vec<u32> = run
                    .iter()
                    .map(|&g| if g == MISS { 0 } else { MISS })
                    .collect();
                assert_eq!(
                    join_filter(&hole),
                    reference(&hole),
                    "len {len} hole {a}..{b}"
                );
            }
            // Every third of n blocks passing: ceil(n / 3) runs, across word edges.
            for blocks in [3usize, 7, 10, 13, 16] {
                let size = (len / blocks).max(1);
                let striped: Vec<u32> = (0..len)
                    .map(|i| if (i / size) % 3 == 0 { 1 } else { MISS })
                    .collect();
                assert_eq!(
                    join_filter(&striped),
                    reference(&striped),
                    "len {len} blocks of {size}"
                );
            }
        }
    }
}
