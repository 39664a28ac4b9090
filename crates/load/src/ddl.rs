//! The schema file: `CREATE TABLE` statements (parsed by `sqlparser`) with their column
//! types, `NOT NULL`, `PRIMARY KEY` and `REFERENCES` / `FOREIGN KEY … REFERENCES`, turned
//! into a [`StarSchema`]: the fact table (the one whose foreign keys reference the others)
//! and its dimensions.

use sqlparser::ast::{
    self, CharacterLength, ColumnOption, DataType, ExactNumberInfo, Ident, ObjectName, Statement,
    TableConstraint,
};
use sqlparser::dialect::GenericDialect;
use sqlparser::parser::Parser;

use crate::{Error, Result};

/// A column type of the schema file, as the loader checks and stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColType {
    SmallInt,
    Integer,
    BigInt,
    /// `DECIMAL(p,s)` / `NUMERIC(p,s)`: exact, stored as the value times 10^s.
    Decimal {
        precision: u32,
        scale: u32,
    },
    /// Stored as the integer yyyymmdd.
    Date,
    /// `CHAR(n)` / `VARCHAR(n)` (at most `n` characters; None: unbounded) and `TEXT`.
    Str {
        max_chars: Option<u64>,
    },
}

impl ColType {
    /// Whether the store keeps it as an int column (else a string column).
    pub fn is_int(self) -> bool {
        !matches!(self, ColType::Str { .. })
    }
}

impl std::fmt::Display for ColType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ColType::SmallInt => f.write_str("SMALLINT"),
            ColType::Integer => f.write_str("INTEGER"),
            ColType::BigInt => f.write_str("BIGINT"),
            ColType::Decimal { precision, scale } => write!(f, "DECIMAL({precision},{scale})"),
            ColType::Date => f.write_str("DATE"),
            ColType::Str { max_chars: Some(n) } => write!(f, "VARCHAR({n})"),
            ColType::Str { max_chars: None } => f.write_str("TEXT"),
        }
    }
}

/// One column of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnSpec {
    pub name: String,
    pub ty: ColType,
    pub not_null: bool,
}

/// `column REFERENCES table(column)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForeignKey {
    pub column: String,
    pub table: String,
    pub references: String,
}

/// One `CREATE TABLE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSpec {
    pub name: String,
    pub columns: Vec<ColumnSpec>,
    /// The primary key's columns (empty: none declared).
    pub primary_key: Vec<String>,
    pub foreign_keys: Vec<ForeignKey>,
}

impl TableSpec {
    pub fn column(&self, name: &str) -> Option<&ColumnSpec> {
        self.columns.iter().find(|c| c.name == name)
    }
}

/// The tables of a star: one fact table whose foreign keys reference every other table
/// (a dimension) by its primary key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StarSchema {
    /// Dimensions first (in the order of the file), the fact table last.
    pub tables: Vec<TableSpec>,
    /// Other names of tables (`CREATE VIEW other AS SELECT * FROM table`): (other name,
    /// table), in the order of the file. SQL on the database may use either.
    pub synonyms: Vec<(String, String)>,
}

impl StarSchema {
    pub fn fact(&self) -> &TableSpec {
        &self.tables[self.tables.len() - 1]
    }

    pub fn dimensions(&self) -> &[TableSpec] {
        &self.tables[..self.tables.len() - 1]
    }
}

/// The largest schema file, in bytes.
pub const MAX_SCHEMA_BYTES: u64 = 1 << 20;

/// An identifier as the database names it: unquoted ones in lower case (SQL folds them),
/// quoted ones as written.
fn name(i: &Ident) -> String {
    match i.quote_style {
        None => i.value.to_ascii_lowercase(),
        Some(_) => i.value.clone(),
    }
}

fn object_name(n: &ObjectName) -> Option<String> {
    match n.0.as_slice() {
        [p] => p.as_ident().map(name),
        _ => None,
    }
}

fn at(i: &Ident) -> String {
    let s = i.span.start;
    if s.line == 0 {
        String::new()
    } else {
        format!("line {} column {}: ", s.line, s.column)
    }
}

