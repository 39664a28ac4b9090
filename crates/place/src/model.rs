//! The slowdown model of the placement paper (§4.3): the extra CPU time `t` of a
//! placement is the sum over structures off the reference tier of
//! `t_s = CMR(m_s) · Σ_a x_{s,a} · b_{s,a}` (Eq. 2–5), with `x` the access counters,
//! `b` the tier profile's extra ns per access (negative values clamped to zero, §4.2),
//! and `CMR` the cache-miss ratio of a structure of `m_s` bytes (Eq. 6, corrected):
//!
//! ```text
//! CMR(m) = 1 / (1 + exp(-(m / S_LLC - α))),   α = ln(1/y0 - 1),   y0 = 0.05
//! ```
//!
//! The paper prints `CMR(m) = 1/(1+e^{-(m/S_LLC + α)})` with `α = log(1/y0) - 1`, which
//! gives CMR(0) = 0.88, not the stated y-intercept `y0` = 5 %, and is not the
//! "right-shifted" sigmoid the text describes. The form above is the one sigmoid of
//! unit slope in `m/S_LLC` that meets every stated property: CMR(0) = y0 exactly, it is
//! right-shifted (its midpoint is at `m = α · S_LLC` ≈ 2.94 · S_LLC), it rises
//! monotonically and approaches 1 once `m` is a few multiples of S_LLC (0.89 at 5×,
//! 0.999 at 10×). `S_LLC` is the L3 size plus every core's L2 (§4.2).
//!
//! Predicted relative time is `(T_DRAM + t) / T_DRAM` (§4.4). The ablations of §4.4 are
//! switches: no CMR (`CMR ≡ 1`) and no dense classes (dense lookups counted as random).

use pmolap_results::place::IoFigures;
use pmolap_store::AccessCounts;

use crate::error::{Error, Result};
use crate::pages;
use crate::profile::{cost_key, Access, PageCosts, Profile, REFERENCE_TIER};
use crate::workload::{StructureLoad, Workload};

/// The model's parameters and ablation switches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelOptions {
    /// `S_LLC`: L3 plus the sum of every core's L2, in bytes.
    pub llc_bytes: u64,
    /// The cache-miss ratio of a structure of size zero (the paper: 5 %).
    pub y0: f64,
    /// Eq. 6 on (true) or the No-Cache ablation, `CMR ≡ 1` (false).
    pub cache_miss_ratio: bool,
    /// Dense lookups weighed by their own costs (true) or the No-Dense ablation: every
    /// dense lookup counted as a random lookup (false).
    pub dense_classes: bool,
    /// On a page-granular tier (a profile with `pages`), price page faults with the page
    /// model ([`crate::pages`]) instead of every access (false: the paper's per-access
    /// model on every tier).
    pub page_model: bool,
    /// The page cache that page-granular tiers sit behind, if bounded and kept between
    /// queries (`None`: pages are dropped before each query). With recorded pages the
    /// model prices it as a page cache of this many bytes, reclaimed under `reclaim`,
    /// over the workload's page reference stream ([`crate::pages::recorded_reads`]).
    pub page_cache_bytes: Option<u64>,
    /// How a bounded page cache reclaims: one LRU list (the default,
    /// [`crate::pagecache::Policy::Lru`]) or, for comparison, the kernel's lists
    /// ([`crate::pagecache::Policy::Kernel`]; docs/placement.md, "Which pages the kernel
    /// keeps").
    pub reclaim: crate::pagecache::Policy,
    /// Workers sharing a page-granular tier's device: its page costs are device time
    /// that stalls them all (see [`crate::pages`]); 1 for a one-thread workload.
    pub io_threads: u32,
}

impl ModelOptions {
    /// The full model with `S_LLC = llc_bytes` and `y0` = 5 %.
    pub fn new(llc_bytes: u64) -> Self {
        ModelOptions {
            llc_bytes,
            y0: 0.05,
            cache_miss_ratio: true,
            dense_classes: true,
            page_model: true,
            page_cache_bytes: None,
            reclaim: crate::pagecache::Policy::default(),
            io_threads: 1,
        }
    }

    /// `S_LLC` from cache sizes: the L3 plus each core's L2 (non-inclusive L3, §4.2).
    pub fn llc_bytes_of(l3_bytes: u64, l2_bytes_per_core: &[u64]) -> u64 {
        l3_bytes + l2_bytes_per_core.iter().sum::<u64>()
    }
}

/// Which tier each structure of a workload is on: `tier[i]` is 0 for the reference tier
/// (DRAM) and `k` for the `k`-th slow tier (`profiles[k - 1]`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Assignment {
    pub tier: Vec<usize>,
}

