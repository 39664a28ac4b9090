//! Guards issue 32's hostile cases for `pmolap pg tpch`: an empty `--queries` is refused
//! in one line, and kill -9 leaves no shared memory — the dynamic segments live in the
//! cluster's data directory (never /dev/shm; `initdb`'s own backends' too, so killing
//! them along with the command leaves nothing), and the server's System V segment is
//! removed by the watcher, or, when the watcher is killed too, by the next run.
//! The kill cases skip (one line) only where no PostgreSQL server binaries are installed.

mod common;

use common::pg::{have_server, leftovers, open_tempdir};
use common::pmolap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn an_empty_query_list_is_refused_in_one_line() {
    let tier = tempfile::tempdir().unwrap();
    for q in ["", " ", ","] {
        let t0 = Instant::now();
        let o = pmolap()
            .args(["pg", "tpch", "--sf", "0.01", "--quiet", "--queries", q])
            .arg("--tier")
            .arg(tier.path())
            .output()
            .unwrap();
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "--queries {q:?}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains("--queries") || e.contains("query"), "{e}");
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "not refused up front"
        );
    }
}

/// The data directory of the run's cluster in `work`, once its server has written
/// `postmaster.pid` with the shared-memory line and made a dynamic segment (not one of
/// `initdb`'s single-user backends: they write their pid negated).
fn running_cluster(work: &Path) -> PathBuf {
    let t0 = Instant::now();
    loop {
        let found = std::fs::read_dir(work).ok().and_then(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path().join("data"))
                .find(|d| postmaster(d) && segment(d).is_some() && dsm_files(d) > 0)
        });
        if let Some(d) = found {
            return d;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(90),
            "no server with shared memory started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether `data`'s `postmaster.pid` is the postmaster's (a positive pid).
fn postmaster(data: &Path) -> bool {
    std::fs::read_to_string(data.join("postmaster.pid"))
        .ok()
        .and_then(|t| t.lines().next()?.trim().parse::<i64>().ok())
        .is_some_and(|pid| pid > 0)
}

/// The System V segment (key, id) the server of `data` recorded (postmaster.pid line 7).
fn segment(data: &Path) -> Option<(String, String)> {
    let t = std::fs::read_to_string(data.join("postmaster.pid")).ok()?;
    let mut f = t.lines().nth(6)?.split_whitespace();
    Some((f.next()?.to_string(), f.next()?.to_string()))
}

/// Dynamic shared-memory segments in the data directory.
fn dsm_files(data: &Path) -> usize {
    std::fs::read_dir(data.join("pg_dynshmem")).map_or(0, |rd| rd.count())
}

fn segment_exists(seg: &(String, String)) -> bool {
    std::fs::read_to_string("/proc/sysvipc/shm")
        .unwrap()
        .lines()
        .any(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            f.len() > 1 && f[0] == seg.0 && f[1] == seg.1
        })
}