/// Parses the schema file's text (`origin` names it in errors) into a star schema.
pub fn parse_schema(text: &str, origin: &str) -> Result<StarSchema> {
    // One line: a statement echoed in a message may hold line breaks (in a string).
    let bad = |m: String| Error::Schema(format!("{origin}: {}", crate::value::one_line(&m)));
    let statements = Parser::parse_sql(&GenericDialect {}, text)
        .map_err(|e| bad(format!("not SQL the loader reads: {e}")))?;
    let mut tables: Vec<TableSpec> = Vec::new();
    let mut synonyms: Vec<(String, String)> = Vec::new();
    for s in &statements {
        if let Statement::CreateView(v) = s {
            synonyms.push(synonym(v).map_err(bad)?);
            continue;
        }
        let Statement::CreateTable(ct) = s else {
            let t = s.to_string();
            let t: String = t.chars().take(60).collect();
            return Err(bad(format!(
                "`{t}`: only CREATE TABLE statements (and CREATE VIEW other AS SELECT * FROM table) belong in a schema file"
            )));
        };
        let t = table(ct).map_err(bad)?;
        if tables.iter().any(|o| o.name == t.name) {
            return Err(bad(format!("table `{}` is created twice", t.name)));
        }
        tables.push(t);
    }
    let mut star = star(tables).map_err(bad)?;
    for (other, table) in &synonyms {
        if star.tables.iter().any(|t| t.name == *other)
            || synonyms.iter().filter(|(o, _)| o == other).count() > 1
        {
            return Err(bad(format!(
                "`{other}` names a table or another view already"
            )));
        }
        if !star.tables.iter().any(|t| t.name == *table) {
            return Err(bad(format!(
                "view {other}: `{table}` is not a table of this schema"
            )));
        }
    }
    star.synonyms = synonyms;
    Ok(star)
}

/// `CREATE VIEW other AS SELECT * FROM table`, another name of a table, as (other,
/// table); any other view is refused.
fn synonym(v: &ast::CreateView) -> Result<(String, String), String> {
    let shown: String = v.to_string().chars().take(60).collect();
    let refused = || {
        format!("`{shown}`: a view of a schema file is another name of a table: CREATE VIEW other AS SELECT * FROM table")
    };
    let other = object_name(&v.name)
        .filter(|n| pmolap_store::database::valid_table_name(n))
        .ok_or_else(refused)?;
    let ast::SetExpr::Select(sel) = v.query.body.as_ref() else {
        return Err(refused());
    };
    let [from] = sel.from.as_slice() else {
        return Err(refused());
    };
    let ast::TableFactor::Table {
        name: table,
        alias: None,
        ..
    } = &from.relation
    else {
        return Err(refused());
    };
    let table_name = object_name(table).ok_or_else(refused)?;
    // Nothing but `SELECT * FROM table` (no columns, filter, join or modifier).
    let plain = matches!(sel.projection.as_slice(), [ast::SelectItem::Wildcard(_)])
        && v.columns.is_empty()
        && !v.materialized
        && v.query.to_string() == format!("SELECT * FROM {table}");
    if !plain {
        return Err(refused());
    }
    Ok((other, table_name))
}

