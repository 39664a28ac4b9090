//! `Workload`: what the model needs to know about a workload (§4.1 of the placement
//! paper) — per structure its table, column, kind, memory footprint, the variant that
//! selects its access costs (value type for dictionaries, encoding and bit width for
//! data vectors) and its access counters per access type — plus `T_DRAM`, the workload's
//! CPU time with every structure on the reference tier (DRAM).
//!
//! JSON (`docs/placement.md`):
//!
//! ```json
//! { "format": "pmolap-workload", "version": 1, "store_format": 1,
//!   "t_dram_ns": 2.5e11, "description": "SSB SF 10, 13 queries",
//!   "structures": [
//!     { "table": "lineorder", "column": "lo_revenue", "kind": "data_vector",
//!       "bytes": 245760000, "type": "int", "bit_width": 21,
//!       "counts": { "scan": 60000000, "lookup": 0, "near_dense": 1200,
//!                   "medium_dense": 30, "far_dense": 2 } } ] }
//! ```

use std::collections::BTreeSet;
use std::path::Path;

use std::sync::Arc;

use pmolap_store::{
    AccessCounts, ColumnCounts, ColumnPages, ColumnType, PageStep, StructureKind, TableInfo,
};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::files::{check_header, parse_json, read_json, write_json};
use crate::profile::{Access, Variant};

/// The `format` field of a workload document.
pub const WORKLOAD_FORMAT: &str = "pmolap-workload";
/// The version of the workload document this build writes (2: per-query page records);
/// it reads 1 as well.
pub const WORKLOAD_VERSION: u32 = 2;

/// How a data vector's value ids are stored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    /// Bit-packed value ids with no further compression: the store's only data-vector
    /// format, and what the paper's Table 2 calls "uncompressed" (HANA's data vectors are
    /// bit-packed before any of its compression methods apply).
    #[default]
    Uncompressed,
    /// Run-length encoded (the paper's Table 2 row; not produced by the store today).
    Rle,
}

/// One structure of a workload: where it is, how big it is, and how it was accessed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StructureLoad {
    pub table: String,
    pub column: String,
    pub kind: StructureKind,
    /// Memory footprint in bytes (what moves to another tier).
    pub bytes: u64,
    /// The column's value type (selects integer or string dictionary costs).
    #[serde(rename = "type")]
    pub value_type: ColumnType,
    /// Data vectors only: how ids are stored (default `uncompressed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding: Option<Encoding>,
    /// Data vectors only: bits per value id (1..=32); selects width-specific costs
    /// where a profile has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bit_width: Option<u32>,
    /// Logical accesses per access type while the workload ran.
    pub counts: AccessCounts,
}

impl StructureLoad {
    /// `table.column.kind` with the store's short kind names (`dict`, `dv`, `inv`): the
    /// name placement files and error messages use.
    pub fn id(&self) -> String {
        structure_id(&self.table, &self.column, self.kind)
    }

    /// The profile variant whose costs apply to this structure.
    pub fn variant(&self) -> Variant {
        match self.kind {
            StructureKind::Dictionary => match self.value_type {
                ColumnType::Int => Variant::Int,
                ColumnType::Str => Variant::Str,
            },
            StructureKind::DataVector => match self.encoding.unwrap_or_default() {
                Encoding::Uncompressed => Variant::Uncompressed,
                Encoding::Rle => Variant::Rle,
            },
            StructureKind::InvertedIndex => Variant::Any,
        }
    }

    /// The counter value of one access type.
    pub fn count(&self, access: Access) -> u64 {
        access.count(&self.counts)
    }

    /// Whether the workload accessed it at all (any count above 0): what the shares on
    /// the slow tier and a target are counted over.
    pub fn accessed(&self) -> bool {
        self.counts.total() > 0
    }
}

/// `table.column.kind` (kind as `dict`, `dv` or `inv`).
pub fn structure_id(table: &str, column: &str, kind: StructureKind) -> String {
    format!("{table}.{column}.{}", kind.short())
}

