//! Guards issue 11's hostile-but-realistic cases for the SSB, store and Elf commands, end
//! to end through the binary: two writers, a reader during a load, a load that fails half
//! way (bad input, `ulimit -f`, kill -9), tiers that must not destroy a user's file, bounded
//! inputs and one-line messages, Ctrl-C keeping finished results — each asserting the exit
//! code, a one-line message, that no data was lost and that nothing was left behind.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{entries, ok, one_line_error, pmolap, signal, ssb_load, succeeded};

/// The answers of `queries` on `db`, as JSON text.
fn answers(db: &Path, queries: &str) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a.json");
    ok(pmolap()
        .args(["ssb", "run", "--quiet", "--reps", "1", "--queries", queries])
        .arg("--data")
        .arg(db)
        .arg("--answers")
        .arg(&a));
    std::fs::read_to_string(a).unwrap()
}

/// The database directory holds exactly one generation and nothing else.
fn clean_db(dir: &Path) {
    let e = entries(dir);
    assert_eq!(e.len(), 3, "{e:?}");
    assert_eq!(&e[..2], ["DATABASE", "LOCK"], "{e:?}");
    assert!(e[2].starts_with('g'), "{e:?}");
}

/// The generation directory a load into the clean database `dir` stages (`gN` after
/// the published `g(N-1)`).
fn next_generation(dir: &Path) -> PathBuf {
    clean_db(dir);
    let e = entries(dir);
    let n: u64 = e[2][1..].parse().expect("a generation number");
    dir.join(format!("g{}", n + 1))
}

fn wait_until(child: &mut Child, what: impl Fn() -> bool, limit: Duration) {
    let t = Instant::now();
    while !what() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the child exited before the condition held"
        );
        assert!(t.elapsed() < limit, "timed out waiting");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_second_writer_and_a_reader_during_a_load_fail_at_once_naming_the_holder() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("db");
    ssb_load("0.01", &db);
    let before = answers(&db, "all");
    // A slow load (SF 0.2) holds the writer lock while the others try.
    let mut writer = pmolap()
        .args(["ssb", "load", "--quiet", "--sf", "0.2", "--out"])
        .arg(&db)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let staging = db.join("g2");
    wait_until(&mut writer, || staging.exists(), Duration::from_secs(30));
    let o = pmolap()
        .args(["ssb", "load", "--quiet", "--sf", "0.01", "--out"])
        .arg(&db)
        .output()
        .unwrap();
    let e = one_line_error(&o);
    assert!(
        e.contains("is being written by pid") && e.contains("ssb load"),
        "{e}"
    );
    let o = pmolap()
        .args(["ssb", "run", "--quiet", "--reps", "1", "--data"])
        .arg(&db)
        .output()
        .unwrap();
    let e = one_line_error(&o);
    assert!(e.contains("is being written by pid"), "{e}");
    assert!(!e.contains("damaged"), "{e}");
    let st = writer.wait().unwrap();
    assert!(st.success());
    clean_db(&db);
    assert_ne!(
        answers(&db, "all"),
        before,
        "the new scale factor was published"
    );
}

