//! The random star schema (dense and sparse dimension keys, int and string columns) and
//! the random star-join queries over it that the engine's integration tests share.
// Each test file uses its own subset of these.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;

use pmolap_engine::query::{
    AggFn, Aggregate, Cond, Expr, IndexChoice, Join, Literal, Op, OrderKey, Predicate,
};
use pmolap_engine::{OutValue, Query};
use pmolap_store::rowref::row_refs;
use pmolap_store::{
    ColumnType, DatabaseWriter, DbWriteOptions, RowRef, Schema, TableBuilder, Value, WriteOptions,
};

/// A tiny deterministic generator (xorshift).
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum V {
    I(i64),
    S(String),
}

impl V {
    pub fn out(&self) -> OutValue {
        match self {
            V::I(i) => OutValue::Int(*i),
            V::S(s) => OutValue::Str(s.clone()),
        }
    }
}

/// Column-major data of one table, with its schema.
pub struct Data {
    pub cols: Vec<(String, Vec<V>)>,
}

impl Data {
    pub fn col(&self, name: &str) -> &[V] {
        &self.cols.iter().find(|(n, _)| n == name).unwrap().1
    }
    pub fn rows(&self) -> usize {
        self.cols[0].1.len()
    }
    pub fn builder(&self) -> TableBuilder {
        let schema = Schema::new(self.cols.iter().map(|(n, v)| {
            (
                n.clone(),
                match v[0] {
                    V::I(_) => ColumnType::Int,
                    V::S(_) => ColumnType::Str,
                },
            )
        }))
        .unwrap();
        let mut b = TableBuilder::new(schema);
        for r in 0..self.rows() {
            let row: Vec<Value<'_>> = self
                .cols
                .iter()
                .map(|(_, v)| match &v[r] {
                    V::I(i) => Value::Int(*i),
                    V::S(s) => Value::Str(s),
                })
                .collect();
            b.push_row(&row).unwrap();
        }
        b
    }
}

pub const NAMES: [&str; 6] = ["ANT", "BEE", "CAT", "DOG", "EEL", "FOX"];

/// A random star schema written to `dir`; `dictionary_only`: no frame-of-reference int
/// columns (by default the dense int columns `f_x`, `f_y` and the keys are frames).
pub fn star(
    rng: &mut Rng,
    dir: &Path,
    fact_rows: usize,
    dictionary_only: bool,
) -> BTreeMap<String, Data> {
    star_sized(rng, dir, fact_rows, dictionary_only, 300)
}

/// [`star`] with `n_a` rows in dimension `a` (300 there: its join bitmaps fit in
/// registers; thousands make them gathered from memory).
pub fn star_sized(
    rng: &mut Rng,
    dir: &Path,
    fact_rows: usize,
    dictionary_only: bool,
    n_a: i64,
) -> BTreeMap<String, Data> {
    let mut db = BTreeMap::new();
    // dim a: dense keys 1..=n_a, a string and an int attribute.
    db.insert(
        "a".to_string(),
        Data {
            cols: vec![
                ("a_key".into(), (1..=n_a).map(V::I).collect()),
                (
                    "a_name".into(),
                    (0..n_a)
                        .map(|_| V::S(NAMES[rng.below(6) as usize].into()))
                        .collect(),
                ),
                (
                    "a_grp".into(),
                    (0..n_a).map(|_| V::I(rng.below(9) as i64 + 1990)).collect(),
                ),
            ],
        },
    );
    // dim b: sparse keys (a hash join index under auto), one string attribute.
    let n_b = 150;
    db.insert(
        "b".to_string(),
        Data {
            cols: vec![
                (
                    "b_key".into(),
                    (0..n_b).map(|i| V::I(i * 1_000_003 + 7)).collect(),
                ),
                (
                    "b_city".into(),
                    (0..n_b)
                        .map(|_| V::S(format!("C{}", rng.below(12))))
                        .collect(),
                ),
            ],
        },
    );
    let a_keys: Vec<i64> = (1..=n_a).collect();
    let b_keys: Vec<i64> = (0..n_b).map(|i| i * 1_000_003 + 7).collect();
    db.insert(
        "fact".to_string(),
        Data {
            cols: vec![
                (
                    "f_a".into(),
                    // Some keys miss the dimension (inner-join semantics drop the row).
                    (0..fact_rows)
                        .map(|_| {
                            if rng.below(50) == 0 {
                                V::I(10_000)
                            } else {
                                V::I(a_keys[rng.below(a_keys.len() as u64) as usize])
                            }
                        })
                        .collect(),
                ),
                (
                    "f_b".into(),
                    (0..fact_rows)
                        .map(|_| V::I(b_keys[rng.below(b_keys.len() as u64) as usize]))
                        .collect(),
                ),
                (
                    "f_x".into(),
                    (0..fact_rows)
                        .map(|_| V::I(rng.below(100) as i64 - 20))
                        .collect(),
                ),
                (
                    "f_y".into(),
                    (0..fact_rows)
                        .map(|_| V::I(rng.below(1000) as i64))
                        .collect(),
                ),
                (
                    "f_mode".into(),
                    (0..fact_rows)
                        .map(|_| V::S(["AIR", "RAIL", "SHIP"][rng.below(3) as usize].into()))
                        .collect(),
                ),
            ],
        },
    );
    // One database: the dimensions stored in the order of an attribute (so predicates on
    // it select runs of rows), the fact with a row-reference column per foreign key
    // (which `auto` joins through; dense, hash and dash use the key and an index).
    let opts = WriteOptions {
        dictionary_only,
        ..WriteOptions::default()
    };
    let dims = [
        ("f_a", "a", "a_key", ["a_name", "a_grp", "a_key"].as_slice()),
        ("f_b", "b", "b_key", ["b_city", "b_key"].as_slice()),
    ];
    let dims = dims.map(|(fk, dim, key, order)| (fk, dim, key, order, db[dim].builder()));
    write_star(dir, dims.into(), db["fact"].builder(), &opts);
    db
}

