//! Guards `pmolap place profile` end to end: every access type the store counts measured
//! on DRAM and a tier in one run, written where `advise` looks by default, nothing left
//! in the tier's directory, and one-line refusals of DRAM and of a tier that is not a
//! directory.

mod common;

use common::{ok, pmolap, read_json, refused};

/// `place profile` measures every access type the store counts, on DRAM and the tier in
/// the same run (a tmpfs directory here: DRAM-backed, so no page costs), writes it to
/// results/place/profiles/ by default, and refuses DRAM itself and a tier that is not a
/// directory.
#[test]
fn profile_measures_every_counted_access() {
    let shm = std::path::Path::new("/dev/shm");
    let base = if shm.is_dir() {
        tempfile::tempdir_in(shm).unwrap()
    } else {
        tempfile::tempdir().unwrap()
    };
    // No --out: written where `advise` looks by default (under the working directory).
    let cwd = tempfile::tempdir().unwrap();
    let out = cwd.path().join("results/place/profiles/shm.json");
    ok(pmolap()
        .current_dir(cwd.path())
        .args([
            "place", "profile", "--quick", "--quiet", "--name", "shm", "--tier",
        ])
        .arg(format!("file:{}", base.path().display())));
    let p = read_json(&out);
    assert_eq!(p["source"]["kind"], "measured_here");
    let keys: Vec<String> = p["costs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            assert!(c["dram_ns"].as_f64().unwrap() > 0.0, "{c}");
            format!(
                "{}/{}/{}",
                c["structure"].as_str().unwrap(),
                c["variant"].as_str().unwrap(),
                c["access"].as_str().unwrap()
            )
        })
        .collect();
    for want in [
        "data_vector/uncompressed/lookup",
        "data_vector/uncompressed/scan",
        "data_vector/uncompressed/near_dense",
        "data_vector/uncompressed/medium_dense",
        "data_vector/uncompressed/far_dense",
        "dictionary/int/lookup",
        "dictionary/int/far_dense",
        "dictionary/str/lookup",
        "dictionary/str/scan",
        "inverted_index/any/lookup",
        "inverted_index/any/near_dense",
    ] {
        assert!(keys.iter().any(|k| k == want), "no {want} in {keys:?}");
    }
    if shm.is_dir() {
        assert!(p.get("pages").is_none(), "tmpfs is not page-granular");
    }
    // Nothing left in the tier's directory.
    let left: Vec<_> = std::fs::read_dir(base.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    let e = refused(
        pmolap()
            .args(["place", "profile", "--quick", "--tier", "dram", "--out"])
            .arg(base.path().join("q.json")),
    );
    assert!(e.contains("reference tier"), "{e}");
    let e = refused(
        pmolap()
            .args(["place", "profile", "--quick", "--tier"])
            .arg(format!("file:{}", out.display()))
            .arg("--out")
            .arg(base.path().join("r.json")),
    );
    assert!(e.contains("existing directory"), "{e}");
}
