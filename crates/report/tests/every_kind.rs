//! Guards issue 34 item 2: the report takes every document pmolap writes — each kind of
//! the fixtures renders its own section, the placement advisor's workload, profile and
//! placement (with or without the `kind` they are written with now), demo and partial
//! documents — an unknown or unreadable input among good ones is listed as skipped with
//! its one-line reason, only no readable input at all is an error, and "from N result
//! files" counts what was read.

use std::path::{Path, PathBuf};

use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn fixture(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(fixtures().join(name)).unwrap()).unwrap()
}

fn write(dir: &Path, name: &str, v: &Value) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_string(v).unwrap()).unwrap();
    p
}

fn render(inputs: &[PathBuf]) -> (String, pmolap_report::Inputs) {
    pmolap_report::render_report(inputs).unwrap()
}

/// The text of the section with id `id` (up to the next section).
fn section<'a>(html: &'a str, id: &str) -> &'a str {
    let start = html
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no section {id}"));
    let rest = &html[start..];
    &rest[..rest.find("</section>").unwrap_or(rest.len())]
}

#[test]
fn every_kind_of_the_fixtures_renders_its_section() {
    let (html, read) = render(&[fixtures()]);
    let files = std::fs::read_dir(fixtures()).unwrap().count();
    assert_eq!(read.docs.len(), files, "skipped: {:?}", read.skipped);
    assert!(read.skipped.is_empty(), "{:?}", read.skipped);
    assert!(
        html.contains(&format!("from {files} result files (")),
        "the count is not {files}"
    );
    for id in [
        "membench",
        "iobench",
        "ssb-tiers",
        "ssb-breakdown",
        "place-validate",
        "place-workload",
        "place-profile",
        "placement",
        "pg-tpch",
        "hashbench",
        "elfbench",
    ] {
        assert!(section(&html, id).contains("<article"), "{id}: no article");
    }
}

#[test]
fn placement_documents_render_with_and_without_their_kind() {
    let dir = tempfile::tempdir().unwrap();
    // The fixtures' workload and profile were written before `kind` (known by `format`);
    // the placement was written with it. Each the other way round too.
    let mut w = fixture("place-workload-sf1.json");
    assert!(w.get("kind").is_none());
    w.as_object_mut()
        .unwrap()
        .insert("kind".into(), "place-workload".into());
    let mut p = fixture("placement-advise.json");
    assert_eq!(p["kind"], "placement");
    p.as_object_mut().unwrap().remove("kind");
    let inputs = vec![
        write(dir.path(), "w.json", &w),
        fixtures().join("place-workload-sf1.json"),
        fixtures().join("place-profile-disk-old.json"),
        write(dir.path(), "p.json", &p),
        fixtures().join("placement-advise.json"),
    ];
    let (html, read) = render(&inputs);
    assert_eq!(read.docs.len(), 5, "{:?}", read.skipped);
    let kinds: Vec<&str> = read.docs.iter().map(|d| d.1.kind()).collect();
    assert_eq!(
        kinds,
        [
            "place-workload",
            "place-workload",
            "place-profile",
            "placement",
            "placement"
        ]
    );
    let workload = section(&html, "place-workload");
    // The figure of the most accessed structures and the table of every structure.
    assert!(workload.contains("<svg"), "no workload figure");
    assert!(workload.contains("accesses per KiB (heat)"));
    assert!(workload.contains("lineorder.lo_orderdate.dv"));
    let profile = section(&html, "place-profile");
    assert!(profile.contains("extra ns per access"));
    assert!(profile.contains("random_page_ns"));
    assert!(profile.contains("measured here"));
    let placement = section(&html, "placement");
    assert!(placement.contains("predicted time vs all in DRAM"));
    assert!(placement.contains("slow share of the accessed bytes"));
    assert!(placement.contains("<td>disk</td>"));
}

#[test]
fn a_bad_input_among_good_ones_is_skipped_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let unknown = write(d, "other.json", &serde_json::json!({"kind": "spreadsheet"}));
    let text = d.join("text.json");
    std::fs::write(&text, "hello").unwrap();
    let mut newer = fixture("ssb-tiers.json");
    newer["format_version"] = Value::from(99);
    let newer = write(d, "newer.json", &newer);
    let missing = d.join("missing.json");
    let empty = d.join("empty");
    std::fs::create_dir(&empty).unwrap();
    let inputs = vec![
        unknown,
        fixtures().join("ssb-tiers.json"),
        text,
        newer,
        missing,
        empty,
        fixtures().join("placement-advise.json"),
    ];
    let (html, read) = render(&inputs);
    assert_eq!(read.docs.len(), 2);
    assert_eq!(read.skipped.len(), 5, "{:?}", read.skipped);
    assert!(html.contains("from 2 result files, 5 skipped ("));
    let skipped = section(&html, "skipped");
    for (name, why) in [
        ("other.json", "unknown kind &quot;spreadsheet&quot;"),
        ("text.json", "not a pmolap result: not JSON"),
        ("newer.json", "format version 99 is newer"),
        ("missing.json", "No such file"),
        ("empty", "no result files (*.json) in this directory"),
    ] {
        let line = skipped
            .lines()
            .find(|l| l.contains(&format!("{name}</code>")))
            .unwrap_or_else(|| panic!("{name} is not listed"));
        assert!(line.contains(why), "{name}: {line}");
    }
}

