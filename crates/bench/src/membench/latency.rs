//! Latency mode: dependent random loads over a shuffled ring of nodes placed on the tier
//! (a pointer chase), timed in samples of several loads and kept in an HDR histogram;
//! optionally while other threads stream reads over the same region (loaded latency).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use pmolap_os::signal::interrupted;
use pmolap_tier::pin::pin_current_thread;
use pmolap_tier::MemView;

use crate::error::{Error, Result};
use crate::membench::config::{Params, DEFAULT_DURATION_S};
use crate::membench::results::Latency;
use crate::membench::run::{Limit, Outcome, Worker};
use crate::threads::{self, Gate};

/// Dependent loads per timed sample: enough to make the clock's own cost negligible.
const LOADS_PER_SAMPLE: u64 = 32;
/// Loads of the untimed warm-up walk, at most.
const WARMUP_LOADS: u64 = 1 << 20;
/// Points of the recorded CDF.
const CDF_POINTS: usize = 200;
/// Samples between two looks at the interrupt flag.
const SAMPLES_PER_POLL: u64 = 1024;

/// A thread of a latency repetition: the chase, or a streaming load thread.
enum Job<'a> {
    Chase,
    Load(&'a Worker),
}

/// What a thread of a latency repetition measured.
enum Measured {
    Chase(Box<Histogram<u64>>),
    Load(Outcome),
}

/// A ring of `nodes` chase nodes, `stride` bytes apart, in one random cycle.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Chase {
    nodes: u64,
    stride: u64,
}

impl Chase {
    /// Writes the ring into the view: node `i` holds the byte offset of its successor,
    /// and the successors form a single cycle through all nodes (Sattolo's shuffle).
    pub(crate) fn build(view: &MemView<'_>, p: &Params) -> Result<Chase> {
        let stride = p.access_size;
        let nodes = p.memory_range / stride;
        let mut next: Vec<u64> = (0..nodes).collect();
        let mut rng = SmallRng::seed_from_u64(0xC4A5E);
        for i in (1..nodes as usize).rev() {
            let j = rng.gen_range(0..i);
            next.swap(i, j);
        }
        for (i, n) in next.iter().enumerate() {
            view.write_u64(i * stride as usize, n * stride)?;
        }
        Ok(Chase { nodes, stride })
    }

    /// Walks part of the ring untimed (TLB and cache state like the timed part).
    pub(crate) fn warm_up(&self, view: &MemView<'_>) -> Result<()> {
        std::hint::black_box(view.chase(0, self.nodes.min(WARMUP_LOADS))?);
        Ok(())
    }

    /// Measures one repetition. `load` workers (if any) stream on `load_cpus` while the
    /// chase runs on `cpus` (the loaders carry their own CPUs); returns the latency figures and the load bandwidth.
    pub(crate) fn measure(
        &self,
        view: &MemView<'_>,
        p: &Params,
        cpus: &[usize],
        load: Option<&[Worker]>,
    ) -> Result<(Latency, Option<f64>)> {
        let loaders: &[Worker] = load.unwrap_or(&[]);
        let stop = AtomicBool::new(false);
        let forever = Limit::Duration(Duration::from_secs(365 * 24 * 3600));
        let jobs: Vec<Job<'_>> = loaders
            .iter()
            .map(Job::Load)
            .chain(std::iter::once(Job::Chase))
            .collect();
        let measured = threads::run_gated("membench latency", jobs, |job, gate| match job {
            Job::Chase => {
                let r = self.sample(view, p, cpus, gate);
                stop.store(true, Ordering::Relaxed);
                r.map(|h| Measured::Chase(Box::new(h)))
            }
            Job::Load(w) => w.run(view, forever, gate, &stop).map(Measured::Load),
        })?;
        let mut hist = None;
        let mut outcomes = Vec::with_capacity(loaders.len());
        for m in measured {
            match m {
                Measured::Chase(h) => hist = Some(h),
                Measured::Load(o) => outcomes.push(o),
            }
        }
        let hist =
            hist.ok_or_else(|| Error::Thread("the pointer chase reported nothing".into()))?;
        let load_bw = (!outcomes.is_empty()).then(|| {
            let bytes: u64 = outcomes.iter().map(|o| o.bytes).sum();
            let start = outcomes.iter().map(|o| o.start).min();
            let end = outcomes.iter().map(|o| o.end).max();
            match (start, end) {
                (Some(s), Some(e)) => bytes as f64 / (e - s).as_secs_f64() / (1u64 << 30) as f64,
                _ => 0.0,
            }
        });
        Ok((latency_of(&hist), load_bw))
    }

    /// The chase itself: samples of LOADS_PER_SAMPLE dependent loads until the limit.
    fn sample(
        &self,
        view: &MemView<'_>,
        p: &Params,
        cpus: &[usize],
        gate: &Gate,
    ) -> Result<Histogram<u64>> {
        pin_current_thread(cpus)?;
        // Picoseconds per load, 1 ps .. 10 ms, 3 significant digits.
        let mut hist = Histogram::<u64>::new_with_bounds(1, 10_000_000_000, 3)
            .map_err(|e| Error::Thread(format!("histogram: {e}")))?;
        let max_samples = p.bytes.map(|b| (b / self.stride / LOADS_PER_SAMPLE).max(1));
        let duration = Duration::from_secs_f64(p.duration_s.unwrap_or(DEFAULT_DURATION_S));
        if !gate.wait() {
            return Err(threads::called_off());
        }
        let start = Instant::now();
        let mut at = 0u64;
        let mut samples = 0u64;
        loop {
            let t0 = Instant::now();
            at = view.chase(at, LOADS_PER_SAMPLE)?;
            let ps = t0.elapsed().as_nanos() as u64 * 1000 / LOADS_PER_SAMPLE;
            hist.saturating_record(ps.max(1));
            samples += 1;
            let done = match max_samples {
                Some(m) => samples >= m,
                None => start.elapsed() >= duration,
            } || (samples.is_multiple_of(SAMPLES_PER_POLL) && interrupted());
            if done {
                break;
            }
        }
        std::hint::black_box(at);
        Ok(hist)
    }
}

fn latency_of(h: &Histogram<u64>) -> Latency {
    let ns = |ps: u64| ps as f64 / 1000.0;
    let cdf = (0..=CDF_POINTS)
        .map(|i| {
            let q = i as f64 / CDF_POINTS as f64;
            (ns(h.value_at_quantile(q)), q)
        })
        .collect();
    Latency {
        samples: h.len(),
        loads_per_sample: LOADS_PER_SAMPLE,
        min_ns: ns(h.min()),
        mean_ns: h.mean() / 1000.0,
        p50_ns: ns(h.value_at_quantile(0.5)),
        p90_ns: ns(h.value_at_quantile(0.9)),
        p99_ns: ns(h.value_at_quantile(0.99)),
        p999_ns: ns(h.value_at_quantile(0.999)),
        max_ns: ns(h.max()),
        cdf,
        load_bandwidth_gib_s: None,
    }
}
