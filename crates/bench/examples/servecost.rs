//! What serving a placement's slow structures from the page cache costs: the SSB
//! queries on three sessions of one database in one process — all-DRAM, the placement
//! (its slow structures mapped from the files), and a second all-DRAM open as the
//! control — after a warm-up pass, `REPS` passes, the order of the three rotated every
//! pass (`FIXED=1`: always all-DRAM, placement, control), optionally inside a memory
//! cgroup of `LIMIT_BYTES` (0: none); `CHURN=N`: the database's files read through the
//! page cache and dropped N times between the first all-DRAM open and the others (as
//! `validate` opens its reference once, before the placements). Prints per pass and the median (min, max) of the
//! placement's and the control's pass time over the all-DRAM one. A development tool
//! for the page model (docs/results.md, "Served from the page cache").
//!
//! ```text
//! cargo run --release -p pmolap-bench --example servecost -- \
//!     data/ssb/sf10 PLACEMENT.json LIMIT_BYTES [REPS]
//! ```
mod common;

use pmolap_bench::ssb::data::Where;
use pmolap_engine::ssb_queries;
use pmolap_os::cgroup::MemoryLimit;
use pmolap_tier::Topology;

fn main() {
    let (dir, pf, limit, reps) = common::args(
        "servecost DIR PLACEMENT.json LIMIT_BYTES [REPS]  (env: CHURN=N, FIXED=1)",
        10,
    );
    let topo = Topology::detect().unwrap();
    let open = |w| common::session(&dir, w, &topo);
    let first = open(Where::Tier("dram"));
    if let Ok(n) = std::env::var("CHURN") {
        // Read every database file through the page cache and drop it, n times: the
        // memory the later opens get has been through the page cache (as in `validate`,
        // whose reference is opened before every placement run).
        let files = first.database().files();
        for _ in 0..n.parse::<usize>().unwrap() {
            for f in &files {
                std::hint::black_box(std::fs::read(f).unwrap().len());
            }
            pmolap_bench::ssb::data::drop_pages(&files).unwrap();
        }
    }
    let s = [
        first,
        open(Where::Placement(&pf)),
        open(Where::Tier("dram")),
    ];
    let _g = (limit > 0).then(|| MemoryLimit::enter(limit).unwrap());
    let qs = ssb_queries();
    for q in &qs {
        for x in &s {
            x.run(q).unwrap();
        }
    }
    let mut tot = vec![[0.0f64; 3]; reps];
    let orders = [
        [0, 1, 2],
        [1, 2, 0],
        [2, 0, 1],
        [0, 2, 1],
        [2, 1, 0],
        [1, 0, 2],
    ];
    for (rep, t) in tot.iter_mut().enumerate() {
        for q in &qs {
            let o = if std::env::var("FIXED").is_ok() {
                [0, 1, 2]
            } else {
                orders[rep % 6]
            };
            for &k in &o {
                t[k] += s[k].run(q).unwrap().total_ms;
            }
        }
        println!(
            "rep {rep}: dram {:7.1} placement/dram {:.3} dram2/dram {:.3}",
            t[0],
            t[1] / t[0],
            t[2] / t[0]
        );
    }
    let med = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        (v[v.len() / 2], v[0], v[v.len() - 1])
    };
    println!(
        "placement/dram {:.3?}",
        med(tot.iter().map(|t| t[1] / t[0]).collect())
    );
    println!(
        "dram2/dram     {:.3?}",
        med(tot.iter().map(|t| t[2] / t[0]).collect())
    );
    println!(
        "placement/dram2 {:.3?}",
        med(tot.iter().map(|t| t[1] / t[2]).collect())
    );
}
