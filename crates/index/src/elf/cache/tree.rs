//! Whole-tree walks that choose what a cache keeps: every DimensionList with the rows below
//! it ([`lists`], for probability-based caching) and the static cut of the first levels
//! ([`static_cut`]).

use super::dynamic::FastMap;
use crate::elf::{Elf, EMPTY, FLAG, PRELUDE, VALUE_MASK};

/// One DimensionList of the tree: offset, dimension, length in words, rows below it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListInfo {
    pub offset: u32,
    pub level: u32,
    pub words: u32,
    pub rows: u64,
}

/// All DimensionLists below the dense first dimension (levels 1..D), with the rows below
/// each, by a walk of the whole tree.
pub fn lists(elf: &Elf) -> Vec<ListInfo> {
    let w = elf.words();
    let d = elf.dims();
    let mut out = Vec::new();
    if w.len() < PRELUDE {
        return out;
    }
    for &p in &w[PRELUDE..PRELUDE + w[1] as usize] {
        if p != EMPTY {
            walk(w, d, p, 1, &mut out);
        }
    }
    out
}

fn tid_count(w: &[u32], t: u32) -> u64 {
    if t & FLAG == 0 {
        1
    } else {
        u64::from(w[(t & VALUE_MASK) as usize])
    }
}

/// Rows below pointer `p` at `level`, recording the DimensionLists met.
fn walk(w: &[u32], d: usize, p: u32, level: usize, out: &mut Vec<ListInfo>) -> u64 {
    if level == d {
        return tid_count(w, p);
    }
    let off = (p & VALUE_MASK) as usize;
    if p & FLAG != 0 {
        return tid_count(w, w[off + d - level]);
    }
    let idx = out.len();
    out.push(ListInfo {
        offset: off as u32,
        level: level as u32,
        words: 0,
        rows: 0,
    });
    let mut i = off;
    let mut rows = 0;
    loop {
        rows += walk(w, d, w[i + 1], level + 1, out);
        if w[i] & FLAG != 0 {
            break;
        }
        i += 2;
    }
    out[idx].words = (i + 2 - off) as u32;
    out[idx].rows = rows;
    rows
}

/// The word after the last DimensionList of dimensions `< levels` (the dense array is
/// dimension 0): the static cut. Walks only those levels, so it reads no more of the
/// array than the static cache copies.
pub fn static_cut(elf: &Elf, levels: usize) -> usize {
    let w = elf.words();
    let d = elf.dims();
    if levels == 0 || w.len() < PRELUDE {
        return 0;
    }
    let mut cut = PRELUDE + w[1] as usize;
    if levels < 2 {
        return cut;
    }
    // Breadth first over the DimensionLists of levels 1..levels.
    let mut frontier: Vec<usize> = w[PRELUDE..cut]
        .iter()
        .filter(|&&p| p != EMPTY && p & FLAG == 0 && d > 1)
        .map(|&p| p as usize)
        .collect();
    for level in 1..levels.min(d) {
        let mut next = Vec::new();
        for &off in &frontier {
            let mut i = off;
            loop {
                let p = w[i + 1];
                if level + 1 < d && p & FLAG == 0 {
                    next.push(p as usize);
                }
                if w[i] & FLAG != 0 {
                    break;
                }
                i += 2;
            }
            cut = cut.max(i + 2);
        }
        frontier = next;
    }
    cut
}

/// The probability variant's DRAM part: the dense first dimension, then the DimensionLists
/// of highest traversal probability up to `budget_bytes`; `map` from PM offset to offset in
/// the returned buffer.
pub(super) fn select_by_probability(elf: &Elf, budget_bytes: usize) -> (Vec<u32>, FastMap<u32>) {
    let pm = elf.words();
    let mut all = lists(elf);
    // Highest probability first; parents (lower offsets) before children of
    // equal probability, so every prefix of this order is closed under parents.
    all.sort_unstable_by(|a, b| b.rows.cmp(&a.rows).then(a.offset.cmp(&b.offset)));
    let c = if pm.len() >= PRELUDE {
        pm[1] as usize
    } else {
        0
    };
    let mut buf = pm[PRELUDE.min(pm.len())..PRELUDE.min(pm.len()) + c].to_vec();
    let mut map = FastMap::default();
    for l in all {
        let add = 4 * l.words as usize;
        if 4 * buf.len() + add > budget_bytes.max(4 * c) {
            break;
        }
        map.insert(l.offset, buf.len() as u32);
        let s = l.offset as usize;
        buf.extend_from_slice(&pm[s..s + l.words as usize]);
    }
    (buf, map)
}
