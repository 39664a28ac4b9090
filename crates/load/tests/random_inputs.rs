//! Guards `pmolap load`'s parsers against arbitrary input on every `cargo test` (the
//! stable twin of fuzz/fuzz_targets/star_load.rs): seeded random and mutated schema
//! texts, fields and fact files end in a value or one line of error, never a panic; and
//! a load that succeeds stores exactly the rows it was given.

use std::path::Path;

use pmolap_load::value::{check_str, parse_int};
use pmolap_load::{load_star, parse_schema, ColType, LoadOptions};

/// xorshift64*: reproducible without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, v: &[&'a str]) -> &'a str {
        v[self.below(v.len())]
    }
}

const SCHEMA: &str = "CREATE TABLE d (k INTEGER PRIMARY KEY, a VARCHAR(5) NOT NULL);
CREATE TABLE f (x INTEGER NOT NULL REFERENCES d (k), v DECIMAL(6,2) NOT NULL, t DATE, s SMALLINT);";

/// Replaces, inserts or deletes a few bytes of `s` (kept UTF-8: ASCII only).
fn mutate(r: &mut Rng, s: &str) -> String {
    let mut b: Vec<u8> = s.bytes().collect();
    const ALPHABET: &[u8] = b"0123456789-.,|\t\n\"' ()ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefxyz;";
    for _ in 0..1 + r.below(4) {
        let at = if b.is_empty() { 0 } else { r.below(b.len()) };
        let c = ALPHABET[r.below(ALPHABET.len())];
        match r.below(3) {
            0 if !b.is_empty() => b[at] = c,
            1 => b.insert(at, c),
            _ if !b.is_empty() => {
                b.remove(at);
            }
            _ => b.push(c),
        }
    }
    String::from_utf8(b).expect("ASCII edits keep UTF-8")
}

fn one_line(e: &dyn std::fmt::Display) {
    let e = e.to_string();
    assert!(!e.contains('\n') && !e.is_empty(), "{e:?}");
}

/// Mutated schema files parse into a star or fail with one line.
#[test]
fn mutated_schemas_parse_or_fail_in_one_line() {
    let mut r = Rng(0x5eed_0035);
    let base = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../workloads/star-retail/schema.sql"),
    )
    .unwrap();
    for text in [base.as_str(), SCHEMA] {
        for _ in 0..400 {
            let t = mutate(&mut r, text);
            match parse_schema(&t, "m.sql") {
                Ok(s) => assert!(!s.tables.is_empty()),
                Err(e) => one_line(&e),
            }
        }
    }
}

/// Random fields are a value of every type or a one-line reason; what parses as a
/// decimal is the text's value at the scale.
#[test]
fn random_fields_are_values_or_one_line_reasons() {
    let mut r = Rng(7);
    let parts = [
        "0",
        "1",
        "9",
        "-",
        "+",
        ".",
        "00",
        "32767",
        "32768",
        "2024",
        "-02-",
        "29",
        "e5",
        " ",
        "99999999999999999999",
        "1.5",
        "abc",
    ];
    let types = [
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
    ];
    for _ in 0..3000 {
        let f: String = (0..1 + r.below(4)).map(|_| r.pick(&parts)).collect();
        for ty in types {
            match parse_int(&f, ty) {
                Ok(v) => {
                    if let ColType::Decimal { scale, .. } = ty {
                        // Checked against a double where it is exact enough.
                        if let Ok(x) = f.trim().parse::<f64>() {
                            if x.abs() < 1e9 {
                                let want = (x * 10f64.powi(scale as i32)).round() as i64;
                                assert_eq!(v, want, "{f:?} as {ty}");
                            }
                        }
                    }
                }
                Err(e) => one_line(&e),
            }
        }
        let _ = check_str(&f, ColType::Str { max_chars: Some(5) });
    }
}

/// Mutated fact files of a fixed star load whole or fail in one line; a load that
/// succeeds has as many fact rows as non-empty data lines.
#[test]
fn mutated_fact_files_load_or_fail_in_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("schema.sql"), SCHEMA).unwrap();
    let input = dir.join("in");
    std::fs::create_dir(&input).unwrap();
    std::fs::write(input.join("d.csv"), "k,a\n1,one\n2,two\n3,three\n").unwrap();
    let bases = [
        "x,v,t,s\n1,12.50,2024-02-29,7\n3,0.01,1999-12-31,-32768\n2,9999.99,2000-01-01,1\n",
        "2|1.5|2000-01-01|1|\n1|-3|2010-10-10|0|\n",
        "1\t2.25\t2020-05-05\t5\n",
    ];
    let mut r = Rng(99);
    let mut loaded = 0;
    for i in 0..150 {
        let base = bases[i % bases.len()];
        let text = if i < bases.len() {
            base.to_string()
        } else {
            mutate(&mut r, base)
        };
        std::fs::write(input.join("f.csv"), &text).unwrap();
        let db = dir.join(format!("db{}", i % 4));
        match load_star(
            &dir.join("schema.sql"),
            &input,
            &db,
            &LoadOptions::default(),
            &|_| {},
        ) {
            Ok(tables) => {
                loaded += 1;
                let fact = tables.iter().find(|t| t.name == "f").unwrap();
                let data_lines = text
                    .lines()
                    .filter(|l| !l.is_empty() && !l.starts_with("x,v"))
                    .count() as u64;
                assert!(fact.rows <= data_lines, "{text:?}: {} rows", fact.rows);
            }
            Err(e) => one_line(&e),
        }
    }
    assert!(
        loaded >= bases.len(),
        "the unmutated files load ({loaded} loads)"
    );
}
