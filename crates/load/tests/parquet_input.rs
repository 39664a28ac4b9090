//! Guards the Parquet input of `pmolap_load::load_star`: a star whose tables are `.parquet`
//! files (written here with the `parquet` crate's writer: INT32/INT64 integers, DECIMAL on
//! INT32/INT64/fixed-length bytes, DATE, UTF8 strings, several row groups, every built-in
//! codec) stores exactly the values the same rows give as text; a type that does not fit,
//! a missing column, a NULL, a value out of range, a codec not built in and a corrupt file
//! each fail with one line naming file, row group/row and column, writing nothing.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use parquet::basic::Compression;
use parquet::data_type::{
    ByteArray, ByteArrayType, DoubleType, FixedLenByteArray, FixedLenByteArrayType, Int32Type,
    Int64Type,
};
use parquet::file::metadata::{ParquetMetaDataReader, ParquetMetaDataWriter, RowGroupMetaData};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use pmolap_load::{load_star, LoadOptions};
use pmolap_store::{DatabaseSnapshot, Placement, Table, Value};

const SCHEMA: &str = "
CREATE TABLE shop (
    shop_id INTEGER PRIMARY KEY,
    city    VARCHAR(12) NOT NULL,
    country CHAR(2) NOT NULL,
    opened  DATE NOT NULL
);
CREATE TABLE day (
    d     DATE PRIMARY KEY,
    month SMALLINT NOT NULL
);
CREATE TABLE sale (
    id     BIGINT NOT NULL,
    shop   INTEGER NOT NULL REFERENCES shop (shop_id),
    d      DATE NOT NULL,
    amount NUMERIC(8,2) NOT NULL,
    qty    DECIMAL(5,3) NOT NULL,
    big    DECIMAL(18,2) NOT NULL,
    memo   TEXT,
    PRIMARY KEY (id),
    FOREIGN KEY (d) REFERENCES day (d)
);
";

/// The same rows as text, for the comparison.
const SHOP_CSV: &str = "shop_id,city,country,opened
7,Lyon,FR,2001-02-03
3,Boston,US,1969-12-31
5,Paris,FR,2010-06-30
1,Lyon,FR,2020-01-01
";
const DAY_CSV: &str = "d,month
2024-03-01,3
2024-02-29,2
2024-01-15,1
";
const SALE_CSV: &str = "id,shop,d,amount,qty,big,memo
100,7,2024-02-29,12.5,1.5,-1234567890123456.78,first
101,3,2024-01-15,-0.1,0.001,0,ä b
102,5,2024-03-01,999999.9,12,9999999999999999.99,x
103,1,2024-03-01,0,-2.25,1.00,\"a,b\"
104,7,2024-01-15,3,0,42,y
";

/// A column of a Parquet file: its declaration in the message type and its values
/// (None: NULL).
#[derive(Clone)]
enum Data {
    I32(Vec<Option<i32>>),
    I64(Vec<Option<i64>>),
    F64(Vec<Option<f64>>),
    Bytes(Vec<Option<Vec<u8>>>),
    Fixed(Vec<Option<Vec<u8>>>),
}

#[derive(Clone)]
struct Col {
    decl: String,
    data: Data,
}

fn col(decl: &str, data: Data) -> Col {
    Col {
        decl: decl.to_string(),
        data,
    }
}

fn req<T: Clone>(v: &[T]) -> Vec<Option<T>> {
    v.iter().cloned().map(Some).collect()
}

fn text(v: &[&str]) -> Data {
    Data::Bytes(v.iter().map(|s| Some(s.as_bytes().to_vec())).collect())
}

/// Big-endian two's complement in `n` bytes.
fn be(v: i128, n: usize) -> Vec<u8> {
    v.to_be_bytes()[16 - n..].to_vec()
}