/// A workload: its structures with their counters, and its all-DRAM CPU time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workload {
    /// Always [`WORKLOAD_FORMAT`].
    pub format: String,
    /// Always [`WORKLOAD_VERSION`].
    pub version: u32,
    /// The store format version the structures and counters come from
    /// (`pmolap_store::format::FORMAT_VERSION` of the store that ran the workload).
    pub store_format: u32,
    /// CPU time of the workload with every structure on the reference tier, in ns
    /// (`T_DRAM` of §4.4 and §5.1).
    pub t_dram_ns: f64,
    #[serde(default)]
    pub description: String,
    pub structures: Vec<StructureLoad>,
    /// The same run query by query (optional): each query's `T_DRAM` and counts, so the
    /// model predicts per query and the page model prices each query's first touches.
    /// The counts of a structure summed over the queries are its `counts`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub queries: Vec<QueryLoad>,
    /// The worker threads of the recorded run: `T_DRAM` is its wall time × these, and
    /// the model's page costs stall this many workers ([`crate::AdviceOptions`]).
    /// Absent in workloads recorded before it was kept: taken as 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<u32>,
    /// Version 2: the page size of the queries' page records (`pages`), present when the
    /// workload recorded which pages each query touched (`None`: counts only; the page
    /// model then estimates pages from the counts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_bytes: Option<u64>,
    /// The slow tier's page costs sampled on the database's own files when the workload
    /// was recorded (`place workload`; [`crate::calibration`]): what the promise of an
    /// advice whose slow structures stay in those files is priced with. Empty in
    /// workloads recorded before they were taken or built from counts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub page_samples: Vec<pmolap_results::place::PageSample>,
    /// For a workload of one query cut from a recorded workload ([`Workload::query`]):
    /// every query's page records and this query's index, so a bounded page cache is
    /// priced with what the queries before it left (not part of the document).
    #[serde(skip)]
    pub page_context: Option<Arc<PageContext>>,
}

/// The page records of a whole workload, for pricing one of its queries in place.
#[derive(Debug, Clone, PartialEq)]
pub struct PageContext {
    pub queries: Vec<Vec<StructurePages>>,
    pub index: usize,
}

/// The pages one query touched in one structure, by step (workload version 2): step 0
/// is planning, steps 1.. the query's fact rows in order (`pmolap_store::pagelog`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StructurePages {
    /// Index into [`Workload::structures`].
    pub structure: usize,
    pub steps: Vec<PageStep>,
}

/// One query of a workload: its all-DRAM CPU time and its counts per structure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueryLoad {
    pub id: String,
    pub t_dram_ns: f64,
    /// Counts per structure, in the order of [`Workload::structures`].
    pub counts: Vec<AccessCounts>,
    /// Version 2: the pages the query touched, per touched structure.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pages: Vec<StructurePages>,
}

/// One table of the store as [`Workload::from_store`] reads it.
#[derive(Debug, Clone, Copy)]
pub struct StoreTable<'a> {
    /// The table's name in the database (e.g. `lineorder`).
    pub name: &'a str,
    /// `Table::info()`: structures, their kinds and sizes.
    pub info: &'a TableInfo,
    /// `Table::access_counts()` after the workload ran.
    pub counts: &'a [ColumnCounts],
}

impl Workload {
    /// A workload document from its parts, validated.
    pub fn new(store_format: u32, t_dram_ns: f64, structures: Vec<StructureLoad>) -> Result<Self> {
        let w = Workload {
            format: WORKLOAD_FORMAT.into(),
            version: WORKLOAD_VERSION,
            store_format,
            t_dram_ns,
            description: String::new(),
            structures,
            queries: Vec::new(),
            threads: None,
            page_bytes: None,
            page_samples: Vec::new(),
            page_context: None,
        };
        w.validate("<memory>")?;
        Ok(w)
    }

