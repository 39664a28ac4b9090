//! Reading never writes the database: after queries run warm, cold, under a placement
//! with structures on `home` and `file:` tiers, through `pmolap sql`, and behind a
//! bounded page cache where cgroups allow it, every file and directory of the database
//! has its content, size and mtime unchanged; and while an engine session holds the
//! database open, no mapping of a database file is writable or dirty.

mod common;

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use common::{ok, one_line_error, pmolap, ssb_load};

/// A time long past: any write after it moves an mtime away from it.
fn long_ago() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000)
}

/// Every file and directory under `dir` (itself included).
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    out.push(dir.to_path_buf());
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// What the test compares: per path its content (files), size and mtime.
type Snapshot = BTreeMap<PathBuf, (Option<Vec<u8>>, u64, SystemTime)>;

fn snapshot(dir: &Path) -> Snapshot {
    let mut paths = Vec::new();
    walk(dir, &mut paths);
    paths
        .into_iter()
        .map(|p| {
            let m = std::fs::metadata(&p).unwrap();
            let content = m.is_file().then(|| std::fs::read(&p).unwrap());
            (p, (content, m.len(), m.modified().unwrap()))
        })
        .collect()
}

/// Sets every mtime under `dir` to [`long_ago`], so a write in the same clock tick as
/// the load is still seen.
fn age(dir: &Path) {
    let mut paths = Vec::new();
    walk(dir, &mut paths);
    for p in paths {
        File::open(&p).unwrap().set_modified(long_ago()).unwrap();
    }
}

/// Fails naming the first path whose content, size or mtime changed.
fn assert_unchanged(before: &Snapshot, dir: &Path, after_what: &str) {
    let after = snapshot(dir);
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>(),
        "files added or removed by {after_what}"
    );
    for (p, (c, len, mtime)) in before {
        let (c2, len2, mtime2) = &after[p];
        assert_eq!(len, len2, "{}: size changed by {after_what}", p.display());
        assert!(c == c2, "{}: content changed by {after_what}", p.display());
        assert_eq!(
            mtime,
            mtime2,
            "{}: mtime changed by {after_what} (the file was written)",
            p.display()
        );
    }
}

fn run(args: &[&str], data: &Path, extra: &[&std::ffi::OsStr]) -> String {
    ok(pmolap().args(args).arg("--data").arg(data).args(extra))
}

