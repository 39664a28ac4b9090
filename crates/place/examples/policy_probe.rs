//! The bytes each reclaim policy of the page-cache simulation predicts against what the
//! device read (`/proc/self/io`), per placement of `place validate` documents of cache
//! settings (placements that read at least 1 MB a pass; the cache each placement's
//! group held, as `validate` gives the model). What docs/placement.md, "Which pages the
//! kernel keeps", was measured with:
//!
//! ```text
//! cargo run --release -p pmolap-place --example policy_probe -- \
//!     bench/place-validate/out/sf1/profile-disk.json bench/place-validate/out/sf1/validate-cache*.json
//! ```
//!
//! A development tool: it stops at the first unreadable file.
use pmolap_place::pagecache::Policy;
use pmolap_place::readahead::workload_reads_with;
use pmolap_place::schedule::Order;
use pmolap_place::{Profile, Workload};
use pmolap_results::place::ValidateReport;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: policy_probe PROFILE.json VALIDATE.json...");
        std::process::exit(2);
    }
    let profile = Profile::load(std::path::Path::new(&args[1])).expect("the profile");
    let pc = profile.pages.clone().expect("a profile with page costs");
    let pols = [Policy::Lru, Policy::TwoList, Policy::Kernel];
    let mut logs: Vec<Vec<f64>> = vec![Vec::new(); pols.len()];
    for f in &args[2..] {
        let r: ValidateReport<Workload> =
            serde_json::from_slice(&std::fs::read(f).expect("a validate document"))
                .expect("a place-validate document");
        let Some(cg) = &r.cgroup else { continue };
        let setting = cg.limit_bytes - cg.working_bytes;
        let w = &r.workload;
        let ids: Vec<String> = w.structures.iter().map(|s| s.id()).collect();
        let mut rows: Vec<(&str, &pmolap_results::place::ScenarioResult, bool)> = r
            .scenarios
            .iter()
            .map(|s| (s.name.as_str(), s, false))
            .collect();
        for b in &r.baselines {
            rows.push((b.result.name.as_str(), &b.result, b.cache_bytes.is_some()));
        }
        println!("== {f} (setting {:.1} MiB)", setting as f64 / 1048576.0);
        for (name, s, own) in rows {
            let Some(io) = s.io else { continue };
            if io.read_bytes < 1e6 {
                continue;
            }
            let cache = if own {
                s.page_cache_bytes.unwrap_or(setting)
            } else {
                s.page_cache_bytes
                    .filter(|&c| c >= setting)
                    .or(cg.model_cache_bytes)
                    .unwrap_or(setting)
            };
            let on = |i: usize| s.slow_structures.contains(&ids[i]);
            let mut line = format!(
                "{name:32} cache {:6.1} MiB measured {:8.1}",
                cache as f64 / 1048576.0,
                io.read_bytes / 1048576.0
            );
            for (k, p) in pols.iter().enumerate() {
                let pr = workload_reads_with(
                    w,
                    &on,
                    &pc,
                    Some(cache / pc.page_bytes),
                    Order::default(),
                    *p,
                )
                .expect("a workload with page records");
                let mib = pr.read * pc.page_bytes as f64 / 1048576.0;
                let ratio = mib / (io.read_bytes / 1048576.0);
                if ratio.is_finite() && ratio > 0.0 {
                    logs[k].push(ratio.ln().abs());
                } else {
                    logs[k].push(10.0);
                }
                line += &format!("  {p:?} {mib:8.1} ({ratio:.2})");
            }
            println!("{line}");
        }
    }
    for (k, p) in pols.iter().enumerate() {
        let mut v = logs[k].clone();
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let med = v[v.len() / 2].exp();
        let max = v.last().unwrap().exp();
        let mean = (v.iter().sum::<f64>() / v.len() as f64).exp();
        println!(
            "{p:?}: factor median {med:.2}, geo-mean {mean:.2}, worst {max:.2} over {}",
            v.len()
        );
    }
}
