//! Group codes of a dimension's rows: the carried attributes' tuples numbered densely
//! among the passing rows, in the order they first appear, in chunks on the workers.

use std::collections::HashMap;

use pmolap_store::table::Column;

use super::codes::all_ids;
use super::join::carried_radix;
use super::par::{Workers, MIN_CHUNK};
use super::{OutValue, MISS};

/// Group codes of a dimension's rows: the carried tuples numbered densely among the
/// passing rows ([`MISS`] for the others), and the tuples by code.
pub(super) struct GroupCodes {
    pub(super) code: Vec<u32>,
    pub(super) tuples: Vec<Vec<OutValue>>,
}

/// Group codes: carried tuples numbered densely among the passing rows (the carried
/// domain was checked by [`check_carried_domain`]), by [`number_tuples`].
pub(super) fn group_codes(carried: &[&Column], pass: &[bool], workers: &Workers) -> GroupCodes {
    if carried.is_empty() {
        let mut code = vec![MISS; pass.len()];
        workers.fill(&mut code, MIN_CHUNK, |start, code| {
            let pass = &pass[start..start + code.len()];
            for (c, &p) in code.iter_mut().zip(pass) {
                *c = if p { 0 } else { MISS };
            }
        });
        return GroupCodes {
            code,
            tuples: Vec::new(),
        };
    }
    let carried_ids: Vec<Vec<u32>> = carried.iter().map(|c| all_ids(c, workers)).collect();
    let (code, firsts) = number_tuples(
        &carried_ids,
        &carried_radix(carried),
        pass,
        workers,
        MIN_CHUNK,
    );
    let tuples = firsts
        .into_iter()
        .map(|r| {
            carried_ids
                .iter()
                .zip(carried)
                .map(|(ids, c)| match c.null_id() == Some(ids[r]) {
                    // GROUP BY a nullable attribute: NULL is a group.
                    true => OutValue::Null,
                    false => OutValue::from(c.dict.get(ids[r])),
                })
                .collect()
        })
        .collect();
    GroupCodes { code, tuples }
}

/// The code of each row's tuple of value ids (`ids[column][row]`, keyed in mixed radix
/// `radix`): the tuples of passing rows numbered 0, 1, … in the order they first
/// appear, [`MISS`] for the other rows; and the row where each code first appears.
///
/// On several `workers`, each chunk of rows numbers its tuples on its own
/// ([`number_chunk`]); then the chunks' tuples, in chunk order and each chunk's in its
/// order, are numbered once more — the order they first appear in the whole — and each
/// chunk's codes are renumbered: the same codes as on one thread.
fn number_tuples(
    ids: &[Vec<u32>],
    radix: &[u64],
    pass: &[bool],
    workers: &Workers,
    min_chunk: usize,
) -> (Vec<u32>, Vec<usize>) {
    let mut code = vec![MISS; pass.len()];
    let mut local = workers.fill(&mut code, min_chunk, |start, code| {
        number_chunk(ids, radix, pass, start, code)
    });
    if local.len() <= 1 {
        return (code, local.pop().unwrap_or_default());
    }
    let mut codes = TupleCodes::new(radix);
    let mut firsts = Vec::new();
    let renumber: Vec<Vec<u32>> = local
        .iter()
        .map(|chunk| {
            chunk
                .iter()
                .map(|&r| {
                    let known = codes.entry(tuple_key(ids, radix, r));
                    if *known == MISS {
                        *known = firsts.len() as u32;
                        firsts.push(r);
                    }
                    *known
                })
                .collect()
        })
        .collect();
    let starts: Vec<usize> = workers
        .chunks(pass.len(), min_chunk)
        .iter()
        .map(|r| r.start)
        .collect();
    workers.fill(&mut code, min_chunk, |start, code| {
        let to = &renumber[starts.partition_point(|&s| s < start)];
        for c in code {
            *c = to.get(*c as usize).copied().unwrap_or(MISS);
        }
    });
    (code, firsts)
}

/// Row `r`'s tuple of value ids as one key in mixed radix `radix`.
#[inline]
fn tuple_key(ids: &[Vec<u32>], radix: &[u64], r: usize) -> u64 {
    ids.iter()
        .zip(radix)
        .fold(0u64, |k, (ids, &rad)| k * rad + ids[r] as u64)
}

/// Tuple key → code: a dense array when the key space is small, else a hash map.
enum TupleCodes {
    Dense(Vec<u32>),
    Hash(HashMap<u64, u32>),
}

