//! Planning: a [`Query`] bound to a [`Database`]. Every predicate becomes a set of value
//! ids of its column's sorted dictionary (a code range, or a bitmap for `in`); every
//! joined dimension becomes a *join filter* keyed by the value id of the fact table's
//! foreign-key column, holding for each id the dimension row's group code (its carried
//! attributes, numbered densely among the passing rows) or "no match". The probe then
//! never touches a dimension: it reads packed fact value ids and small arrays.

use std::collections::HashMap;
use std::time::Instant;

use pmolap_store::dictionary::Dictionary;
use pmolap_store::table::Column;
use pmolap_store::{bitpack, ColumnType, Table, Value};
use serde::{Deserialize, Serialize};

use crate::db::Database;
use crate::error::{Error, Result};
use crate::joinindex::JoinIndexInfo;
use crate::query::{Expr, Literal, Op, Predicate, Query};

/// "No match" in a join filter.
pub const MISS: u32 = u32::MAX;

/// Largest group domain aggregated in dense per-thread arrays; larger ones use hash tables.
pub const DENSE_GROUPS_MAX: u64 = 1 << 20;

/// A value of a result row.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum OutValue {
    Null,
    Int(i64),
    Str(String),
}

impl From<Value<'_>> for OutValue {
    fn from(v: Value<'_>) -> Self {
        match v {
            Value::Int(i) => OutValue::Int(i),
            Value::Str(s) => OutValue::Str(s.to_string()),
        }
    }
}

/// A fact column the query reads.
#[derive(Debug)]
pub struct FactCol<'db> {
    pub name: String,
    pub words: &'db [u64],
    pub width: u32,
    /// Integer values by value id (empty for a string column).
    pub ints: &'db [i64],
}

/// How a step tests a value id.
#[derive(Debug, Clone)]
pub enum Test {
    /// `id - lo <= span` (wrapping): a contiguous set of ids.
    Range { lo: u32, span: u32 },
    /// Bit `id` set.
    Bits(Vec<u64>),
    /// `lut[id]`: the group code, or [`MISS`].
    Lookup(Vec<u32>),
}

/// One probe step over a fact column: a fact predicate or a join filter.
#[derive(Debug, Clone)]
pub struct Step {
    /// What it is, for reports (`lo_discount`, `join part`).
    pub what: String,
    /// Index into [`Plan::cols`].
    pub col: usize,
    pub test: Test,
    /// Multiplier of this step's group code in the row's group id.
    pub stride: u32,
    /// Estimated fraction of fact rows passing (from a sample of the column).
    pub selectivity: f64,
    /// Only fetches group codes (of rows every filter step has passed): runs last.
    pub group_only: bool,
}

/// `sum(a)` or `sum(a op b)` over fact columns ([`Plan::cols`] indexes).
#[derive(Debug, Clone, Copy)]
pub struct AggPlan {
    pub a: usize,
    pub op: Option<(Op, usize)>,
}

/// A source of group-by columns: a joined dimension's carried attributes or carried fact
/// columns; `tuples[t]` are the values of tuple code `t`.
#[derive(Debug, Clone)]
pub struct GroupSource {
    pub columns: Vec<String>,
    pub tuples: Vec<Vec<OutValue>>,
    pub stride: u32,
}

/// What planning found out about one join, for reports.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JoinReport {
    pub dim: String,
    pub index: JoinIndexInfo,
    /// Set when this query built the index (ms); absent when it was cached.
    pub index_build_ms: Option<f64>,
    pub dim_rows: usize,
    pub dim_rows_passing: usize,
    pub groups: usize,
    /// The filter — `bitmap` (a bit per fact value id), `range` (contiguous value ids) or
    /// none (every key passes) — and `lookup` when group codes are carried; `eliminated`
    /// when the join neither filters nor carries
    /// (every fact key passes and nothing is carried).
    pub filter: String,
    pub filter_bytes: usize,
}

/// A query bound to a database, ready to execute.
#[derive(Debug)]
pub struct Plan<'db> {
    pub query: Query,
    pub fact_rows: usize,
    pub cols: Vec<FactCol<'db>>,
    /// In execution order (most selective first).
    pub steps: Vec<Step>,
    pub aggs: Vec<AggPlan>,
    pub groups: Vec<GroupSource>,
    /// Product of the group domains.
    pub group_domain: u64,
    /// A predicate no value satisfies: the result is empty without a scan.
    pub never: bool,
    pub joins: Vec<JoinReport>,
    pub plan_ms: f64,
}

