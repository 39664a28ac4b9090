//! The load's row references: each names the dimension row holding the fact's key (or,
//! for a key the dimension lacks, its row count), and the dimensions' rows are stored in
//! the order derived from their data — the hierarchies `ssb load` hard-coded before it
//! went through the generic load.

use pmolap_store::{DatabaseSnapshot, Placement, Table, Value};

#[test]
fn row_refs_name_the_key_row_in_hierarchy_order() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    pmolap_ssb::load_database(
        0.01,
        &db,
        None,
        &pmolap_store::WriteOptions::default(),
        &|_, _| {},
        &|_| {},
    )
    .unwrap();
    let snap = DatabaseSnapshot::open(&db).unwrap();
    let open = |name: &str| {
        let (_, path) = snap.tables().iter().find(|(n, _)| n == name).unwrap();
        Table::open(path, &Placement::home()).unwrap()
    };
    let refs = &snap.manifest().unwrap().row_refs;
    // customer, part and supplier in their hierarchy order; at SF 0.01 the date table
    // (25 days, too few for a second level in key order) gets the dependency rule's
    // order, so a reference too.
    for (dim, order) in [
        ("customer", "c_region c_nation c_city c_custkey"),
        ("part", "p_mfgr p_category p_brand1 p_partkey"),
        ("supplier", "s_region s_nation s_city s_suppkey"),
    ] {
        let r = refs.iter().find(|r| r.dim == dim).unwrap();
        assert_eq!(r.order.join(" "), order);
    }
    assert_eq!(refs.len(), 4, "{refs:?}");
    let fact = open("lineorder");
    for r in refs {
        let dim = open(&r.dim);
        // Rows in the order of `order`, the key last: strictly ascending tuples.
        let tuple = |row: usize| -> Vec<Value<'_>> {
            r.order
                .iter()
                .map(|c| dim.column(c).unwrap().value(row))
                .collect()
        };
        for row in 1..dim.rows() {
            assert!(
                cmp(&tuple(row - 1), &tuple(row)).is_lt(),
                "{}: row {row} out of {:?} order",
                r.dim,
                r.order
            );
        }
        let (key, rf, dkey) = (
            fact.column(&r.key).unwrap(),
            fact.column(&r.column).unwrap(),
            dim.column(&r.dim_key).unwrap(),
        );
        for row in 0..fact.rows() {
            let Value::Int(at) = rf.value(row) else {
                panic!("{} is not an int column", r.column)
            };
            if at as usize == dim.rows() {
                // A key the dimension lacks joins nothing.
                assert!(
                    (0..dim.rows()).all(|d| dkey.value(d) != key.value(row)),
                    "{} of fact row {row}",
                    r.column
                );
                continue;
            }
            assert_eq!(
                dkey.value(at as usize),
                key.value(row),
                "{} of fact row {row}",
                r.column
            );
        }
    }
}

fn cmp(a: &[Value<'_>], b: &[Value<'_>]) -> std::cmp::Ordering {
    a.iter()
        .zip(b)
        .map(|(x, y)| match (x, y) {
            (Value::Int(x), Value::Int(y)) => x.cmp(y),
            (Value::Str(x), Value::Str(y)) => x.cmp(y),
            _ => panic!("mixed types"),
        })
        .find(|o| o.is_ne())
        .unwrap_or(std::cmp::Ordering::Equal)
}
