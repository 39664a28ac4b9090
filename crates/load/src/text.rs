//! Delimited text files: finding a table's file in the input directory, telling its
//! delimiter (`|`, tab or `,`) and whether it has a header from its first line, and
//! reading every record into a [`TableBuilder`] with each value checked against its
//! declared type (`value`), one line naming file, line and column for the first that
//! does not fit. An empty field is NULL (refused in a NOT NULL column and in a primary
//! key).

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use pmolap_store::{ColumnType, Schema, TableBuilder, Value};

use crate::ddl::TableSpec;
use crate::value::{check_str, parse_int};
use crate::{Error, Result};

/// The extensions a table's file may have, in the order they are looked for (`parquet`:
/// read by [`crate::source`]).
pub const EXTENSIONS: [&str; 5] = ["csv", "tbl", "tsv", "txt", "parquet"];
/// The longest record (line) read, in bytes: a longer one is refused, never buffered
/// without end.
pub const MAX_RECORD_BYTES: usize = 1 << 20;

/// The file of table `t` in `dir`: `<table>.csv`, `.tbl`, `.tsv`, `.txt` or `.parquet`,
/// exactly one of them, a regular file.
pub fn find_file(dir: &Path, t: &TableSpec) -> Result<PathBuf> {
    let found: Vec<PathBuf> = EXTENSIONS
        .iter()
        .map(|e| dir.join(format!("{}.{e}", t.name)))
        .filter(|p| p.exists())
        .collect();
    match found.as_slice() {
        [p] if p.is_file() => Ok(p.clone()),
        [p] => Err(Error::Data(format!(
            "{}: not a regular file (the data of table {})",
            p.display(),
            t.name
        ))),
        [] => Err(Error::Data(format!(
            "{}: no file for table {} (looked for {}.{{{}}}); nothing was written",
            dir.display(),
            t.name,
            t.name,
            EXTENSIONS.join(",")
        ))),
        several => Err(Error::Data(format!(
            "{}: several files for table {} ({}): keep one",
            dir.display(),
            t.name,
            several
                .iter()
                .filter_map(|p| p.file_name().map(|f| f.to_string_lossy().into_owned()))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// How a file is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub delimiter: u8,
    /// The first line names the columns (and is not data).
    pub header: bool,
}

/// The layout of a file whose first line is `first`, for `cols` columns: the first of
/// `|`, tab, `,` that splits it into `cols` fields (or `cols + 1` with an empty last
/// one: dbgen's trailing delimiter); a header when those fields are the column names.
pub fn sniff(first: &str, names: &[String]) -> Option<Layout> {
    let first = first.trim_end_matches(['\n', '\r']);
    for d in [b'|', b'\t', b','] {
        // Split as the reader will (quotes included: `"a, b"` is one field).
        let mut rec = csv::StringRecord::new();
        let read = csv::ReaderBuilder::new()
            .delimiter(d)
            .has_headers(false)
            .flexible(true)
            .from_reader(first.as_bytes())
            .read_record(&mut rec);
        if !matches!(read, Ok(true)) {
            continue;
        }
        let fields: Vec<&str> = rec.iter().collect();
        let n = fields.len();
        let fits = n == names.len() || (n == names.len() + 1 && fields[n - 1].is_empty());
        if fits {
            let header = fields
                .iter()
                .zip(names)
                .all(|(f, c)| f.trim().eq_ignore_ascii_case(c));
            return Some(Layout {
                delimiter: d,
                header,
            });
        }
    }
    None
}

/// Reads the file of table `t` into a builder of `schema` (the store's columns of `t`);
/// returns it and each row's line number in the file.
pub fn read_table(path: &Path, t: &TableSpec, schema: &Schema) -> Result<(TableBuilder, Vec<u64>)> {
    let shown = path.display().to_string();
    let io = |e: std::io::Error| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let names: Vec<String> = t.columns.iter().map(|c| c.name.clone()).collect();
    let mut first = Vec::new();
    let file = std::fs::File::open(path).map_err(io)?;
    BufReader::new(file)
        .take(MAX_RECORD_BYTES as u64 + 1)
        .read_until(b'\n', &mut first)
        .map_err(io)?;
    let mut b = TableBuilder::new(schema.clone());
    if first.is_empty() {
        return Ok((b, Vec::new()));
    }
    let first = String::from_utf8_lossy(&first);
    let layout = sniff(&first, &names).ok_or_else(|| {
        Error::Data(format!(
            "{shown}:1: the first line has not {} fields separated by `|`, tab or `,` (the columns of {})",
            names.len(),
            t.name
        ))
    })?;
    let file = std::fs::File::open(path).map_err(io)?;
    let mut r = csv::ReaderBuilder::new()
        .delimiter(layout.delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(BufReader::with_capacity(1 << 20, file));
    let mut rec = csv::StringRecord::new();
    let mut lines = Vec::new();
    let mut first_record = true;
    loop {
        let more = r.read_record(&mut rec).map_err(|e| {
            let line = e.position().map_or(0, |p| p.line());
            Error::Data(format!("{shown}:{line}: {}", csv_problem(&e)))
        })?;
        if !more {
            break;
        }
        let line = rec.position().map_or(0, |p| p.line());
        if std::mem::take(&mut first_record) && layout.header {
            continue;
        }
        if rec.as_slice().len() > MAX_RECORD_BYTES {
            return Err(Error::Data(format!(
                "{shown}:{line}: a record of more than {MAX_RECORD_BYTES} bytes"
            )));
        }
        if rec.len() == 1 && rec.get(0).is_some_and(str::is_empty) {
            continue; // an empty line
        }
        let n = names.len();
        let fields = if rec.len() == n + 1 && rec.get(n).is_some_and(str::is_empty) {
            n // dbgen's trailing delimiter
        } else {
            rec.len()
        };
        if fields != n {
            return Err(Error::Data(format!(
                "{shown}:{line}: {fields} fields, table {} has {n} columns",
                t.name
            )));
        }
        for (i, c) in t.columns.iter().enumerate() {
            let f = rec.get(i).unwrap_or_default();
            let at = || format!("{shown}:{line}: column {} `{}`", i + 1, c.name);
            if f.is_empty() {
                // An empty field is NULL (as DuckDB's `read_csv`).
                if t.primary_key.contains(&c.name) {
                    return Err(Error::Data(format!(
                        "{}: NULL (an empty field) in the primary key",
                        at()
                    )));
                }
                if c.not_null {
                    return Err(Error::Data(format!(
                        "{}: NULL (an empty field) in a NOT NULL column",
                        at()
                    )));
                }
                b.push_null(i)?;
                continue;
            }
            let v = if c.ty.is_int() {
                Value::Int(parse_int(f, c.ty).map_err(|m| Error::Data(format!("{}: {m}", at())))?)
            } else {
                check_str(f, c.ty).map_err(|m| Error::Data(format!("{}: {m}", at())))?;
                Value::Str(f)
            };
            b.push_value(i, v)?;
        }
        lines.push(line);
        if lines.len() % (1 << 16) == 0 {
            pmolap_os::signal::check()?;
        }
    }
    Ok((b, lines))
}

fn csv_problem(e: &csv::Error) -> String {
    match e.kind() {
        csv::ErrorKind::Utf8 { err, .. } => {
            format!("field {} is not UTF-8 text", err.field() + 1)
        }
        csv::ErrorKind::Io(e) => e.to_string(),
        _ => "not delimited text the loader reads".to_string(),
    }
}

/// The store's schema of a table: int columns for the integer, decimal and date types,
/// string columns for the others.
pub fn store_schema(t: &TableSpec) -> Result<Schema> {
    Ok(Schema::new(t.columns.iter().map(|c| {
        (
            c.name.clone(),
            if c.ty.is_int() {
                ColumnType::Int
            } else {
                ColumnType::Str
            },
        )
    }))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn layouts_are_told_from_the_first_line() {
        let n = names(&["a", "b", "c"]);
        let l = |d, header| {
            Some(Layout {
                delimiter: d,
                header,
            })
        };
        assert_eq!(sniff("1|x|2|\n", &n), l(b'|', false));
        assert_eq!(sniff("1|x|2", &n), l(b'|', false));
        assert_eq!(sniff("a,b,c\r\n", &n), l(b',', true));
        assert_eq!(sniff("A\tB\tC", &n), l(b'\t', true));
        assert_eq!(sniff("1,2", &n), None);
        assert_eq!(sniff("1,\"x, y\",2", &n), l(b',', false));
        assert_eq!(sniff("1|2|3|4", &n), None);
    }
}
