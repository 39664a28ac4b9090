//! Loading pipe-separated `.tbl` files (dbgen style: `v1|v2|...|vn|` per line) into a
//! [`TableBuilder`]. A line with the wrong number of fields or a bad number is an error
//! naming the file and the line.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use crate::builder::TableBuilder;
use crate::error::{Error, Result};
use crate::schema::{ColumnType, Schema, Value};

/// Reads `path` into a builder for `schema` (one row per non-empty line).
pub fn load_tbl(path: &Path, schema: &Schema) -> Result<TableBuilder> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut b = TableBuilder::new(schema.clone());
    read_tbl(BufReader::with_capacity(1 << 20, file), path, &mut b)?;
    Ok(b)
}

/// Appends the rows of a `.tbl` stream to `b`; `path` is only used in messages.
pub fn read_tbl(mut r: impl BufRead, path: &Path, b: &mut TableBuilder) -> Result<()> {
    let n = b.schema().len();
    let types: Vec<ColumnType> = b.schema().columns.iter().map(|c| c.ty).collect();
    let mut line = Vec::with_capacity(512);
    let mut lineno = 0u64;
    let err = |lineno: u64, problem: String| Error::Tbl {
        path: path.to_path_buf(),
        line: lineno,
        problem,
    };
    loop {
        line.clear();
        let got = r
            .read_until(b'\n', &mut line)
            .map_err(|e| Error::io(path, e))?;
        if got == 0 {
            break;
        }
        lineno += 1;
        let mut l = line.as_slice();
        while let Some((&last, rest)) = l.split_last() {
            if last == b'\n' || last == b'\r' {
                l = rest;
            } else {
                break;
            }
        }
        if l.is_empty() {
            continue;
        }
        let text = std::str::from_utf8(l).map_err(|e| err(lineno, format!("not UTF-8: {e}")))?;
        let Some(body) = text.strip_suffix('|') else {
            return Err(err(lineno, "line does not end with `|`".into()));
        };
        let count = body.bytes().filter(|&c| c == b'|').count() + 1;
        if count != n {
            return Err(err(
                lineno,
                format!("{count} fields, the schema has {n} columns"),
            ));
        }
        for (i, (f, ty)) in body.split('|').zip(&types).enumerate() {
            let v = match ty {
                ColumnType::Int => Value::Int(f.parse::<i64>().map_err(|_| {
                    err(
                        lineno,
                        format!(
                            "field {} (`{}`): `{f}` is not an integer",
                            i + 1,
                            b.schema().columns[i].name
                        ),
                    )
                })?),
                ColumnType::Str => Value::Str(f),
            };
            b.push_value(i, v)?;
        }
    }
    Ok(())
}
