//! What every command shares for its output: result paths checked up front (creating
//! nothing) and published whole, JSON documents, text and JSON on stdout (a closed pipe
//! is no error), the `results: PATH` line, padded column tables, and query answers as
//! an aligned table, CSV (RFC 4180) or JSON ([`render_answer`]).

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use pmolap_engine::OutValue;
use serde::Serialize;

use pmolap_os::durable::{check_writable, parent_of, publish_file};

/// `results/<name>-YYYYMMDD-HHMMSS<ext>` (UTC): where a command's output goes when none
/// is given.
pub(crate) fn default_results_path(name: &str, ext: &str) -> PathBuf {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    PathBuf::from("results").join(format!("{name}-{}{ext}", utc_stamp(now)))
}

/// `YYYYMMDD-HHMMSS` (UTC) of seconds since the Unix epoch (the report's one calendar
/// conversion, `pmolap_report::date`, plus the seconds).
fn utc_stamp(unix: u64) -> String {
    let d = pmolap_report::date(unix); // "YYYY-MM-DD HH:MM UTC"
    let digits: String = d.chars().filter(char::is_ascii_digit).collect();
    match digits.get(..8).zip(digits.get(8..12)) {
        Some((day, hm)) => format!("{day}-{hm}{:02}", unix % 60),
        None => unix.to_string(),
    }
}

/// Checks that a file can later be published at `path`, creating nothing: its directory
/// exists and a file can be created there, or it is missing and its nearest existing
/// ancestor is a directory in which it can be created (the writers create it).
pub(crate) fn check_output(path: &Path) -> Result<()> {
    let dir = parent_of(path);
    if dir.is_dir() {
        return probe(path, &dir);
    }
    let mut missing = dir.as_path();
    loop {
        if missing.symlink_metadata().is_ok() {
            anyhow::bail!(
                "{}: {} is not a directory",
                path.display(),
                missing.display()
            );
        }
        let up = parent_of(missing);
        if up.is_dir() {
            // `missing` is the first directory to create: can it be?
            return probe(missing, &up);
        }
        if up.as_path() == missing {
            anyhow::bail!("{}: no existing directory above it", path.display());
        }
        missing = missing.parent().unwrap_or(Path::new("."));
    }
}

/// [`check_output`] of an optional output.
pub(crate) fn check_optional(path: Option<&Path>) -> Result<()> {
    path.map_or(Ok(()), check_output)
}

/// [`check_writable`] of `path` in the existing directory `dir`, with a plain message
/// when the directory refuses new files (`/proc/sys` answers "no such file").
fn probe(path: &Path, dir: &Path) -> Result<()> {
    match check_writable(path) {
        Err(pmolap_os::Error::NotFound(_)) => anyhow::bail!(
            "{}: cannot create files in this directory (its filesystem refuses them)",
            dir.display()
        ),
        r => Ok(r?),
    }
}

/// Creates the directory `path` goes in, if missing.
pub(crate) fn create_parent(path: &Path) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    Ok(())
}

/// Publishes `r` as pretty JSON at `path` (staged, then renamed), creating its directory.
pub(crate) fn write_json<T: Serialize>(r: &T, path: &Path) -> Result<()> {
    create_parent(path)?;
    let text = serde_json::to_string_pretty(r).context("serialising results")?;
    Ok(publish_file(path, text.as_bytes())?)
}

/// [`write_json`], then the `results: PATH` line.
pub(crate) fn publish_results<T: Serialize>(r: &T, path: &Path) -> Result<()> {
    write_json(r, path)?;
    println!("results: {}", path.display());
    Ok(())
}

/// Writes `text` to stdout and flushes; a closed pipe (`pmolap topology | head`) is
/// not an error.
pub(crate) fn print_text(text: &str) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r.context("writing to stdout"),
    }
}

/// `v` as pretty JSON and a newline on stdout ([`print_text`]); `what` names it in
/// the error.
pub(crate) fn print_json<T: Serialize>(v: &T, what: &str) -> Result<()> {
    let mut s =
        serde_json::to_string_pretty(v).with_context(|| format!("writing {what} as JSON"))?;
    s.push('\n');
    print_text(&s)
}

