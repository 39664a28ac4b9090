//! The page model's predictions of `place validate` documents recomputed under other
//! model options, against the times those runs measured: what a change of the model
//! would have given on runs already made, without measuring again. Each scenario
//! (advised and fixed placements; baselines with `--baselines`) is predicted as
//! `validate` predicts it, with its functions: the profile calibrated with the run's
//! samples (`run_profile`), the cache its group held (`model_cache`), `T_DRAM` the
//! reference runs paired with it (`relative_over_measured`). The whole-workload error
//! |predicted/measured − 1| is summarised per setting and variant (median, max); the
//! first variant (one LRU list) reproduces the documents' own figures.
//!
//! ```text
//! cargo run --release -p pmolap-bench --example repredict -- \
//!     bench/place-validate/out/sf1/profile-disk.json bench/place-validate/out/sf1/validate-*.json
//! ```
//!
//! `VARIANTS=lru,kernel` keeps only the variants named (each is a whole simulation of
//! every placement: the SF 10 documents take ~2 minutes a variant).
//!
//! `RECLAIM_SCALE=F` adds one variant: the model with the profile's `reclaim_page_ns`
//! times F (docs/placement.md, "The reclaim's price at SF 10").
//!
//! A development tool: it stops at the first unreadable file.
use std::collections::BTreeMap;

use pmolap_bench::ssb::validate::{
    model_cache, relative_over_measured, run_profile, ValidateReport,
};
use pmolap_place::pagecache::Policy;
use pmolap_place::Workload;
use pmolap_place::{Assignment, Model, ModelOptions, Profile};
use pmolap_results::place::ScenarioResult;

/// One variant of the model: a reclaim policy and how the reclaim cost is charged.
struct Variant {
    name: &'static str,
    reclaim: Policy,
    rule: Rule,
    /// The profile's `reclaim_page_ns` times this.
    scale: f64,
}

