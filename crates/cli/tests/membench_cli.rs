//! Guards `pmolap membench` end to end: every operation runs and writes sane JSON/CSV,
//! the workload files parse (and the CI-sized ones run), and bad input exits non-zero
//! with a one-line error.

mod common;

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use common::{ok, pmolap, read_json, refused, repo};

fn run_ok(args: &[&str]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    ok(pmolap()
        .arg("membench")
        .args(args)
        .args(["--quiet", "--json"])
        .arg(&json));
    read_json(&json)
}

fn run_err(args: &[&str]) -> String {
    refused(pmolap().args(args))
}

const SMALL: [&str; 8] = [
    "--memory-range",
    "8M",
    "--duration",
    "0.03",
    "--reps",
    "2",
    "--pin",
    "cores",
];

#[test]
fn read_run_records_config_machine_and_figures() {
    let r = run_ok(
        &[
            &[
                "--operation",
                "read",
                "--threads",
                "2",
                "--access-size",
                "4K",
            ][..],
            &SMALL,
        ]
        .concat(),
    );
    assert_eq!(r["kind"], "membench");
    let m = &r["machine"];
    assert!(m["logical_cpus"].as_u64().unwrap() >= 1);
    assert!(!m["cpu_model"].as_str().unwrap().is_empty());
    assert!(!m["numa_nodes"].as_array().unwrap().is_empty());
    assert!(!m["kernel_release"].as_str().unwrap().is_empty());
    let run = &r["runs"][0];
    assert_eq!(run["params"]["threads"], 2);
    assert_eq!(run["params"]["access_size"], 4096);
    assert!(
        run["kernel"].as_str().unwrap().contains("read"),
        "{}",
        run["kernel"]
    );
    let reps = run["reps"].as_array().unwrap();
    assert_eq!(reps.len(), 2);
    for rep in reps {
        let g = &rep["groups"][0];
        assert_eq!(g["role"], "read");
        assert_eq!(g["per_thread"].as_array().unwrap().len(), 2);
        assert!(g["bytes"].as_u64().unwrap() > 0);
        assert!(g["bandwidth_gib_s"].as_f64().unwrap() > 0.0);
    }
    assert!(run["summary"]["bandwidth_gib_s_median"].as_f64().unwrap() > 0.0);
    assert!(
        run["region"]["residency"]["pages_checked"]
            .as_u64()
            .unwrap()
            > 0
    );
}

#[test]
fn write_modes_mixed_random_and_latency_run() {
    for persist in ["nt-store", "clflush", "none"] {
        let r = run_ok(
            &[
                &[
                    "--operation",
                    "write",
                    "--persist",
                    persist,
                    "--access-size",
                    "256",
                ][..],
                &SMALL,
            ]
            .concat(),
        );
        assert_eq!(r["runs"][0]["reps"][0]["groups"][0]["role"], "write");
        assert!(
            r["runs"][0]["summary"]["write_gib_s_median"]
                .as_f64()
                .unwrap()
                > 0.0
        );
    }
    let r = run_ok(
        &[
            &[
                "--operation",
                "write",
                "--no-sfence",
                "--access-mode",
                "grouped",
                "--threads",
                "2",
            ][..],
            &SMALL,
        ]
        .concat(),
    );
    assert_eq!(r["runs"][0]["params"]["sfence"], false);

    let r = run_ok(
        &[
            &[
                "--operation",
                "mixed",
                "--threads",
                "1",
                "--write-threads",
                "1",
            ][..],
            &SMALL,
        ]
        .concat(),
    );
    let groups = r["runs"][0]["reps"][0]["groups"].as_array().unwrap();
    assert_eq!(
        groups
            .iter()
            .map(|g| g["role"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["read", "write"]
    );
    assert!(
        r["runs"][0]["summary"]["read_gib_s_median"]
            .as_f64()
            .unwrap()
            > 0.0
    );

    let r = run_ok(
        &[
            &[
                "--pattern",
                "random",
                "--distribution",
                "zipf",
                "--access-size",
                "64",
                "--bytes",
                "1M",
            ][..],
            &SMALL[..2],
            &SMALL[4..],
        ]
        .concat(),
    );
    assert_eq!(r["runs"][0]["reps"][0]["groups"][0]["bytes"], 1 << 20);

    let r = run_ok(
        &[
            &[
                "--operation",
                "latency",
                "--threads",
                "1",
                "--access-size",
                "64",
            ][..],
            &SMALL,
        ]
        .concat(),
    );
    let lat = &r["runs"][0]["reps"][0]["latency"];
    let (p50, p99) = (
        lat["p50_ns"].as_f64().unwrap(),
        lat["p99_ns"].as_f64().unwrap(),
    );
    assert!(p50 > 0.0 && p99 >= p50, "{lat}");
    assert!(lat["load_bandwidth_gib_s"].as_f64().unwrap() > 0.0);
    assert!(lat["cdf"].as_array().unwrap().len() > 10);
}

#[test]
fn file_tier_and_csv_export() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("r.csv");
    let tier = format!("file:{}", dir.path().display());
    let r = run_ok(
        &[
            &["--tier", &tier, "--csv", csv.to_str().unwrap()][..],
            &SMALL,
        ]
        .concat(),
    );
    assert_eq!(r["runs"][0]["region"]["durability"], "page-cache");
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with("name,operation,pattern"));
    assert_eq!(lines.count(), 2, "one row per repetition and group");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        leftovers,
        ["r.csv"],
        "the region's temporary file is removed"
    );
}