/// Days since 1970-01-01 of y-m-d (the proleptic Gregorian calendar).
fn days(y: i32, m: u32, d: u32) -> i32 {
    let (y, m) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let doy = (153 * m as i32 + 2) / 5 + d as i32 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Writes `cols` as a Parquet file at `path`, in row groups of `groups` rows, compressed
/// with `codec`.
fn write(path: &Path, cols: &[Col], groups: &[usize], codec: Compression) {
    let message = format!(
        "message t {{ {} }}",
        cols.iter()
            .map(|c| format!("{};", c.decl))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let schema = Arc::new(parse_message_type(&message).unwrap());
    let props = Arc::new(WriterProperties::builder().set_compression(codec).build());
    let file = std::fs::File::create(path).unwrap();
    let mut w = SerializedFileWriter::new(file, schema, props).unwrap();
    let mut start = 0;
    for &n in groups {
        let mut rg = w.next_row_group().unwrap();
        for c in cols {
            let optional = c.decl.starts_with("optional");
            let mut cw = rg.next_column().unwrap().unwrap();
            fn split<T: Clone>(v: &[Option<T>]) -> (Vec<T>, Vec<i16>) {
                (
                    v.iter().flatten().cloned().collect(),
                    v.iter().map(|x| i16::from(x.is_some())).collect(),
                )
            }
            macro_rules! put {
                ($ty:ty, $v:expr, $map:expr) => {{
                    let (vals, defs) = split(&$v[start..start + n]);
                    let vals: Vec<_> = vals.into_iter().map($map).collect();
                    cw.typed::<$ty>()
                        .write_batch(&vals, optional.then_some(&defs[..]), None)
                        .unwrap();
                }};
            }
            match &c.data {
                Data::I32(v) => put!(Int32Type, v, |x| x),
                Data::I64(v) => put!(Int64Type, v, |x| x),
                Data::F64(v) => put!(DoubleType, v, |x| x),
                Data::Bytes(v) => put!(ByteArrayType, v, ByteArray::from),
                Data::Fixed(v) => put!(FixedLenByteArrayType, v, |x: Vec<u8>| {
                    FixedLenByteArray::from(ByteArray::from(x))
                }),
            }
            cw.close().unwrap();
        }
        rg.close().unwrap();
        start += n;
    }
    w.close().unwrap();
}

/// The shop dimension: columns in another order than declared, names in upper case, one
/// column the schema does not have.
fn shop_cols() -> Vec<Col> {
    vec![
        col(
            "required binary CITY (UTF8)",
            text(&["Lyon", "Boston", "Paris", "Lyon"]),
        ),
        col("required int32 extra", Data::I32(req(&[0, 0, 0, 0]))),
        col("required int32 SHOP_ID", Data::I32(req(&[7, 3, 5, 1]))),
        col(
            "required int32 opened (DATE)",
            Data::I32(req(&[
                days(2001, 2, 3),
                days(1969, 12, 31),
                days(2010, 6, 30),
                days(2020, 1, 1),
            ])),
        ),
        col(
            "required binary country (STRING)",
            text(&["FR", "US", "FR", "FR"]),
        ),
    ]
}

fn day_cols() -> Vec<Col> {
    vec![
        col(
            "required int32 d (DATE)",
            Data::I32(req(&[
                days(2024, 3, 1),
                days(2024, 2, 29),
                days(2024, 1, 15),
            ])),
        ),
        col(
            "required int32 month (INTEGER(16,true))",
            Data::I32(req(&[3, 2, 1])),
        ),
    ]
}

/// The fact: decimals of every physical kind, the amount at a smaller scale than declared.
fn sale_cols() -> Vec<Col> {
    vec![
        col(
            "required int64 id",
            Data::I64(req(&[100, 101, 102, 103, 104])),
        ),
        col(
            "required int32 shop (INT_32)",
            Data::I32(req(&[7, 3, 5, 1, 7])),
        ),
        col(
            "required int32 d (DATE)",
            Data::I32(req(&[
                days(2024, 2, 29),
                days(2024, 1, 15),
                days(2024, 3, 1),
                days(2024, 3, 1),
                days(2024, 1, 15),
            ])),
        ),
        col(
            "required int64 amount (DECIMAL(10,1))",
            Data::I64(req(&[125, -1, 9_999_999, 0, 30])),
        ),
        col(
            "required int32 qty (DECIMAL(5,3))",
            Data::I32(req(&[1500, 1, 12000, -2250, 0])),
        ),
        col(
            "required fixed_len_byte_array(9) big (DECIMAL(20,2))",
            Data::Fixed(
                [
                    -123_456_789_012_345_678i128,
                    0,
                    999_999_999_999_999_999,
                    100,
                    4200,
                ]
                .iter()
                .map(|&v| Some(be(v, 9)))
                .collect(),
            ),
        ),
        col(
            "optional binary memo (UTF8)",
            text(&["first", "ä b", "x", "a,b", "y"]),
        ),
    ]
}

struct Case {
    _tmp: tempfile::TempDir,
    schema: PathBuf,
    from: PathBuf,
    out: PathBuf,
}

/// The star in a temp dir: shop and sale as Parquet (sale in row groups of 2, 2 and 1
/// rows, `codec`), day as CSV, the sale columns after `edit`.
fn case_with(codec: Compression, edit: impl Fn(&mut Vec<Col>)) -> Case {
    let tmp = tempfile::tempdir().unwrap();
    let from = tmp.path().join("in");
    std::fs::create_dir(&from).unwrap();
    let schema = tmp.path().join("schema.sql");
    std::fs::write(&schema, SCHEMA).unwrap();
    write(&from.join("shop.parquet"), &shop_cols(), &[4], codec);
    std::fs::write(from.join("day.csv"), DAY_CSV).unwrap();
    let mut sale = sale_cols();
    edit(&mut sale);
    write(&from.join("sale.parquet"), &sale, &[2, 2, 1], codec);
    let out = tmp.path().join("db");
    Case {
        _tmp: tmp,
        schema,
        from,
        out,
    }
}

fn case(edit: impl Fn(&mut Vec<Col>)) -> Case {
    case_with(Compression::SNAPPY, edit)
}

fn load(c: &Case) -> pmolap_load::Result<Vec<pmolap_load::LoadedTable>> {
    load_star(&c.schema, &c.from, &c.out, &LoadOptions::default(), &|_| {})
}

fn open(db: &Path, name: &str) -> Table {
    let snap = DatabaseSnapshot::open(db).unwrap();
    let dir = snap
        .tables()
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, d)| d.clone())
        .unwrap();
    Table::open(&dir, &Placement::home()).unwrap()
}

