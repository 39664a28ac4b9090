//! Guards issue 32's hostile cases for `pmolap demo`: a scale factor outside the SSB
//! generator's range and an output directory holding the user's own files (or under a
//! parent that does not exist) are refused in one line before any work, naming the
//! problem, with nothing created or changed; an interrupted demo (Ctrl-C) writes the
//! report of what finished, lists the interrupted step and says `pmolap report` works.

mod common;

use common::{pmolap, read_json, signal};
use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

/// Runs `pmolap demo ARGS`, which must fail at once with one line; returns it.
fn refused(args: &[&str], out: &Path) -> String {
    let t0 = Instant::now();
    let o: Output = pmolap()
        .args(["demo", "--quiet"])
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "{args:?}: {e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(!e.contains("panicked"), "{e}");
    assert!(
        t0.elapsed() < Duration::from_secs(5),
        "{args:?}: refused only after {:?}",
        t0.elapsed()
    );
    e
}

#[test]
fn scale_factors_outside_the_range_are_refused_before_any_work() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("demo");
    for sf in ["0", "-1", "5000", "1000", "NaN", "inf"] {
        let e = refused(&[&format!("--sf={sf}")], &out);
        assert!(e.contains("above 0 and below 1000"), "--sf {sf}: {e}");
        assert!(!out.exists(), "--sf {sf}: the output directory was made");
    }
}

#[test]
fn the_users_files_are_never_overwritten_and_no_parents_are_made() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("mine");
    std::fs::create_dir(&out).unwrap();
    let files = [
        ("topology.json", "my own topology"),
        ("report.html", "<p>my report</p>"),
        ("notes.txt", "my notes"),
    ];
    for (n, text) in files {
        std::fs::write(out.join(n), text).unwrap();
    }
    let e = refused(&["--sf", "0.01"], &out);
    assert!(
        e.contains("topology.json") && e.contains("--overwrite"),
        "{e}"
    );
    for (n, text) in files {
        assert_eq!(std::fs::read_to_string(out.join(n)).unwrap(), text, "{n}");
    }
    let mut names: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert_eq!(names, ["notes.txt", "report.html", "topology.json"]);
    // Only the report: still the user's.
    std::fs::remove_file(out.join("topology.json")).unwrap();
    let e = refused(&["--sf", "0.01"], &out);
    assert!(e.contains("report.html"), "{e}");
    // A parent that does not exist is not created.
    let deep = d.path().join("no-such-parent").join("demo");
    let e = refused(&["--sf", "0.01"], &deep);
    assert!(e.contains("does not exist"), "{e}");
    assert!(!d.path().join("no-such-parent").exists());
}

#[test]
fn ctrl_c_writes_the_report_of_what_finished_and_lists_the_stopped_step() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("demo");
    let child = pmolap()
        .current_dir(d.path())
        .args(["demo", "--quiet", "--sf", "0.01", "--out"])
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The topology step is done once demo.json first lists it; the next step runs then.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !out.join("demo.json").exists() {
        assert!(Instant::now() < deadline, "the first step never finished");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    signal(&child, "-INT");
    let o = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(130), "{stdout}");
    let demo = read_json(&out.join("demo.json"));
    assert_eq!(demo["partial"], true);
    assert_eq!(demo["report"], "report.html", "{demo}");
    let steps = demo["steps"].as_array().unwrap();
    assert_eq!(steps.last().unwrap()["name"], "report");
    assert_eq!(steps.last().unwrap()["status"], "done");
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(page.contains("<h2>Demo steps</h2>"));
    let stopped = steps.iter().find(|s| s["status"] == "interrupted");
    if let Some(s) = stopped {
        assert!(page.contains("<td>interrupted</td>"));
        assert!(
            stdout.contains(&format!("during step `{}`", s["name"].as_str().unwrap())),
            "{stdout}"
        );
    }
    assert!(
        stdout.contains(&format!("`pmolap report {}", out.display())),
        "{stdout}"
    );
}
