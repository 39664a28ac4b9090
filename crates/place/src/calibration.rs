//! The slow tier's page costs calibrated with samples of the database's own files
//! (`pmolap_results::place::PageSample`, taken by `bench`'s probe: one stream, three
//! streams, isolated faults, faults on small files). A page-granular profile measures the
//! device on files it has just written; the database's files, read often, on the same
//! device cost differently (2026-11-27, SF 1: one stream 3.0 µs a page against the
//! profile's 1.7-2.3, quiet), and the device's speed moves from second to second. So
//! `place workload` samples the database's files when it records (the workload's
//! `page_samples`: what `advise`, `whatif` and `validate` price the promise with when
//! the slow structures stay in those files), and `place validate` samples them beside
//! every placement (what its `predicted` uses).

use pmolap_results::place::PageSample;

use crate::profile::{PageCosts, Profile, StreamCost};
use crate::Workload;

/// The median of each cost over `samples` (`None` where no sample measured it).
pub fn medians(samples: &[PageSample]) -> PageSample {
    let med = |f: fn(&PageSample) -> Option<f64>| -> Option<f64> {
        let v: Vec<f64> = samples.iter().filter_map(f).collect();
        (!v.is_empty()).then(|| pmolap_results::stats::median(&v))
    };
    PageSample {
        one_stream_ns: med(|s| s.one_stream_ns),
        three_streams_ns: med(|s| s.three_streams_ns),
        fault_page_ns: med(|s| s.fault_page_ns),
        fault_latency_ns: med(|s| s.fault_latency_ns),
    }
}

/// A profile's figures for the costs a sample measures.
pub fn of_costs(pc: &PageCosts) -> PageSample {
    PageSample {
        one_stream_ns: Some(pc.page_ns(1)),
        three_streams_ns: pc
            .streams
            .as_ref()
            .and_then(|s| s.iter().find(|s| s.streams == 3))
            .map(|s| s.page_ns),
        fault_page_ns: pc.fault_page_ns,
        fault_latency_ns: pc.fault_latency_ns,
    }
}

/// The page costs of `base` with the costs `used` measured (the medians of a run's
/// samples, [`medians`]) in place of its own; a cost `used` lacks keeps `base`'s.
pub fn calibrated(base: &PageCosts, used: &PageSample, samples: usize, when: &str) -> PageCosts {
    let mut out = base.clone();
    if let Some(one) = used.one_stream_ns {
        out.sequential_page_ns = one;
    }
    let three = used
        .three_streams_ns
        .or_else(|| of_costs(base).three_streams_ns);
    out.streams = Some(
        std::iter::once(StreamCost {
            streams: 1,
            page_ns: out.sequential_page_ns,
        })
        .chain(three.map(|t| StreamCost {
            streams: 3,
            page_ns: t,
        }))
        .collect(),
    );
    if let Some(f) = used.fault_page_ns {
        out.fault_page_ns = Some(f);
    }
    if let Some(l) = used.fault_latency_ns {
        out.fault_latency_ns = Some(l);
    }
    out.note = Some(format!(
        "calibrated {when}: medians of {samples} samples of the database's own files (one stream, three streams, isolated faults, faults on small files); the rest from the profile"
    ));
    out
}

/// `profile` with its page costs calibrated by `w`'s samples (the workload's
/// `page_samples`): for a slow tier that is the database's own files. Unchanged where
/// the profile has no page costs (a byte-addressable tier) or the workload no samples.
pub fn for_workload(profile: &Profile, w: &Workload) -> Profile {
    let mut p = profile.clone();
    if let (Some(pc), false) = (&profile.pages, w.page_samples.is_empty()) {
        p.pages = Some(calibrated(
            pc,
            &medians(&w.page_samples),
            w.page_samples.len(),
            "when the workload was recorded",
        ));
    }
    p
}

