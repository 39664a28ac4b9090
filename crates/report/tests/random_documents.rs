//! Guards the entry point of the `report_doc` fuzz target on stable, in every `cargo
//! test`: random bytes and mutations of result documents (huge numbers, signs, empty
//! strings, cut text) read as a typed document or fail with a one-line error, and some of
//! those that read are rendered into the report page without a panic.

use std::path::Path;

const SEEDS: [&str; 2] = [
    include_str!("../../../fuzz/corpus/report_doc/seed-hashbench.json"),
    include_str!("../../../fuzz/corpus/report_doc/seed-ssb-breakdown.json"),
];

const TOKENS: &[&str] = &[
    "18446744073709551615",
    "-1e308",
    "1e308",
    "-1",
    "0",
    "\"\"",
    "null",
    "[]",
    "{}",
    "\"x\"",
    ",",
    "}",
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

fn mutate(rng: &mut Rng, seed: &str) -> Vec<u8> {
    let mut b = seed.as_bytes().to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(b.len());
        let t = TOKENS[rng.below(TOKENS.len())].as_bytes();
        match rng.below(4) {
            0 => {
                let Some(start) = (at..b.len()).find(|&i| b[i].is_ascii_digit()) else {
                    continue;
                };
                let end = (start..b.len())
                    .find(|&i| !(b[i].is_ascii_digit() || b"+-.eE".contains(&b[i])))
                    .unwrap_or(b.len());
                b.splice(start..end, t.iter().copied());
            }
            1 => {
                b.splice(at..at, t.iter().copied());
            }
            2 => {
                if let Some(x) = b.get_mut(at) {
                    *x ^= 1 << rng.below(8);
                }
            }
            _ => b.truncate(at),
        }
    }
    b
}

#[test]
fn random_and_mutated_documents_read_or_fail_in_one_line() {
    let d = tempfile::tempdir().unwrap();
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut rendered = 0;
    for i in 0..3000 {
        let data: Vec<u8> = if i % 8 == 0 {
            (0..rng.below(200)).map(|_| rng.below(256) as u8).collect()
        } else {
            mutate(&mut rng, SEEDS[i % SEEDS.len()])
        };
        let Ok(text) = std::str::from_utf8(&data) else {
            continue;
        };
        match pmolap_report::doc::parse(Path::new("fuzz.json"), text) {
            Err(e) => {
                let e = e.to_string();
                assert!(!e.contains('\n'), "a multi-line error: {e}");
            }
            // Rendering draws every figure: a sample of the documents that read.
            Ok(_) if i % 25 == 1 && rendered < 40 => {
                let p = d.path().join("doc.json");
                std::fs::write(&p, text).unwrap();
                if let Err(e) = pmolap_report::render_report(&[p]) {
                    assert!(!e.to_string().contains('\n'), "{e}");
                }
                rendered += 1;
            }
            Ok(_) => {}
        }
    }
    assert!(rendered > 5, "only {rendered} documents rendered");
}
