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
//! A development tool: it stops at the first unreadable file.
use std::collections::BTreeMap;

use pmolap_bench::ssb::validate::{
    model_cache, relative_over_measured, run_profile, ValidateReport,
};
use pmolap_place::pagecache::Policy;
use pmolap_place::{Assignment, Model, ModelOptions, Profile};
use pmolap_results::place::ScenarioResult;

/// One variant of the model: a reclaim policy and a factor on the reclaim cost.
struct Variant {
    name: &'static str,
    reclaim: Policy,
    reclaim_cost: f64,
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let with_baselines = args.iter().any(|a| a == "--baselines");
    let verbose = args.iter().any(|a| a == "-v");
    args.retain(|a| !a.starts_with('-'));
    if args.len() < 2 {
        eprintln!("usage: repredict [--baselines] [-v] PROFILE.json VALIDATE.json...");
        std::process::exit(2);
    }
    let profile = Profile::load(std::path::Path::new(&args[0])).expect("the profile");
    let variants = [
        Variant {
            name: "lru",
            reclaim: Policy::Lru,
            reclaim_cost: 1.0,
        },
        Variant {
            name: "lru, reclaim x0.5",
            reclaim: Policy::Lru,
            reclaim_cost: 0.5,
        },
        Variant {
            name: "lru, no reclaim",
            reclaim: Policy::Lru,
            reclaim_cost: 0.0,
        },
        Variant {
            name: "kernel",
            reclaim: Policy::Kernel,
            reclaim_cost: 1.0,
        },
        Variant {
            name: "kernel, reclaim x0.5",
            reclaim: Policy::Kernel,
            reclaim_cost: 0.5,
        },
    ];
    // (setting, variant) -> errors of every scenario of every document.
    let mut errs: BTreeMap<(String, usize), Vec<f64>> = BTreeMap::new();
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
            let mut line = format!("{setting:16} {:32} meas {:8.3}", s.name, s.measured);
            for (k, v) in variants.iter().enumerate() {
                let mut p = run_profile.clone();
                if let Some(pc) = p.pages.as_mut() {
                    pc.reclaim_page_ns = pc.reclaim_page_ns.map(|c| c * v.reclaim_cost);
                }
                let m = Model::new(ModelOptions {
                    page_cache_bytes: cache,
                    reclaim: v.reclaim,
                    io_threads: r.config.io_threads.unwrap_or(r.config.threads as u32),
                    ..ModelOptions::new(r.config.llc_bytes)
                })
                .expect("a model");
                let rel = m
                    .predict(w, std::slice::from_ref(&p), &a)
                    .expect("a prediction")
                    .relative;
                let pred = relative_over_measured(rel, w, pair_ms, r.config.threads);
                let e = (pred / s.measured - 1.0).abs();
                errs.entry((setting.clone(), k)).or_default().push(e);
                line += &format!("  {:.3} ({:5.1} %)", pred, e * 100.0);
            }
            if verbose {
                println!("{line}");
            }
        }
    }
    println!(
        "{:16} {:22} {:>6} {:>9} {:>9}",
        "setting", "variant", "n", "median", "max"
    );
    for ((setting, k), v) in &errs {
        let mut v = v.clone();
        v.sort_by(|a, b| a.total_cmp(b));
        println!(
            "{setting:16} {:22} {:6} {:8.1}% {:8.1}%",
            variants[*k].name,
            v.len(),
            v[v.len() / 2] * 100.0,
            v.last().unwrap() * 100.0
        );
    }
}