#[test]
fn a_load_that_fails_half_way_leaves_the_old_database_whole() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("db");
    ssb_load("0.01", &db);
    let before = answers(&db, "all");

    // --tbl input whose last table (lineorder, loaded last) has a bad line at its end.
    let tbl = d.path().join("tbl");
    ok(pmolap()
        .args(["ssb", "gen", "--sf", "0.02", "--out"])
        .arg(&tbl));
    let lo = tbl.join("lineorder.tbl");
    let mut text = std::fs::read_to_string(&lo).unwrap();
    text.push_str("1|2|not-a-number|\n");
    std::fs::write(&lo, text).unwrap();
    let o = pmolap()
        .args(["ssb", "load", "--quiet", "--out"])
        .arg(&db)
        .arg("--tbl")
        .arg(&tbl)
        .output()
        .unwrap();
    let e = one_line_error(&o);
    assert!(e.contains("lineorder.tbl:"), "names file and line: {e}");
    assert_eq!(
        answers(&db, "all"),
        before,
        "the old database answers as before"
    );
    clean_db(&db);

    // A missing table file: refused before anything is written.
    std::fs::remove_file(tbl.join("date.tbl")).unwrap();
    let o = pmolap()
        .args(["ssb", "load", "--quiet", "--out"])
        .arg(&db)
        .arg("--tbl")
        .arg(&tbl)
        .output()
        .unwrap();
    assert!(one_line_error(&o).contains("date.tbl: missing"));
    assert_eq!(answers(&db, "all"), before);

    // The file-size limit (`ulimit -f`) hit half way: an error, not SIGXFSZ.
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -f 2048; exec {} ssb load --quiet --sf 0.05 --out {}",
            env!("CARGO_BIN_EXE_pmolap"),
            db.display()
        ))
        .output()
        .unwrap();
    let e = one_line_error(&o);
    assert!(
        e.contains("out of room") || e.contains("out of space"),
        "{e}"
    );
    assert_eq!(answers(&db, "all"), before);
    clean_db(&db);

    // kill -9 in the middle of a load, some time after its staging generation appears:
    // the database is whole either way — the old one when the kill lands before the new
    // generation is published, the new one when after (the load verifies what it
    // published before it exits, so a fast machine may be killed there). Until a kill
    // lands before the publish, the old database is written again and the kill comes
    // sooner.
    let reference = d.path().join("reference");
    ssb_load("0.1", &reference);
    let new_answers = answers(&reference, "all");
    let mut killed_mid_load = false;
    for delay_ms in [300, 100, 30, 10, 0] {
        let mut child = pmolap()
            .args(["ssb", "load", "--quiet", "--sf", "0.1", "--out"])
            .arg(&db)
            .spawn()
            .unwrap();
        let staging = next_generation(&db);
        wait_until(&mut child, || staging.exists(), Duration::from_secs(30));
        std::thread::sleep(Duration::from_millis(delay_ms));
        signal(&child, "-KILL");
        child.wait().unwrap();
        let now = answers(&db, "all");
        if now == new_answers {
            // Published before the kill: put the old database back and try sooner.
            ssb_load("0.01", &db);
            clean_db(&db);
            assert_eq!(answers(&db, "all"), before);
            continue;
        }
        assert_eq!(
            now, before,
            "old database after kill -9 {delay_ms} ms into the load"
        );
        killed_mid_load = true;
        break;
    }
    assert!(killed_mid_load, "every load published before its kill -9");
    // The next writer removes what the killed one left, and publishes.
    ssb_load("0.01", &db);
    clean_db(&db);
    assert_eq!(answers(&db, "all"), before);
}

#[test]
fn ctrl_c_keeps_finished_queries_and_leaves_nothing_behind() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("db");
    ssb_load("0.01", &db);
    let json = d.path().join("out/r.json");
    let tier = d.path().join("tier");
    std::fs::create_dir(&tier).unwrap();
    let child = pmolap()
        .args(["ssb", "run", "--quiet", "--reps", "1000000"])
        .arg("--data")
        .arg(&db)
        .arg("--tier")
        .arg(format!("file:{}", tier.display()))
        .arg("--json")
        .arg(&json)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    // Structures copied onto the file tier were unlinked as soon as mapped.
    assert_eq!(
        entries(&tier),
        Vec::<String>::new(),
        "no region files by name"
    );
    signal(&child, "-INT");
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap())
        .expect("the partial results are whole JSON");
    assert_eq!(r["partial"], true);
    let n = r["queries"].as_array().unwrap().len();
    assert!((1..13).contains(&n), "{n} queries finished");
    assert_eq!(entries(&tier), Vec::<String>::new());
    assert_eq!(entries(json.parent().unwrap()), ["r.json"]);

    // ssb gen interrupted: no .tbl.tmp left.
    let out = d.path().join("gen");
    let mut child = pmolap()
        .args(["ssb", "gen", "--sf", "1", "--out"])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let tmp = out.join("lineorder.tbl.tmp");
    wait_until(&mut child, || tmp.exists(), Duration::from_secs(30));
    signal(&child, "-INT");
    let st = child.wait().unwrap();
    assert_eq!(st.code(), Some(130));
    assert!(
        entries(&out).iter().all(|n| !n.ends_with(".tmp")),
        "{:?}",
        entries(&out)
    );
}

