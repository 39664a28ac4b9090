//! Guards issue 32's hostile cases for `pmolap place` and `ssb run --placement`, end to
//! end through the binary: endless inputs (`/dev/zero`, a FIFO without a writer) as every
//! document, sizes near 2^64, impossible profile numbers, a placement whose capacities
//! cannot hold what it places, a workload past the solvers' bound and SIGTERM during a
//! long solve, output paths (no parent created, no user's file replaced) and the sweep of
//! memory cgroups left by a killed run — each a one-line error or a safe outcome.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod hostile_support;

use hostile_support::{one_line_error, run_within};

fn pmolap() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pmolap"))
}

/// `place advise` of workload `w` into `out`, budget 10 %.
fn advise(w: &Path, out: &Path) -> Command {
    let mut c = pmolap();
    c.args([
        "place",
        "advise",
        "--budget",
        "10%",
        "--llc",
        "1000000",
        "--profile",
        "optane-100",
    ])
    .arg("--workload")
    .arg(w)
    .arg("-o")
    .arg(out);
    c
}

fn refused(cmd: &mut Command) -> String {
    one_line_error(&run_within(cmd, Duration::from_secs(60)))
}

/// The store format this build writes, from a built-in profile.
fn store_format() -> u64 {
    // `place profiles` does not print it; the built-in profiles are for the current
    // store format, which `whatif` checks against the workload: probe 1..=16.
    let d = tempfile::tempdir().unwrap();
    for v in 1..=16u64 {
        let p = d.path().join("w.json");
        write(&p, &workload(v, &[(1000, 10)]));
        let o = pmolap()
            .args([
                "place",
                "whatif",
                "--llc",
                "1000000",
                "--profile",
                "optane-100",
                "--workload",
            ])
            .arg(&p)
            .output()
            .unwrap();
        if o.status.success() {
            return v;
        }
    }
    panic!("no store format version in 1..=16 is accepted");
}

/// A workload of data vectors with the given (bytes, scans).
fn workload(store_format: u64, structures: &[(u64, u64)]) -> Value {
    let s: Vec<Value> = structures
        .iter()
        .enumerate()
        .map(|(i, &(bytes, scan))| {
            json!({"table": "t", "column": format!("c{i}"), "kind": "data_vector",
                   "bytes": bytes, "type": "int", "bit_width": 17,
                   "counts": {"scan": scan, "lookup": i as u64 % 7, "near_dense": 0,
                              "medium_dense": 0, "far_dense": 0}})
        })
        .collect();
    json!({"format": "pmolap-workload", "version": 1, "store_format": store_format,
           "t_dram_ns": 1e10, "structures": s})
}

fn write(p: &Path, v: &Value) {
    std::fs::write(p, serde_json::to_string(v).unwrap()).unwrap();
}

fn mkfifo(p: &Path) {
    let st = Command::new("mkfifo").arg(p).status().unwrap();
    assert!(st.success());
}

/// Random-looking sizes and counts (a fixed LCG): units of many distinct sizes, whose
/// two-tier Pareto front is large.
fn diverse(n: usize) -> Vec<(u64, u64)> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        x >> 11
    };
    (0..n)
        .map(|_| (1000 + next() % 100_000_000, next() % 10_000_000))
        .collect()
}

#[test]
fn endless_inputs_end_with_one_line() {
    let d = tempfile::tempdir().unwrap();
    let sf = store_format();
    let w = d.path().join("w.json");
    write(&w, &workload(sf, &[(1 << 20, 1000), (1 << 22, 5)]));
    let fifo = d.path().join("fifo");
    mkfifo(&fifo);
    let out = d.path().join("p.json");
    for input in [Path::new("/dev/zero"), fifo.as_path()] {
        let e = refused(&mut advise(input, &out));
        assert!(
            e.contains("larger than") || e.contains("FIFO with no writer"),
            "{e}"
        );
        let e = refused(
            pmolap()
                .args([
                    "place",
                    "whatif",
                    "--llc",
                    "1000000",
                    "--profile",
                    "optane-100",
                    "--workload",
                ])
                .arg(input),
        );
        assert!(
            e.contains("larger than") || e.contains("FIFO with no writer"),
            "{e}"
        );
        let e = refused(
            pmolap()
                .args(["place", "whatif", "--llc", "1000000", "--workload"])
                .arg(&w)
                .arg("--profile")
                .arg(input),
        );
        assert!(
            e.contains("larger than") || e.contains("FIFO with no writer"),
            "{e}"
        );
        // Refused before any database is built.
        let e = refused(
            pmolap()
                .args(["ssb", "run", "--quiet", "--reps", "1", "--queries", "1.1"])
                .arg("--data")
                .arg(d.path().join("no-db"))
                .arg("--placement")
                .arg(input),
        );
        assert!(
            e.contains("larger than") || e.contains("FIFO with no writer"),
            "{e}"
        );
        assert!(!d.path().join("no-db").exists());
    }
    assert!(!out.exists());
}