/// Writes a star database in `dir`: each dimension `(fact key, name, key, order,
/// rows)` stored sorted by `order`, and the fact `fact` (a table named `fact`) with a
/// row-reference column per dimension (a key no dimension row has — a NULL's
/// placeholder too — refers to the row count).
pub fn write_star(
    dir: &Path,
    dims: Vec<(&str, &str, &str, &[&str], TableBuilder)>,
    mut fact: TableBuilder,
    opts: &WriteOptions,
) {
    let mut w = DatabaseWriter::begin(dir, &DbWriteOptions::default()).unwrap();
    let mut refs = Vec::new();
    for (fk, dim, key, order, mut b) in dims {
        b.sort_rows_by(order).unwrap();
        let keys = b.int_column(key).unwrap().to_vec();
        w.add_table(dim, b, opts).unwrap();
        let r = row_refs(fact.int_column(fk).unwrap(), &keys).unwrap();
        fact.add_int_column(&RowRef::column_name(fk, dim), r)
            .unwrap();
        refs.push(RowRef {
            table: "fact".into(),
            key: fk.to_string(),
            column: RowRef::column_name(fk, dim),
            dim: dim.to_string(),
            dim_key: key.to_string(),
            order: order.iter().map(|c| c.to_string()).collect(),
        });
    }
    w.add_table("fact", fact, opts).unwrap();
    for r in refs {
        w.add_row_ref(r).unwrap();
    }
    w.commit().unwrap();
}

/// The state a group of aggregate `f` starts with.
pub fn agg_init(f: AggFn) -> i64 {
    match f {
        AggFn::Min => i64::MAX,
        AggFn::Max => i64::MIN,
        _ => 0,
    }
}

/// Folds `v` into state `st` of aggregate `f` (a count keeps no state).
pub fn agg_fold(f: AggFn, st: &mut i64, v: i64) {
    match f {
        AggFn::Sum | AggFn::Avg => *st += v,
        AggFn::Min => *st = (*st).min(v),
        AggFn::Max => *st = (*st).max(v),
        AggFn::Count => {}
    }
}

/// A group's select-list row: its key values (the carried columns, in select order) and
/// each aggregate from `agg(i)` = (rows it took, state) — see [`group_cols_row`].
pub fn group_row(
    q: &Query,
    key: Vec<OutValue>,
    agg: impl Fn(usize) -> (i64, i64),
) -> Vec<OutValue> {
    let keyed: Vec<&String> = q
        .select
        .iter()
        .filter(|s| !q.aggregates.iter().any(|a| &a.name == *s))
        .collect();
    let cols: Vec<&String> = q.select.iter().collect();
    group_cols_row(
        q,
        &cols,
        |s| key[keyed.iter().position(|k| *k == s).unwrap()].clone(),
        agg,
    )
}

