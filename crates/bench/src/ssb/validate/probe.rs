//! The slow tier's page costs measured in the validation run itself, on the database's
//! own files, beside every placement: what the page model is calibrated with for the
//! run's prediction (`predicted`; the advice's promise keeps the costs it was priced with:
//! the profile's, calibrated with the workload's own samples).
//!
//! Why: the disk behind the page cache of these machines is a shared virtual device
//! whose speed moves from second to second. Three `place profile` runs within 30 s
//! (2026-11-27, quiet) measured an isolated 8 MiB fault at 3.3, 4.7 and 4.5 µs a page
//! and predicted "all slow" at SF 1 as 16.8x, 23.2x and 22.0x: a profile of one moment
//! carried that spread into every prediction of a 20-40 minute validation (SF 1: 1.4x
//! under-predicted, SF 10: 0.75x over-predicted). Sampling the device beside every
//! placement, the same way each time, and pooling the samples of the run prices the
//! placements with the device the run really had.
//!
//! A sample ([`PageSample`]), every read through a fresh read-only mapping of files
//! whose pages were just dropped, against the same reads warm:
//! - **one stream** — the largest file read one byte a page by every worker claiming the
//!   next 64-page morsel in turn (as the engine's workers stream a column);
//! - **three streams** — the three largest files, each morsel covering the same fraction
//!   of each (as a morsel touches the same rows of the columns a query reads);
//! - **isolated faults** — one touch in the middle of each readahead window of the
//!   largest files (at most `FAULT_WINDOWS` (24)): wall time per page the kernel read;
//! - **fault latency** — one touch of each of the smallest files (a few pages: what a
//!   query's faults on dictionaries and small columns are), wall time per fault.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

pub use pmolap_results::place::PageSample;
use pmolap_tier::region::{ReadOnlyRegion, RegionOptions};

use super::counters::IoSample;
use crate::error::{Error, Result};
use crate::ssb::data::drop_pages;

const PAGE: usize = 4096;
/// Pages per morsel of the streaming reads (of the largest file; the others in
/// proportion).
const MORSEL_PAGES: usize = 64;
/// At most this many isolated faults per sample.
const FAULT_WINDOWS: usize = 24;
/// At most this many small files per sample.
const SMALL_FILES: usize = 32;
/// A small file: at most this many bytes.
const SMALL_BYTES: u64 = 64 << 10;
/// At most this many bytes of a file are streamed (a sample stays well under a second).
const STREAM_CAP: usize = 128 << 20;

/// The database's files the samples read.
#[derive(Debug, Clone)]
pub(crate) struct Probe {
    /// The largest files, largest first (with their sizes).
    large: Vec<(PathBuf, u64)>,
    /// The smallest files (at most [`SMALL_BYTES`]).
    small: Vec<PathBuf>,
    workers: usize,
    /// The device's readahead window, pages.
    window: usize,
}

impl Probe {
    /// The probe over `files` (the database's), read by `workers` threads, the device's
    /// readahead window `window_pages`.
    pub fn new(files: &[PathBuf], workers: usize, window_pages: u64) -> Result<Probe> {
        let mut sized = Vec::with_capacity(files.len());
        for f in files {
            let len = std::fs::metadata(f).map_err(|e| Error::io(f, e))?.len();
            if len > 0 {
                sized.push((f.clone(), len));
            }
        }
        sized.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let small: Vec<PathBuf> = sized
            .iter()
            .rev()
            .filter(|(_, l)| *l <= SMALL_BYTES)
            .take(SMALL_FILES)
            .map(|(p, _)| p.clone())
            .collect();
        let large = sized.into_iter().take(8).collect();
        Ok(Probe {
            large,
            small,
            workers: workers.max(1),
            window: (window_pages as usize).max(1),
        })
    }

    /// One sample now.
    pub fn sample(&self) -> Result<PageSample> {
        let one = self.large.first().map(|f| vec![f.clone()]);
        let three = (self.large.len() >= 3).then(|| self.large[..3].to_vec());
        Ok(PageSample {
            one_stream_ns: one.map(|f| self.streams(&f)).transpose()?,
            three_streams_ns: three.map(|f| self.streams(&f)).transpose()?,
            fault_page_ns: self.isolated_faults()?,
            fault_latency_ns: self.latency()?,
        })
    }

    /// Cold minus warm wall ns per page of `files` streamed together.
    fn streams(&self, files: &[(PathBuf, u64)]) -> Result<f64> {
        let paths: Vec<PathBuf> = files.iter().map(|f| f.0.clone()).collect();
        drop_pages(&paths)?;
        let maps = files
            .iter()
            .map(|(p, l)| map(p, (*l as usize).min(STREAM_CAP)))
            .collect::<Result<Vec<_>>>()?;
        let slices: Vec<&[u8]> = maps.iter().map(|m| m.as_slice()).collect();
        let pages: usize = slices.iter().map(|s| s.len().div_ceil(PAGE)).sum();
        let cold = stream_pass(&slices, self.workers);
        let warm = stream_pass(&slices, self.workers);
        Ok(((cold - warm) / pages.max(1) as f64).max(0.0))
    }