impl TupleCodes {
    fn new(radix: &[u64]) -> TupleCodes {
        let combos: u64 = radix.iter().product();
        if combos <= 1 << 20 {
            TupleCodes::Dense(vec![MISS; combos as usize])
        } else {
            TupleCodes::Hash(HashMap::new())
        }
    }

    /// The code slot of key `k` ([`MISS`] while it has none).
    #[inline]
    fn entry(&mut self, k: u64) -> &mut u32 {
        match self {
            TupleCodes::Dense(d) => &mut d[k as usize],
            TupleCodes::Hash(h) => h.entry(k).or_insert(MISS),
        }
    }
}

/// [`number_tuples`] of the rows `start..start + code.len()` alone (`pass` and `ids`
/// over all rows): writes their codes, numbered from 0 in this chunk, and returns the
/// row where each first appears.
///
/// Whether a row passes is not branched on where it can be avoided: half of a
/// dimension's 800,000 rows passing mispredicts a branch per row (2.9 ms at SF 10 of a
/// plan of 12); a new tuple, which is rare, is the only branch. Where few rows pass (a
/// brand and a container among 800,000 parts: 0.6 %), a branch per row that is nearly
/// never taken skips the others (R12's plan 3.7 -> 2.8 ms).
fn number_chunk(
    ids: &[Vec<u32>],
    radix: &[u64],
    pass: &[bool],
    start: usize,
    code: &mut [u32],
) -> Vec<usize> {
    let pass = &pass[start..start + code.len()];
    let key = |r: usize| tuple_key(ids, radix, r);
    let mut codes = TupleCodes::new(radix);
    let mut firsts: Vec<usize> = Vec::new();
    let passing = pass.iter().filter(|&&p| p).count();
    if passing * 16 < pass.len() {
        for i in (0..pass.len()).filter(|&i| pass[i]) {
            let r = start + i;
            let next = firsts.len() as u32;
            let known = codes.entry(key(r));
            if *known == MISS {
                *known = next;
                firsts.push(r);
            }
            code[i] = *known;
        }
        return firsts;
    }
    for (i, (c, &p)) in code.iter_mut().zip(pass).enumerate() {
        let r = start + i;
        let k = key(r);
        let mut known = match &codes {
            TupleCodes::Dense(d) => d[k as usize],
            TupleCodes::Hash(h) if p => h.get(&k).copied().unwrap_or(MISS),
            TupleCodes::Hash(_) => MISS,
        };
        if p & (known == MISS) {
            known = firsts.len() as u32;
            firsts.push(r);
            *codes.entry(k) = known;
        }
        *c = if p { known } else { MISS };
    }
    firsts
}

#[cfg(test)]
mod tests {
    use super::{Workers, MIN_CHUNK, MISS};
    use crate::plan::xorshift;

    /// Tuples numbered in the order they first appear among the passing rows, the
    /// others missing: on every density (the branch-free pass and the sparse one), with a
    /// dense key space and with one too large for it (a hash map).
    #[test]
    fn tuples_are_numbered_in_order_of_first_appearance() {
        let mut next = xorshift(0x51_7cc1_b727_220au64);
        for radix in [vec![7u64], vec![3, 5], vec![1 << 12, 1 << 12]] {
            for per_64 in [0u64, 1, 3, 8, 32, 64] {
                let rows = 2_000;
                let ids: Vec<Vec<u32>> = radix
                    .iter()
                    .map(|&r| (0..rows).map(|_| (next() % r.min(9)) as u32).collect())
                    .collect();
                let pass: Vec<bool> = (0..rows).map(|_| next() % 64 < per_64).collect();
                // One thread, and chunks of 64 and 192 rows on three.
                let runs = [
                    (Workers::serial(), MIN_CHUNK),
                    (Workers::unpinned(3), 64),
                    (Workers::unpinned(3), 192),
                ];
                for (workers, min) in runs {
                    let (code, firsts) = super::number_tuples(&ids, &radix, &pass, &workers, min);
                    // By definition: a list of the tuples seen so far.
                    let mut seen: Vec<Vec<u32>> = Vec::new();
                    let mut want_firsts = Vec::new();
                    for r in 0..rows {
                        let t: Vec<u32> = ids.iter().map(|c| c[r]).collect();
                        let want = if !pass[r] {
                            MISS
                        } else if let Some(i) = seen.iter().position(|s| *s == t) {
                            i as u32
                        } else {
                            seen.push(t);
                            want_firsts.push(r);
                            seen.len() as u32 - 1
                        };
                        assert_eq!(code[r], want, "radix {radix:?} density {per_64}/64 row {r}");
                    }
                    assert_eq!(firsts, want_firsts, "radix {radix:?} density {per_64}/64");
                }
            }
        }
    }
}