/// Every column of a stored table, its values as text.
fn dump(db: &Path, name: &str) -> Vec<(String, Vec<String>)> {
    let t = open(db, name);
    t.schema()
        .columns
        .iter()
        .map(|c| {
            let col = t.column(&c.name).unwrap();
            let vals = (0..t.rows())
                .map(|r| match col.value_or_null(r) {
                    Some(Value::Int(v)) => v.to_string(),
                    Some(Value::Str(s)) => s.to_string(),
                    None => "NULL".to_string(),
                })
                .collect();
            (c.name.clone(), vals)
        })
        .collect()
}

#[test]
fn a_parquet_star_stores_the_values_the_same_rows_give_as_text() {
    let c = case(|_| {});
    let loaded = load(&c).unwrap();
    assert_eq!(loaded[0].file.file_name().unwrap(), "shop.parquet");
    assert_eq!(loaded[2].rows, 5);

    let tmp = tempfile::tempdir().unwrap();
    let from = tmp.path().join("in");
    std::fs::create_dir(&from).unwrap();
    for (f, t) in [
        ("shop.csv", SHOP_CSV),
        ("day.csv", DAY_CSV),
        ("sale.csv", SALE_CSV),
    ] {
        std::fs::write(from.join(f), t).unwrap();
    }
    let out = tmp.path().join("db");
    load_star(&c.schema, &from, &out, &LoadOptions::default(), &|_| {}).unwrap();
    for t in ["shop", "day", "sale"] {
        assert_eq!(dump(&c.out, t), dump(&out, t), "table {t}");
    }
    // And the values are the ones meant (not two paths agreeing on something else).
    let sale = dump(&c.out, "sale");
    let get = |n: &str| sale.iter().find(|(c, _)| c == n).unwrap().1.clone();
    assert_eq!(get("amount"), ["1250", "-10", "99999990", "0", "300"]);
    assert_eq!(get("big")[0], "-123456789012345678");
    assert_eq!(get("d")[0], "20240229");
    assert_eq!(
        dump(&c.out, "shop")[3].1,
        ["20200101", "20010203", "20100630", "19691231"]
    );
}

