//! Encoding a column: its value ids and the dictionary (sorted values, or a frame of
//! reference for int columns, see [`frame_pays`]), NULL rows as the id one past the
//! dictionary, and the payload bytes of each of its structures.

use crate::builder::{ColumnData, StrColumn, NULL_STR_ID};
use crate::error::{Error, Result};
use crate::format::{ColumnEncoding, StructureKind};
use pmolap_kernels::bitpack;

/// A column's dictionary.
#[derive(Debug)]
pub(crate) enum DictData {
    Int(Vec<i64>),
    /// Frame of reference: id i is `min + i` for `i < len`.
    Frame {
        min: i64,
        len: usize,
    },
    Str {
        offsets: Vec<u64>,
        bytes: Vec<u8>,
    },
}

/// A column, encoded.
#[derive(Debug)]
pub(crate) struct Encoded {
    pub(crate) dict: DictData,
    pub(crate) codes: Vec<u32>,
    pub(crate) width: u32,
    /// NULL rows: their id is [`Encoded::distinct`], one past the dictionary.
    pub(crate) nulls: usize,
}

impl Encoded {
    /// Value ids the data vector holds: the dictionary's, and the NULL id when a row is
    /// NULL.
    pub(crate) fn ids(&self) -> usize {
        self.distinct() + usize::from(self.nulls > 0)
    }

    /// Value ids: distinct values, or the frame's range.
    pub(crate) fn distinct(&self) -> usize {
        match &self.dict {
            DictData::Int(v) => v.len(),
            DictData::Frame { len, .. } => *len,
            DictData::Str { offsets, .. } => offsets.len() - 1,
        }
    }

    pub(crate) fn encoding(&self) -> ColumnEncoding {
        match self.dict {
            DictData::Frame { .. } => ColumnEncoding::Frame,
            DictData::Int(_) | DictData::Str { .. } => ColumnEncoding::Dictionary,
        }
    }

    pub(crate) fn payload_len(&self, kind: StructureKind, rows: usize) -> usize {
        match kind {
            StructureKind::Dictionary => match &self.dict {
                DictData::Int(v) => v.len() * 8,
                DictData::Frame { .. } => 8,
                DictData::Str { offsets, bytes } => offsets.len() * 8 + bytes.len(),
            },
            StructureKind::DataVector => bitpack::words_for(rows, self.width) * 8,
            StructureKind::InvertedIndex => (self.ids() + 1) * 8 + rows * 4,
        }
    }

    pub(crate) fn write_payload(
        &self,
        kind: StructureKind,
        rows: usize,
        out: &mut [u8],
    ) -> Result<()> {
        match kind {
            StructureKind::Dictionary => match &self.dict {
                DictData::Int(v) => cast_mut::<i64>(out)?.copy_from_slice(v),
                DictData::Frame { min, .. } => cast_mut::<i64>(out)?.copy_from_slice(&[*min]),
                DictData::Str { offsets, bytes } => {
                    let (o, b) = out.split_at_mut(offsets.len() * 8);
                    cast_mut::<u64>(o)?.copy_from_slice(offsets);
                    b.copy_from_slice(bytes);
                }
            },
            StructureKind::DataVector => {
                bitpack::pack(&self.codes, self.width, cast_mut::<u64>(out)?);
            }
            StructureKind::InvertedIndex => {
                // NULL rows are listed under the NULL id, the last.
                let d = self.ids();
                let (o, r) = out.split_at_mut((d + 1) * 8);
                let offs = cast_mut::<u64>(o)?;
                let ids = cast_mut::<u32>(r)?;
                if ids.len() != rows {
                    return Err(Error::Internal("inverted index size".into()));
                }
                offs.fill(0);
                for &c in &self.codes {
                    offs[c as usize + 1] += 1;
                }
                for i in 0..d {
                    offs[i + 1] += offs[i];
                }
                // Fill with a cursor per value id (reusing offs[c] and restoring after).
                let mut cursor: Vec<u64> = offs[..d].to_vec();
                for (row, &c) in self.codes.iter().enumerate() {
                    let at = &mut cursor[c as usize];
                    ids[*at as usize] = row as u32;
                    *at += 1;
                }
            }
        }
        Ok(())
    }
}

fn cast_mut<T: bytemuck::Pod>(b: &mut [u8]) -> Result<&mut [T]> {
    let len = b.len();
    bytemuck::try_cast_slice_mut(b)
        .map_err(|e| Error::Internal(format!("payload cast of {len} bytes: {e:?}")))
}