/// A group's row over `cols` (the select list, then ORDER BY keys not selected): a
/// carried column's value from `key(name)`, each aggregate from `agg(i)` = (rows it
/// took, state) — a count is its rows, an aggregate of no rows NULL, an average the
/// state over the rows.
pub fn group_cols_row(
    q: &Query,
    cols: &[&String],
    key: impl Fn(&str) -> OutValue,
    agg: impl Fn(usize) -> (i64, i64),
) -> Vec<OutValue> {
    cols.iter()
        .map(|s| match q.aggregates.iter().position(|a| &a.name == *s) {
            Some(ai) => {
                let (n, st) = agg(ai);
                match q.aggregates[ai].func {
                    AggFn::Count => OutValue::Int(n),
                    _ if n == 0 => OutValue::Null,
                    AggFn::Avg => OutValue::Float(pmolap_engine::Double(st as f64 / n as f64)),
                    _ => OutValue::Int(st),
                }
            }
            None => key(s),
        })
        .collect()
}

pub fn lit(v: &V) -> Literal {
    match v {
        V::I(i) => Literal::Int(*i),
        V::S(s) => Literal::Str(s.clone()),
    }
}

pub fn random_pred(rng: &mut Rng, values: &[V]) -> Predicate {
    let pick = |rng: &mut Rng| values[rng.below(values.len() as u64) as usize].clone();
    let mut p = Predicate::default();
    match rng.below(11) {
        9 => p.not_in = Some((0..1 + rng.below(3)).map(|_| lit(&pick(rng))).collect()),
        10 => {
            let (x, y) = (lit(&pick(rng)), lit(&pick(rng)));
            p.not_between = Some((x, y));
            if rng.below(2) == 0 {
                p.ne = Some(lit(&pick(rng)));
            }
        }
        0 => p.eq = Some(lit(&pick(rng))),
        1 => p.one_of = Some((0..1 + rng.below(3)).map(|_| lit(&pick(rng))).collect()),
        2 => {
            let (x, y) = (lit(&pick(rng)), lit(&pick(rng)));
            p.between = Some((x, y));
        }
        3 => p.lt = Some(lit(&pick(rng))),
        4 => p.le = Some(lit(&pick(rng))),
        5 => p.gt = Some(lit(&pick(rng))),
        6 => p.ne = Some(lit(&pick(rng))),
        7 => {
            p.one_of = Some((0..2 + rng.below(3)).map(|_| lit(&pick(rng))).collect());
            p.ne = Some(lit(&pick(rng)));
        }
        _ => {
            p.ge = Some(lit(&pick(rng)));
            p.le = Some(lit(&pick(rng)));
        }
    }
    p
}