    /// A workload from open store tables and their counters: one structure per
    /// dictionary, data vector and inverted index, its footprint the size of its
    /// structure file (header page included: that is the region that moves).
    pub fn from_store(tables: &[StoreTable<'_>], t_dram_ns: f64) -> Result<Self> {
        let (store_format, structures) = store_structures(tables)?;
        Workload::new(store_format, t_dram_ns, structures)
    }

    /// As [`Workload::from_store`], query by query: `queries` holds each query's id,
    /// `T_DRAM` and the tables' counters after it alone ran (same tables, same order);
    /// the workload's counts and `T_DRAM` are their sums.
    pub fn from_store_queries(
        tables: &[StoreTable<'_>],
        queries: &[(String, f64, Vec<Vec<ColumnCounts>>)],
    ) -> Result<Self> {
        let (store_format, mut structures) = store_structures(tables)?;
        for s in &mut structures {
            s.counts = AccessCounts::default();
        }
        let mut loads = Vec::new();
        for (id, t_dram_ns, counts) in queries {
            if counts.len() != tables.len() {
                return Err(Error::invalid(
                    "<store>",
                    id,
                    "counters of another table set",
                ));
            }
            let these: Vec<StoreTable<'_>> = tables
                .iter()
                .zip(counts)
                .map(|(t, c)| StoreTable { counts: c, ..*t })
                .collect();
            let (_, per) = store_structures(&these)?;
            let counts: Vec<AccessCounts> = per.iter().map(|s| s.counts).collect();
            for (s, c) in structures.iter_mut().zip(&counts) {
                s.counts += *c;
            }
            loads.push(QueryLoad {
                id: id.clone(),
                t_dram_ns: *t_dram_ns,
                counts,
                pages: Vec::new(),
            });
        }
        let total: f64 = loads.iter().map(|q| q.t_dram_ns).sum();
        let mut w = Workload::new(store_format, total, structures)?;
        w.queries = loads;
        w.validate("<memory>")?;
        Ok(w)
    }

    /// Attaches the pages each query touched (`pages[q]`: per table, its name and
    /// `Table::page_traces()` after query `q` alone ran, in the order of
    /// [`Workload::queries`]), recorded in pages of `page_bytes`.
    pub fn attach_pages(
        &mut self,
        page_bytes: u64,
        pages: &[Vec<(String, Vec<ColumnPages>)>],
    ) -> Result<()> {
        if pages.len() != self.queries.len() {
            return Err(Error::invalid(
                "<store>",
                "pages",
                format!(
                    "page records of {} queries for {}",
                    pages.len(),
                    self.queries.len()
                ),
            ));
        }
        for (q, tables) in self.queries.iter_mut().zip(pages) {
            q.pages.clear();
            for (table, cols) in tables {
                for c in cols {
                    for (kind, steps) in [
                        (StructureKind::Dictionary, &c.dictionary),
                        (StructureKind::DataVector, &c.data_vector),
                        (StructureKind::InvertedIndex, &c.inverted_index),
                    ] {
                        if steps.is_empty() {
                            continue;
                        }
                        let i = self
                            .structures
                            .iter()
                            .position(|s| {
                                s.table == *table && s.column == c.column && s.kind == kind
                            })
                            .ok_or_else(|| {
                                Error::invalid(
                                    "<store>",
                                    structure_id(table, &c.column, kind),
                                    "pages of a structure the workload does not have",
                                )
                            })?;
                        q.pages.push(StructurePages {
                            structure: i,
                            steps: steps.clone(),
                        });
                    }
                }
            }
            q.pages.sort_by_key(|p| p.structure);
        }
        self.page_bytes = Some(page_bytes);
        self.validate("<memory>")
    }

    /// Whether the workload recorded the pages its queries touched (version 2).
    pub fn has_pages(&self) -> bool {
        self.page_bytes.is_some() && !self.queries.is_empty()
    }

    /// Query `i` alone as a workload (its `T_DRAM`, counts and pages, with the whole
    /// workload's pages as its [`Workload::page_context`]); `None` when the workload has
    /// no per-query loads or fewer queries.
    pub fn query(&self, i: usize) -> Option<Workload> {
        let q = self.queries.get(i)?;
        let mut w = self.clone();
        if self.has_pages() && self.page_context.is_none() {
            w.page_context = Some(Arc::new(PageContext {
                queries: self.queries.iter().map(|q| q.pages.clone()).collect(),
                index: i,
            }));
        }
        w.t_dram_ns = q.t_dram_ns;
        w.description = format!("query {} of {}", q.id, self.description);
        for (s, c) in w.structures.iter_mut().zip(&q.counts) {
            s.counts = *c;
        }
        w.queries = vec![q.clone()];
        Some(w)
    }

    /// Loads and validates a workload file (at most
    /// [`MAX_DOCUMENT_BYTES`](crate::MAX_DOCUMENT_BYTES), read through
    /// `pmolap_os::input`).
    pub fn load(path: &Path) -> Result<Self> {
        let w: Workload = read_json(path)?;
        w.validate(&path.display().to_string())?;
        Ok(w)
    }

    /// A workload document from its JSON text, validated as [`Workload::load`] does;
    /// `origin` names it in errors.
    pub fn parse(origin: &str, text: &str) -> Result<Self> {
        let w: Workload = parse_json(Path::new(origin), text)?;
        w.validate(origin)?;
        Ok(w)
    }

    /// The workload as written: with its `kind` (`place-workload`) first.
    pub fn document(&self) -> crate::files::Tagged<'_, Self> {
        crate::files::Tagged::new(pmolap_results::kind::PLACE_WORKLOAD, self)
    }

    /// Writes the workload as JSON.
    pub fn save(&self, path: &Path) -> Result<()> {
        write_json(path, &self.document())
    }
}

/// The structures of `tables` with their counters, and the tables' store format.
fn store_structures(tables: &[StoreTable<'_>]) -> Result<(u32, Vec<StructureLoad>)> {
    let mut structures = Vec::new();
    let mut store_format = None;
    for t in tables {
        // The structures' format: a table with NULLs has a newer manifest, the same
        // structures.
        let version = pmolap_store::format::structure_version(t.info.format_version);
        if *store_format.get_or_insert(version) != version {
            return Err(Error::invalid(
                "<store>",
                t.name,
                format!("store format version {version} differs from the other tables'"),
            ));
        }
        for col in &t.info.columns {
            let counts = t
                .counts
                .iter()
                .find(|c| c.column == col.name)
                .ok_or_else(|| {
                    Error::invalid("<store>", format!("{}.{}", t.name, col.name), "no counters")
                })?;
            for s in &col.structures {
                let (c, bit_width) = match s.kind {
                    StructureKind::Dictionary => (counts.dictionary, None),
                    StructureKind::DataVector => (counts.data_vector, Some(col.bit_width)),
                    StructureKind::InvertedIndex => {
                        (counts.inverted_index.unwrap_or_default(), None)
                    }
                };
                structures.push(StructureLoad {
                    table: t.name.to_string(),
                    column: col.name.clone(),
                    kind: s.kind,
                    bytes: s.info.file_bytes,
                    value_type: col.ty,
                    encoding: (s.kind == StructureKind::DataVector)
                        .then_some(Encoding::Uncompressed),
                    bit_width,
                    counts: c,
                });
            }
        }
    }
    let store_format = store_format.unwrap_or(pmolap_store::format::FORMAT_VERSION);
    Ok((store_format, structures))
}

impl Workload {
    /// Checks the header, `T_DRAM`, names, uniqueness and per-kind fields; `file` names
    /// the document in errors.
    pub fn validate(&self, file: &str) -> Result<()> {
        // Version 1 (counts only) still reads.
        let want = if self.version == 1 {
            1
        } else {
            WORKLOAD_VERSION
        };
        check_header(file, &self.format, self.version, WORKLOAD_FORMAT, want)?;
        if self.version == 1
            && (self.page_bytes.is_some() || self.queries.iter().any(|q| !q.pages.is_empty()))
        {
            return Err(Error::invalid(
                file,
                "page_bytes",
                "page records need version 2",
            ));
        }
        if let Some(pb) = self.page_bytes {
            if !pb.is_power_of_two() || pb < 512 {
                return Err(Error::invalid(
                    file,
                    "page_bytes",
                    format!("{pb} is not a power of two of at least 512"),
                ));
            }
        } else if self.queries.iter().any(|q| !q.pages.is_empty()) {
            return Err(Error::invalid(
                file,
                "page_bytes",
                "missing beside page records",
            ));
        }
        if !(self.t_dram_ns.is_finite() && self.t_dram_ns > 0.0) {
            return Err(Error::invalid(
                file,
                "t_dram_ns",
                format!("{} is not a positive number of nanoseconds", self.t_dram_ns),
            ));
        }
        if self.structures.is_empty() {
            return Err(Error::invalid(file, "structures", "empty"));
        }
        if self.threads == Some(0) {
            return Err(Error::invalid(file, "threads", "0 (at least 1)"));
        }
        for (i, s) in self.page_samples.iter().enumerate() {
            let costs = [
                s.one_stream_ns,
                s.three_streams_ns,
                s.fault_page_ns,
                s.fault_latency_ns,
            ];
            if let Some(v) = costs
                .into_iter()
                .flatten()
                .find(|v| !(v.is_finite() && *v >= 0.0))
            {
                return Err(Error::invalid(
                    file,
                    "page_samples",
                    format!("sample {i}: {v} is not a number of nanoseconds >= 0"),
                ));
            }
        }
        let mut ids = BTreeSet::new();
        for q in &self.queries {
            let bad = |p: String| Error::invalid(file, format!("query {}", q.id), p);
            if !ids.insert(q.id.as_str()) {
                return Err(bad("appears twice".into()));
            }
            if !(q.t_dram_ns.is_finite() && q.t_dram_ns > 0.0) {
                return Err(bad(format!("t_dram_ns {} is not positive", q.t_dram_ns)));
            }
            if q.counts.len() != self.structures.len() {
                return Err(bad(format!(
                    "{} counts for {} structures",
                    q.counts.len(),
                    self.structures.len()
                )));
            }
            if q.counts.iter().any(|c| counts_total(c).is_none()) {
                return Err(bad("counts add up to more than 2^64 accesses".into()));
            }
            let page = self.page_bytes.unwrap_or(4096);
            let mut last = None;
            for p in &q.pages {
                let Some(s) = self.structures.get(p.structure) else {
                    return Err(bad(format!(
                        "pages of structure {}, there are {}",
                        p.structure,
                        self.structures.len()
                    )));
                };
                if last.is_some_and(|l| l >= p.structure) {
                    return Err(bad(format!("pages of {} out of order or twice", s.id())));
                }
                last = Some(p.structure);
                let pages = s.bytes.div_ceil(page);
                let mut step = None;
                for st in &p.steps {
                    if step.is_some_and(|x| x >= st.step) {
                        return Err(bad(format!(
                            "{}: page step {} out of order or twice",
                            s.id(),
                            st.step
                        )));
                    }
                    step = Some(st.step);
                    let mut end = 0u64;
                    for &[a, n] in &st.runs {
                        let (a, n) = (u64::from(a), u64::from(n));
                        if n == 0 || a < end || a + n > pages {
                            return Err(bad(format!(
                                "{}: step {}: page run [{a}, {n}] is empty, out of order or past the structure's {pages} pages",
                                s.id(), st.step
                            )));
                        }
                        end = a + n;
                    }
                }
            }
        }
        let mut seen = BTreeSet::new();
        let mut total_bytes = 0u64;
        for (i, s) in self.structures.iter().enumerate() {
            let item = format!("structure {i} ({})", s.id());
            let bad = |p: &str| Error::invalid(file, &item, p);
            // Every sum the model and the solvers make is over these: the bytes of all
            // structures, and each structure's counts of all access types (the No-Dense
            // ablation adds the dense classes to the lookups), must fit in 64 bits.
            total_bytes = total_bytes.checked_add(s.bytes).ok_or_else(|| {
                bad("bytes: the structures' sizes add up to more than 2^64 bytes")
            })?;
            if counts_total(&s.counts).is_none() {
                return Err(bad("counts add up to more than 2^64 accesses"));
            }
            if s.table.is_empty() || s.column.is_empty() {
                return Err(bad("empty table or column name"));
            }
            if s.table.contains('.') {
                return Err(bad("table names may not contain `.`"));
            }
            if !seen.insert((s.table.as_str(), s.column.as_str(), s.kind)) {
                return Err(bad("appears twice"));
            }
            match s.kind {
                StructureKind::DataVector => {
                    if let Some(w) = s.bit_width {
                        if !(1..=32).contains(&w) {
                            return Err(bad(&format!("bit_width {w} is not in 1..=32")));
                        }
                    }
                }
                _ => {
                    if s.encoding.is_some() || s.bit_width.is_some() {
                        return Err(bad("encoding and bit_width apply to data vectors only"));
                    }
                }
            }
        }
        Ok(())
    }

    /// A 64-bit FNV-1a digest (16 hex digits) of the workload's JSON: what identifies
    /// "this workload" when an advice looks up the validations of it
    /// ([`crate::accuracy`]). The description is left out (it names paths).
    pub fn digest(&self) -> String {
        let mut w = self.clone();
        w.description.clear();
        crate::files::digest(&w)
    }

    /// Total footprint of all structures (saturating: a validated workload's total
    /// fits in 64 bits).
    pub fn total_bytes(&self) -> u64 {
        self.structures
            .iter()
            .fold(0u64, |a, s| a.saturating_add(s.bytes))
    }

    /// Footprint of the structures the workload accesses ([`StructureLoad::accessed`]),
    /// saturating as [`Self::total_bytes`].
    pub fn accessed_bytes(&self) -> u64 {
        self.structures
            .iter()
            .filter(|s| s.accessed())
            .fold(0u64, |a, s| a.saturating_add(s.bytes))
    }

    /// The index of the structure named `table.column.kind`.
    pub fn find(&self, table: &str, column: &str, kind: StructureKind) -> Option<usize> {
        self.structures
            .iter()
            .position(|s| s.table == table && s.column == column && s.kind == kind)
    }
}

/// The sum of all of `c`'s counters, `None` past 2^64.
fn counts_total(c: &AccessCounts) -> Option<u64> {
    Access::ALL
        .iter()
        .try_fold(0u64, |a, &x| a.checked_add(x.count(c)))
}

#[cfg(test)]
impl StructureLoad {
    /// A test structure `t.column` of `kind`: an integer one of `bytes` bytes looked up
    /// `lookups` times.
    pub(crate) fn looked_up(
        column: &str,
        kind: pmolap_store::StructureKind,
        bytes: u64,
        lookups: u64,
    ) -> StructureLoad {
        StructureLoad {
            table: "t".into(),
            column: column.into(),
            kind,
            bytes,
            value_type: pmolap_store::ColumnType::Int,
            encoding: None,
            bit_width: None,
            counts: AccessCounts {
                lookup: lookups,
                ..AccessCounts::default()
            },
        }
    }
}