#[test]
fn a_placement_whose_capacities_cannot_hold_its_structures_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("db");
    let o = run_within(
        pmolap()
            .args(["ssb", "load", "--quiet", "--sf", "0.01", "--out"])
            .arg(&db),
        Duration::from_secs(300),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let p = d.path().join("p.json");
    let placement = |dram_cap: Option<u64>, disk_cap: Option<u64>| {
        json!({"format": "pmolap-placement", "version": 1,
               "tiers": [{"name": "dram", "location": "dram", "capacity_bytes": dram_cap},
                         {"name": "disk", "location": "home", "capacity_bytes": disk_cap}],
               "structures": [{"table": "lineorder", "column": "lo_revenue",
                               "kind": "data_vector", "tier": "disk"}]})
    };
    let run = |p: &Path| -> Output {
        run_within(
            pmolap()
                .args(["ssb", "run", "--quiet", "--reps", "1", "--queries", "1.1"])
                .arg("--data")
                .arg(&db)
                .arg("--placement")
                .arg(p),
            Duration::from_secs(300),
        )
    };
    write(&p, &placement(None, Some(1)));
    let e = one_line_error(&run(&p));
    assert!(
        e.contains("tiers[1] (disk)") && e.contains("capacity_bytes 1"),
        "{e}"
    );
    write(&p, &placement(Some(1), None));
    let e = one_line_error(&run(&p));
    assert!(e.contains("tiers[0] (dram)"), "{e}");
    // Room enough: it runs.
    write(&p, &placement(Some(1 << 40), Some(1 << 40)));
    let o = run(&p);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn sizes_near_2_64_and_impossible_profile_numbers_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let sf = store_format();
    let w = d.path().join("w.json");
    write(&w, &workload(sf, &[(1 << 63, 10), (1 << 63, 10)]));
    let e = refused(&mut advise(&w, &d.path().join("p.json")));
    assert!(e.contains("more than 2^64 bytes"), "{e}");
    let mut v = workload(sf, &[(1000, u64::MAX)]);
    v["structures"][0]["counts"]["lookup"] = json!(1);
    write(&w, &v);
    let e = refused(
        pmolap()
            .args([
                "place",
                "whatif",
                "--llc",
                "1000000",
                "--profile",
                "optane-100",
                "--workload",
            ])
            .arg(&w),
    );
    assert!(e.contains("more than 2^64 accesses"), "{e}");

    write(&w, &workload(sf, &[(1 << 20, 1000)]));
    let prof = d.path().join("prof.json");
    let profile = |random: f64, extra: f64| {
        json!({"format": "pmolap-profile", "version": 1, "tier": "disk",
               "source": {"kind": "measured_here", "machine": "m"}, "store_format": sf,
               "costs": [{"structure": "data_vector", "variant": "uncompressed",
                          "access": "scan", "extra_ns": extra}],
               "pages": {"page_bytes": 4096, "random_page_ns": random,
                         "sequential_page_ns": 1.0}})
    };
    let whatif = |prof: &Path| -> Output {
        run_within(
            pmolap()
                .args(["place", "whatif", "--llc", "1000000", "--workload"])
                .arg(&w)
                .arg("--profile")
                .arg(prof),
            Duration::from_secs(60),
        )
    };
    write(&prof, &profile(-1e12, 1.0));
    let e = one_line_error(&whatif(&prof));
    assert!(
        e.contains("random_page_ns") && e.contains("-1000000000000"),
        "{e}"
    );
    write(&prof, &profile(1000.0, 1e15));
    let e = one_line_error(&whatif(&prof));
    assert!(e.contains("extra_ns"), "{e}");
    // The same profile with plausible numbers is used.
    write(&prof, &profile(1000.0, 1.0));
    let o = whatif(&prof);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn workloads_past_the_bound_are_refused_and_sigterm_stops_a_long_solve() {
    let d = tempfile::tempdir().unwrap();
    let sf = store_format();
    let w = d.path().join("w5000.json");
    write(&w, &workload(sf, &diverse(5000)));
    let t = Instant::now();
    let e = refused(&mut advise(&w, &d.path().join("p.json")));
    assert!(e.contains("5000 structures") && e.contains("4096"), "{e}");
    assert!(t.elapsed() < Duration::from_secs(20));

    // Under the count bound but with a front that takes a while: SIGTERM stops it at
    // the next safe point with the interrupted status, and no placement is written.
    let w = d.path().join("w4000.json");
    write(&w, &workload(sf, &diverse(4000)));
    let out = d.path().join("p4000.json");
    let mut child = advise(&w, &out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(400));
    let st = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let t = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if t.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("SIGTERM did not stop the solve within 10 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let o = child.wait_with_output().unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    // 130 when the signal came during the solve; 1 (the front bound) if it finished
    // first on a fast machine — never a hang.
    match o.status.code() {
        Some(130) => assert!(e.contains("interrupted"), "{e}"),
        Some(1) => assert!(e.contains("too big to solve"), "{e}"),
        c => panic!("exit {c:?}: {e}"),
    }
    assert!(!out.exists());
}

#[test]
fn output_paths_create_no_parent_and_never_replace_a_users_file() {
    let d = tempfile::tempdir().unwrap();
    let sf = store_format();
    let w = d.path().join("w.json");
    write(&w, &workload(sf, &[(1 << 20, 1000), (1 << 22, 5)]));
    let run_advise = |out: &Path, extra: &[&str]| -> Output {
        run_within(advise(&w, out).args(extra), Duration::from_secs(60))
    };
    let missing = d.path().join("missing");
    let e = one_line_error(&run_advise(&missing.join("p.json"), &[]));
    assert!(e.contains("does not exist"), "{e}");
    assert!(!missing.exists(), "a parent directory was created");

    let mine = d.path().join("notes.json");
    std::fs::write(&mine, "my own notes").unwrap();
    let e = one_line_error(&run_advise(&mine, &[]));
    assert!(
        e.contains("already exists") && e.contains("--overwrite"),
        "{e}"
    );
    assert_eq!(std::fs::read_to_string(&mine).unwrap(), "my own notes");
    let o = run_advise(&mine, &["--overwrite"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(std::fs::read_to_string(&mine)
        .unwrap()
        .contains("pmolap-placement"));
}

/// This process's memory cgroup directory, if one is mounted (v1 or v2).
fn own_memory_cgroup() -> Option<PathBuf> {
    let cg = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    for line in cg.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, ctrls, path) = (parts.next()?, parts.next()?, parts.next()?);
        if ctrls.split(',').any(|c| c == "memory") {
            let p = Path::new("/sys/fs/cgroup/memory").join(path.trim_start_matches('/'));
            if p.is_dir() {
                return Some(p);
            }
        }
    }
    let path = cg.lines().find_map(|l| l.strip_prefix("0::"))?;
    let p = Path::new("/sys/fs/cgroup").join(path.trim_start_matches('/'));
    p.join("memory.max").exists().then_some(p)
}

#[test]
fn a_cache_run_first_sweeps_the_cgroups_of_killed_runs() {
    let Some(parent) = own_memory_cgroup() else {
        eprintln!("skipped: no memory cgroup mounted here");
        return;
    };
    // A pid that is certainly dead: a child that has exited and been reaped.
    let mut c = Command::new("true").spawn().unwrap();
    let dead = c.id();
    c.wait().unwrap();
    let stale = parent.join(format!("pmolap-{dead}"));
    if let Err(e) = std::fs::create_dir(&stale) {
        eprintln!(
            "skipped: cannot make a memory cgroup in {}: {e}",
            parent.display()
        );
        return;
    }
    let d = tempfile::tempdir().unwrap();
    // The run fails (no such profile) after its sweep, before any database work.
    let o = run_within(
        pmolap()
            .args(["place", "validate", "--quiet", "--setting", "cache:64MiB"])
            .args(["--profile", "/nonexistent/profile.json", "-o"])
            .arg(d.path().join("v.json")),
        Duration::from_secs(60),
    );
    let e = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "{e}");
    let swept = !stale.exists();
    if !swept {
        let _ = std::fs::remove_dir(&stale);
    }
    assert!(
        swept,
        "the dead run's cgroup {} is still there",
        stale.display()
    );
    assert!(e.contains("--profile"), "{e}");
}

/// `place tables` on what is not a `place-validate` document (missing, not JSON, a
/// workload, an empty object) is a one-line error naming the file, never a panic.
#[test]
fn tables_refuse_what_is_not_a_validate_document() {
    let d = tempfile::tempdir().unwrap();
    let w = d.path().join("w.json");
    write(&w, &workload(store_format(), &[(1000, 10)]));
    let junk = d.path().join("junk.json");
    std::fs::write(&junk, "{not json").unwrap();
    let empty = d.path().join("empty.json");
    std::fs::write(&empty, "{}").unwrap();
    let missing = d.path().join("missing.json");
    for f in [&w, &junk, &empty, &missing] {
        let e = refused(pmolap().args(["place", "tables"]).arg(f));
        assert!(e.contains(&*f.display().to_string()), "{e}");
    }
}