impl Assignment {
    /// Every one of `n` structures on `tier`.
    pub fn all(n: usize, tier: usize) -> Self {
        Assignment {
            tier: vec![tier; n],
        }
    }
}

/// The bytes and the model's extra time on one tier.
#[derive(Debug, Clone, PartialEq)]
pub struct TierShare {
    pub tier: String,
    pub bytes: u64,
    /// Extra CPU time of the structures on this tier, ns (0 on the reference tier).
    pub t_ns: f64,
}

/// The model's prediction for one placement.
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    /// Extra CPU time over the all-DRAM run, ns (Eq. 2).
    pub t_ns: f64,
    /// The workload's all-DRAM CPU time, ns.
    pub t_dram_ns: f64,
    /// `(T_DRAM + t) / T_DRAM`.
    pub relative: f64,
    /// Per tier, reference tier first.
    pub tiers: Vec<TierShare>,
}

/// What the page model prices a workload from ([`Model::page_basis`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageBasis {
    /// The pages each query was recorded touching: exact first touches, readahead
    /// streams, and the misses of a bounded cache (one LRU list by default).
    Recorded,
    /// No page records: pages estimated from the access counts (and a bounded cache as a
    /// resident share).
    Counts,
}

impl PageBasis {
    /// A line saying what the page model used.
    pub fn describe(self) -> &'static str {
        match self {
            PageBasis::Recorded => "page model: from the pages the queries were recorded touching",
            PageBasis::Counts => "page model: the workload has no page records (format 1 or recorded without pages): pages estimated from the access counts",
        }
    }
}

/// The slowdown model with its options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Model {
    options: ModelOptions,
}

impl Model {
    /// A model; `S_LLC` must be positive when the CMR is on, `y0` in (0, 1).
    pub fn new(options: ModelOptions) -> Result<Self> {
        if options.cache_miss_ratio && options.llc_bytes == 0 {
            return Err(Error::Argument(
                "model: S_LLC (L3 + per-core L2) must be more than 0 bytes".into(),
            ));
        }
        if !(options.y0 > 0.0 && options.y0 < 1.0) {
            return Err(Error::Argument(format!(
                "model: y0 {} is not in (0, 1)",
                options.y0
            )));
        }
        Ok(Model { options })
    }

    pub fn options(&self) -> &ModelOptions {
        &self.options
    }

    /// `α = ln(1/y0 - 1)`: the sigmoid's right shift in units of `S_LLC`.
    pub fn alpha(&self) -> f64 {
        (1.0 / self.options.y0 - 1.0).ln()
    }

    /// The cache-miss ratio of a structure of `bytes` (Eq. 6, corrected; 1 under the
    /// No-Cache ablation).
    pub fn cmr(&self, bytes: u64) -> f64 {
        if !self.options.cache_miss_ratio {
            return 1.0;
        }
        let x = bytes as f64 / self.options.llc_bytes as f64 - self.alpha();
        1.0 / (1.0 + (-x).exp())
    }

    /// The counters the model weighs: as counted, or under the No-Dense ablation with
    /// every dense lookup moved to the random lookups.
    pub fn effective_counts(&self, c: &AccessCounts) -> AccessCounts {
        if self.options.dense_classes {
            return *c;
        }
        AccessCounts {
            scan: c.scan,
            lookup: c.lookup + c.near_dense + c.medium_dense + c.far_dense,
            near_dense: 0,
            medium_dense: 0,
            far_dense: 0,
        }
    }

    /// `t_s`: the extra CPU time in ns if structure `s` is on `profile`'s tier (Eq. 3–5).
    /// An access type with counts but no cost in the profile is an error naming both.
    pub fn structure_cost(&self, s: &StructureLoad, profile: &Profile) -> Result<f64> {
        let counts = self.effective_counts(&s.counts);
        let variant = s.variant();
        let mut sum = 0.0;
        for access in Access::ALL {
            let x = access.count(&counts);
            if x == 0 {
                continue;
            }
            let b = profile
                .cost(s.kind, variant, s.bit_width, access)
                .ok_or_else(|| Error::MissingCost {
                    tier: profile.tier.clone(),
                    key: cost_key(s.kind, variant, None, access),
                    structure: s.id(),
                    count: x,
                })?
                .extra_ns;
            sum += x as f64 * b.max(0.0);
        }
        Ok(self.cmr(s.bytes) * sum)
    }

    /// How the page model prices `w` on a page-granular tier: from the pages its queries
    /// were recorded touching (workload version 2), or — for a workload without page
    /// records (version 1, or recorded without pages) — estimated from its counts, the
    /// count-based page model ([`crate::pages::touched_pages`]).
    pub fn page_basis(w: &Workload) -> PageBasis {
        if w.has_pages() {
            PageBasis::Recorded
        } else {
            PageBasis::Counts
        }
    }