/// One `CREATE TABLE` as a [`TableSpec`]; errors are messages without the file name.
fn table(ct: &ast::CreateTable) -> Result<TableSpec, String> {
    let tname = object_name(&ct.name)
        .filter(|n| pmolap_store::database::valid_table_name(n))
        .ok_or_else(|| {
            format!(
                "table name `{}`: use one unqualified name of ASCII letters, digits, `_` and `-`",
                ct.name
            )
        })?;
    if ct.query.is_some() || ct.like.is_some() || ct.clone.is_some() {
        return Err(format!(
            "table {tname}: CREATE TABLE … AS / LIKE / CLONE is not a schema definition"
        ));
    }
    if ct.columns.is_empty() {
        return Err(format!("table {tname} has no columns"));
    }
    let mut t = TableSpec {
        name: tname.clone(),
        columns: Vec::new(),
        primary_key: Vec::new(),
        foreign_keys: Vec::new(),
    };
    let set_pk = |t: &mut TableSpec, cols: Vec<String>, where_: &str| {
        if !t.primary_key.is_empty() {
            return Err(format!("table {tname}: {where_}a second PRIMARY KEY"));
        }
        t.primary_key = cols;
        Ok(())
    };
    for c in &ct.columns {
        let cname = name(&c.name);
        if cname.contains('@') || cname.is_empty() {
            return Err(format!(
                "{}table {tname}: column name `{cname}`",
                at(&c.name)
            ));
        }
        if t.column(&cname).is_some() {
            return Err(format!(
                "{}table {tname}: column `{cname}` twice",
                at(&c.name)
            ));
        }
        let ty = col_type(&c.data_type)
            .map_err(|m| format!("{}table {tname}, column {cname}: {m}", at(&c.name)))?;
        let mut not_null = false;
        for o in &c.options {
            match &o.option {
                ColumnOption::NotNull => not_null = true,
                ColumnOption::Null => {}
                ColumnOption::PrimaryKey(_) => {
                    set_pk(&mut t, vec![cname.clone()], &at(&c.name))?;
                    not_null = true;
                }
                ColumnOption::ForeignKey(fk) => {
                    let table = object_name(&fk.foreign_table).ok_or_else(|| {
                        format!("{}table {tname}: REFERENCES `{}`", at(&c.name), fk.foreign_table)
                    })?;
                    let references = match fk.referred_columns.as_slice() {
                        [r] => name(r),
                        [] => String::new(), // the referenced table's primary key
                        _ => {
                            return Err(format!(
                                "{}table {tname}, column {cname}: REFERENCES names one column",
                                at(&c.name)
                            ))
                        }
                    };
                    t.foreign_keys.push(ForeignKey {
                        column: cname.clone(),
                        table,
                        references,
                    });
                }
                other => {
                    return Err(format!(
                        "{}table {tname}, column {cname}: `{other}` is not supported (NOT NULL, NULL, PRIMARY KEY, REFERENCES)",
                        at(&c.name)
                    ))
                }
            }
        }
        t.columns.push(ColumnSpec {
            name: cname,
            ty,
            not_null,
        });
    }
    for tc in &ct.constraints {
        match tc {
            TableConstraint::PrimaryKey(pk) => {
                let mut cols = Vec::new();
                for ic in &pk.columns {
                    match &ic.column.expr {
                        ast::Expr::Identifier(i) => cols.push(name(i)),
                        e => return Err(format!("table {tname}: PRIMARY KEY part `{e}`")),
                    }
                }
                set_pk(&mut t, cols, "")?;
            }
            TableConstraint::ForeignKey(fk) => {
                let table = object_name(&fk.foreign_table)
                    .ok_or_else(|| format!("table {tname}: REFERENCES `{}`", fk.foreign_table))?;
                let ([c], refs) = (fk.columns.as_slice(), fk.referred_columns.as_slice()) else {
                    return Err(format!(
                        "table {tname}: FOREIGN KEY of {} columns (one column per foreign key)",
                        fk.columns.len()
                    ));
                };
                let references = match refs {
                    [r] => name(r),
                    [] => String::new(),
                    _ => return Err(format!("table {tname}: FOREIGN KEY references {} columns", refs.len())),
                };
                t.foreign_keys.push(ForeignKey {
                    column: name(c),
                    table,
                    references,
                });
            }
            other => {
                return Err(format!(
                    "table {tname}: the constraint `{other}` is not supported (PRIMARY KEY, FOREIGN KEY)"
                ))
            }
        }
    }
    for k in &t.primary_key {
        let Some(c) = t.columns.iter_mut().find(|c| c.name == *k) else {
            return Err(format!("table {tname}: PRIMARY KEY names no column `{k}`"));
        };
        c.not_null = true;
    }
    for fk in &t.foreign_keys {
        if t.column(&fk.column).is_none() {
            return Err(format!(
                "table {tname}: FOREIGN KEY names no column `{}`",
                fk.column
            ));
        }
    }
    Ok(t)
}