/// How the reclaim cost is charged and the point predicted.
#[derive(Clone, Copy, PartialEq)]
enum Rule {
    /// As the model does: `reclaim_page_ns` per evicted page touched since it was read.
    Model,
    /// `reclaim_page_ns` per page read that evicted one, touched or not (the model
    /// before 2026-11-28).
    EveryEviction,
    /// No reclaim cost.
    NoReclaim,
    /// The model's, the geometric mean of its predictions with 0.9x and 1.1x the cache
    /// (the cache the kernel leaves is uncertain by about that much).
    BandGeo,
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let with_baselines = args.iter().any(|a| a == "--baselines");
    let verbose = args.iter().any(|a| a == "-v");
    let pages = args.iter().any(|a| a == "--pages");
    args.retain(|a| !a.starts_with('-'));
    if args.len() < 2 {
        eprintln!("usage: repredict [--baselines] [-v] [--pages] PROFILE.json VALIDATE.json...");
        std::process::exit(2);
    }
    let profile = Profile::load(std::path::Path::new(&args[0])).expect("the profile");
    let variant = |name, reclaim, rule| Variant {
        name,
        reclaim,
        rule,
        scale: 1.0,
    };
    // `RECLAIM_SCALE=F`: one more variant, the model's with the reclaim cost times F.
    let scale: Option<f64> = std::env::var("RECLAIM_SCALE")
        .ok()
        .and_then(|v| v.parse().ok());
    let mut variants = vec![
        variant("lru", Policy::Lru, Rule::Model),
        variant("lru, every eviction", Policy::Lru, Rule::EveryEviction),
        variant("lru, no reclaim", Policy::Lru, Rule::NoReclaim),
        variant("lru, band geo mean", Policy::Lru, Rule::BandGeo),
        variant("kernel", Policy::Kernel, Rule::Model),
        variant(
            "kernel, every eviction",
            Policy::Kernel,
            Rule::EveryEviction,
        ),
    ];
    // `VARIANTS=a,b`: only the variants named.
    if let Ok(only) = std::env::var("VARIANTS") {
        let only: Vec<&str> = only.split(',').collect();
        variants.retain(|v| only.contains(&v.name));
    }
    if let Some(f) = scale {
        variants.push(Variant {
            name: "lru, reclaim scaled",
            scale: f,
            ..variant("", Policy::Lru, Rule::Model)
        });
    }
    // (setting, variant) -> errors of every scenario of every document.
    let mut errs: BTreeMap<(String, usize), Vec<(f64, bool)>> = BTreeMap::new();
    for f in &args[1..] {
        let r: ValidateReport =
            serde_json::from_slice(&std::fs::read(f).expect("a validate document"))
                .expect("a place-validate document");
        let w = &r.workload;
        let setting = match &r.cgroup {
            Some(cg) => format!(
                "cache {:.1} MiB",
                (cg.limit_bytes - cg.working_bytes) as f64 / 1048576.0
            ),
            None => "cold".to_string(),
        };
        let ids: Vec<String> = w.structures.iter().map(|s| s.id()).collect();
        let run_profile = run_profile(&profile, r.calibration.as_ref());
        // Each scenario with the cache bound of its own group, if it had one: the OS-alone
        // baselines; an advised OS alone's bound is not in the document — cold, any
        // scenario whose group held page cache ran behind its own (priced with what it
        // held); behind a setting's cache, one that held less than the setting is priced
        // with the setting's figure here and with its own in `validate`.
        let cold = r.cgroup.is_none();
        let mut rows: Vec<(&ScenarioResult, Option<u64>)> = r
            .scenarios
            .iter()
            .map(|s| (s, s.page_cache_bytes.filter(|_| cold)))
            .collect();
        if with_baselines {
            rows.extend(r.baselines.iter().map(|b| (&b.result, b.cache_bytes)));
        }
        let setting_cache = r.cgroup.as_ref().and_then(|c| c.model_cache_bytes);
        for (s, own_bound) in rows {
            let cache = model_cache(
                r.config.setting,
                own_bound,
                s.page_cache_bytes,
                setting_cache,
            );
            let a = Assignment {
                tier: ids
                    .iter()
                    .map(|id| usize::from(s.slow_structures.contains(id)))
                    .collect(),
            };
            let sum: f64 = s.queries.iter().map(|q| q.median_ms).sum();
            // The paired reference runs' wall time: measured = sum / their sum.
            let pair_ms = sum / s.measured;
            if pages {
                print_pages(&setting, s, w, &run_profile, &r, cache, pair_ms);
            }
            let mut line = format!("{setting:16} {:32} meas {:8.3}", s.name, s.measured);
            for (k, v) in variants.iter().enumerate() {
                let mut p = run_profile.clone();
                let threads = r.config.io_threads.unwrap_or(r.config.threads as u32);
                if let Some(pc) = p.pages.as_mut() {
                    pc.reclaim_page_ns = pc.reclaim_page_ns.map(|r| r * v.scale);
                }
                if v.rule == Rule::NoReclaim {
                    if let Some(pc) = p.pages.as_mut() {
                        pc.reclaim_page_ns = None;
                    }
                }
                let at = |f: f64| {
                    Model::new(ModelOptions {
                        page_cache_bytes: cache.map(|c| (c as f64 * f) as u64),
                        reclaim: v.reclaim,
                        io_threads: threads,
                        ..ModelOptions::new(r.config.llc_bytes)
                    })
                    .expect("a model")
                    .predict(w, std::slice::from_ref(&p), &a)
                    .expect("a prediction")
                    .relative
                };
                let rel = match (v.rule, cache) {
                    (Rule::BandGeo, Some(_)) => (at(0.9) * at(1.1)).sqrt(),
                    (Rule::EveryEviction, Some(c)) => {
                        // The untouched evictions' reclaim on top of the model's.
                        let pc = p.pages.as_ref().expect("page costs");
                        let on = |i: usize| s.slow_structures.contains(&ids[i]);
                        let m = pmolap_place::pages::recorded_reads(
                            w,
                            &on,
                            pc,
                            Some(c / pc.page_bytes.max(1)),
                            v.reclaim,
                        )
                        .expect("page records");
                        at(1.0)
                            + threads as f64
                                * (m.evicting - m.evicted_used)
                                * pc.reclaim_page_ns.unwrap_or(0.0)
                                / w.t_dram_ns
                    }
                    _ => at(1.0),
                };
                let pred = relative_over_measured(rel, w, pair_ms, r.config.threads);
                let e = (pred / s.measured - 1.0).abs();
                let cliff = s
                    .promised_band
                    .is_some_and(|(lo, hi)| pmolap_place::CacheBand::is_cliff(lo, hi));
                errs.entry((setting.clone(), k))
                    .or_default()
                    .push((e, cliff));
                line += &format!("  {:.3} ({:5.1} %)", pred, e * 100.0);
            }
            if verbose {
                println!("{line}");
            }
        }
    }
    println!(
        "{:16} {:22} {:>6} {:>9} {:>9} {:>14}",
        "setting", "variant", "n", "median", "max", "max off cliffs"
    );
    for ((setting, k), v) in &errs {
        let mut all: Vec<f64> = v.iter().map(|e| e.0).collect();
        all.sort_by(|a, b| a.total_cmp(b));
        let off = v
            .iter()
            .filter(|e| !e.1)
            .map(|e| e.0)
            .fold(0.0f64, f64::max);
        println!(
            "{setting:16} {:22} {:6} {:8.1}% {:8.1}% {:13.1}%",
            variants[*k].name,
            all.len(),
            all[all.len() / 2] * 100.0,
            all.last().unwrap() * 100.0,
            off * 100.0
        );
    }
}

