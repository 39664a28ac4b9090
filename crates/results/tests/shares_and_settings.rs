//! The fields added for issue 33: an `ssb-run` config's `setting` (documents without it
//! read as `warm`; `--setting` parses warm, cold and cache:SIZE and names the choices
//! otherwise) and a validated placement's share of the accessed bytes (documents without
//! it fall back to the all-bytes share).

use serde_json::json;

use pmolap_results::place::ScenarioResult;
use pmolap_results::ssb::{RunConfig, RunSetting};

#[test]
fn a_run_config_without_a_setting_was_warm() {
    let old = json!({
        "data": "d", "tier": "home", "reps": 3, "threads": 2, "pin": "cores",
        "stripe": false, "replicate_dims": false, "morsel_rows": 16384,
        "join_index": "dense", "bits_kernel": "avx2"
    });
    let c: RunConfig = serde_json::from_value(old).unwrap();
    assert_eq!(c.setting, RunSetting::Warm);
    let mut c2 = c.clone();
    c2.setting = RunSetting::Cache { bytes: 64 << 20 };
    let v = serde_json::to_value(&c2).unwrap();
    assert_eq!(v["setting"], json!({"kind": "cache", "bytes": 64 << 20}));
    let back: RunConfig = serde_json::from_value(v).unwrap();
    assert_eq!(back.setting, c2.setting);
}

#[test]
fn settings_parse_and_print() {
    for (s, want) in [
        ("warm", RunSetting::Warm),
        ("cold", RunSetting::Cold),
        ("cache:64MiB", RunSetting::Cache { bytes: 64 << 20 }),
    ] {
        assert_eq!(s.parse::<RunSetting>().unwrap(), want);
    }
    assert_eq!(RunSetting::Cache { bytes: 4096 }.to_string(), "cache:4096");
    let e = "hot".parse::<RunSetting>().unwrap_err();
    assert!(
        e.contains("warm") && e.contains("cold") && e.contains("cache:SIZE"),
        "{e}"
    );
    let e = "cache:lots".parse::<RunSetting>().unwrap_err();
    assert!(e.contains("lots"), "{e}");
    // A bound the queries' own memory would overrun is refused, in one line.
    for tiny in ["cache:1MiB", "cache:0", "cache:8388607"] {
        let e = tiny.parse::<RunSetting>().unwrap_err();
        assert!(
            e.contains(tiny) && e.contains("at least 8 MiB") && !e.contains('\n'),
            "{e}"
        );
    }
    assert_eq!(
        "cache:8MiB".parse::<RunSetting>().unwrap(),
        RunSetting::Cache { bytes: 8 << 20 }
    );
}

#[test]
fn the_headline_share_is_of_the_accessed_bytes_where_written() {
    let mut v = json!({
        "name": "all slow", "slow_bytes": 100, "slow_fraction": 1.0, "measured": 2.0,
        "predicted": {"paper": 1.5, "no_cmr": 1.6, "no_dense": 1.7}, "queries": []
    });
    let old: ScenarioResult = serde_json::from_value(v.clone()).unwrap();
    assert_eq!(old.slow_accessed_fraction, None);
    assert_eq!(old.headline_fraction(), 1.0);
    v["slow_fraction"] = json!(0.8);
    v["slow_accessed_bytes"] = json!(40);
    v["slow_accessed_fraction"] = json!(0.5);
    let new: ScenarioResult = serde_json::from_value(v).unwrap();
    assert_eq!(new.slow_accessed_bytes, Some(40));
    assert_eq!(new.headline_fraction(), 0.5);
}
