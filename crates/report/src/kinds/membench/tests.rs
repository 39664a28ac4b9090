//! Membench figures from synthetic runs: every chart type, file names, axes, bad input.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use pmolap_results::membench::Run;

use crate::draw::axis::{tick_label, x_range};
use crate::draw::{slug, XAxis};
use crate::plot_file as run;

struct Spec {
    name: &'static str,
    op: &'static str,
    size: u64,
    threads: usize,
    write_threads: usize,
    pinning: &'static str,
    tier: &'static str,
}

/// A synthetic run: bandwidth rises with threads up to ~40 GiB/s and with access size.
fn synthetic(s: Spec) -> Value {
    let pin_factor = match s.pinning {
        "none" => 0.3,
        "numa" => 0.9,
        _ => 1.0,
    };
    let size_factor = ((s.size as f64).log2() - 5.0) / 15.0;
    let bw = (s.threads as f64 * 4.5).min(40.0) * size_factor.min(1.0) * pin_factor;
    let (read, write) = if s.op == "mixed" {
        (Some(bw * 0.7), Some(bw * 0.2))
    } else {
        (None, None)
    };
    let latency = (s.op == "latency").then(|| {
        let tier_factor = if s.tier.starts_with("file") { 2.5 } else { 1.0 };
        let base = (90.0 + 12.0 * s.threads as f64) * tier_factor;
        let cdf: Vec<(f64, f64)> = (0..=20).map(|i| (base * (1.0 + (i as f64 / 20.0).powi(4) * 3.0), i as f64 / 20.0)).collect();
        json!({"samples": 1000, "loads_per_sample": 64, "min_ns": base, "mean_ns": base * 1.2,
               "p50_ns": base * 1.2, "p90_ns": base * 2.0, "p99_ns": base * 3.5, "p999_ns": base * 3.9,
               "max_ns": base * 4.0, "cdf": cdf, "load_bandwidth_gib_s": null})
    });
    let groups = if s.op == "mixed" {
        json!([
            {"role": "read", "threads": s.threads, "bytes": 1u64 << 30, "seconds": 0.1, "bandwidth_gib_s": read, "per_thread": []},
            {"role": "write", "threads": s.write_threads, "bytes": 1u64 << 28, "seconds": 0.1, "bandwidth_gib_s": write, "per_thread": []}
        ])
    } else {
        json!([{"role": if s.op == "write" { "write" } else { "read" }, "threads": s.threads, "bytes": 1u64 << 30,
                "seconds": 0.1, "bandwidth_gib_s": bw, "per_thread": []}])
    };
    json!({
        "name": s.name,
        "params": {
            "operation": s.op, "pattern": "sequential", "distribution": "uniform", "zipf_s": 0.99,
            "access_mode": "individual", "access_size": s.size, "threads": s.threads,
            "write_threads": s.write_threads, "pinning": s.pinning, "tier": s.tier,
            "memory_range": 1u64 << 30, "thread_node": 0, "persist": "none", "sfence": false,
            "duration_s": null, "bytes": 1u64 << 30, "reps": 3, "huge_pages": "thp",
            "prefault": true, "warmup": true, "kernel": "auto"
        },
        "kernel": "avx2",
        "region": {
            "spec": s.tier, "len": 1u64 << 30, "mapped_len": 1u64 << 30, "durability": "volatile",
            "path": null, "map_sync": false, "huge_pages_requested": "thp", "huge_page_bytes": null,
            "prefaulted": true, "residency": null, "warnings": []
        },
        "reps": [{"groups": groups, "bandwidth_gib_s": bw, "latency": latency}],
        "summary": {
            "bandwidth_gib_s_median": bw, "bandwidth_gib_s_min": bw, "bandwidth_gib_s_max": bw,
            "read_gib_s_median": read, "write_gib_s_median": write,
            "latency_p50_ns_median": null
        }
    })
}

fn spec(name: &'static str, op: &'static str, size: u64, threads: usize) -> Spec {
    Spec {
        name,
        op,
        size,
        threads,
        write_threads: 0,
        pinning: "cores",
        tier: "dram:node=0",
    }
}

fn sample_runs() -> Vec<Value> {
    let mut runs = Vec::new();
    for &t in &[1, 2, 4, 8, 16] {
        for k in [6, 8, 10, 12, 14, 16, 20] {
            runs.push(synthetic(spec("seq-read", "read", 1 << k, t)));
        }
    }
    for pin in ["none", "numa", "cores"] {
        for &t in &[1, 4, 8, 18, 36] {
            runs.push(synthetic(Spec {
                pinning: pin,
                ..spec("pinning", "read", 4096, t)
            }));
        }
    }
    for &t in &[2, 4] {
        for k in [12, 16] {
            runs.push(synthetic(Spec {
                write_threads: 2,
                ..spec("mix", "mixed", 1 << k, t)
            }));
        }
    }
    for &t in &[0, 8] {
        runs.push(synthetic(spec("idle-vs-loaded", "latency", 64, t)));
        runs.push(synthetic(Spec {
            tier: "file:/dev/shm/x",
            ..spec("idle-vs-loaded", "latency", 64, t)
        }));
    }
    runs
}

/// Machine metadata as `Machine::from_topology` writes it.
pub(crate) fn machine() -> Value {
    json!({"hostname": "test", "cpu_model": "Test CPU @ 2.0GHz", "cpu_features": ["avx2"],
           "logical_cpus": 4, "physical_cores": 2, "sockets": 1, "numa_nodes": [], "tiers": [],
           "os": "Test OS", "kernel_release": "6.0", "pmolap_version": "0.1.0"})
}

