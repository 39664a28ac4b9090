//! Guards membench's configuration: YAML parsing, matrix expansion, and the one-line
//! validation error of each kind of bad input.

use std::path::Path;

use pmolap_bench::membench::config::{validate, AccessMode, Operation, Params};
use pmolap_bench::membench::{Args, Config};
use pmolap_bench::Error;
use pmolap_tier::Topology;

fn parse(yaml: &str) -> Result<Config, Error> {
    Config::parse(yaml, Path::new("test.yaml"))
}

fn params(yaml: &str) -> Vec<(String, Params)> {
    parse(yaml).unwrap().expand(&Args::default()).unwrap()
}

fn validate_err(p: &Params) -> String {
    let topo = Topology::detect().unwrap();
    let e = validate(p, "bench", &topo).unwrap_err().to_string();
    assert!(!e.contains('\n'), "one line: {e}");
    e
}

#[test]
fn matrix_is_a_cross_product_in_field_order() {
    let runs = params(
        "a:\n  args:\n    operation: write\n    memory_range: 1G\n  matrix:\n    threads: [1, 2, 4]\n    access_size: [64, 4K]\nb:\n  args:\n    access_mode: grouped\n",
    );
    assert_eq!(runs.len(), 7);
    assert_eq!(runs[0].0, "a");
    let sizes: Vec<(usize, u64)> = runs[..6]
        .iter()
        .map(|(_, p)| (p.threads, p.access_size))
        .collect();
    // Axes follow the fixed field order (access_size before threads), the last fastest.
    assert_eq!(
        sizes,
        vec![(1, 64), (2, 64), (4, 64), (1, 4096), (2, 4096), (4, 4096)]
    );
    assert!(runs[..6]
        .iter()
        .all(|(_, p)| p.operation == Operation::Write && p.memory_range == 1 << 30));
    assert_eq!(runs[6].0, "b");
    assert_eq!(runs[6].1.access_mode, AccessMode::Grouped);
    assert_eq!(
        runs[6].1.duration_s,
        Some(1.0),
        "default duration when no limit is given"
    );
}

#[test]
fn command_line_limits_override_the_file() {
    let cfg = parse("a:\n  args:\n    bytes: 1G\n    reps: 5\n").unwrap();
    let over = Args {
        duration: Some(0.1),
        reps: Some(1),
        ..Args::default()
    };
    let (_, p) = &cfg.expand(&over).unwrap()[0];
    assert_eq!((p.duration_s, p.bytes, p.reps), (Some(0.1), None, 1));
}

#[test]
fn unknown_key_names_key_and_line() {
    let e = parse("a:\n  args:\n    operation: read\n    acces_size: 4K\n")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("test.yaml:4: "), "{e}");
    assert!(e.contains("acces_size"), "{e}");
    let e = parse("a:\n  matrix:\n    threads: [1]\n  argz: {}\n")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("test.yaml:4: ") && e.contains("argz"), "{e}");
}

#[test]
fn bad_values_are_named() {
    let e = parse("a:\n  args:\n    operation: scan\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("test.yaml:3") && e.contains("scan"), "{e}");
    let e = parse("a:\n  args:\n    access_size: 4Q\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("4Q"), "{e}");
    let e = parse("a:\n  args:\n    tier: nvme0\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("nvme0"), "{e}");
    assert!(parse("").is_err());
    assert!(parse("a: {}\na: {}\n")
        .unwrap_err()
        .to_string()
        .contains("defined twice"));
}

fn base() -> Params {
    Params {
        memory_range: 8 << 20,
        threads: 2,
        ..Params::default()
    }
}

#[test]
fn valid_params_pass() {
    validate(&Params::default(), "ok", &Topology::detect().unwrap()).unwrap();
    validate(&base(), "ok", &Topology::detect().unwrap()).unwrap();
}

#[test]
fn access_size_must_be_a_power_of_two_of_at_least_64() {
    for s in [32, 96, 100] {
        let e = validate_err(&Params {
            access_size: s,
            ..base()
        });
        assert!(e.contains(&format!("access_size {s}")), "{e}");
    }
}

#[test]
fn range_must_be_a_multiple_of_threads_times_access_size() {
    let e = validate_err(&Params {
        threads: 3,
        ..base()
    });
    assert!(
        e.contains("not a multiple of threads × access_size (3 × 4096"),
        "{e}"
    );
}

#[test]
fn range_larger_than_the_tier_is_refused() {
    let e = validate_err(&Params {
        memory_range: 1 << 50,
        ..base()
    });
    assert!(e.contains("larger than dram can hold"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let tier = format!("file:{}", dir.path().display()).parse().unwrap();
    let e = validate_err(&Params {
        memory_range: 1 << 56,
        tier,
        ..base()
    });
    assert!(e.contains("larger than file:"), "{e}");
}

#[test]
fn missing_node_and_path_are_refused() {
    let e = validate_err(&Params {
        tier: "dram:node=77".parse().unwrap(),
        ..base()
    });
    assert!(e.contains("NUMA node 77 does not exist"), "{e}");
    let e = validate_err(&Params {
        thread_node: Some(78),
        ..base()
    });
    assert!(e.contains("NUMA node 78 does not exist"), "{e}");
    let e = validate_err(&Params {
        tier: "file:/no/such/dir/f".parse().unwrap(),
        ..base()
    });
    assert!(
        e.contains("/no/such/dir") && e.contains("no such file"),
        "{e}"
    );
    let e = validate_err(&Params {
        tier: "devdax:/dev/dax-none".parse().unwrap(),
        ..base()
    });
    assert!(e.contains("/dev/dax-none"), "{e}");
}

#[test]
fn mixed_and_limits_are_checked() {
    let e = validate_err(&Params {
        operation: Operation::Mixed,
        ..base()
    });
    assert!(e.contains("write_threads"), "{e}");
    let e = validate_err(&Params {
        write_threads: 1,
        ..base()
    });
    assert!(e.contains("only for operation mixed"), "{e}");
    let e = validate_err(&Params {
        bytes: Some(1 << 20),
        duration_s: Some(1.0),
        ..base()
    });
    assert!(e.contains("either duration or bytes"), "{e}");
    let e = validate_err(&Params { reps: 0, ..base() });
    assert!(e.contains("reps"), "{e}");
}

#[test]
fn parallel_groups_expand_per_combination() {
    let runs = params(
        "x:\n  args:\n    operation: write\n    memory_range: 8M\n  matrix:\n    threads: [1, 2]\n  parallel:\n    - {thread_node: 0, tier: \"dram:node=0\"}\n    - {thread_node: 0, tier: dram, operation: read}\n",
    );
    assert_eq!(runs.len(), 2);
    for (i, (_, p)) in runs.iter().enumerate() {
        assert_eq!(p.threads, i + 1);
        assert_eq!(p.tier.to_string(), "dram:node=0");
        assert_eq!(p.parallel.len(), 1);
        let g = &p.parallel[0];
        assert_eq!(
            (g.threads, g.operation, g.tier.to_string()),
            (i + 1, Operation::Read, "dram".to_string())
        );
        validate(p, "x", &Topology::detect().unwrap()).unwrap();
    }
    let mut bad = runs[0].1.clone();
    bad.parallel[0].operation = Operation::Latency;
    let e = validate_err(&bad);
    assert!(
        e.contains("parallel groups must each be read or write"),
        "{e}"
    );
    bad.parallel[0].operation = Operation::Read;
    bad.parallel[0].access_size = 100;
    let e = validate_err(&bad);
    assert!(
        e.contains("parallel group 2") && e.contains("access_size 100"),
        "{e}"
    );
}
