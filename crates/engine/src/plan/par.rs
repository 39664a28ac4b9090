//! Planning's parallel work: contiguous chunks of a dimension's rows (or of any index
//! range) spread over the query's worker threads, pinned as the probe's are
//! ([`Workers`]), each chunk's result in chunk order, so that a result made of them is
//! the same on any number of threads.

use std::ops::Range;
use std::sync::Mutex;

use pmolap_tier::pin;

use crate::exec::Layout;

/// Fewest items a chunk holds: a dimension of fewer rows (supplier and date of SSB, and
/// customer below SF 2) stays on the calling thread, and no chunk pays a thread's start
/// (tens of microseconds) for less than about as much work.
pub const MIN_CHUNK: usize = 64 * 1024;

/// Chunk starts are multiples of this many items: a chunk of rows covers whole words of
/// a bitmap and whole blocks of unpacked ids.
const ALIGN: usize = 4096;

/// The threads planning may use: one CPU set per thread (empty: unpinned), the first for
/// the calling thread's own chunk.
#[derive(Debug, Clone)]
pub struct Workers {
    cpus: Vec<Vec<usize>>,
}

impl Workers {
    /// The calling thread alone.
    pub fn serial() -> Workers {
        Workers {
            cpus: vec![Vec::new()],
        }
    }

    /// One thread per worker of `layout`, on that worker's CPUs.
    pub fn of_layout(layout: &Layout) -> Workers {
        let cpus: Vec<Vec<usize>> = layout
            .groups
            .iter()
            .flat_map(|g| g.cpus.iter().cloned())
            .collect();
        if cpus.is_empty() {
            return Workers::serial();
        }
        Workers { cpus }
    }

    /// `n` unpinned threads (at least one).
    pub fn unpinned(n: usize) -> Workers {
        Workers {
            cpus: vec![Vec::new(); n.max(1)],
        }
    }

    pub fn threads(&self) -> usize {
        self.cpus.len()
    }

    /// The chunks `len` items are split into: one per thread at most, each at least
    /// `min` items (but the last), starts aligned (to [`ALIGN`] or `min`, the smaller);
    /// `[0..len]` when one chunk.
    pub fn chunks(&self, len: usize, min: usize) -> Vec<Range<usize>> {
        let min = min.max(1);
        let n = (len / min).clamp(1, self.threads());
        let per = len.div_ceil(n).next_multiple_of(ALIGN.min(min));
        (0..n)
            .map(|i| (i * per).min(len)..((i + 1) * per).min(len))
            .filter(|r| !r.is_empty() || len == 0)
            .collect()
    }

    /// `f` of each chunk of `0..len` ([`Workers::chunks`] with `min`), in chunk order.
    pub fn map<R: Send>(
        &self,
        len: usize,
        min: usize,
        f: impl Fn(Range<usize>) -> R + Sync,
    ) -> Vec<R> {
        self.run(self.chunks(len, min), f)
    }

    /// `f(start, part)` of each chunk of `out` ([`Workers::chunks`] with `min`), `start`
    /// the part's first index; the results in chunk order.
    pub fn fill<T: Send, R: Send>(
        &self,
        out: &mut [T],
        min: usize,
        f: impl Fn(usize, &mut [T]) -> R + Sync,
    ) -> Vec<R> {
        let chunks = self.chunks(out.len(), min);
        let mut parts = Vec::with_capacity(chunks.len());
        let mut rest = out;
        for r in &chunks {
            let (part, tail) = rest.split_at_mut(r.len());
            parts.push((r.start, part));
            rest = tail;
        }
        self.run(parts, |(start, part)| f(start, part))
    }

    /// `f` of each part, in order: the first on the calling thread, the others on threads
    /// of their own, pinned to this set's CPUs. A part whose thread cannot be started is
    /// done by the calling thread (the same result, later).
    fn run<P: Send, R: Send>(&self, parts: Vec<P>, f: impl Fn(P) -> R + Sync) -> Vec<R> {
        if parts.len() <= 1 {
            return parts.into_iter().map(f).collect();
        }
        // Each part waits in a slot its thread takes it from, so that it is still there
        // when the thread does not start.
        let slots: Vec<Mutex<Option<P>>> = parts.into_iter().map(|p| Mutex::new(Some(p))).collect();
        let take = |i: usize| slots[i].lock().unwrap_or_else(|e| e.into_inner()).take();
        let (f, take) = (&f, &take);
        std::thread::scope(|scope| {
            let handles: Vec<_> = (1..slots.len())
                .map(|i| {
                    let cpus = &self.cpus[i % self.cpus.len()];
                    std::thread::Builder::new()
                        .spawn_scoped(scope, move || {
                            // Pinning only places the work: unpinned, it is the same work.
                            let _ = pin::pin_current_thread(cpus);
                            take(i).map(f)
                        })
                        .ok()
                })
                .collect();
            let mut out: Vec<R> = take(0).map(f).into_iter().collect();
            for (i, h) in handles.into_iter().enumerate() {
                let done = h.map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
                // Not started (or not yet taken): this thread's part.
                out.extend(done.flatten().or_else(|| take(i + 1).map(f)));
            }
            out
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{Workers, ALIGN};

    /// Chunks cover `0..len` once, in order, one per thread at most, each of at least
    /// `min` items but the last, aligned starts; one chunk below two `min`s.
    #[test]
    fn chunks_cover_the_range_in_order() {
        for threads in [1usize, 2, 3, 8, 16] {
            let w = Workers::unpinned(threads);
            for len in [0usize, 1, 63, 64, 4095, 4096, 100_000, 800_000, 6_000_001] {
                for min in [1usize, 64, 512, 64 * 1024] {
                    let c = w.chunks(len, min);
                    assert!(!c.is_empty() && c.len() <= threads, "{len} {min} {c:?}");
                    assert_eq!((c[0].start, c[c.len() - 1].end), (0, len));
                    for (a, b) in c.iter().zip(&c[1..]) {
                        assert_eq!(a.end, b.start, "{c:?}");
                        assert!(a.len() >= min, "{len} {min} {c:?}");
                        assert_eq!(b.start % ALIGN.min(min), 0, "{c:?}");
                    }
                    if len < 2 * min {
                        assert_eq!(c.len(), 1, "{len} {min} {c:?}");
                    }
                }
            }
        }
    }

    /// Results come back in chunk order, each part written by its own chunk, the same
    /// on any number of threads.
    #[test]
    fn fill_and_map_keep_chunk_order() {
        let serial = {
            let mut v = vec![0u64; 10_000];
            Workers::serial().fill(&mut v, 64, |s, p| {
                for (i, x) in p.iter_mut().enumerate() {
                    *x = ((s + i) as u64).wrapping_mul(0x9e37_79b9);
                }
            });
            v
        };
        for threads in [2usize, 3, 7] {
            let w = Workers::unpinned(threads);
            let mut v = vec![0u64; 10_000];
            let starts = w.fill(&mut v, 64, |s, p| {
                for (i, x) in p.iter_mut().enumerate() {
                    *x = ((s + i) as u64).wrapping_mul(0x9e37_79b9);
                }
                s
            });
            assert_eq!(v, serial, "{threads} threads");
            let want: Vec<usize> = w.chunks(10_000, 64).iter().map(|r| r.start).collect();
            assert_eq!(starts, want);
            assert_eq!(starts.len(), threads);
            let sums = w.map(10_000, 64, |r| r.map(|i| i as u64).sum::<u64>());
            assert_eq!(sums.iter().sum::<u64>(), (0..10_000u64).sum::<u64>());
        }
    }
}