    /// Whether `profile`'s tier is priced by the page model.
    pub fn pages_of<'p>(&self, profile: &'p Profile) -> Option<&'p PageCosts> {
        profile.pages.as_ref().filter(|_| self.options.page_model)
    }

    /// `t_s` of every structure of `w` on `profile`'s tier, in workload order (the page
    /// model's cold cost on a page-granular tier). The profile must be for the
    /// workload's store format.
    pub fn costs(&self, w: &Workload, profile: &Profile) -> Result<Vec<f64>> {
        profile.check_store_format(w.store_format)?;
        if let Some(pc) = self.pages_of(profile) {
            let threads = self.options.io_threads;
            return Ok((0..w.structures.len())
                .map(|i| {
                    pages::recorded_structure_cost(w, i, pc, threads)
                        .unwrap_or_else(|| pages::structure_cost_threads(w, i, pc, threads))
                })
                .collect());
        }
        w.structures
            .iter()
            .map(|s| self.structure_cost(s, profile))
            .collect()
    }

    /// The prediction for placement `a` of `w` over the reference tier and `profiles`.
    pub fn predict(
        &self,
        w: &Workload,
        profiles: &[Profile],
        a: &Assignment,
    ) -> Result<Prediction> {
        if a.tier.len() != w.structures.len() {
            return Err(Error::Argument(format!(
                "assignment has {} structures, the workload {}",
                a.tier.len(),
                w.structures.len()
            )));
        }
        let mut tiers: Vec<TierShare> = std::iter::once(REFERENCE_TIER)
            .chain(profiles.iter().map(|p| p.tier.as_str()))
            .map(|t| TierShare {
                tier: t.to_string(),
                bytes: 0,
                t_ns: 0.0,
            })
            .collect();
        let costs = profiles
            .iter()
            .map(|p| self.costs(w, p))
            .collect::<Result<Vec<_>>>()?;
        // Bytes each page-granular tier's structures touch (for a bounded page cache).
        let mut touched = vec![0u64; tiers.len()];
        for (i, (s, &k)) in w.structures.iter().zip(&a.tier).enumerate() {
            let share = tiers.get_mut(k).ok_or_else(|| {
                Error::Argument(format!(
                    "assignment puts {} on tier {k}, there are {} tiers",
                    s.id(),
                    profiles.len() + 1
                ))
            })?;
            share.bytes += s.bytes;
            if k > 0 {
                share.t_ns += costs[k - 1][i];
                if let Some(pc) = self.pages_of(&profiles[k - 1]) {
                    touched[k] += pages::touched_bytes(w, i, pc);
                }
            }
        }
        if let Some(cache) = self.options.page_cache_bytes {
            for (k, share) in tiers.iter_mut().enumerate().skip(1) {
                let Some(pc) = self.pages_of(&profiles[k - 1]) else {
                    continue;
                };
                let cache_pages = cache / pc.page_bytes.max(1);
                let on = |i: usize| a.tier[i] == k;
                match pages::recorded_reads(w, &on, pc, Some(cache_pages), self.options.reclaim) {
                    Some(m) => share.t_ns = m.cost(pc, self.options.io_threads),
                    None => share.t_ns *= 1.0 - pages::resident_share(cache, touched[k]),
                }
            }
        }
        let t_ns: f64 = tiers.iter().map(|t| t.t_ns).sum();
        Ok(Prediction {
            t_ns,
            t_dram_ns: w.t_dram_ns,
            relative: (w.t_dram_ns + t_ns) / w.t_dram_ns,
            tiers,
        })
    }

    /// What the page model says the storage device does for placement `a` of `w`: the
    /// bytes read and the major faults of its page-granular tiers, summed (the figures
    /// `place validate` measures with `/proc/self/io` and `ru_majflt`); `None` when no
    /// tier is page-granular.
    pub fn predict_io(
        &self,
        w: &Workload,
        profiles: &[Profile],
        a: &Assignment,
    ) -> Option<IoFigures> {
        let mut out: Option<IoFigures> = None;
        for (k, p) in profiles.iter().enumerate() {
            let Some(pc) = self.pages_of(p) else {
                continue;
            };
            let k = k + 1;
            let on = |i: usize| a.tier.get(i) == Some(&k);
            let cache_pages = self
                .options
                .page_cache_bytes
                .map(|c| c / pc.page_bytes.max(1));
            let io = match pages::recorded_reads(w, &on, pc, cache_pages, self.options.reclaim) {
                Some(m) => m.io(pc),
                None => pages::counted_io(w, &on, pc),
            };
            let o = out.get_or_insert_with(IoFigures::default);
            o.read_bytes += io.read_bytes;
            o.major_faults += io.major_faults;
        }
        out
    }
}