fn write_doc(dir: &Path, runs: Vec<Value>) -> PathBuf {
    let doc = json!({"kind": "membench", "pmolap_version": "0.1.0", "started_unix": 0,
                     "machine": machine(), "config_file": null, "runs": runs});
    let path = dir.join("results.json");
    fs::write(&path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    path
}

#[test]
fn the_synthetic_runs_parse_as_real_runs() {
    for r in sample_runs() {
        serde_json::from_value::<Run>(r).unwrap();
    }
}

#[test]
fn draws_every_supported_plot_as_png_and_svg() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_doc(dir.path(), sample_runs());
    // `PMOLAP_PLOT_TEST_OUT=DIR` keeps the figures for a look.
    let out = std::env::var_os("PMOLAP_PLOT_TEST_OUT")
        .map_or_else(|| dir.path().join("plots"), PathBuf::from);
    let files = run(&input, &out).unwrap();
    let names: BTreeSet<String> = files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for stem in [
        "seq-read-read-individual-sequential-dram-node-0-bw-vs-size",
        "seq-read-read-individual-sequential-dram-node-0-bw-vs-threads",
        "seq-read-read-individual-sequential-dram-node-0-heatmap",
        "pinning-read-individual-sequential-dram-node-0-bw-vs-threads",
        "mix-mixed-individual-sequential-dram-node-0-read-bw-vs-size",
        "mix-mixed-individual-sequential-dram-node-0-write-bw-vs-threads",
        "mix-mixed-individual-sequential-dram-node-0-write-heatmap",
        "idle-vs-loaded-latency-cdf",
    ] {
        for ext in ["png", "svg"] {
            let name = format!("{stem}.{ext}");
            assert!(names.contains(&name), "{name} missing from {names:?}");
            assert!(
                fs::metadata(out.join(&name)).unwrap().len() > 1000,
                "{name} is (nearly) empty"
            );
        }
    }
    // One access size only: no bandwidth-vs-size chart, no heatmap.
    assert!(!names
        .iter()
        .any(|n| n.starts_with("pinning-") && (n.contains("size") || n.contains("heatmap"))));
    assert!(!names
        .iter()
        .any(|n| n.contains("latency") && n.contains("bw")));
    assert_eq!(files.len(), names.len());

    let png = fs::read(out.join("seq-read-read-individual-sequential-dram-node-0-bw-vs-size.png"))
        .unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let svg = fs::read_to_string(
        out.join("seq-read-read-individual-sequential-dram-node-0-bw-vs-size.svg"),
    )
    .unwrap();
    for text in [
        "access size (bytes, log2 scale)",
        "bandwidth (GiB/s)",
        "dram:node=0",
        "16 threads",
        "64B",
        "1M",
    ] {
        assert!(svg.contains(text), "SVG lacks {text:?}");
    }
    let svg = fs::read_to_string(
        out.join("pinning-read-individual-sequential-dram-node-0-bw-vs-threads.svg"),
    )
    .unwrap();
    for text in ["threads", "pinning none", "pinning cores", "access size 4K"] {
        assert!(svg.contains(text), "SVG lacks {text:?}");
    }
    let svg = fs::read_to_string(out.join("idle-vs-loaded-latency-cdf.svg")).unwrap();
    for text in [
        "latency per load (ns, log scale)",
        "cumulative fraction",
        // The legend names the tier short (the caption has its path).
        ">\nx, 8 load threads (p50",
    ] {
        assert!(svg.contains(text), "SVG lacks {text:?}");
    }
    let svg =
        fs::read_to_string(out.join("seq-read-read-individual-sequential-dram-node-0-heatmap.svg"))
            .unwrap();
    assert!(
        svg.contains("GiB/s") && svg.lines().any(|l| l.trim() == "threads") && svg.contains("40.0")
    );
}

#[test]
fn a_missing_or_garbled_file_is_one_line_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.json");
    let e = run(&missing, dir.path()).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("nope.json") && !msg.contains('\n'), "{msg}");

    let garbled = dir.path().join("garbled.json");
    fs::write(&garbled, "{\"runs\": [1, 2").unwrap();
    let e = run(&garbled, dir.path()).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("garbled.json") && !msg.contains('\n'), "{msg}");
}

#[test]
fn a_single_point_is_nothing_to_plot() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_doc(dir.path(), vec![synthetic(spec("one", "read", 4096, 4))]);
    let e = run(&input, &dir.path().join("plots")).unwrap_err();
    assert!(e.to_string().contains(": nothing to plot: 1 run(s)"), "{e}");
    assert!(!dir.path().join("plots").exists());
}

#[test]
fn slugs_and_ticks() {
    assert_eq!(
        slug("seq read: dram:node=0 / file:/mnt/pmem0"),
        "seq-read-dram-node-0-file-mnt-pmem0"
    );
    assert_eq!(slug("zipf s=0.99"), "zipf-s-0_99");
    assert_eq!(tick_label(XAxis::Log2Bytes, 6.0), "64B");
    assert_eq!(tick_label(XAxis::Log2Bytes, 26.0), "64M");
    assert_eq!(tick_label(XAxis::Log10Ns, 200f64.log10()), "200");
    assert_eq!(tick_label(XAxis::Log10Ns, 1500f64.log10()), "1.5k");
    assert_eq!(tick_label(XAxis::Log10Ns, 200000f64.log10()), "200k");
    let (_, _, ticks) = x_range(XAxis::Log2Bytes, &[6.0, 26.0]);
    assert_eq!(ticks.first(), Some(&6.0));
    assert!(ticks.len() <= 15);
}
