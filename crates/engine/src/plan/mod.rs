//! Planning: a [`Query`] bound to a [`Database`]. Every predicate becomes a set of value
//! ids of its column's sorted dictionary (a code range, or a bitmap for `in`); every
//! joined dimension becomes a *join filter* keyed by the value id of the fact table's
//! foreign-key column, holding for each id the dimension row's group code (its carried
//! attributes, numbered densely among the passing rows) or "no match". The probe then
//! never touches a dimension: it reads packed fact value ids and small arrays.

mod codes;
mod join;
pub(crate) mod order;

use std::time::Instant;

use pmolap_store::dictionary::IntValues;
use pmolap_store::{ColumnType, Table};

use self::codes::{sample_selectivity, CodeSet};
pub use crate::answer::{Double, JoinReport, OutValue};
use crate::db::Database;
use crate::error::{Error, Result};
use crate::query::{AggFn, Expr, Op, Query};

/// "No match" in a join filter.
pub const MISS: u32 = u32::MAX;

/// A join's group codes by fact value id, in the narrowest integers that hold every code
/// and the miss marker (the type's largest value): the probe looks one up per selected
/// row, at random, so a customer table of 300,000 keys is 300 KB of bytes (in L2) rather
/// than 1.2 MB of `u32`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lut {
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
}

impl Lut {
    /// `codes` (each below `domain`, or [`MISS`]) narrowed to the smallest type whose
    /// largest value (the miss marker) is above every code.
    pub fn narrow(codes: Vec<u32>, domain: usize) -> Lut {
        fn to<T: TryFrom<u32> + Copy>(codes: &[u32], miss: T) -> Vec<T> {
            codes
                .iter()
                .map(|&c| T::try_from(c).ok().filter(|_| c != MISS).unwrap_or(miss))
                .collect()
        }
        if domain <= u8::MAX as usize {
            Lut::U8(to(&codes, u8::MAX))
        } else if domain <= u16::MAX as usize {
            Lut::U16(to(&codes, u16::MAX))
        } else {
            Lut::U32(codes)
        }
    }

    /// The table's bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Lut::U8(l) => l,
            Lut::U16(l) => bytemuck::cast_slice(l),
            Lut::U32(l) => bytemuck::cast_slice(l),
        }
    }

    /// The code of value id `id`, or [`MISS`] (also past the table).
    pub fn code(&self, id: u32) -> u32 {
        let i = id as usize;
        match self {
            Lut::U8(l) => l
                .get(i)
                .filter(|&&c| c != u8::MAX)
                .map_or(MISS, |&c| c.into()),
            Lut::U16(l) => l
                .get(i)
                .filter(|&&c| c != u16::MAX)
                .map_or(MISS, |&c| c.into()),
            Lut::U32(l) => l.get(i).copied().unwrap_or(MISS),
        }
    }
}

/// Largest group domain aggregated in dense per-thread arrays; larger ones use hash tables.
pub const DENSE_GROUPS_MAX: u64 = 1 << 20;

/// A fact column the query reads.
#[derive(Debug)]
pub struct FactCol<'db> {
    pub name: String,
    pub words: &'db [u64],
    pub width: u32,
    /// Integer values by value id: a sorted dictionary or a frame of reference (an empty
    /// dictionary for a string column).
    pub ints: IntValues<'db>,
    /// The store column `words` and `ints` are the raw payloads of: the probe adds its
    /// accesses to its counters when counting is on.
    pub store: &'db pmolap_store::table::Column,
    /// The value id of NULL when the column holds NULLs (one past `ints`).
    pub null_id: Option<u32>,
}

/// How a step tests a value id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Test {
    /// `id - lo <= span` (wrapping): a contiguous set of ids.
    Range { lo: u32, span: u32 },
    /// Bit `id` set.
    Bits(Vec<u64>),
    /// `id - lo <= span` for any `(lo, span)`: a join's passing dimension rows as a few
    /// runs of row references (at most four: `join::MAX_RUNS`).
    Ranges(Vec<(u32, u32)>),
    /// `lut[id]`: the group code, or a miss.
    Lookup(Lut),
    /// The id is the group code (a group-by on a fact column: its ids number its
    /// values); ids from `len` up (none in a sound column) miss.
    Code { len: u32 },
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
    /// A bitmap join's passing rows hemmed in by a few runs: when the order model finds it
    /// cheaper, the probe tests these ranges on the packed words first and the bitmap only
    /// on the rows inside them (None: the bitmap alone).
    pub hull: Option<Hull>,
}

