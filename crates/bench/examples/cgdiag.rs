//! `place validate`'s cached procedure for one placement, replayed with what the memory
//! cgroup holds after every query: per query its time, the device's bytes and major
//! faults, and the group's `memory.stat` (v1: page cache, anonymous memory, the active
//! and inactive file lists, mapped file pages). A development tool for the page model's
//! cache: whether the kernel kept what the model keeps (docs/placement.md).
//!
//! ```text
//! cargo run --release -p pmolap-bench --example cgdiag -- \
//!     data/ssb/sf10 PLACEMENT.json LIMIT_BYTES [PASSES]
//! ```
//!
//! Pass 0 is the warm-up pass; every placement run follows a run of the same query on
//! an all-DRAM database, inside the group, as `validate` pairs them. Stops at the first
//! error.
mod common;

use pmolap_bench::ssb::data::Where;
use pmolap_bench::ssb::validate::counters::measured;
use pmolap_engine::ssb_queries;
use pmolap_os::cgroup::MemoryLimit;
use pmolap_tier::Topology;

fn stat(g: &MemoryLimit) -> String {
    let s = std::fs::read_to_string(g.group_dir().join("memory.stat")).unwrap_or_default();
    let get = |k: &str| {
        s.lines()
            .find_map(|l| l.strip_prefix(k).and_then(|r| r.strip_prefix(' ')))
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map_or(-1.0, |v| v as f64 / (1 << 20) as f64)
    };
    format!(
        "cache {:6.1} rss {:6.1} act {:6.1} inact {:6.1} mapped {:6.1}",
        get("cache"),
        get("rss"),
        get("active_file"),
        get("inactive_file"),
        get("mapped_file")
    )
}

fn main() {
    let (dir, pf, limit, passes) =
        common::args("cgdiag DIR PLACEMENT.json LIMIT_BYTES [PASSES]", 2);
    let topo = Topology::detect().unwrap();
    let reference = common::session(&dir, Where::Tier("dram"), &topo);
    let p = common::session(&dir, Where::Placement(&pf), &topo);
    let g = MemoryLimit::enter(limit).unwrap();
    let qs = ssb_queries();
    for pass in 0..passes {
        for q in &qs {
            reference.run(q).unwrap();
            let (r, io) = measured(|| p.run(q));
            let ms = r.unwrap().total_ms;
            let io = io.unwrap_or_default();
            println!(
                "pass {pass} {:>4} {:8.1} ms read {:7.1} MiB faults {:5.0} | {}",
                q.id,
                ms,
                io.read_bytes / (1 << 20) as f64,
                io.major_faults,
                stat(&g)
            );
        }
    }
}
