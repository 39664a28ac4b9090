//! A test tier's profile for the `place` tests.

use std::path::Path;

/// A profile for a page-granular test tier (per-access costs of the paper's Table 2
/// shape, and page costs), written to `path`.
pub fn test_profile(path: &Path, store_format: u32) {
    let mut costs = Vec::new();
    for (st, var, acc, ns) in [
        ("data_vector", "uncompressed", "lookup", 225.8),
        ("data_vector", "uncompressed", "scan", 0.4),
        ("dictionary", "int", "lookup", 264.5),
        ("dictionary", "str", "lookup", 336.6),
        ("dictionary", "str", "scan", 0.0),
        ("inverted_index", "any", "lookup", 265.7),
        ("inverted_index", "any", "near_dense", 1.0),
    ] {
        costs.push(
            serde_json::json!({"structure": st, "variant": var, "access": acc, "extra_ns": ns}),
        );
    }
    for (st, var) in [
        ("data_vector", "uncompressed"),
        ("dictionary", "int"),
        ("dictionary", "str"),
    ] {
        for (acc, ns) in [
            ("near_dense", 1.0),
            ("medium_dense", 10.0),
            ("far_dense", 100.0),
        ] {
            costs.push(
                serde_json::json!({"structure": st, "variant": var, "access": acc, "extra_ns": ns}),
            );
        }
    }
    let p = serde_json::json!({
        "format": "pmolap-profile", "version": 1, "tier": "disk",
        "source": {"kind": "measured_here", "machine": "test fixture"},
        "store_format": store_format, "costs": costs,
        "pages": {"page_bytes": 4096, "random_page_ns": 200000.0, "sequential_page_ns": 1000.0, "fault_pages": 32}
    });
    std::fs::write(path, serde_json::to_string_pretty(&p).unwrap()).unwrap();
}
