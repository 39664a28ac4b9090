//! Baselines the Elf is measured against, on the same data and the same tier:
//!
//! - [`ColumnScan`]: one column per dimension (column-major `u32`), scanned in blocks of
//!   [`BLOCK`] rows with a branch-free, vectorisable predicate loop per column.
//! - [`SortedProjection`]: the rows (each followed by its TID) sorted by the first
//!   dimension (then TID); a query binary-searches the first dimension's window and
//!   filters the rows inside it (a full scan when the first dimension is unrestricted).
//!
//! Both answer window queries (`lo[d] <= v <= hi[d]`; exact match is `lo == hi`) with TIDs
//! ascending within their scan order: [`ColumnScan`] in TID order, [`SortedProjection`]
//! by first value, then TID. Compare sets, not sequences, with [`super::Elf`].

use pmolap_tier::{Region, RegionOptions, TierSpec};

use crate::error::{Error, Result};

/// Rows per block of the column scan.
pub const BLOCK: usize = 2048;

fn place(words: &[u32], tier: &TierSpec) -> Result<Region> {
    let bytes: &[u8] = bytemuck::cast_slice(words);
    let mut r = Region::new(tier, bytes.len().max(4), &RegionOptions::default())?;
    if !bytes.is_empty() {
        r.write_durable(0, bytes)?;
    }
    Ok(r)
}

fn check(dims: usize, flat: &[u32]) -> Result<usize> {
    if dims == 0 || !flat.len().is_multiple_of(dims) {
        return Err(Error::BadRows(format!(
            "{} values are not rows of {dims} dimensions",
            flat.len()
        )));
    }
    Ok(flat.len() / dims)
}

/// Per-dimension columns in a region.
#[derive(Debug)]
pub struct ColumnScan {
    region: Region,
    dims: usize,
    rows: usize,
}

impl ColumnScan {
    /// Columns of `flat` (row-major, `dims` per row) on `tier`.
    pub fn build(dims: usize, flat: &[u32], tier: &TierSpec) -> Result<ColumnScan> {
        let rows = check(dims, flat)?;
        let mut cols = vec![0u32; flat.len()];
        for (r, row) in flat.chunks_exact(dims).enumerate() {
            for (d, &v) in row.iter().enumerate() {
                cols[d * rows + r] = v;
            }
        }
        Ok(ColumnScan {
            region: place(&cols, tier)?,
            dims,
            rows,
        })
    }

    fn col(&self, d: usize) -> &[u32] {
        let w: &[u32] = bytemuck::cast_slice(&self.region.as_slice()[..4 * self.dims * self.rows]);
        &w[d * self.rows..(d + 1) * self.rows]
    }

    /// Bytes of the columns.
    pub fn size_bytes(&self) -> usize {
        4 * self.dims * self.rows
    }

    /// TIDs (ascending) of the rows inside the window; appends to `out`.
    pub fn range_into(&self, lo: &[u32], hi: &[u32], out: &mut Vec<u32>) {
        let mut mask = [0u8; BLOCK];
        let mut start = 0;
        while start < self.rows {
            let n = BLOCK.min(self.rows - start);
            let m = &mut mask[..n];
            m.fill(1);
            for d in 0..self.dims {
                let (l, h) = (lo[d], hi[d]);
                let c = &self.col(d)[start..start + n];
                for (x, &v) in m.iter_mut().zip(c) {
                    *x &= ((v.wrapping_sub(l)) <= h.wrapping_sub(l)) as u8 & (l <= h) as u8;
                }
            }
            for (i, &x) in m.iter().enumerate() {
                if x != 0 {
                    out.push((start + i) as u32);
                }
            }
            start += n;
        }
    }
}

/// Rows sorted by the first dimension, with TIDs, in a region.
#[derive(Debug)]
pub struct SortedProjection {
    region: Region,
    dims: usize,
    rows: usize,
}

impl SortedProjection {
    /// Sorts `flat` (row-major) by the first dimension and puts it on `tier`.
    pub fn build(dims: usize, flat: &[u32], tier: &TierSpec) -> Result<SortedProjection> {
        let rows = check(dims, flat)?;
        let mut order: Vec<u32> = (0..rows as u32).collect();
        order.sort_by_key(|&r| (flat[r as usize * dims], r));
        let mut words = Vec::with_capacity(rows * (dims + 1));
        for r in order {
            let r = r as usize;
            words.extend_from_slice(&flat[r * dims..(r + 1) * dims]);
            words.push(r as u32);
        }
        Ok(SortedProjection {
            region: place(&words, tier)?,
            dims,
            rows,
        })
    }

    fn words(&self) -> &[u32] {
        bytemuck::cast_slice(&self.region.as_slice()[..4 * (self.dims + 1) * self.rows])
    }

    /// Bytes of the sorted rows.
    pub fn size_bytes(&self) -> usize {
        4 * (self.dims + 1) * self.rows
    }

    /// TIDs of the rows inside the window (by first value, then TID); appends to `out`.
    pub fn range_into(&self, lo: &[u32], hi: &[u32], out: &mut Vec<u32>) {
        let s = self.dims + 1;
        let w = self.words();
        let first = |i: usize| w[i * s];
        // partition_point over row indexes
        let lower = |bound: u32| {
            let (mut a, mut b) = (0usize, self.rows);
            while a < b {
                let m = (a + b) / 2;
                if first(m) < bound {
                    a = m + 1;
                } else {
                    b = m;
                }
            }
            a
        };
        if lo[0] > hi[0] {
            return;
        }
        let from = lower(lo[0]);
        let to = if hi[0] == u32::MAX {
            self.rows
        } else {
            lower(hi[0] + 1)
        };
        'rows: for row in w[from * s..to * s].chunks_exact(s) {
            for d in 1..self.dims {
                if row[d] < lo[d] || row[d] > hi[d] {
                    continue 'rows;
                }
            }
            out.push(row[self.dims]);
        }
    }
}
