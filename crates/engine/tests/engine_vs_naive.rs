//! Guards the engine's answers: random star-join queries over a small random star schema
//! (dense and sparse dimension keys, int and string columns, every predicate form, every
//! aggregate: SUM, COUNT, MIN, MAX, AVG of a column or `a op b`; ORs across a dimension's
//! columns; group-by columns and aggregates only ordered by, not selected) must equal a naive
//! row-at-a-time evaluation, under every execution variant (threads, morsel
//! sizes, dense or hash join indexes and aggregation, a striped + replicated layout).

mod star;

use std::collections::BTreeMap;

use pmolap_engine::query::{Cond, Expr, Op};
use pmolap_engine::{run_query, Database, ExecOptions, Layout, OutValue, Query, StripedFact};
use pmolap_store::table::OpenOptions;
use pmolap_store::Placement;
use pmolap_tier::{Pinning, RegionOptions, Topology};

use star::*;

/// Row-at-a-time evaluation of `q` over the raw data.
fn naive(db: &BTreeMap<String, Data>, q: &Query) -> Vec<Vec<OutValue>> {
    let fact = &db["fact"];
    let carried: Vec<&String> = q
        .carry
        .iter()
        .chain(q.joins.iter().flat_map(|j| &j.carry))
        .collect();
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
            if !j.conditions.iter().all(|c| cond_holds(c, d, dr)) {
                continue 'rows;
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
        // Grouped by every carried column, selected or not.
        let k: Vec<OutValue> = carried.iter().map(|s| key[*s].clone()).collect();
        let e = groups
            .entry(k)
            .or_insert_with(|| (0, q.aggregates.iter().map(|a| agg_init(a.func)).collect()));
        e.0 += 1;
        for (st, a) in e.1.iter_mut().zip(&q.aggregates) {
            if let Some(arg) = &a.arg {
                agg_fold(a.func, st, val(arg));
            }
        }
        any = true;
    }
    let carried_any = !q.carry.is_empty() || q.joins.iter().any(|j| !j.carry.is_empty());
    if !carried_any && !any {
        groups.insert(Vec::new(), (0, vec![0; q.aggregates.len()]));
    }
    // The select list, then the ORDER BY keys not selected (cut off after sorting).
    let mut cols: Vec<&String> = q.select.iter().collect();
    for k in &q.order_by {
        if !cols.contains(&&k.name) {
            cols.push(&k.name);
        }
    }
    let mut rows: Vec<Vec<OutValue>> = groups
        .into_iter()
        .map(|(k, (count, st))| {
            let key = |s: &str| k[carried.iter().position(|c| *c == s).unwrap()].clone();
            group_cols_row(q, &cols, key, |ai| (count, st[ai]))
        })
        .collect();
    let idx: Vec<(usize, bool)> = q
        .order_by
        .iter()
        .map(|k| (cols.iter().position(|s| *s == &k.name).unwrap(), k.desc))
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
    for r in &mut rows {
        r.truncate(q.select.len());
    }
    rows
}

/// Whether dimension row `r` of `d` satisfies condition `c`.
fn cond_holds(c: &Cond, d: &Data, r: usize) -> bool {
    match c {
        Cond::Where(m) => m.iter().all(|(col, p)| holds(p, &d.col(col)[r])),
        Cond::All(v) => v.iter().all(|c| cond_holds(c, d, r)),
        Cond::Any(v) => v.iter().any(|c| cond_holds(c, d, r)),
    }
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
