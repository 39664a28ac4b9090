//! The pages the engine really touches against the pages its workload recorded: the
//! SSB queries of `WORKLOAD.json` run once each, cold, on `DB_DIR` with every structure
//! mapped from its own file, with the files' device reading no more than the faulting
//! page (`read_ahead_kb` 0: a fault reads its page alone, so the page cache afterwards
//! holds exactly the pages touched); then per structure the pages in the page cache
//! (`fincore`) beside the pages the workload recorded (the union over its queries and
//! steps). Where they part, the page model's reference stream holds pages the engine
//! does not touch (recorded > touched) or misses pages it does (touched > recorded).
//! A development tool for the page model (docs/placement.md, "What the records hold").
//!
//! ```text
//! echo 0 > /sys/class/bdi/MAJ:MIN/read_ahead_kb     # the device of DB_DIR; restore it after
//! cargo run --release -p pmolap-bench --example touchcheck -- DB_DIR WORKLOAD.json
//! ```
//!
//! Refuses to run while the device reads ahead. Stops at the first error.
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use pmolap_bench::ssb::data::{open_cold, structure_files, Where};
use pmolap_bench::tierprofile::readahead_pages;
use pmolap_engine::{ssb_queries, Session};
use pmolap_place::Workload;
use pmolap_tier::Topology;

/// Bytes of each file in the page cache (`fincore`, util-linux).
fn resident(files: &[PathBuf]) -> HashMap<PathBuf, u64> {
    let out = std::process::Command::new("fincore")
        .args(["-b", "-n", "-r", "-o", "RES,FILE"])
        .args(files)
        .output()
        .expect("fincore (util-linux)");
    assert!(out.status.success(), "fincore failed");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let (res, file) = l.trim().split_once(char::is_whitespace)?;
            Some((PathBuf::from(file.trim()), res.parse::<u64>().ok()?))
        })
        .collect()
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() != 3 {
        eprintln!("usage: touchcheck DB_DIR WORKLOAD.json");
        std::process::exit(2);
    }
    let dir = PathBuf::from(&a[1]);
    let w = Workload::load(Path::new(&a[2])).expect("WORKLOAD.json: a workload");
    let rec = w
        .page_bytes
        .expect("a workload with page records (format 2)");
    let ra = readahead_pages(&dir, 4096);
    if ra > 1 {
        eprintln!(
            "the device of {} reads ahead {ra} pages: set its read_ahead_kb to 0 first (module docs)",
            dir.display()
        );
        std::process::exit(1);
    }
    let topo = Topology::detect().expect("the machine's topology");
    let p = Session::new(
        open_cold(&dir, Where::Tier("home")).expect("DB_DIR: an SSB database"),
        &topo,
        Default::default(),
    )
    .expect("a session");
    let queries: Vec<_> = ssb_queries()
        .into_iter()
        .filter(|q| w.queries.iter().any(|l| l.id == q.id))
        .collect();
    assert_eq!(
        queries.len(),
        w.queries.len(),
        "the workload's queries are SSB's"
    );
    for q in &queries {
        p.run(q).expect("a query run");
    }
    // The recorded pages, per structure: the union over queries and steps.
    let mut recorded: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); w.structures.len()];
    for q in &w.queries {
        for sp in &q.pages {
            for st in &sp.steps {
                recorded[sp.structure].extend(st.pages());
            }
        }
    }
    let all = structure_files(&dir, &w).expect("the workload's structures under DB_DIR");
    let of: Vec<(usize, PathBuf)> = all
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !recorded[*i].is_empty())
        .collect();
    let files: Vec<PathBuf> = of.iter().map(|(_, f)| f.clone()).collect();
    let res = resident(&files);
    let (mut rsum, mut tsum) = (0u64, 0u64);
    let mut rows = Vec::new();
    for (i, f) in &of {
        let r = recorded[*i].len() as u64 * rec;
        let t = res.get(f).copied().unwrap_or(0);
        rsum += r;
        tsum += t;
        rows.push((w.structures[*i].id(), r, t));
    }
    rows.sort_by_key(|(_, r, t)| std::cmp::Reverse(r.abs_diff(*t)));
    println!("structure  recorded KiB  in the page cache KiB  (largest differences first)");
    for (id, r, t) in rows.iter().take(25) {
        println!("{id}  {}  {}", r / 1024, t / 1024);
    }
    println!(
        "all {} structures: recorded {:.2} MiB, in the page cache {:.2} MiB ({:+.3} %)",
        rows.len(),
        rsum as f64 / 1048576.0,
        tsum as f64 / 1048576.0,
        (tsum as f64 / rsum as f64 - 1.0) * 100.0
    );
}
