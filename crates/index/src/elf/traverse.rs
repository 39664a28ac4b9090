//! The one Elf traversal: exact-match and window (range, partial-match) queries over the
//! linearized array, generic over how a list is read ([`ListSource`]): straight from the
//! array ([`Words`], [`super::Elf`]'s own queries) or through a caching variant
//! ([`super::cache`]). Monomorphised per source, so the plain array pays for no caching.

use super::{EMPTY, FLAG, PRELUDE, VALUE_MASK};

/// Where list reads come from; one implementation per caching variant (and [`Words`]), so
/// that the traversal is monomorphised per source.
pub(crate) trait ListSource {
    /// The dense first dimension (`C` words).
    fn dense(&mut self) -> &[u32];
    /// Words starting at the DimensionList at `off` (dimension `level`, 1..D). `up`: the
    /// parent list was served from DRAM. Returns the words and whether they are in DRAM.
    fn list(&mut self, off: usize, level: usize, up: bool) -> (&[u32], bool);
    /// Words starting at a MonoList or TID list at `off`.
    fn rest(&mut self, off: usize) -> &[u32];
}

/// The array itself, uncounted: [`super::Elf`]'s queries.
pub(crate) struct Words<'a>(pub &'a [u32]);

impl ListSource for Words<'_> {
    #[inline]
    fn dense(&mut self) -> &[u32] {
        &self.0[PRELUDE..PRELUDE + self.0[1] as usize]
    }
    #[inline]
    fn list(&mut self, off: usize, _level: usize, _up: bool) -> (&[u32], bool) {
        (&self.0[off..], false)
    }
    #[inline]
    fn rest(&mut self, off: usize) -> &[u32] {
        &self.0[off..]
    }
}

/// Appends the TIDs of TID word `t`.
#[inline]
fn emit<S: ListSource>(s: &mut S, t: u32, out: &mut Vec<u32>) {
    if t & FLAG == 0 {
        out.push(t);
    } else {
        let tids = s.rest((t & VALUE_MASK) as usize);
        let n = tids[0] as usize;
        out.extend_from_slice(&tids[1..1 + n]);
    }
}

/// Appends the TIDs of the rows equal to `key` (`d` values).
pub(crate) fn exact<S: ListSource>(s: &mut S, d: usize, key: &[u32], out: &mut Vec<u32>) {
    let dense = s.dense();
    let v0 = key[0] as usize;
    if v0 >= dense.len() {
        return;
    }
    let mut p = dense[v0];
    if p == EMPTY {
        return;
    }
    let mut up = true;
    let mut level = 1;
    loop {
        if level == d {
            emit(s, p, out);
            return;
        }
        let off = (p & VALUE_MASK) as usize;
        if p & FLAG != 0 {
            let m = s.rest(off);
            if m[..d - level] == key[level..] {
                let t = m[d - level];
                emit(s, t, out);
            }
            return;
        }
        let want = key[level];
        let (l, dram) = s.list(off, level, up);
        up = dram;
        let mut i = 0;
        loop {
            let e = l[i];
            let v = e & VALUE_MASK;
            if v == want {
                p = l[i + 1];
                break;
            }
            if v > want || e & FLAG != 0 {
                return;
            }
            i += 2;
        }
        level += 1;
    }
}

/// Appends the TIDs of the rows inside `lo..=hi` (`d` values each), in key order.
pub(crate) fn range<S: ListSource>(
    s: &mut S,
    d: usize,
    lo: &[u32],
    hi: &[u32],
    out: &mut Vec<u32>,
) {
    // One scratch vector of child pointers per level, so a list's borrow ends before the
    // recursion reads the next one.
    let mut scratch: Vec<Vec<u32>> = vec![Vec::new(); d + 1];
    let dense = s.dense();
    let card0 = dense.len() as u32;
    if card0 == 0 || lo[0] > hi[0] || lo[0] >= card0 {
        return;
    }
    let (first, rest) = scratch.split_first_mut().expect("d >= 1");
    first.extend(
        dense[lo[0] as usize..=hi[0].min(card0 - 1) as usize]
            .iter()
            .copied()
            .filter(|&p| p != EMPTY),
    );
    for &p in first.iter() {
        descend(s, d, p, 1, true, lo, hi, rest, out);
    }
}

/// Window search below pointer `p` at `level` (1..=d); `up`: the parent list was in DRAM.
#[allow(clippy::too_many_arguments)]
fn descend<S: ListSource>(
    s: &mut S,
    d: usize,
    p: u32,
    level: usize,
    up: bool,
    lo: &[u32],
    hi: &[u32],
    scratch: &mut [Vec<u32>],
    out: &mut Vec<u32>,
) {
    if level == d {
        emit(s, p, out);
        return;
    }
    let off = (p & VALUE_MASK) as usize;
    if p & FLAG != 0 {
        let n = d - level;
        let m = s.rest(off);
        for (i, &v) in m[..n].iter().enumerate() {
            if v < lo[level + i] || v > hi[level + i] {
                return;
            }
        }
        let t = m[n];
        emit(s, t, out);
        return;
    }
    let (l, h) = (lo[level], hi[level]);
    let (mine, rest) = scratch.split_first_mut().expect("one scratch per level");
    mine.clear();
    let (list, dram) = s.list(off, level, up);
    let mut i = 0;
    loop {
        let e = list[i];
        let v = e & VALUE_MASK;
        if v > h {
            break;
        }
        if v >= l {
            mine.push(list[i + 1]);
        }
        if e & FLAG != 0 {
            break;
        }
        i += 2;
    }
    // `mine` is reused by deeper calls at this level only after we are done with it: the
    // recursion below uses `rest`.
    for &c in mine.iter() {
        descend(s, d, c, level + 1, dram, lo, hi, rest, out);
    }
}
