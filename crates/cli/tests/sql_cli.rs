//! `pmolap sql` as a query tool: answers as an aligned table with column names, CSV
//! (RFC 4180) or JSON; SQL from an argument, `-f FILE` or stdin; one run and a quiet
//! stderr by default, timings with `--reps`; lazy open and verification (a missing or
//! damaged structure of a column a query does not read does not fail it, one it reads
//! fails with one line); JSON writes exact decimals as numbers with their own digits.

mod common;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{ok, one_line_error, pmolap, ssb_load, succeeded};

/// A small SSB database (SF 0.01), loaded once per test.
fn database() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("sf001");
    ssb_load("0.01", &db);
    (d, db)
}

fn sql(db: &Path) -> Command {
    let mut c = pmolap();
    c.arg("sql").arg("--data").arg(db);
    c
}

/// The stdout of `cmd`, which must succeed with nothing on stderr (no notes, no timings).
fn quietly(cmd: &mut Command) -> String {
    let o = cmd.output().unwrap();
    let out = succeeded(&o);
    assert!(
        o.stderr.is_empty(),
        "quiet stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

/// `cmd` with `input` on its stdin.
fn with_stdin(cmd: &mut Command, input: &str) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

const BY_MODE: &str = "select lo_shipmode, sum(lo_quantity) as \"qty, \"\"all\"\"\", count(*) \
     from lineorder group by lo_shipmode order by lo_shipmode limit 3";

#[test]
fn answers_print_as_table_csv_and_json() {
    let (_d, db) = database();
    // Table (the default): names over a rule and aligned rows, numbers right-aligned,
    // then the row count; nothing on stderr (no notes, no timings: one run).
    let out = quietly(sql(&db).arg(BY_MODE));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 6, "{out}");
    assert!(
        lines[0].starts_with("lo_shipmode")
            && lines[0].contains("qty, \"all\"")
            && lines[0].ends_with("count(*)"),
        "{out}"
    );
    assert!(lines[1].chars().all(|c| c == '-' || c == ' '), "{out}");
    assert_eq!(lines[2].split_whitespace().next(), Some("AIR"), "{out}");
    assert_eq!(lines[5], "(3 rows)");
    // Every row as wide as the rule: aligned; counts right-aligned under their name.
    let width = lines[1].len();
    for l in &lines[2..5] {
        assert_eq!(l.len(), width, "aligned: {out}");
        assert!(l.ends_with(|c: char| c.is_ascii_digit()), "{out}");
    }
    // CSV: a header record, a name with a comma and quotes quoted (quotes doubled),
    // CRLF line ends.
    let csv = ok(sql(&db).args([BY_MODE, "--format", "csv"]));
    let records: Vec<&str> = csv.split("\r\n").collect();
    assert_eq!(
        records[0], "lo_shipmode,\"qty, \"\"all\"\"\",count(*)",
        "{csv:?}"
    );
    assert_eq!(records.len(), 5, "3 rows, a header and the end: {csv:?}");
    assert!(records[1].starts_with("AIR,"), "{csv:?}");
    // JSON: an array of objects, one per row, keyed by column name.
    let json = ok(sql(&db).args([BY_MODE, "--format", "json"]));
    let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0]["lo_shipmode"], "AIR");
    let n = rows[0]["count(*)"].as_i64().unwrap();
    assert!(n > 0, "{json}");
    assert!(rows[0]["qty, \"all\""].as_i64().unwrap() >= n, "{json}");
    // The CSV and the table agree with the JSON.
    assert!(records[1].ends_with(&format!(",{n}")), "{csv:?}");
    assert!(lines[2].ends_with(&n.to_string()), "{out}");
}

#[test]
fn sql_comes_from_an_argument_a_file_or_stdin() {
    let (d, db) = database();
    let text = "select count(*) as n from lineorder;\nselect sum(lo_quantity) as q from lineorder where lo_discount = 1";
    let from_arg = ok(sql(&db).args([text, "--format", "json"]));
    assert_eq!(
        from_arg.lines().count(),
        2,
        "one line per statement: {from_arg}"
    );
    let first: serde_json::Value = serde_json::from_str(from_arg.lines().next().unwrap()).unwrap();
    assert_eq!(first[0]["n"], 60176, "{from_arg}");
    let file = d.path().join("q.sql");
    std::fs::write(&file, text).unwrap();
    let from_file = ok(sql(&db).arg("-f").arg(&file).args(["--format", "json"]));
    assert_eq!(from_file, from_arg);
    for args in [&["-"][..], &["-f", "-"][..]] {
        let o = with_stdin(sql(&db).args(args).args(["--format", "json"]), text);
        assert_eq!(succeeded(&o), from_arg, "{args:?}");
    }
    // Several statements as tables: one each, named.
    let tables = ok(sql(&db).arg(text));
    assert!(
        tables.starts_with("-- 1\n") && tables.contains("\n\n-- 2\n"),
        "{tables}"
    );
    assert_eq!(tables.matches("(1 row)").count(), 2, "{tables}");
    // Nothing to run: one line each.
    let e = one_line_error(&with_stdin(sql(&db).arg("-"), "  \n"));
    assert!(e.contains("no SQL"), "{e}");
    let e = one_line_error(
        &sql(&db)
            .arg("-f")
            .arg(d.path().join("none.sql"))
            .output()
            .unwrap(),
    );
    assert!(e.contains("none.sql"), "{e}");
    let o = sql(&db)
        .arg("select 1")
        .arg("-f")
        .arg(&file)
        .output()
        .unwrap();
    assert!(!o.status.success(), "an argument and -f conflict");
}

