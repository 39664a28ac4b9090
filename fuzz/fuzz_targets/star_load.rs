//! Guards `pmolap load`'s parsers: the first byte picks what the rest is — a schema file
//! (`parse_schema`), a field read as each declared type (`value`), or the fact table's
//! file of a fixed two-table star loaded whole (`load_star`: delimiter and header told
//! from the first line, values, keys, the commit). Each ends in a value or one line of
//! error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pmolap_load::value::{check_str, parse_int};
use pmolap_load::{load_star, parse_schema, ColType, LoadOptions};

const SCHEMA: &str = "CREATE TABLE d (k INTEGER PRIMARY KEY, a VARCHAR(5) NOT NULL);
CREATE TABLE f (x INTEGER NOT NULL REFERENCES d (k), v DECIMAL(6,2) NOT NULL, t DATE, s SMALLINT);";
const DIM: &str = "k,a\n1,one\n2,two\n3,three\n";

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let one_line = |e: &dyn std::fmt::Display| {
        let e = e.to_string();
        assert!(!e.contains('\n'), "{e}");
    };
    match pick % 3 {
        0 => {
            let Ok(text) = std::str::from_utf8(rest) else {
                return;
            };
            if let Err(e) = parse_schema(text, "fuzz.sql") {
                one_line(&e);
            }
        }
        1 => {
            let Ok(text) = std::str::from_utf8(rest) else {
                return;
            };
            for ty in [
                ColType::SmallInt,
                ColType::Integer,
                ColType::BigInt,
                ColType::Decimal {
                    precision: 18,
                    scale: 4,
                },
                ColType::Decimal {
                    precision: 3,
                    scale: 0,
                },
                ColType::Date,
            ] {
                if let Err(e) = parse_int(text, ty) {
                    one_line(&e);
                }
            }
            let _ = check_str(text, ColType::Str { max_chars: Some(5) });
        }
        _ => {
            let dir = pmolap_fuzz::scratch().join("star");
            let input = dir.join("in");
            std::fs::create_dir_all(&input).expect("scratch");
            std::fs::write(dir.join("schema.sql"), SCHEMA).expect("scratch");
            std::fs::write(input.join("d.csv"), DIM).expect("scratch");
            std::fs::write(input.join("f.csv"), rest).expect("scratch");
            let r = load_star(
                &dir.join("schema.sql"),
                &input,
                &dir.join("db"),
                &LoadOptions::default(),
                &|_| {},
            );
            if let Err(e) = r {
                one_line(&e);
            }
        }
    }
});
