//! The caching variants' names and switches ([`Variant`], [`Policy`]) and the read counts
//! ([`CacheStats`]).

use crate::error::Result;

/// Replacement policy of a dynamic cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Least recently used: every miss is admitted, the least recently used lists go.
    Lru,
    /// LRU eviction with TinyLFU admission: a missed list replaces the LRU victim only if
    /// its (approximate, aged) access frequency is higher. One-off deep lists then do not
    /// flush the frequently traversed upper lists out of the cache.
    TinyLfu,
}

impl Policy {
    /// `lru` or `tinylfu`.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Lru => "lru",
            Policy::TinyLfu => "tinylfu",
        }
    }
}

/// A caching variant (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    Pm,
    Hybrid,
    Static {
        levels: usize,
    },
    Dynamic {
        policy: Policy,
        capacity_bytes: usize,
    },
    Probability {
        budget_bytes: usize,
    },
    StaticDynamic {
        levels: usize,
        policy: Policy,
        capacity_bytes: usize,
    },
}

impl Variant {
    /// A short name for reports, e.g. `static-3`, `dynamic-lru-16MiB`.
    pub fn name(&self) -> String {
        fn mib(b: usize) -> String {
            if b == usize::MAX {
                "unlimited".into()
            } else if b > 0 && b.is_multiple_of(1 << 30) {
                format!("{}GiB", b >> 30)
            } else if b > 0 && b.is_multiple_of(1 << 20) {
                format!("{}MiB", b >> 20)
            } else if b > 0 && b.is_multiple_of(1 << 10) {
                format!("{}KiB", b >> 10)
            } else {
                b.to_string()
            }
        }
        match *self {
            Variant::Pm => "pm".into(),
            Variant::Hybrid => "hybrid".into(),
            Variant::Static { levels } => format!("static-{levels}"),
            Variant::Dynamic {
                policy,
                capacity_bytes,
            } => format!("dynamic-{}-{}", policy.name(), mib(capacity_bytes)),
            Variant::Probability { budget_bytes } => format!("prob-{}", mib(budget_bytes)),
            Variant::StaticDynamic {
                levels,
                policy,
                capacity_bytes,
            } => format!(
                "static-{levels}+dynamic-{}-{}",
                policy.name(),
                mib(capacity_bytes)
            ),
        }
    }
}

fn parse_bytes(s: &str) -> Option<usize> {
    if s == "unlimited" {
        return Some(usize::MAX);
    }
    let (num, mult) = if let Some(n) = s.strip_suffix("GiB") {
        (n, 1usize << 30)
    } else if let Some(n) = s.strip_suffix("MiB") {
        (n, 1 << 20)
    } else if let Some(n) = s.strip_suffix("KiB") {
        (n, 1 << 10)
    } else {
        (s, 1)
    };
    num.parse::<usize>().ok()?.checked_mul(mult)
}

fn parse_policy(s: &str) -> Option<Policy> {
    match s {
        "lru" => Some(Policy::Lru),
        "tinylfu" => Some(Policy::TinyLfu),
        _ => None,
    }
}

impl Variant {
    /// Parses the names [`Variant::name`] writes: `pm`, `hybrid`, `static-K`,
    /// `dynamic-POLICY-SIZE`, `prob-SIZE`, `static-K+dynamic-POLICY-SIZE`; POLICY is `lru`
    /// or `tinylfu`, SIZE bytes with an optional `KiB`/`MiB`/`GiB` suffix, or `unlimited`.
    pub fn parse(s: &str) -> Result<Variant> {
        let bad = || {
            crate::error::Error::BadQuery(format!(
                "unknown caching variant `{s}` (pm, hybrid, static-K, dynamic-lru|tinylfu-SIZE, \
                 prob-SIZE, static-K+dynamic-lru|tinylfu-SIZE)"
            ))
        };
        let dynamic = |t: &str| -> Option<(Policy, usize)> {
            let (p, b) = t.strip_prefix("dynamic-")?.split_once('-')?;
            Some((parse_policy(p)?, parse_bytes(b)?))
        };
        let v = match s {
            "pm" => Some(Variant::Pm),
            "hybrid" => Some(Variant::Hybrid),
            _ => {
                if let Some((st, dy)) = s.split_once('+') {
                    let levels = st.strip_prefix("static-").and_then(|l| l.parse().ok());
                    match (levels, dynamic(dy)) {
                        (Some(levels), Some((policy, capacity_bytes))) => {
                            Some(Variant::StaticDynamic {
                                levels,
                                policy,
                                capacity_bytes,
                            })
                        }
                        _ => None,
                    }
                } else if let Some(l) = s.strip_prefix("static-") {
                    l.parse().ok().map(|levels| Variant::Static { levels })
                } else if let Some(b) = s.strip_prefix("prob-") {
                    parse_bytes(b).map(|budget_bytes| Variant::Probability { budget_bytes })
                } else {
                    dynamic(s).map(|(policy, capacity_bytes)| Variant::Dynamic {
                        policy,
                        capacity_bytes,
                    })
                }
            }
        };
        v.ok_or_else(bad)
    }
}

/// Counts of list reads (the dense first dimension, DimensionLists, MonoLists and TID
/// lists) by where they were served from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Reads served from DRAM (cache hits).
    pub dram: u64,
    /// Reads served from the persistent array (misses, or uncached parts).
    pub pm: u64,
    /// Lists copied into a dynamic cache.
    pub admitted: u64,
    /// Lists evicted from a dynamic cache.
    pub evicted: u64,
}

impl CacheStats {
    /// `dram / (dram + pm)`, 0 when nothing was read.
    pub fn hit_ratio(&self) -> f64 {
        let t = self.dram + self.pm;
        if t == 0 {
            0.0
        } else {
            self.dram as f64 / t as f64
        }
    }
}
