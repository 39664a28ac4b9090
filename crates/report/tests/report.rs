//! The HTML report and `plot` from the checked-in result files: every section and paper
//! figure present, names escaped, partial results labelled, the demo's skipped steps
//! shown, and bad input (not a result, a newer format, an empty directory) refused with
//! one line naming the file.

use std::path::{Path, PathBuf};

use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn fixture(name: &str) -> Value {
    let text = std::fs::read_to_string(fixtures().join(name)).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn write(dir: &Path, name: &str, v: &Value) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_string(v).unwrap()).unwrap();
    p
}

fn render(inputs: &[PathBuf]) -> String {
    pmolap_report::render_report(inputs).unwrap().0
}

fn error(inputs: &[PathBuf]) -> String {
    let e = pmolap_report::render_report(inputs)
        .unwrap_err()
        .to_string();
    assert!(!e.contains('\n'), "not one line: {e}");
    e
}

#[test]
fn every_section_and_paper_figure_of_the_fixtures_is_there() {
    let html = render(&[fixtures()]);
    for id in [
        "machine-1",
        "membench",
        "iobench",
        "ssb-tiers",
        "ssb-breakdown",
        "elfbench",
        "pg-tpch",
        "hashbench",
    ] {
        assert!(
            html.contains(&format!("id=\"{id}\"")),
            "section {id} missing"
        );
    }
    for text in [
        "<h2>Machine and tiers</h2>",
        "<h3>Tiers</h3>",
        "<th>CPU</th>",
        "<th>kernel</th>",
        "SIGMOD&#39;21 Fig. 3 ",
        "SIGMOD&#39;21 Fig. 7 ",
        "SIGMOD&#39;21 Fig. 8 ",
        "SIGMOD&#39;21 Fig. 12 ",
        "DaMoN&#39;21 Fig. 2 ",
        "DaMoN&#39;21 Fig. 3 ",
        "DaMoN&#39;21 Fig. 4 ",
        "DaMoN&#39;21 Fig. 5 ",
        "SIGMOD&#39;21 Fig. 14 ",
        "SIGMOD&#39;21 Table 1 ",
        "Elf paper&#39;s Fig. 3 ",
        "Elf paper&#39;s Fig. 4 ",
        "Elf paper&#39;s Fig. 5 ",
        "geomean slowdown",
        "Load latency CDF",
        "DaMoN&#39;21 Fig. 6 ",
        "parallel COPY",
        "Dash, VLDB&#39;20",
        "SIGMOD&#39;21 §6.2",
    ] {
        assert!(html.contains(text), "{text:?} missing");
    }
    let figures = html.matches("<figure class=\"plot\"").count();
    assert_eq!(figures, html.matches("<svg ").count());
    assert_eq!(figures, html.matches("<figcaption><b>Figure ").count());
    // Self-contained: nothing to fetch, no script.
    assert!(!html.contains("<script"));
    assert!(!html.contains("<img") && !html.contains("<link"));
    let without_ns = html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    assert!(!without_ns.contains("http://") && !without_ns.contains("https://"));
    assert!(!html.contains("partial (interrupted)"));
}