#[test]
fn forced_kernels_are_recorded_and_missing_features_refused() {
    let r = run_ok(&[&["--kernel", "portable"][..], &SMALL].concat());
    assert!(r["runs"][0]["kernel"]
        .as_str()
        .unwrap()
        .starts_with("portable"));
    let err = refused(pmolap().env("PMOLAP_HIDE_CPU_FEATURES", "avx512f").args([
        "membench",
        "--kernel",
        "avx512",
        "--memory-range",
        "8M",
        "--duration",
        "0.01",
        "--reps",
        "1",
        "--quiet",
    ]));
    assert!(err.contains("avx512f"), "{err}");
}

#[test]
fn bad_input_gives_one_line_errors() {
    let e = run_err(&["membench", "--access-size", "96"]);
    assert!(e.contains("access_size 96"), "{e}");
    let e = run_err(&["membench", "--tier", "nvme"]);
    assert!(e.contains("unknown tier kind `nvme`"), "{e}");
    let e = run_err(&["membench", "--memory-range", "8M", "--threads", "3"]);
    assert!(e.contains("not a multiple"), "{e}");
    let e = run_err(&["membench", "--memory-range", "1000T"]);
    assert!(e.contains("larger than dram can hold"), "{e}");
    let e = run_err(&["membench", "--tier", "dram:node=9"]);
    assert!(e.contains("NUMA node 9"), "{e}");
    let e = run_err(&["membench", "--tier", "file:/no/such/dir/x"]);
    assert!(e.contains("/no/such/dir"), "{e}");
    let e = run_err(&["membench", "--operation", "scan"]);
    assert!(e.contains("--operation") && e.contains("scan"), "{e}");
    let e = run_err(&["membench", "--config", "/no/such.yaml"]);
    assert!(e.contains("/no/such.yaml"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("bad.yaml");
    std::fs::write(
        &cfg,
        "x:\n  args:\n    threads: 1\n    acess_mode: grouped\n",
    )
    .unwrap();
    let e = run_err(&["membench", "--config", cfg.to_str().unwrap()]);
    assert!(e.contains("bad.yaml:4") && e.contains("acess_mode"), "{e}");
    let e = run_err(&["plot", "/no/such.json"]);
    assert!(e.contains("/no/such.json"), "{e}");
}

/// A devdax device the user may not open: as root, a copy of the binary runs as
/// `nobody` against a root-only character device; otherwise a mode-000 node is used.
#[test]
fn devdax_without_permission_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let dev = dir.path().join("dax0.0");
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout == b"0\n")
        .unwrap_or(false);
    let out = if is_root {
        let ok = Command::new("mknod")
            .arg(&dev)
            .args(["c", "1", "3"])
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        let setpriv = Path::new("/usr/bin/setpriv").exists();
        if !ok || !setpriv {
            eprintln!("skipped: needs mknod and setpriv");
            return;
        }
        let bin = dir.path().join("pmolap");
        std::fs::copy(env!("CARGO_BIN_EXE_pmolap"), &bin).unwrap();
        Command::new("chmod")
            .args(["755"])
            .arg(dir.path())
            .status()
            .unwrap();
        Command::new("chmod")
            .args(["600"])
            .arg(&dev)
            .status()
            .unwrap();
        Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&bin)
            .args(["membench", "--memory-range", "8M", "--tier"])
            .arg(format!("devdax:{}", dev.display()))
            .output()
            .unwrap()
    } else {
        std::fs::write(&dev, b"").unwrap();
        Command::new("chmod")
            .args(["000"])
            .arg(&dev)
            .status()
            .unwrap();
        pmolap()
            .args(["membench", "--memory-range", "8M", "--tier"])
            .arg(format!("devdax:{}", dev.display()))
            .output()
            .unwrap()
    };
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("permission denied") && err.contains("dax0.0"),
        "{err}"
    );
}

#[test]
fn workloads_parse_and_ci_variants_run() {
    let mut full = 0;
    for entry in std::fs::read_dir(repo().join("workloads")).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "yaml") {
            let cfg = pmolap_bench_config(&p);
            assert!(cfg > 0, "{}", p.display());
            full += 1;
        }
    }
    assert!(
        full >= 12,
        "one workload per figure 3–13, latency and quick"
    );
    for entry in std::fs::read_dir(repo().join("workloads/ci")).unwrap() {
        let p = entry.unwrap().path();
        run_ok(&[
            "--config",
            p.to_str().unwrap(),
            "--duration",
            "0.01",
            "--reps",
            "1",
        ]);
    }
}

/// Parses a config with `--dry-run` semantics but without validation against this
/// machine (full-size files name nodes and sizes it may not have): counts the runs.
fn pmolap_bench_config(p: &Path) -> usize {
    let cfg = pmolap_bench::membench::Config::load(p).unwrap_or_else(|e| panic!("{e}"));
    cfg.expand(&pmolap_bench::membench::Args::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .len()
}
