//! Guards the engine's NULL semantics (DuckDB's): random star-join queries over a star
//! whose fact has a nullable foreign key and nullable measures (a frame, a sparse
//! dictionary, a string) and whose dimension has nullable attributes must equal a naive
//! row-at-a-time evaluation in which a NULL foreign key joins nothing, SUM / MIN / MAX /
//! AVG / COUNT(col) skip NULLs and COUNT(*) does not, an aggregate of only NULLs is NULL,
//! `IS [NOT] NULL` selects, a comparison with NULL is not true and GROUP BY makes a
//! NULL group — under several execution variants (threads, morsel sizes, hash
//! aggregation, dense and hash join indexes and row references).

mod star;

use std::collections::BTreeMap;

use pmolap_engine::query::{AggFn, Aggregate, Expr, IndexChoice, Join, Op, OrderKey, Predicate};
use pmolap_engine::{run_query, Database, ExecOptions, Layout, OutValue, Query, StripedFact};
use pmolap_store::table::OpenOptions;
use pmolap_store::{ColumnType, Placement, Schema, TableBuilder, Value, WriteOptions};
use pmolap_tier::{Pinning, RegionOptions, Topology};

use star::{agg_fold, agg_init, group_row, holds as holds_value, lit, write_star, Rng, V};

/// A value; None is NULL.
type Cell = Option<V>;

/// The output value of a cell.
fn out(c: &Cell) -> OutValue {
    c.as_ref().map_or(OutValue::Null, V::out)
}

struct Data {
    cols: Vec<(String, ColumnType, Vec<Cell>)>,
}

impl Data {
    fn col(&self, name: &str) -> &[Cell] {
        &self.cols.iter().find(|c| c.0 == name).unwrap().2
    }
    fn rows(&self) -> usize {
        self.cols[0].2.len()
    }
    fn builder(&self) -> TableBuilder {
        let schema = Schema::new(self.cols.iter().map(|(n, t, _)| (n.clone(), *t))).unwrap();
        let mut b = TableBuilder::new(schema);
        for (i, (_, _, vals)) in self.cols.iter().enumerate() {
            for v in vals {
                match v {
                    None => b.push_null(i).unwrap(),
                    Some(V::I(x)) => b.push_value(i, Value::Int(*x)).unwrap(),
                    Some(V::S(s)) => b.push_value(i, Value::Str(s)).unwrap(),
                }
            }
        }
        b
    }
}

fn maybe(rng: &mut Rng, one_in: u64, v: V) -> Cell {
    (rng.below(one_in) != 0).then_some(v)
}

const CATS: [&str; 4] = ["A", "B", "C", "D"];