/// Lays out rows under a header, indented by two spaces, with columns padded to their
/// widest cell; the last column is not padded.
pub(crate) fn table(out: &mut String, header: &[&str], rows: &[Vec<String>]) {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: Vec<&str>| -> String {
        let last = cells.len().saturating_sub(1);
        let mut s = String::from("  ");
        for (i, c) in cells.iter().enumerate() {
            if i == last {
                s.push_str(c);
            } else {
                let pad = widths[i] - c.chars().count();
                s.push_str(c);
                s.push_str(&" ".repeat(pad + 2));
            }
        }
        s.trim_end().to_string()
    };
    let _ = writeln!(out, "{}", line(header.to_vec()));
    for r in rows {
        let _ = writeln!(out, "{}", line(r.iter().map(String::as_str).collect()));
    }
}

/// How a query's answer is printed (`pmolap sql --format`, `ssb query --print`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum AnswerFormat {
    /// Column names over aligned rows (numbers right-aligned), then `(N rows)`.
    Table,
    /// RFC 4180: a header record, then one record per row, CRLF line ends; a field with
    /// a comma, a double quote, CR or LF is quoted, its quotes doubled; NULL is empty.
    Csv,
    /// One line: a JSON array of objects, one per row, `{"column": value, …}` in the
    /// order of the columns (NULL is `null`; an exact decimal a number with its digits).
    Json,
}

/// The answer `rows` (each in the order of `columns`) in `format`, ending in a newline;
/// `decimals`: the positions of exact DECIMAL columns (their values are text).
pub(crate) fn render_answer(
    format: AnswerFormat,
    columns: &[String],
    rows: &[Vec<OutValue>],
    decimals: &[usize],
) -> String {
    match format {
        AnswerFormat::Table => answer_table(columns, rows),
        AnswerFormat::Csv => answer_csv(columns, rows),
        AnswerFormat::Json => answer_json(columns, rows, decimals),
    }
}

/// A value as a table cell: control characters escaped, so a row stays one line.
fn cell(v: &OutValue) -> String {
    match v {
        OutValue::Null => "NULL".into(),
        OutValue::Int(i) => i.to_string(),
        OutValue::Float(d) => d.0.to_string(),
        OutValue::Str(s) if s.chars().any(char::is_control) => s
            .chars()
            .map(|c| {
                if c.is_control() {
                    c.escape_default().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect(),
        OutValue::Str(s) => s.clone(),
    }
}

/// `-12.50`, `7`: an optional minus, digits, and at most one point followed by digits.
fn is_decimal_text(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    let (int, frac) = digits.split_once('.').unwrap_or((digits, "0"));
    !int.is_empty()
        && !frac.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b.is_ascii_digit())
}

fn answer_table(columns: &[String], rows: &[Vec<OutValue>]) -> String {
    let cells: Vec<Vec<String>> = rows.iter().map(|r| r.iter().map(cell).collect()).collect();
    // A column is right-aligned when it holds numbers (and NULLs) only; exact decimals
    // arrive as text (`15404.190`) and count as numbers.
    let numeric: Vec<bool> = (0..columns.len())
        .map(|i| {
            rows.iter().all(|r| match r.get(i) {
                Some(OutValue::Int(_) | OutValue::Float(_) | OutValue::Null) | None => true,
                Some(OutValue::Str(s)) => is_decimal_text(s),
            })
        })
        .collect();
    let mut widths: Vec<usize> = columns.iter().map(|c| c.chars().count()).collect();
    for r in &cells {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: &mut dyn Iterator<Item = &str>| -> String {
        let mut s = String::new();
        for (i, c) in cells.enumerate() {
            let pad = " ".repeat(widths[i].saturating_sub(c.chars().count()));
            if i > 0 {
                s.push_str("  ");
            }
            if numeric[i] {
                s.push_str(&pad);
                s.push_str(c);
            } else {
                s.push_str(c);
                s.push_str(&pad);
            }
        }
        s.truncate(s.trim_end().len());
        s.push('\n');
        s
    };
    let mut out = line(&mut columns.iter().map(String::as_str));
    let rule: Vec<String> = widths.iter().map(|&w| "-".repeat(w)).collect();
    out.push_str(&line(&mut rule.iter().map(String::as_str)));
    for r in &cells {
        out.push_str(&line(&mut r.iter().map(String::as_str)));
    }
    let _ = writeln!(
        out,
        "({} row{})",
        rows.len(),
        if rows.len() == 1 { "" } else { "s" }
    );
    out
}

/// One CSV field, quoted when RFC 4180 needs it.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn answer_csv(columns: &[String], rows: &[Vec<OutValue>]) -> String {
    let record = |fields: Vec<String>| fields.join(",") + "\r\n";
    let mut out = record(columns.iter().map(|c| csv_field(c)).collect());
    for r in rows {
        out.push_str(&record(
            r.iter()
                .map(|v| match v {
                    OutValue::Null => String::new(),
                    OutValue::Str(s) => csv_field(s),
                    v => cell(v),
                })
                .collect(),
        ));
    }
    out
}

/// A JSON array of objects; an exact decimal (a value of a `decimals` column) is written
/// as a JSON number with its own digits (`12.50`), never through a double.
fn answer_json(columns: &[String], rows: &[Vec<OutValue>], decimals: &[usize]) -> String {
    let value = |i: usize, v: &OutValue| match v {
        OutValue::Str(s) if decimals.contains(&i) && is_decimal_text(s) => s.clone(),
        OutValue::Null => "null".into(),
        OutValue::Int(i) => i.to_string(),
        OutValue::Str(s) => serde_json::Value::from(s.as_str()).to_string(),
        // NaN and infinities have no JSON number: null.
        OutValue::Float(d) => serde_json::Number::from_f64(d.0)
            .map_or(serde_json::Value::Null, serde_json::Value::Number)
            .to_string(),
    };
    let objects: Vec<String> = rows
        .iter()
        .map(|r| {
            let fields: Vec<String> = columns
                .iter()
                .zip(r)
                .enumerate()
                .map(|(i, (c, v))| {
                    format!("{}:{}", serde_json::Value::from(c.as_str()), value(i, v))
                })
                .collect();
            format!("{{{}}}", fields.join(","))
        })
        .collect();
    format!("[{}]\n", objects.join(","))
}

/// `s` itself when at most `n` characters, else its first `n - 1` and `…`.
pub(crate) fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n.saturating_sub(1)).chain(['…']).collect()
    }
}

