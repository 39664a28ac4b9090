//! Guards the entry point of the `sql_text` fuzz target on stable, in every `cargo test`:
//! random bytes and token-level mutations of SSB SQL either parse into a query over the
//! SSB tables or fail with an error, never a panic.

use pmolap_engine::sql::parse_sql;

const SEEDS: [&str; 2] = [
    include_str!("../../../fuzz/corpus/sql_text/seed-q1_1.sql"),
    include_str!("../../../fuzz/corpus/sql_text/seed-q2_1.sql"),
];

const TOKENS: &[&str] = &[
    " ( ",
    " ) ",
    " and ",
    " or ",
    " not ",
    " = ",
    " < ",
    " between ",
    " in (1, 2) ",
    " sum(",
    " count(*) ",
    " * ",
    " + ",
    " - ",
    "'x'",
    " 18446744073709551616 ",
    " -1 ",
    " 1.5 ",
    " null ",
    " , ",
    " ; ",
    " select ",
    " from ",
    " where ",
    " group by ",
    " order by ",
    " zz ",
    " lo_revenue ",
    " d_year ",
    " date ",
    " lineorder ",
];

/// xorshift64*: a fixed pseudo-random sequence (no dependency).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n.max(1)
    }
}

fn ssb_tables(t: &str) -> Option<Vec<String>> {
    let s = pmolap_ssb::schema_of(t).ok()?;
    Some(s.columns.iter().map(|c| c.name.clone()).collect())
}

#[test]
fn random_and_mutated_sql_parses_or_fails() {
    for seed in SEEDS {
        parse_sql(seed.trim().trim_end_matches(';'), "seed", &ssb_tables)
            .or_else(|_| parse_sql(seed, "seed", &ssb_tables))
            .expect("the seeds parse");
    }
    let mut rng = Rng(0xddc0_ffee_1234_5678);
    for i in 0..3000 {
        let text: String = if i % 8 == 0 {
            (0..rng.below(120))
                .map(|_| char::from(32 + rng.below(95) as u8))
                .collect()
        } else {
            // Whitespace-separated words of a seed with 1–4 replaced, inserted or dropped.
            let mut words: Vec<String> = SEEDS[i % SEEDS.len()]
                .split_whitespace()
                .map(str::to_string)
                .collect();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(words.len());
                let t = TOKENS[rng.below(TOKENS.len())].to_string();
                match rng.below(3) {
                    0 => words[at] = t,
                    1 => words.insert(at, t),
                    _ => {
                        words.remove(at);
                    }
                }
                if words.is_empty() {
                    break;
                }
            }
            words.join(" ")
        };
        if let Err(e) = parse_sql(&text, "fuzz", &ssb_tables) {
            assert!(!e.to_string().is_empty());
        }
    }
}