/// At most [`join::MAX_RUNS`] runs of value ids holding every id a bitmap test passes,
/// the fewest ids among such runs: tested first, they leave the bitmap's gathers to the
/// rows inside them (two cities among a customer bitmap that also asks for a market
/// segment: 0.8 % of the fact rows instead of all).
#[derive(Debug, Clone, PartialEq)]
pub struct Hull {
    pub runs: Vec<(u32, u32)>,
    /// Estimated fraction of fact rows inside the runs (from the same sample as the
    /// step's).
    pub selectivity: f64,
}

/// An aggregate over fact columns ([`Plan::cols`] indexes): `func(a)` or `func(a op b)`;
/// a count reads no column (`arg` None) unless its argument may be NULL.
#[derive(Debug, Clone, Copy)]
pub struct AggPlan {
    pub func: AggFn,
    pub arg: Option<(usize, Option<(Op, usize)>)>,
    /// A column of `arg` holds NULLs: the aggregate skips the rows where one is NULL and
    /// keeps its own count of the rows it took (`COUNT(col)`, the divisor of `AVG`; a
    /// group it took none of is NULL).
    pub nullable: bool,
}

/// A source of group-by columns: a joined dimension's carried attributes or a carried
/// fact column, with the values of each tuple code.
#[derive(Debug, Clone)]
pub struct GroupSource<'db> {
    pub columns: Vec<String>,
    pub values: GroupValues<'db>,
    pub stride: u32,
}

/// The values of a [`GroupSource`]'s tuple codes. Both kinds keep value ids and decode
/// them only for the result rows made (and compare them without building strings), so a
/// group-by over a dimension of 750,000 names costs no string per name at planning.
#[derive(Debug, Clone)]
pub enum GroupValues<'db> {
    /// A dimension's carried tuples: `ids[ci][t]` is the value id of carried column
    /// `columns[ci]` in tuple code `t`.
    Tuples {
        columns: Vec<&'db pmolap_store::table::Column>,
        ids: Vec<Vec<u32>>,
    },
    /// A carried fact column: the code is its value id, decoded when a result row is made
    /// (a column of millions of ids is not materialised per id); its NULL id, if any, is
    /// the NULL group.
    Column(&'db pmolap_store::table::Column),
}

impl GroupValues<'_> {
    /// Tuple codes: the source's group domain.
    pub fn len(&self) -> usize {
        match self {
            GroupValues::Tuples { ids, .. } => ids.first().map_or(0, Vec::len),
            GroupValues::Column(c) => c.ids(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Column `ci` of tuple code `t`: its store column and value id.
    fn id(&self, t: usize, ci: usize) -> (&pmolap_store::table::Column, u32) {
        match self {
            GroupValues::Tuples { columns, ids } => (columns[ci], ids[ci][t]),
            GroupValues::Column(c) => (c, t as u32),
        }
    }

    /// Column `ci` of tuple code `t`.
    pub fn value(&self, t: usize, ci: usize) -> OutValue {
        let (c, id) = self.id(t, ci);
        match c.null_id() == Some(id) {
            // GROUP BY a nullable attribute: NULL is a group.
            true => OutValue::Null,
            false => OutValue::from(c.dict.get(id)),
        }
    }

    /// Whether column `ci` of tuple code `t` is NULL.
    pub fn is_null(&self, t: usize, ci: usize) -> bool {
        let (c, id) = self.id(t, ci);
        c.null_id() == Some(id)
    }

    /// Column `ci` of tuple codes `a` and `b` compared as [`GroupValues::value`]'s
    /// results compare ([`OutValue`]'s order: NULL first), without building them: a
    /// dictionary holds each distinct value once, sorted (the order the predicates' value-id
    /// ranges rely on too), so value ids compare as their values; the NULL id is past them.
    pub fn cmp(&self, a: usize, b: usize, ci: usize) -> std::cmp::Ordering {
        use std::cmp::Ordering;
        let ((c, x), (_, y)) = (self.id(a, ci), self.id(b, ci));
        if x == y {
            return Ordering::Equal;
        }
        match c.null_id() {
            Some(n) if x == n => Ordering::Less,
            Some(n) if y == n => Ordering::Greater,
            _ => x.cmp(&y),
        }
    }
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
    pub groups: Vec<GroupSource<'db>>,
    /// Product of the group domains.
    pub group_domain: u64,
    /// A predicate no value satisfies: the result is empty without a scan.
    pub never: bool,
    pub joins: Vec<JoinReport>,
    pub plan_ms: f64,
}

impl Plan<'_> {
    /// Bytes of packed fact data the probe reads: every fact column a step or an
    /// aggregate reads, whole. A join's key column bound but eliminated (every key
    /// passes, nothing carried) is not read and not counted.
    pub fn fact_bytes(&self) -> u64 {
        let mut read = vec![false; self.cols.len()];
        for s in &self.steps {
            read[s.col] = true;
        }
        for (a, b) in self.aggs.iter().filter_map(|a| a.arg) {
            read[a] = true;
            if let Some((_, b)) = b {
                read[b] = true;
            }
        }
        self.cols
            .iter()
            .zip(read)
            .filter(|&(_, r)| r)
            .map(|(c, _)| c.words.len() as u64 * 8)
            .sum()
    }
}

fn qerr(q: &Query, m: String) -> Error {
    Error::Query(format!("query {}: {m}", q.label()))
}

/// A plan under construction: the fact columns bound so far, the probe steps and the
/// group sources (each with the index of the step producing its codes).
struct Planner<'q, 'db> {
    query: &'q Query,
    fact: &'db Table,
    cols: Vec<FactCol<'db>>,
    steps: Vec<Step>,
    /// A predicate no value satisfies.
    never: bool,
    sources: Vec<(GroupSource<'db>, u64)>,
}

/// Binds `query` to `db` (a query naming no fact table to the database's).
pub fn plan<'db>(db: &'db Database, query: &Query) -> Result<Plan<'db>> {
    let t0 = Instant::now();
    let query = db.with_fact(query)?;
    let query = query.as_ref();
    query.validate()?;
    let fact = db.table(&query.fact)?;
    let fact_rows = fact.rows();
    let mut p = Planner {
        query,
        fact,
        cols: Vec::new(),
        steps: Vec::new(),
        never: false,
        sources: Vec::new(),
    };
    p.fact_predicates()?;
    p.carried_fact_columns()?;
    let mut joins = Vec::new();
    for j in &query.joins {
        joins.push(p.join(db, j)?);
    }
    let group_domain = p.group_strides()?;
    let aggs = p.aggregates()?;
    p.order_steps(fact_rows);
    Ok(Plan {
        query: query.clone(),
        fact_rows,
        cols: p.cols,
        steps: p.steps,
        aggs,
        groups: p.sources.into_iter().map(|(s, _)| s).collect(),
        group_domain,
        never: p.never,
        joins,
        plan_ms: t0.elapsed().as_secs_f64() * 1e3,
    })
}

