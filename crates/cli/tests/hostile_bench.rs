//! Guards issue 11 ("Nothing lost, nothing destroyed") for membench, iobench and plot,
//! end to end through the `pmolap` binary: hostile-but-realistic input (an existing file
//! as a tier, absurd thread counts, huge or deep or exploding sweep files, unwritable
//! outputs, Ctrl-C, `ulimit -f`) ends in one-line errors or a partial result, never a
//! panic or a hang, and leaves the user's files intact and no temporary files behind.

mod common;

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use common::{entries, ok, one_line_error, pmolap, signal};

/// Runs `pmolap ARGS`, expecting exit status 1 and exactly one line on stderr, within
/// `secs` seconds; returns that line.
fn fails_in(secs: f64, args: &[&str]) -> String {
    let t = Instant::now();
    let out = pmolap().args(args).output().unwrap();
    let took = t.elapsed().as_secs_f64();
    assert!(
        String::from_utf8_lossy(&out.stderr).lines().count() == 1,
        "{args:?}: one line, notes included"
    );
    let err = one_line_error(&out);
    assert!(took < secs, "{args:?} took {took:.2} s: {err}");
    err
}

/// Runs `pmolap ARGS`, expecting success.
fn succeeds(args: &[&str]) {
    ok(pmolap().args(args));
}

fn fails(args: &[&str]) -> String {
    fails_in(5.0, args)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn random_bytes(n: usize) -> Vec<u8> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

const QUICK: [&str; 6] = ["--memory-range", "8M", "--duration", "0.01", "--reps", "1"];

#[test]
fn an_existing_file_tier_is_refused_unless_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("precious.bin");
    let bytes = random_bytes(8 << 20);
    std::fs::write(&file, &bytes).unwrap();
    let tier = format!("file:{}", file.display());
    let json = dir.path().join("r.json");
    for extra in [&[][..], &["--dry-run"][..]] {
        let mut args = vec!["membench", "--operation", "read", "--tier", &tier];
        args.extend(QUICK);
        args.extend(["--quiet", "--json", s(&json)]);
        args.extend(extra);
        let e = fails(&args);
        assert!(
            e.contains("precious.bin") && e.contains("already exists") && e.contains("--overwrite"),
            "{e}"
        );
    }
    // The same through a sweep file.
    let cfg = dir.path().join("sweep.yaml");
    std::fs::write(
        &cfg,
        format!("r:\n  args:\n    operation: read\n    tier: {tier}\n    memory_range: 8M\n"),
    )
    .unwrap();
    let e = fails(&["membench", "--config", s(&cfg), "--dry-run"]);
    assert!(e.contains("already exists"), "{e}");
    assert_eq!(std::fs::read(&file).unwrap(), bytes, "not a byte changed");
    assert_eq!(entries(dir.path()), ["precious.bin", "sweep.yaml"]);

    // `overwrite: true` in the file (or --overwrite) says the file may be destroyed.
    std::fs::write(
        &cfg,
        format!(
            "r:\n  args:\n    operation: read\n    tier: {tier}\n    memory_range: 8M\n    overwrite: true\n"
        ),
    )
    .unwrap();
    succeeds(
        &[
            &[
                "membench",
                "--config",
                s(&cfg),
                "--duration",
                "0.01",
                "--reps",
                "1",
            ][..],
            &["--quiet", "--json", s(&json)][..],
        ]
        .concat(),
    );
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(r["runs"][0]["params"]["overwrite"], true);
    assert_eq!(r["partial"], false);
    assert!(file.exists(), "a file the user named is not unlinked");

    // file:DIR makes its own temporary file there and leaves nothing behind.
    let tiers = tempfile::tempdir().unwrap();
    let tier = format!("file:{}", tiers.path().display());
    succeeds(
        &[
            &["membench", "--tier", &tier][..],
            &QUICK,
            &["--quiet", "--json", s(&json)],
        ]
        .concat(),
    );
    assert!(entries(tiers.path()).is_empty());
}

