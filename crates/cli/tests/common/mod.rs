//! Helpers shared by the CLI's integration tests: the binary, what a run must print on
//! success or failure (one line, exit 1, no panic), the repository's and the SSB
//! reference's directories, directory listings, signals, and a small SSB database.
#![allow(dead_code)] // each test file uses some of them

pub mod pg;
pub mod place;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};

/// The `pmolap` binary under test (no backtraces: an error is one line).
pub fn pmolap() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pmolap"));
    c.env("RUST_BACKTRACE", "0");
    c
}

/// Runs `cmd`, which must succeed; returns its stdout (the failure shows both streams).
pub fn ok(cmd: &mut Command) -> String {
    succeeded(&cmd.output().unwrap())
}

/// The stdout of a run that must have succeeded (the failure shows both streams).
pub fn succeeded(o: &Output) -> String {
    assert!(
        o.status.success(),
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A refusal of the command itself: exit code 1 and exactly one short `error: ` line on
/// stderr (`note:` lines aside), no panic, no debug-printed struct; returns that line.
pub fn one_line_error(o: &Output) -> String {
    let e = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(
        o.status.code(),
        Some(1),
        "exit code; stdout: {}; stderr: {e}",
        String::from_utf8_lossy(&o.stdout)
    );
    let lines: Vec<&str> = e.lines().filter(|l| !l.starts_with("note:")).collect();
    assert_eq!(lines.len(), 1, "one line expected: {e}");
    assert!(lines[0].starts_with("error: "), "{e}");
    assert!(
        !e.contains("panicked") && !e.contains("RUST_BACKTRACE") && !e.contains("Os {"),
        "no panic, no debug struct: {e}"
    );
    assert!(lines[0].len() < 600, "short: {} chars", lines[0].len());
    lines[0].to_string()
}

/// Runs `cmd`, which must be refused with [`one_line_error`]; returns the line.
pub fn refused(cmd: &mut Command) -> String {
    one_line_error(&cmd.output().unwrap())
}

/// A failure of any kind, the argument parser's (exit 2, usage lines) included: a
/// non-zero exit and no panic; returns stderr.
pub fn fails(o: &Output) -> String {
    assert!(!o.status.success(), "expected failure");
    let e = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!e.contains("panicked"), "{e}");
    e
}

/// The repository's root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The SSB reference (DuckDB's answers, dbgen's tables): `$SSB_REFERENCE_DIR`, or
/// `shared/ssb-reference` beside the repository.
pub fn reference_dir() -> PathBuf {
    std::env::var_os("SSB_REFERENCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("../shared/ssb-reference"))
}

/// `name` under the SSB reference, or `None` (with a "skipping" line) where the reference
/// is absent; under CI (`$CI` set) its absence fails the test instead.
pub fn reference_or_skip(name: &str) -> Option<PathBuf> {
    let p = reference_dir().join(name);
    if p.exists() {
        return Some(p);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{} not found",
        p.display()
    );
    eprintln!("skipping: {} not found", p.display());
    None
}

/// A JSON file's value.
pub fn read_json(p: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// The names in `dir`, sorted.
pub fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Sends `sig` (`-INT`, `-KILL`, ...) to `child`.
pub fn signal(child: &Child, sig: &str) {
    let st = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success(), "kill {sig}");
}

/// `pmolap ssb load --sf SF --out OUT`, which must succeed.
pub fn ssb_load(sf: &str, out: &Path) {
    ok(pmolap()
        .args(["ssb", "load", "--quiet", "--sf", sf, "--out"])
        .arg(out));
}
