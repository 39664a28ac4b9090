//! A database: the tables of one directory, published together, one writer at a time.
//!
//! ```text
//! <db>/LOCK             flock: exclusive for the one writer, shared for readers
//! <db>/DATABASE         the commit point (magic, version, crc, JSON body; replaced by rename)
//! <db>/g<N>/<table>/    the tables of generation N (each a normal table directory)
//! ```
//!
//! A [`DatabaseWriter`] takes the lock, writes every table of a new generation into
//! `g<N>/`, and [`DatabaseWriter::commit`] publishes them all in one rename of `DATABASE`.
//! A crash, a full disk, a missing input or Ctrl-C at any point before that rename leaves
//! the old database exactly as it was (the half-written generation is removed, or
//! collected by the next writer); after it, the new one, whole. A reader
//! ([`DatabaseSnapshot`]) holds the lock shared while it has the database open, so no
//! writer removes files from under it. Directories of tables without a `DATABASE` file
//! (`<db>/<table>/MANIFEST`, as earlier versions wrote) still open, read-only, as before.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use pmolap_os::durable::{fsync_dir, publish_via, Steps};
use pmolap_os::{FileLock, LockMode};

use crate::builder::{TableBuilder, WriteOptions};
use crate::error::{Error, Result};
use crate::format::{parse_file_name, Manifest, FORMAT_VERSION, MANIFEST, MANIFEST_TMP};
use crate::rowref::RowRef;
use crate::schema::{ColumnType, LogicalType, TypedColumn};
use crate::table::read_manifest;

/// The database file (the commit point) and its staging name.
pub const DATABASE: &str = "DATABASE";
pub const DATABASE_TMP: &str = "DATABASE.tmp";
/// The lock file of a database directory.
pub const LOCK: &str = "LOCK";
/// Magic of the database file.
pub const DB_MAGIC: [u8; 8] = *b"PMOLAPDB";
/// The version of a `DATABASE` that lists DECIMAL or DATE columns (`types`): a build
/// that reads only [`FORMAT_VERSION`] refuses it rather than answering in scaled
/// integers. A database without such columns is still written as [`FORMAT_VERSION`]
/// (byte for byte as before), and both versions are read.
pub const DB_VERSION_TYPED: u32 = FORMAT_VERSION + 1;
/// Database files larger than this are refused as foreign before being read whole.
const MAX_DB_FILE: u64 = 1 << 20;

/// One table of a database, as `DATABASE` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DbTable {
    pub name: String,
    /// The table's directory, relative to the database directory (`g3/lineorder`).
    pub dir: String,
    /// The table manifest's generation and rows (checked on open).
    pub generation: u64,
    pub rows: u64,
}

/// The body of `DATABASE`: what the committed database is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatabaseManifest {
    pub format_version: u32,
    pub generation: u64,
    pub tables: Vec<DbTable>,
    /// What the writer says the data is (e.g. `{"workload": "ssb", "sf": 1.0}`).
    #[serde(default)]
    pub meta: BTreeMap<String, serde_json::Value>,
    /// Row-reference columns (see [`crate::rowref`]); absent in databases written before.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub row_refs: Vec<RowRef>,
    /// The int columns that hold DECIMAL or DATE values ([`LogicalType`]); absent in
    /// databases written before, and in those with plain integers and strings only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub types: Vec<TypedColumn>,
}

impl DatabaseManifest {
    /// `DATABASE` bytes: magic, version u32, crc32 u32 of the body, body length u64, body.
    pub fn encode(&self) -> Result<Vec<u8>> {
        let body = serde_json::to_vec_pretty(self)
            .map_err(|e| Error::Internal(format!("database manifest does not serialise: {e}")))?;
        let mut b = Vec::with_capacity(24 + body.len());
        b.extend_from_slice(&DB_MAGIC);
        b.extend_from_slice(&self.format_version.to_le_bytes());
        b.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
        b.extend_from_slice(&(body.len() as u64).to_le_bytes());
        b.extend_from_slice(&body);
        Ok(b)
    }

