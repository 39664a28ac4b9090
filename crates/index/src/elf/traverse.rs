//! The one Elf traversal: exact-match and window (range, partial-match) queries over the
//! linearized array, generic over how a list is read ([`ListSource`]): straight from the
//! array ([`Words`], [`super::Elf`]'s own queries) or through a caching variant
//! ([`super::cache`]). Monomorphised per source, so the plain array pays for no caching.

use super::{EMPTY, FLAG, PRELUDE, VALUE_MASK};

/// Where list reads come from; one implementation per caching variant (and [`Words`]), so
/// that the traversal is monomorphised per source. `'w`: the lifetime of the words a
/// [`ListSource::stable`] source reads.
pub(crate) trait ListSource<'w> {
    /// `Some(array)` when every read is a plain, uncounted read of one array that outlives
    /// the traversal ([`Words`]): a window search then recurses straight from a list
    /// instead of copying its children out first (a cached list may be evicted while the
    /// recursion reads others). `None` by default.
    #[inline]
    fn stable(&self) -> Option<&'w [u32]> {
        None
    }
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

impl<'w> ListSource<'w> for Words<'w> {
    #[inline]
    fn stable(&self) -> Option<&'w [u32]> {
        Some(self.0)
    }
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
fn emit<'w, S: ListSource<'w>>(s: &mut S, t: u32, out: &mut Vec<u32>) {
    if t & FLAG == 0 {
        out.push(t);
    } else {
        let tids = s.rest((t & VALUE_MASK) as usize);
        let n = tids[0] as usize;
        out.extend_from_slice(&tids[1..1 + n]);
    }
}

/// Appends the TIDs of the rows equal to `key` (`d` values).
pub(crate) fn exact<'w, S: ListSource<'w>>(s: &mut S, d: usize, key: &[u32], out: &mut Vec<u32>) {
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
pub(crate) fn range<'w, S: ListSource<'w>>(
    s: &mut S,
    d: usize,
    lo: &[u32],
    hi: &[u32],
    out: &mut Vec<u32>,
) {
    let mut q = Window { d, lo, hi, out };
    if let Some(w) = s.stable() {
        let dense = &w[PRELUDE..PRELUDE + w[1] as usize];
        for &p in dense_window(dense, lo[0], hi[0]) {
            if p != EMPTY {
                descend(s, &mut q, p, 1, true, &mut []);
            }
        }
        return;
    }
    // One scratch vector of child pointers per level, so a list's borrow ends before the
    // recursion reads the next one.
    let mut scratch: Vec<Vec<u32>> = vec![Vec::new(); d + 1];
    let (first, rest) = scratch.split_first_mut().expect("d >= 1");
    first.extend(
        dense_window(s.dense(), lo[0], hi[0])
            .iter()
            .copied()
            .filter(|&p| p != EMPTY),
    );
    for &p in first.iter() {
        descend(s, &mut q, p, 1, true, rest);
    }
}

/// A window search under way: the number of dimensions, the bounds and the TIDs found.
struct Window<'q> {
    d: usize,
    lo: &'q [u32],
    hi: &'q [u32],
    out: &'q mut Vec<u32>,
}

/// The pointers of the dense first dimension for values `lo..=hi`.
#[inline]
fn dense_window(dense: &[u32], lo: u32, hi: u32) -> &[u32] {
    let card0 = dense.len() as u32;
    if card0 == 0 || lo > hi || lo >= card0 {
        return &[];
    }
    &dense[lo as usize..=hi.min(card0 - 1) as usize]
}

/// Calls `f` with the pointer of every entry of the DimensionList `list` whose value is in
/// `l..=h` (values ascending, the last entry flagged).
#[inline(always)]
fn in_window(list: &[u32], l: u32, h: u32, mut f: impl FnMut(u32)) {
    let mut i = 0;
    loop {
        let e = list[i];
        let v = e & VALUE_MASK;
        if v > h {
            return;
        }
        if v >= l {
            f(list[i + 1]);
        }
        if e & FLAG != 0 {
            return;
        }
        i += 2;
    }
}

/// Window search below pointer `p` at `level` (1..=d); `up`: the parent list was in DRAM.
/// `scratch`: one vector per level below (unused by a [`ListSource::stable`] source).
fn descend<'w, S: ListSource<'w>>(
    s: &mut S,
    q: &mut Window<'_>,
    p: u32,
    level: usize,
    up: bool,
    scratch: &mut [Vec<u32>],
) {
    let d = q.d;
    if level == d {
        emit(s, p, q.out);
        return;
    }
    let off = (p & VALUE_MASK) as usize;
    if p & FLAG != 0 {
        let n = d - level;
        let m = s.rest(off);
        for (i, &v) in m[..n].iter().enumerate() {
            if v < q.lo[level + i] || v > q.hi[level + i] {
                return;
            }
        }
        let t = m[n];
        emit(s, t, q.out);
        return;
    }
    let (l, h) = (q.lo[level], q.hi[level]);
    if let Some(w) = s.stable() {
        // The array outlives the traversal: recurse straight from the list.
        in_window(&w[off..], l, h, |c| {
            descend(s, q, c, level + 1, false, scratch)
        });
        return;
    }
    let (mine, rest) = scratch.split_first_mut().expect("one scratch per level");
    mine.clear();
    let (list, dram) = s.list(off, level, up);
    in_window(list, l, h, |c| mine.push(c));
    // `mine` is reused by deeper calls at this level only after we are done with it: the
    // recursion below uses `rest`.
    for &c in mine.iter() {
        descend(s, q, c, level + 1, dram, rest);
    }
}
