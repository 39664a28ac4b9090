//! The group steps of the probe: a join's group codes looked up by the selected rows'
//! fact ids (from a table narrowed to the codes' integers), or a fact column's ids taken as
//! codes; the rows' group ids written without compacting the selection.

use super::morsel::{LutRef, TestRef};
use crate::plan::MISS;

/// An entry of a [`LutRef`]: widened to a group code, the type's largest value a miss.
trait LutCode: Copy + Into<u32> {
    const MISS: Self;
}
impl LutCode for u8 {
    const MISS: u8 = u8::MAX;
}
impl LutCode for u16 {
    const MISS: u16 = u16::MAX;
}
impl LutCode for u32 {
    const MISS: u32 = MISS;
}

/// The group codes of `ids` from table `l` (see [`group_codes`]); whether one missed.
#[inline(always)]
fn lookup_codes<T: LutCode>(
    first: bool,
    ids: &[u32],
    l: &[T],
    stride: u32,
    gid: &mut [u32],
) -> bool {
    let mut miss = false;
    for (g, &id) in gid.iter_mut().zip(ids) {
        let c = l.get(id as usize).copied().unwrap_or(T::MISS);
        miss |= c.into() == T::MISS.into();
        let base = if first { 0 } else { *g };
        *g = base.wrapping_add(c.into().wrapping_mul(stride));
    }
    miss
}

/// Whether value id `id` has a code in table `l`.
fn lut_hit<T: LutCode>(l: &[T], id: u32) -> bool {
    l.get(id as usize)
        .is_some_and(|&c| c.into() != T::MISS.into())
}

/// The group ids of the selected rows from a group-code step's ids (`ids[j]` of row
/// `sel[j]`): `gid[j] = gid[j] + code * stride`, the first step starting from 0. Writes
/// every row and returns whether a row missed (a key no dimension row carries, an id past
/// the dictionary): never in a sound store, as the join's filter step ran before and
/// dropped the keys that miss — the caller then drops those rows ([`drop_misses`]).
/// Nothing is compacted, so the lookups are independent loads.
#[inline(always)]
pub(super) fn group_codes(
    first: bool,
    ids: &[u32],
    test: TestRef<'_>,
    stride: u32,
    gid: &mut [u32],
) -> bool {
    let mut miss = false;
    let gid = &mut gid[..ids.len()];
    match test {
        TestRef::Lookup(LutRef::U8(l)) => miss = lookup_codes(first, ids, l, stride, gid),
        TestRef::Lookup(LutRef::U16(l)) => miss = lookup_codes(first, ids, l, stride, gid),
        TestRef::Lookup(LutRef::U32(l)) => miss = lookup_codes(first, ids, l, stride, gid),
        TestRef::Code { len } => {
            for (g, &id) in gid.iter_mut().zip(ids) {
                miss |= id >= len;
                let base = if first { 0 } else { *g };
                *g = base.wrapping_add(id.wrapping_mul(stride));
            }
        }
        TestRef::Range { .. } | TestRef::Bits(_) | TestRef::Ranges(_) => {
            unreachable!("a filter is not a group step")
        }
    }
    miss
}

/// Drops the rows whose group code missed (see [`group_codes`]): keeps `sel[j]` and
/// `gid[j]` where `ids[j]` hits; returns the rows left.
#[cold]
#[inline(never)]
pub(super) fn drop_misses(
    ids: &[u32],
    test: TestRef<'_>,
    sel: &mut [u32],
    gid: &mut [u32],
) -> usize {
    let hit = |id: u32| match test {
        TestRef::Lookup(LutRef::U8(l)) => lut_hit(l, id),
        TestRef::Lookup(LutRef::U16(l)) => lut_hit(l, id),
        TestRef::Lookup(LutRef::U32(l)) => lut_hit(l, id),
        TestRef::Code { len } => id < len,
        TestRef::Range { .. } | TestRef::Bits(_) | TestRef::Ranges(_) => true,
    };
    let mut m = 0;
    for (j, &id) in ids.iter().enumerate() {
        if hit(id) {
            sel[m] = sel[j];
            gid[m] = gid[j];
            m += 1;
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::{drop_misses, group_codes};
    use crate::exec::morsel::{LutRef, TestRef};
    use crate::plan::MISS;

    #[test]
    fn group_codes_write_every_row_and_drop_only_misses() {
        // A lookup: codes 5 and 7, key 1 misses, id 9 lies past the table.
        let lut = [5, MISS, 7];
        let ids = [0, 2, 1, 0, 9];
        let mut sel = [10, 11, 12, 13, 14];
        let mut gid = [0; 5];
        assert!(group_codes(
            true,
            &ids,
            TestRef::Lookup(LutRef::U32(&lut)),
            3,
            &mut gid
        ));
        assert_eq!((gid[0], gid[1], gid[3]), (15, 21, 15));
        let k = drop_misses(&ids, TestRef::Lookup(LutRef::U32(&lut)), &mut sel, &mut gid);
        assert_eq!(
            (&sel[..k], &gid[..k]),
            (&[10, 11, 13][..], &[15, 21, 15][..])
        );
        // A later step adds its code times its stride to the rows' group ids.
        let mut gid = [1, 2];
        assert!(!group_codes(
            false,
            &[2, 0],
            TestRef::Lookup(LutRef::U32(&lut)),
            10,
            &mut gid
        ));
        assert_eq!(gid, [71, 52]);
        // The same table narrowed to bytes reads the same codes and misses.
        let narrow = crate::plan::Lut::narrow(lut.to_vec(), 8);
        let l8 = LutRef::of(&narrow, narrow.bytes());
        assert!(matches!(l8, LutRef::U8(_)));
        let (mut sel, mut gid) = ([10, 11, 12, 13, 14], [0; 5]);
        assert!(group_codes(true, &ids, TestRef::Lookup(l8), 3, &mut gid));
        let k = drop_misses(&ids, TestRef::Lookup(l8), &mut sel, &mut gid);
        assert_eq!(
            (&sel[..k], &gid[..k]),
            (&[10, 11, 13][..], &[15, 21, 15][..])
        );
        // A group code (a fact column's id): ids from `len` up miss.
        let ids = [1, 3, 4];
        let mut sel = [0, 1, 2];
        let mut gid = [10, 20, 30];
        let code = TestRef::Code { len: 4 };
        assert!(group_codes(false, &ids, code, 2, &mut gid));
        assert_eq!(&gid[..2], &[12, 26]);
        let k = drop_misses(&ids, code, &mut sel, &mut gid);
        assert_eq!((&sel[..k], &gid[..k]), (&[0, 1][..], &[12, 26][..]));
    }
}
