//! Guards the `.tbl` reader: any bytes read against one of the five SSB schemas (the
//! first byte picks it) load as rows or stop with an error naming the line, never panic.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use pmolap_ssb as ssb;
use pmolap_store::{read_tbl, TableBuilder};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, text)) = data.split_first() else {
        return;
    };
    let table = ssb::TABLES[pick as usize % ssb::TABLES.len()];
    let schema = ssb::schema_of(table).expect("an SSB table");
    let mut b = TableBuilder::new(schema);
    let res = read_tbl(text, Path::new("fuzz.tbl"), &mut b);
    if let Err(e) = res {
        assert!(!e.to_string().contains('\n'), "{e}");
    }
});