/// The star: dimension `d` (dense keys, nullable `d_cat` and `d_num`), dimension `e`
/// (sparse keys), and the fact with a nullable key into `d`, nullable `f_x` (a frame),
/// `f_y` (a sparse dictionary) and `f_s` (strings), and `f_z` without NULLs.
fn star(rng: &mut Rng, dir: &std::path::Path, rows: usize) -> BTreeMap<String, Data> {
    let n_d = 40i64;
    let n_e = 30i64;
    let mut db = BTreeMap::new();
    db.insert(
        "d".to_string(),
        Data {
            cols: vec![
                (
                    "d_key".into(),
                    ColumnType::Int,
                    (1..=n_d).map(|k| Some(V::I(k))).collect(),
                ),
                (
                    "d_cat".into(),
                    ColumnType::Str,
                    (0..n_d)
                        .map(|_| {
                            let v = V::S(CATS[rng.below(4) as usize].into());
                            maybe(rng, 5, v)
                        })
                        .collect(),
                ),
                (
                    "d_num".into(),
                    ColumnType::Int,
                    (0..n_d)
                        .map(|_| {
                            let v = V::I(rng.below(6) as i64);
                            maybe(rng, 4, v)
                        })
                        .collect(),
                ),
            ],
        },
    );
    let e_keys: Vec<i64> = (0..n_e).map(|i| i * 1_000_003 + 11).collect();
    db.insert(
        "e".to_string(),
        Data {
            cols: vec![
                (
                    "e_key".into(),
                    ColumnType::Int,
                    e_keys.iter().map(|&k| Some(V::I(k))).collect(),
                ),
                (
                    "e_city".into(),
                    ColumnType::Str,
                    (0..n_e)
                        .map(|_| Some(V::S(format!("C{}", rng.below(5)))))
                        .collect(),
                ),
            ],
        },
    );
    let mut col = |name: &str, ty, f: &mut dyn FnMut(&mut Rng) -> Cell| {
        (
            name.to_string(),
            ty,
            (0..rows).map(|_| f(rng)).collect::<Vec<_>>(),
        )
    };
    let fact = Data {
        cols: vec![
            col("f_d", ColumnType::Int, &mut |r| {
                let k = r.below(n_d as u64) as i64 + 1;
                maybe(r, 6, V::I(k))
            }),
            col("f_e", ColumnType::Int, &mut |r| {
                Some(V::I(e_keys[r.below(n_e as u64) as usize]))
            }),
            col("f_x", ColumnType::Int, &mut |r| {
                let v = r.below(50) as i64 - 10;
                maybe(r, 4, V::I(v))
            }),
            col("f_y", ColumnType::Int, &mut |r| {
                let v = r.below(30) as i64 * 1_000_000_007;
                maybe(r, 3, V::I(v))
            }),
            col("f_s", ColumnType::Str, &mut |r| {
                let v = V::S(["AIR", "RAIL", "SHIP"][r.below(3) as usize].into());
                maybe(r, 5, v)
            }),
            col("f_z", ColumnType::Int, &mut |r| {
                Some(V::I(r.below(7) as i64 + 1))
            }),
        ],
    };
    db.insert("fact".to_string(), fact);
    // A NULL key's placeholder (0) is no key: its reference is the row count.
    let dims = [
        ("f_d", "d", "d_key", ["d_cat", "d_key"].as_slice()),
        ("f_e", "e", "e_key", ["e_city", "e_key"].as_slice()),
    ]
    .map(|(fk, dim, key, order)| (fk, dim, key, order, db[dim].builder()));
    write_star(
        dir,
        dims.into(),
        db["fact"].builder(),
        &WriteOptions::default(),
    );
    db
}

/// Whether `c` satisfies `p`: a NULL satisfies `IS NULL` alone (every comparison with
/// NULL is not true).
fn holds(p: &Predicate, c: &Cell) -> bool {
    let Some(v) = c else {
        let others = Predicate {
            is_null: None,
            ..p.clone()
        };
        return p.is_null == Some(true) && others == Predicate::default();
    };
    holds_value(p, v)
}

/// A random predicate on a column of `values`.
fn pred(rng: &mut Rng, values: &[Cell]) -> Predicate {
    let some: Vec<&V> = values.iter().flatten().collect();
    let v = lit(some[rng.below(some.len() as u64) as usize]);
    let mut p = Predicate::default();
    match rng.below(8) {
        0 | 1 => p.is_null = Some(true),
        2 => p.is_null = Some(false),
        3 => p.eq = Some(v),
        4 => p.ne = Some(v),
        5 => p.gt = Some(v),
        6 => p.one_of = Some(vec![v, lit(some[0])]),
        _ => {
            // IS NULL and a bound: nothing.
            p.is_null = Some(true);
            p.lt = Some(v);
        }
    }
    p
}

