//! Guards issue 32's hostile cases for `pmolap hash`, end to end through the binary: a
//! check during a build (refused naming the writer, nothing lost), a garbage clean flag
//! and a damaged table (refused, the file left as it was), absurd `hash bench` sizes and
//! thread counts (one line before any allocation, "hash bench:"), and nothing left behind
//! by `--tier file:DIR` or a killed run (region and recovery files of dead runs swept).

mod common;

use common::{one_line_error, pmolap, succeeded as ok};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn scratch() -> tempfile::TempDir {
    if Path::new("/dev/shm").is_dir() {
        tempfile::tempdir_in("/dev/shm").unwrap()
    } else {
        tempfile::tempdir().unwrap()
    }
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A pid no process has now.
fn dead_pid() -> u32 {
    let mut c = Command::new("true").spawn().unwrap();
    let pid = c.id();
    c.wait().unwrap();
    pid
}

fn build(t: &Path, items: &str) {
    ok(&pmolap()
        .args(["hash", "build", "--items", items])
        .arg(t)
        .output()
        .unwrap());
}

/// The checked table's item count (the check must pass).
fn check_items(t: &Path) -> u64 {
    let out = ok(&pmolap().args(["hash", "check"]).arg(t).output().unwrap());
    let rep: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(rep["problems"].as_array().unwrap().len(), 0, "{out}");
    rep["items"].as_u64().unwrap()
}

#[test]
fn a_check_during_a_build_is_refused_naming_the_writer_and_nothing_is_lost() {
    let dir = scratch();
    let t = dir.path().join("t.dash");
    let items = 200_000u64;
    let mut b = pmolap()
        .args(["hash", "build", "--items", &items.to_string()])
        .arg(&t)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while !t.exists() {
        assert!(t0.elapsed() < Duration::from_secs(30), "no table appeared");
        std::thread::sleep(Duration::from_millis(2));
    }
    let (mut refused, mut passed) = (0, 0);
    while b.try_wait().unwrap().is_none() {
        let o = pmolap().args(["hash", "check"]).arg(&t).output().unwrap();
        if o.status.success() {
            // Only once the builder has closed the table.
            passed += 1;
        } else {
            let e = one_line_error(&o);
            assert!(
                e.contains("is being written by pid") && e.contains("hash build"),
                "{e}"
            );
            refused += 1;
        }
    }
    assert!(b.wait().unwrap().success());
    assert!(
        refused > 0,
        "no check overlapped the build ({passed} passed)"
    );
    assert!(passed <= 1, "{passed} checks passed during the build");
    assert_eq!(check_items(&t), items, "items lost or duplicated");
}

#[test]
fn a_refused_check_leaves_the_file_as_it_was() {
    let dir = scratch();
    let t = dir.path().join("t.dash");
    build(&t, "3000");
    // A garbage clean flag (word 8): neither passed nor cleared.
    let good = std::fs::read(&t).unwrap();
    let mut b = good.clone();
    b[64] = 0x5a;
    std::fs::write(&t, &b).unwrap();
    let e = one_line_error(&pmolap().args(["hash", "check"]).arg(&t).output().unwrap());
    assert!(e.contains("clean flag is 90"), "{e}");
    assert_eq!(std::fs::read(&t).unwrap(), b, "the refused file changed");
    // A damaged item: reported, and the file not recovered or unflagged by the check.
    let mut b = good.clone();
    let word = |i: usize| u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().unwrap());
    let seg_off = word(5) as usize;
    let alloc = (word(seg_off + 32) >> 32) & 0x3fff;
    assert_ne!(alloc, 0);
    b[(seg_off + 32) * 8 + 16 + alloc.trailing_zeros() as usize] ^= 0xff;
    std::fs::write(&t, &b).unwrap();
    let o = pmolap().args(["hash", "check"]).arg(&t).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("fingerprint mismatch"));
    assert_eq!(std::fs::read(&t).unwrap(), b, "the refused file changed");
    // A good table: checked, and left byte for byte.
    std::fs::write(&t, &good).unwrap();
    assert_eq!(check_items(&t), 3000);
    assert_eq!(std::fs::read(&t).unwrap(), good);
}