/// The loader's type of a declared SQL type.
fn col_type(d: &DataType) -> Result<ColType, String> {
    let chars = |l: &Option<CharacterLength>| -> Result<Option<u64>, String> {
        match l {
            None => Ok(None),
            Some(CharacterLength::IntegerLength { length, .. }) => Ok(Some(*length)),
            Some(CharacterLength::Max) => Ok(None),
        }
    };
    Ok(match d {
        DataType::SmallInt(_) | DataType::Int2(_) => ColType::SmallInt,
        DataType::Int(_) | DataType::Integer(_) | DataType::Int4(_) => ColType::Integer,
        DataType::BigInt(_) | DataType::Int8(_) => ColType::BigInt,
        DataType::Decimal(info) | DataType::Numeric(info) | DataType::Dec(info) => {
            // DuckDB's default for a bare DECIMAL is (18,3).
            let (p, s) = match *info {
                ExactNumberInfo::None => (18, 3),
                ExactNumberInfo::Precision(p) => (p, 0),
                ExactNumberInfo::PrecisionAndScale(p, s) => {
                    (p, u64::try_from(s).map_err(|_| format!("{d}: a negative scale"))?)
                }
            };
            let max = pmolap_store::LogicalType::MAX_PRECISION as u64;
            if p == 0 || p > max || s > p {
                return Err(format!(
                    "{d}: precision 1..={max} (values are exact 64-bit scaled integers) and a scale at most the precision"
                ));
            }
            ColType::Decimal {
                precision: p as u32,
                scale: s as u32,
            }
        }
        DataType::Date => ColType::Date,
        DataType::Char(l) | DataType::Character(l) | DataType::Varchar(l) => ColType::Str {
            max_chars: chars(l)?,
        },
        DataType::Text | DataType::String(_) => ColType::Str { max_chars: None },
        other => {
            return Err(format!(
                "type {other} is not supported (SMALLINT, INTEGER, BIGINT, DECIMAL(p,s), NUMERIC(p,s), DATE, CHAR(n), VARCHAR(n), TEXT)"
            ))
        }
    })
}