    pub fn decode(path: &Path, b: &[u8]) -> Result<DatabaseManifest> {
        let bad = |p: String| Error::corrupt(path, p);
        if b.len() < 24 {
            return Err(bad(format!(
                "truncated database file: {} bytes, shorter than its 24-byte header",
                b.len()
            )));
        }
        if b[..8] != DB_MAGIC {
            return Err(bad(
                "not a pmolap database file (bad magic, expected \"PMOLAPDB\")".into(),
            ));
        }
        let word = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let version = word(8);
        if version != FORMAT_VERSION && version != DB_VERSION_TYPED {
            return Err(bad(format!(
                "database format version {version}, this build reads versions {FORMAT_VERSION} and {DB_VERSION_TYPED}"
            )));
        }
        let mut len8 = [0u8; 8];
        len8.copy_from_slice(&b[16..24]);
        let len = u64::from_le_bytes(len8);
        let body = &b[24..];
        if body.len() as u64 != len {
            return Err(bad(format!(
                "database body is {} bytes, its header says {len} (truncated or damaged)",
                body.len()
            )));
        }
        let (stored, computed) = (word(12), crc32fast::hash(body));
        if stored != computed {
            return Err(bad(format!(
                "database checksum mismatch (stored {stored:08x}, computed {computed:08x}): damaged"
            )));
        }
        let m: DatabaseManifest = serde_json::from_slice(body)
            .map_err(|e| bad(format!("database body is not valid: {e}")))?;
        if m.format_version != version || (!m.types.is_empty() && version != DB_VERSION_TYPED) {
            return Err(bad(format!(
                "database body says version {} with {} typed columns, its header {version}",
                m.format_version,
                m.types.len()
            )));
        }
        for t in &m.tables {
            if !valid_table_name(&t.name) || !t.dir.starts_with(&format!("g{}/", m.generation)) {
                return Err(bad(format!(
                    "table `{}` at `{}` is not a table of generation {}",
                    t.name, t.dir, m.generation
                )));
            }
        }
        Ok(m)
    }

    pub fn table(&self, name: &str) -> Option<&DbTable> {
        self.tables.iter().find(|t| t.name == name)
    }

    /// The logical type of `table.column`, when it is a DECIMAL or DATE column.
    pub fn logical_type(&self, table: &str, column: &str) -> Option<LogicalType> {
        self.types
            .iter()
            .find(|t| t.table == table && t.column == column)
            .map(|t| t.ty)
    }
}

/// A table name usable as a directory name: ASCII letters, digits, `_` and `-`.
pub fn valid_table_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Reads and checks `<dir>/DATABASE`; `Ok(None)` when there is none.
pub fn read_database(dir: &Path) -> Result<Option<DatabaseManifest>> {
    let path = dir.join(DATABASE);
    let meta = match std::fs::metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(&path, e)),
    };
    if meta.len() > MAX_DB_FILE {
        return Err(Error::corrupt(
            &path,
            format!(
                "{} bytes: too large for a database file (not a pmolap database?)",
                meta.len()
            ),
        ));
    }
    let b = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
    DatabaseManifest::decode(&path, &b).map(Some)
}

/// Takes the database lock; a read-only location is read without one (no writer can
/// change it either).
fn lock(dir: &Path, mode: LockMode) -> Result<Option<FileLock>> {
    let what = format!("database {}", dir.display());
    Ok(FileLock::acquire_or_read_only(
        &dir.join(LOCK),
        mode,
        &what,
    )?)
}

/// A database opened for reading: its tables' directories, and the shared lock that
/// keeps writers out while it is held.
#[derive(Debug)]
pub struct DatabaseSnapshot {
    dir: PathBuf,
    manifest: Option<DatabaseManifest>,
    tables: Vec<(String, PathBuf)>,
    _lock: Option<FileLock>,
}

