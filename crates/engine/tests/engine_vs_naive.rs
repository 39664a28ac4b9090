//! Guards the engine's answers: random star-join queries over a small random star schema
//! (dense and sparse dimension keys, int and string columns, every predicate form, every
//! aggregate: SUM, COUNT, MIN, MAX, AVG of a column or `a op b`) must equal a naive
//! row-at-a-time evaluation, under every execution variant (threads, morsel
//! sizes, dense or hash join indexes and aggregation, a striped + replicated layout);
//! and what a run reports about its reads of that schema (access counters, fact bytes).

use std::collections::BTreeMap;
use std::path::Path;

use pmolap_engine::query::{
    AggFn, Aggregate, Expr, IndexChoice, Join, Literal, Op, OrderKey, Predicate,
};
use pmolap_engine::{
    run_query, Database, Double, ExecOptions, Layout, OutValue, Query, StripedFact,
};
use pmolap_store::rowref::row_refs;
use pmolap_store::table::OpenOptions;
use pmolap_store::{
    ColumnType, DatabaseWriter, DbWriteOptions, Placement, RowRef, Schema, TableBuilder, Value,
    WriteOptions,
};
use pmolap_tier::{Pinning, RegionOptions, Topology};

/// A tiny deterministic generator (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[derive(Clone, Debug)]
enum V {
    I(i64),
    S(String),
}

impl V {
    fn out(&self) -> OutValue {
        match self {
            V::I(i) => OutValue::Int(*i),
            V::S(s) => OutValue::Str(s.clone()),
        }
    }
}

/// Column-major data of one table, with its schema.
struct Data {
    cols: Vec<(String, Vec<V>)>,
}

