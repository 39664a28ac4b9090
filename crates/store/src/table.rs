//! `Table`: a committed table opened from its directory, each structure of each column on
//! the tier its [`Placement`] names; row lookups, value-range selections, and the access
//! counters of every structure.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use pmolap_tier::{RegionOptions, TierSpec};
use serde::Serialize;

use crate::counters::AccessCounts;
use crate::datavector::{Bitmap, DataVector};
use crate::dictionary::Dictionary;
use crate::error::{Error, Result};
use crate::format::{ColumnEncoding, Manifest, StructureKind, MANIFEST};
use crate::inverted::InvertedIndex;
use crate::placement::{Location, Placement};
use crate::schema::{ColumnType, Schema, Value};
use crate::structure::{OpenCtx, Structure, StructureInfo};

/// How to open a table.
#[derive(Debug, Clone)]
pub struct OpenOptions {
    /// Verify every payload checksum and the deep invariants (sortedness, ids in range):
    /// lazily, each column's structures on the first use of the column
    /// ([`Table::column`], [`Table::columns`], [`Table::row`]), before any of its values
    /// is read; [`Table::verify`] checks every column now. On by default; off trusts the
    /// bytes. The header, size, kind, column, generation and the header's payload
    /// checksum against the manifest's are checked at open either way.
    pub verify_checksums: bool,
    /// Options for regions made on other tiers (prefault, huge pages).
    pub region: RegionOptions,
    /// Open each column's structures — the file opened, its header checked against the
    /// manifest, mapped in place or copied onto its tier, prefaulted when `region` says
    /// so — on the first use of the column ([`Table::column`], [`Table::dictionary`],
    /// [`Table::columns`], [`Table::verify`], ...), not every structure at open: opening
    /// then reads the manifest alone, a column no query uses costs nothing, and a missing
    /// or damaged file of it fails only a use of it. Off by default: every structure is
    /// on its tier when the open returns (what a timed benchmark wants).
    pub lazy: bool,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            verify_checksums: true,
            region: RegionOptions::default(),
            lazy: false,
        }
    }
}

/// One column: dictionary, data vector and (optional) inverted index. A column handed
/// out by a [`Table`] has had its structures verified (when the table verifies).
#[derive(Debug)]
pub struct Column {
    name: String,
    ty: ColumnType,
    pub dict: Dictionary,
    pub dv: DataVector,
    pub index: Option<InvertedIndex>,
    /// Rows holding NULL: value id `dict.len()` (one past the dictionary) when any.
    nulls: u64,
    /// The deferred checks of each structure (None: not verified, as asked).
    checks: Option<Checks>,
}

/// The deferred checks of one column's structures, each run at most once (a failure is
/// reported again, the same, on every later use).
#[derive(Debug, Default)]
struct Checks {
    dict: OnceLock<Result<()>>,
    dv: OnceLock<Result<()>>,
    index: OnceLock<Result<()>>,
}

/// Runs `check` once per `cell`, keeping its outcome.
fn once(cell: &OnceLock<Result<()>>, check: impl FnOnce() -> Result<()>) -> Result<()> {
    match cell.get_or_init(check) {
        Ok(()) => Ok(()),
        Err(e) => Err(replay(e)),
    }
}

/// A kept error, again: the same message (the variant kept where a caller may match
/// on it).
fn replay(e: &Error) -> Error {
    match e {
        Error::Corrupt { path, problem } => Error::corrupt(path.clone(), problem.clone()),
        Error::Io { path, source } => Error::io(
            path.clone(),
            std::io::Error::new(source.kind(), source.to_string()),
        ),
        Error::Placement(p) => Error::Placement(p.clone()),
        Error::NoTable(p) => Error::NoTable(p.clone()),
        other => Error::Database(other.to_string()),
    }
}

impl Column {
    /// Verifies the dictionary (payload checksum, order), once. Unverified, its pages
    /// are faulted in where a lazy open left that to its first use.
    fn verify_dict(&self) -> Result<()> {
        match &self.checks {
            Some(c) => once(&c.dict, || self.dict.check_deep()),
            None => {
                self.dict.s.fault_in();
                Ok(())
            }
        }
    }