#[test]
fn every_built_in_codec_reads() {
    for codec in [
        Compression::UNCOMPRESSED,
        Compression::SNAPPY,
        Compression::GZIP(Default::default()),
        Compression::LZ4,
        Compression::LZ4_RAW,
        Compression::ZSTD(Default::default()),
    ] {
        let c = case_with(codec, |_| {});
        let loaded = load(&c).unwrap_or_else(|e| panic!("{codec}: {e}"));
        assert_eq!(loaded[2].rows, 5, "{codec}");
        assert_eq!(dump(&c.out, "sale")[3].1[2], "99999990", "{codec}");
    }
}

/// Loads `c`, expects one line containing every `parts`, and no database written.
fn fails(c: &Case, parts: &[&str]) {
    let e = load(c).expect_err("the load should fail").to_string();
    assert!(!e.contains('\n'), "not one line: {e}");
    for p in parts {
        assert!(e.contains(p), "`{p}` not in: {e}");
    }
    assert!(
        DatabaseSnapshot::open(&c.out).is_err(),
        "a database was written: {e}"
    );
}

/// Replaces the sale column named `name` by `with`.
fn replace(name: &'static str, with: Col) -> impl Fn(&mut Vec<Col>) {
    move |cols| {
        let i = cols
            .iter()
            .position(|c| c.decl.split_whitespace().nth(2) == Some(name))
            .unwrap();
        cols[i] = with.clone();
    }
}

#[test]
fn nulls_load_as_the_same_rows_with_empty_text_fields_do_and_not_null_refuses_them() {
    // NULLs at the start, inside and at the end of row groups (2, 2, 1 rows), between
    // integers read a batch at a time.
    let memo = Data::Bytes(vec![
        Some(b"a".to_vec()),
        Some(b"b".to_vec()),
        Some(b"c".to_vec()),
        None,
        Some(b"e".to_vec()),
    ]);
    let amount = Data::I64(vec![None, Some(-1), Some(9_999_999), None, None]);
    let c = case(|cols| {
        replace("memo", col("optional binary memo (UTF8)", memo.clone()))(cols);
        replace(
            "amount",
            col("optional int64 amount (DECIMAL(10,1))", amount.clone()),
        )(cols);
    });
    let schema = SCHEMA.replace("amount NUMERIC(8,2) NOT NULL", "amount NUMERIC(8,2)");
    assert_ne!(schema, SCHEMA, "the test's schema declares amount NOT NULL");
    std::fs::write(&c.schema, &schema).unwrap();
    load(&c).unwrap();

    let tmp = tempfile::tempdir().unwrap();
    let from = tmp.path().join("in");
    std::fs::create_dir(&from).unwrap();
    let sale = "id,shop,d,amount,qty,big,memo
100,7,2024-02-29,,1.5,-1234567890123456.78,a
101,3,2024-01-15,-0.1,0.001,0,b
102,5,2024-03-01,999999.9,12,9999999999999999.99,c
103,1,2024-03-01,,-2.25,1.00,
104,7,2024-01-15,,0,42,e
";
    for (f, t) in [
        ("shop.csv", SHOP_CSV),
        ("day.csv", DAY_CSV),
        ("sale.csv", sale),
    ] {
        std::fs::write(from.join(f), t).unwrap();
    }
    let out = tmp.path().join("db");
    load_star(&c.schema, &from, &out, &LoadOptions::default(), &|_| {}).unwrap();
    assert_eq!(dump(&c.out, "sale"), dump(&out, "sale"));
    let t = open(&c.out, "sale");
    let nulls = |name: &str| {
        let col = t.column(name).unwrap();
        (0..t.rows()).map(|r| col.is_null(r)).collect::<Vec<_>>()
    };
    assert_eq!(nulls("amount"), [true, false, false, true, true]);
    assert_eq!(nulls("memo"), [false, false, false, true, false]);
    assert_eq!(nulls("qty"), [false; 5]);

    let qty = Data::I32(vec![Some(1), None, Some(1), Some(1), Some(1)]);
    let c = case(replace(
        "qty",
        col("optional int32 qty (DECIMAL(5,3))", qty),
    ));
    fails(
        &c,
        &["sale.parquet: row group 0, row 2: column `qty`: NULL in a NOT NULL column"],
    );
}