fn random_query(rng: &mut Rng, db: &BTreeMap<String, Data>, i: usize) -> Query {
    let fact = &db["fact"];
    let mut filters = BTreeMap::new();
    for c in ["f_x", "f_y", "f_s", "f_d"] {
        if rng.below(4) == 0 {
            filters.insert(c.to_string(), pred(rng, fact.col(c)));
        }
    }
    let index = [IndexChoice::Auto, IndexChoice::Dense, IndexChoice::Hash][rng.below(3) as usize];
    let mut joins = Vec::new();
    let mut select = Vec::new();
    if rng.below(3) != 0 {
        let d = &db["d"];
        let mut j = Join {
            dim: "d".into(),
            on: ("f_d".into(), "d_key".into()),
            filters: BTreeMap::new(),
            conditions: Vec::new(),
            carry: Vec::new(),
            index,
        };
        for c in ["d_cat", "d_num"] {
            if rng.below(3) == 0 {
                j.filters.insert(c.to_string(), pred(rng, d.col(c)));
            }
            if rng.below(3) == 0 {
                j.carry.push(c.to_string());
            }
        }
        select.extend(j.carry.clone());
        joins.push(j);
    }
    if rng.below(3) == 0 {
        let mut j = Join {
            dim: "e".into(),
            on: ("f_e".into(), "e_key".into()),
            filters: BTreeMap::new(),
            conditions: Vec::new(),
            carry: Vec::new(),
            index,
        };
        if rng.below(2) == 0 {
            j.carry.push("e_city".into());
        }
        select.extend(j.carry.clone());
        joins.push(j);
    }
    let mut carry = Vec::new();
    if rng.below(4) == 0 {
        carry.push(["f_s", "f_x"][rng.below(2) as usize].to_string());
    }
    select.extend(carry.clone());
    let args: [(AggFn, Option<&str>); 12] = [
        (AggFn::Count, None),
        (AggFn::Count, Some("f_x")),
        (AggFn::Count, Some("f_s")),
        (AggFn::Sum, Some("f_x")),
        (AggFn::Sum, Some("f_y")),
        (AggFn::Min, Some("f_x")),
        (AggFn::Max, Some("f_y")),
        (AggFn::Avg, Some("f_x")),
        (AggFn::Sum, Some("f_x * f_z")),
        (AggFn::Max, Some("f_x + f_y")),
        (AggFn::Count, Some("f_x * f_y")),
        (AggFn::Sum, Some("f_z")),
    ];
    let mut aggregates = Vec::new();
    for (k, (func, arg)) in args.iter().enumerate() {
        if rng.below(3) == 0 || (k == 11 && aggregates.is_empty()) {
            let name = format!("a{k}");
            aggregates.push(Aggregate {
                name: name.clone(),
                func: *func,
                arg: arg.map(|t| t.parse::<Expr>().unwrap()),
            });
            select.push(name);
        }
    }
    let order_by = select
        .iter()
        .take(1)
        .map(|n| OrderKey {
            name: n.clone(),
            desc: rng.below(2) == 0,
        })
        .collect();
    Query {
        id: format!("n{i}"),
        fact: "fact".into(),
        filters,
        joins,
        carry,
        aggregates,
        select,
        aliases: Default::default(),
        order_by,
        limit: None,
    }
}

