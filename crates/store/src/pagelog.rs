//! Page recording: which pages of a structure's file a counted run touched, and when —
//! per step, a set of pages (kept as a bitmap while recording, read back as page runs).
//! Step [`PLAN_STEP`] holds what the store's own counting accessors read (planning:
//! dictionary searches, dimension scans, samples); an engine records its morsels' reads
//! under later steps of its own ([`PageLog::add_bits`]). Recording is on exactly when
//! the table counts accesses, and like the counters it is per call, never per row of a
//! kernel: one lock per call or per flushed bitmap.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

/// The page size the log records in (the OS page the mapping faults in).
pub const PAGE_BYTES: u64 = 4096;
/// The step of accesses the store's own accessors count (before a query's morsels).
pub const PLAN_STEP: u32 = 0;

/// Whether counted runs record pages (process-wide; on by default).
static RECORDING: AtomicBool = AtomicBool::new(true);

/// Turns page recording of every counted run in this process on (the default) or off:
/// off only to measure what recording costs (`pmolap place workload --overhead`); the
/// access counters are unaffected.
pub fn set_recording(on: bool) {
    RECORDING.store(on, Ordering::Relaxed);
}

/// Whether counted runs record pages ([`set_recording`]).
pub fn recording() -> bool {
    RECORDING.load(Ordering::Relaxed)
}

/// The pages of one structure touched during one step, as `[first page, pages]` runs in
/// ascending order (pages of the structure file, the header page being page 0).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageStep {
    pub step: u32,
    pub runs: Vec<[u32; 2]>,
}

impl PageStep {
    /// The pages of every run, ascending.
    pub fn pages(&self) -> impl Iterator<Item = u32> + '_ {
        self.runs.iter().flat_map(|&[a, n]| a..a.saturating_add(n))
    }

    /// How many pages the runs hold.
    pub fn page_count(&self) -> u64 {
        self.runs.iter().map(|r| u64::from(r[1])).sum()
    }
}

/// One structure's recorded pages by step.
#[derive(Debug, Default)]
pub struct PageLog {
    steps: Mutex<BTreeMap<u32, Vec<u64>>>,
}

impl PageLog {
    /// ORs `bits` (bit `p` set: page `p` touched) into step `step`.
    pub fn add_bits(&self, step: u32, bits: &[u64]) {
        let mut g = self.steps.lock().unwrap_or_else(|e| e.into_inner());
        let v = g.entry(step).or_default();
        if v.len() < bits.len() {
            v.resize(bits.len(), 0);
        }
        for (a, b) in v.iter_mut().zip(bits) {
            *a |= b;
        }
    }

    /// Adds pages `first .. first + n` to step `step`.
    pub fn add_run(&self, step: u32, first: u64, n: u64) {
        if n == 0 {
            return;
        }
        let mut g = self.steps.lock().unwrap_or_else(|e| e.into_inner());
        set_run(g.entry(step).or_default(), first, n);
    }

    /// The pages of each step, steps ascending.
    pub fn snapshot(&self) -> Vec<PageStep> {
        let g = self.steps.lock().unwrap_or_else(|e| e.into_inner());
        g.iter()
            .map(|(&step, bits)| PageStep {
                step,
                runs: runs_of(bits),
            })
            .filter(|s| !s.runs.is_empty())
            .collect()
    }

    pub fn reset(&self) {
        self.steps.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

/// Sets bits `first .. first + n` of `bits`, growing it as needed.
pub fn set_run(bits: &mut Vec<u64>, first: u64, n: u64) {
    if n == 0 {
        return;
    }
    let end = first + n;
    let words = end.div_ceil(64) as usize;
    if bits.len() < words {
        bits.resize(words, 0);
    }
    let mut p = first;
    while p < end {
        let w = (p / 64) as usize;
        let lo = p % 64;
        let hi = (end - (p - lo)).min(64);
        let mask = if hi - lo == 64 {
            u64::MAX
        } else {
            ((1u64 << (hi - lo)) - 1) << lo
        };
        bits[w] |= mask;
        p = p - lo + hi;
    }
}

/// The runs of set bits of `bits`, ascending.
pub fn runs_of(bits: &[u64]) -> Vec<[u32; 2]> {
    let mut runs: Vec<[u32; 2]> = Vec::new();
    for (w, &word) in bits.iter().enumerate() {
        let mut x = word;
        while x != 0 {
            let lo = x.trailing_zeros();
            let len = (x >> lo).trailing_ones();
            let first = (w as u32) * 64 + lo;
            match runs.last_mut() {
                Some(r) if r[0] + r[1] == first => r[1] += len,
                _ => runs.push([first, len]),
            }
            x = if lo + len >= 64 {
                0
            } else {
                x & !(((1u64 << len) - 1) << lo)
            };
        }
    }
    runs
}

/// The file page of payload byte `b` (the payload starts at `payload_offset` in the file).
#[inline]
pub fn page_of(payload_offset: u64, b: u64) -> u64 {
    (payload_offset + b) / PAGE_BYTES
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_round_trip() {
        let mut bits = Vec::new();
        set_run(&mut bits, 3, 1);
        set_run(&mut bits, 60, 70); // crosses two word borders
        set_run(&mut bits, 200, 64);
        set_run(&mut bits, 130, 1); // joins the run before
        assert_eq!(runs_of(&bits), vec![[3, 1], [60, 71], [200, 64]]);
        let log = PageLog::default();
        log.add_bits(2, &bits);
        log.add_run(1, 0, 2);
        log.add_run(2, 4, 1);
        let s = log.snapshot();
        assert_eq!(
            s[0],
            PageStep {
                step: 1,
                runs: vec![[0, 2]]
            }
        );
        assert_eq!(s[1].runs, vec![[3, 2], [60, 71], [200, 64]]);
        assert_eq!(s[1].page_count(), 137);
        assert_eq!(s[1].pages().take(3).collect::<Vec<_>>(), vec![3, 4, 60]);
        log.reset();
        assert!(log.snapshot().is_empty());
    }
}
