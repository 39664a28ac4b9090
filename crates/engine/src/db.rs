//! `Database`: the column-store tables of one directory (`<dir>/<table>/MANIFEST`, as
//! `pmolap ssb load` writes them), opened on the tiers a placement names, with the join
//! indexes built on first use and kept.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use pmolap_store::table::OpenOptions;
use pmolap_store::{DatabaseSnapshot, Placement, Table};

use crate::error::{Error, Result};
use crate::joinindex::JoinIndex;
use crate::query::IndexChoice;

type IndexKey = (String, String, IndexChoice);

/// Open tables by name.
#[derive(Debug)]
pub struct Database {
    dir: PathBuf,
    tables: BTreeMap<String, Table>,
    indexes: Mutex<HashMap<IndexKey, Arc<JoinIndex>>>,
    snapshot: DatabaseSnapshot,
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
        Ok(Database {
            dir: dir.to_path_buf(),
            tables,
            indexes: Mutex::new(HashMap::new()),
            snapshot,
        })
    }

    /// What the database's writer recorded about the data (`DATABASE`'s `meta`), if the
    /// directory has a database file.
    pub fn meta(&self, key: &str) -> Option<&serde_json::Value> {
        self.snapshot.manifest().and_then(|m| m.meta.get(key))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
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
