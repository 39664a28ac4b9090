//! Parquet files: a table's `.parquet` file read column by column with the `parquet` crate's
//! low-level column readers (no arrow) into the same typed values the text path produces —
//! integers from INT32/INT64, DECIMAL(p,s) from Parquet DECIMAL (INT32, INT64, fixed-length
//! or variable-length bytes) rescaled to the declared scale, DATE from Parquet DATE (days
//! since 1970-01-01) as yyyymmdd, strings from BYTE_ARRAY/UTF8 — every value checked as
//! [`crate::value`] checks a text field. Columns are matched by name (others in the file
//! are ignored); a type, codec or value that does not fit is one line naming file, row
//! group, row and column.

use std::cell::Cell;
use std::fs::File;
use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::sync::Once;

use parquet::basic::{Compression, ConvertedType, IntType, LogicalType, Type as PhysicalType};
use parquet::column::reader::{get_typed_column_reader, ColumnReaderImpl};
use parquet::data_type::{
    ByteArray, ByteArrayType, DataType, FixedLenByteArray, FixedLenByteArrayType, Int32Type,
    Int64Type,
};
use parquet::file::reader::{FileReader, RowGroupReader};
use parquet::file::serialized_reader::SerializedFileReader;
use parquet::schema::types::ColumnDescriptor;
use pmolap_store::{Schema, TableBuilder, Value};

use crate::ddl::{ColType, ColumnSpec, TableSpec};
use crate::value::{check_str, excerpt, int_bounds, one_line};
use crate::{Error, Result};

/// Records read from a column chunk at a time.
const BATCH: usize = 1 << 16;

/// How a file column's values become the store's integers or strings.
#[derive(Debug, Clone, Copy)]
enum Conv {
    /// An integer (`unsigned`: the file's bits are an unsigned integer of `bits`).
    Int { unsigned: Option<u8> },
    /// A decimal of the file's `scale`, times `10^shift` to the declared scale.
    Decimal { file_scale: u32, shift: u32 },
    /// Days since 1970-01-01.
    Date,
    /// UTF-8 bytes.
    Str,
}

/// One table column and the file column it is read from.
#[derive(Debug)]
struct Source<'t> {
    /// Its position in the table (and the builder).
    col: usize,
    spec: &'t ColumnSpec,
    /// The file's leaf column.
    leaf: usize,
    physical: PhysicalType,
    conv: Conv,
    /// The file's definition level of a present value (0: REQUIRED, no NULLs possible).
    max_def: i16,
}

/// Reads the `.parquet` file of table `t` into a builder of `schema`; returns it and each
/// row's number in the file (1-based, across row groups), the text path's line numbers.
///
/// The `parquet` crate panics on some malformed files (a page that names a dictionary the
/// chunk lacks); such a panic is caught here and becomes the file's one-line error, its
/// message kept off stderr ([`quietly`]).
pub fn read_table(path: &Path, t: &TableSpec, schema: &Schema) -> Result<(TableBuilder, Vec<u64>)> {
    quietly(|| read(path, t, schema)).unwrap_or_else(|panic| {
        Err(Error::Data(format!(
            "{}: malformed Parquet data (the reader stopped: {})",
            path.display(),
            one_line(&panic)
        )))
    })
}

thread_local! {
    /// Set while this thread runs [`quietly`]: the panic hook stays silent.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f`, a panic in it returned as its message. The first call wraps the process's
/// panic hook in one that is silent on a thread inside `quietly` and otherwise calls the
/// hook it replaced, so that other panics are reported as before.
fn quietly<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
    let was = QUIET.with(|q| q.replace(true));
    // Unwind safety: on a panic everything `f` built is dropped unused.
    let r = std::panic::catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(was));
    r.map_err(|p| {
        p.downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".to_string())
    })
}

