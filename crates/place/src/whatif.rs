//! Published what-if profiles: CXL-attached DRAM (`cxl`) and remote-socket DRAM
//! (`far-numa`), each relative to local DRAM, for predicting on machines that lack the
//! tier. The sources give load latencies and bandwidths, not per-structure costs, so
//! every cost is **derived**; each entry's `note` names the figures and the formula, and
//! `docs/placement.md` ("Published what-if profiles") tabulates the results.
//!
//! # Figures used
//!
//! - Lasch et al., PVLDB'22 (the placement paper), Sec. 2: idle latency of random 64-byte
//!   reads on the 200 Series system, **84 ns DRAM, 298 ns Optane** (gap 214 ns). Sec. 3.1:
//!   "additional latencies of **65-75 ns for a NUMA hop**" on that system, and CXL .mem
//!   memory expected to add "**around 100 ns**" (citing PLDA 2021, its ref. 40); the
//!   far-NUMA experiment "can thereby also serve as a comparison point" for such memory.
//! - Daase, Bollmeier, Benson, Rabl, SIGMOD'21, Sec. 3.5 / Fig. 6 (Xeon Gold 5220S,
//!   Optane 100 Series, 18 threads of one socket, 4 KB individual reads): **near DRAM
//!   ~100 GB/s, far DRAM ~33 GB/s** (UPI-bound), near PMEM ~40 GB/s.
//!
//! Δlat is 70 ns for `far-numa` (the middle of 65-75 ns) and 100 ns for `cxl`. No
//! published CXL bandwidth figure could be checked for this derivation, so `cxl` takes
//! the far-NUMA bandwidth (~33 of ~100 GB/s), as the placement paper takes the NUMA hop
//! as the comparison point for CXL memory: its scan and medium-dense costs are an
//! assumption, equal to `far-numa`'s.
//!
//! # Derivation
//!
//! - **Random lookup**: `Δlat × misses(s)`, with `misses(s)` the structure's effective
//!   cache misses per lookup, calibrated on the placement paper's own measurements:
//!   `misses(s) = Table 2 Diff(s) on the 200 Series / (298 − 84) ns`. This gives 1.06
//!   (uncompressed data vector), 5.69 (RLE data vector: a binary search over run
//!   starts), 1.24 (integer dictionary), 1.57 (string dictionary: offset, then bytes) and
//!   1.24 (inverted index) — about the 1, 1, 2 and 1-2 misses the structures' layouts
//!   suggest.
//! - **Scan** (per entry): `entry bytes × (1/BW_tier − 1/BW_dram)`, clamped at zero. The
//!   bandwidth-bound bytes per entry are calibrated on Table 2's 100 Series scans (the
//!   Optane generation of the SIGMOD'21 figures): `Diff_100(s) = e(s) · (BW_d/BW_pmem −
//!   1)` in units of DRAM time, so
//!   `scan(s) = max(Diff_100(s), 0) × (BW_d/BW_tier − 1) / (BW_d/BW_pmem − 1)` with
//!   100, 40 and 33 GB/s: factor (100/33 − 1)/(100/40 − 1) = 1.354. (Check: the
//!   uncompressed data vector's DRAM scan time of 0.5 ns × (100/40 − 1) = 0.75 ns
//!   predicts its measured 0.7 ns Optane Diff; the string dictionary's measured Diff ≤ 0
//!   says its scan is compute-bound, so it stays 0.)
//! - **Near dense** (stride < 8, same or next line, prefetched): the paper's ~1 ns on
//!   Optane scaled by the latency gap, `1 ns × Δlat / 214 ns`.
//! - **Medium dense** (8 ≤ stride < 512, a new line each, prefetchable): the paper's ~10
//!   ns on Optane (100 Series, Fig. 6) scaled by the scan's bandwidth factor, `10 ns ×
//!   1.354`.
//! - **Far dense** (512 ≤ stride < 2^18, prefetcher defeated): one miss per lookup,
//!   `Δlat`.
//!
//! Coverage is the Optane profiles' (every access type the store counts): lookups and
//! the three dense classes on uncompressed and RLE data vectors and on integer and string
//! dictionaries, scans on data vectors and string dictionaries, lookups and near-dense
//! lookups on inverted indexes.