/// Whether `for_workload` changes `profile`'s page costs for `w`.
pub fn applies(profile: &Profile, w: &Workload) -> bool {
    profile.pages.is_some() && !w.page_samples.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn costs() -> PageCosts {
        PageCosts {
            page_bytes: 4096,
            random_page_ns: 100_000.0,
            sequential_page_ns: 2000.0,
            fault_pages: 50,
            readahead_pages: Some(2048),
            fault_page_ns: Some(3000.0),
            fault_latency_ns: Some(50_000.0),
            reclaim_page_ns: Some(1000.0),
            streams: Some(vec![
                StreamCost {
                    streams: 1,
                    page_ns: 2000.0,
                },
                StreamCost {
                    streams: 3,
                    page_ns: 2500.0,
                },
            ]),
            note: None,
        }
    }

    #[test]
    fn calibration_takes_each_fields_median_and_keeps_the_rest() {
        let s = |a: f64, b: Option<f64>, f: f64, l: f64| PageSample {
            one_stream_ns: Some(a),
            three_streams_ns: b,
            fault_page_ns: Some(f),
            fault_latency_ns: Some(l),
        };
        let samples = [
            s(1000.0, Some(1500.0), 4000.0, 80_000.0),
            s(3000.0, None, 5000.0, 60_000.0),
            s(2500.0, Some(1700.0), 9000.0, 70_000.0),
        ];
        let c = calibrated(&costs(), &medians(&samples), samples.len(), "in a test");
        assert_eq!(c.sequential_page_ns, 2500.0);
        assert_eq!(c.fault_page_ns, Some(5000.0));
        assert_eq!(c.fault_latency_ns, Some(70_000.0));
        let st = c.streams.as_ref().unwrap();
        assert_eq!((st[0].streams, st[0].page_ns), (1, 2500.0));
        assert_eq!((st[1].streams, st[1].page_ns), (3, 1600.0));
        // Not sampled: the profile's.
        assert_eq!(c.reclaim_page_ns, Some(1000.0));
        assert_eq!(c.random_page_ns, 100_000.0);
        assert_eq!(c.readahead_pages, Some(2048));
        // No samples: the profile's costs unchanged.
        let same = calibrated(&costs(), &medians(&[]), 0, "in a test");
        assert_eq!(same.sequential_page_ns, 2000.0);
        assert_eq!(same.fault_latency_ns, Some(50_000.0));
        assert_eq!(same.streams.as_ref().unwrap()[1].page_ns, 2500.0);
        assert_eq!(of_costs(&same), of_costs(&costs()));
    }

    #[test]
    fn a_workload_calibrates_a_page_profile_only_with_samples() {
        let mut p = Profile::builtin("optane-100").unwrap();
        let mut w = Workload::new(
            p.store_format,
            1e6,
            vec![crate::StructureLoad::looked_up(
                "a",
                pmolap_store::StructureKind::DataVector,
                1000,
                10,
            )],
        )
        .unwrap();
        // A byte-addressable profile, or no samples: unchanged.
        assert!(!applies(&p, &w));
        assert_eq!(for_workload(&p, &w), p);
        w.page_samples = vec![PageSample {
            one_stream_ns: Some(3000.0),
            three_streams_ns: Some(2900.0),
            fault_page_ns: Some(4000.0),
            fault_latency_ns: Some(60_000.0),
        }];
        assert_eq!(for_workload(&p, &w), p);
        p.pages = Some(costs());
        assert!(applies(&p, &w));
        let c = for_workload(&p, &w);
        let pc = c.pages.as_ref().unwrap();
        assert_eq!(pc.sequential_page_ns, 3000.0);
        assert_eq!(pc.fault_latency_ns, Some(60_000.0));
        assert_eq!(pc.reclaim_page_ns, Some(1000.0));
        assert!(pc
            .note
            .as_deref()
            .unwrap()
            .contains("when the workload was recorded"));
        // Everything but the page costs is the profile's.
        assert_eq!(c.tier, p.tier);
        assert_eq!(c.costs, p.costs);
    }
}
