//! What each kind of page the page model counts cost the engine in `place validate`'s
//! cold runs, fitted from runs already made: per (placement, query) of cold `place-validate`
//! documents, the model's major faults, pages read around them and pages read ahead (the
//! query's cold simulation, as `validate` predicts it) against the extra wall time measured
//! (the query's median less its paired all-DRAM runs'), fitted by least squares — wall ns
//! per fault, per page around a fault, per page read ahead — beside what the run's
//! calibrated profile charges for each. Two fits: plain (the long queries weigh most) and
//! relative (each row divided by its predicted extra time plus 0.2 ms, so the few-fault
//! queries count as much as the streaming ones); each again with a fourth term, a share of
//! the paired reference's time: what the placement's own open costs over the reference's
//! whatever it reads, which a few faults' extra time cannot be told from otherwise. A
//! development tool for the page model
//! (docs/results.md, "Faults cost more in the engine than in the probe"); it stops at the
//! first unreadable file.
//!
//! ```text
//! cargo run --release -p pmolap-bench --example costfit -- \
//!     bench/place-validate/out/sf1/profile-disk.json bench/place-validate/out/sf1/validate-cold-*.json
//! ```
use pmolap_bench::ssb::validate::{run_profile, ValidateReport};
use pmolap_place::pagecache::Policy;
use pmolap_place::{Profile, Workload};

/// One (placement, query): the model's counts and the measured extra wall ns.
struct Row {
    faults: f64,
    around: f64,
    ahead: f64,
    predicted_ns: f64,
    measured_ns: f64,
    /// The paired all-DRAM runs' median.
    reference_ns: f64,
}

