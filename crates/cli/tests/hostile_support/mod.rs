//! Helpers the hostile_place and hostile_report suites share: running the binary under
//! a time limit, and the one-line error every refusal must be.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `cmd`, killing it (and failing) if it takes longer than `limit`.
pub fn run_within(cmd: &mut Command, limit: Duration) -> Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t.elapsed() > limit {
            let _ = child.kill();
            let o = child.wait_with_output().unwrap();
            panic!(
                "still running after {limit:?}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// A failure with exit code 1 and exactly one line on stderr; returns it.
pub fn one_line_error(o: &Output) -> String {
    let e = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "exit code; stderr: {e}");
    let lines: Vec<&str> = e.lines().collect();
    assert_eq!(lines.len(), 1, "one line expected: {e}");
    assert!(lines[0].starts_with("error: "), "{e}");
    assert!(!e.contains("panicked"), "{e}");
    assert!(lines[0].len() < 600, "short: {} chars", lines[0].len());
    lines[0].to_string()
}