use pmolap_store::StructureKind;

use crate::profile::{
    Access, CostEntry, Profile, Source, Variant, PROFILE_FORMAT, PROFILE_VERSION, TABLE2_100,
    TABLE2_200,
};

/// The SIGMOD'21 bandwidth paper, as the what-if profiles cite it.
pub const DAASE_CITATION: &str = "Daase, Bollmeier, Benson, Rabl: Maximizing Persistent Memory Bandwidth Utilization for OLAP Workloads, SIGMOD 2021, Sec. 3.5 / Fig. 6 (near DRAM ~100 GB/s, far DRAM ~33 GB/s, near PMEM ~40 GB/s, one socket reading)";

/// Idle DRAM latency of the placement paper's 200 Series system (Sec. 2), ns.
pub const OPTANE_200_DRAM_IDLE_NS: f64 = 84.0;
/// Idle Optane 200 Series latency on that system (Sec. 2), ns.
pub const OPTANE_200_PMEM_IDLE_NS: f64 = 298.0;
/// A NUMA hop on that system: the middle of the paper's 65-75 ns (Sec. 3.1).
pub const NUMA_HOP_NS: f64 = 70.0;
/// CXL .mem memory over local DRAM: "around 100 ns" (the paper, Sec. 3.1, citing PLDA
/// 2021).
pub const CXL_EXTRA_NS: f64 = 100.0;
/// SIGMOD'21 Fig. 6: one socket reading its near DRAM, GB/s.
pub const DRAM_NEAR_GBS: f64 = 100.0;
/// SIGMOD'21 Fig. 6: one socket reading the other socket's DRAM, GB/s.
pub const DRAM_FAR_GBS: f64 = 33.0;
/// SIGMOD'21 Figs. 5-6: one socket reading its near PMEM (Optane 100 Series), GB/s.
pub const PMEM_NEAR_GBS: f64 = 40.0;

/// The published figures one what-if tier is derived from.
#[derive(Debug, Clone, Copy)]
struct Figures {
    tier: &'static str,
    description: &'static str,
    /// Δlat over local DRAM, ns.
    extra_latency_ns: f64,
    /// Where Δlat comes from (for the notes).
    latency_from: &'static str,
    /// The tier's read bandwidth, GB/s, against [`DRAM_NEAR_GBS`].
    bandwidth_gbs: f64,
    /// Where the bandwidth comes from (for the notes).
    bandwidth_from: &'static str,
    citation: &'static str,
}

const FAR_NUMA: Figures = Figures {
    tier: "far-numa",
    description: "Remote-socket DRAM vs local DRAM (two-socket Xeon, UPI): derived from published latency and bandwidth figures, see docs/placement.md",
    extra_latency_ns: NUMA_HOP_NS,
    latency_from: "NUMA hop 70 ns (PVLDB'22 Sec. 3.1: 65-75 ns)",
    bandwidth_gbs: DRAM_FAR_GBS,
    bandwidth_from: "far DRAM ~33 GB/s (SIGMOD'21 Fig. 6)",
    citation: "derived (docs/placement.md, \"Published what-if profiles\") from: Lasch, Legler, Scheirle, May, Sattler: Cost Modelling for Optimal Data Placement in Heterogeneous Main Memory, PVLDB 15(11):2867-2880, 2022, Sec. 3.1 (NUMA hop +65-75 ns), Sec. 2 (idle latencies 84/298 ns) and Table 2; Daase, Bollmeier, Benson, Rabl: Maximizing Persistent Memory Bandwidth Utilization for OLAP Workloads, SIGMOD 2021, Fig. 6 (near DRAM ~100 GB/s, far DRAM ~33 GB/s, near PMEM ~40 GB/s)",
};

