//! `Database`: the column-store tables of one directory (`<dir>/<table>/MANIFEST`, as
//! `pmolap load` and `pmolap ssb load` write them), opened on the tiers a placement names, with the join
//! indexes built on first use and kept.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use pmolap_store::table::OpenOptions;
use pmolap_store::{ColumnType, DatabaseSnapshot, Placement, RowRef, Table};

use crate::error::{Error, Result};
use crate::joinindex::JoinIndex;
use crate::query::{IndexChoice, Query};

type IndexKey = (String, String, IndexChoice);

/// The synonyms of a database `ssb load` wrote before they were recorded in `DATABASE`
/// (the one SSB name left in the engine, for those databases only): the SSB query texts
/// name the date table `ddate`.
pub const LEGACY_SSB_SYNONYMS: [(&str, &str); 1] = [("ddate", "date")];

/// Open tables by name.
#[derive(Debug)]
pub struct Database {
    dir: PathBuf,
    tables: BTreeMap<String, Table>,
    indexes: Mutex<HashMap<IndexKey, Arc<JoinIndex>>>,
    snapshot: DatabaseSnapshot,
    /// The row-reference columns `DATABASE` lists, checked against the tables.
    row_refs: Vec<RowRef>,
}

impl Database {
    /// Opens every table of the database `dir` on the tiers `placement` names, holding
    /// the database's shared lock while the `Database` lives (no writer replaces it
    /// underneath).
    pub fn open(dir: &Path, placement: &Placement, opts: &OpenOptions) -> Result<Database> {
        Database::open_placed(dir, &|_| Ok(placement.clone()), opts)
    }

    /// [`Database::open`] with a placement of its own for each table (by name), e.g. from
    /// a placement file naming `table.column.kind` structures.
    pub fn open_placed(
        dir: &Path,
        placement_of: &dyn Fn(&str) -> Result<Placement>,
        opts: &OpenOptions,
    ) -> Result<Database> {
        let snapshot = DatabaseSnapshot::open(dir)?;
        let mut tables = BTreeMap::new();
        for (name, path) in snapshot.tables() {
            let t = Table::open_with(path, &placement_of(name)?, opts)?;
            snapshot.check_table(name, t.manifest())?;
            tables.insert(name.clone(), t);
        }
        let row_refs = snapshot
            .manifest()
            .map_or(&[][..], |m| &m.row_refs)
            .to_vec();
        for r in &row_refs {
            check_row_ref(dir, &tables, r)?;
        }
        Ok(Database {
            dir: dir.to_path_buf(),
            tables,
            indexes: Mutex::new(HashMap::new()),
            snapshot,
            row_refs,
        })
    }

    /// The row-reference column of `table.key` into `dim.dim_key`, if the database has one.
    pub fn row_ref(&self, table: &str, key: &str, dim: &str, dim_key: &str) -> Option<&RowRef> {
        self.row_refs
            .iter()
            .find(|r| r.table == table && r.key == key && r.dim == dim && r.dim_key == dim_key)
    }

    /// What the database's writer recorded about the data (`DATABASE`'s `meta`), if the
    /// directory has a database file.
    pub fn meta(&self, key: &str) -> Option<&serde_json::Value> {
        self.snapshot.manifest().and_then(|m| m.meta.get(key))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The DECIMAL or DATE type of `table.column`, as `DATABASE` lists it (None: a plain
    /// integer or string column).
    pub fn logical_type(&self, table: &str, column: &str) -> Option<pmolap_store::LogicalType> {
        self.snapshot
            .manifest()
            .and_then(|m| m.logical_type(table, column))
    }

    /// Whether any column is a DECIMAL or DATE column.
    pub fn has_logical_types(&self) -> bool {
        self.snapshot
            .manifest()
            .is_some_and(|m| !m.types.is_empty())
    }

    /// The fact table: the one `DATABASE`'s writer named (`meta.fact`, as `pmolap load`
    /// and `ssb load` record it), else the one its row-reference columns are in (a
    /// database written before `meta.fact`), else the largest table.
    pub fn fact_table(&self) -> Option<(&str, &Table)> {
        let named = self
            .meta("fact")
            .and_then(|v| v.as_str())
            .and_then(|n| self.tables.get_key_value(n));
        named
            .or_else(|| {
                self.row_refs
                    .first()
                    .and_then(|r| self.tables.get_key_value(&r.table))
            })
            .or_else(|| self.tables.iter().max_by_key(|(_, t)| t.rows()))
            .map(|(n, t)| (n.as_str(), t))
    }

    /// `q` on a fact table: as it is when it names one, else on [`Database::fact_table`]
    /// (a YAML query without `fact:`).
    pub fn with_fact<'q>(&self, q: &'q Query) -> Result<Cow<'q, Query>> {
        if !q.fact.is_empty() {
            return Ok(Cow::Borrowed(q));
        }
        let (fact, _) = self
            .fact_table()
            .ok_or_else(|| Error::Database(format!("{}: an empty database", self.dir.display())))?;
        Ok(Cow::Owned(Query {
            fact: fact.to_string(),
            ..q.clone()
        }))
    }