impl<'db> Planner<'_, 'db> {
    /// The index of fact column `name` in [`Plan::cols`], binding it on first use.
    fn col(&mut self, name: &str) -> Result<usize> {
        if let Some(i) = self.cols.iter().position(|c| c.name == name) {
            return Ok(i);
        }
        let c = self.fact_column(name)?;
        self.cols.push(FactCol {
            name: name.to_string(),
            words: c.dv.words(),
            width: c.dv.width(),
            ints: c.dict.ints(),
            store: c,
            null_id: c.null_id(),
        });
        Ok(self.cols.len() - 1)
    }

    /// Fact column `name`, or the error naming the table's columns.
    fn fact_column(&self, name: &str) -> Result<&'db pmolap_store::table::Column> {
        let q = self.query;
        self.fact
            .column(name)
            .map_err(|e| match self.fact.column_type(name) {
                // There, but damaged: its file and the problem.
                Ok(_) => e.into(),
                Err(_) => qerr(
                    q,
                    format!(
                        "fact table `{}` has no column `{name}` (have: {})",
                        q.fact,
                        self.fact.column_names().collect::<Vec<_>>().join(", ")
                    ),
                ),
            })
    }

    /// Fact predicates: value-id sets of the fact columns. A predicate every value
    /// satisfies (`lo_tax >= 0`) is no step.
    fn fact_predicates(&mut self) -> Result<()> {
        let query = self.query;
        for (name, p) in &query.filters {
            let col = self.fact_column(name)?;
            let set = CodeSet::of_column(col, p, &format!("{}.{name}", query.fact))
                .map_err(|e| qerr(query, e.to_string()))?;
            if set.is_full(col.ids()) {
                continue;
            }
            let ci = self.col(name)?;
            self.never |= set.is_empty();
            self.steps.push(Step {
                what: name.clone(),
                col: ci,
                test: set.test(col.ids()),
                stride: 0,
                selectivity: 0.0,
                group_only: false,
                hull: None,
            });
        }
        Ok(())
    }

    /// Carried fact columns: the value id is the group code.
    fn carried_fact_columns(&mut self) -> Result<()> {
        let (query, fact) = (self.query, self.fact);
        for name in &query.carry {
            let ci = self.col(name)?;
            let col = fact.column(name)?;
            // The NULL id (one past the dictionary) is a group too.
            let n = col.ids();
            self.steps.push(Step {
                what: format!("group by {name}"),
                col: ci,
                test: Test::Code { len: n as u32 },
                stride: 0,
                selectivity: 0.0,
                group_only: true,
                hull: None,
            });
            self.sources.push((
                GroupSource {
                    columns: vec![name.clone()],
                    values: GroupValues::Column(col),
                    stride: 0,
                },
                self.steps.len() as u64 - 1,
            ));
        }
        Ok(())
    }

    /// Mixed-radix group ids: source s has stride Π domains before it. Returns the
    /// product of the group domains.
    fn group_strides(&mut self) -> Result<u64> {
        let query = self.query;
        let mut domain: u64 = 1;
        for (src, step) in &mut self.sources {
            src.stride = u32::try_from(domain)
                .map_err(|_| qerr(query, "the group-by domain exceeds 2^32 groups".into()))?;
            self.steps[*step as usize].stride = src.stride;
            domain = domain.saturating_mul(src.values.len().max(1) as u64);
        }
        if domain > u32::MAX as u64 {
            return Err(qerr(
                query,
                format!("the group-by domain ({domain} groups) exceeds 2^32"),
            ));
        }
        Ok(domain)
    }

    /// The aggregates, over bound int fact columns. A count binds no column unless a
    /// column of its argument holds NULLs (its argument's columns must exist; without
    /// NULLs it counts rows).
    fn aggregates(&mut self) -> Result<Vec<AggPlan>> {
        let (query, fact) = (self.query, self.fact);
        let mut aggs = Vec::new();
        for a in &query.aggregates {
            let Some(arg) = &a.arg else {
                aggs.push(AggPlan {
                    func: a.func,
                    arg: None,
                    nullable: false,
                });
                continue;
            };
            for c in arg.columns() {
                if fact.column_type(c).is_err() {
                    // The planner's message names the table's columns.
                    self.col(c)?;
                }
            }
            let has_nulls = |c: &str| fact.column(c).is_ok_and(|col| col.null_id().is_some());
            let nullable = arg.columns().into_iter().any(has_nulls);
            if a.func == AggFn::Count {
                let arg = match (nullable, arg) {
                    (false, _) => None,
                    (true, Expr::Col(c)) => Some((self.col(c)?, None)),
                    (true, Expr::Bin(x, op, y)) => Some((self.col(x)?, Some((*op, self.col(y)?)))),
                };
                aggs.push(AggPlan {
                    func: a.func,
                    arg,
                    nullable,
                });
                continue;
            }
            let mut int_col = |c: &str| -> Result<usize> {
                if fact.column(c).is_ok_and(|col| col.ty() != ColumnType::Int) {
                    return Err(qerr(
                        query,
                        format!(
                            "aggregate `{}` ({}) is over the string column `{c}` (integer columns only)",
                            a.name,
                            a.text()
                        ),
                    ));
                }
                self.col(c)
            };
            let arg = match arg {
                Expr::Col(c) => (int_col(c)?, None),
                Expr::Bin(x, op, y) => (int_col(x)?, Some((*op, int_col(y)?))),
            };
            aggs.push(AggPlan {
                func: a.func,
                arg: Some(arg),
                nullable,
            });
        }
        Ok(aggs)
    }

    /// Order: the filters in the order of least expected probe work (`order.rs`), the
    /// selectivities from a sample of `fact_rows`; then the group-code steps.
    fn order_steps(&mut self, fact_rows: usize) {
        if self.never {
            // Nothing runs: no sample.
            return;
        }
        for s in &mut self.steps {
            let col = &self.cols[s.col];
            s.selectivity = sample_selectivity(col, fact_rows, &s.test);
            if let Some(h) = &mut s.hull {
                h.selectivity = sample_selectivity(col, fact_rows, &Test::Ranges(h.runs.clone()));
            }
        }
        order::order(&mut self.steps);
    }
}

#[cfg(test)]
mod tests {
    use super::{Lut, MISS};

    #[test]
    fn lookup_tables_narrow_to_the_codes_and_keep_misses() {
        for (domain, bytes_each) in [(1, 1), (255, 1), (256, 2), (65_535, 2), (65_536, 4)] {
            let top = domain as u32 - 1;
            let codes = vec![0, MISS, top, top / 2];
            let lut = Lut::narrow(codes.clone(), domain);
            assert_eq!(
                lut.bytes().len(),
                codes.len() * bytes_each,
                "domain {domain}"
            );
            let read: Vec<u32> = (0..5).map(|id| lut.code(id)).collect();
            assert_eq!(read, [0, MISS, top, top / 2, MISS], "domain {domain}");
        }
    }
}
