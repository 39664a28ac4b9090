//! Guards that the PostgreSQL server never outlives `pmolap pg tpch`: SIGKILL of the
//! command mid-run leaves no postgres process of its cluster and, within seconds, none
//! of its directories; Ctrl-C (SIGINT) stops and removes everything and exits 130.
//! Skips (one line) only where no PostgreSQL server binaries are installed.

mod common;

use common::pg::{have_server, leftovers, open_tempdir};
use common::{pmolap, signal};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// Pids of processes whose command line mentions `needle`.
fn processes_mentioning(needle: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().filter_map(|e| e.ok()) {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        if let Ok(cmd) = std::fs::read(format!("/proc/{pid}/cmdline")) {
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            if cmd.contains(needle) && !cmd.contains("pg-kill-test-runner") {
                out.push(pid);
            }
        }
    }
    out
}

/// Starts a run and waits until its server is up and loading has begun.
fn start_run(tier: &Path, work: &Path, json: &Path) -> std::process::Child {
    let child = pmolap()
        .args([
            "pg", "tpch", "--sf", "0.01", "--reps", "20", "--quiet", "--tier",
        ])
        .arg(tier)
        .arg("--work-dir")
        .arg(work)
        .arg("--json")
        .arg(json)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let needle = work.to_string_lossy().into_owned();
    let t0 = Instant::now();
    // The postmaster is started with `-D <work>/pmolap-pg-<pid>/data`.
    while processes_mentioning(&format!("{needle}/pmolap-pg-")).is_empty() {
        assert!(t0.elapsed() < Duration::from_secs(60), "no server started");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Into the run (generation, load or queries).
    std::thread::sleep(Duration::from_secs(3));
    child
}

fn assert_gone(tier: &Path, work: &Path) {
    let needle = format!("{}/pmolap-pg-", work.to_string_lossy());
    let t0 = Instant::now();
    loop {
        let procs = processes_mentioning(&needle);
        let left = [leftovers(tier), leftovers(work)].concat();
        if procs.is_empty() && left.is_empty() {
            return;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "20 s after the command ended: processes {procs:?}, directories {left:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn sigkill_of_the_command_leaves_no_server_and_no_files() {
    if !have_server() {
        return;
    }
    let tier = open_tempdir("pg-kill-test");
    let work = open_tempdir("pg-kill-test");
    let json = tier.path().join("r.json");
    let mut child = start_run(tier.path(), work.path(), &json);
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run ended too early"
    );
    assert!(
        !processes_mentioning(&format!("{}/pmolap-pg-", work.path().to_string_lossy())).is_empty()
    );
    child.kill().unwrap(); // SIGKILL: no handler, no destructor runs
    child.wait().unwrap();
    assert_gone(tier.path(), work.path());
}

#[test]
fn ctrl_c_stops_and_removes_the_cluster() {
    if !have_server() {
        return;
    }
    let tier = open_tempdir("pg-kill-test");
    let work = open_tempdir("pg-kill-test");
    let json = tier.path().join("r.json");
    let mut child = start_run(tier.path(), work.path(), &json);
    signal(&child, "-INT");
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "no exit after SIGINT"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(130));
    // Interrupted during the queries: what finished is written, marked partial
    // (interrupted earlier, during generation or loading, nothing is written).
    if let Ok(text) = std::fs::read_to_string(&json) {
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(doc["partial"], true);
    }
    // Removed by the command itself, not the watcher: nothing left at once.
    assert!(
        leftovers(tier.path()).is_empty(),
        "{:?}",
        leftovers(tier.path())
    );
    assert!(leftovers(work.path()).is_empty());
    assert_gone(tier.path(), work.path());
}