#[test]
fn absurd_thread_counts_are_refused_up_front() {
    let absurd = [
        "membench",
        "--threads",
        "16384",
        "--access-size",
        "64",
        "--memory-range",
        "64M",
    ];
    let e = fails(&absurd);
    assert!(e.contains("16384 threads"), "{e}");
    let e = fails(&[&absurd[..], &["--oversubscribe"]].concat());
    assert!(
        e.contains("16384 threads") && e.contains("even with"),
        "{e}"
    );
    // Far above the CPUs: refused without the flag, in a dry run too...
    let many = [
        "--threads",
        "2048",
        "--access-size",
        "64",
        "--memory-range",
        "8M",
    ];
    let e = fails(&[&["membench", "--dry-run"][..], &many].concat());
    assert!(
        e.contains("2048 threads") && e.contains("--oversubscribe"),
        "{e}"
    );
    // ...and accepted with it (a dry run: nothing is started).
    succeeds(&[&["membench", "--dry-run", "--oversubscribe"][..], &many[..]].concat());
    let dir = tempfile::tempdir().unwrap();
    let io = [
        "iobench",
        "--threads",
        "2048",
        "--path",
        s(dir.path()),
        "--file-size",
        "1M",
    ];
    for extra in [&["--dry-run"][..], &[]] {
        let e = fails(&[&io[..], extra].concat());
        assert!(
            e.contains("2048 threads") && e.contains("--oversubscribe"),
            "{e}"
        );
    }
    assert!(entries(dir.path()).is_empty(), "no file was prepared");
}

#[test]
fn hostile_sweep_files_fail_at_once_with_a_short_message() {
    for bench in ["membench", "iobench"] {
        let e = fails_in(2.0, &[bench, "--config", "/dev/zero", "--dry-run"]);
        assert!(
            e.contains("/dev/zero") && e.contains("larger than 1 MiB"),
            "{e}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let e = config_fails(
        dir.path(),
        "deep.yaml",
        &format!("a:\n  args: {}", "[".repeat(100_000)),
        "membench",
    );
    assert!(
        e.contains("deep.yaml:2") && e.contains("nested more than"),
        "{e}"
    );
    let seq = format!("a:\n  matrix:\n    threads:\n{}1\n", "- ".repeat(100_000));
    let e = config_fails(dir.path(), "seq.yaml", &seq, "iobench");
    assert!(e.contains("nested more than"), "{e}");

    // 10^9 combinations: counted, not built.
    let mut text = String::from("huge:\n  matrix:\n");
    for key in [
        "threads",
        "access_size",
        "reps",
        "zipf_s",
        "duration",
        "thread_node",
        "write_threads",
        "kernel",
        "sfence",
    ] {
        let v = match key {
            "sfence" => "true",
            "kernel" => "auto",
            _ => "1",
        };
        text.push_str(&format!("    {key}: [{}]\n", [v; 10].join(", ")));
    }
    let e = config_fails(dir.path(), "big.yaml", &text, "membench");
    assert!(
        e.contains("huge") && e.contains("1000000000 combinations"),
        "{e}"
    );

    // A huge value is quoted as an excerpt, not echoed.
    let long = format!("a:\n  args:\n    operation: {}\n", "x".repeat(200_000));
    let e = config_fails(dir.path(), "long.yaml", &long, "membench");
    assert!(e.len() < 400 && e.contains("long.yaml:3"), "{e}");
    assert!(!e.contains(&"x".repeat(100)), "{e}");
}

/// Writes `text` as `dir/name` and returns the one-line error of a `bench --dry-run`
/// with it as the sweep file, which must come within two seconds.
fn config_fails(dir: &Path, name: &str, text: &str, bench: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    fails_in(2.0, &[bench, "--config", s(&path), "--dry-run"])
}

/// A latency run whose load threads cannot split the range evenly used to pass
/// `--dry-run` and then fail mid-sweep with a kernel alignment message (or panic on a
/// division by zero when the range was smaller than the threads' blocks).
#[test]
fn dry_run_makes_every_check_of_a_real_run() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("latency.yaml");
    std::fs::write(
        &cfg,
        "ok:\n  args:\n    operation: latency\n    access_size: 64\n    memory_range: 8M\n    threads: 0\nloaded:\n  args:\n    operation: latency\n    access_size: 64\n    memory_range: 8M\n  matrix:\n    threads: [1, 3]\n",
    )
    .unwrap();
    for extra in [
        &["--dry-run"][..],
        &["--json", s(&dir.path().join("r.json"))][..],
    ] {
        let e = fails(&[&["membench", "--config", s(&cfg), "--quiet"][..], extra].concat());
        assert!(
            e.contains("loaded:") && e.contains("threads × 4096 (3 × 4096"),
            "{e}"
        );
    }
    let e = fails(&[
        "membench",
        "--operation",
        "latency",
        "--access-size",
        "64",
        "--memory-range",
        "4K",
        "--threads",
        "2",
        "--dry-run",
    ]);
    assert!(e.contains("not a multiple of threads × 4096"), "{e}");
    assert_eq!(entries(dir.path()), ["latency.yaml"], "nothing ran");
}