/// Row-at-a-time evaluation with SQL's NULL semantics.
fn naive(db: &BTreeMap<String, Data>, q: &Query) -> Vec<Vec<OutValue>> {
    let fact = &db["fact"];
    let n = q.aggregates.len();
    // Per group: rows, and per aggregate the rows taken and the state.
    type Totals = (i64, Vec<(i64, i64)>);
    let mut groups: BTreeMap<Vec<OutValue>, Totals> = BTreeMap::new();
    'rows: for r in 0..fact.rows() {
        for (c, p) in &q.filters {
            if !holds(p, &fact.col(c)[r]) {
                continue 'rows;
            }
        }
        let mut key: BTreeMap<String, OutValue> = BTreeMap::new();
        for c in &q.carry {
            key.insert(c.clone(), out(&fact.col(c)[r]));
        }
        for j in &q.joins {
            let d = &db[&j.dim];
            // A NULL key joins nothing.
            let Some(fk) = &fact.col(&j.on.0)[r] else {
                continue 'rows;
            };
            let Some(dr) = d.col(&j.on.1).iter().position(|k| k.as_ref() == Some(fk)) else {
                continue 'rows;
            };
            for (c, p) in &j.filters {
                if !holds(p, &d.col(c)[dr]) {
                    continue 'rows;
                }
            }
            for c in &j.carry {
                key.insert(c.clone(), out(&d.col(c)[dr]));
            }
        }
        let get = |c: &str| match &fact.col(c)[r] {
            None => None,
            Some(V::I(i)) => Some(*i),
            Some(V::S(_)) => Some(0),
        };
        let val = |e: &Expr| -> Option<i64> {
            match e {
                Expr::Col(c) => get(c),
                Expr::Bin(a, op, b) => {
                    let (a, b) = (get(a)?, get(b)?);
                    Some(match op {
                        Op::Add => a + b,
                        Op::Sub => a - b,
                        Op::Mul => a * b,
                    })
                }
            }
        };
        let k: Vec<OutValue> = q
            .select
            .iter()
            .filter_map(|s| key.get(s).cloned())
            .collect();
        let g = groups.entry(k).or_insert_with(|| {
            let init = |a: &Aggregate| (0, agg_init(a.func));
            (0, q.aggregates.iter().map(init).collect())
        });
        g.0 += 1;
        for ((took, st), a) in g.1.iter_mut().zip(&q.aggregates) {
            let v = match &a.arg {
                None => 0,
                Some(e) => match val(e) {
                    Some(v) => v,
                    None => continue,
                },
            };
            *took += 1;
            agg_fold(a.func, st, v);
        }
    }
    let grouped = !q.carry.is_empty() || q.joins.iter().any(|j| !j.carry.is_empty());
    if !grouped && groups.is_empty() {
        groups.insert(Vec::new(), (0, vec![(0, 0); n]));
    }
    let mut rows: Vec<Vec<OutValue>> = groups
        .into_iter()
        .map(|(k, (_, st))| group_row(q, k, |ai| st[ai]))
        .collect();
    // ORDER BY the first item, NULLs last either way; then whole rows.
    let desc = q.order_by.first().is_some_and(|k| k.desc);
    rows.sort_by(|a, b| {
        let o = match (&a[0], &b[0]) {
            (OutValue::Null, OutValue::Null) => std::cmp::Ordering::Equal,
            (OutValue::Null, _) => return std::cmp::Ordering::Greater,
            (_, OutValue::Null) => return std::cmp::Ordering::Less,
            (x, y) if desc => y.cmp(x),
            (x, y) => x.cmp(y),
        };
        o.then_with(|| a.cmp(b))
    });
    rows
}

#[test]
fn random_queries_over_nulls_match_naive_evaluation() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(0x0dd_ba11_5eed);
    let rows = 3_001;
    let data = star(&mut rng, dir.path(), rows);
    let db = Database::open(dir.path(), &Placement::home(), &OpenOptions::default()).unwrap();
    let fact = db.table("fact").unwrap();
    for c in ["f_d", "f_x", "f_y", "f_s"] {
        assert!(fact.column(c).unwrap().null_id().is_some(), "{c} has NULLs");
    }
    assert_eq!(
        fact.column("f_x").unwrap().dict.encoding(),
        pmolap_store::ColumnEncoding::Frame
    );
    let base = ExecOptions {
        pin: Pinning::None,
        ..ExecOptions::default()
    };
    let variants = [
        ExecOptions {
            threads: 1,
            ..base.clone()
        },
        ExecOptions {
            threads: 3,
            morsel_rows: 64,
            ..base.clone()
        },
        ExecOptions {
            threads: 2,
            morsel_rows: 192,
            dense_groups_max: 0,
            ..base.clone()
        },
    ];
    let queries: Vec<Query> = (0..300).map(|i| random_query(&mut rng, &data, i)).collect();
    let topo = Topology::detect().unwrap();
    let region = RegionOptions::default();
    let mut nonempty = 0;
    for opts in &variants {
        let layout = Layout::new(&topo, opts, rows).unwrap();
        let cols = ["f_d", "f_e", "f_x", "f_y", "f_s", "f_z"];
        let striped = StripedFact::new(fact, &cols, &layout, &region).unwrap();
        for q in &queries {
            let want = naive(&data, q);
            let got = run_query(&db, q, &layout, &striped, opts, &region)
                .unwrap_or_else(|e| panic!("query {} failed: {e}\n{q:#?}", q.id))
                .rows;
            assert_eq!(got, want, "{opts:?}\n{q:#?}");
            nonempty += usize::from(want.iter().flatten().any(|v| *v != OutValue::Null));
        }
    }
    // The queries are not all empty.
    assert!(nonempty > queries.len(), "{nonempty}");
}
