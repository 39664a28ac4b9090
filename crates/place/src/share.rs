//! `SlowShare`: how much of a workload a placement puts off the reference tier, counted
//! over the bytes the workload accesses (the headline, as the placement paper counts:
//! never-accessed data costs nothing and is left out of its totals) and over all bytes.

use serde::{Deserialize, Serialize};

use crate::model::Assignment;
use crate::workload::Workload;

/// The bytes a placement puts off the reference tier (DRAM).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SlowShare {
    /// Bytes off DRAM, every structure counted.
    pub bytes: u64,
    /// Bytes off DRAM of the structures the workload accesses (any count above 0).
    pub accessed_bytes: u64,
    /// `bytes` / all of the workload's bytes (0 when it has none).
    pub fraction: f64,
    /// `accessed_bytes` / the workload's accessed bytes (0 when it accesses none).
    pub accessed_fraction: f64,
}

impl SlowShare {
    /// The share of `w` that `a` puts off tier 0; structures `a` has no tier for count
    /// as on DRAM.
    pub fn of(w: &Workload, a: &Assignment) -> SlowShare {
        let (mut bytes, mut accessed_bytes, mut total, mut accessed_total) = (0, 0, 0, 0);
        for (i, s) in w.structures.iter().enumerate() {
            let accessed = s.accessed();
            let slow = a.tier.get(i).is_some_and(|&t| t != 0);
            total += s.bytes;
            if accessed {
                accessed_total += s.bytes;
            }
            if slow {
                bytes += s.bytes;
                if accessed {
                    accessed_bytes += s.bytes;
                }
            }
        }
        let ratio = |n: u64, d: u64| if d == 0 { 0.0 } else { n as f64 / d as f64 };
        SlowShare {
            bytes,
            accessed_bytes,
            fraction: ratio(bytes, total),
            accessed_fraction: ratio(accessed_bytes, accessed_total),
        }
    }

    /// `41.3% of the accessed bytes (62.0% of all bytes)`.
    pub fn describe(&self) -> String {
        format!(
            "{:.1}% of the accessed bytes ({:.1}% of all bytes)",
            100.0 * self.accessed_fraction,
            100.0 * self.fraction
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::StructureLoad;
    use pmolap_store::StructureKind;

    fn structure(column: &str, bytes: u64, lookups: u64) -> StructureLoad {
        StructureLoad::looked_up(column, StructureKind::Dictionary, bytes, lookups)
    }

    #[test]
    fn never_accessed_bytes_count_only_in_the_all_bytes_share() {
        let w = Workload::new(
            pmolap_store::format::FORMAT_VERSION,
            1.0,
            vec![
                structure("a", 100, 5),
                structure("b", 300, 0),
                structure("c", 600, 1),
            ],
        )
        .unwrap();
        // The never-accessed `b` alone: none of the accessed bytes, 30 % of all bytes.
        let s = SlowShare::of(
            &w,
            &Assignment {
                tier: vec![0, 1, 0],
            },
        );
        assert_eq!((s.bytes, s.accessed_bytes), (300, 0));
        assert_eq!(s.accessed_fraction, 0.0);
        assert!((s.fraction - 0.3).abs() < 1e-12);
        // `a` and `b`: 100 of 700 accessed bytes, 400 of 1000 bytes.
        let s = SlowShare::of(
            &w,
            &Assignment {
                tier: vec![1, 1, 0],
            },
        );
        assert!((s.accessed_fraction - 100.0 / 700.0).abs() < 1e-12);
        assert!((s.fraction - 0.4).abs() < 1e-12);
        assert_eq!(
            s.describe(),
            "14.3% of the accessed bytes (40.0% of all bytes)"
        );
        // Everything off DRAM: both 100 %.
        let s = SlowShare::of(&w, &Assignment::all(3, 1));
        assert_eq!((s.fraction, s.accessed_fraction), (1.0, 1.0));
    }
}
