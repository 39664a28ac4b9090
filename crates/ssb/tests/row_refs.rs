//! The load's row references: each names the dimension row holding the fact's key, and
//! the dimensions' rows are stored in their hierarchy order.

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
    assert_eq!(refs.len(), pmolap_ssb::load::ROW_REFS.len());
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
