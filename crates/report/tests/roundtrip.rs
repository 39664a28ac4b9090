//! Old result documents still read, and written back they are the same document: every
//! result file among the fixtures and the dated JSON under docs/ parses into its
//! `pmolap_results` type, and serialising that gives every key of the file with the same
//! value (the format versions and field names are those the producers have always
//! written); the only keys it may add are fields older writers left out, named below
//! with the default they read as.

use std::path::{Path, PathBuf};

use serde_json::Value;

use pmolap_report::doc::{self, Document};

/// Keys a document may gain on the way back (path from the top), with the value they
/// must have: fields that older writers left out. `pmolap hash bench` wrote no `partial`
/// (it is in the common header now) and, before `--reps`, no `params.reps`.
fn added(path: &str, v: &Value) -> bool {
    match path {
        ".partial" => *v == Value::Bool(false),
        ".params.reps" => *v == serde_json::json!(1),
        _ => false,
    }
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `*.json` under `dir`, recursively, sorted.
fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            json_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
}

fn inputs() -> Vec<PathBuf> {
    let mut files = Vec::new();
    json_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"),
        &mut files,
    );
    json_files(&workspace().join("docs"), &mut files);
    files
}

/// Where `back` differs from `orig`: a key of `orig` missing or changed, a value of
/// another shape, or a key added that [`added`] does not allow.
fn differences(at: &str, orig: &Value, back: &Value, out: &mut Vec<String>) {
    match (orig, back) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                match b.get(k) {
                    Some(w) => differences(&format!("{at}.{k}"), v, w, out),
                    None => out.push(format!("{at}.{k}: dropped")),
                }
            }
            for (k, w) in b {
                if a.contains_key(k) {
                    continue;
                }
                if !added(&format!("{at}.{k}"), w) {
                    out.push(format!("{at}.{k}: added ({w})"));
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                out.push(format!("{at}: {} elements, {} back", a.len(), b.len()));
                return;
            }
            for (i, (v, w)) in a.iter().zip(b).enumerate() {
                differences(&format!("{at}[{i}]"), v, w, out);
            }
        }
        // An integer written for a float field comes back as a float of the same value.
        (Value::Number(a), Value::Number(b)) if a.as_f64() == b.as_f64() => {}
        (a, b) if a == b => {}
        (a, b) => out.push(format!("{at}: {a} became {b}")),
    }
}

#[test]
fn every_result_document_reads_and_writes_back_the_same_keys_and_values() {
    let mut results = 0;
    let mut kinds = std::collections::BTreeSet::new();
    for path in inputs() {
        let text = std::fs::read_to_string(&path).unwrap();
        let orig: Value = serde_json::from_str(&text).unwrap();
        // The placement advisor's documents written before `kind` are known by `format`.
        let kind = orig
            .get("kind")
            .and_then(Value::as_str)
            .or_else(|| {
                orig.get("format")
                    .and_then(Value::as_str)
                    .and_then(pmolap_results::kind::by_format)
                    .map(|k| k.name)
            })
            .unwrap_or_default();
        if pmolap_results::kind::find(kind).is_none() {
            // Not a pmolap result (the peers' and fio comparisons under docs/): the
            // report lists it as skipped.
            let e = doc::parse(&path, &text).unwrap_err();
            assert!(
                e.to_string().contains("not a pmolap result"),
                "{}: {e}",
                path.display()
            );
            continue;
        }
        let d: Document = doc::parse(&path, &text)
            .unwrap_or_else(|e| panic!("{} no longer reads: {e}", path.display()));
        assert_eq!(d.kind(), kind);
        let back = serde_json::to_value(&d).unwrap();
        let mut diff = Vec::new();
        differences("", &orig, &back, &mut diff);
        assert!(
            diff.is_empty(),
            "{} written back differs:\n{}",
            path.display(),
            diff.join("\n")
        );
        // Once written back it is stable: read again, it writes the same.
        let again = doc::parse(&path, &back.to_string()).unwrap();
        assert_eq!(serde_json::to_value(&again).unwrap(), back);
        results += 1;
        kinds.insert(kind.to_string());
    }
    // The fixtures hold every kind the report draws; docs/ adds the dated runs.
    for k in [
        "membench",
        "iobench",
        "elfbench",
        "ssb-tiers",
        "ssb-breakdown",
        "place-validate",
        "pg-tpch",
        "hashbench",
        "place-workload",
        "place-profile",
        "placement",
    ] {
        assert!(kinds.contains(k), "no {k} document among the inputs");
    }
    assert!(results >= 10, "only {results} result documents found");
}

#[test]
fn a_changed_key_is_caught() {
    // The comparison itself: a renamed field and a changed value are both reported.
    let orig: Value = serde_json::json!({"kind": "x", "a": {"b": 1.5, "c": [1, 2]}});
    let renamed: Value = serde_json::json!({"kind": "x", "a": {"bb": 1.5, "c": [1, 2]}});
    let changed: Value = serde_json::json!({"kind": "x", "a": {"b": 1.5, "c": [1, 3]}});
    for back in [renamed, changed] {
        let mut diff = Vec::new();
        differences("", &orig, &back, &mut diff);
        assert!(!diff.is_empty(), "{back} passed");
    }
    let mut diff = Vec::new();
    differences(
        "",
        &orig,
        &serde_json::json!({"kind": "x", "a": {"b": 1.5, "c": [1, 2]}, "partial": false}),
        &mut diff,
    );
    assert!(diff.is_empty(), "{diff:?}");
}