    /// Wall ns per page read of isolated faults, one in the middle of each readahead
    /// window of the largest files.
    fn isolated_faults(&self) -> Result<Option<f64>> {
        let mut touches: Vec<(usize, usize)> = Vec::new();
        for (i, (_, len)) in self.large.iter().enumerate() {
            let pages = (*len as usize).div_ceil(PAGE);
            let mut w = 0;
            while w * self.window < pages && touches.len() < FAULT_WINDOWS {
                touches.push((
                    i,
                    ((w * self.window + self.window / 2).min(pages - 1)) * PAGE,
                ));
                w += 1;
            }
        }
        if touches.is_empty() {
            return Ok(None);
        }
        let used: Vec<usize> = {
            let mut u: Vec<usize> = touches.iter().map(|t| t.0).collect();
            u.dedup();
            u
        };
        let paths: Vec<PathBuf> = used.iter().map(|&i| self.large[i].0.clone()).collect();
        drop_pages(&paths)?;
        let maps = self
            .large
            .iter()
            .take(used.last().map_or(0, |&i| i + 1))
            .map(|(p, l)| map(p, *l as usize))
            .collect::<Result<Vec<_>>>()?;
        let before = IoSample::now();
        let t0 = Instant::now();
        let mut s = 0u64;
        for &(i, off) in &touches {
            s = s.wrapping_add(u64::from(maps[i].as_slice()[off]));
        }
        let ns = t0.elapsed().as_nanos() as f64;
        std::hint::black_box(s);
        let read_pages = before
            .zip(IoSample::now())
            .map(|(a, b)| a.until(b).read_bytes / PAGE as f64)
            .filter(|&p| p > 0.0);
        // Without I/O accounting: the windows the touches asked for.
        let pages = read_pages.unwrap_or_else(|| {
            touches
                .iter()
                .map(|&(i, _)| self.window.min((self.large[i].1 as usize).div_ceil(PAGE)))
                .sum::<usize>() as f64
        });
        Ok(Some(ns / pages.max(1.0)))
    }

    /// The median wall ns of one fault on each small file, cold.
    fn latency(&self) -> Result<Option<f64>> {
        if self.small.is_empty() {
            return Ok(None);
        }
        drop_pages(&self.small)?;
        let mut ns = Vec::with_capacity(self.small.len());
        for p in &self.small {
            let len = std::fs::metadata(p).map_err(|e| Error::io(p, e))?.len() as usize;
            let m = map(p, len)?;
            let t0 = Instant::now();
            std::hint::black_box(m.as_slice()[0]);
            ns.push(t0.elapsed().as_nanos() as f64);
        }
        Ok(Some(pmolap_results::stats::median(&ns)))
    }
}

/// `path`'s first `len` bytes mapped read-only, nothing prefaulted.
fn map(path: &Path, len: usize) -> Result<ReadOnlyRegion> {
    Ok(ReadOnlyRegion::open(
        path,
        len.max(1),
        &RegionOptions::default(),
    )?)
}

/// `workers` threads claiming morsels `0..n` in turn, each handled by `morsel` (whose
/// results are summed and kept from the optimiser).
pub fn by_morsels(n: usize, workers: usize, morsel: impl Fn(usize) -> u64 + Sync) {
    let next = AtomicUsize::new(0);
    std::thread::scope(|sc| {
        for _ in 0..workers {
            sc.spawn(|| {
                let mut acc = 0u64;
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n {
                        break;
                    }
                    acc = acc.wrapping_add(morsel(i));
                }
                std::hint::black_box(acc);
            });
        }
    });
}

/// Wall ns of `workers` threads reading one byte a page of every slice, each claiming
/// the next morsel (the same fraction of every slice) in turn.
pub fn stream_pass(slices: &[&[u8]], workers: usize) -> f64 {
    let first_pages = slices[0].len().div_ceil(PAGE);
    let morsels = first_pages.div_ceil(MORSEL_PAGES).max(1);
    let t0 = Instant::now();
    by_morsels(morsels, workers, |m| {
        let mut s = 0u64;
        for sl in slices {
            let pages = sl.len().div_ceil(PAGE);
            let (a, b) = (m * pages / morsels, (m + 1) * pages / morsels);
            for p in a..b {
                s = s.wrapping_add(u64::from(sl[p * PAGE]));
            }
        }
        s
    });
    t0.elapsed().as_nanos() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_of_real_files_measures_every_kind() {
        let dir = std::env::temp_dir().join(format!("pmolap-probe-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut files = Vec::new();
        for (i, len) in [3 << 20, 2 << 20, 1 << 20, 5000, 9000]
            .into_iter()
            .enumerate()
        {
            let p = dir.join(format!("f{i}"));
            std::fs::write(&p, vec![i as u8 + 1; len]).unwrap();
            files.push(p);
        }
        let probe = Probe::new(&files, 2, 64).unwrap();
        assert_eq!(probe.large[0].1, 3 << 20);
        assert_eq!(probe.small.len(), 2);
        let s = probe.sample().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        for v in [
            s.one_stream_ns,
            s.three_streams_ns,
            s.fault_page_ns,
            s.fault_latency_ns,
        ] {
            let v = v.expect("every kind measured");
            assert!(v.is_finite() && v >= 0.0, "{s:?}");
        }
    }
}