    /// Verifies every structure of the column (payload checksums, order, ids in range),
    /// each once. Unverified, their pages are faulted in where a lazy open left that to
    /// their first use.
    fn verify(&self) -> Result<()> {
        self.verify_dict()?;
        let Some(c) = &self.checks else {
            self.dv.s.fault_in();
            if let Some(ix) = &self.index {
                ix.s.fault_in();
            }
            return Ok(());
        };
        once(&c.dv, || self.dv.check_deep(self.ids()))?;
        if let Some(ix) = &self.index {
            once(&c.index, || ix.check_deep(self.dv.len()))?;
        }
        Ok(())
    }

    /// Zeroes the counters of every structure of the column.
    fn reset_counts(&self) {
        self.dict.reset_counts();
        self.dv.reset_counts();
        if let Some(i) = &self.index {
            i.reset_counts();
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn ty(&self) -> ColumnType {
        self.ty
    }

    pub fn rows(&self) -> usize {
        self.dv.len()
    }

    /// Rows holding NULL (as the manifest says).
    pub fn nulls(&self) -> u64 {
        self.nulls
    }

    /// The value id of NULL — one past the dictionary — when the column holds NULLs.
    pub fn null_id(&self) -> Option<u32> {
        (self.nulls > 0).then_some(self.dict.len() as u32)
    }

    /// Value ids the data vector may hold: the dictionary's and, with NULLs, the NULL id.
    pub fn ids(&self) -> usize {
        self.dict.len() + usize::from(self.nulls > 0)
    }

    /// Whether `row` is NULL.
    pub fn is_null(&self, row: usize) -> bool {
        self.null_id() == Some(self.dv.get(row))
    }

    /// The value of `row`, None for NULL.
    pub fn value_or_null(&self, row: usize) -> Option<Value<'_>> {
        let id = self.dv.get(row);
        (self.null_id() != Some(id)).then(|| self.dict.get(id))
    }

    /// The value id of `row`.
    pub fn value_id(&self, row: usize) -> u32 {
        self.dv.get(row)
    }

    /// The value of `row` (a data-vector lookup and a dictionary lookup). Panics on a
    /// NULL row ([`Column::value_or_null`] reads those).
    pub fn value(&self, row: usize) -> Value<'_> {
        self.dict.get(self.dv.get(row))
    }

    /// Rows (ascending) with `lo <= value <= hi`: through the inverted index when the
    /// column has one, else by a scan of the data vector.
    pub fn rows_between(&self, lo: Value<'_>, hi: Value<'_>) -> Result<Vec<u32>> {
        let Some(codes) = self.dict.code_range(lo, hi)? else {
            return Ok(Vec::new());
        };
        Ok(match &self.index {
            Some(ix) => {
                let mut rows = ix.rows_of_range(codes).to_vec();
                rows.sort_unstable();
                rows
            }
            None => self.dv.scan_range(codes),
        })
    }

    /// As [`Column::rows_between`], as a bitmap (always a data-vector scan).
    pub fn bitmap_between(&self, lo: Value<'_>, hi: Value<'_>) -> Result<Bitmap> {
        Ok(match self.dict.code_range(lo, hi)? {
            Some(codes) => self.dv.scan_range_bitmap(codes),
            None => Bitmap {
                words: vec![0; self.rows().div_ceil(64)],
                len: self.rows(),
            },
        })
    }

    /// Counters of each structure.
    pub fn counts(&self) -> ColumnCounts {
        ColumnCounts {
            column: self.name.clone(),
            dictionary: self.dict.counts(),
            data_vector: self.dv.counts(),
            inverted_index: self.index.as_ref().map(|i| i.counts()),
        }
    }

    /// The pages counted runs touched in each structure, by step ([`crate::pagelog`]).
    pub fn pages(&self) -> ColumnPages {
        ColumnPages {
            column: self.name.clone(),
            dictionary: self.dict.page_steps(),
            data_vector: self.dv.page_steps(),
            inverted_index: self
                .index
                .as_ref()
                .map(|i| i.page_steps())
                .unwrap_or_default(),
        }
    }
}

/// The pages counted runs touched in one column's structures, by step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ColumnPages {
    pub column: String,
    pub dictionary: Vec<crate::pagelog::PageStep>,
    pub data_vector: Vec<crate::pagelog::PageStep>,
    pub inverted_index: Vec<crate::pagelog::PageStep>,
}

/// The access counters of one column's structures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ColumnCounts {
    pub column: String,
    pub dictionary: AccessCounts,
    pub data_vector: AccessCounts,
    pub inverted_index: Option<AccessCounts>,
}