/// Orders `tables` as a star (dimensions, then the fact) and checks its keys.
fn star(mut tables: Vec<TableSpec>) -> Result<StarSchema, String> {
    if tables.is_empty() {
        return Err("no CREATE TABLE statement".into());
    }
    let with_fks: Vec<usize> = (0..tables.len())
        .filter(|&i| !tables[i].foreign_keys.is_empty())
        .collect();
    let fact = match with_fks.as_slice() {
        [f] => *f,
        [] if tables.len() == 1 => 0,
        [] => {
            return Err(format!(
            "{} tables but no foreign key: declare the fact table's keys with REFERENCES dim(key)",
            tables.len()
        ))
        }
        several => {
            let names: Vec<&str> = several.iter().map(|&i| tables[i].name.as_str()).collect();
            return Err(format!(
                "foreign keys in several tables ({}): a star has them in the fact table only (snowflakes are not supported yet)",
                names.join(", ")
            ));
        }
    };
    let f = tables.remove(fact);
    for fk in &f.foreign_keys {
        let Some(d) = tables.iter().find(|t| t.name == fk.table) else {
            return Err(format!(
                "{}.{} references `{}`, which is not a dimension of this schema",
                f.name, fk.column, fk.table
            ));
        };
        let [pk] = d.primary_key.as_slice() else {
            return Err(format!(
                "dimension {} needs a primary key of one column for {}.{} to reference",
                d.name, f.name, fk.column
            ));
        };
        if !fk.references.is_empty() && fk.references != *pk {
            return Err(format!(
                "{}.{} references {}.{}, which is not its primary key {pk}",
                f.name, fk.column, d.name, fk.references
            ));
        }
        let (fty, dty) = (
            f.column(&fk.column).map(|c| c.ty),
            d.column(pk).map(|c| c.ty),
        );
        let int_key = |t: Option<ColType>| {
            matches!(
                t,
                Some(ColType::SmallInt | ColType::Integer | ColType::BigInt | ColType::Date)
            )
        };
        if !int_key(dty)
            || !int_key(fty)
            || (fty == Some(ColType::Date)) != (dty == Some(ColType::Date))
        {
            return Err(format!(
                "{}.{} references {}.{pk}: both must be integer columns, or both DATE (string and decimal keys are not supported yet)",
                f.name, fk.column, d.name
            ));
        }
        if f.foreign_keys
            .iter()
            .filter(|o| o.table == fk.table)
            .count()
            > 1
        {
            return Err(format!(
                "{} references {} twice (role-playing dimensions are not supported yet)",
                f.name, d.name
            ));
        }
    }
    for d in &tables {
        if !f.foreign_keys.iter().any(|fk| fk.table == d.name) {
            return Err(format!(
                "table {} is not referenced by the fact table {}: every other table must be a dimension of it",
                d.name, f.name
            ));
        }
    }
    tables.push(f);
    Ok(StarSchema {
        tables,
        synonyms: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const RETAIL: &str = "
        CREATE TABLE store (s_id INTEGER PRIMARY KEY, s_city VARCHAR(20) NOT NULL);
        CREATE TABLE day (d_date DATE PRIMARY KEY, d_month CHAR(7));
        CREATE TABLE sales (
            sa_store INTEGER NOT NULL REFERENCES store(s_id),
            sa_date DATE NOT NULL,
            sa_price DECIMAL(9,2) NOT NULL,
            sa_qty NUMERIC(6,1),
            sa_note TEXT,
            FOREIGN KEY (sa_date) REFERENCES day (d_date)
        );";

    /// The fact table is found by its foreign keys; types, NOT NULL and keys are read.
    #[test]
    fn a_star_is_read() {
        let s = parse_schema(RETAIL, "s.sql").unwrap();
        assert_eq!(s.fact().name, "sales");
        assert_eq!(s.dimensions().len(), 2);
        let f = s.fact();
        assert_eq!(f.foreign_keys.len(), 2);
        assert_eq!(f.foreign_keys[1].table, "day");
        assert_eq!(
            f.column("sa_price").unwrap().ty,
            ColType::Decimal {
                precision: 9,
                scale: 2
            }
        );
        assert!(!f.column("sa_qty").unwrap().not_null);
        assert_eq!(s.dimensions()[1].primary_key, vec!["d_date".to_string()]);
        assert!(s.dimensions()[1].column("d_date").unwrap().not_null);
    }

    /// `CREATE VIEW other AS SELECT * FROM table` is another name of a table; any other
    /// view, or one naming no table of the schema or a name taken, is refused.
    #[test]
    fn views_are_other_names_of_tables() {
        let s = parse_schema(
            &format!("{RETAIL}\nCREATE VIEW dday AS SELECT * FROM day;"),
            "s.sql",
        )
        .unwrap();
        assert_eq!(s.synonyms, vec![("dday".to_string(), "day".to_string())]);
        for (view, want) in [
            (
                "CREATE VIEW v AS SELECT d_date FROM day",
                "another name of a table",
            ),
            (
                "CREATE VIEW v AS SELECT * FROM day WHERE d_month = 'x'",
                "another name",
            ),
            ("CREATE VIEW v AS SELECT * FROM day, store", "another name"),
            (
                "CREATE MATERIALIZED VIEW v AS SELECT * FROM day",
                "another name",
            ),
            (
                "CREATE VIEW v AS SELECT * FROM nope",
                "`nope` is not a table",
            ),
            (
                "CREATE VIEW store AS SELECT * FROM day",
                "names a table or another view",
            ),
        ] {
            let e = parse_schema(&format!("{RETAIL}\n{view};"), "s.sql")
                .unwrap_err()
                .to_string();
            assert!(e.starts_with("s.sql: ") && e.contains(want), "{view}: {e}");
        }
    }

    /// What is outside the supported shape is one line naming the file and the problem.
    #[test]
    fn bad_schemas_are_refused() {
        for (ddl, want) in [
            ("CREATE TABLE t (a INTEGER", "not SQL"),
            ("SELECT 1", "only CREATE TABLE"),
            ("CREATE TABLE t (a FLOAT)", "type FLOAT is not supported"),
            (
                "CREATE TABLE t (a INT DEFAULT 'x\ny')",
                "`DEFAULT 'x\\ny'` is not supported",
            ),
            ("CREATE TABLE t (a DECIMAL(30,2))", "precision 1..=18"),
            (
                "CREATE TABLE d (k INT PRIMARY KEY); CREATE TABLE f (x INT REFERENCES e(k))",
                "not a dimension",
            ),
            (
                "CREATE TABLE d (k INT); CREATE TABLE f (x INT REFERENCES d(k))",
                "needs a primary key",
            ),
            (
                "CREATE TABLE d (k INT PRIMARY KEY); CREATE TABLE e (k INT PRIMARY KEY); CREATE TABLE f (x INT REFERENCES d(k))",
                "table e is not referenced",
            ),
            (
                "CREATE TABLE d (k VARCHAR(3) PRIMARY KEY); CREATE TABLE f (x VARCHAR(3) REFERENCES d(k))",
                "both must be integer",
            ),
        ] {
            let e = parse_schema(ddl, "s.sql").unwrap_err().to_string();
            assert!(e.starts_with("s.sql: ") && e.contains(want), "{ddl}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