fn read(path: &Path, t: &TableSpec, schema: &Schema) -> Result<(TableBuilder, Vec<u64>)> {
    let shown = path.display().to_string();
    let file = File::open(path).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    let reader = SerializedFileReader::new(file).map_err(|e| {
        Error::Data(format!(
            "{shown}: not a Parquet file this loader reads ({})",
            one_line(&e.to_string())
        ))
    })?;
    let meta = reader.metadata();
    let descr = meta.file_metadata().schema_descr();
    let sources = t
        .columns
        .iter()
        .enumerate()
        .map(|(col, spec)| {
            let leaf = find_column(descr.columns(), &spec.name, &t.name)
                .map_err(|m| Error::Data(format!("{shown}: {m}")))?;
            let d = descr.column(leaf);
            let conv = conversion(&d, spec.ty)
                .map_err(|m| Error::Data(format!("{shown}: column `{}`: {m}", spec.name)))?;
            Ok(Source {
                col,
                spec,
                leaf,
                physical: d.physical_type(),
                conv,
                max_def: d.max_def_level(),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    // Every codec before any value: a file this build cannot decompress fails whole.
    for g in 0..meta.num_row_groups() {
        let rg = meta.row_group(g);
        for s in &sources {
            let codec = rg.column(s.leaf).compression();
            if !built_in(codec) {
                return Err(Error::Data(format!(
                    "{shown}: row group {g}, column `{}`: compressed with {}, a codec this build does not read (it reads {})",
                    s.spec.name,
                    codec_name(codec),
                    BUILT_IN
                )));
            }
        }
    }
    let mut b = TableBuilder::new(schema.clone());
    let mut first_row = 0u64;
    for g in 0..meta.num_row_groups() {
        pmolap_os::signal::check()?;
        let rows = u64::try_from(meta.row_group(g).num_rows()).unwrap_or(0);
        let rg = reader.get_row_group(g).map_err(|e| {
            Error::Data(format!(
                "{shown}: row group {g}: {}",
                one_line(&e.to_string())
            ))
        })?;
        for s in &sources {
            let at = Chunk {
                file: &shown,
                group: g,
                first_row,
                column: &s.spec.name,
            };
            let n = read_chunk(rg.as_ref(), s, &at, &mut b)?;
            if n != rows {
                return Err(Error::Data(format!(
                    "{shown}: row group {g}, column `{}`: {n} values, the row group has {rows} rows",
                    s.spec.name
                )));
            }
        }
        first_row += rows;
    }
    Ok((b, (1..=first_row).collect()))
}

/// Where a value is, for a message.
#[derive(Debug)]
struct Chunk<'a> {
    file: &'a str,
    group: usize,
    /// Rows of the file before this row group.
    first_row: u64,
    column: &'a str,
}

impl Chunk<'_> {
    /// `file: row group G, row R: column `c`` for the `i`-th value of the chunk (R counts
    /// from 1 across the file).
    fn row(&self, i: usize) -> String {
        format!(
            "{}: row group {}, row {}: column `{}`",
            self.file,
            self.group,
            self.first_row + i as u64 + 1,
            self.column
        )
    }

    fn failed(&self, e: parquet::errors::ParquetError) -> Error {
        Error::Data(format!(
            "{}: row group {}, column `{}`: {}",
            self.file,
            self.group,
            self.column,
            one_line(&e.to_string())
        ))
    }
}

/// A NULL of the file in a NOT NULL (or primary key) column: refused, naming where it
/// is. In a nullable column a NULL is stored as the store's NULL (as an empty field of text).
fn null_refused(at: String) -> Error {
    Error::Data(format!("{at}: NULL in a NOT NULL column"))
}

/// Reads column `s` of row group `rg` into the builder; returns the rows read.
fn read_chunk(
    rg: &dyn RowGroupReader,
    s: &Source<'_>,
    at: &Chunk<'_>,
    b: &mut TableBuilder,
) -> Result<u64> {
    let reader = rg.get_column_reader(s.leaf).map_err(|e| at.failed(e))?;
    match s.physical {
        PhysicalType::INT32 => read_values::<Int32Type, _>(reader, s, at, b, |v: &i32| {
            Ok(Value::Int(int_value(*v as i64, s)?))
        }),
        PhysicalType::INT64 => read_values::<Int64Type, _>(reader, s, at, b, |v: &i64| {
            Ok(Value::Int(int_value(*v, s)?))
        }),
        PhysicalType::FIXED_LEN_BYTE_ARRAY => {
            read_values::<FixedLenByteArrayType, _>(reader, s, at, b, |v: &FixedLenByteArray| {
                Ok(Value::Int(decimal_bytes(v.data(), s)?))
            })
        }
        PhysicalType::BYTE_ARRAY => match s.conv {
            Conv::Str => read_values::<ByteArrayType, _>(reader, s, at, b, |v: &ByteArray| {
                let text = std::str::from_utf8(v.data())
                    .map_err(|_| "the value is not UTF-8 text".to_string())?;
                check_str(text, s.spec.ty)?;
                Ok(Value::Str(text))
            }),
            _ => read_values::<ByteArrayType, _>(reader, s, at, b, |v: &ByteArray| {
                Ok(Value::Int(decimal_bytes(v.data(), s)?))
            }),
        },
        other => Err(Error::Data(format!(
            "{}: row group {}, column `{}`: {other} values are not read",
            at.file, at.group, at.column
        ))),
    }
}

/// Reads every record of a column chunk of physical type `T`, each present value turned
/// into a store value by `convert` (a message saying why it does not fit).
fn read_values<T, F>(
    reader: parquet::column::reader::ColumnReader,
    s: &Source<'_>,
    at: &Chunk<'_>,
    b: &mut TableBuilder,
    convert: F,
) -> Result<u64>
where
    T: DataType,
    F: for<'v> Fn(&'v T::T) -> Result<Value<'v>, String>,
{
    let mut r: ColumnReaderImpl<T> = get_typed_column_reader(reader);
    let mut values: Vec<T::T> = Vec::new();
    let mut defs: Vec<i16> = Vec::new();
    let mut ints: Vec<i64> = Vec::new();
    let mut done = 0usize;
    loop {
        values.clear();
        defs.clear();
        let def_levels = (s.max_def > 0).then_some(&mut defs);
        let (records, present, _) = r
            .read_records(BATCH, def_levels, None, &mut values)
            .map_err(|e| at.failed(e))?;
        if records == 0 {
            break;
        }
        if present != values.len() || (s.max_def > 0 && defs.len() != records) {
            return Err(Error::Data(format!(
                "{}: row group {}, column `{}`: malformed column chunk ({records} rows, {present} values)",
                at.file, at.group, at.column
            )));
        }
        let mut next = values.iter();
        // A REQUIRED column has no levels: every row holds a value.
        let level = |i: usize| defs.get(i).copied().unwrap_or(s.max_def);
        for i in 0..records {
            if level(i) < s.max_def {
                if s.spec.not_null {
                    return Err(null_refused(at.row(done + i)));
                }
                // The integers read so far go first: the builder's rows stay in order.
                if !ints.is_empty() {
                    b.extend_ints(s.col, &ints)?;
                    ints.clear();
                }
                b.push_null(s.col)?;
                continue;
            }
            let v = next.next().ok_or_else(|| {
                Error::Data(format!(
                    "{}: fewer values than rows in the column chunk",
                    at.row(done + i)
                ))
            })?;
            match convert(v).map_err(|m| Error::Data(format!("{}: {m}", at.row(done + i))))? {
                Value::Int(x) => ints.push(x),
                v => b.push_value(s.col, v)?,
            }
        }
        // Integers a batch at a time (strings are interned one by one above).
        if !ints.is_empty() {
            b.extend_ints(s.col, &ints)?;
            ints.clear();
        }
        done += records;
        if done % (1 << 20) < BATCH {
            pmolap_os::signal::check()?;
        }
    }
    Ok(done as u64)
}

/// An integer of the file (INT32 widened, INT64 as is) as the declared type's value.
fn int_value(v: i64, s: &Source<'_>) -> Result<i64, String> {
    match s.conv {
        Conv::Int { unsigned } => {
            let v = match unsigned {
                Some(32) => v as u32 as i64,
                Some(64) if v < 0 => {
                    return Err(format!("`{}` is outside the {} range", v as u64, s.spec.ty))
                }
                _ => v,
            };
            let (lo, hi) = int_bounds(s.spec.ty);
            if !(lo..=hi).contains(&v) {
                return Err(format!(
                    "`{v}` is outside the {} range {lo}..={hi}",
                    s.spec.ty
                ));
            }
            Ok(v)
        }
        Conv::Decimal { file_scale, shift } => rescale(v as i128, file_scale, shift, s.spec.ty),
        Conv::Date => date_of_days(v),
        Conv::Str => Err("not a string".into()),
    }
}

/// A decimal stored as big-endian two's-complement bytes (at most 16, checked with the
/// type) as the declared type's scaled integer.
fn decimal_bytes(bytes: &[u8], s: &Source<'_>) -> Result<i64, String> {
    let Conv::Decimal { file_scale, shift } = s.conv else {
        return Err("not a decimal".into());
    };
    if bytes.is_empty() || bytes.len() > 16 {
        return Err(format!(
            "a decimal of {} bytes (at most 16 are read)",
            bytes.len()
        ));
    }
    let fill = if bytes[0] & 0x80 != 0 { 0xff } else { 0 };
    let mut be = [fill; 16];
    be[16 - bytes.len()..].copy_from_slice(bytes);
    rescale(i128::from_be_bytes(be), file_scale, shift, s.spec.ty)
}

/// `v` (a decimal of `file_scale` decimals) times 10^`shift`, within the declared
/// precision.
fn rescale(v: i128, file_scale: u32, shift: u32, ty: ColType) -> Result<i64, String> {
    let ColType::Decimal { precision, .. } = ty else {
        return Err("not a decimal column".into());
    };
    let limit = 10i128.pow(precision);
    match v.checked_mul(10i128.pow(shift)) {
        Some(x) if x.abs() < limit => Ok(x as i64),
        _ => Err(format!(
            "`{}` has more digits than {ty} holds",
            show_decimal(v, file_scale)
        )),
    }
}

/// `v` with `scale` decimals, as text.
fn show_decimal(v: i128, scale: u32) -> String {
    let digits = v.unsigned_abs().to_string();
    let sign = if v < 0 { "-" } else { "" };
    if scale == 0 {
        return format!("{sign}{digits}");
    }
    let s = scale as usize;
    let padded = format!("{digits:0>width$}", width = s + 1);
    let (int, frac) = padded.split_at(padded.len() - s);
    format!("{sign}{int}.{frac}")
}

/// Days since 1970-01-01 as the integer yyyymmdd (years 1..=9999, as a text DATE).
fn date_of_days(days: i64) -> Result<i64, String> {
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    if !(1..=9999).contains(&y) {
        return Err(format!(
            "the date {days} days from 1970-01-01 is outside the years 1 to 9999"
        ));
    }
    Ok(y * 10_000 + m * 100 + d)
}

/// The leaf column of top-level field `name`: the same name, else the one field whose
/// name equals it ignoring case.
fn find_column(
    leaves: &[std::sync::Arc<ColumnDescriptor>],
    name: &str,
    table: &str,
) -> Result<usize, String> {
    let top = |d: &ColumnDescriptor| d.path().parts().first().cloned().unwrap_or_default();
    let exact: Vec<usize> = (0..leaves.len())
        .filter(|&i| top(&leaves[i]) == name)
        .collect();
    let found = if exact.is_empty() {
        (0..leaves.len())
            .filter(|&i| top(&leaves[i]).eq_ignore_ascii_case(name))
            .collect()
    } else {
        exact
    };
    let first = match found.as_slice() {
        [] => {
            let mut names: Vec<String> = leaves.iter().map(|d| top(d)).collect();
            names.dedup();
            return Err(format!(
                "no column `{name}` (of table {table}); the file has {}",
                excerpt(&names.join(", "))
            ));
        }
        [i, ..] => *i,
    };
    if found
        .iter()
        .any(|&i| top(&leaves[i]) != top(&leaves[first]))
    {
        return Err(format!(
            "several columns named `{name}` when case is ignored: name it exactly"
        ));
    }
    if found.len() > 1 || leaves[first].path().parts().len() > 1 {
        return Err(format!(
            "column `{name}` is nested (a group), not one value a row"
        ));
    }
    if leaves[first].max_rep_level() > 0 {
        return Err(format!(
            "column `{name}` is repeated (a list), not one value a row"
        ));
    }
    Ok(first)
}

/// How file column `d` is read as declared type `ty`, or why it cannot be.
fn conversion(d: &ColumnDescriptor, ty: ColType) -> Result<Conv, String> {
    let physical = d.physical_type();
    let logical = d.logical_type_ref();
    let converted = d.converted_type();
    let in_file = describe(d);
    let refused = || format!("{in_file} in the file, the schema declares {ty}");
    let decimal =
        matches!(logical, Some(LogicalType::Decimal { .. })) || converted == ConvertedType::DECIMAL;
    let date = matches!(logical, Some(LogicalType::Date)) || converted == ConvertedType::DATE;
    let plain_int = !decimal && !date && int_annotation(d).is_some();
    match ty {
        ColType::SmallInt | ColType::Integer | ColType::BigInt => {
            if !matches!(physical, PhysicalType::INT32 | PhysicalType::INT64) || !plain_int {
                return Err(refused());
            }
            let unsigned = int_annotation(d).flatten();
            Ok(Conv::Int { unsigned })
        }
        ColType::Decimal { scale, .. } => {
            let file_scale = if decimal {
                u32::try_from(d.type_scale()).map_err(|_| refused())?
            } else if plain_int && matches!(physical, PhysicalType::INT32 | PhysicalType::INT64) {
                0
            } else {
                return Err(refused());
            };
            if decimal
                && physical == PhysicalType::FIXED_LEN_BYTE_ARRAY
                && !(1..=16).contains(&d.type_length())
            {
                return Err(format!(
                    "{in_file} in the file: a fixed length of {} bytes (at most 16 are read)",
                    d.type_length()
                ));
            }
            if decimal
                && !matches!(
                    physical,
                    PhysicalType::INT32
                        | PhysicalType::INT64
                        | PhysicalType::FIXED_LEN_BYTE_ARRAY
                        | PhysicalType::BYTE_ARRAY
                )
            {
                return Err(refused());
            }
            if file_scale > scale {
                return Err(format!(
                    "{in_file} in the file has {file_scale} decimals, more than the scale of {ty} (no rounding)"
                ));
            }
            Ok(Conv::Decimal {
                file_scale,
                shift: scale - file_scale,
            })
        }
        ColType::Date => {
            if date && physical == PhysicalType::INT32 {
                Ok(Conv::Date)
            } else {
                Err(refused())
            }
        }
        ColType::Str { .. } => {
            let text = matches!(
                logical,
                None | Some(LogicalType::String | LogicalType::Enum | LogicalType::Json)
            ) && matches!(
                converted,
                ConvertedType::NONE
                    | ConvertedType::UTF8
                    | ConvertedType::ENUM
                    | ConvertedType::JSON
            );
            if physical == PhysicalType::BYTE_ARRAY && text {
                Ok(Conv::Str)
            } else {
                Err(refused())
            }
        }
    }
}

/// For an integer column without a decimal or date annotation: Some(None) for a signed
/// integer, Some(Some(bits)) for an unsigned one of `bits`; None for any other annotation.
fn int_annotation(d: &ColumnDescriptor) -> Option<Option<u8>> {
    match (d.logical_type_ref(), d.converted_type()) {
        (
            Some(LogicalType::Integer(IntType {
                bit_width,
                is_signed,
            })),
            _,
        ) => Some((!is_signed).then_some(*bit_width as u8)),
        (Some(_), _) => None,
        (
            None,
            ConvertedType::NONE
            | ConvertedType::INT_8
            | ConvertedType::INT_16
            | ConvertedType::INT_32
            | ConvertedType::INT_64,
        ) => Some(None),
        (None, ConvertedType::UINT_8) => Some(Some(8)),
        (None, ConvertedType::UINT_16) => Some(Some(16)),
        (None, ConvertedType::UINT_32) => Some(Some(32)),
        (None, ConvertedType::UINT_64) => Some(Some(64)),
        (None, _) => None,
    }
}

/// A file column's type for a message: `INT64`, `INT32 (DATE)`, `FIXED_LEN_BYTE_ARRAY
/// (DECIMAL(20,4))`.
fn describe(d: &ColumnDescriptor) -> String {
    let physical = d.physical_type();
    let note = match (d.logical_type_ref(), d.converted_type()) {
        (Some(LogicalType::Decimal { .. }), _) | (None, ConvertedType::DECIMAL) => {
            format!("DECIMAL({},{})", d.type_precision(), d.type_scale())
        }
        (
            Some(LogicalType::Integer(IntType {
                bit_width,
                is_signed,
            })),
            _,
        ) => format!("{}INT{bit_width}", if *is_signed { "" } else { "U" }),
        (Some(l), _) => format!("{l:?}").to_uppercase(),
        (None, ConvertedType::NONE) => String::new(),
        (None, c) => c.to_string(),
    };
    if note.is_empty() {
        physical.to_string()
    } else {
        format!("{physical} ({})", excerpt(&note))
    }
}

/// The codecs this build decompresses, for the message of one it does not.
const BUILT_IN: &str = "uncompressed, SNAPPY, GZIP, LZ4, LZ4_RAW, ZSTD";

fn built_in(c: Compression) -> bool {
    matches!(
        c,
        Compression::UNCOMPRESSED
            | Compression::SNAPPY
            | Compression::GZIP(_)
            | Compression::LZ4
            | Compression::LZ4_RAW
            | Compression::ZSTD(_)
    )
}

fn codec_name(c: Compression) -> &'static str {
    match c {
        Compression::UNCOMPRESSED => "no codec",
        Compression::SNAPPY => "SNAPPY",
        Compression::GZIP(_) => "GZIP",
        Compression::LZO => "LZO",
        Compression::BROTLI(_) => "BROTLI",
        Compression::LZ4 => "LZ4",
        Compression::ZSTD(_) => "ZSTD",
        Compression::LZ4_RAW => "LZ4_RAW",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_become_calendar_dates() {
        assert_eq!(date_of_days(0), Ok(19700101));
        assert_eq!(date_of_days(-1), Ok(19691231));
        assert_eq!(date_of_days(11_016), Ok(20000229));
        assert_eq!(date_of_days(10_957), Ok(20000101));
        assert_eq!(date_of_days(-719_162), Ok(10101));
        assert!(date_of_days(-719_163).is_err());
        assert_eq!(date_of_days(2_932_896), Ok(99991231));
        assert!(date_of_days(2_932_897).is_err());
    }

    #[test]
    fn decimals_rescale_within_their_precision() {
        let ty = ColType::Decimal {
            precision: 6,
            scale: 2,
        };
        assert_eq!(rescale(125, 1, 1, ty), Ok(1250));
        assert_eq!(rescale(-5, 2, 0, ty), Ok(-5));
        assert_eq!(rescale(999_999, 2, 0, ty), Ok(999_999));
        assert!(rescale(1_000_000, 2, 0, ty)
            .unwrap_err()
            .contains("`10000.00` has more digits than DECIMAL(6,2)"));
        assert!(rescale(i128::MAX, 0, 2, ty).is_err());
        assert_eq!(show_decimal(-5, 2), "-0.05");
        assert_eq!(show_decimal(12345, 0), "12345");
    }
}