#[test]
fn names_are_escaped_in_html_and_svg() {
    let dir = tempfile::tempdir().unwrap();
    let mut doc = fixture("membench-quick.json");
    let evil = "<script>alert(\"x\")</script> & 'q'";
    for run in doc["runs"].as_array_mut().unwrap() {
        run["name"] = Value::from(evil);
    }
    doc["machine"]["hostname"] = Value::from("<b>host</b>");
    let p = write(dir.path(), "evil.json", &doc);
    let html = render(&[p]);
    assert!(!html.contains("<script>alert"), "unescaped name");
    assert!(!html.contains("<b>host</b>"), "unescaped host name");
    assert!(html.contains("&lt;b&gt;host&lt;/b&gt;"));
    // In captions (HTML) and in SVG titles (plotters' escaping).
    assert!(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp;"));
    let in_svg = html
        .split("<svg ")
        .skip(1)
        .any(|s| s.contains("&lt;script&gt;alert"));
    assert!(in_svg, "the name is not in any figure");
}

#[test]
fn partial_results_are_labelled() {
    let dir = tempfile::tempdir().unwrap();
    let mut doc = fixture("iobench-shm.json");
    doc["partial"] = Value::Bool(true);
    let p = write(dir.path(), "cut.json", &doc);
    let html = render(&[p, fixtures().join("elfbench-tiny.json")]);
    let article = html.split("<article").nth(1).unwrap();
    assert!(article.contains("cut.json <span class=\"partial\">partial (interrupted)</span>"));
    assert!(article.contains("</b> <span class=\"partial\">partial (interrupted)</span>"));
    let elf = html.split("<article").nth(2).unwrap();
    assert!(!elf.contains("partial (interrupted)"));
}

#[test]
fn the_demo_steps_show_what_was_skipped_and_why() {
    let dir = tempfile::tempdir().unwrap();
    let machine = fixture("membench-quick.json")["machine"].clone();
    let demo = serde_json::json!({
        "kind": "demo", "format_version": 1, "pmolap_version": "0.1.0", "partial": false,
        "machine": machine, "sf": 0.01, "report": null, "seconds": 12.0,
        "steps": [
            {"name": "membench", "status": "done", "detail": "22 runs on dram",
             "files": ["membench-quick.json"], "seconds": 9.0},
            {"name": "iobench", "status": "skipped",
             "detail": "no fsdax mount: the PMem (MAP_SYNC) path was not run",
             "files": [], "seconds": 0.0}
        ]
    });
    write(dir.path(), "demo.json", &demo);
    std::fs::copy(
        fixtures().join("membench-quick.json"),
        dir.path().join("membench-quick.json"),
    )
    .unwrap();
    std::fs::write(dir.path().join("notes.json"), "{\"mine\": 1}").unwrap();
    let html = render(&[dir.path().to_path_buf()]);
    let steps = html
        .split("<h2>Demo steps</h2>")
        .nth(1)
        .expect("demo section");
    assert!(steps.contains("<td>skipped</td>"));
    assert!(steps.contains("no fsdax mount: the PMem (MAP_SYNC) path was not run"));
    // A non-result JSON file of a directory is listed, not an error.
    let skipped = html
        .split("<h2>Skipped files</h2>")
        .nth(1)
        .expect("skipped list");
    assert!(skipped.contains("notes.json</code>: not a pmolap result: no &quot;kind&quot; field"));
}

#[test]
fn bad_input_is_one_line_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = d.join("text.json");
    std::fs::write(&text, "hello").unwrap();
    let e = error(&[text]);
    assert!(
        e.contains("text.json: not a pmolap result: not JSON"),
        "{e}"
    );

    let no_kind = write(d, "nokind.json", &serde_json::json!({"runs": []}));
    let e = error(&[no_kind]);
    assert!(
        e.contains("nokind.json: not a pmolap result: no \"kind\""),
        "{e}"
    );

    let array = write(d, "array.json", &serde_json::json!([1, 2]));
    assert!(error(&[array]).contains("array.json: not a pmolap result: not a JSON object"));

    let unknown = write(d, "other.json", &serde_json::json!({"kind": "spreadsheet"}));
    let e = error(&[unknown]);
    assert!(
        e.contains("other.json: not a pmolap result: unknown kind \"spreadsheet\""),
        "{e}"
    );

    let mut doc = fixture("ssb-tiers.json");
    doc["format_version"] = Value::from(99);
    let newer = write(d, "newer.json", &doc);
    let e = error(&[newer]);
    assert!(
        e.contains("newer.json: ssb-tiers format version 99 is newer than this build reads (1)"),
        "{e}"
    );

    let mut doc = fixture("membench-quick.json");
    doc["runs"] = Value::from("not runs");
    let broken = write(d, "broken.json", &doc);
    let e = error(&[broken]);
    assert!(
        e.contains("broken.json: not a pmolap result: a membench document that does not parse"),
        "{e}"
    );

    let empty = d.join("empty");
    std::fs::create_dir(&empty).unwrap();
    std::fs::write(empty.join("readme.txt"), "no json here").unwrap();
    let e = error(&[empty]);
    assert!(
        e.ends_with("empty: no result files (*.json) in this directory"),
        "{e}"
    );

    let only_others = d.join("others");
    std::fs::create_dir(&only_others).unwrap();
    std::fs::write(only_others.join("package.json"), "{\"name\": \"x\"}").unwrap();
    let e = error(&[only_others]);
    assert!(
        e.contains("others: not a pmolap result: none of the JSON files"),
        "{e}"
    );

    let e = error(&[d.join("missing.json")]);
    assert!(e.contains("missing.json"), "{e}");
    assert_eq!(error(&[]), "no result files given");
}

#[test]
fn plot_draws_every_kind_as_png_and_svg() {
    let dir = tempfile::tempdir().unwrap();
    for (file, stem) in [
        (
            "iobench-shm.json",
            "iobench-table-scan-table-scan-4k-w0-bw-vs-threads",
        ),
        ("elfbench-tiny.json", "elfbench-exact-qps-per-variant"),
        ("ssb-tiers.json", "ssb-tiers-slowdown"),
        ("ssb-breakdown.json", "ssb-breakdown"),
        ("pg-tpch.json", "pg-tpch-seconds"),
        ("pg-tpch.json", "pg-tpch-speedup"),
        ("hashbench-quick.json", "hashbench-lookups"),
        ("hashbench-quick.json", "hashbench-inserts"),
    ] {
        let out = dir.path().join(file);
        let files = pmolap_report::plot_file(&fixtures().join(file), &out).unwrap();
        for ext in ["png", "svg"] {
            let f = out.join(format!("{stem}.{ext}"));
            assert!(files.contains(&f), "{} not among {files:?}", f.display());
            assert!(std::fs::metadata(&f).unwrap().len() > 1000);
        }
    }
}