impl DatabaseSnapshot {
    /// Opens `dir` for reading: `DATABASE`'s tables, or (no `DATABASE`) every
    /// `<dir>/<table>/MANIFEST`.
    pub fn open(dir: &Path) -> Result<DatabaseSnapshot> {
        if !dir.is_dir() {
            return Err(Error::Database(format!(
                "{}: not a database directory (does not exist or is not a directory)",
                dir.display()
            )));
        }
        let lock = lock(dir, LockMode::Shared)?;
        let manifest = read_database(dir)?;
        let mut tables = Vec::new();
        match &manifest {
            Some(m) => {
                for t in &m.tables {
                    tables.push((t.name.clone(), dir.join(&t.dir)));
                }
            }
            None => {
                let rd = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
                for entry in rd {
                    let entry = entry.map_err(|e| Error::io(dir, e))?;
                    let path = entry.path();
                    if path.join(MANIFEST).is_file() {
                        tables.push((entry.file_name().to_string_lossy().into_owned(), path));
                    }
                }
                tables.sort();
            }
        }
        if tables.is_empty() {
            return Err(Error::Database(format!(
                "{}: no tables here (expected a DATABASE file or <table>/MANIFEST directories, as `pmolap ssb load` writes)",
                dir.display()
            )));
        }
        Ok(DatabaseSnapshot {
            dir: dir.to_path_buf(),
            manifest,
            tables,
            _lock: lock,
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The committed database file, if the directory has one.
    pub fn manifest(&self) -> Option<&DatabaseManifest> {
        self.manifest.as_ref()
    }

    /// (name, directory) of every table, by name.
    pub fn tables(&self) -> &[(String, PathBuf)] {
        &self.tables
    }

    /// Checks a table opened from this snapshot against what `DATABASE` says of it.
    pub fn check_table(&self, name: &str, m: &Manifest) -> Result<()> {
        let Some(db) = &self.manifest else {
            return Ok(());
        };
        let Some(t) = db.table(name) else {
            return Ok(());
        };
        if t.generation != m.generation || t.rows != m.rows {
            return Err(Error::corrupt(
                self.dir.join(&t.dir),
                format!(
                    "table generation {} with {} rows, the database lists generation {} with {} rows",
                    m.generation, m.rows, t.generation, t.rows
                ),
            ));
        }
        Ok(())
    }
}

/// A table named by path: either a table directory, or `<db>/<table>` of a database
/// (resolved through its `DATABASE` file, with the database's shared lock held).
#[derive(Debug)]
pub struct TableRef {
    pub path: PathBuf,
    _db: Option<DatabaseSnapshot>,
}

/// Resolves `path` to a table directory (see [`TableRef`]).
pub fn resolve_table(path: &Path) -> Result<TableRef> {
    if path.join(MANIFEST).is_file() {
        return Ok(TableRef {
            path: path.to_path_buf(),
            _db: None,
        });
    }
    if let (Some(parent), Some(name)) = (path.parent(), path.file_name()) {
        let parent = if parent.as_os_str().is_empty() {
            Path::new(".")
        } else {
            parent
        };
        if parent.join(DATABASE).is_file() {
            let snap = DatabaseSnapshot::open(parent)?;
            let name = name.to_string_lossy();
            if let Some((_, dir)) = snap.tables.iter().find(|(n, _)| *n == name) {
                return Ok(TableRef {
                    path: dir.clone(),
                    _db: Some(snap),
                });
            }
            return Err(Error::Database(format!(
                "{}: the database {} has no table `{name}` (has: {})",
                path.display(),
                parent.display(),
                snap.tables
                    .iter()
                    .map(|(n, _)| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    }
    Err(Error::NoTable(path.to_path_buf()))
}

/// How a [`DatabaseWriter`] publishes.
#[derive(Debug, Clone, Default)]
pub struct DbWriteOptions {
    /// What the data is, recorded in `DATABASE` (`meta`).
    pub meta: BTreeMap<String, serde_json::Value>,
    /// Test hook: abort the process right after this many write/persist steps, counted
    /// over every table build and the database commit.
    #[doc(hidden)]
    pub crash_after_step: Option<u64>,
}

/// Writes a new generation of a database and publishes it whole (module docs).
#[derive(Debug)]
pub struct DatabaseWriter {
    dir: PathBuf,
    generation: u64,
    staging: PathBuf,
    tables: Vec<DbTable>,
    /// Each added table's columns and types (to check row references against).
    columns: BTreeMap<String, Vec<(String, ColumnType)>>,
    row_refs: Vec<RowRef>,
    types: Vec<TypedColumn>,
    meta: BTreeMap<String, serde_json::Value>,
    steps: Steps,
    committed: bool,
    _lock: FileLock,
}

impl DatabaseWriter {
    /// Creates `dir` if needed, takes the writer lock (failing at once if another writer
    /// or a reader holds it), removes what earlier crashed writers left, and prepares
    /// generation N+1.
    pub fn begin(dir: &Path, opts: &DbWriteOptions) -> Result<DatabaseWriter> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let lock = lock(dir, LockMode::Exclusive)?.ok_or_else(|| {
            Error::Internal("an exclusive lock is always taken or refused".into())
        })?;
        let current = read_database(dir)?;
        let keep = current.as_ref().map(|m| m.generation);
        let mut highest = keep.unwrap_or(0);
        for (g, path) in generation_dirs(dir)? {
            highest = highest.max(g);
            if Some(g) != keep {
                std::fs::remove_dir_all(&path).map_err(|e| Error::io(&path, e))?;
            }
        }
        match std::fs::remove_file(dir.join(DATABASE_TMP)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(Error::io(dir.join(DATABASE_TMP), e))
            }
            _ => {}
        }
        let generation = highest + 1;
        let staging = dir.join(format!("g{generation}"));
        std::fs::create_dir(&staging).map_err(|e| Error::io(&staging, e))?;
        Ok(DatabaseWriter {
            dir: dir.to_path_buf(),
            generation,
            staging,
            tables: Vec::new(),
            columns: BTreeMap::new(),
            row_refs: Vec::new(),
            types: Vec::new(),
            meta: opts.meta.clone(),
            steps: Steps::new(opts.crash_after_step),
            committed: false,
            _lock: lock,
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Encodes and writes table `name` of the new generation (not visible until
    /// [`commit`](Self::commit)).
    pub fn add_table(
        &mut self,
        name: &str,
        builder: TableBuilder,
        opts: &WriteOptions,
    ) -> Result<Manifest> {
        if !valid_table_name(name) {
            return Err(Error::Schema(format!(
                "table name `{name}`: use ASCII letters, digits, `_` and `-` (at most 64)"
            )));
        }
        if self.tables.iter().any(|t| t.name == name) {
            return Err(Error::Schema(format!("table `{name}` written twice")));
        }
        let dir = self.staging.join(name);
        let m = builder.finish_stepped(&dir, opts, &self.steps)?;
        self.columns.insert(
            name.to_string(),
            m.columns.iter().map(|c| (c.name.clone(), c.ty)).collect(),
        );
        self.tables.push(DbTable {
            name: name.to_string(),
            dir: format!("g{}/{name}", self.generation),
            generation: m.generation,
            rows: m.rows,
        });
        Ok(m)
    }

    /// Lists a row-reference column (published with the tables at commit). Both tables
    /// must have been added, with the key, reference and dimension key as int columns.
    pub fn add_row_ref(&mut self, r: RowRef) -> Result<()> {
        for (table, col) in [
            (&r.table, &r.key),
            (&r.table, &r.column),
            (&r.dim, &r.dim_key),
        ] {
            let ty = self
                .columns
                .get(table)
                .and_then(|cols| cols.iter().find(|(n, _)| n == col))
                .map(|(_, ty)| *ty);
            if ty != Some(ColumnType::Int) {
                return Err(Error::Schema(format!(
                    "row reference {}.{}: {table}.{col} is not an int column of a table written so far",
                    r.table, r.column
                )));
            }
        }
        self.row_refs.push(r);
        Ok(())
    }

    /// Records that `table.column` (an int column of a table written so far) holds
    /// values of logical type `ty` (published with the tables at commit).
    pub fn set_type(&mut self, table: &str, column: &str, ty: LogicalType) -> Result<()> {
        let is_int = self
            .columns
            .get(table)
            .and_then(|cols| cols.iter().find(|(n, _)| n == column))
            .is_some_and(|(_, t)| *t == ColumnType::Int);
        if !is_int {
            return Err(Error::Schema(format!(
                "{table}.{column} is not an int column of a table written so far ({ty} values are stored as integers)"
            )));
        }
        if let LogicalType::Decimal { precision, scale } = ty {
            if precision == 0 || precision > LogicalType::MAX_PRECISION || scale > precision {
                return Err(Error::Schema(format!(
                    "{table}.{column}: {ty}: precision must be 1..={} and the scale at most the precision",
                    LogicalType::MAX_PRECISION
                )));
            }
        }
        self.types
            .retain(|t| !(t.table == table && t.column == column));
        self.types.push(TypedColumn {
            table: table.into(),
            column: column.into(),
            ty,
        });
        Ok(())
    }

    /// The directory table `name` of the new generation is written to.
    pub fn table_dir(&self, name: &str) -> PathBuf {
        self.staging.join(name)
    }

    /// Publishes every added table in one step (the rename of `DATABASE`), then removes
    /// the previous generation (and the table directories of an older-layout database
    /// that the new one replaces).
    pub fn commit(mut self) -> Result<DatabaseManifest> {
        if self.tables.is_empty() {
            return Err(Error::Schema("a database needs at least one table".into()));
        }
        self.tables.sort_by(|a, b| a.name.cmp(&b.name));
        let m = DatabaseManifest {
            format_version: if self.types.is_empty() {
                FORMAT_VERSION
            } else {
                DB_VERSION_TYPED
            },
            generation: self.generation,
            tables: self.tables.clone(),
            meta: self.meta.clone(),
            row_refs: self.row_refs.clone(),
            types: self.types.clone(),
        };
        fsync_dir(&self.staging)?;
        fsync_dir(&self.dir)?;
        self.steps.step();
        publish_via(
            &self.dir.join(DATABASE),
            &self.dir.join(DATABASE_TMP),
            &m.encode()?,
            &self.steps,
        )?;
        self.committed = true;
        // Only now: what the new generation replaces.
        for (g, path) in generation_dirs(&self.dir)? {
            if g != self.generation {
                std::fs::remove_dir_all(&path).map_err(|e| Error::io(&path, e))?;
                self.steps.step();
            }
        }
        for t in &m.tables {
            let legacy = self.dir.join(&t.name);
            if is_plain_table_dir(&legacy) {
                std::fs::remove_dir_all(&legacy).map_err(|e| Error::io(&legacy, e))?;
                self.steps.step();
            }
        }
        fsync_dir(&self.dir)?;
        Ok(m)
    }
}

impl Drop for DatabaseWriter {
    fn drop(&mut self) {
        if !self.committed {
            // Error, interrupt or an early return: nothing of this generation stays.
            let _ = std::fs::remove_dir_all(&self.staging);
        }
    }
}

/// `g<N>` directories directly under `dir`.
fn generation_dirs(dir: &Path) -> Result<Vec<(u64, PathBuf)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let name = entry.file_name();
        let Some(g) = name
            .to_str()
            .and_then(|n| n.strip_prefix('g'))
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|n| n.parse::<u64>().ok())
        else {
            continue;
        };
        if entry.path().is_dir() {
            out.push((g, entry.path()));
        }
    }
    out.sort();
    Ok(out)
}

/// A table directory of the older layout holding nothing but a table's own files.
fn is_plain_table_dir(dir: &Path) -> bool {
    if read_manifest(dir).is_err() {
        return false;
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        return false;
    };
    rd.flatten().all(|e| {
        let n = e.file_name();
        let n = n.to_string_lossy();
        n == MANIFEST || n == MANIFEST_TMP || parse_file_name(&n).is_some()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn database_file_round_trips_and_rejects_damage() {
        let m = DatabaseManifest {
            format_version: DB_VERSION_TYPED,
            generation: 3,
            tables: vec![DbTable {
                name: "t".into(),
                dir: "g3/t".into(),
                generation: 1,
                rows: 10,
            }],
            meta: BTreeMap::new(),
            row_refs: vec![RowRef {
                table: "t".into(),
                key: "k".into(),
                column: "k@d".into(),
                dim: "d".into(),
                dim_key: "dk".into(),
                order: vec!["a".into()],
            }],
            types: vec![TypedColumn {
                table: "t".into(),
                column: "k".into(),
                ty: LogicalType::Decimal {
                    precision: 12,
                    scale: 2,
                },
            }],
        };
        let b = m.encode().unwrap();
        let p = Path::new("DATABASE");
        assert_eq!(DatabaseManifest::decode(p, &b).unwrap(), m);
        let mut d = b.clone();
        let last = d.len() - 3;
        d[last] ^= 1;
        assert!(DatabaseManifest::decode(p, &d)
            .unwrap_err()
            .to_string()
            .contains("checksum"));
        assert!(DatabaseManifest::decode(p, &b[..b.len() - 1])
            .unwrap_err()
            .to_string()
            .contains("truncated"));
        // Version 2 (no typed columns) still reads; typed columns under version 2 do not.
        let mut plain = m.clone();
        plain.format_version = FORMAT_VERSION;
        plain.types.clear();
        assert_eq!(
            DatabaseManifest::decode(p, &plain.encode().unwrap()).unwrap(),
            plain
        );
        let mut mixed = m.clone();
        mixed.format_version = FORMAT_VERSION;
        let e = DatabaseManifest::decode(p, &mixed.encode().unwrap()).unwrap_err();
        assert!(
            e.to_string().contains("1 typed columns, its header 2"),
            "{e}"
        );
        let mut foreign = m.clone();
        foreign.tables[0].dir = "../../etc".into();
        let e = DatabaseManifest::decode(p, &foreign.encode().unwrap()).unwrap_err();
        assert!(e.to_string().contains("not a table of generation 3"), "{e}");
    }

    #[test]
    fn table_names() {
        assert!(valid_table_name("lineorder"));
        assert!(!valid_table_name("../x"));
        assert!(!valid_table_name(""));
    }
}
