//! A table's file read by its kind: `.parquet` by [`crate::parquet`] (when built with the
//! `parquet` feature), anything else as delimited text by [`crate::text`]; and a row's
//! place in either for a message (`file:line` of text, `file: row N` of Parquet).

use std::path::Path;

use pmolap_store::{Schema, TableBuilder};

use crate::ddl::TableSpec;
use crate::Result;

/// Whether `path` is read as Parquet (its extension is `parquet`, any case).
pub fn is_parquet(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
}

/// Reads the file of table `t` into a builder of `schema`; returns it and each row's
/// place in the file (a line of text, a row of Parquet), for [`position`].
pub fn read_table(path: &Path, t: &TableSpec, schema: &Schema) -> Result<(TableBuilder, Vec<u64>)> {
    if is_parquet(path) {
        read_parquet(path, t, schema)
    } else {
        crate::text::read_table(path, t, schema)
    }
}

#[cfg(feature = "parquet")]
fn read_parquet(path: &Path, t: &TableSpec, schema: &Schema) -> Result<(TableBuilder, Vec<u64>)> {
    crate::parquet::read_table(path, t, schema)
}

#[cfg(not(feature = "parquet"))]
fn read_parquet(path: &Path, _: &TableSpec, _: &Schema) -> Result<(TableBuilder, Vec<u64>)> {
    Err(crate::Error::Data(format!(
        "{}: this build reads no Parquet (pmolap-load's `parquet` feature is off)",
        path.display()
    )))
}

/// Row `n` of file `path` (a line number of text, a 1-based row of Parquet) for a
/// message: `in/sales.csv:7`, `in/sales.parquet: row 7`.
pub fn position(path: &Path, n: u64) -> String {
    if is_parquet(path) {
        format!("{}: row {n}", path.display())
    } else {
        format!("{}:{n}", path.display())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_told_by_extension_and_rows_placed_for_messages() {
        assert!(is_parquet(Path::new("in/sales.parquet")));
        assert!(is_parquet(Path::new("in/sales.PARQUET")));
        assert!(!is_parquet(Path::new("in/sales.csv")));
        assert!(!is_parquet(Path::new("in/parquet")));
        assert_eq!(position(Path::new("in/s.tbl"), 7), "in/s.tbl:7");
        assert_eq!(
            position(Path::new("in/s.parquet"), 7),
            "in/s.parquet: row 7"
        );
    }

    #[cfg(not(feature = "parquet"))]
    #[test]
    fn parquet_is_refused_in_one_line_without_the_feature() {
        let t = crate::parse_schema("CREATE TABLE d (k INTEGER PRIMARY KEY);", "s.sql").unwrap();
        let schema = crate::text::store_schema(&t.tables[0]).unwrap();
        let e = read_table(Path::new("in/d.parquet"), &t.tables[0], &schema)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "in/d.parquet: this build reads no Parquet (pmolap-load's `parquet` feature is off)"
        );
    }
}