#[test]
fn queries_leave_the_database_files_untouched() {
    let root = tempfile::tempdir().unwrap();
    let db = root.path().join("db");
    ssb_load("0.01", &db);
    age(&db);
    let before = snapshot(&db);
    let copies = root.path().join("copies");
    std::fs::create_dir(&copies).unwrap();
    let placement = root.path().join("placement.json");
    std::fs::write(
        &placement,
        format!(
            r#"{{"format":"pmolap-placement","version":1,
              "tiers":[{{"name":"dram"}},{{"name":"disk","location":"home"}},
                       {{"name":"copy","location":"file:{}"}}],
              "structures":[
                {{"table":"lineorder","column":"lo_revenue","kind":"data_vector","tier":"disk"}},
                {{"table":"lineorder","column":"lo_discount","kind":"data_vector","tier":"disk"}},
                {{"table":"lineorder","column":"lo_quantity","kind":"dictionary","tier":"disk"}},
                {{"table":"date","column":"d_year","kind":"dictionary","tier":"disk"}},
                {{"table":"lineorder","column":"lo_orderdate","kind":"data_vector","tier":"copy"}},
                {{"table":"customer","column":"c_region","kind":"data_vector","tier":"copy"}}]}}"#,
            copies.display()
        ),
    )
    .unwrap();
    let q = ["ssb", "run", "--quiet", "--reps", "1", "--queries", "all"];
    let p = placement.as_os_str();
    let runs: Vec<(&str, Vec<&std::ffi::OsStr>)> = vec![
        (
            "a warm run on home",
            vec!["--tier".as_ref(), "home".as_ref()],
        ),
        (
            "a cold run on home",
            vec![
                "--tier".as_ref(),
                "home".as_ref(),
                "--setting".as_ref(),
                "cold".as_ref(),
            ],
        ),
        ("a warm run on dram", vec![]),
        (
            "a warm run under a placement",
            vec!["--placement".as_ref(), p],
        ),
        (
            "a cold run under a placement",
            vec![
                "--placement".as_ref(),
                p,
                "--setting".as_ref(),
                "cold".as_ref(),
            ],
        ),
    ];
    for (what, extra) in &runs {
        let out = run(&q, &db, extra);
        assert!(out.contains("1.1") && out.contains("4.3"), "{what}: {out}");
        assert_unchanged(&before, &db, what);
    }
    let json = root.path().join("run.json");
    run(
        &["sql", "SELECT sum(lo_revenue) FROM lineorder", "--quiet"],
        &db,
        &[
            "--tier".as_ref(),
            "home".as_ref(),
            "--reps".as_ref(),
            "1".as_ref(),
            "--json".as_ref(),
            json.as_os_str(),
        ],
    );
    assert_unchanged(&before, &db, "pmolap sql on home");
    let doc = common::read_json(&json);
    assert_eq!(doc["config"]["setting"]["kind"], "warm", "{doc}");
    // Behind a bounded page cache, where this machine lets the test make a cgroup.
    let o = pmolap()
        .args(q)
        .arg("--data")
        .arg(&db)
        .args(["--placement"])
        .arg(p)
        .args(["--setting", "cache:64MiB", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    if o.status.success() {
        let doc = common::read_json(&json);
        assert_eq!(doc["config"]["setting"]["kind"], "cache", "{doc}");
        assert_eq!(doc["config"]["setting"]["bytes"], 64 << 20, "{doc}");
    } else {
        let e = one_line_error(&o);
        assert!(e.contains("cgroup"), "{e}");
    }
    assert_unchanged(&before, &db, "a cache:64MiB run under a placement");
    assert!(
        std::fs::read_dir(&copies).unwrap().next().is_none(),
        "the file: tier's copies are removed"
    );
}

/// The mappings of files under `dir` in /proc/self/smaps: (permissions, dirty kB).
fn mappings_under(dir: &Path) -> Vec<(String, String, u64)> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
    let want = dir.to_str().unwrap();
    let mut out: Vec<(String, String, u64)> = Vec::new();
    let mut current: Option<usize> = None;
    for line in smaps.lines() {
        let first = line.split_whitespace().next().unwrap_or("");
        if first.contains('-') && first.chars().next().is_some_and(|c| c.is_ascii_hexdigit()) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            current = None;
            if let Some(path) = fields.get(5) {
                if path.starts_with(want) {
                    out.push((path.to_string(), fields[1].to_string(), 0));
                    current = Some(out.len() - 1);
                }
            }
        } else if let (Some(i), Some(kb)) = (
            current,
            line.strip_prefix("Shared_Dirty:")
                .or_else(|| line.strip_prefix("Private_Dirty:")),
        ) {
            out[i].2 += kb
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .unwrap();
        }
    }
    out
}

#[test]
fn a_warm_session_maps_the_database_read_only() {
    use pmolap_engine::session::open_options;
    use pmolap_engine::{select_ssb, Database, ExecOptions, Session};

    let root = tempfile::tempdir().unwrap();
    let db = root.path().join("db");
    ssb_load("0.01", &db);
    age(&db);
    let before = snapshot(&db);
    let topo = pmolap_tier::Topology::detect().unwrap();
    let database =
        Database::open(&db, &pmolap_store::Placement::home(), &open_options(true)).unwrap();
    let session = Session::new(database, &topo, ExecOptions::default()).unwrap();
    for q in select_ssb("all").unwrap() {
        session.run(&q).unwrap();
        let maps = mappings_under(&db);
        assert!(
            maps.len() >= 10,
            "the structures are mapped from the database: {maps:?}"
        );
        for (path, perms, dirty) in &maps {
            assert!(
                !perms.contains('w'),
                "{path} is mapped writable ({perms}) while Q{} runs",
                q.id
            );
            assert_eq!(*dirty, 0, "{path} has {dirty} kB dirty after Q{}", q.id);
        }
    }
    drop(session);
    assert_unchanged(&before, &db, "a warm engine session on home");
}
