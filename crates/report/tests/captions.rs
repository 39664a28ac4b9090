//! Guards issue 34 item 4 for membench and iobench: each figure's caption says what was
//! run — the thread counts as numbers, the repetitions, the memory range (per tier when
//! the tiers ran different ones) or the file size per thread — from the fixtures.

use std::path::{Path, PathBuf};

use serde_json::Value;

fn fixture(name: &str) -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn write(dir: &Path, name: &str, v: &Value) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_string(v).unwrap()).unwrap();
    p
}

/// The text of every figure caption of `html`.
fn captions(html: &str) -> Vec<String> {
    html.split("<figcaption>")
        .skip(1)
        .map(|c| c[..c.find("</figcaption>").unwrap()].to_string())
        .collect()
}

/// The one caption that contains every one of `parts`.
#[track_caller]
fn caption_with<'a>(all: &'a [String], parts: &[&str]) -> &'a str {
    let found: Vec<&String> = all
        .iter()
        .filter(|c| parts.iter().all(|p| c.contains(p)))
        .collect();
    assert!(
        !found.is_empty(),
        "no caption with {parts:?} among {all:#?}"
    );
    found[0]
}

#[test]
fn membench_and_iobench_captions_say_what_was_run() {
    let d = tempfile::tempdir().unwrap();
    let mut mem = fixture("membench-quick.json");
    // The idle latency run again on a disk-backed tier, over a smaller range.
    let runs = mem["runs"].as_array_mut().unwrap();
    let mut disk = runs
        .iter()
        .find(|r| r["params"]["operation"] == "latency" && r["params"]["threads"] == 0)
        .unwrap()
        .clone();
    disk["params"]["tier"] = "file:/var/tmp/pm/disk".into();
    disk["params"]["memory_range"] = (64u64 << 20).into();
    runs.push(disk);
    let inputs = [
        write(d.path(), "mem.json", &mem),
        write(d.path(), "io.json", &fixture("iobench-shm.json")),
    ];
    let (html, read) = pmolap_report::render_report(&inputs).unwrap();
    assert!(read.skipped.is_empty(), "{:?}", read.skipped);
    let all = captions(&html);

    // Bandwidth by access size: the thread counts as numbers, the range, the reps.
    let c = caption_with(&all, &["benchmark `seq_read`", "by access size"]);
    assert!(
        c.contains("threads 1 and 2")
            && c.contains("range 512M")
            && c.contains("1 rep (noise unknown)"),
        "{c}"
    );
    // Latency: load threads, each tier's range (they differ), the reps.
    let c = caption_with(&all, &["Load latency CDF"]);
    assert!(
        c.contains("0 and 1 load threads")
            && c.contains("range per tier: disk 64M; dram 512M")
            && c.contains("median p50 of 1 rep"),
        "{c}"
    );
    // iobench: threads, file (or log) size per thread, reps.
    let c = caption_with(&all, &["table-scan workload", "by thread count"]);
    assert!(
        c.contains("threads 1 and 2")
            && c.contains("file 2M per thread")
            && c.contains("1 rep (noise unknown) per point"),
        "{c}"
    );
    let c = caption_with(&all, &["logging workload", "by thread count"]);
    assert!(c.contains("log 1M per thread"), "{c}");
}