#[test]
fn output_paths_are_checked_before_any_work_and_published_whole() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.json");
    std::fs::write(&old, "{\"old\": true}").unwrap();
    // plot -o a directory nobody can create files in: one line naming it.
    let e = fails(&["plot", s(&old), "-o", "/proc/sys"]);
    assert!(e.contains("/proc/sys"), "{e}");
    let e = fails(&["plot", s(&old), "-o", &format!("{}/sub", old.display())]);
    assert!(e.contains("old.json is not a directory"), "{e}");
    // A bad --csv is found before the (long) run, and the old results stay as they were.
    let t = Instant::now();
    let e = fails(&[
        "membench",
        "--duration",
        "30",
        "--memory-range",
        "8M",
        "--json",
        s(&old),
        "--csv",
        s(dir.path()),
    ]);
    assert!(e.contains("--csv") && e.contains("is a directory"), "{e}");
    assert!(t.elapsed() < Duration::from_secs(5));
    let e = fails(&["membench", "--json", &format!("{}/x/r.json", old.display())]);
    assert!(e.contains("--json") && e.contains("not a directory"), "{e}");
    let dir_s = dir.path().to_str().unwrap();
    let e = fails(&[
        "iobench",
        "--path",
        dir_s,
        "--file-size",
        "1M",
        "--json",
        dir_s,
    ]);
    assert!(e.contains("is a directory"), "{e}");
    assert_eq!(std::fs::read_to_string(&old).unwrap(), "{\"old\": true}");
    assert_eq!(entries(dir.path()), ["old.json"]);
    // A good run replaces it whole, with no staging file left beside it.
    let csv = dir.path().join("new/r.csv");
    succeeds(
        &[
            &["membench"][..],
            &QUICK[..],
            &["--quiet", "--json", s(&old), "--csv", s(&csv)][..],
        ]
        .concat(),
    );
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&old).unwrap()).unwrap();
    assert_eq!(r["kind"], "membench");
    assert_eq!(entries(dir.path()), ["new", "old.json"]);
    assert_eq!(entries(&dir.path().join("new")), ["r.csv"]);
}

/// Spawns `pmolap ARGS` (not quiet), waits until it printed a finished run (a line
/// starting with `first`), sends SIGINT, and returns the exit status and stdout.
fn interrupt_after_first_run(args: &[&str], first: &str) -> (Option<i32>, String) {
    let mut child = pmolap()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut seen = String::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let mut line = String::new();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "ended early: {seen}"
        );
        seen.push_str(&line);
        if line.starts_with(first) {
            break;
        }
        assert!(Instant::now() < deadline, "no run finished: {seen}");
    }
    signal(&child, "-INT");
    let t = Instant::now();
    stdout.read_to_string(&mut seen).unwrap();
    let status = child.wait().unwrap();
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "stopped at the next safe point"
    );
    (status.code(), seen)
}