/// What an open table is and where each of its structures lives.
#[derive(Debug, Clone, Serialize)]
pub struct TableInfo {
    pub dir: PathBuf,
    pub format_version: u32,
    pub generation: u64,
    pub rows: u64,
    pub columns: Vec<ColumnInfo>,
}

/// One column of [`TableInfo`].
#[derive(Debug, Clone, Serialize)]
pub struct ColumnInfo {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: ColumnType,
    pub dict_len: u64,
    /// How values map to ids (`dictionary` or `frame`).
    pub encoding: ColumnEncoding,
    pub bit_width: u32,
    pub has_index: bool,
    /// Rows holding NULL (absent: none).
    #[serde(skip_serializing_if = "is_zero")]
    pub nulls: u64,
    pub structures: Vec<StructureDesc>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One structure of [`ColumnInfo`]: which one, and where it lives.
#[derive(Debug, Clone, Serialize)]
pub struct StructureDesc {
    pub kind: StructureKind,
    #[serde(flatten)]
    pub info: StructureInfo,
}

/// A committed table, open.
#[derive(Debug)]
pub struct Table {
    dir: PathBuf,
    manifest: Manifest,
    schema: Schema,
    /// Each column of the manifest, opened at open or (lazy) on its first use; an open
    /// that failed fails every use of the column, the same.
    columns: Vec<OnceLock<Result<Column>>>,
    /// Where each column's structures go, by [`KINDS`] (None: mapped in place).
    targets: Vec<[Option<TierSpec>; 3]>,
    opts: OpenOptions,
    counting: Arc<AtomicBool>,
    /// The database's shared lock, when the table was named as `<db>/<table>`.
    _db: Option<crate::database::TableRef>,
}

/// The structure kinds of a column, in the order of [`Table`]'s targets.
const KINDS: [StructureKind; 3] = [
    StructureKind::Dictionary,
    StructureKind::DataVector,
    StructureKind::InvertedIndex,
];

/// Reads and checks `dir/MANIFEST`.
pub fn read_manifest(dir: &Path) -> Result<Manifest> {
    let path = dir.join(MANIFEST);
    let bytes = std::fs::read(&path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::NoTable(dir.to_path_buf()),
        _ => Error::io(&path, e),
    })?;
    Manifest::decode(&path, &bytes)
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Where `placement` puts each structure the manifest lists (None: mapped in place from
/// the table directory `dir`); fails on a placement that cannot be carried out (a
/// `file:` directory that does not exist, a devdax device named twice). Each `file:`
/// directory is looked at once.
fn resolve_targets(
    dir: &Path,
    manifest: &Manifest,
    placement: &Placement,
) -> Result<Vec<[Option<TierSpec>; 3]>> {
    let mut dirs: Vec<(PathBuf, bool)> = Vec::new();
    let mut devdax_used: Vec<PathBuf> = Vec::new();
    let mut out = Vec::with_capacity(manifest.columns.len());
    for c in &manifest.columns {
        let mut t: [Option<TierSpec>; 3] = Default::default();
        for (slot, kind) in t.iter_mut().zip(KINDS) {
            if c.file(kind).is_none() {
                continue;
            }
            *slot = match placement.location(&c.name, kind) {
                Location::Home => None,
                Location::Tier(spec @ TierSpec::File { path }) => {
                    let same = match dirs.iter().find(|(p, _)| p == path) {
                        Some(&(_, same)) => same,
                        None => {
                            if !path.is_dir() {
                                return Err(Error::Placement(format!(
                                    "{spec} (for {} of `{}`) must name an existing directory: each structure gets its own file there",
                                    kind, c.name
                                )));
                            }
                            let same = same_dir(path, dir);
                            dirs.push((path.clone(), same));
                            same
                        }
                    };
                    (!same).then(|| spec.clone())
                }
                Location::Tier(spec @ TierSpec::DevDax { path }) => {
                    if devdax_used.contains(path) {
                        return Err(Error::Placement(format!(
                            "{spec} holds another structure already; a devdax device holds one structure"
                        )));
                    }
                    devdax_used.push(path.clone());
                    Some(spec.clone())
                }
                Location::Tier(spec) => Some(spec.clone()),
            };
        }
        out.push(t);
    }
    Ok(out)
}

impl Table {
    /// Opens the table in `dir` with checksums verified.
    pub fn open(dir: &Path, placement: &Placement) -> Result<Table> {
        Table::open_with(dir, placement, &OpenOptions::default())
    }

    /// Opens the table in `dir`: every structure listed in the manifest (and only
    /// those) is mapped in place or copied onto the tier `placement` names for it — now,
    /// or on the first use of its column when `opts.lazy`. `dir` may also name a table
    /// of a database as `<db>/<table>`: it is found through the database file, and the
    /// database's shared lock is held while the table lives.
    pub fn open_with(dir: &Path, placement: &Placement, opts: &OpenOptions) -> Result<Table> {
        let tref = crate::database::resolve_table(dir)?;
        let dir = tref.path.clone();
        let manifest = read_manifest(&dir)?;
        let targets = resolve_targets(&dir, &manifest, placement)?;
        let table = Table {
            schema: manifest.schema(),
            columns: manifest.columns.iter().map(|_| OnceLock::new()).collect(),
            manifest,
            dir,
            targets,
            opts: opts.clone(),
            counting: Arc::new(AtomicBool::new(false)),
            _db: Some(tref),
        };
        if !opts.lazy {
            for ci in 0..table.columns.len() {
                table.opened(ci)?;
            }
        }
        Ok(table)
    }

    /// Column `ci`, its structures opened now if they are not yet (not verified).
    fn opened(&self, ci: usize) -> Result<&Column> {
        match self.columns[ci].get_or_init(|| self.open_column(ci)) {
            Ok(c) => Ok(c),
            Err(e) => Err(replay(e)),
        }
    }

    /// Opens the structures of column `ci` onto their tiers, checking everything the
    /// headers and the manifest say of them (the checks that read every payload byte
    /// wait for [`Column::verify`]).
    fn open_column(&self, ci: usize) -> Result<Column> {
        let dir = self.dir.as_path();
        let mpath = dir.join(MANIFEST);
        let c = &self.manifest.columns[ci];
        let ctx = OpenCtx {
            region: &self.opts.region,
            counting: self.counting.clone(),
            lazy: self.opts.lazy,
            verified: self.opts.verify_checksums,
        };
        let open_kind = |k: usize| -> Result<Option<Structure>> {
            let kind = KINDS[k];
            let Some(entry) = c.file(kind) else {
                return Ok(None);
            };
            if entry.file.contains('/') || entry.file.starts_with('.') {
                return Err(Error::corrupt(
                    &mpath,
                    format!("file name `{}` is not a plain name", entry.file),
                ));
            }
            Structure::open(
                &dir.join(&entry.file),
                entry,
                kind.code(c.ty, c.encoding),
                ci as u32,
                self.manifest.generation,
                self.targets[ci][k].as_ref(),
                &ctx,
            )
            .map(Some)
        };
        let missing = |k: StructureKind| {
            Error::corrupt(&mpath, format!("column `{}` lists no {k} file", c.name))
        };
        let dict = open_kind(0)?.ok_or_else(|| missing(StructureKind::Dictionary))?;
        let dv = open_kind(1)?.ok_or_else(|| missing(StructureKind::DataVector))?;
        let inv = open_kind(2)?;
        if inv.is_some() != c.has_index {
            return Err(Error::corrupt(
                &mpath,
                format!("column `{}`: has_index disagrees with its files", c.name),
            ));
        }
        let dict = Dictionary::new(dict, c.ty)?;
        let dv = DataVector::new(dv)?;
        if c.nulls > self.manifest.rows {
            return Err(Error::corrupt(
                &mpath,
                format!(
                    "column `{}` has {} NULLs in {} rows",
                    c.name, c.nulls, self.manifest.rows
                ),
            ));
        }
        if dict.len() as u64 != c.dict_len
            || dv.len() as u64 != self.manifest.rows
            || dv.width() != c.bit_width
        {
            return Err(Error::corrupt(
                &dv.info().file,
                format!(
                    "column `{}` disagrees with the manifest (dictionary {} vs {}, rows {} vs {}, width {} vs {})",
                    c.name,
                    dict.len(),
                    c.dict_len,
                    dv.len(),
                    self.manifest.rows,
                    dv.width(),
                    c.bit_width
                ),
            ));
        }
        let index = inv.map(|s| InvertedIndex::new(s, dv.len())).transpose()?;
        if let Some(ix) = &index {
            if ix.len() as u64 != c.ids() {
                return Err(Error::corrupt(
                    &ix.info().file,
                    format!(
                        "inverted index has {} values, the column {} value ids",
                        ix.len(),
                        c.ids()
                    ),
                ));
            }
        }
        let column = Column {
            name: c.name.clone(),
            ty: c.ty,
            dict,
            dv,
            index,
            nulls: c.nulls,
            checks: self.opts.verify_checksums.then(Checks::default),
        };
        // Open-time validation scans must not show up in the counters.
        column.reset_counts();
        Ok(column)
    }

    /// The columns opened so far, with their positions.
    fn opened_so_far(&self) -> impl Iterator<Item = (usize, &Column)> {
        self.columns
            .iter()
            .enumerate()
            .filter_map(|(i, c)| match c.get() {
                Some(Ok(c)) => Some((i, c)),
                _ => None,
            })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    pub fn rows(&self) -> usize {
        self.manifest.rows as usize
    }

    pub fn generation(&self) -> u64 {
        self.manifest.generation
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Unmaps every structure opened so far that is mapped from its file from this
    /// process's page tables (copies stay as they are), so that dropping the files' pages
    /// from the page cache afterwards leaves none of them in memory: what a cold
    /// measurement needs after an open that read some payload through the mappings (a
    /// string dictionary's offsets and text are checked when it opens). The bytes read
    /// the same afterwards; the next touch faults them in again.
    pub fn release_pages(&self) {
        for (_, c) in self.opened_so_far() {
            c.dict.s.release_pages();
            c.dv.s.release_pages();
            if let Some(ix) = &c.index {
                ix.s.release_pages();
            }
        }
    }

    /// The frames holding this table's opened structures ([`pmolap_tier::frames::census`]):
    /// those mapped from their files, then the copies; `None` where this process may not
    /// read frame numbers.
    pub fn frames(&self) -> Option<(pmolap_tier::frames::Frames, pmolap_tier::frames::Frames)> {
        let mut mapped = Vec::new();
        let mut copies = Vec::new();
        for (_, c) in self.opened_so_far() {
            let ix = c.index.as_ref().map(|ix| &ix.s);
            for s in [Some(&c.dict.s), Some(&c.dv.s), ix].into_iter().flatten() {
                let (in_place, bytes) = s.mapping();
                if in_place { &mut mapped } else { &mut copies }.push(bytes);
            }
        }
        Some((
            pmolap_tier::frames::census(mapped)?,
            pmolap_tier::frames::census(copies)?,
        ))
    }

    /// Every column, each opened and verified first (see [`OpenOptions`]); the first
    /// damaged one fails.
    pub fn columns(&self) -> Result<Vec<&Column>> {
        (0..self.columns.len())
            .map(|ci| {
                let c = self.opened(ci)?;
                c.verify()?;
                Ok(c)
            })
            .collect()
    }

    /// The names of the columns, in order (from the manifest: nothing opened).
    pub fn column_names(&self) -> impl Iterator<Item = &str> {
        self.manifest.columns.iter().map(|c| c.name.as_str())
    }

    /// The column called `name`, its structures opened (when lazy) and verified on this
    /// first use (see [`OpenOptions`]): a missing or damaged one fails here, naming its
    /// file.
    pub fn column(&self, name: &str) -> Result<&Column> {
        let c = self.opened(self.find(name)?)?;
        c.verify()?;
        Ok(c)
    }

    /// The dictionary of column `name`, it alone verified (its data vector and index
    /// are verified on the column's first use).
    pub fn dictionary(&self, name: &str) -> Result<&Dictionary> {
        let c = self.opened(self.find(name)?)?;
        c.verify_dict()?;
        Ok(&c.dict)
    }

    /// The type of column `name` (from the manifest: nothing opened or verified).
    pub fn column_type(&self, name: &str) -> Result<ColumnType> {
        self.find(name).map(|ci| self.manifest.columns[ci].ty)
    }

    fn find(&self, name: &str) -> Result<usize> {
        self.manifest
            .columns
            .iter()
            .position(|c| c.name == name)
            .ok_or_else(|| Error::Schema(format!("no column `{name}` in {}", self.dir.display())))
    }

    /// Opens and verifies every structure of every column now (those not yet), the
    /// first missing or damaged one failing; without verification it opens them only.
    pub fn verify(&self) -> Result<()> {
        self.columns().map(|_| ())
    }

    /// The whole row `row`, decoded (every column verified first). Panics on a NULL
    /// ([`Table::row_or_nulls`] reads those).
    pub fn row(&self, row: usize) -> Result<Vec<Value<'_>>> {
        Ok(self.columns()?.iter().map(|c| c.value(row)).collect())
    }

    /// The whole row `row`, decoded, None for a NULL (every column verified first).
    pub fn row_or_nulls(&self, row: usize) -> Result<Vec<Option<Value<'_>>>> {
        Ok(self
            .columns()?
            .iter()
            .map(|c| c.value_or_null(row))
            .collect())
    }

    /// Turns access counting on or off (off by default).
    pub fn set_counting(&self, on: bool) {
        self.counting.store(on, Ordering::Relaxed);
    }

    pub fn counting(&self) -> bool {
        self.counting.load(Ordering::Relaxed)
    }

    /// The shared flag behind [`Table::set_counting`].
    pub fn counting_flag(&self) -> &Arc<AtomicBool> {
        &self.counting
    }

    /// Zeroes every counter (a column not opened yet has counted nothing).
    pub fn reset_counters(&self) {
        for (_, c) in self.opened_so_far() {
            c.reset_counts();
        }
    }

    /// The counters of every structure of every column (zero for a column not opened
    /// yet).
    pub fn access_counts(&self) -> Vec<ColumnCounts> {
        self.manifest
            .columns
            .iter()
            .zip(&self.columns)
            .map(|(m, c)| match c.get() {
                Some(Ok(c)) => c.counts(),
                _ => ColumnCounts {
                    column: m.name.clone(),
                    dictionary: AccessCounts::default(),
                    data_vector: AccessCounts::default(),
                    inverted_index: m.has_index.then(AccessCounts::default),
                },
            })
            .collect()
    }

    /// The pages counted runs touched in every structure of every column (recorded with
    /// the counters; reset with them; none for a column not opened yet).
    pub fn page_traces(&self) -> Vec<ColumnPages> {
        self.manifest
            .columns
            .iter()
            .zip(&self.columns)
            .map(|(m, c)| match c.get() {
                Some(Ok(c)) => c.pages(),
                _ => ColumnPages {
                    column: m.name.clone(),
                    dictionary: Vec::new(),
                    data_vector: Vec::new(),
                    inverted_index: Vec::new(),
                },
            })
            .collect()
    }

    /// Schema, sizes and where each structure lives. Describing where a structure lives
    /// opens it (when lazy and not opened yet); a column whose structures fail to open is
    /// described from the manifest, its tier saying why.
    pub fn info(&self) -> TableInfo {
        TableInfo {
            dir: self.dir.clone(),
            format_version: self.manifest.format_version,
            generation: self.manifest.generation,
            rows: self.manifest.rows,
            columns: self
                .manifest
                .columns
                .iter()
                .enumerate()
                .map(|(ci, m)| {
                    let d = |kind, info: &StructureInfo| StructureDesc {
                        kind,
                        info: info.clone(),
                    };
                    let structures = match self.opened(ci) {
                        Ok(c) => {
                            let mut s = vec![
                                d(StructureKind::Dictionary, c.dict.info()),
                                d(StructureKind::DataVector, c.dv.info()),
                            ];
                            if let Some(i) = &c.index {
                                s.push(d(StructureKind::InvertedIndex, i.info()));
                            }
                            s
                        }
                        Err(e) => KINDS
                            .iter()
                            .filter_map(|&kind| {
                                let f = m.file(kind)?;
                                Some(StructureDesc {
                                    kind,
                                    info: StructureInfo {
                                        file: self.dir.join(&f.file),
                                        file_bytes: f.size,
                                        payload_bytes: f
                                            .size
                                            .saturating_sub(crate::format::PAYLOAD_OFFSET as u64),
                                        tier: format!("not opened: {e}"),
                                        zero_copy: false,
                                        region_path: None,
                                        durability: "none".into(),
                                        map_sync: false,
                                    },
                                })
                            })
                            .collect(),
                    };
                    ColumnInfo {
                        name: m.name.clone(),
                        ty: m.ty,
                        dict_len: m.dict_len,
                        encoding: m.encoding,
                        bit_width: m.bit_width,
                        has_index: m.has_index,
                        nulls: m.nulls,
                        structures,
                    }
                })
                .collect(),
        }
    }
}