#[test]
fn only_no_readable_input_at_all_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let a = write(d, "a.json", &serde_json::json!({"kind": "spreadsheet"}));
    let b = write(d, "b.json", &serde_json::json!({"runs": []}));
    let e = pmolap_report::render_report(&[a.clone(), b])
        .unwrap_err()
        .to_string();
    assert!(!e.contains('\n'), "{e}");
    assert!(
        e.contains("none of the inputs is a readable pmolap result (2 skipped"),
        "{e}"
    );
    // One bad input alone: its own error, as before.
    let e = pmolap_report::render_report(&[a]).unwrap_err().to_string();
    assert!(
        e.contains("a.json: not a pmolap result: unknown kind"),
        "{e}"
    );
}

#[test]
fn a_partial_demo_lists_its_interrupted_step() {
    let dir = tempfile::tempdir().unwrap();
    let machine = fixture("membench-quick.json")["machine"].clone();
    let demo = serde_json::json!({
        "kind": "demo", "format_version": 1, "pmolap_version": "0.1.0", "partial": true,
        "machine": machine, "sf": 0.01, "report": "report.html", "seconds": 3.0,
        "steps": [
            {"name": "topology", "status": "done", "detail": "2 tiers",
             "files": ["topology.json"], "seconds": 0.1},
            {"name": "membench", "status": "interrupted",
             "detail": "stopped by an interrupt: 3 runs on dram",
             "files": ["membench-quick.json"], "seconds": 1.0},
            {"name": "report", "status": "done", "detail": "report.html",
             "files": ["report.html"], "seconds": 0.2}
        ]
    });
    write(dir.path(), "demo.json", &demo);
    let mut m = fixture("membench-quick.json");
    m["partial"] = Value::Bool(true);
    write(dir.path(), "membench-quick.json", &m);
    let (html, read) = render(&[dir.path().to_path_buf()]);
    assert_eq!(read.docs.len(), 2);
    let steps = section(&html, "demo");
    assert!(steps.contains("<td>interrupted</td>"), "{steps}");
    assert!(steps.contains("partial (interrupted)"));
}

/// The ssb-tiers fixture with every query of tier `t` timed `times` (ms) and the DRAM
/// tier `base`.
fn ssb_with_times(base: &[f64], other: &[f64]) -> Value {
    let mut d = fixture("ssb-tiers.json");
    let tiers = d["tiers"].as_array_mut().unwrap();
    tiers.truncate(2);
    for (t, times) in [(0, base), (1, other)] {
        for q in tiers[t]["queries"].as_array_mut().unwrap() {
            let mut sorted = times.to_vec();
            sorted.sort_by(f64::total_cmp);
            q["times_ms"] = serde_json::json!(times);
            q["median_ms"] = serde_json::json!(sorted[sorted.len() / 2]);
        }
    }
    d
}

/// The SSB line of the findings of the report of `doc`.
fn ssb_finding(doc: &Path) -> String {
    let (html, _) = render(&[doc.to_path_buf()]);
    section(&html, "findings")
        .lines()
        .find(|l| l.contains("SSB on"))
        .unwrap()
        .to_string()
}

#[test]
fn the_findings_come_first_link_their_sections_and_never_state_noise() {
    let (html, _) = render(&[fixtures()]);
    let findings = section(&html, "findings");
    assert!(
        html.find("id=\"findings\"").unwrap() < html.find("id=\"machine-1\"").unwrap(),
        "the findings are not at the top"
    );
    for (text, link) in [
        ("SSB on /dev/shm (geomean over 4 queries", "#ssb-tiers"),
        (
            "of the accessed data on the slow tier within 10 % of DRAM",
            "#place-validate",
        ),
        ("(ratio of total times, SF 0.01)", "#pg-tpch"),
        ("mean of the per-query ratios", "#pg-tpch"),
        ("Dash in DRAM, positive lookups", "#hashbench"),
        ("Elf exact queries", "#elfbench"),
    ] {
        let line = findings
            .lines()
            .find(|l| l.contains(text))
            .unwrap_or_else(|| panic!("no finding {text:?} in {findings}"));
        assert!(line.contains(&format!("href=\"{link}\"")), "{line}");
    }
    // One repetition: stated with "noise unknown", not as a bare finding.
    assert!(findings.contains("(one repetition: noise unknown)"));

    let dir = tempfile::tempdir().unwrap();
    // Overlapping ranges: within noise, never "0.9x DRAM's time".
    let same = write(
        dir.path(),
        "same.json",
        &ssb_with_times(&[10.0, 11.0, 12.0], &[9.5, 10.5, 12.5]),
    );
    let line = ssb_finding(&same);
    assert!(
        line.contains("no difference outside noise from dram"),
        "{line}"
    );
    // Apart: a finding with its range.
    let apart = write(
        dir.path(),
        "apart.json",
        &ssb_with_times(&[10.0, 11.0, 12.0], &[30.0, 31.0, 33.0]),
    );
    let line = ssb_finding(&apart);
    assert!(
        line.contains(": 2.82× dram&#39;s time (range 2.50–3.30)"),
        "{line}"
    );
}
