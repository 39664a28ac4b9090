//! Guards the engine's star-join query parser: any YAML text parses into validated
//! queries or a clean error, and every query that parses is planned against a tiny SSB
//! database (five tables, a few rows each) without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pmolap_engine::{parse_queries, plan, Database};

thread_local! {
    static DB: &'static Database = Box::leak(Box::new(pmolap_fuzz::tiny_ssb()));
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
