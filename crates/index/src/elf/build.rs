//! Linearization: sorts the rows and lays the Elf out as one `Vec<u32>` in level order
//! (word layout in the [module docs](super)).

use std::collections::VecDeque;

use super::{EMPTY, FLAG, MAX_DENSE, MAX_DIMS, MAX_VALUE, MAX_WORDS, PRELUDE, VALUE_MASK};
use crate::error::{Error, Result};

/// Checks the shape and value widths of `flat` (row-major, `dims` values per row).
pub(crate) fn check_input(dims: usize, flat: &[u32]) -> Result<usize> {
    if dims == 0 || dims > MAX_DIMS {
        return Err(Error::Dimensions {
            dims,
            max: MAX_DIMS,
        });
    }
    if !flat.len().is_multiple_of(dims) {
        return Err(Error::BadRows(format!(
            "{} values is not a multiple of {dims} dimensions",
            flat.len()
        )));
    }
    let rows = flat.len() / dims;
    if rows > VALUE_MASK as usize {
        return Err(Error::TooLarge(format!(
            "{rows} rows; TIDs are 31 bits (at most {VALUE_MASK} rows)"
        )));
    }
    for (i, &v) in flat.iter().enumerate() {
        let (row, dim) = (i / dims, i % dims);
        let max = if dim == 0 { MAX_DENSE - 1 } else { MAX_VALUE };
        if v > max {
            return Err(Error::ValueTooWide {
                row,
                dim,
                value: v,
                max,
            });
        }
    }
    Ok(rows)
}

/// A group of sorted rows sharing a prefix, whose node goes into `slot` once laid out.
struct Task {
    level: usize,
    start: usize,
    end: usize,
    slot: usize,
}

/// Builds the linearized word array of `flat` (`dims` values per row; TID = row number).
pub(crate) fn linearize(dims: usize, flat: &[u32]) -> Result<Vec<u32>> {
    let rows = check_input(dims, flat)?;
    let row = |r: u32| &flat[r as usize * dims..r as usize * dims + dims];
    let mut perm: Vec<u32> = (0..rows as u32).collect();
    // Lexicographic by values, then by TID, so duplicates list their TIDs ascending and
    // the layout is a pure function of the input.
    perm.sort_unstable_by(|&a, &b| row(a).cmp(row(b)).then(a.cmp(&b)));

    let card0 = perm.last().map_or(0, |&r| row(r)[0] as usize + 1);
    let mut words = Vec::with_capacity(PRELUDE + card0 + rows * 2);
    words.push(dims as u32);
    words.push(card0 as u32);
    words.resize(PRELUDE + card0, EMPTY);

    let mut queue = VecDeque::new();
    for_each_group(
        &perm,
        0,
        rows,
        |r| row(r)[0],
        |v, s, e| {
            let slot = PRELUDE + v as usize;
            if dims == 1 {
                let t = tid_word(&mut words, &perm[s..e]);
                words[slot] = t;
            } else {
                queue.push_back(Task {
                    level: 1,
                    start: s,
                    end: e,
                    slot,
                });
            }
        },
    );

    while let Some(t) = queue.pop_front() {
        let first = row(perm[t.start]);
        let last = row(perm[t.end - 1]);
        if first[t.level..] == last[t.level..] {
            // One distinct suffix: a MonoList (sorted, so first == last means all equal).
            let off = words.len();
            words.extend_from_slice(&first[t.level..]);
            words.push(0);
            let tw = tid_word(&mut words, &perm[t.start..t.end]);
            words[off + dims - t.level] = tw;
            words[t.slot] = FLAG | checked_offset(off)?;
            continue;
        }
        // A DimensionList: one (value, pointer) entry per distinct value at this level.
        let off = words.len();
        words[t.slot] = checked_offset(off)?;
        let mut groups = Vec::new();
        for_each_group(
            &perm,
            t.start,
            t.end,
            |r| row(r)[t.level],
            |v, s, e| {
                groups.push((s, e));
                words.push(v);
                words.push(EMPTY);
            },
        );
        let n = words.len();
        words[n - 2] |= FLAG; // the last entry of the list
        for (i, (s, e)) in groups.into_iter().enumerate() {
            let slot = off + 2 * i + 1;
            if t.level + 1 == dims {
                let tw = tid_word(&mut words, &perm[s..e]);
                words[slot] = tw;
            } else {
                queue.push_back(Task {
                    level: t.level + 1,
                    start: s,
                    end: e,
                    slot,
                });
            }
        }
        if words.len() > MAX_WORDS {
            return Err(too_large(words.len()));
        }
    }
    if words.len() > MAX_WORDS {
        return Err(too_large(words.len()));
    }
    Ok(words)
}