/// `place validate`'s document: the Pareto plot (measured and every model variant, in
/// PNG and SVG) and the report's section with the placement and error tables.
#[test]
fn place_validate_has_its_pareto_plot_and_tables() {
    let dir = tempfile::tempdir().unwrap();
    let doc = fixture("place-validate.json");
    let input = write(dir.path(), "v.json", &doc);
    let out = dir.path().join("plots");
    let files = pmolap_report::plot_file(&input, &out).unwrap();
    let svg = files
        .iter()
        .find(|f| f.extension().is_some_and(|e| e == "svg"))
        .expect("an SVG");
    let text = std::fs::read_to_string(svg).unwrap();
    for label in [
        "measured",
        "predicted: paper",
        "predicted: page model",
        "no CMR",
        "no dense",
    ] {
        assert!(text.contains(label), "{label} not in the Pareto plot");
    }
    assert!(files
        .iter()
        .any(|f| f.extension().is_some_and(|e| e == "png")));
    let html = render(&[input]);
    assert!(html.contains("Placement: predicted vs measured"));
    assert!(html.contains("workload median |err|"));
    let first = doc["scenarios"][0]["name"].as_str().unwrap();
    assert!(html.contains(first), "{first} not in the table");
}

/// `hash bench`'s document: lookups and inserts per tier and thread count with the
/// HashMap baselines as series of the same figures, and the load-factor, ratio and
/// recovery tables with the measured numbers.
#[test]
fn hash_bench_has_its_figures_baseline_load_factor_and_recovery() {
    let doc = fixture("hashbench-quick.json");
    let html = render(&[fixtures().join("hashbench-quick.json")]);
    assert!(html.contains("id=\"hashbench\""));
    assert_eq!(html.matches("<figure class=\"plot\"").count(), 2);
    for d in doc["dash"].as_array().unwrap() {
        let tier = d["tier"].as_str().unwrap();
        assert!(
            html.contains(&format!("Dash on {tier} (")),
            "{tier} missing"
        );
        let lf = format!("<td>{:.3}</td>", d["load_factor"].as_f64().unwrap());
        assert!(html.contains(&lf), "load factor {lf} of {tier} missing");
    }
    assert!(html.contains("std HashMap (SipHash-1-3, DRAM)"));
    for r in doc["recovery"].as_array().unwrap() {
        let items = format!("<td>{} items</td>", r["items"]);
        assert!(html.contains(&items), "recovery row {items} missing");
        let open = format!("<td>{:.3}</td>", r["open_ms"].as_f64().unwrap());
        assert!(html.contains(&open), "open time {open} missing");
    }
    assert!(html.contains("recover every segment (ms)"));
    assert!(html.contains("Dash / baseline, positive lookups"));
}

/// A `place validate` document with baselines: the predicted-vs-measured scatter (the
/// paper's Fig. 7/10 shape, with the ±10 % band), the Pareto plot with the baselines'
/// measured points, the headline (the most accessed data on the slow tier within 10 % of
/// DRAM, measured, beside the model's) and the advice-vs-baseline table.
#[test]
fn place_validate_with_baselines_has_scatter_headline_and_comparison() {
    let dir = tempfile::tempdir().unwrap();
    let doc = fixture("place-validate-baselines.json");
    let input = write(dir.path(), "v.json", &doc);
    let out = dir.path().join("plots");
    let files = pmolap_report::plot_file(&input, &out).unwrap();
    let svg = |stem: &str| {
        let f = files
            .iter()
            .find(|f| {
                f.extension().is_some_and(|e| e == "svg")
                    && f.file_name().unwrap().to_string_lossy().starts_with(stem)
            })
            .unwrap_or_else(|| panic!("no {stem}*.svg among {files:?}"));
        std::fs::read_to_string(f).unwrap()
    };
    let scatter = svg("place-scatter-cache");
    for label in [
        "per query",
        "whole workload",
        "baselines (whole workload)",
        "±10 %",
    ] {
        assert!(scatter.contains(label), "{label} not in the scatter");
    }
    let pareto = svg("place-validate-cache");
    for kind in ["hottest", "dictionaries", "never accessed", "os alone"] {
        let label = format!("measured baseline: {kind}");
        assert!(pareto.contains(&label), "{label} not in the Pareto plot");
    }
    // The headline, measured: the largest accessed share among the placements (advised,
    // fixed and baselines but the OS alone, whose DRAM is its page cache) measured within
    // 10 % of DRAM.
    let scenarios = doc["scenarios"].as_array().unwrap().iter().chain(
        doc["baselines"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["kind"] != "os alone")
            .map(|b| &b["result"]),
    );
    let best = scenarios
        .filter(|s| s["measured"].as_f64().unwrap() <= 1.1)
        .map(|s| s["slow_accessed_fraction"].as_f64().unwrap())
        .fold(f64::NAN, f64::max);
    let html = render(&[input]);
    let headline = format!(
        "{:.1} % of the accessed data on the slow tier within 10 % of DRAM, measured",
        100.0 * best
    );
    assert!(html.contains(&headline), "{headline} not in the report");
    assert!(html.contains("by the page model"));
    for col in ["promise kept", "vs hottest", "vs OS alone"] {
        assert!(html.contains(col), "{col} not in the report");
    }
    assert!(
        html.contains("within noise") || html.contains("x</td>"),
        "no advice/baseline ratio in the report"
    );
}