/// One scenario's pages as the model counts them (one LRU list) against what the run
/// measured: the wall ns per page read, measured and predicted, and the mix of pages.
fn print_pages(
    setting: &str,
    s: &ScenarioResult,
    w: &Workload,
    profile: &Profile,
    r: &ValidateReport,
    cache: Option<u64>,
    pair_ms: f64,
) {
    let Some(pc) = profile.pages.as_ref() else {
        return;
    };
    let ids: Vec<String> = w.structures.iter().map(|s| s.id()).collect();
    let on = |i: usize| s.slow_structures.contains(&ids[i]);
    let cache_pages = cache.map(|c| c / pc.page_bytes.max(1));
    // `PAGES_POLICY=kernel|two-list`: the mix under another reclaim policy.
    let policy = match std::env::var("PAGES_POLICY").as_deref() {
        Ok("kernel") => Policy::Kernel,
        Ok("two-list") => Policy::TwoList,
        _ => Policy::Lru,
    };
    let Some(m) = pmolap_place::pages::recorded_reads(w, &on, pc, cache_pages, policy) else {
        return;
    };
    let threads = r.config.io_threads.unwrap_or(r.config.threads as u32);
    let sum: f64 = s.queries.iter().map(|q| q.median_ms).sum();
    let meas_extra_ns = (sum - pair_ms) * 1e6;
    let pred_extra_ns = m.cost(pc, threads) / threads as f64;
    let meas_pages = s.io.map_or(0.0, |io| io.read_bytes) / pc.page_bytes as f64;
    let meas_faults = s.io.map_or(0.0, |io| io.major_faults);
    if m.read < 1000.0 {
        return;
    }
    println!(
        "PAGES {setting:16} {:30} read meas {:9.0} pred {:9.0} ({:.2}) | ns/page meas {:6.0} pred {:6.0} | around {:.2} evict {:.2} of them touched {:.2} faults meas {:6.0} pred {:6.0}",
        s.name,
        meas_pages,
        m.read,
        m.read / meas_pages.max(1.0),
        meas_extra_ns / meas_pages.max(1.0),
        pred_extra_ns / m.read,
        m.around / m.read,
        m.evicting / m.read,
        m.evicted_used / m.evicting.max(1.0),
        meas_faults,
        m.faults,
    );
}