#[test]
fn one_run_by_default_timings_with_reps() {
    let (_d, db) = database();
    let q = "select sum(lo_revenue) from lineorder where lo_discount between 1 and 3";
    let once = quietly(sql(&db).arg(q));
    assert!(!once.contains("median") && !once.contains("note"), "{once}");
    let o = sql(&db)
        .args([q, "--reps", "3", "--quiet"])
        .output()
        .unwrap();
    assert_eq!(succeeded(&o), once, "the same answer on stdout");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.lines().count() == 1 && err.contains("3 reps") && err.contains("warm-up"),
        "{err}"
    );
    // --print (older scripts) is accepted and changes nothing.
    assert_eq!(ok(sql(&db).args([q, "--print"])), once);
}

/// The file of `kind` (`dictionary`, `data_vector`) of `table.column`, from `store info`.
fn structure_file(db: &Path, table: &str, column: &str, kind: &str) -> PathBuf {
    let info = ok(pmolap()
        .args(["store", "info", "--json"])
        .arg(db.join(table)));
    let info: serde_json::Value = serde_json::from_str(&info).unwrap();
    let col = info["columns"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == column)
        .unwrap();
    let file = col["structures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["kind"] == kind)
        .unwrap()["file"]
        .as_str()
        .unwrap();
    PathBuf::from(file)
}

/// Lazy open: a query opens the structures of the columns it reads only, so a missing
/// file or a damaged header of a column it does not read does not fail it (it failed
/// the open of the whole database before); a query reading such a column fails with
/// one line naming the file.
#[test]
fn a_missing_or_broken_file_fails_only_the_queries_that_read_it() {
    let (_d, db) = database();
    let tax = structure_file(&db, "lineorder", "lo_tax", "data_vector");
    let mode = structure_file(&db, "lineorder", "lo_shipmode", "dictionary");
    std::fs::remove_file(&tax).unwrap();
    let mut b = std::fs::read(&mode).unwrap();
    b[20] ^= 0x01; // a header field: the header checksum no longer matches
    std::fs::write(&mode, b).unwrap();
    let good = "select sum(lo_revenue) as r from lineorder where lo_quantity < 10";
    assert!(quietly(sql(&db).arg(good)).contains("(1 row)"));
    for (q, file, problem) in [
        ("select sum(lo_tax) from lineorder", &tax, "missing"),
        (BY_MODE, &mode, "header checksum mismatch"),
    ] {
        let e = one_line_error(&sql(&db).arg(q).output().unwrap());
        let name = file.file_name().unwrap().to_str().unwrap();
        assert!(e.contains(name) && e.contains(problem), "{q}: {e}");
    }
}

/// Lazy verification: a damaged data vector of a column the query does not read does
/// not fail it; a query reading that column fails with one line naming the file.
#[test]
fn a_damaged_column_fails_only_the_queries_that_read_it() {
    let (_d, db) = database();
    let info = ok(pmolap()
        .args(["store", "info", "--json"])
        .arg(db.join("lineorder")));
    let info: serde_json::Value = serde_json::from_str(&info).unwrap();
    let col = info["columns"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "lo_tax")
        .unwrap();
    let dv = col["structures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["kind"] == "data_vector")
        .unwrap()["file"]
        .as_str()
        .unwrap()
        .to_string();
    let mut b = std::fs::read(&dv).unwrap();
    let last = b.len() - 1;
    b[last] ^= 0x01;
    std::fs::write(&dv, b).unwrap();
    let good = "select sum(lo_revenue) as r from lineorder";
    assert!(quietly(sql(&db).arg(good)).contains("(1 row)"));
    let e = one_line_error(
        &sql(&db)
            .arg("select sum(lo_tax) from lineorder where lo_quantity < 10")
            .output()
            .unwrap(),
    );
    let name = Path::new(&dv).file_name().unwrap().to_str().unwrap();
    assert!(
        e.contains(name) && e.contains("payload checksum mismatch"),
        "{e}"
    );
    // A full check still finds it.
    let e = one_line_error(
        &pmolap()
            .args(["store", "info"])
            .arg(db.join("lineorder"))
            .output()
            .unwrap(),
    );
    assert!(e.contains(name), "{e}");
}

/// A join through a row-reference column (`lo_partkey@part`) reads neither the foreign
/// key column nor any other reference column: damaged data vectors of `lo_partkey` and
/// `lo_custkey@customer` leave a query joining part the same answer; a query reading
/// `lo_partkey` itself fails with one line naming its file.
#[test]
fn a_join_through_row_references_reads_no_foreign_key_column() {
    let (_d, db) = database();
    let q = "select sum(lo_revenue), d_year, p_brand1 from lineorder, ddate, part \
             where lo_orderdate = d_datekey and lo_partkey = p_partkey \
             and p_category = 'MFGR#12' group by d_year, p_brand1 order by d_year, p_brand1";
    let want = quietly(sql(&db).args([q, "--format", "csv"]));
    let key = structure_file(&db, "lineorder", "lo_partkey", "data_vector");
    let other = structure_file(&db, "lineorder", "lo_custkey@customer", "data_vector");
    for f in [&key, &other] {
        let mut b = std::fs::read(f).unwrap();
        let last = b.len() - 1;
        b[last] ^= 0x01;
        std::fs::write(f, b).unwrap();
    }
    assert_eq!(quietly(sql(&db).args([q, "--format", "csv"])), want);
    let e = one_line_error(
        &sql(&db)
            .arg("select count(*) from lineorder where lo_partkey < 100")
            .output()
            .unwrap(),
    );
    let name = key.file_name().unwrap().to_str().unwrap();
    assert!(
        e.contains(name) && e.contains("payload checksum mismatch"),
        "{e}"
    );
}

/// JSON answers write a DECIMAL(15,2) column's sums, minima and values as JSON numbers
/// with their exact digits (16 significant digits and trailing zeros a double would
/// lose), a text column holding `12.50` as a string, AVG as a double, NULL as `null`;
/// the same when run as the benchmark (`--answers`).
#[test]
fn json_writes_exact_decimals_as_numbers() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    std::fs::create_dir(&src).unwrap();
    std::fs::write(
        src.join("schema.sql"),
        "CREATE TABLE tag (t_id INTEGER PRIMARY KEY, t_name VARCHAR(10) NOT NULL);\n\
         CREATE TABLE ledger (l_tag INTEGER NOT NULL REFERENCES tag (t_id), \
         l_amount DECIMAL(15,2), l_note VARCHAR(10) NOT NULL);\n",
    )
    .unwrap();
    std::fs::write(src.join("tag.csv"), "t_id,t_name\n1,a\n2,b\n").unwrap();
    std::fs::write(
        src.join("ledger.csv"),
        "l_tag,l_amount,l_note\n1,9999999999999.99,12.50\n1,9999999999999.99,x\n1,0.02,x\n\
         2,-0.10,y\n2,,y\n2,,z\n",
    )
    .unwrap();
    let db = tmp.path().join("db");
    ok(pmolap()
        .arg("load")
        .arg("--schema")
        .arg(src.join("schema.sql"))
        .arg("--from")
        .arg(&src)
        .arg("--out")
        .arg(&db)
        .arg("--quiet"));
    let query = "select t_name, l_note, sum(l_amount) as s, min(l_amount) as lo, avg(l_amount) as m \
                 from ledger, tag where l_tag = t_id group by t_name, l_note order by t_name, l_note";
    let out = quietly(sql(&db).args(["--format", "json", query]));
    assert_eq!(
        out,
        "[{\"t_name\":\"a\",\"l_note\":\"12.50\",\"s\":9999999999999.99,\"lo\":9999999999999.99,\"m\":9999999999999.99},\
         {\"t_name\":\"a\",\"l_note\":\"x\",\"s\":10000000000000.01,\"lo\":0.02,\"m\":5000000000000.005},\
         {\"t_name\":\"b\",\"l_note\":\"y\",\"s\":-0.10,\"lo\":-0.10,\"m\":-0.1},\
         {\"t_name\":\"b\",\"l_note\":\"z\",\"s\":null,\"lo\":null,\"m\":null}]\n"
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v[1]["s"].is_number(), "{out}");
    // The benchmark's printing path (`--answers`: run as `ssb query`) writes them so too.
    let out = ok(sql(&db)
        .args(["--format", "json", "--quiet", "--answers"])
        .arg(tmp.path().join("answers.json"))
        .arg(query));
    assert!(out.contains("\"s\":10000000000000.01,\"lo\":0.02"), "{out}");
}