impl Plan<'_> {
    /// Bytes of packed fact data the probe reads (every fact column used, whole).
    pub fn fact_bytes(&self) -> u64 {
        self.cols.iter().map(|c| c.words.len() as u64 * 8).sum()
    }
}

fn qerr(q: &Query, m: String) -> Error {
    Error::Query(format!("query {}: {m}", q.label()))
}

/// First value id `>= x` (`strict`: `> x`) of a sorted dictionary.
fn bound(dict: &Dictionary, x: &Literal, strict: bool, what: &str) -> Result<u32> {
    let n = dict.len();
    let pp = match (dict.ty(), x) {
        (ColumnType::Int, Literal::Int(v)) => {
            let ints = dict.ints();
            ints.partition_point(|e| if strict { e <= v } else { e < v })
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
struct CodeSet {
    lo: u32,
    hi: u32,
    list: Option<Vec<u32>>,
}

impl CodeSet {
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
        Ok(CodeSet { lo, hi, list })
    }

    fn is_empty(&self) -> bool {
        self.lo >= self.hi || self.list.as_ref().is_some_and(Vec::is_empty)
    }

    fn contains(&self, c: u32) -> bool {
        match &self.list {
            Some(l) => l.binary_search(&c).is_ok(),
            None => c >= self.lo && c < self.hi,
        }
    }

    fn test(&self, dict_len: usize) -> Test {
        match &self.list {
            None => Test::Range {
                lo: self.lo,
                span: self.hi.wrapping_sub(self.lo).wrapping_sub(1),
            },
            Some(l) => {
                let mut bits = vec![0u64; dict_len.div_ceil(64) + 1];
                for &c in l {
                    bits[c as usize >> 6] |= 1 << (c & 63);
                }
                Test::Bits(bits)
            }
        }
    }
}

/// Value ids of every row of a column.
fn all_ids(col: &Column) -> Vec<u32> {
    let mut v = Vec::with_capacity(col.rows());
    col.dv.for_each_block(|_, ids| v.extend_from_slice(ids));
    v
}

#[inline]
pub(crate) fn passes(test: &Test, id: u32) -> bool {
    match test {
        Test::Range { lo, span } => id.wrapping_sub(*lo) <= *span,
        Test::Bits(b) => b[id as usize >> 6] >> (id & 63) & 1 != 0,
        Test::Lookup(l) => l[id as usize] != MISS,
    }
}

/// The fraction of fact rows passing `test`, from an even sample of the column.
fn sample_selectivity(col: &FactCol<'_>, rows: usize, test: &Test) -> f64 {
    const SAMPLES: usize = 4096;
    if rows == 0 {
        return 0.0;
    }
    let n = SAMPLES.min(rows);
    let hits = (0..n)
        .filter(|&i| {
            let row = (i as u128 * rows as u128 / n as u128) as usize;
            passes(test, bitpack::get(col.words, col.width, row))
        })
        .count();
    hits as f64 / n as f64
}

struct Binder<'db> {
    fact: &'db Table,
    cols: Vec<FactCol<'db>>,
}

impl<'db> Binder<'db> {
    fn col(&mut self, q: &Query, name: &str) -> Result<usize> {
        if let Some(i) = self.cols.iter().position(|c| c.name == name) {
            return Ok(i);
        }
        let c = self.fact.column(name).map_err(|_| {
            qerr(
                q,
                format!(
                    "fact table `{}` has no column `{name}` (have: {})",
                    q.fact,
                    self.fact
                        .columns()
                        .iter()
                        .map(|c| c.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?;
        self.cols.push(FactCol {
            name: name.to_string(),
            words: c.dv.words(),
            width: c.dv.width(),
            ints: c.dict.ints(),
        });
        Ok(self.cols.len() - 1)
    }
}

/// Binds `query` to `db`.
pub fn plan<'db>(db: &'db Database, query: &Query) -> Result<Plan<'db>> {
    let t0 = Instant::now();
    query.validate()?;
    let fact = db.table(&query.fact)?;
    let fact_rows = fact.rows();
    let mut b = Binder {
        fact,
        cols: Vec::new(),
    };
    let mut steps: Vec<Step> = Vec::new();
    let mut never = false;
    let mut sources: Vec<(GroupSource, u64)> = Vec::new();

    // Fact predicates: value-id sets of the fact columns.
    for (name, p) in &query.filters {
        let ci = b.col(query, name)?;
        let col = fact.column(name)?;
        let set = CodeSet::of(&col.dict, p, &format!("{}.{name}", query.fact))
            .map_err(|e| qerr(query, e.to_string()))?;
        never |= set.is_empty();
        steps.push(Step {
            what: name.clone(),
            col: ci,
            test: set.test(col.dict.len()),
            stride: 0,
            selectivity: 0.0,
            group_only: false,
        });
    }

    // Carried fact columns: the value id is the group code.
    for name in &query.carry {
        let ci = b.col(query, name)?;
        let col = fact.column(name)?;
        let n = col.dict.len();
        steps.push(Step {
            what: format!("group by {name}"),
            col: ci,
            test: Test::Lookup((0..n as u32).collect()),
            stride: 0,
            selectivity: 0.0,
            group_only: true,
        });
        let tuples = (0..n as u32)
            .map(|c| vec![OutValue::from(col.dict.get(c))])
            .collect();
        sources.push((
            GroupSource {
                columns: vec![name.clone()],
                tuples,
                stride: 0,
            },
            steps.len() as u64 - 1,
        ));
    }

    // Joins: dimension predicates and carried attributes → join filters by fact value id.
    let mut joins = Vec::new();
    for j in &query.joins {
        let dim = db.table(&j.dim).map_err(|e| qerr(query, e.to_string()))?;
        let m = dim.rows();
        let dim_col = |name: &str| {
            dim.column(name).map_err(|_| {
                qerr(
                    query,
                    format!(
                        "dimension `{}` has no column `{name}` (have: {})",
                        j.dim,
                        dim.columns()
                            .iter()
                            .map(|c| c.name())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
            })
        };
        let mut pass = vec![true; m];
        for (name, p) in &j.filters {
            let col = dim_col(name)?;
            let set = CodeSet::of(&col.dict, p, &format!("{}.{name}", j.dim))
                .map_err(|e| qerr(query, e.to_string()))?;
            for (r, id) in all_ids(col).into_iter().enumerate() {
                pass[r] &= set.contains(id);
            }
        }
        // Group codes: carried tuples numbered densely among the passing rows.
        let carried: Vec<&Column> = j.carry.iter().map(|c| dim_col(c)).collect::<Result<_>>()?;
        let carried_ids: Vec<Vec<u32>> = carried.iter().map(|c| all_ids(c)).collect();
        // A tuple's key: its value ids in mixed radix (dictionary sizes), which fits a u64
        // for any realistic carry; the map is skipped when nothing is carried.
        let radix: Vec<u64> = carried.iter().map(|c| c.dict.len().max(1) as u64).collect();
        if radix
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
        let combos: u64 = radix.iter().product();
        // Tuple key → code: a dense array when the key space is small, else a hash map.
        let mut dense_of: Vec<u32> = if combos <= 1 << 20 {
            vec![MISS; combos as usize]
        } else {
            Vec::new()
        };
        let mut tuple_of: HashMap<u64, u32> = HashMap::new();
        let mut tuples: Vec<Vec<OutValue>> = Vec::new();
        let mut code = vec![MISS; m];
        for r in 0..m {
            if !pass[r] {
                continue;
            }
            if carried.is_empty() {
                code[r] = 0;
                continue;
            }
            let key = carried_ids
                .iter()
                .zip(&radix)
                .fold(0u64, |k, (ids, &rad)| k * rad + ids[r] as u64);
            let known = if dense_of.is_empty() {
                tuple_of.get(&key).copied()
            } else {
                Some(dense_of[key as usize]).filter(|&c| c != MISS)
            };
            code[r] = match known {
                Some(c) => c,
                None => {
                    let next = tuples.len() as u32;
                    tuples.push(
                        carried_ids
                            .iter()
                            .zip(&carried)
                            .map(|(ids, c)| OutValue::from(c.dict.get(ids[r])))
                            .collect(),
                    );
                    if dense_of.is_empty() {
                        tuple_of.insert(key, next);
                    } else {
                        dense_of[key as usize] = next;
                    }
                    next
                }
            };
        }
        let dim_rows_passing = pass.iter().filter(|&&p| p).count();
        // The join filter, by value id of the fact foreign key.
        let fk = b.col(query, &j.on.0)?;
        let fk_col = fact.column(&j.on.0)?;
        if fk_col.ty() != ColumnType::Int {
            return Err(qerr(
                query,
                format!("foreign key {}.{} is not an int column", query.fact, j.on.0),
            ));
        }
        let _ = dim_col(&j.on.1)?;
        let (index, built) = db.join_index(&j.dim, &j.on.1, j.index)?;
        let lut: Vec<u32> = fk_col
            .dict
            .ints()
            .iter()
            .map(|&k| index.get(k).map_or(MISS, |r| code[r as usize]))
            .collect();
        let hits: Vec<u32> = (0..lut.len() as u32)
            .filter(|&c| lut[c as usize] != MISS)
            .collect();
        let contiguous = hits
            .first()
            .zip(hits.last())
            .is_some_and(|(a, z)| (z - a) as usize + 1 == hits.len());
        // A join becomes a filter step (unless every fact key passes) and, when it carries
        // attributes, a group-code lookup that runs after every filter, on the few rows
        // left: the filter probes a bit per value id (or a range), not a 32-bit code.
        let all_pass = hits.len() == lut.len();
        let filter_test = if all_pass {
            None
        } else if contiguous {
            let (lo, hi) = (hits[0], hits[hits.len() - 1]);
            Some(Test::Range { lo, span: hi - lo })
        } else {
            let mut bits = vec![0u64; lut.len().div_ceil(64) + 1];
            for &c in &hits {
                bits[c as usize >> 6] |= 1 << (c & 63);
            }
            Some(Test::Bits(bits))
        };
        let filter = match (&filter_test, j.carry.is_empty()) {
            (None, true) => "eliminated",
            (None, false) => "lookup",
            (Some(Test::Range { .. }), true) => "range",
            (Some(Test::Range { .. }), false) => "range + lookup",
            (Some(_), true) => "bitmap",
            (Some(_), false) => "bitmap + lookup",
        };
        never |= hits.is_empty();
        let filter_bytes = match &filter_test {
            Some(Test::Bits(b)) => b.len() * 8,
            _ => 0,
        } + if j.carry.is_empty() { 0 } else { lut.len() * 4 };
        joins.push(JoinReport {
            dim: j.dim.clone(),
            index: index.info(),
            index_build_ms: built,
            dim_rows: m,
            dim_rows_passing,
            groups: tuples.len(),
            filter: filter.to_string(),
            filter_bytes,
        });
        if let Some(test) = filter_test {
            steps.push(Step {
                what: format!("join {}", j.dim),
                col: fk,
                test,
                stride: 0,
                selectivity: 0.0,
                group_only: false,
            });
        }
        if !j.carry.is_empty() {
            steps.push(Step {
                what: format!("groups of {}", j.dim),
                col: fk,
                test: Test::Lookup(lut),
                stride: 0,
                selectivity: 0.0,
                group_only: true,
            });
            sources.push((
                GroupSource {
                    columns: j.carry.clone(),
                    tuples,
                    stride: 0,
                },
                steps.len() as u64 - 1,
            ));
        }
    }

    // Mixed-radix group ids: source s has stride Π domains before it.
    let mut domain: u64 = 1;
    for (src, step) in &mut sources {
        src.stride = u32::try_from(domain)
            .map_err(|_| qerr(query, "the group-by domain exceeds 2^32 groups".into()))?;
        steps[*step as usize].stride = src.stride;
        domain = domain.saturating_mul(src.tuples.len().max(1) as u64);
    }
    if domain > u32::MAX as u64 {
        return Err(qerr(
            query,
            format!("the group-by domain ({domain} groups) exceeds 2^32"),
        ));
    }

    // Aggregates.
    let mut aggs = Vec::new();
    for a in &query.aggregates {
        let mut int_col = |c: &str| -> Result<usize> {
            if fact.column(c).is_ok_and(|col| col.ty() != ColumnType::Int) {
                return Err(qerr(
                    query,
                    format!("aggregate `{}` sums the string column `{c}`", a.name),
                ));
            }
            b.col(query, c)
        };
        let plan = match &a.sum {
            Expr::Col(c) => AggPlan {
                a: int_col(c)?,
                op: None,
            },
            Expr::Bin(x, op, y) => AggPlan {
                a: int_col(x)?,
                op: Some((*op, int_col(y)?)),
            },
        };
        aggs.push(plan);
    }

    // Order: filters most selective first, then the group-code lookups.
    for s in &mut steps {
        s.selectivity = sample_selectivity(&b.cols[s.col], fact_rows, &s.test);
    }
    steps.sort_by(|x, y| {
        (x.group_only, x.selectivity)
            .partial_cmp(&(y.group_only, y.selectivity))
            .unwrap_or(std::cmp::Ordering::Equal)
    });

    Ok(Plan {
        query: query.clone(),
        fact_rows,
        cols: b.cols,
        steps,
        aggs,
        groups: sources.into_iter().map(|(s, _)| s).collect(),
        group_domain: domain,
        never,
        joins,
        plan_ms: t0.elapsed().as_secs_f64() * 1e3,
    })
}