impl Data {
    fn col(&self, name: &str) -> &[V] {
        &self.cols.iter().find(|(n, _)| n == name).unwrap().1
    }
    fn rows(&self) -> usize {
        self.cols[0].1.len()
    }
    fn builder(&self) -> TableBuilder {
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

const NAMES: [&str; 6] = ["ANT", "BEE", "CAT", "DOG", "EEL", "FOX"];

/// A random star schema written to `dir`; `dictionary_only`: no frame-of-reference int
/// columns (by default the dense int columns `f_x`, `f_y` and the keys are frames).
fn star(
    rng: &mut Rng,
    dir: &Path,
    fact_rows: usize,
    dictionary_only: bool,
) -> BTreeMap<String, Data> {
    let mut db = BTreeMap::new();
    // dim a: dense keys 1..=300, a string and an int attribute.
    let n_a = 300;
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
    let mut w = DatabaseWriter::begin(dir, &DbWriteOptions::default()).unwrap();
    let refs = [
        ("f_a", "a", "a_key", ["a_name", "a_grp", "a_key"].as_slice()),
        ("f_b", "b", "b_key", ["b_city", "b_key"].as_slice()),
    ];
    let mut fact = db["fact"].builder();
    for (fk, dim, key, order) in refs {
        let mut b = db[dim].builder();
        b.sort_rows_by(order).unwrap();
        let keys = b.int_column(key).unwrap().to_vec();
        w.add_table(dim, b, &opts).unwrap();
        let column = RowRef::column_name(fk, dim);
        let r = row_refs(fact.int_column(fk).unwrap(), &keys).unwrap();
        fact.add_int_column(&column, r).unwrap();
    }
    w.add_table("fact", fact, &opts).unwrap();
    for (fk, dim, key, order) in refs {
        w.add_row_ref(RowRef {
            table: "fact".into(),
            key: fk.into(),
            column: RowRef::column_name(fk, dim),
            dim: dim.into(),
            dim_key: key.into(),
            order: order.iter().map(|c| c.to_string()).collect(),
        })
        .unwrap();
    }
    w.commit().unwrap();
    db
}

fn lit(v: &V) -> Literal {
    match v {
        V::I(i) => Literal::Int(*i),
        V::S(s) => Literal::Str(s.clone()),
    }
}

fn random_pred(rng: &mut Rng, values: &[V]) -> Predicate {
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

fn cmp_v(a: &V, b: &Literal) -> std::cmp::Ordering {
    match (a, b) {
        (V::I(x), Literal::Int(y)) => x.cmp(y),
        (V::S(x), Literal::Str(y)) => x.as_str().cmp(y.as_str()),
        _ => panic!("type mismatch in test"),
    }
}

fn holds(p: &Predicate, v: &V) -> bool {
    use std::cmp::Ordering::*;
    p.eq.as_ref().is_none_or(|x| cmp_v(v, x) == Equal)
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

/// A random query; `classic`: the aggregates are `s1 = sum(f_x)`, `s2 = sum(f_x op f_y)`
/// (what the access-count test expects), else 1 to 4 random aggregates.
fn random_query(rng: &mut Rng, db: &BTreeMap<String, Data>, i: usize, classic: bool) -> Query {
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
        joins.push(Join {
            dim: dim.into(),
            on: (fk.into(), key.into()),
            filters: jf,
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
    select.extend(aggregates.iter().map(|a| a.name.clone()));
    let order_by = select
        .iter()
        .map(|s| OrderKey {
            name: s.clone(),
            desc: rng.below(2) == 0,
        })
        .collect();
    Query {
        id: format!("r{i}"),
        fact: "fact".into(),
        filters,
        joins,
        carry: carry_fact,
        aggregates,
        select,
        order_by,
        limit: if rng.below(4) == 0 { Some(3) } else { None },
    }
}

/// Row-at-a-time evaluation of `q` over the raw data.
fn naive(db: &BTreeMap<String, Data>, q: &Query) -> Vec<Vec<OutValue>> {
    let fact = &db["fact"];
    let mut groups: BTreeMap<Vec<OutValue>, (i64, Vec<i64>)> = BTreeMap::new();
    let mut any = false;
    'rows: for r in 0..fact.rows() {
        for (c, p) in &q.filters {
            if !holds(p, &fact.col(c)[r]) {
                continue 'rows;
            }
        }
        let mut key: BTreeMap<String, OutValue> = BTreeMap::new();
        for c in &q.carry {
            key.insert(c.clone(), fact.col(c)[r].out());
        }
        for j in &q.joins {
            let d = &db[&j.dim];
            let fkv = match &fact.col(&j.on.0)[r] {
                V::I(i) => *i,
                V::S(_) => unreachable!(),
            };
            let Some(dr) = d
                .col(&j.on.1)
                .iter()
                .position(|v| matches!(v, V::I(k) if *k == fkv))
            else {
                continue 'rows;
            };
            for (c, p) in &j.filters {
                if !holds(p, &d.col(c)[dr]) {
                    continue 'rows;
                }
            }
            for c in &j.carry {
                key.insert(c.clone(), d.col(c)[dr].out());
            }
        }
        let val = |e: &Expr| -> i64 {
            let g = |c: &str| match &fact.col(c)[r] {
                V::I(i) => *i,
                V::S(_) => unreachable!(),
            };
            match e {
                Expr::Col(c) => g(c),
                Expr::Bin(a, Op::Add, b) => g(a) + g(b),
                Expr::Bin(a, Op::Sub, b) => g(a) - g(b),
                Expr::Bin(a, Op::Mul, b) => g(a) * g(b),
            }
        };
        let k: Vec<OutValue> = q
            .select
            .iter()
            .filter_map(|s| key.get(s).cloned())
            .collect();
        let e = groups.entry(k).or_insert_with(|| {
            (
                0,
                q.aggregates
                    .iter()
                    .map(|a| match a.func {
                        AggFn::Min => i64::MAX,
                        AggFn::Max => i64::MIN,
                        _ => 0,
                    })
                    .collect(),
            )
        });
        e.0 += 1;
        for (st, a) in e.1.iter_mut().zip(&q.aggregates) {
            let Some(arg) = &a.arg else { continue };
            let v = val(arg);
            match a.func {
                AggFn::Sum | AggFn::Avg => *st += v,
                AggFn::Min => *st = (*st).min(v),
                AggFn::Max => *st = (*st).max(v),
                AggFn::Count => {}
            }
        }
        any = true;
    }
    let carried_any = !q.carry.is_empty() || q.joins.iter().any(|j| !j.carry.is_empty());
    if !carried_any && !any {
        groups.insert(Vec::new(), (0, vec![0; q.aggregates.len()]));
    }
    let agg_out = |a: &Aggregate, count: i64, st: i64| match a.func {
        AggFn::Count => OutValue::Int(count),
        _ if count == 0 => OutValue::Null,
        AggFn::Avg => OutValue::Float(Double(st as f64 / count as f64)),
        _ => OutValue::Int(st),
    };
    let mut rows: Vec<Vec<OutValue>> = groups
        .into_iter()
        .map(|(k, (count, st))| {
            let mut ki = k.into_iter();
            q.select
                .iter()
                .map(|s| match q.aggregates.iter().position(|a| &a.name == s) {
                    Some(ai) => agg_out(&q.aggregates[ai], count, st[ai]),
                    None => ki.next().unwrap(),
                })
                .collect()
        })
        .collect();
    let idx: Vec<(usize, bool)> = q
        .order_by
        .iter()
        .map(|k| (q.select.iter().position(|s| s == &k.name).unwrap(), k.desc))
        .collect();
    rows.sort_by(|a, b| {
        for &(i, d) in &idx {
            let o = a[i].cmp(&b[i]);
            if o.is_ne() {
                return if d { o.reverse() } else { o };
            }
        }
        a.cmp(b)
    });
    if let Some(l) = q.limit {
        rows.truncate(l);
    }
    rows
}

fn variants() -> Vec<(&'static str, ExecOptions)> {
    let base = ExecOptions {
        pin: Pinning::None,
        ..ExecOptions::default()
    };
    vec![
        (
            "1 thread, big morsels",
            ExecOptions {
                threads: 1,
                ..base.clone()
            },
        ),
        (
            "3 threads, 64-row morsels",
            ExecOptions {
                threads: 3,
                morsel_rows: 64,
                ..base.clone()
            },
        ),
        (
            // 79 morsels over two workers: claims of two consecutive morsels (claim_span),
            // the last claim cut short by the end of the table.
            "2 threads, 64-row morsels claimed two at a time",
            ExecOptions {
                threads: 2,
                morsel_rows: 64,
                ..base.clone()
            },
        ),
        (
            "hash aggregation",
            ExecOptions {
                threads: 2,
                morsel_rows: 192,
                dense_groups_max: 0,
                ..base.clone()
            },
        ),
        (
            "striped + replicated over two partitions of node 0",
            ExecOptions {
                threads: 3,
                morsel_rows: 128,
                stripe: true,
                replicate_dims: true,
                nodes_override: Some(vec![0, 0]),
                ..base.clone()
            },
        ),
    ]
}

#[test]
fn random_queries_match_naive_evaluation() {
    random_queries_on(false);
}

/// The same queries with every int column decoded through a sorted dictionary.
#[test]
fn random_queries_match_naive_evaluation_with_dictionaries_only() {
    random_queries_on(true);
}

fn random_queries_on(dictionary_only: bool) {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(0x5eed_1234_abcd);
    // Not a multiple of 64: the tail morsel and the striping boundary are exercised.
    let data = star(&mut rng, dir.path(), 5_003, dictionary_only);
    let db = Database::open(dir.path(), &Placement::home(), &OpenOptions::default()).unwrap();
    let f_x = &db.table("fact").unwrap().column("f_x").unwrap().dict;
    assert_eq!(
        f_x.encoding() == pmolap_store::ColumnEncoding::Frame,
        !dictionary_only
    );
    // One of the variants takes its morsels two a claim.
    assert_eq!(pmolap_engine::exec::claim_span(5_003, 64, 2), 2);
    let topo = Topology::detect().unwrap();
    let region = RegionOptions::default();
    let queries: Vec<Query> = (0..120)
        .map(|i| random_query(&mut rng, &data, i, i % 4 == 3))
        .collect();
    for (name, opts) in variants() {
        let layout = Layout::new(&topo, &opts, 5_003).unwrap();
        let fact = db.table("fact").unwrap();
        let striped = StripedFact::new(
            fact,
            &["f_a", "f_b", "f_x", "f_y", "f_mode"],
            &layout,
            &region,
        )
        .unwrap();
        for q in &queries {
            let want = naive(&data, q);
            let got = run_query(&db, q, &layout, &striped, &opts, &region)
                .unwrap_or_else(|e| panic!("{name}: query {} failed: {e}\n{q:#?}", q.id))
                .rows;
            if got != want {
                let i = got
                    .iter()
                    .zip(&want)
                    .position(|(a, b)| a != b)
                    .unwrap_or(got.len().min(want.len()));
                panic!(
                    "{name}: query {} differs at row {i}: got {:?}, want {:?} ({} vs {} rows)\n{q:#?}",
                    q.id,
                    got.get(i),
                    want.get(i),
                    got.len(),
                    want.len()
                );
            }
        }
    }
}

#[test]
fn striped_layout_partitions_on_group_boundaries() {
    let topo = Topology::detect().unwrap();
    let opts = ExecOptions {
        threads: 5,
        pin: Pinning::None,
        nodes_override: Some(vec![0, 0]),
        ..ExecOptions::default()
    };
    let l = Layout::new(&topo, &opts, 100_000).unwrap();
    assert!(l.striped && l.replicated);
    assert_eq!(l.groups.len(), 2);
    assert_eq!(l.groups[0].cpus.len() + l.groups[1].cpus.len(), 5);
    let r0 = l.groups[0].rows.clone().unwrap();
    let r1 = l.groups[1].rows.clone().unwrap();
    assert_eq!(
        (r0.start, r0.end, r1.start, r1.end),
        (0, r0.end, r0.end, 100_000)
    );
    assert_eq!(r0.end % 64, 0);
    // 3 of 5 threads on the first node: about 3/5 of the rows.
    assert!((59_000..=60_000).contains(&r0.end), "{r0:?}");
    // Without pinning asked for, the node's threads are kept on its CPUs.
    assert_eq!(l.pin, Pinning::Numa);
}

/// The probe reads raw payloads with its own kernels; with the store's counters on it must
/// still count every access (dictionaries only: a frame reads no memory to decode, and
/// counts nothing): the aggregated `f_y` is decoded through its dictionary
/// exactly once per qualifying row, `f_x` twice (s1, s2), each read at least once from
/// its data vector (`f_x` too: a column under two aggregates is fetched once per morsel);
/// the first step scans every fact row; with counting off, nothing.
#[test]
fn probe_counts_fact_accesses_when_counting() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(0xc0_4e75);
    let rows = 20_011;
    let data = star(&mut rng, dir.path(), rows, true);
    let db = Database::open(dir.path(), &Placement::home(), &OpenOptions::default()).unwrap();
    let topo = Topology::detect().unwrap();
    let region = RegionOptions::default();
    let opts = ExecOptions {
        threads: 2,
        morsel_rows: 1024,
        oversubscribe: true,
        ..ExecOptions::default()
    };
    let layout = Layout::new(&topo, &opts, rows).unwrap();
    let fact = db.table("fact").unwrap();
    let striped = StripedFact::new(fact, &[], &layout, &region).unwrap();
    let col = |name: &str| fact.column(name).unwrap();
    let mut counted_rows = 0;
    for i in 0..25 {
        let q = random_query(&mut rng, &data, i, true);
        fact.reset_counters();
        fact.set_counting(i % 5 != 4);
        let run = run_query(&db, &q, &layout, &striped, &opts, &region).unwrap();
        let counting = fact.counting();
        fact.set_counting(false);
        let k = run.exec.rows_qualifying;
        let (dict_y, dv_y) = (col("f_y").dict.counts(), col("f_y").dv.counts());
        let (dict_x, dv_x) = (col("f_x").dict.counts(), col("f_x").dv.counts());
        if !counting {
            assert_eq!((dict_y.total(), dv_y.total(), dv_x.total()), (0, 0, 0));
            continue;
        }
        assert_eq!(dict_y.total(), k, "{}: f_y dictionary", q.id);
        counted_rows += k;
        assert_eq!(dict_y.scan, 0, "{}", q.id);
        assert!(dict_x.total() >= 2 * k, "{}: {dict_x:?} < 2 x {k}", q.id);
        assert!(dv_y.total() >= k && dv_x.total() >= k, "{}", q.id);
        if !run.steps.is_empty() && run.exec.morsels > 0 {
            let scanned: u64 = ["f_a", "f_b", "f_a@a", "f_b@b", "f_x", "f_mode"]
                .iter()
                .map(|c| col(c).dv.counts().scan)
                .max()
                .unwrap();
            assert!(
                scanned >= rows as u64,
                "{}: first step scanned {scanned}",
                q.id
            );
        }
    }
    assert!(
        counted_rows > 0,
        "no query qualified a row: the test checked nothing"
    );
}

/// A star schema of `rows` fact rows in a temporary database, opened, with the plumbing
/// to run SQL on it (default execution options).
struct Fixture {
    _dir: tempfile::TempDir,
    data: BTreeMap<String, Data>,
    db: Database,
    layout: Layout,
    striped: StripedFact,
    opts: ExecOptions,
}

impl Fixture {
    fn new(seed: u64, rows: usize) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let data = star(&mut Rng(seed), dir.path(), rows, false);
        let db = Database::open(dir.path(), &Placement::home(), &OpenOptions::default()).unwrap();
        let opts = ExecOptions::default();
        let layout = Layout::new(&Topology::detect().unwrap(), &opts, rows).unwrap();
        let fact = db.table("fact").unwrap();
        let striped = StripedFact::new(fact, &[], &layout, &RegionOptions::default()).unwrap();
        Fixture {
            _dir: dir,
            data,
            db,
            layout,
            striped,
            opts,
        }
    }

    fn sql(&self, sql: &str) -> Query {
        let tables = |t: &str| {
            self.data
                .get(t)
                .map(|d| d.cols.iter().map(|c| c.0.clone()).collect())
        };
        pmolap_engine::sql::parse_sql(sql, "q", &tables).unwrap()
    }

    fn run(&self, q: &Query) -> pmolap_engine::QueryRun {
        let region = RegionOptions::default();
        run_query(
            &self.db,
            q,
            &self.layout,
            &self.striped,
            &self.opts,
            &region,
        )
        .unwrap()
    }
}

/// The bandwidth figure's numerator: only the fact columns the probe reads. A join on
/// `f_b` that neither filters (every key hits) nor carries is eliminated and its key
/// column not counted; a filtering join's key column and the aggregates' columns are.
#[test]
fn fact_bytes_count_the_columns_read() {
    let rows = 5_000;
    let f = Fixture::new(0xb17e5, rows);
    let fact = f.db.table("fact").unwrap();
    let bytes = |c: &str| fact.column(c).unwrap().dv.words().len() as u64 * 8;
    let eliminated = f.run(&f.sql("select sum(f_x) from fact, b where f_b = b_key"));
    assert_eq!(eliminated.exec.rows_qualifying, rows as u64);
    assert_eq!(eliminated.fact_bytes, bytes("f_x"));
    // Under `auto` the join reads the row-reference column, not the key.
    let filtered =
        f.run(&f.sql("select sum(f_x * f_y) from fact, a where f_a = a_key and a_key < 100"));
    assert_eq!(filtered.joins[0].index.kind, "row refs (f_a@a)");
    assert_eq!(
        filtered.fact_bytes,
        bytes("f_a@a") + bytes("f_x") + bytes("f_y")
    );
}

/// A predicate on the attribute a dimension's rows are ordered by selects one run of
/// rows: the join through the row references tests a range, the one through the key a
/// bitmap, with equal answers.
#[test]
fn ordered_dimension_joins_by_a_range_of_row_refs() {
    let f = Fixture::new(0x05ee_d0bd, 7_000);
    let mut q = f.sql(
        "select a_grp, count(*), sum(f_x) from fact, a where f_a = a_key \
         and a_name = 'CAT' group by a_grp order by a_grp",
    );
    let by_ref = f.run(&q);
    q.joins[0].index = IndexChoice::Dense;
    let by_key = f.run(&q);
    assert_eq!(by_ref.joins[0].filter, "range + lookup");
    assert_eq!(by_key.joins[0].filter, "bitmap + lookup");
    assert!(!by_ref.rows.is_empty());
    assert_eq!(by_ref.rows, by_key.rows);
}
