//! The common header as documents carry it: flattened (its fields at the document's top
//! level, no `header` key), the oldest documents' missing fields read as their defaults,
//! and every kind named once.

use serde_json::{json, Value};

use pmolap_results::hashbench::HashBenchReport;
use pmolap_results::{kind, Header, Machine};

fn machine() -> Value {
    json!({
        "hostname": "h", "cpu_model": "c", "cpu_features": [], "logical_cpus": 2,
        "physical_cores": 1, "sockets": 1, "numa_nodes": [], "tiers": [], "os": "o",
        "kernel_release": "k", "pmolap_version": "0.1.0"
    })
}

fn hash_doc() -> Value {
    json!({
        "kind": "hashbench", "pmolap_version": "0.0.9", "started_unix": 5,
        "machine": machine(),
        "params": {"keys": 1, "tiers": [], "threads": [1], "recovery_items": [],
                   "recovery_dir": "/tmp", "seed": 3},
        "dash": [], "baselines": [], "dram_ratios": [], "recovery": []
    })
}

#[test]
fn the_header_is_flattened_into_the_document() {
    let m: Machine = serde_json::from_value(machine()).unwrap();
    let mut d: HashBenchReport = serde_json::from_value(hash_doc()).unwrap();
    d.header = Header::new(kind::HASHBENCH, m, true);
    let v = serde_json::to_value(&d).unwrap();
    let o = v.as_object().unwrap();
    assert!(!o.contains_key("header"), "{v}");
    assert_eq!(o["kind"], "hashbench");
    assert_eq!(o["format_version"], kind::HASHBENCH.format_version);
    assert_eq!(o["pmolap_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(o["partial"], true);
    assert_eq!(o["machine"]["hostname"], "h");
    assert_eq!(o["started_unix"], 5);
}

#[test]
fn missing_header_fields_read_as_the_oldest_documents_meant_them() {
    // No `format_version` (written before it existed) and no `partial` (never written
    // by `hash bench`): version 1, not partial.
    let d: HashBenchReport = serde_json::from_value(hash_doc()).unwrap();
    assert_eq!(d.header.format_version, 1);
    assert!(!d.header.partial);
    assert_eq!(d.header.pmolap_version, "0.0.9");
    assert_eq!(d.params.reps, 1);
    // A required header field is still required.
    let mut v = hash_doc();
    v.as_object_mut().unwrap().remove("machine");
    let e = serde_json::from_value::<HashBenchReport>(v).unwrap_err();
    assert!(e.to_string().contains("machine"), "{e}");
}

#[test]
fn every_kind_is_named_once_and_found_by_name() {
    let mut names: Vec<&str> = kind::ALL.iter().map(|k| k.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), kind::ALL.len());
    for k in kind::ALL {
        assert_eq!(kind::find(k.name), Some(*k));
        assert!(k.format_version >= 1);
    }
    assert_eq!(kind::find("spreadsheet"), None);
}