/// Least squares `x` of `Σ w_i (a_i · x − b_i)²` over `N` unknowns (normal equations,
/// Gaussian elimination); `None` when they are singular.
fn fit<const N: usize>(rows: &[([f64; N], f64, f64)]) -> Option<[f64; N]> {
    let mut m = vec![vec![0.0f64; N + 1]; N];
    for (a, b, w) in rows {
        for i in 0..N {
            for j in 0..N {
                m[i][j] += w * a[i] * a[j];
            }
            m[i][N] += w * a[i] * b;
        }
    }
    for c in 0..N {
        let p = (c..N).max_by(|&x, &y| m[x][c].abs().total_cmp(&m[y][c].abs()))?;
        if m[p][c].abs() < 1e-12 {
            return None;
        }
        m.swap(c, p);
        let pivot = m[c].clone();
        for (r, row) in m.iter_mut().enumerate() {
            if r != c {
                let f = row[c] / pivot[c];
                for (x, p) in row.iter_mut().zip(&pivot).skip(c) {
                    *x -= f * p;
                }
            }
        }
    }
    let mut x = [0.0; N];
    for (i, v) in x.iter_mut().enumerate() {
        *v = m[i][N] / m[i][i];
    }
    Some(x)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: costfit PROFILE.json VALIDATE-COLD.json...");
        std::process::exit(2);
    }
    let profile = Profile::load(std::path::Path::new(&args[0])).expect("the profile");
    let mut rows = Vec::new();
    let mut charged: Vec<[f64; 3]> = Vec::new();
    for f in &args[1..] {
        let r: ValidateReport =
            serde_json::from_slice(&std::fs::read(f).expect("a validate document"))
                .expect("a place-validate document");
        if r.cgroup.is_some() {
            eprintln!("{f}: behind a cache, skipped (cold documents only)");
            continue;
        }
        let w: &Workload = &r.workload;
        let p = run_profile(&profile, r.calibration.as_ref());
        let pc = p.pages.as_ref().expect("a page-granular profile");
        let threads = r.config.io_threads.unwrap_or(r.config.threads as u32);
        let l = pc.fault_latency_ns.unwrap_or(0.0);
        let window = pc.readahead_pages.unwrap_or(32).max(1) as f64;
        charged.push([
            l,
            pc.fault_page_ns.unwrap_or(0.0) - l / window,
            pc.page_ns(1),
        ]);
        let ids: Vec<String> = w.structures.iter().map(|s| s.id()).collect();
        let scenarios = r.scenarios.iter().chain(
            r.baselines
                .iter()
                .filter(|b| b.cache_bytes.is_none())
                .map(|b| &b.result),
        );
        for s in scenarios {
            let on = |i: usize| s.slow_structures.contains(&ids[i]);
            for q in &s.queries {
                let Some(wq) = w
                    .queries
                    .iter()
                    .position(|x| x.id == q.id)
                    .and_then(|qi| w.query(qi))
                else {
                    continue;
                };
                let Some(m) = pmolap_place::pages::recorded_reads(&wq, &on, pc, None, Policy::Lru)
                else {
                    continue;
                };
                if q.measured <= 0.0 {
                    continue;
                }
                let reference_ms = q.median_ms / q.measured;
                rows.push(Row {
                    faults: m.faults,
                    around: m.around,
                    ahead: m.by_streams.iter().sum(),
                    predicted_ns: m.cost(pc, threads) / threads.max(1) as f64,
                    measured_ns: (q.median_ms - reference_ms) * 1e6,
                    reference_ns: reference_ms * 1e6,
                });
            }
        }
    }
    let n = charged.len().max(1) as f64;
    let mean = |k: usize| charged.iter().map(|c| c[k]).sum::<f64>() / n;
    println!(
        "{} (placement, query) rows from {} cold documents; wall ns each: fault, page around a fault, page read ahead",
        rows.len(),
        charged.len()
    );
    println!(
        "charged by the runs' calibrated profiles (mean): {:>9.0} {:>9.0} {:>9.0}",
        mean(0),
        mean(1),
        mean(2)
    );
    for (name, weight) in [("fitted, plain", None), ("fitted, relative", Some(0.2e6))] {
        let w = |r: &Row| weight.map_or(1.0, |e| 1.0 / (r.predicted_ns + e).powi(2));
        let three: Vec<([f64; 3], f64, f64)> = rows
            .iter()
            .map(|r| ([r.faults, r.around, r.ahead], r.measured_ns, w(r)))
            .collect();
        match fit(&three) {
            Some(x) => println!("{name:>47}: {:>9.0} {:>9.0} {:>9.0}", x[0], x[1], x[2]),
            None => println!("{name:>47}: singular (too few kinds of rows)"),
        }
        // With a fourth term: a share of the reference's time, what the placement's own
        // open costs over the reference's whatever it reads (the placements that read
        // nothing measure it).
        let four: Vec<([f64; 4], f64, f64)> = rows
            .iter()
            .map(|r| {
                (
                    [r.faults, r.around, r.ahead, r.reference_ns],
                    r.measured_ns,
                    w(r),
                )
            })
            .collect();
        match fit(&four) {
            Some(x) => println!(
                "{:>47}: {:>9.0} {:>9.0} {:>9.0}  + {:.1} % of the reference's time",
                format!("{name}, with the open's share"),
                x[0],
                x[1],
                x[2],
                100.0 * x[3]
            ),
            None => println!("{name:>47}: singular (too few kinds of rows)"),
        }
    }
    // The measured over the predicted extra time, by what dominates the prediction.
    let mut by: [(f64, f64, usize); 3] = [(0.0, 0.0, 0); 3];
    for r in &rows {
        if r.predicted_ns <= 0.0 {
            continue;
        }
        let parts = [r.faults * mean(0), r.around * mean(1), r.ahead * mean(2)];
        let k = (0..3)
            .max_by(|&a, &b| parts[a].total_cmp(&parts[b]))
            .unwrap_or(0);
        by[k].0 += r.measured_ns;
        by[k].1 += r.predicted_ns;
        by[k].2 += 1;
    }
    for (k, name) in ["faults", "pages around faults", "pages read ahead"]
        .iter()
        .enumerate()
    {
        let (m, p, c) = by[k];
        if c > 0 {
            println!(
                "rows priced mostly by {name:20}: {c:4}, measured / predicted extra time {:.2}",
                m / p
            );
        }
    }
}