fn partial_results(json: &Path, total: usize) -> Value {
    let r: Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    assert_eq!(r["partial"], true);
    let runs = r["runs"].as_array().unwrap().len();
    assert!(runs >= 1 && runs < total, "{runs} of {total} runs");
    r
}

#[test]
fn ctrl_c_keeps_the_finished_membench_runs_marked_partial() {
    let dir = tempfile::tempdir().unwrap();
    let tiers = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("sweep.yaml");
    std::fs::write(
        &cfg,
        format!(
            "long:\n  args:\n    operation: read\n    tier: file:{}\n    memory_range: 8M\n    duration: 0.1\n    reps: 1\n  matrix:\n    access_size: [64, 128, 256, 512, 1K, 2K, 4K, 8K, 16K, 32K, 64K, 128K, 256K, 512K, 1M, 2M]\n",
            tiers.path().display()
        ),
    )
    .unwrap();
    let json = dir.path().join("r.json");
    let csv = dir.path().join("r.csv");
    let (code, out) = interrupt_after_first_run(
        &[
            "membench",
            "--config",
            s(&cfg),
            "--json",
            s(&json),
            "--csv",
            s(&csv),
        ],
        "long ",
    );
    assert_eq!(code, Some(130), "{out}");
    assert!(out.contains("partial"), "{out}");
    let r = partial_results(&json, 16);
    let runs = r["runs"].as_array().unwrap().len();
    let rows = std::fs::read_to_string(&csv).unwrap().lines().count();
    assert_eq!(rows, 1 + runs, "the CSV has the same runs");
    assert_eq!(entries(dir.path()), ["r.csv", "r.json", "sweep.yaml"]);
    assert!(entries(tiers.path()).is_empty(), "no region file left");

    // Interrupted before anything finished: the old results stay as they were.
    std::fs::write(&json, "old").unwrap();
    let (code, out) = interrupt_after_first_run(
        &[
            "membench",
            "--memory-range",
            "8M",
            "--duration",
            "30",
            "--json",
            s(&json),
        ],
        "benchmark ", // the table header, printed once the run is under way
    );
    assert_eq!(code, Some(130), "{out}");
    assert_eq!(std::fs::read_to_string(&json).unwrap(), "old");
    assert_eq!(entries(dir.path()), ["r.csv", "r.json", "sweep.yaml"]);
}

#[test]
fn ctrl_c_keeps_the_finished_iobench_runs_and_removes_its_files() {
    let dir = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("io.yaml");
    std::fs::write(
        &cfg,
        "long:\n  args:\n    workload: table-scan\n    io: pread\n    file_size: 1M\n    bytes: 64G\n    duration: 0.1\n    reps: 1\n    drop_cache: false\n  matrix:\n    threads: [1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2]\n",
    )
    .unwrap();
    let json = dir.path().join("io.json");
    let (code, out) = interrupt_after_first_run(
        &[
            "iobench",
            "--config",
            s(&cfg),
            "--path",
            s(data.path()),
            "--json",
            s(&json),
        ],
        "long ",
    );
    assert_eq!(code, Some(130), "{out}");
    partial_results(&json, 16);
    assert!(entries(data.path()).is_empty(), "data files removed");
    assert_eq!(entries(dir.path()), ["io.json", "io.yaml"]);
}

#[test]
fn a_file_size_limit_during_iobench_preparation_is_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let data: PathBuf = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let out = Command::new("sh")
        .args([
            "-c",
            "ulimit -f 1024; exec \"$0\" iobench --path \"$1\" --file-size 8M --reps 1 --quiet --json \"$2\"",
            env!("CARGO_BIN_EXE_pmolap"),
            s(&data),
            s(&json),
        ])
        .env("RUST_BACKTRACE", "0")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(".dat") && err.contains("File too large") && err.contains("ulimit -f"),
        "{err}"
    );
    assert!(
        entries(&data).is_empty(),
        "the half-written file is removed"
    );
    assert!(!json.exists());
}