#[test]
fn a_physical_or_logical_type_that_does_not_fit_is_refused() {
    let f64s = Data::F64(req(&[1.0, 2.0, 3.0, 4.0, 5.0]));
    let c = case(replace("amount", col("required double amount", f64s)));
    fails(
        &c,
        &["sale.parquet: column `amount`: DOUBLE in the file, the schema declares DECIMAL(8,2)"],
    );
    let plain = Data::I32(req(&[1, 2, 3, 4, 5]));
    let c = case(replace("d", col("required int32 d", plain.clone())));
    fails(
        &c,
        &["column `d`: INT32 in the file, the schema declares DATE"],
    );
    let c = case(replace("memo", col("optional int32 memo", plain.clone())));
    fails(
        &c,
        &["column `memo`: INT32 in the file, the schema declares TEXT"],
    );
    let c = case(replace("shop", col("required int32 shop (DATE)", plain)));
    fails(
        &c,
        &["column `shop`: INT32 (DATE) in the file, the schema declares INTEGER"],
    );
    let c = case(replace(
        "id",
        col(
            "required binary id (UTF8)",
            text(&["1", "2", "3", "4", "5"]),
        ),
    ));
    fails(
        &c,
        &["column `id`: BYTE_ARRAY (UTF8) in the file, the schema declares BIGINT"],
    );
    // More decimals in the file than the declared scale: no rounding.
    let q = Data::I64(req(&[1, 2, 3, 4, 5]));
    let c = case(replace(
        "amount",
        col("required int64 amount (DECIMAL(10,3))", q),
    ));
    fails(
        &c,
        &["column `amount`: INT64 (DECIMAL(10,3)) in the file has 3 decimals, more than the scale of DECIMAL(8,2)"],
    );
}

#[test]
fn a_missing_column_is_refused_naming_the_columns_there() {
    let c = case(|cols| {
        cols.retain(|c| !c.decl.contains(" qty "));
    });
    fails(
        &c,
        &["sale.parquet: no column `qty` (of table sale); the file has id, shop, d, amount, big, memo"],
    );
}

#[test]
fn a_value_that_does_not_fit_names_row_group_row_and_column() {
    // 10^6 with one decimal in the file is 10^8 at scale 2: more than DECIMAL(8,2).
    let amount = Data::I64(req(&[1, 2, 3, 4, 10_000_000]));
    let c = case(replace(
        "amount",
        col("required int64 amount (DECIMAL(10,1))", amount),
    ));
    fails(
        &c,
        &["sale.parquet: row group 2, row 5: column `amount`: `1000000.0` has more digits than DECIMAL(8,2) holds"],
    );
    let month = Data::I32(req(&[3, 40_000, 1]));
    let tmp = case(|_| {});
    write(
        &tmp.from.join("day.parquet"),
        &[day_cols()[0].clone(), col("required int32 month", month)],
        &[3],
        Compression::UNCOMPRESSED,
    );
    std::fs::remove_file(tmp.from.join("day.csv")).unwrap();
    fails(
        &tmp,
        &["day.parquet: row group 0, row 2: column `month`: `40000` is outside the SMALLINT range -32768..=32767"],
    );
    let bad_utf8 = Data::Bytes(req(&[
        b"ok".to_vec(),
        vec![0xff, 0xfe],
        b"x".to_vec(),
        b"y".to_vec(),
        b"z".to_vec(),
    ]));
    let c = case(replace(
        "memo",
        col("optional binary memo (UTF8)", bad_utf8),
    ));
    fails(
        &c,
        &["row group 0, row 2: column `memo`: the value is not UTF-8 text"],
    );
    let far = Data::I32(req(&[0, 0, 0, 0, 3_000_000]));
    let c = case(replace("d", col("required int32 d (DATE)", far)));
    fails(
        &c,
        &[
            "row group 2, row 5: column `d`",
            "outside the years 1 to 9999",
        ],
    );
}