#[test]
fn a_file_tier_never_destroys_a_users_file() {
    let d = tempfile::tempdir().unwrap();
    let a = d.path().join("a.elf");
    let other = d.path().join("other.elf");
    ok(pmolap()
        .args(["elf", "build", "--rows", "500", "--dims", "3"])
        .arg(&a));
    ok(pmolap()
        .args([
            "elf", "build", "--rows", "700", "--dims", "3", "--seed", "9",
        ])
        .arg(&other));
    let before = std::fs::read(&other).unwrap();
    let o = pmolap()
        .args(["elf", "query", "--lo", "0,0,0", "--hi", "9,9,9", "--tier"])
        .arg(format!("file:{}", other.display()))
        .arg(&a)
        .output()
        .unwrap();
    assert!(one_line_error(&o).contains("already exists and is not scratch space"));
    assert_eq!(
        std::fs::read(&other).unwrap(),
        before,
        "other.elf untouched"
    );
    // A directory is scratch space: a file of pmolap's own, gone afterwards.
    let scratch = d.path().join("scratch");
    std::fs::create_dir(&scratch).unwrap();
    ok(pmolap()
        .args(["elf", "query", "--lo", "0,0,0", "--hi", "9,9,9", "--tier"])
        .arg(format!("file:{}", scratch.display()))
        .arg(&a));
    assert_eq!(entries(&scratch), Vec::<String>::new());
    // Its own file in place is allowed (that is the in-place variant).
    ok(pmolap()
        .args(["elf", "query", "--lo", "0,0,0", "--hi", "9,9,9", "--tier"])
        .arg(format!("file:{}", a.display()))
        .arg(&a));
}

#[test]
fn bounded_inputs_fail_at_once_with_one_line() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("db");
    ssb_load("0.01", &db);
    let run = |extra: &[&str]| -> Output {
        pmolap()
            .args(["ssb", "run", "--quiet", "--reps", "1", "--data"])
            .arg(&db)
            .args(extra)
            .output()
            .unwrap()
    };
    assert!(one_line_error(&run(&["--threads", "100000"])).contains("--oversubscribe"));
    assert!(one_line_error(&run(&["--morsel", "4294967296"])).contains("above the limit"));
    assert!(one_line_error(&run(&["--queries", ""])).contains("no queries named"));
    assert!(one_line_error(&run(&["--json", "/proc/sys/x.json"])).contains("--json"));
    let o = pmolap()
        .args(["ssb", "breakdown", "--reps", "0", "--data"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(one_line_error(&o).contains("--reps must be at least 1"));

    let query = |name: &str, text: &[u8]| -> String {
        let p = d.path().join(name);
        std::fs::write(&p, text).unwrap();
        let o = pmolap()
            .args(["ssb", "query", "--quiet", "--reps", "1", "--data"])
            .arg(&db)
            .arg(&p)
            .output()
            .unwrap();
        one_line_error(&o)
    };
    let e = query(
        "lit.yaml",
        b"id: x\njoins: []\nwhere: { lo_quantity: { eq: 1.5 } }\naggregates: [{name: r, sum: lo_revenue}]\nselect: [r]\n",
    );
    assert!(e.contains("literal 1.5"), "{e}");
    assert!(!e.contains("untagged"), "{e}");
    assert_eq!(e.matches("lit.yaml").count(), 1, "{e}");
    let e = query(
        "col.yaml",
        b"id: x\njoins: []\naggregates: [{name: r, sum: nosuch}]\nselect: [r]\n",
    );
    assert!(e.contains("col.yaml") && e.contains("query x:") && e.contains("nosuch"));
    assert_eq!(e.matches("query x").count(), 1, "{e}");
    let garbage: Vec<u8> = (0..3_000_000u32)
        .map(|i| b'a' + (i.wrapping_mul(2_654_435_761) >> 27) as u8 % 26)
        .collect();
    let e = query("garbage.yaml", &garbage);
    assert!(e.len() < 600, "not echoed: {} chars", e.len());
    let t = Instant::now();
    let e = query("deep.yaml", "[".repeat(100_000).as_bytes());
    assert!(e.contains("nested more than"), "{e}");
    assert!(t.elapsed() < Duration::from_secs(10));
    let o = pmolap()
        .args(["ssb", "query", "--quiet", "--data"])
        .arg(&db)
        .arg("/dev/zero")
        .output()
        .unwrap();
    assert!(one_line_error(&o).contains("larger than"));

    let o = pmolap()
        .args(["elf", "build", "--rows", "3000000000"])
        .arg(d.path().join("big.elf"))
        .output()
        .unwrap();
    assert!(one_line_error(&o).contains("31-bit"));
    assert!(!d.path().join("big.elf").exists());
}

#[test]
fn store_info_resolves_the_tables_of_a_database() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("db");
    ssb_load("0.01", &db);
    let out = ok(pmolap().args(["store", "info"]).arg(db.join("date")));
    assert!(out.contains("d_datekey") && out.contains("rows"), "{out}");
    let o = pmolap()
        .args(["store", "info"])
        .arg(db.join("nosuch"))
        .output()
        .unwrap();
    assert!(one_line_error(&o).contains("no table `nosuch`"));
}