    /// The table another name means (`meta.synonyms`, from the schema file's `CREATE
    /// VIEW other AS SELECT * FROM table`), if that table exists. A database `ssb load`
    /// wrote before synonyms were recorded (`meta.workload` `ssb`, no `meta.synonyms`)
    /// has those of `workloads/ssb/schema.sql` ([`LEGACY_SSB_SYNONYMS`]).
    pub fn synonym(&self, name: &str) -> Option<String> {
        let table = match self.meta("synonyms") {
            Some(s) => s.get(name)?.as_str()?,
            None if self.meta("workload").and_then(|w| w.as_str()) == Some("ssb") => {
                LEGACY_SSB_SYNONYMS
                    .iter()
                    .find(|(other, _)| *other == name)?
                    .1
            }
            None => return None,
        };
        self.tables.contains_key(table).then(|| table.to_string())
    }

    /// The table `name`.
    pub fn table(&self, name: &str) -> Result<&Table> {
        self.tables.get(name).ok_or_else(|| {
            Error::Query(format!(
                "no table `{name}` in {} (have: {})",
                self.dir.display(),
                self.tables.keys().cloned().collect::<Vec<_>>().join(", ")
            ))
        })
    }

    pub fn tables(&self) -> impl Iterator<Item = (&str, &Table)> {
        self.tables.iter().map(|(n, t)| (n.as_str(), t))
    }

    /// Unmaps every structure mapped from its file from this process's page tables
    /// ([`Table::release_pages`]): after it, dropping the files' pages leaves the
    /// database cold (page-cache control).
    pub fn release_pages(&self) {
        for t in self.tables.values() {
            t.release_pages();
        }
    }

    /// The frames holding the structures mapped from their files and those holding the
    /// copies, over every table ([`pmolap_store::Table::frames`]); `None` where this
    /// process may not read frame numbers. Read between runs, never inside a timed one.
    pub fn frames(&self) -> Option<(pmolap_tier::frames::Frames, pmolap_tier::frames::Frames)> {
        let mut out = (
            pmolap_tier::frames::Frames::default(),
            pmolap_tier::frames::Frames::default(),
        );
        for t in self.tables.values() {
            let (m, c) = t.frames()?;
            out.0 = out.0.plus(&m);
            out.1 = out.1.plus(&c);
        }
        Some(out)
    }

