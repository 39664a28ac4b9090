//! Guards the engine's session: a database opened once answers a SQL script of several
//! statements (each as a direct computation over the data says), on the bit kernels its
//! options name (the one place that selects them), with every join on the index the
//! options override it with.

mod star;

use pmolap_engine::query::IndexChoice;
use pmolap_engine::{ExecOptions, OutValue, Script, Session};
use pmolap_kernels::bits;
use pmolap_store::Placement;
use pmolap_tier::kernel::Isa;
use pmolap_tier::{CpuFeatures, Topology};

use star::*;

/// Two threads over morsels of 1024 rows (several morsels per thread).
fn two_threads() -> ExecOptions {
    ExecOptions {
        threads: 2,
        morsel_rows: 1024,
        oversubscribe: true,
        ..ExecOptions::default()
    }
}

#[test]
fn a_session_answers_a_script_on_the_kernels_and_indexes_it_was_given() {
    let dir = tempfile::tempdir().unwrap();
    let rows = 20_011;
    let data = star(&mut Rng(0x5e55_1011), dir.path(), rows, false);
    let topo = Topology::detect().unwrap();
    let fact = &data["fact"];
    let f_x: Vec<i64> = fact
        .col("f_x")
        .iter()
        .map(|v| match v {
            V::I(i) => *i,
            V::S(_) => unreachable!("f_x is an int column"),
        })
        .collect();
    let want_count = OutValue::Int(rows as i64);
    let want_sum = OutValue::Int(f_x.iter().filter(|&&x| x >= 5).sum());
    let script = "-- Q7\nselect count(*) from fact;\nselect sum(f_x) as s from fact where f_x >= 5";
    let best = Isa::best(&CpuFeatures::detect());
    for isa in [Some(Isa::Portable), None, Some(best)] {
        let opts = ExecOptions {
            bits_isa: isa,
            ..two_threads()
        };
        let s = Session::open(dir.path(), &Placement::home(), true, &topo, opts).unwrap();
        let kernels = s.bits_kernel();
        assert_eq!(kernels, bits::active().name(), "the session selected them");
        assert_eq!(bits::active().isa(), isa.unwrap_or(best), "{isa:?}");
        let runs = s.sql(script).unwrap();
        let got: Vec<(&str, &Vec<Vec<OutValue>>)> =
            runs.iter().map(|r| (r.id.as_str(), &r.rows)).collect();
        assert_eq!(
            got,
            [
                ("7", &vec![vec![want_count.clone()]]),
                ("2", &vec![vec![want_sum.clone()]])
            ],
            "{kernels}"
        );
        // The syntax is checked without a database, the names against this one.
        let parsed = Script::parse("select sum(nosuch) from fact").unwrap();
        let e = s.queries(&parsed).unwrap_err().to_string();
        assert!(e.contains("`nosuch`"), "{e}");
    }

    // Every join on the index the options name, whatever the query says.
    let join = "select sum(f_x) from fact, a where f_a = a_key and a_key < 100";
    for (choice, kind) in [(IndexChoice::Hash, "hash"), (IndexChoice::Dense, "dense")] {
        let opts = ExecOptions {
            join_index: choice,
            ..two_threads()
        };
        let s = Session::open(dir.path(), &Placement::home(), false, &topo, opts).unwrap();
        let runs = s.sql(join).unwrap();
        assert_eq!(runs[0].joins[0].index.kind, kind);
    }
    // A session gives its database back, to prepare again with other options.
    let s = Session::open(
        dir.path(),
        &Placement::home(),
        false,
        &topo,
        ExecOptions::default(),
    )
    .unwrap();
    let db = s.into_database();
    assert!(db.table("fact").is_ok());
}