/// Encodes a column; `nulls` marks its NULL rows (None: none), whose placeholders are
/// left out of the dictionary and whose id is one past it.
pub(crate) fn encode(data: ColumnData, nulls: Option<Vec<bool>>, frames: bool) -> Encoded {
    let nulls = nulls.filter(|n| n.contains(&true));
    let (dict, mut codes) = match (data, &nulls) {
        (ColumnData::Int(v), None) => encode_ints(v, frames),
        (ColumnData::Int(mut v), Some(n)) => {
            // Placeholders take a value the column has (none: an empty dictionary).
            match v.iter().zip(n).find(|(_, &n)| !n).map(|(&x, _)| x) {
                Some(fill) => {
                    for (x, _) in v.iter_mut().zip(n).filter(|(_, &n)| n) {
                        *x = fill;
                    }
                    match encode_ints(v.clone(), frames) {
                        // The NULL id (the frame's length) must fit 32 bits.
                        (DictData::Frame { len, .. }, _) if len > u32::MAX as usize => {
                            encode_ints(v, false)
                        }
                        e => e,
                    }
                }
                None => (DictData::Int(Vec::new()), vec![0; v.len()]),
            }
        }
        (ColumnData::Str(mut s), _) => {
            // Placeholders take the first string (none: every row is NULL).
            for id in s.ids.iter_mut().filter(|id| **id == NULL_STR_ID) {
                *id = 0;
            }
            if s.values.is_empty() {
                let rows = s.ids.len();
                (
                    DictData::Str {
                        offsets: vec![0],
                        bytes: Vec::new(),
                    },
                    vec![0; rows],
                )
            } else {
                encode_strs(s)
            }
        }
    };
    let mut e = Encoded {
        dict,
        codes: Vec::new(),
        width: 1,
        nulls: 0,
    };
    if let Some(n) = &nulls {
        let null = e.distinct() as u32;
        for (c, _) in codes.iter_mut().zip(n).filter(|(_, &n)| n) {
            *c = null;
        }
        e.nulls = n.iter().filter(|&&n| n).count();
    }
    e.codes = codes;
    e.width = bitpack::width_for(e.ids());
    e
}

/// The fewest distinct values for which a frame of reference may cost wider ids than
/// the dictionary's: a smaller dictionary (≤ 32 KiB) stays in the L1 cache, where a
/// lookup is cheap enough not to pay for reading more bits on every scan.
pub const FRAME_MIN_DISTINCT: usize = 1 << 12;
/// The most extra id bits a frame of at least [`FRAME_MIN_DISTINCT`] values may cost
/// over the dictionary's ids (its range may be up to 2^4 = 16 times the number of
/// distinct values): a wider id is read by every scan of the column, but a lookup into a
/// dictionary beyond the caches costs a miss per decoded row.
pub const FRAME_MAX_EXTRA_BITS: u32 = 4;
/// The fewest distinct values from which a frame of reference is used however many extra
/// id bits it costs (its range below 2^32): a dictionary of 2^18 values (2 MiB) or more
/// lies beyond the L2 cache, and decoding a row through it reads a cache line at random
/// (64 bytes from L3 or memory), where the frame's wider id costs at most 4 bytes more,
/// read in sequence. A retail star's `lo_revenue` (DECIMAL(15,4): 2.1 M distinct values
/// over a range of 10^9 at 3 M rows, 8 extra bits) summed over every row spent most of its
/// time in those lookups.
pub const FRAME_ALWAYS_DISTINCT: usize = 1 << 18;

/// Whether an int column of `distinct` values in a range of `range` values is encoded as
/// a frame of reference (see [`ColumnEncoding::Frame`]): always when its ids are no
/// wider than the dictionary's (`lo_quantity`: 1..=50; a decode is then an addition
/// instead of a lookup, for nothing), and for [`FRAME_MIN_DISTINCT`] values or more when
/// they are at most [`FRAME_MAX_EXTRA_BITS`] wider; and from [`FRAME_ALWAYS_DISTINCT`]
/// values whenever the range is below 2^32.
pub fn frame_pays(distinct: usize, range: u128) -> bool {
    if range > 1 << 32 || distinct == 0 {
        return false;
    }
    if distinct >= FRAME_ALWAYS_DISTINCT && range < 1 << 32 {
        return true;
    }
    let extra = bitpack::width_for(range as usize) - bitpack::width_for(distinct);
    extra == 0 || (distinct >= FRAME_MIN_DISTINCT && extra <= FRAME_MAX_EXTRA_BITS)
}

