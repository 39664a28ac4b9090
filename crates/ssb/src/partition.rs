//! Splitting a table into `part_count` contiguous row ranges, and the iterator that
//! generates the rows of one range by index.

use std::iter::FusedIterator;

use crate::{Error, Result};

/// Row indexes `[start, end)` (1-based, like dbgen's) of partition `part` (1-based) of
/// `part_count` over `total` rows. Partitions differ in size by at most one row.
pub(crate) fn partition_range(total: u64, part: usize, part_count: usize) -> Result<(u64, u64)> {
    if part_count == 0 || part == 0 || part > part_count {
        return Err(Error::InvalidPartition { part, part_count });
    }
    let bound = |p: usize| (u128::from(total) * p as u128 / part_count as u128) as u64;
    Ok((bound(part - 1) + 1, bound(part) + 1))
}

/// Rows `[next, end)` made one at a time by a function of the row index; dimension
/// tables whose streams can be positioned per row use it.
#[derive(Debug, Clone)]
pub struct PartitionIter<T, F> {
    next: u64,
    end: u64,
    make: F,
    _row: std::marker::PhantomData<fn() -> T>,
}

impl<T, F: FnMut(u64) -> T> PartitionIter<T, F> {
    pub(crate) fn new(start: u64, end: u64, make: F) -> Self {
        Self {
            next: start,
            end,
            make,
            _row: std::marker::PhantomData,
        }
    }
}

impl<T, F: FnMut(u64) -> T> Iterator for PartitionIter<T, F> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        if self.next >= self.end {
            return None;
        }
        let row = (self.make)(self.next);
        self.next += 1;
        Some(row)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.end - self.next) as usize;
        (n, Some(n))
    }
}

impl<T, F: FnMut(u64) -> T> ExactSizeIterator for PartitionIter<T, F> {}
impl<T, F: FnMut(u64) -> T> FusedIterator for PartitionIter<T, F> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_cover_all_rows() {
        for total in [0u64, 1, 7, 25, 1000] {
            for n in 1..=9 {
                let mut next = 1;
                for p in 1..=n {
                    let (s, e) = partition_range(total, p, n).unwrap();
                    assert_eq!(s, next);
                    next = e;
                }
                assert_eq!(next, total + 1);
            }
        }
        assert!(partition_range(10, 0, 1).is_err());
        assert!(partition_range(10, 2, 1).is_err());
    }
}