    /// Every file of every table (for page-cache control).
    pub fn files(&self) -> Vec<PathBuf> {
        self.tables
            .values()
            .flat_map(|t| {
                t.manifest()
                    .file_names()
                    .map(|f| t.dir().join(f))
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// The join index of `table.key` (built now when absent; the second value says so,
    /// with the build time in ms).
    pub fn join_index(
        &self,
        table: &str,
        key: &str,
        choice: IndexChoice,
    ) -> Result<(Arc<JoinIndex>, Option<f64>)> {
        let k = (table.to_string(), key.to_string(), choice);
        if let Some(ix) = self.lock().get(&k) {
            return Ok((ix.clone(), None));
        }
        let t0 = Instant::now();
        let col = self.table(table)?.column(key)?;
        let ix = Arc::new(JoinIndex::build(table, col, choice)?);
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        self.lock().insert(k, ix.clone());
        Ok((ix, Some(ms)))
    }

    /// Drops the cached join indexes (the next query builds them again).
    pub fn clear_join_indexes(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<IndexKey, Arc<JoinIndex>>> {
        // A panic while holding the lock leaves only a cache behind: keep using it.
        self.indexes.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Fails naming the problem unless `r`'s tables and int columns exist and every reference
/// is a row of the dimension or its row count (a dangling key).
fn check_row_ref(dir: &Path, tables: &BTreeMap<String, Table>, r: &RowRef) -> Result<()> {
    let bad = |why: String| {
        Error::Query(format!(
            "{}: row reference {}.{}: {why}",
            dir.display(),
            r.table,
            r.column
        ))
    };
    let table = |name: &str| {
        tables
            .get(name)
            .ok_or_else(|| bad(format!("no table `{name}`")))
    };
    let (fact, dim) = (table(&r.table)?, table(&r.dim)?);
    for (t, c) in [(fact, &r.key), (fact, &r.column), (dim, &r.dim_key)] {
        match t.column_type(c) {
            Ok(ColumnType::Int) => {}
            _ => return Err(bad(format!("no int column `{c}`"))),
        }
    }
    // The dictionary alone is verified here; the references themselves on first use.
    let refs = fact
        .dictionary(&r.column)
        .map_err(|e| bad(e.to_string()))?
        .ints();
    let rows = dim.rows() as i64;
    if refs.first().is_some_and(|v| v < 0) || refs.last().is_some_and(|v| v > rows) {
        return Err(bad(format!(
            "references {:?}..={:?} leave the {rows} rows of `{}`",
            refs.first(),
            refs.last(),
            r.dim
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use pmolap_store::{DatabaseWriter, DbWriteOptions, Schema, TableBuilder, WriteOptions};

    use super::*;

    /// A database whose fact `f` references dimension `d` (2 rows) by `refs`.
    fn db_with_refs(dir: &Path, refs: &[i64]) {
        let mut w = DatabaseWriter::begin(dir, &DbWriteOptions::default()).unwrap();
        let mut d = TableBuilder::new(Schema::new([("dk", ColumnType::Int)]).unwrap());
        d.extend_ints(0, &[10, 20]).unwrap();
        w.add_table("d", d, &WriteOptions::default()).unwrap();
        let mut f = TableBuilder::new(Schema::new([("fk", ColumnType::Int)]).unwrap());
        f.extend_ints(0, &vec![10; refs.len()]).unwrap();
        f.add_int_column("fk@d", refs.to_vec()).unwrap();
        w.add_table("f", f, &WriteOptions::default()).unwrap();
        w.add_row_ref(RowRef {
            table: "f".into(),
            key: "fk".into(),
            column: "fk@d".into(),
            dim: "d".into(),
            dim_key: "dk".into(),
            order: vec![],
        })
        .unwrap();
        w.commit().unwrap();
    }

    /// References within the dimension (or its row count, a dangling key) open; one past
    /// it is refused naming the reference, and the writer refuses a missing column.
    #[test]
    fn row_refs_past_the_dimension_are_refused() {
        let open = |d: &Path| Database::open(d, &Placement::home(), &OpenOptions::default());
        let ok = tempfile::tempdir().unwrap();
        db_with_refs(ok.path(), &[0, 1, 2]);
        let db = open(ok.path()).unwrap();
        assert!(db.row_ref("f", "fk", "d", "dk").is_some());
        assert!(db.row_ref("f", "fk", "d", "other").is_none());
        let bad = tempfile::tempdir().unwrap();
        db_with_refs(bad.path(), &[0, 3]);
        let e = open(bad.path()).unwrap_err().to_string();
        assert!(
            e.contains("row reference f.fk@d") && e.contains("2 rows"),
            "{e}"
        );
        let missing = tempfile::tempdir().unwrap();
        let mut w = DatabaseWriter::begin(missing.path(), &DbWriteOptions::default()).unwrap();
        let mut f = TableBuilder::new(Schema::new([("fk", ColumnType::Int)]).unwrap());
        f.extend_ints(0, &[1]).unwrap();
        w.add_table("f", f, &WriteOptions::default()).unwrap();
        let e = w
            .add_row_ref(RowRef {
                table: "f".into(),
                key: "fk".into(),
                column: "fk@d".into(),
                dim: "f".into(),
                dim_key: "fk".into(),
                order: vec![],
            })
            .unwrap_err()
            .to_string();
        assert!(e.contains("f.fk@d is not an int column"), "{e}");
    }
}