#[test]
fn absurd_bench_sizes_and_threads_are_one_line_before_any_allocation() {
    let dir = scratch();
    let rd = dir.path().to_str().unwrap();
    let cases: [(&[&str], &str); 5] = [
        (&["--keys", "100000000000000"], "of memory"),
        (&["--keys", "18446744073709551615"], "of memory"),
        (
            &["--keys", "1000", "--recovery-items", "10000000000"],
            "--recovery-items 10000000000",
        ),
        (
            &["--keys", "1000", "--threads", "100000"],
            "threads at once",
        ),
        (&["--keys", "1000", "--reps", "100000000000"], "--reps"),
    ];
    for (args, want) in cases {
        let t0 = Instant::now();
        let o = pmolap()
            .args(["hash", "bench", "--quiet", "--recovery-dir", rd])
            .args(args)
            .output()
            .unwrap();
        let e = one_line_error(&o);
        assert!(
            e.contains("hash bench: ") && e.contains(want),
            "{args:?}: {e}"
        );
        assert!(!e.contains("elf bench"), "{e}");
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "{args:?}: not up front"
        );
    }
    // Far more threads than CPUs: the benchmarks' --oversubscribe rule.
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let many = (cpus * 4 + 1).to_string();
    let e = one_line_error(
        &pmolap()
            .args([
                "hash",
                "bench",
                "--quiet",
                "--keys",
                "100",
                "--threads",
                &many,
            ])
            .output()
            .unwrap(),
    );
    assert!(e.contains("--oversubscribe"), "{e}");
    assert_eq!(names(dir.path()), Vec::<String>::new());
}

#[test]
fn file_tiers_and_killed_runs_leave_nothing_behind() {
    let dir = scratch();
    let tier = dir.path().join("tier");
    let rec = dir.path().join("rec");
    std::fs::create_dir(&tier).unwrap();
    std::fs::create_dir(&rec).unwrap();
    // What killed runs of older builds left: swept; the user's files stay.
    let dead = dead_pid();
    let left: Vec<PathBuf> = vec![
        tier.join(format!("pmolap-{dead}-0.region")),
        rec.join(format!(".pmolap-hashbench-{dead}-1000.dash")),
    ];
    for p in &left {
        std::fs::write(p, b"left by kill -9").unwrap();
    }
    std::fs::write(tier.join("notes.txt"), b"mine").unwrap();
    let args = |keys: &str| {
        let mut c = pmolap();
        c.args([
            "hash",
            "bench",
            "--quiet",
            "--keys",
            "1000",
            "--threads",
            "1",
        ])
        .arg("--tier")
        .arg(format!("file:{}@{keys}", tier.display()))
        .arg("--recovery-items")
        .arg("20000")
        .arg("--recovery-dir")
        .arg(&rec)
        .arg("--out")
        .arg(dir.path().join("hashbench.json"));
        c
    };
    ok(&args("2000").output().unwrap());
    assert_eq!(names(&tier), ["notes.txt"]);
    assert_eq!(names(&rec), Vec::<String>::new());
    // kill -9 at several moments (in the table's inserts on the file tier): no named
    // file is left to sweep.
    for ms in [100, 300, 600] {
        let mut c = args("200000").stdout(Stdio::null()).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(ms));
        c.kill().unwrap();
        c.wait().unwrap();
        assert_eq!(names(&tier), ["notes.txt"], "after kill -9 at {ms} ms");
        let r = names(&rec);
        assert!(r.len() <= 1, "{r:?}");
        if let Some(n) = r.first() {
            // The recovery file of the killed run (if it was being written): named
            // after it, and gone at the next run.
            assert!(
                n.starts_with(&format!(".pmolap-hashbench-{}-", c.id())),
                "{n}"
            );
            ok(&args("1000").output().unwrap());
            assert_eq!(names(&rec), Vec::<String>::new());
        }
    }
}

#[test]
fn ctrl_c_stops_a_build_leaving_a_clean_table_of_what_was_inserted() {
    let dir = scratch();
    let t = dir.path().join("t.dash");
    let mut b = pmolap()
        .args(["hash", "build", "--items", "2000000"])
        .arg(&t)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(800));
    let st = Command::new("kill")
        .args(["-INT", &b.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = b.try_wait().unwrap() {
            break s;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "no exit after SIGINT"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(130));
    // Closed cleanly (the clean flag, word 8, is 1), and what it holds checks.
    let b = std::fs::read(&t).unwrap();
    assert_eq!(u64::from_le_bytes(b[64..72].try_into().unwrap()), 1);
    assert!(check_items(&t) > 0);
}