#[test]
fn key_errors_name_the_parquet_row() {
    let c = case(replace(
        "shop",
        col("required int32 shop", Data::I32(req(&[7, 3, 8, 1, 7]))),
    ));
    fails(
        &c,
        &["sale.parquet: row 3: column 2 `shop`: foreign key 8 has no row in shop (shop_id)"],
    );
    let c = case(replace(
        "id",
        col("required int64 id", Data::I64(req(&[1, 2, 3, 2, 5]))),
    ));
    fails(
        &c,
        &["sale.parquet: row 4: column 1 `id`: duplicate primary key (id) — row 2 has it too"],
    );
}

/// The file at `path` with every column chunk's codec in its footer set to `codec` (the
/// pages stay as written: a reader that looks at the codec first never gets to them).
fn forge_codec(path: &Path, codec: Compression) {
    let bytes = std::fs::read(path).unwrap();
    let meta = ParquetMetaDataReader::new()
        .parse_and_finish(&std::fs::File::open(path).unwrap())
        .unwrap();
    let footer = u32::from_le_bytes(bytes[bytes.len() - 8..bytes.len() - 4].try_into().unwrap());
    let body = &bytes[..bytes.len() - 8 - footer as usize];
    let groups: Vec<RowGroupMetaData> = meta
        .row_groups()
        .iter()
        .map(|rg| {
            let cols = rg
                .columns()
                .iter()
                .map(|c| {
                    c.clone()
                        .into_builder()
                        .set_compression(codec)
                        .build()
                        .unwrap()
                })
                .collect();
            rg.clone()
                .into_builder()
                .set_column_metadata(cols)
                .build()
                .unwrap()
        })
        .collect();
    let meta = meta.into_builder().set_row_groups(groups).build();
    let mut out = body.to_vec();
    ParquetMetaDataWriter::new(&mut out, &meta)
        .finish()
        .unwrap();
    std::fs::write(path, out).unwrap();
}

#[test]
fn a_codec_not_built_in_is_refused_naming_it() {
    let c = case_with(Compression::UNCOMPRESSED, |_| {});
    forge_codec(
        &c.from.join("sale.parquet"),
        Compression::BROTLI(Default::default()),
    );
    fails(
        &c,
        &["sale.parquet: row group 0, column `id`: compressed with BROTLI, a codec this build does not read"],
    );
    forge_codec(&c.from.join("sale.parquet"), Compression::LZO);
    fails(&c, &["compressed with LZO"]);
}

#[test]
fn a_corrupt_file_is_one_line_and_writes_nothing() {
    let c = case(|_| {});
    let p = c.from.join("sale.parquet");
    let good = std::fs::read(&p).unwrap();
    std::fs::write(&p, b"id,shop\n1,2\n").unwrap();
    fails(&c, &["sale.parquet: not a Parquet file this loader reads"]);
    std::fs::write(&p, &good[..good.len() / 2]).unwrap();
    fails(&c, &["sale.parquet: not a Parquet file this loader reads"]);
    std::fs::write(&p, b"").unwrap();
    fails(&c, &["sale.parquet"]);
    // Garbled bytes anywhere: an error or (a value that happens to decode) a table, one
    // line each, never a panic (read without a load: no database writes, many files).
    let star = pmolap_load::parse_schema(SCHEMA, "schema.sql").unwrap();
    let sale = star.fact();
    let schema = pmolap_load::text::store_schema(sale).unwrap();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut failed = 0;
    for _ in 0..1000 {
        let mut bytes = good.clone();
        for _ in 0..1 + next() % 4 {
            let i = (next() % bytes.len() as u64) as usize;
            bytes[i] = next() as u8;
        }
        std::fs::write(&p, &bytes).unwrap();
        if let Err(e) = pmolap_load::source::read_table(&p, sale, &schema) {
            let e = e.to_string();
            assert!(!e.contains('\n'), "not one line: {e}");
            assert!(e.starts_with(&p.display().to_string()), "{e}");
            failed += 1;
        }
    }
    assert!(failed > 500, "only {failed} of 1000 garbled files failed");
}