/// Issue 32's SQL cases: a `.sql` of 100,000 `OR` terms or `sum(a + a + …)` of 100,000
/// terms ends with one line (never a stack overflow); several `;`-separated statements on
/// one line all run; an unknown column compared with a literal is named; `pmolap sql`
/// without `--data` or `--sf` refuses instead of generating a database in the current
/// directory.
#[test]
fn hostile_sql_ends_with_one_line_and_scripts_run_whole() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("db");
    ssb_load("0.01", &db);
    let query_file = |name: &str, text: &str| -> Output {
        let p = d.path().join(name);
        std::fs::write(&p, text).unwrap();
        pmolap()
            .args(["ssb", "query", "--quiet", "--reps", "1", "--data"])
            .arg(&db)
            .arg(&p)
            .output()
            .unwrap()
    };
    let ors = |n: usize| {
        (0..n)
            .map(|i| format!("lo_discount = {i}"))
            .collect::<Vec<_>>()
            .join(" or ")
    };
    // The file (2.3 MB) and one of short terms under the text's bound.
    let e = one_line_error(&query_file(
        "or.sql",
        &format!(
            "select sum(lo_revenue) from lineorder where {};",
            ors(100_000)
        ),
    ));
    assert!(e.contains("more than the limit"), "{e}");
    let e = one_line_error(&query_file(
        "or-short.sql",
        &format!(
            "select sum(lo_revenue) from lineorder where {};",
            vec!["x=1"; 100_000].join(" or ")
        ),
    ));
    assert!(e.contains("operators"), "{e}");
    let e = one_line_error(&query_file(
        "sum.sql",
        &format!(
            "select sum({}) from lineorder;",
            vec!["lo_revenue"; 100_000].join(" + ")
        ),
    ));
    assert!(
        e.contains("operators") || e.contains("more than the limit"),
        "{e}"
    );
    let e = one_line_error(&query_file(
        "sum-short.sql",
        &format!(
            "select sum({}) from lineorder;",
            vec!["a"; 100_000].join("+")
        ),
    ));
    assert!(e.contains("operators"), "{e}");

    let sql = |args: &[&str]| -> Output {
        pmolap()
            .current_dir(d.path())
            .arg("sql")
            .args(args)
            .output()
            .unwrap()
    };
    // Two statements on one line: both run, numbered.
    let data = db.to_str().unwrap();
    let out = succeeded(&sql(&[
        "select count(*) from lineorder; select sum(lo_quantity) from lineorder where lo_discount = 1",
        "--quiet",
        "--data",
        data,
    ]));
    let ids: Vec<&str> = out.lines().filter(|l| l.starts_with("-- ")).collect();
    assert_eq!(ids, ["-- 1", "-- 2"], "{out}");
    assert!(out.lines().any(|l| l.trim() == "60176"), "{out}");
    // The unknown column is named, not the literal.
    let e = one_line_error(&sql(&[
        "select sum(lo_revenue) from lineorder where zz = 3",
        "--quiet",
        "--data",
        data,
    ]));
    assert!(e.contains("`zz`") && !e.contains("`3`"), "{e}");
    // No database named: refused at once, nothing generated in the current directory.
    let e = one_line_error(&sql(&["select count(*) from lineorder", "--quiet"]));
    assert!(e.contains("--data") && e.contains("--sf"), "{e}");
    assert!(!d.path().join("data").exists(), "nothing generated");
}

/// Issue 32: `ssb load` under `ulimit -n 20` exited 1 after committing (its verify kept
/// a descriptor per column file). Mapped files hold no descriptor now: the load succeeds
/// and the database answers under the same limit, exactly as one loaded without it.
#[test]
fn a_small_open_files_limit_loads_and_answers_honestly() {
    let d = tempfile::tempdir().unwrap();
    let (db, reference) = (d.path().join("db"), d.path().join("reference"));
    ssb_load("0.01", &reference);
    let a = d.path().join("a.json");
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -n 20 && {p} ssb load --quiet --sf 0.01 --out {db} && \
             exec {p} ssb run --quiet --reps 1 --data {db} --answers {a}",
            p = env!("CARGO_BIN_EXE_pmolap"),
            db = db.display(),
            a = a.display()
        ))
        .output()
        .unwrap();
    succeeded(&o);
    clean_db(&db);
    assert_eq!(
        std::fs::read_to_string(&a).unwrap(),
        answers(&reference, "all")
    );
}