/// Where a sweep's results go (`pmolap membench`, `pmolap iobench`): the JSON file
/// (given, or `results/<kind>-<time>.json`) and an optional CSV file, both checked before
/// anything runs and published whole at the end (staged beside their names, then
/// renamed), so an old file there stays intact until the new one is complete.
pub(crate) struct Outputs {
    json: PathBuf,
    csv: Option<PathBuf>,
}

impl Outputs {
    /// Checks the output paths of a `kind` run up front, creating nothing.
    pub(crate) fn new(
        kind: &str,
        json: &Option<PathBuf>,
        csv: &Option<PathBuf>,
    ) -> Result<Outputs> {
        let json = json
            .clone()
            .unwrap_or_else(|| default_results_path(kind, ".json"));
        check_output(&json).context("--json")?;
        if let Some(c) = csv {
            check_output(c).context("--csv")?;
            if *c == json {
                anyhow::bail!("--csv and --json name the same file {}", c.display());
            }
        }
        Ok(Outputs {
            json,
            csv: csv.clone(),
        })
    }

    /// Publishes `r` as JSON (and CSV through `csv`), printing the paths; `partial`
    /// results (an interrupted run) say so.
    pub(crate) fn write<T: Serialize>(
        &self,
        r: &T,
        partial: bool,
        csv: impl FnOnce(&T, &Path) -> Result<()>,
    ) -> Result<()> {
        let note = if partial {
            " (partial: interrupted, only the runs that finished)"
        } else {
            ""
        };
        write_json(r, &self.json)?;
        println!("results: {}{note}", self.json.display());
        if let Some(path) = &self.csv {
            create_parent(path)?;
            csv(r, path).with_context(|| format!("writing {}", path.display()))?;
            println!("csv: {}{note}", path.display());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_are_checked_without_creating_anything() {
        let d = tempfile::tempdir().unwrap();
        let deep = d.path().join("a/b/r.json");
        check_output(&deep).unwrap();
        assert!(!d.path().join("a").exists(), "nothing created");
        let file = d.path().join("f");
        std::fs::write(&file, b"x").unwrap();
        let e = check_output(&file.join("r.json")).unwrap_err().to_string();
        assert!(e.contains("is not a directory"), "{e}");
        check_optional(None).unwrap();
        assert!(check_optional(Some(&file.join("x/y.json"))).is_err());
    }

    /// Table: names over aligned rows (numbers right, strings left); CSV: RFC 4180
    /// quoting; JSON: an array of objects in column order.
    #[test]
    fn answers_print_as_table_csv_and_json() {
        let cols = vec!["name".to_string(), "sum(x)".to_string()];
        let rows = vec![
            vec![OutValue::Str("a, \"b\"".into()), OutValue::Int(12345)],
            vec![OutValue::Str("c\nd".into()), OutValue::Null],
        ];
        assert_eq!(
            render_answer(AnswerFormat::Table, &cols, &rows, &[]),
            "name    sum(x)\n------  ------\na, \"b\"   12345\nc\\nd      NULL\n(2 rows)\n"
        );
        assert_eq!(
            render_answer(AnswerFormat::Csv, &cols, &rows, &[]),
            "name,sum(x)\r\n\"a, \"\"b\"\"\",12345\r\n\"c\nd\",\r\n"
        );
        let j = render_answer(AnswerFormat::Json, &cols, &rows, &[]);
        assert_eq!(
            j,
            "[{\"name\":\"a, \\\"b\\\"\",\"sum(x)\":12345},{\"name\":\"c\\nd\",\"sum(x)\":null}]\n"
        );
        let v: serde_json::Value = serde_json::from_str(&j).unwrap();
        assert_eq!(v[0]["sum(x)"], 12345);
        assert_eq!(render_answer(AnswerFormat::Json, &cols, &[], &[]), "[]\n");
        assert!(render_answer(AnswerFormat::Table, &cols, &[], &[]).ends_with("(0 rows)\n"));
    }

    /// Exact decimals arrive as text and align as numbers; other text stays left.
    #[test]
    fn decimal_text_aligns_right() {
        let cols = vec!["revenue".to_string()];
        let rows = vec![
            vec![OutValue::Str("15404.190".into())],
            vec![OutValue::Str("-7.5".into())],
        ];
        assert_eq!(
            render_answer(AnswerFormat::Table, &cols, &rows, &[]),
            "  revenue\n---------\n15404.190\n     -7.5\n(2 rows)\n"
        );
        for t in ["1.", ".5", "1.2.3", "-", "", "1e5", "12a"] {
            assert!(!is_decimal_text(t), "{t}");
        }
    }

    /// JSON writes a decimal column's values as numbers with their own digits (no
    /// double in between: 17 significant digits and trailing zeros stay), the same text
    /// in another column as a string.
    #[test]
    fn json_decimals_are_exact_numbers() {
        let cols = vec!["s".to_string(), "name".to_string()];
        let rows = vec![
            vec![
                OutValue::Str("1234567890123456.78".into()),
                OutValue::Str("12.50".into()),
            ],
            vec![OutValue::Str("-0.10".into()), OutValue::Null],
            vec![OutValue::Null, OutValue::Str("x".into())],
        ];
        assert_eq!(
            render_answer(AnswerFormat::Json, &cols, &rows, &[0]),
            "[{\"s\":1234567890123456.78,\"name\":\"12.50\"},{\"s\":-0.10,\"name\":null},{\"s\":null,\"name\":\"x\"}]\n"
        );
    }

    #[test]
    fn default_names_are_utc_date_and_time() {
        assert_eq!(utc_stamp(0), "19700101-000000");
        assert_eq!(utc_stamp(1_700_000_000), "20231114-221320");
        let p = default_results_path("demo", "");
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(name.len(), "demo-YYYYMMDD-HHMMSS".len(), "{name}");
        assert!(name.starts_with("demo-20"), "{name}");
    }

    #[test]
    fn tables_pad_all_but_the_last_column() {
        let mut s = String::new();
        table(
            &mut s,
            &["a", "bb", "c"],
            &[vec!["xxx".into(), "y".into(), "last one".into()]],
        );
        assert_eq!(s, "  a    bb  c\n  xxx  y   last one\n");
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abc", 4), "abc");
    }
}