const CXL: Figures = Figures {
    tier: "cxl",
    description: "CXL-attached (CXL.mem) DRAM vs local DRAM: latency from a published figure, bandwidth assumed equal to far-NUMA DRAM's; see docs/placement.md",
    extra_latency_ns: CXL_EXTRA_NS,
    latency_from: "CXL +100 ns (PVLDB'22 Sec. 3.1: \"around 100 ns\", citing PLDA 2021)",
    bandwidth_gbs: DRAM_FAR_GBS,
    bandwidth_from: "assumed = far DRAM ~33 GB/s (SIGMOD'21 Fig. 6; no CXL bandwidth figure verified, PVLDB'22 Sec. 3.1 takes the NUMA hop as CXL's comparison point)",
    citation: "derived (docs/placement.md, \"Published what-if profiles\") from: Lasch, Legler, Scheirle, May, Sattler: Cost Modelling for Optimal Data Placement in Heterogeneous Main Memory, PVLDB 15(11):2867-2880, 2022, Sec. 3.1 (CXL .mem +~100 ns, citing PLDA 2021, Reducing CXL Latency with PLDA and AnalogX), Sec. 2 (idle latencies 84/298 ns) and Table 2; bandwidth ASSUMED equal to far-NUMA DRAM from Daase, Bollmeier, Benson, Rabl: Maximizing Persistent Memory Bandwidth Utilization for OLAP Workloads, SIGMOD 2021, Fig. 6",
};

/// The Optane 200 Series idle-latency gap the lookup misses are calibrated on, ns.
pub fn optane_latency_gap_ns() -> f64 {
    OPTANE_200_PMEM_IDLE_NS - OPTANE_200_DRAM_IDLE_NS
}

/// A structure's effective cache misses per random lookup: its Table 2 (200 Series)
/// Diff over the Optane-DRAM idle-latency gap.
pub fn misses_per_lookup(table2_200_diff_ns: f64) -> f64 {
    table2_200_diff_ns / optane_latency_gap_ns()
}

/// The scan cost factor of a tier of `tier_gbs` read bandwidth relative to Optane 100
/// Series: `(BW_d/BW_tier − 1) / (BW_d/BW_pmem − 1)` with the SIGMOD'21 figures.
pub fn bandwidth_factor(tier_gbs: f64) -> f64 {
    (DRAM_NEAR_GBS / tier_gbs - 1.0).max(0.0) / (DRAM_NEAR_GBS / PMEM_NEAR_GBS - 1.0)
}

/// The `cxl` profile.
pub fn cxl() -> Profile {
    derive(&CXL)
}

/// The `far-numa` profile.
pub fn far_numa() -> Profile {
    derive(&FAR_NUMA)
}