fn encode_ints(v: Vec<i64>, frames: bool) -> (DictData, Vec<u32>) {
    let (Some(&min), Some(&max)) = (v.iter().min(), v.iter().max()) else {
        return (DictData::Int(Vec::new()), Vec::new());
    };
    let range = (max as i128 - min as i128) as u128 + 1;
    let dense_limit = (4 * v.len() as u128).clamp(1 << 16, 1 << 28);
    if range <= dense_limit {
        // Dense value range: a presence table turned into a value → id table.
        let mut table = vec![0u32; range as usize];
        for &x in &v {
            table[(x.wrapping_sub(min)) as u64 as usize] = 1;
        }
        let distinct = table.iter().filter(|&&t| t != 0).count();
        if frames && frame_pays(distinct, range) {
            return frame(&v, min, range);
        }
        let mut dict = Vec::new();
        for (i, t) in table.iter_mut().enumerate() {
            if *t != 0 {
                *t = dict.len() as u32;
                dict.push(min.wrapping_add(i as i64));
            }
        }
        let codes = v
            .iter()
            .map(|&x| table[(x.wrapping_sub(min)) as u64 as usize])
            .collect();
        (DictData::Int(dict), codes)
    } else {
        let mut dict = v.clone();
        dict.sort_unstable();
        dict.dedup();
        if frames && frame_pays(dict.len(), range) {
            return frame(&v, min, range);
        }
        let codes = v
            .iter()
            .map(|x| dict.partition_point(|d| d < x) as u32)
            .collect();
        (DictData::Int(dict), codes)
    }
}

/// `v` as a frame of reference: ids `x - min` (`range` ≤ 2^32, checked by the caller).
fn frame(v: &[i64], min: i64, range: u128) -> (DictData, Vec<u32>) {
    let codes = v.iter().map(|&x| x.wrapping_sub(min) as u32).collect();
    let len = range as usize;
    (DictData::Frame { min, len }, codes)
}

fn encode_strs(s: StrColumn) -> (DictData, Vec<u32>) {
    let (ids, values) = s.into_parts();
    let mut order: Vec<u32> = (0..values.len() as u32).collect();
    order.sort_unstable_by(|&a, &b| {
        values[a as usize]
            .as_bytes()
            .cmp(values[b as usize].as_bytes())
    });
    let mut remap = vec![0u32; values.len()];
    let mut offsets = Vec::with_capacity(values.len() + 1);
    let mut bytes = Vec::new();
    offsets.push(0u64);
    for (code, &old) in order.iter().enumerate() {
        remap[old as usize] = code as u32;
        bytes.extend_from_slice(values[old as usize].as_bytes());
        offsets.push(bytes.len() as u64);
    }
    let codes = ids.iter().map(|&i| remap[i as usize]).collect();
    (DictData::Str { offsets, bytes }, codes)
}

#[cfg(test)]
mod tests {
    use super::{frame_pays, FRAME_ALWAYS_DISTINCT, FRAME_MIN_DISTINCT};

    /// A frame when its ids are no wider, when a dictionary of at least
    /// `FRAME_MIN_DISTINCT` values saves at most 4 bits, and, beyond the caches, whenever
    /// the range fits 32-bit ids.
    #[test]
    fn frames_pay_when_narrow_or_beyond_the_caches() {
        assert!(frame_pays(50, 64));
        assert!(!frame_pays(50, 4901));
        assert!(frame_pays(
            FRAME_MIN_DISTINCT,
            16 * FRAME_MIN_DISTINCT as u128
        ));
        assert!(!frame_pays(
            FRAME_MIN_DISTINCT,
            32 * FRAME_MIN_DISTINCT as u128
        ));
        // lo_revenue of a retail star at 3 M rows: 2.1 M values over a range of 10^9.
        assert!(frame_pays(2_149_716, 1_049_495_001));
        assert!(frame_pays(FRAME_ALWAYS_DISTINCT, (1 << 32) - 1));
        assert!(!frame_pays(FRAME_ALWAYS_DISTINCT - 1, 1 << 30));
        assert!(!frame_pays(FRAME_ALWAYS_DISTINCT, 1 << 32));
        assert!(!frame_pays(FRAME_ALWAYS_DISTINCT, 1 << 40));
    }
}
