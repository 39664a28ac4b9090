//! `TableBuilder`: collects rows (or whole columns), builds each column's sorted
//! dictionary, bit-packed data vector and optional inverted index, and publishes them
//! as a new table generation with the commit protocol (structure files → persist →
//! manifest staged, fsynced, renamed → directory fsynced → old generation deleted:
//! `publish`).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use pmolap_os::durable::Steps;
use pmolap_tier::RegionOptions;

use crate::encode::encode;
use crate::error::{Error, Result};
use crate::format::Manifest;
use crate::schema::{ColumnType, Schema, Value};
use crate::table::read_manifest;

mod publish;

use publish::{
    check_space, next_generation, par_map, remove_unlisted, remove_unlisted_stepped,
    structure_plan, Generation,
};

/// How [`TableBuilder::finish`] writes a table.
#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    /// Options of the regions the structure files are written through.
    pub region: RegionOptions,
    /// Names of the columns that get an inverted index.
    pub index_columns: Vec<String>,
    /// Refuse to write more than this many bytes in all (a quota below the free space
    /// of the filesystem; None: the free space is the limit).
    pub capacity_limit: Option<u64>,
    /// Worker threads (0: one per available CPU).
    pub threads: usize,
    /// Encode every column with a sorted dictionary, never as a frame of reference
    /// (see [`ColumnEncoding::Frame`]; for comparisons and tests).
    pub dictionary_only: bool,
    /// Test hook: abort the process right after this many write/persist steps.
    #[doc(hidden)]
    pub crash_after_step: Option<u64>,
}

impl WriteOptions {
    /// Adds inverted indexes on `columns`.
    pub fn with_index<S: AsRef<str>>(mut self, columns: &[S]) -> Self {
        self.index_columns
            .extend(columns.iter().map(|c| c.as_ref().to_string()));
        self
    }
}

/// FxHash (rustc's hasher): fast hashing of interned strings while rows are pushed.
#[derive(Default)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut a = [0u8; 8];
            a.copy_from_slice(c);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(a)).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ b as u64).wrapping_mul(K);
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

#[derive(Debug, Default)]
pub(crate) struct StrColumn {
    /// Per row: the id of its string in `values` (insertion order).
    pub(crate) ids: Vec<u32>,
    pub(crate) values: Vec<Box<str>>,
    map: HashMap<Box<str>, u32, BuildHasherDefault<FxHasher>>,
}

impl StrColumn {
    /// Row ids and values, the interning map freed first (it is as large as the values).
    pub(crate) fn into_parts(self) -> (Vec<u32>, Vec<Box<str>>) {
        let StrColumn { ids, values, map } = self;
        drop(map);
        (ids, values)
    }

    fn push(&mut self, s: &str) -> Result<()> {
        let id = match self.map.get(s) {
            Some(&id) => id,
            None => {
                let id = u32::try_from(self.values.len())
                    .ok()
                    .filter(|&id| id != NULL_STR_ID)
                    .ok_or_else(|| Error::Schema("more than 2^32 distinct strings".into()))?;
                self.values.push(s.into());
                self.map.insert(s.into(), id);
                id
            }
        };
        self.ids.push(id);
        Ok(())
    }
}

/// The interning id a NULL row of a string column holds while rows are pushed (no
/// string has it).
pub(crate) const NULL_STR_ID: u32 = u32::MAX;

#[derive(Debug)]
pub(crate) enum ColumnData {
    Int(Vec<i64>),
    Str(StrColumn),
}

impl ColumnData {
    fn len(&self) -> usize {
        match self {
            ColumnData::Int(v) => v.len(),
            ColumnData::Str(s) => s.ids.len(),
        }
    }
}

/// Collects a table's rows in memory, then writes it.
///
/// A value may be NULL ([`TableBuilder::push_null`]): the row holds a placeholder (0 in
/// an int column) and is marked; the written column stores NULL as the value id one past
/// its dictionary (docs/formats.md, "NULLs").
#[derive(Debug)]
pub struct TableBuilder {
    schema: Schema,
    columns: Vec<ColumnData>,
    /// Per column, whether each row pushed so far is NULL (None: no NULL yet).
    nulls: Vec<Option<Vec<bool>>>,
}

