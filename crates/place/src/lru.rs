//! Mattson's stack distances (Mattson, Gecsei, Slutz, Traiger, 1970): for each
//! reference of a stream, the number of distinct other keys referenced since the
//! previous reference to the same key (`None` for a first reference). An LRU cache of
//! `C` entries hits a reference exactly when its distance is below `C`, so one pass
//! prices every cache size. Computed exactly in O(n log n) with a Fenwick tree over the
//! stream's positions, marking each key's latest position. (The page model no longer
//! uses it: the pages the kernel reads depend on the cache's contents, so
//! [`crate::readahead`] simulates each cache size.)

use std::collections::HashMap;
use std::hash::Hash;

/// The stack distance of each reference of `refs`, in order.
pub fn stack_distances<K: Hash + Eq + Copy>(refs: &[K]) -> Vec<Option<u64>> {
    let n = refs.len();
    let mut tree = vec![0u32; n + 1];
    let add = |tree: &mut [u32], mut i: usize, v: i32| {
        i += 1;
        while i <= n {
            tree[i] = tree[i].wrapping_add_signed(v);
            i += i & i.wrapping_neg();
        }
    };
    // Marks at positions `0..i`.
    let prefix = |tree: &[u32], mut i: usize| -> u64 {
        let mut s = 0u64;
        while i > 0 {
            s += u64::from(tree[i]);
            i &= i - 1;
        }
        s
    };
    let mut last: HashMap<K, usize> = HashMap::with_capacity(n / 4);
    let mut out = Vec::with_capacity(n);
    for (t, &k) in refs.iter().enumerate() {
        match last.insert(k, t) {
            Some(p) => {
                // Distinct keys whose latest reference lies strictly between p and t.
                out.push(Some(prefix(&tree, t) - prefix(&tree, p + 1)));
                add(&mut tree, p, -1);
            }
            None => out.push(None),
        }
        add(&mut tree, t, 1);
    }
    out
}

/// Whether a reference at stack distance `d` misses an LRU cache of `capacity` entries.
#[inline]
pub fn misses(d: Option<u64>, capacity: u64) -> bool {
    d.is_none_or(|d| d >= capacity)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    use std::collections::VecDeque;

    /// Hits of an LRU cache of `cap` entries over `refs`, simulated directly.
    fn lru_hits(refs: &[u32], cap: usize) -> Vec<bool> {
        let mut q: VecDeque<u32> = VecDeque::new();
        refs.iter()
            .map(|&k| {
                let hit = match q.iter().position(|&x| x == k) {
                    Some(i) => {
                        q.remove(i);
                        true
                    }
                    None => false,
                };
                q.push_front(k);
                q.truncate(cap);
                hit
            })
            .collect()
    }

    #[test]
    fn against_simulation() {
        let mut rng = SmallRng::seed_from_u64(7);
        for round in 0..200 {
            let keys = rng.gen_range(1..40u32);
            let n = rng.gen_range(0..300);
            let refs: Vec<u32> = (0..n).map(|_| rng.gen_range(0..keys)).collect();
            let d = stack_distances(&refs);
            for cap in 1..=keys as usize + 1 {
                let want = lru_hits(&refs, cap);
                let got: Vec<bool> = d.iter().map(|&d| !misses(d, cap as u64)).collect();
                assert_eq!(got, want, "round {round}, {keys} keys, capacity {cap}");
            }
        }
    }

    #[test]
    fn by_hand() {
        // a b c a: a's reuse saw b and c (distance 2); a a: distance 0.
        let d = stack_distances(&['a', 'b', 'c', 'a', 'a', 'b']);
        assert_eq!(d, vec![None, None, None, Some(2), Some(0), Some(2)]);
    }
}
