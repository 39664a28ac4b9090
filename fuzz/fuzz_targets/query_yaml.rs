//! Guards the engine's star-join query parser: any YAML text parses into validated
//! queries or a clean error, and every query that parses is planned against a tiny SSB
//! database (five tables, a few rows each) without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pmolap_engine::{parse_queries, plan, Database};
use pmolap_ssb as ssb;
use pmolap_store::table::OpenOptions;
use pmolap_store::Placement;

thread_local! {
    static DB: &'static Database = Box::leak(Box::new(tiny_ssb()));
}

/// The SSB schemas with 6 rows per dimension (keys 1..=6) and 24 fact rows.
fn tiny_ssb() -> Database {
    let dir = pmolap_fuzz::scratch().join("ssb");
    for t in ssb::TABLES {
        let rows = if t == "lineorder" { 24 } else { 6 };
        pmolap_fuzz::write_table(
            &dir.join(t),
            ssb::schema_of(t).expect("an SSB table"),
            rows,
            6,
            &[],
        );
    }
    Database::open(&dir, &Placement::home(), &OpenOptions::default())
        .expect("the tiny SSB database opens")
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(queries) = parse_queries(text, "fuzz.yaml") else {
        return;
    };
    DB.with(|db| {
        for q in &queries {
            let _ = plan(db, q);
        }
    });
});