fn wait_until(what: &str, secs: u64, f: impl Fn() -> bool) {
    let t0 = Instant::now();
    while !f() {
        assert!(t0.elapsed() < Duration::from_secs(secs), "{what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn start(tier: &Path, work: &Path, queries: &str, reps: &str) -> Child {
    pmolap()
        .args(["pg", "tpch", "--sf", "0.01", "--quiet", "--no-baseline"])
        .args(["--queries", queries, "--reps", reps, "--tier"])
        .arg(tier)
        .arg("--work-dir")
        .arg(work)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// The watcher of run `pid` (`sh -c … pmolap-pg-watcher <dirs>`).
fn watcher_of(pid: u32) -> Option<u32> {
    let needle = format!("pmolap-pg-{pid}");
    std::fs::read_dir("/proc").unwrap().find_map(|e| {
        let p: u32 = e.ok()?.file_name().to_str()?.parse().ok()?;
        let cmd = std::fs::read(format!("/proc/{p}/cmdline")).ok()?;
        let cmd = String::from_utf8_lossy(&cmd);
        (cmd.contains("pmolap-pg-watcher") && cmd.contains(&needle)).then_some(p)
    })
}

/// A long run (tier and work directories, the command) once its server is up, and the
/// server's System V segment; `None` (after the skip line) without PostgreSQL.
type Running = (
    tempfile::TempDir,
    tempfile::TempDir,
    Child,
    (String, String),
);

fn running() -> Option<Running> {
    if !have_server() {
        return None;
    }
    let tier = open_tempdir("pg-hostile-test");
    let work = open_tempdir("pg-hostile-test");
    let c = start(tier.path(), work.path(), "all", "20");
    let seg = segment(&running_cluster(work.path())).unwrap();
    assert!(segment_exists(&seg));
    Some((tier, work, c, seg))
}

#[test]
fn kill_9_leaves_no_shared_memory() {
    let Some((tier, work, mut c, seg)) = running() else {
        return;
    };
    c.kill().unwrap();
    c.wait().unwrap();
    wait_until("the segment and directories stay after kill -9", 20, || {
        !segment_exists(&seg)
            && leftovers(work.path()).is_empty()
            && leftovers(tier.path()).is_empty()
    });
}

#[test]
fn the_next_run_removes_what_a_run_killed_with_its_watcher_left() {
    let Some((tier, work, mut c, seg)) = running() else {
        return;
    };
    let w = watcher_of(c.id()).expect("a watcher runs");
    assert!(Command::new("kill")
        .args(["-9", &w.to_string()])
        .status()
        .unwrap()
        .success());
    c.kill().unwrap();
    c.wait().unwrap();
    std::thread::sleep(Duration::from_secs(2));
    assert!(segment_exists(&seg), "nobody left to remove it yet");
    assert!(!leftovers(work.path()).is_empty());
    // The next run sweeps the dead cluster: its directories and its segment.
    let mut next = start(tier.path(), work.path(), "6", "1");
    let st = next.wait().unwrap();
    assert!(st.success());
    assert!(
        !segment_exists(&seg),
        "the dead cluster's segment is still there"
    );
    assert!(
        leftovers(work.path()).is_empty(),
        "{:?}",
        leftovers(work.path())
    );
    assert!(leftovers(tier.path()).is_empty());
}

/// Processes of the run whose working directory is under `work` and whose command line
/// mentions `arg` (`--boot`, `--single`: `initdb`'s backends).
fn backend_in(work: &Path, arg: &str) -> Option<u32> {
    std::fs::read_dir("/proc").unwrap().find_map(|e| {
        let p: u32 = e.ok()?.file_name().to_str()?.parse().ok()?;
        std::fs::read_link(format!("/proc/{p}/cwd"))
            .ok()?
            .starts_with(work)
            .then_some(())?;
        let cmd = std::fs::read(format!("/proc/{p}/cmdline")).ok()?;
        cmd.split(|b| *b == 0)
            .any(|a| a == arg.as_bytes())
            .then_some(p)
    })
}

/// The dynamic shared-memory segments process `pid` has mapped: files under /dev/shm
/// (`posix`) or in a `pg_dynshmem` directory (`mmap`).
fn mapped_dsm(pid: u32) -> Vec<PathBuf> {
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps")).unwrap_or_default();
    let mut v: Vec<PathBuf> = maps
        .lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .filter(|f| f.starts_with("/dev/shm/PostgreSQL.") || f.contains("/pg_dynshmem/"))
        .map(PathBuf::from)
        .collect();
    v.sort();
    v.dedup();
    v
}

/// System V segments created by process `pid` (`cpid` in /proc/sysvipc/shm).
fn segments_created_by(pid: u32) -> Vec<String> {
    std::fs::read_to_string("/proc/sysvipc/shm")
        .unwrap()
        .lines()
        .skip(1)
        .filter(|l| l.split_whitespace().nth(4) == Some(&pid.to_string()))
        .map(str::to_string)
        .collect()
}

#[test]
fn kill_9_during_initdb_leaves_no_shared_memory() {
    if !have_server() {
        return;
    }
    // Bootstrap and the single-user backend that runs initdb's SQL: killed (with the
    // command) while each holds its dynamic segments.
    for phase in ["--boot", "--single"] {
        let tier = open_tempdir("pg-hostile-test");
        let work = open_tempdir("pg-hostile-test");
        let mut c = start(tier.path(), work.path(), "6", "1");
        let t0 = Instant::now();
        let (backend, dsm) = loop {
            if let Some(p) = backend_in(work.path(), phase) {
                let dsm = mapped_dsm(p);
                if !dsm.is_empty() {
                    break (p, dsm);
                }
            }
            assert!(
                c.try_wait().unwrap().is_none(),
                "{phase}: the run ended before initdb's backend was seen"
            );
            assert!(
                t0.elapsed() < Duration::from_secs(60),
                "{phase}: no backend"
            );
            std::thread::sleep(Duration::from_millis(2));
        };
        // kill -9 of the whole tree: the backend gets no chance to remove anything.
        assert!(Command::new("kill")
            .args(["-9", &backend.to_string(), &c.id().to_string()])
            .status()
            .unwrap()
            .success());
        c.wait().unwrap();
        wait_until("the directories stay after kill -9", 20, || {
            leftovers(work.path()).is_empty() && leftovers(tier.path()).is_empty()
        });
        let left: Vec<&PathBuf> = dsm.iter().filter(|f| f.exists()).collect();
        assert!(
            left.is_empty(),
            "{phase}: the killed backend's dynamic segments stay: {left:?}"
        );
        wait_until(
            &format!(
                "{phase}: the killed backend's System V segment stays: {:?}",
                segments_created_by(backend)
            ),
            10,
            || segments_created_by(backend).is_empty(),
        );
    }
}
