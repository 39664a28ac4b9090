//! Guards the SQL front end of `pmolap sql` / `ssb query FILE.sql`: any text parses into
//! a star-join query over the tiny SSB database's tables or a clean error (never a stack
//! overflow), and every query that parses is planned against it without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pmolap_engine::{plan, Database};

thread_local! {
    static DB: &'static Database = Box::leak(Box::new(pmolap_fuzz::tiny_ssb()));
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    DB.with(|db| {
        let tables = |t: &str| -> Option<Vec<String>> {
            db.table(t)
                .ok()
                .map(|t| t.column_names().map(str::to_string).collect())
        };
        if let Ok(q) = pmolap_engine::sql::parse_sql(text, "fuzz", &tables) {
            let _ = plan(db, &q);
        }
    });
});
