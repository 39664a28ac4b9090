//! What a cold placement's faults cost inside the engine against the same reads alone:
//! per SSB query on one open of the database under a placement, `REPS` times, (a) the
//! query cold (this process's mappings released, every file's pages dropped:
//! `make_cold`, as `validate` runs it) and (b) cold again, then the files the cold run
//! left in the page cache (`fincore`) read whole with `read(2)` (timed: the reads
//! alone), then the query (its faults now minor). (a) − (b) is what the faults cost the
//! engine; the reads' time is what the same pages cost read alone. The order of (a) and
//! (b) alternates by repetition. A development tool for the page model (docs/results.md,
//! "Faults cost more in the engine than in the probe").
//!
//! ```text
//! cargo run --release -p pmolap-bench --example faultcost -- data/ssb/sf1 PLACEMENT.json 0 [REPS]
//! ```
mod common;

use std::path::PathBuf;
use std::time::Instant;

use pmolap_bench::ssb::data::{make_cold, Where};
use pmolap_engine::ssb_queries;
use pmolap_tier::Topology;

/// The files of `files` with pages in the page cache (`fincore`, util-linux).
fn resident(files: &[PathBuf]) -> Vec<PathBuf> {
    let out = std::process::Command::new("fincore")
        .args(["-b", "-n", "-o", "RES,FILE"])
        .args(files)
        .output()
        .expect("fincore (util-linux)");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let (res, file) = l.trim().split_once(char::is_whitespace)?;
            (res.parse::<u64>().ok()? > 0).then(|| PathBuf::from(file.trim()))
        })
        .collect()
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn main() {
    let (dir, pf, _limit, reps) = common::args("faultcost DIR PLACEMENT.json 0 [REPS]", 5);
    let topo = Topology::detect().unwrap();
    let p = common::session(&dir, Where::Placement(&pf), &topo);
    let files = p.database().files();
    let (mut cold_sum, mut warm_sum, mut read_sum, mut hot_sum, mut rel_sum) =
        (0.0, 0.0, 0.0, 0.0, 0.0);
    println!("query  cold ms  after-read ms  cold-after  reads ms  hot ms  released ms  files");
    for q in &ssb_queries() {
        p.run(q).unwrap();
        let (mut c, mut w, mut r, mut h, mut rl, mut nf) = (
            Vec::new(),
            Vec::new(),
            Vec::new(),
            Vec::new(),
            Vec::new(),
            0,
        );
        for rep in 0..reps {
            for step in 0..2 {
                let cold_first = rep % 2 == 0;
                make_cold(&p).unwrap();
                if (step == 0) == cold_first {
                    let t = Instant::now();
                    p.run(q).unwrap();
                    c.push(ms(t));
                    if nf == 0 {
                        nf = resident(&files).len();
                    }
                } else {
                    // The files a cold run leaves cached: found after a cold run of its own.
                    p.run(q).unwrap();
                    let hit = resident(&files);
                    make_cold(&p).unwrap();
                    let t = Instant::now();
                    for f in &hit {
                        std::hint::black_box(std::fs::read(f).unwrap().len());
                    }
                    r.push(ms(t));
                    let t = Instant::now();
                    p.run(q).unwrap();
                    w.push(ms(t));
                }
            }
            // Hot: again, nothing released or dropped since the run before.
            let t = Instant::now();
            p.run(q).unwrap();
            h.push(ms(t));
            // Released: this process's mappings released, the page cache kept (minor
            // faults only).
            p.database().release_pages();
            let t = Instant::now();
            p.run(q).unwrap();
            rl.push(ms(t));
        }
        let med = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let (c, w, r, h, l) = (
            med(&mut c),
            med(&mut w),
            med(&mut r),
            med(&mut h),
            med(&mut rl),
        );
        hot_sum += h;
        rel_sum += l;
        cold_sum += c;
        warm_sum += w;
        read_sum += r;
        println!(
            "{:5} {:8.2} {:14.2} {:11.2} {:9.2} {:7.2} {:12.2} {:6}",
            q.id,
            c,
            w,
            c - w,
            r,
            h,
            l,
            nf
        );
    }
    println!(
        "all   {cold_sum:8.2} {warm_sum:14.2} {:11.2} {read_sum:9.2} {hot_sum:7.2} {rel_sum:12.2}",
        cold_sum - warm_sum
    );
}