fn derive(f: &Figures) -> Profile {
    use StructureKind::{DataVector as Dv, Dictionary as Dict, InvertedIndex as Inv};
    let lat = f.extra_latency_ns;
    let gap = optane_latency_gap_ns();
    let bw = bandwidth_factor(f.bandwidth_gbs);
    let mut costs = Vec::new();
    for &(structure, variant, access, _, _, diff) in &TABLE2_200 {
        if access == Access::Lookup {
            let m = misses_per_lookup(diff);
            costs.push(CostEntry::noted(
                structure,
                variant,
                access,
                lat * m,
                format!(
                    "derived: {} x {m:.3} misses/lookup (Table 2 200 Series Diff {diff} ns / ({OPTANE_200_PMEM_IDLE_NS} - {OPTANE_200_DRAM_IDLE_NS}) ns idle gap, PVLDB'22 Sec. 2) = {:.1} ns",
                    f.latency_from,
                    lat * m
                ),
            ));
        }
    }
    for &(structure, variant, access, _, _, diff) in &TABLE2_100 {
        if access == Access::Scan {
            let ns = diff.max(0.0) * bw;
            costs.push(CostEntry::noted(
                structure,
                variant,
                access,
                ns,
                format!(
                    "derived: max(Table 2 100 Series Diff {diff} ns, 0) x bandwidth factor {bw:.3} = (100/{}-1)/(100/{PMEM_NEAR_GBS}-1), {}; near DRAM ~{DRAM_NEAR_GBS}, near PMEM ~{PMEM_NEAR_GBS} GB/s (SIGMOD'21 Fig. 6) = {ns:.2} ns",
                    f.bandwidth_gbs, f.bandwidth_from
                ),
            ));
        }
    }
    let near = lat / gap;
    let near_note = format!(
        "derived: Optane near dense ~1 ns (PVLDB'22 Sec. 4.2, Fig. 6) x {} / {gap} ns Optane idle gap = {near:.2} ns",
        f.latency_from
    );
    let medium = 10.0 * bw;
    let medium_note = format!(
        "derived: Optane medium dense ~10 ns (PVLDB'22 Sec. 4.2, Fig. 6) x bandwidth factor {bw:.3} ({}) = {medium:.1} ns",
        f.bandwidth_from
    );
    let far_note = format!(
        "derived: one miss per lookup, prefetcher defeated: {} = {lat:.0} ns",
        f.latency_from
    );
    for (structure, variant) in [
        (Dv, Variant::Uncompressed),
        (Dv, Variant::Rle),
        (Dict, Variant::Int),
        (Dict, Variant::Str),
    ] {
        costs.push(CostEntry::noted(
            structure,
            variant,
            Access::NearDense,
            near,
            near_note.clone(),
        ));
        costs.push(CostEntry::noted(
            structure,
            variant,
            Access::MediumDense,
            medium,
            medium_note.clone(),
        ));
        costs.push(CostEntry::noted(
            structure,
            variant,
            Access::FarDense,
            lat,
            far_note.clone(),
        ));
    }
    costs.push(CostEntry::noted(
        Inv,
        Variant::Any,
        Access::NearDense,
        near,
        format!("{near_note}; adjacent entries only (PVLDB'22 Sec. 4.2)"),
    ));
    Profile {
        format: PROFILE_FORMAT.into(),
        version: PROFILE_VERSION,
        tier: f.tier.into(),
        source: Source::Published {
            citation: f.citation.into(),
        },
        store_format: pmolap_store::format::FORMAT_VERSION,
        description: f.description.into(),
        costs,
        pages: None,
        origin: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Encoding, Model, ModelOptions, StructureLoad, Workload, BUILTIN_PROFILES};
    use pmolap_store::{AccessCounts, ColumnType};
    use Access::{FarDense, Lookup, MediumDense, NearDense, Scan};
    use StructureKind::{DataVector as Dv, Dictionary as Dict, InvertedIndex as Inv};
    use Variant::{Any, Int, Rle, Str, Uncompressed as Unc};

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// Every (structure, variant, access) the store counts (docs/placement.md, "Access
    /// types and what the store counts today").
    fn counted() -> Vec<(StructureKind, Variant, Access)> {
        let mut v = Vec::new();
        for (k, var) in [(Dv, Unc), (Dv, Rle), (Dict, Int), (Dict, Str)] {
            for a in [Lookup, NearDense, MediumDense, FarDense] {
                v.push((k, var, a));
            }
        }
        v.extend([
            (Dv, Unc, Scan),
            (Dv, Rle, Scan),
            (Dict, Str, Scan),
            (Inv, Any, Lookup),
            (Inv, Any, NearDense),
        ]);
        v
    }

    #[test]
    fn every_builtin_validates_cites_and_covers_what_the_store_counts() {
        for name in BUILTIN_PROFILES {
            let p = Profile::builtin(name).unwrap();
            p.validate(name).unwrap();
            assert_eq!(p.tier, name);
            match &p.source {
                Source::Published { citation } => {
                    assert!(citation.contains("PVLDB"), "{name}: {citation}")
                }
                s => panic!("{name}: {s}"),
            }
            assert!(!p.description.is_empty(), "{name}");
            for (k, v, a) in counted() {
                let e = p
                    .cost(k, v, None, a)
                    .unwrap_or_else(|| panic!("{name}: {k}/{v}/{a}"));
                assert!(e.extra_ns.is_finite());
                assert!(e.note.as_deref().is_some_and(|n| !n.is_empty()));
            }
            // The same keys as the Optane profiles, no more, no fewer.
            let keys = |p: &Profile| {
                let mut k: Vec<String> = p.costs.iter().map(CostEntry::key).collect();
                k.sort();
                k
            };
            assert_eq!(keys(&p), keys(&Profile::optane_200()), "{name}");
        }
    }

    #[test]
    fn derived_profiles_cite_their_figures_in_every_note() {
        for p in [far_numa(), cxl()] {
            let Source::Published { citation } = &p.source else {
                panic!()
            };
            assert!(citation.contains("SIGMOD 2021") && citation.contains("Sec. 3.1"));
            for c in &p.costs {
                let n = c.note.as_deref().unwrap();
                assert!(n.starts_with("derived: "), "{}: {n}", c.key());
                assert!(n.contains("PVLDB'22") || n.contains("SIGMOD'21"), "{n}");
                assert!(c.extra_ns >= 0.0, "{}", c.key());
            }
        }
        let cxl = cxl();
        let Source::Published { citation } = &cxl.source else {
            panic!()
        };
        assert!(citation.contains("ASSUMED"));
    }

    #[test]
    fn hand_computed_costs() {
        // Optane 200 Series idle gap 298 - 84 = 214 ns.
        assert_eq!(optane_latency_gap_ns(), 214.0);
        // (100/33 - 1) / (100/40 - 1) = (67/33) / 1.5 = 1.353535...
        let bw = 67.0 / 33.0 / 1.5;
        assert!(close(bandwidth_factor(33.0), bw, 1e-12));
        let f = far_numa();
        let c = |k, v, a| f.cost(k, v, None, a).unwrap().extra_ns;
        // 70 × 225.8 / 214 = 73.8598..., 70 × 1218.7 / 214 = 398.640...,
        // 70 × 264.5 / 214 = 86.518..., 70 × 336.6 / 214 = 110.102..., 70 × 265.7 / 214 = 86.911...
        assert!(close(c(Dv, Unc, Lookup), 73.8598, 1e-4));
        assert!(close(c(Dv, Rle, Lookup), 398.6402, 1e-4));
        assert!(close(c(Dict, Int, Lookup), 86.5187, 1e-4));
        assert!(close(c(Dict, Str, Lookup), 110.1028, 1e-4));
        assert!(close(c(Inv, Any, Lookup), 86.9112, 1e-4));
        // Scans: 0.7 × 1.3535 = 0.94747, 1.4 × 1.3535 = 1.89495, max(-0.3, 0) = 0.
        assert!(close(c(Dv, Unc, Scan), 0.7 * bw, 1e-12));
        assert!(close(c(Dv, Rle, Scan), 1.4 * bw, 1e-12));
        assert_eq!(c(Dict, Str, Scan), 0.0);
        // Dense: 70/214 = 0.3271, 10 × 1.3535 = 13.535, 70.
        assert!(close(c(Dict, Int, NearDense), 0.3271, 1e-4));
        assert!(close(c(Inv, Any, NearDense), 0.3271, 1e-4));
        assert!(close(c(Dv, Unc, MediumDense), 13.5354, 1e-4));
        assert_eq!(c(Dv, Rle, FarDense), 70.0);
        // CXL: 100 × 225.8 / 214 = 105.514..., far dense 100, scans as far-NUMA.
        let x = cxl();
        let cx = |k, v, a| x.cost(k, v, None, a).unwrap().extra_ns;
        assert!(close(cx(Dv, Unc, Lookup), 105.5140, 1e-4));
        assert!(close(cx(Dict, Str, Lookup), 157.2897, 1e-4));
        assert_eq!(cx(Dict, Int, FarDense), 100.0);
        assert_eq!(cx(Dv, Unc, Scan), c(Dv, Unc, Scan));
    }

    #[test]
    fn lookups_cost_less_than_on_optane() {
        // Published idle latencies: a NUMA hop (+65-75 ns) and CXL (+~100 ns) are well
        // below Optane's +214 ns (200 Series) and +223 ns (100 Series).
        for p in [far_numa(), cxl()] {
            for o in [Profile::optane_100(), Profile::optane_200()] {
                for (k, v, a) in counted() {
                    if matches!(a, Lookup | NearDense | FarDense) {
                        let (w, opt) = (p.cost(k, v, None, a), o.cost(k, v, None, a));
                        let (w, opt) = (w.unwrap().extra_ns, opt.unwrap().extra_ns);
                        assert!(
                            w < opt || (a == FarDense && w <= opt),
                            "{} {k}/{v}/{a}: {w} vs {} {opt}",
                            p.tier,
                            o.tier
                        );
                    }
                }
            }
        }
        // And far-NUMA below CXL (70 ns vs 100 ns) for every lookup.
        let (f, x) = (far_numa(), cxl());
        for (k, v, a) in counted() {
            if a != Scan && a != MediumDense {
                let fc = f.cost(k, v, None, a).unwrap().extra_ns;
                assert!(fc < x.cost(k, v, None, a).unwrap().extra_ns);
            }
        }
    }

    #[test]
    fn model_by_hand_on_far_numa() {
        // A 12-bit data vector of 64 MiB and a 4 KiB integer dictionary; S_LLC 1 MiB.
        let s = 1u64 << 20;
        let load = |kind, bytes, encoding, width, counts| StructureLoad {
            table: "t".into(),
            column: "a".into(),
            kind,
            bytes,
            value_type: ColumnType::Int,
            encoding,
            bit_width: width,
            counts,
        };
        let dv = load(
            Dv,
            64 * s,
            Some(Encoding::Uncompressed),
            Some(12),
            AccessCounts {
                scan: 1_000_000,
                lookup: 1000,
                near_dense: 0,
                medium_dense: 100,
                far_dense: 10,
            },
        );
        let dict = load(
            Dict,
            4096,
            None,
            None,
            AccessCounts {
                scan: 0,
                lookup: 50_000,
                near_dense: 0,
                medium_dense: 0,
                far_dense: 0,
            },
        );
        let w = Workload::new(
            pmolap_store::format::FORMAT_VERSION,
            1e9,
            vec![dv.clone(), dict.clone()],
        )
        .unwrap();
        let m = Model::new(ModelOptions::new(s)).unwrap();
        let p = far_numa();
        let bw = 67.0 / 33.0 / 1.5;
        // Data vector: CMR(64 MiB) = 1/(1 + 19 e^-64) ≈ 1 (to 1e-26).
        let dv_sum = 1_000_000.0 * 0.7 * bw
            + 1000.0 * 70.0 * 225.8 / 214.0
            + 100.0 * 10.0 * bw
            + 10.0 * 70.0;
        // = 947_474.7 + 73_859.8 + 1_353.5 + 700 = 1_023_388.0 ns
        assert!(close(dv_sum, 1_023_388.0, 0.1));
        let t_dv = m.structure_cost(&dv, &p).unwrap();
        assert!(close(t_dv, dv_sum, 1e-6), "{t_dv}");
        // Dictionary: CMR(4 KiB) = 1/(1 + 19 e^-(1/256)) = 0.0501859, × 50 000 × 86.5187
        // = 217 100.8 ns.
        let cmr = 1.0 / (1.0 + 19.0 * (-(4096.0 / s as f64)).exp());
        assert!(close(cmr, 0.050_185_9, 1e-7));
        let t_dict = m.structure_cost(&dict, &p).unwrap();
        assert!(close(t_dict, cmr * 50_000.0 * 70.0 * 264.5 / 214.0, 1e-6));
        assert!(close(t_dict, 217_100.8, 0.1), "{t_dict}");
        // Everything on far-NUMA: (1e9 + 1_023_388.1 + 217_100.8) / 1e9 = 1.00124049.
        let pred = m
            .predict(&w, std::slice::from_ref(&p), &crate::Assignment::all(2, 1))
            .unwrap();
        assert!(
            close(pred.relative, 1.001_240_49, 1e-8),
            "{}",
            pred.relative
        );
    }
}