impl TableBuilder {
    pub fn new(schema: Schema) -> Self {
        let columns = schema
            .columns
            .iter()
            .map(|c| match c.ty {
                ColumnType::Int => ColumnData::Int(Vec::new()),
                ColumnType::Str => ColumnData::Str(StrColumn::default()),
            })
            .collect();
        let nulls = vec![None; schema.len()];
        TableBuilder {
            schema,
            columns,
            nulls,
        }
    }

    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// Rows pushed so far (of the first column).
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, ColumnData::len)
    }

    /// Appends one row; values must match the schema in number and type.
    pub fn push_row(&mut self, row: &[Value<'_>]) -> Result<()> {
        if row.len() != self.columns.len() {
            return Err(Error::Schema(format!(
                "row has {} values, the schema {} columns",
                row.len(),
                self.columns.len()
            )));
        }
        for (i, v) in row.iter().enumerate() {
            if v.ty() != self.schema.columns[i].ty {
                return Err(Error::Schema(format!(
                    "column `{}` is {}, got the {} value `{v}`",
                    self.schema.columns[i].name,
                    self.schema.columns[i].ty,
                    v.ty()
                )));
            }
        }
        for (c, v) in self.columns.iter_mut().zip(row) {
            match (c, v) {
                (ColumnData::Int(col), Value::Int(x)) => col.push(*x),
                (ColumnData::Str(col), Value::Str(s)) => col.push(s)?,
                _ => unreachable!("types checked above"),
            }
        }
        for n in self.nulls.iter_mut().flatten() {
            n.push(false);
        }
        Ok(())
    }

    /// Appends one value to column `col` (column-wise building; [`TableBuilder::finish`]
    /// checks that all columns end up equally long).
    pub fn push_value(&mut self, col: usize, v: Value<'_>) -> Result<()> {
        let def = self
            .schema
            .columns
            .get(col)
            .ok_or_else(|| Error::Schema(format!("no column {col}")))?;
        match (&mut self.columns[col], v) {
            (ColumnData::Int(c), Value::Int(x)) => c.push(x),
            (ColumnData::Str(c), Value::Str(s)) => c.push(s)?,
            _ => {
                return Err(Error::Schema(format!(
                    "column `{}` is {}, got the {} value `{v}`",
                    def.name,
                    def.ty,
                    v.ty()
                )))
            }
        }
        if let Some(n) = &mut self.nulls[col] {
            n.push(false);
        }
        Ok(())
    }

    /// Appends a NULL to column `col` (column-wise building, as
    /// [`TableBuilder::push_value`]). The row holds a placeholder — 0 in an int column,
    /// which [`TableBuilder::int_column`] shows — and [`TableBuilder::nulls`] marks it.
    pub fn push_null(&mut self, col: usize) -> Result<()> {
        let len = match self.columns.get_mut(col) {
            Some(ColumnData::Int(c)) => {
                c.push(0);
                c.len()
            }
            Some(ColumnData::Str(c)) => {
                c.ids.push(NULL_STR_ID);
                c.ids.len()
            }
            None => return Err(Error::Schema(format!("no column {col}"))),
        };
        self.nulls[col]
            .get_or_insert_with(|| vec![false; len - 1])
            .push(true);
        Ok(())
    }

    /// Per row pushed so far, whether column `name`'s value is NULL; None when the column
    /// holds no NULL (or there is no such column).
    pub fn nulls(&self, name: &str) -> Option<&[bool]> {
        self.nulls
            .get(self.schema.index_of(name)?)?
            .as_deref()
            .filter(|n| n.contains(&true))
    }

    /// Appends integers to int column `col`.
    pub fn extend_ints(&mut self, col: usize, values: &[i64]) -> Result<()> {
        match self.columns.get_mut(col) {
            Some(ColumnData::Int(c)) => {
                c.extend_from_slice(values);
                if let Some(n) = &mut self.nulls[col] {
                    n.resize(c.len(), false);
                }
                Ok(())
            }
            _ => Err(Error::Schema(format!("column {col} is not an int column"))),
        }
    }

    /// Appends strings to string column `col`.
    pub fn extend_strs<'s>(
        &mut self,
        col: usize,
        values: impl IntoIterator<Item = &'s str>,
    ) -> Result<()> {
        match self.columns.get_mut(col) {
            Some(ColumnData::Str(c)) => {
                let r = values.into_iter().try_for_each(|s| c.push(s));
                if let Some(n) = &mut self.nulls[col] {
                    n.resize(c.ids.len(), false);
                }
                r
            }
            _ => Err(Error::Schema(format!(
                "column {col} is not a string column"
            ))),
        }
    }

    /// The values of int column `name` so far (None if there is no such int column).
    pub fn int_column(&self, name: &str) -> Option<&[i64]> {
        match self.columns.get(self.schema.index_of(name)?)? {
            ColumnData::Int(v) => Some(v),
            ColumnData::Str(_) => None,
        }
    }

    /// Per row pushed so far, a code of column `name`'s value: equal codes for equal
    /// values (an int's bits, a string's interning id; NULL is a code of its own), in no
    /// particular order; None if there is no such column. For finding dependencies
    /// between columns.
    pub fn row_codes(&self, name: &str) -> Option<Vec<u64>> {
        let i = self.schema.index_of(name)?;
        Some(match (self.columns.get(i)?, &self.nulls[i]) {
            (ColumnData::Int(v), Some(n)) => int_ranks(v, n),
            (ColumnData::Int(v), None) => v.iter().map(|&x| x as u64).collect(),
            // A NULL row's placeholder id is no string's.
            (ColumnData::Str(s), _) => s.ids.iter().map(|&id| id as u64).collect(),
        })
    }

    /// Appends int column `name` with one value per row pushed so far.
    pub fn add_int_column(&mut self, name: &str, values: Vec<i64>) -> Result<()> {
        if self.schema.index_of(name).is_some() || name.is_empty() {
            return Err(Error::Schema(format!(
                "cannot add column `{name}`: the name is empty or taken"
            )));
        }
        if values.len() != self.rows() {
            return Err(Error::Schema(format!(
                "column `{name}` has {} values, the table {} rows",
                values.len(),
                self.rows()
            )));
        }
        self.schema.columns.push(crate::schema::ColumnDef {
            name: name.to_string(),
            ty: ColumnType::Int,
        });
        self.columns.push(ColumnData::Int(values));
        self.nulls.push(None);
        Ok(())
    }

    /// Reorders the rows pushed so far by the values of `cols` (ascending, the first
    /// column first; strings byte-wise; ties keep their order), e.g. a dimension by its
    /// hierarchy so that the rows of a region, a nation or a city are contiguous.
    pub fn sort_rows_by(&mut self, cols: &[&str]) -> Result<()> {
        let rows = self.checked_rows()?;
        // Per sort column, a u32 rank per row (strings ranked by value once).
        let keys: Vec<Vec<u64>> = cols
            .iter()
            .map(|&name| {
                let i = self
                    .schema
                    .index_of(name)
                    .ok_or_else(|| Error::Schema(format!("sort by unknown column `{name}`")))?;
                // NULLs sort last (as SQL's default ascending order in DuckDB).
                Ok(match (&self.columns[i], &self.nulls[i]) {
                    (ColumnData::Int(v), Some(n)) => int_ranks(v, n),
                    (ColumnData::Int(v), None) => {
                        v.iter().map(|&x| (x as u64) ^ (1 << 63)).collect()
                    }
                    (ColumnData::Str(s), _) => {
                        let mut order: Vec<u32> = (0..s.values.len() as u32).collect();
                        order.sort_unstable_by(|&a, &b| {
                            s.values[a as usize].cmp(&s.values[b as usize])
                        });
                        let mut rank = vec![0u64; order.len()];
                        for (r, &id) in order.iter().enumerate() {
                            rank[id as usize] = r as u64;
                        }
                        let null = rank.len() as u64;
                        s.ids
                            .iter()
                            .map(|&id| rank.get(id as usize).copied().unwrap_or(null))
                            .collect()
                    }
                })
            })
            .collect::<Result<_>>()?;
        let mut perm: Vec<u32> = (0..rows as u32).collect();
        perm.sort_by(|&a, &b| {
            keys.iter()
                .map(|k| k[a as usize].cmp(&k[b as usize]))
                .find(|o| o.is_ne())
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        for c in &mut self.columns {
            match c {
                ColumnData::Int(v) => *v = perm.iter().map(|&r| v[r as usize]).collect(),
                ColumnData::Str(s) => s.ids = perm.iter().map(|&r| s.ids[r as usize]).collect(),
            }
        }
        for n in self.nulls.iter_mut().flatten() {
            *n = perm.iter().map(|&r| n[r as usize]).collect();
        }
        Ok(())
    }

    /// Encodes every column and publishes the table in `dir` (created if missing) as a
    /// new generation; the previous one stays readable until the new manifest is in place
    /// and is deleted after. Returns the manifest written.
    pub fn finish(self, dir: &Path, opts: &WriteOptions) -> Result<Manifest> {
        self.finish_stepped(dir, opts, &Steps::new(opts.crash_after_step))
    }

    /// [`finish`](Self::finish) counting its write/persist steps on `steps` (a database
    /// writer counts every table's steps and its own commit on one counter).
    pub(crate) fn finish_stepped(
        self,
        dir: &Path,
        opts: &WriteOptions,
        steps: &Steps,
    ) -> Result<Manifest> {
        let rows = self.checked_rows()?;
        let with_index = self.index_flags(opts)?;
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let threads = match opts.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        let TableBuilder {
            schema,
            columns,
            nulls,
        } = self;

        // 1. Encode (dictionary + value ids) every column.
        let jobs: Vec<_> = columns.into_iter().zip(nulls).collect();
        let frames = !opts.dictionary_only;
        let encoded = par_map(jobs, threads, |(data, nulls)| encode(data, nulls, frames));

        // 2. Sizes, space check, generation.
        let previous = read_manifest(dir);
        let generation = next_generation(dir, previous.as_ref().ok())?;
        let (plan, needed) = structure_plan(&encoded, &with_index, rows);
        check_space(dir, opts, needed)?;
        // Leftovers of an earlier, crashed build are garbage: remove them first.
        if let Ok(prev) = &previous {
            remove_unlisted(dir, Some(prev))?;
        } else if matches!(previous, Err(Error::NoTable(_))) {
            remove_unlisted(dir, None)?;
        }

        // 3. Write and persist every structure file of the new generation.
        let written: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
        let out = Generation {
            dir,
            schema: &schema,
            encoded: &encoded,
            rows,
            generation,
            written: &written,
        };
        let files = out.write_structures(plan, threads, opts, steps)?;

        // 4. The manifest: staged, fsynced, renamed over MANIFEST, directory fsynced.
        let manifest = out.manifest(files, &with_index);
        out.publish(&manifest, steps)?;

        // 5. Only now: the previous generation's files go.
        remove_unlisted_stepped(dir, &manifest, steps)?;
        Ok(manifest)
    }

    /// The number of rows, checked to be the same in every column and to fit row ids.
    fn checked_rows(&self) -> Result<usize> {
        let rows = self.rows();
        for (c, d) in self.schema.columns.iter().zip(&self.columns) {
            if d.len() != rows {
                return Err(Error::Schema(format!(
                    "column `{}` has {} values, column `{}` {rows}",
                    c.name,
                    d.len(),
                    self.schema.columns[0].name
                )));
            }
        }
        if rows > u32::MAX as usize {
            return Err(Error::Schema(format!(
                "{rows} rows: row ids are 32-bit, at most {} rows",
                u32::MAX
            )));
        }
        Ok(rows)
    }

    /// Per column: whether `opts` asks for an inverted index on it.
    fn index_flags(&self, opts: &WriteOptions) -> Result<Vec<bool>> {
        let mut with_index = vec![false; self.schema.len()];
        for name in &opts.index_columns {
            let i = self
                .schema
                .index_of(name)
                .ok_or_else(|| Error::Schema(format!("index on unknown column `{name}`")))?;
            with_index[i] = true;
        }
        Ok(with_index)
    }
}

/// Per row, the rank of its value among the column's distinct values, `u64::MAX` for a
/// NULL row (whose placeholder is no value): equal codes for equal values, in value
/// order, NULL last.
fn int_ranks(v: &[i64], nulls: &[bool]) -> Vec<u64> {
    let mut distinct: Vec<i64> = v
        .iter()
        .zip(nulls)
        .filter(|(_, &n)| !n)
        .map(|(&x, _)| x)
        .collect();
    distinct.sort_unstable();
    distinct.dedup();
    v.iter()
        .zip(nulls)
        .map(|(x, &n)| match n {
            true => u64::MAX,
            false => distinct.partition_point(|d| d < x) as u64,
        })
        .collect()
}