fn too_large(words: usize) -> Error {
    Error::TooLarge(format!(
        "{words}+ words; offsets are 31 bits (at most {MAX_WORDS} words)"
    ))
}

fn checked_offset(off: usize) -> Result<u32> {
    if off >= MAX_WORDS {
        return Err(too_large(off));
    }
    Ok(off as u32)
}

/// Calls `f(value, start, end)` for each run of equal `key` in `perm[start..end]`.
fn for_each_group(
    perm: &[u32],
    start: usize,
    end: usize,
    key: impl Fn(u32) -> u32,
    mut f: impl FnMut(u32, usize, usize),
) {
    let mut s = start;
    while s < end {
        let v = key(perm[s]);
        let mut e = s + 1;
        while e < end && key(perm[e]) == v {
            e += 1;
        }
        f(v, s, e);
        s = e;
    }
}

/// The TID word of a full key: the TID itself, or `FLAG | offset` of `[count, tids…]`.
fn tid_word(words: &mut Vec<u32>, tids: &[u32]) -> u32 {
    if let [t] = tids {
        return *t;
    }
    let off = words.len();
    words.push(tids.len() as u32);
    words.extend_from_slice(tids);
    // Offsets past MAX_WORDS are caught by the size check after each list.
    FLAG | (off.min(MAX_WORDS) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_of_a_small_example() {
        // Rows (TID): (0) 1 2 3, (1) 1 2 4, (2) 1 5 6, (3) 0 7 7, (4) 1 2 4 duplicate of 1.
        let flat = [1, 2, 3, 1, 2, 4, 1, 5, 6, 0, 7, 7, 1, 2, 4];
        let w = linearize(3, &flat).unwrap();
        #[rustfmt::skip]
        let expect: Vec<u32> = vec![
            3, 2,               // 0: D, C
            FLAG | 4, 7,        // 2: dense: 0 → MonoList at 4, 1 → DimensionList at 7
            7, 7, 3,            // 4: MonoList (7, 7), TID 3
            2, 11, 5 | FLAG, FLAG | 18, // 7: under 1: 2 → list at 11, 5 (last) → MonoList at 18
            3, 0, 4 | FLAG, FLAG | 15,  // 11: under (1, 2): 3 → TID 0, 4 (last) → TID list at 15
            2, 1, 4,            // 15: TID list: 2 TIDs, 1 and 4
            6, 2,               // 18: MonoList (6), TID 2
        ];
        assert_eq!(w, expect);
    }

    #[test]
    fn rejects_bad_shapes_and_wide_values() {
        assert!(matches!(linearize(0, &[]), Err(Error::Dimensions { .. })));
        assert!(matches!(
            linearize(MAX_DIMS + 1, &[]),
            Err(Error::Dimensions { .. })
        ));
        assert!(matches!(linearize(2, &[1, 2, 3]), Err(Error::BadRows(_))));
        let e = linearize(2, &[MAX_DENSE, 0]).unwrap_err();
        assert!(matches!(e, Error::ValueTooWide { dim: 0, .. }), "{e}");
        let e = linearize(2, &[0, 0, 0, MAX_VALUE + 1]).unwrap_err();
        assert!(
            matches!(e, Error::ValueTooWide { row: 1, dim: 1, .. }),
            "{e}"
        );
        assert_eq!(linearize(2, &[]).unwrap(), vec![2, 0]);
    }
}
