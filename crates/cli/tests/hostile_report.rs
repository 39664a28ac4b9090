//! Guards issue 32's hostile cases for `pmolap report`, end to end through the binary:
//! endless inputs (`/dev/zero`, a FIFO without a writer) and oversized documents end with
//! one line, a huge string field is cut where it is rendered (the page stays small and
//! is made in seconds), and `-o` never replaces a page this run did not write.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

mod hostile_support;

use hostile_support::{one_line_error, run_within};

fn pmolap() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pmolap"))
}

fn fixture() -> serde_json::Value {
    let p =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../report/tests/fixtures/membench-quick.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn report(inputs: &[&Path], out: &Path, extra: &[&str]) -> Output {
    run_within(
        pmolap()
            .arg("report")
            .args(inputs)
            .arg("-o")
            .arg(out)
            .args(extra),
        Duration::from_secs(120),
    )
}

#[test]
fn endless_and_oversized_inputs_end_with_one_line() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("r");
    let e = one_line_error(&report(&[Path::new("/dev/zero")], &out, &[]));
    assert!(e.contains("larger than 64 MiB"), "{e}");
    let fifo = d.path().join("fifo.json");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let e = one_line_error(&report(&[&fifo], &out, &[]));
    assert!(e.contains("FIFO with no writer"), "{e}");
    // A document over the cap (a 100 MB CPU model string) is refused, not rendered.
    let mut doc = fixture();
    doc["machine"]["cpu_model"] = "X".repeat(100 << 20).into();
    let big = d.path().join("big.json");
    std::fs::write(&big, serde_json::to_string(&doc).unwrap()).unwrap();
    let t = Instant::now();
    let e = one_line_error(&report(&[&big], &out, &[]));
    assert!(e.contains("more than any result file"), "{e}");
    assert!(t.elapsed() < Duration::from_secs(30));
    assert!(!out.join("report.html").exists());
}

#[test]
fn a_huge_string_field_is_cut_where_it_is_rendered() {
    let d = tempfile::tempdir().unwrap();
    let mut doc = fixture();
    doc["machine"]["cpu_model"] = "X".repeat(1 << 20).into();
    doc["machine"]["hostname"] = "H".repeat(1 << 20).into();
    let f = d.path().join("m.json");
    std::fs::write(&f, serde_json::to_string(&doc).unwrap()).unwrap();
    let out = d.path().join("r");
    let t = Instant::now();
    let o = report(&[&f], &out, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(t.elapsed() < Duration::from_secs(60));
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    // 2 MB of fields in; the page holds each cut to at most 160 characters.
    assert!(page.len() < 1 << 20, "page of {} bytes", page.len());
    assert!(!page.contains(&"X".repeat(161)));
    assert!(!page.contains(&"H".repeat(161)));
    assert!(page.contains(&format!("{}…", "X".repeat(160))));
}

#[test]
fn an_existing_page_is_never_replaced_without_overwrite() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("m.json");
    std::fs::write(&f, serde_json::to_string(&fixture()).unwrap()).unwrap();
    let out = d.path().join("mine");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("report.html"), "my own page").unwrap();
    let e = one_line_error(&report(&[&f], &out, &[]));
    assert!(
        e.contains("already exists") && e.contains("--overwrite"),
        "{e}"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("report.html")).unwrap(),
        "my own page"
    );
    let o = report(&[&f], &out, &["--overwrite"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(std::fs::read_to_string(out.join("report.html"))
        .unwrap()
        .contains("pmolap report"));
    // An explicit new directory is made (with its parents: all inside the path given).
    let fresh = d.path().join("a/b");
    let o = report(&[&f], &fresh, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(fresh.join("report.html").is_file());
}