/// A random query; `classic`: the aggregates are `s1 = sum(f_x)`, `s2 = sum(f_x op f_y)`
/// (what the access-count test expects), else 1 to 4 random aggregates.
pub fn random_query(rng: &mut Rng, db: &BTreeMap<String, Data>, i: usize, classic: bool) -> Query {
    let fact = &db["fact"];
    let mut filters = BTreeMap::new();
    for c in ["f_x", "f_mode"] {
        if rng.below(2) == 0 {
            filters.insert(c.to_string(), random_pred(rng, fact.col(c)));
        }
    }
    let mut joins = Vec::new();
    let mut select = Vec::new();
    let mut carry_fact = Vec::new();
    if rng.below(3) == 0 {
        carry_fact.push("f_mode".to_string());
        filters.remove("f_mode");
        select.push("f_mode".to_string());
    }
    for (dim, fk, key, attrs) in [
        ("a", "f_a", "a_key", vec!["a_name", "a_grp"]),
        ("b", "f_b", "b_key", vec!["b_city"]),
    ] {
        if rng.below(4) == 0 {
            continue;
        }
        let mut jf = BTreeMap::new();
        let mut carry = Vec::new();
        for at in attrs {
            match rng.below(3) {
                0 => {
                    jf.insert(at.to_string(), random_pred(rng, db[dim].col(at)));
                }
                1 => carry.push(at.to_string()),
                _ => {}
            }
        }
        select.extend(carry.iter().cloned());
        // An OR across the dimension's columns (a, a dimension of two attributes), now
        // and then.
        let mut conditions = Vec::new();
        if !classic && dim == "a" && rng.below(3) == 0 {
            let one = |rng: &mut Rng, col: &str| {
                Cond::Where([(col.to_string(), random_pred(rng, db[dim].col(col)))].into())
            };
            let alt = Cond::All(vec![one(rng, "a_grp"), one(rng, "a_name")]);
            conditions.push(Cond::Any(vec![one(rng, "a_name"), one(rng, "a_grp"), alt]));
        }
        joins.push(Join {
            dim: dim.into(),
            on: (fk.into(), key.into()),
            filters: jf,
            conditions,
            carry,
            index: [
                IndexChoice::Auto,
                IndexChoice::Dense,
                IndexChoice::Hash,
                IndexChoice::Dash,
            ][rng.below(4) as usize],
        });
    }
    let ops = [Op::Add, Op::Sub, Op::Mul];
    let aggregates = if classic {
        vec![
            Aggregate::sum("s1", Expr::Col("f_x".into())),
            Aggregate::sum(
                "s2",
                Expr::Bin("f_x".into(), ops[rng.below(3) as usize], "f_y".into()),
            ),
        ]
    } else {
        let funcs = [AggFn::Sum, AggFn::Count, AggFn::Min, AggFn::Max, AggFn::Avg];
        (0..1 + rng.below(4))
            .map(|k| {
                let func = funcs[rng.below(5) as usize];
                let arg = match rng.below(5) {
                    0 if func == AggFn::Count => None,
                    0 | 1 => Some(Expr::Col("f_x".into())),
                    2 => Some(Expr::Col("f_y".into())),
                    _ => Some(Expr::Bin(
                        "f_x".into(),
                        ops[rng.below(3) as usize],
                        "f_y".into(),
                    )),
                };
                Aggregate {
                    name: format!("a{k}"),
                    func,
                    arg,
                }
            })
            .collect()
    };
    let mut aggregates = aggregates;
    select.extend(aggregates.iter().map(|a| a.name.clone()));
    let mut order_by: Vec<OrderKey> = select
        .iter()
        .map(|s| OrderKey {
            name: s.clone(),
            desc: rng.below(2) == 0,
        })
        .collect();
    // Not classic: now and then a group-by column or an aggregate only ordered by (first),
    // not selected.
    if !classic && rng.below(3) == 0 && select.len() > 1 {
        let name = select[0].clone();
        if !aggregates.iter().any(|a| a.name == name) {
            select.remove(0);
        }
    }
    if !classic && rng.below(3) == 0 {
        aggregates.push(Aggregate {
            name: "hidden".into(),
            func: [AggFn::Max, AggFn::Sum, AggFn::Count][rng.below(3) as usize],
            arg: Some(Expr::Col("f_y".into())),
        });
        order_by.insert(
            0,
            OrderKey {
                name: "hidden".into(),
                desc: rng.below(2) == 0,
            },
        );
    }
    Query {
        id: format!("r{i}"),
        fact: "fact".into(),
        filters,
        joins,
        carry: carry_fact,
        aggregates,
        select,
        aliases: Default::default(),
        order_by,
        limit: if rng.below(4) == 0 { Some(3) } else { None },
    }
}

pub fn cmp_v(a: &V, b: &Literal) -> std::cmp::Ordering {
    match (a, b) {
        (V::I(x), Literal::Int(y)) => x.cmp(y),
        (V::S(x), Literal::Str(y)) => x.as_str().cmp(y.as_str()),
        _ => panic!("type mismatch in test"),
    }
}

/// Whether the (not NULL) value `v` satisfies `p` (`IS NULL` it does not).
pub fn holds(p: &Predicate, v: &V) -> bool {
    use std::cmp::Ordering::*;
    p.is_null != Some(true)
        && p.eq.as_ref().is_none_or(|x| cmp_v(v, x) == Equal)
        && p.one_of
            .as_ref()
            .is_none_or(|l| l.iter().any(|x| cmp_v(v, x) == Equal))
        && p.between
            .as_ref()
            .is_none_or(|(a, b)| cmp_v(v, a) != Less && cmp_v(v, b) != Greater)
        && p.lt.as_ref().is_none_or(|x| cmp_v(v, x) == Less)
        && p.le.as_ref().is_none_or(|x| cmp_v(v, x) != Greater)
        && p.gt.as_ref().is_none_or(|x| cmp_v(v, x) == Greater)
        && p.ge.as_ref().is_none_or(|x| cmp_v(v, x) != Less)
        && p.ne.as_ref().is_none_or(|x| cmp_v(v, x) != Equal)
        && p.not_in
            .as_ref()
            .is_none_or(|l| l.iter().all(|x| cmp_v(v, x) != Equal))
        && p.not_between
            .as_ref()
            .is_none_or(|(a, b)| cmp_v(v, a) == Less || cmp_v(v, b) == Greater)
}
