//! `PlacementFile`: a placement as a document — which tier each structure is on, the
//! tiers (reference tier first) with optional store locations and capacities, and what
//! the model predicted for it. Checked against a workload and its profiles (unknown
//! structures or tiers, duplicates, capacities) and turned into the store's
//! [`pmolap_store::Placement`] per table.
//!
//! JSON (`docs/placement.md`):
//!
//! ```json
//! { "format": "pmolap-placement", "version": 1,
//!   "tiers": [ { "name": "dram", "location": "dram" },
//!              { "name": "optane-200", "location": "file:/mnt/pmem0/db",
//!                "capacity_bytes": 1000000000 } ],
//!   "structures": [ { "table": "lineorder", "column": "lo_revenue",
//!                     "kind": "data_vector", "tier": "optane-200" } ],
//!   "predicted": { "t_ns": 1.2e9, "relative": 1.05, "bytes_moved": 123456 },
//!   "accuracy": { "status": "not_validated" } }
//! ```

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use pmolap_store::{Location, StructureKind};
use serde::{Deserialize, Serialize};

use crate::accuracy::Accuracy;
use crate::error::{Error, Result};
use crate::files::{check_header, parse_json, read_json, write_json};
use crate::model::Assignment;
use crate::profile::{Profile, REFERENCE_TIER};
use crate::share::SlowShare;
use crate::solve::Solution;
use crate::workload::{structure_id, Workload};

/// The `format` field of a placement document.
pub const PLACEMENT_FORMAT: &str = "pmolap-placement";
/// The version of the placement document this build reads and writes.
pub const PLACEMENT_VERSION: u32 = 1;

/// One tier of a placement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlacementTier {
    /// `dram` for the reference tier, else a profile's tier name.
    pub name: String,
    /// Where the store puts this tier's structures: `home` or a tier spec
    /// (`dram`, `dram:node=N`, `file:DIR`, `devdax:PATH`); needed to apply the placement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// Most bytes this tier may hold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity_bytes: Option<u64>,
}

/// One structure's tier.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlacedStructure {
    pub table: String,
    pub column: String,
    pub kind: StructureKind,
    pub tier: String,
}

/// What the model predicted when the placement was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Predicted {
    /// Extra CPU time over all-DRAM, ns.
    pub t_ns: f64,
    /// `(T_DRAM + t) / T_DRAM`.
    pub relative: f64,
    /// Bytes off the reference tier.
    pub bytes_moved: u64,
    /// The bytes off the reference tier as shares of the accessed bytes and of all bytes
    /// (absent in files from before it was written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slow_share: Option<SlowShare>,
    /// Which placement the advice is: absent for the solver's optimum, else the baseline
    /// the model predicted faster at the same DRAM bytes (`hottest`, `dictionaries`,
    /// `never accessed`, `os alone`: everything on the slow tier, the page cache left
    /// the DRAM bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// The advice's setting when it was made for a bounded page cache (`advise
    /// --cache`): `t_ns` and `relative` above are cold, this is what it promises there
    /// (absent for a cold advice and in older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub behind_cache: Option<BehindCache>,
}

/// The prediction behind a page cache kept between queries ([`crate::CacheBand`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BehindCache {
    /// The page cache predicted behind, bytes (the OS alone: the given cache plus the
    /// DRAM bytes it leaves).
    pub cache_bytes: u64,
    /// Relative times with 10 % less, the same and 10 % more cache.
    pub less: f64,
    pub at: f64,
    pub more: f64,
    /// The promise: the highest of the three.
    pub promise: f64,
}

impl BehindCache {
    /// The band `b` behind `cache_bytes`.
    pub fn new(cache_bytes: u64, b: &crate::CacheBand) -> Self {
        BehindCache {
            cache_bytes,
            less: b.less,
            at: b.at,
            more: b.more,
            promise: b.range().1,
        }
    }
}

/// A placement document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlacementFile {
    /// Always [`PLACEMENT_FORMAT`].
    pub format: String,
    /// Always [`PLACEMENT_VERSION`].
    pub version: u32,
    /// The reference tier (`dram`) first, then the slow tiers.
    pub tiers: Vec<PlacementTier>,
    /// Structures not listed are on the reference tier.
    pub structures: Vec<PlacedStructure>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicted: Option<Predicted>,
    /// How accurate the model was measured to be on this tier for this workload, or
    /// that it was not validated on this machine (absent in files written before it was
    /// kept, and in placements not made by `place advise`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accuracy: Option<Accuracy>,
    /// The file it was loaded from (not part of the document). `None` if built in code.
    #[serde(skip)]
    pub origin: Option<String>,
}

impl PlacementFile {
    /// The document of solution `s` for workload `w` over the reference tier and
    /// `profiles` (tier locations and capacities left for the caller to fill in).
    pub fn from_solution(w: &Workload, profiles: &[Profile], s: &Solution) -> Self {
        let names: Vec<&str> = std::iter::once(REFERENCE_TIER)
            .chain(profiles.iter().map(|p| p.tier.as_str()))
            .collect();
        PlacementFile {
            format: PLACEMENT_FORMAT.into(),
            version: PLACEMENT_VERSION,
            tiers: names
                .iter()
                .map(|n| PlacementTier {
                    name: n.to_string(),
                    location: None,
                    capacity_bytes: None,
                })
                .collect(),
            structures: w
                .structures
                .iter()
                .zip(&s.assignment.tier)
                .map(|(st, &k)| PlacedStructure {
                    table: st.table.clone(),
                    column: st.column.clone(),
                    kind: st.kind,
                    tier: names.get(k).unwrap_or(&REFERENCE_TIER).to_string(),
                })
                .collect(),
            predicted: Some(Predicted {
                t_ns: s.t_ns,
                relative: s.relative,
                bytes_moved: s.bytes_moved,
                slow_share: Some(SlowShare::of(w, &s.assignment)),
                baseline: s.baseline.clone(),
                behind_cache: None,
            }),
            accuracy: None,
            origin: None,
        }
    }

    /// Loads a placement file (at most [`MAX_DOCUMENT_BYTES`](crate::MAX_DOCUMENT_BYTES),
    /// read through `pmolap_os::input`) and checks it on its own
    /// ([`PlacementFile::validate`]).
    pub fn load(path: &Path) -> Result<Self> {
        let mut p: PlacementFile = read_json(path)?;
        p.origin = Some(path.display().to_string());
        p.validate()?;
        Ok(p)
    }

    /// A placement from its JSON text, checked as [`PlacementFile::load`] does;
    /// `origin` names it in errors.
    pub fn parse(origin: &str, text: &str) -> Result<Self> {
        let mut p: PlacementFile = parse_json(Path::new(origin), text)?;
        p.origin = Some(origin.to_string());
        p.validate()?;
        Ok(p)
    }

    /// The placement as written: with its `kind` (`placement`) first.
    pub fn document(&self) -> crate::files::Tagged<'_, Self> {
        crate::files::Tagged::new(pmolap_results::kind::PLACEMENT, self)
    }

    /// Writes the placement as JSON.
    pub fn save(&self, path: &Path) -> Result<()> {
        write_json(path, &self.document())
    }

    fn file(&self) -> &str {
        self.origin.as_deref().unwrap_or("<memory>")
    }

    /// Checks the header and the tiers (reference tier first, names unique, locations
    /// parse) and that every structure names a listed tier, once.
    pub fn validate(&self) -> Result<()> {
        let file = self.file();
        check_header(
            file,
            &self.format,
            self.version,
            PLACEMENT_FORMAT,
            PLACEMENT_VERSION,
        )?;
        if self.tiers.first().map(|t| t.name.as_str()) != Some(REFERENCE_TIER) {
            return Err(Error::invalid(
                file,
                "tiers",
                format!("the first tier must be the reference tier `{REFERENCE_TIER}`"),
            ));
        }
        let mut names = BTreeSet::new();
        for (i, t) in self.tiers.iter().enumerate() {
            let item = format!("tiers[{i}] ({})", t.name);
            if t.name.is_empty() || !names.insert(t.name.as_str()) {
                return Err(Error::invalid(file, item, "empty or repeated tier name"));
            }
            if let Some(loc) = &t.location {
                loc.parse::<Location>()
                    .map_err(|e| Error::invalid(file, &item, format!("location: {e}")))?;
            }
        }
        if let Some(p) = &self.predicted {
            if !(p.t_ns.is_finite() && p.t_ns >= 0.0 && p.relative.is_finite() && p.relative >= 0.0)
            {
                return Err(Error::invalid(
                    file,
                    "predicted",
                    format!(
                        "t_ns {} and relative {} must be non-negative numbers",
                        p.t_ns, p.relative
                    ),
                ));
            }
            if let Some(c) = &p.behind_cache {
                let all = [c.less, c.at, c.more, c.promise];
                if !all.iter().all(|x| x.is_finite() && *x >= 0.0)
                    || c.promise < c.less.max(c.at).max(c.more)
                {
                    return Err(Error::invalid(
                        file,
                        "predicted.behind_cache",
                        format!(
                            "less {}, at {}, more {} and promise {} must be non-negative numbers, the promise the highest",
                            c.less, c.at, c.more, c.promise
                        ),
                    ));
                }
            }
        }
        let mut seen = BTreeSet::new();
        for (i, s) in self.structures.iter().enumerate() {
            let item = format!(
                "structures[{i}] ({})",
                structure_id(&s.table, &s.column, s.kind)
            );
            if !names.contains(s.tier.as_str()) {
                return Err(Error::invalid(
                    file,
                    item,
                    format!("unknown tier `{}` (not in `tiers`)", s.tier),
                ));
            }
            if !seen.insert((s.table.as_str(), s.column.as_str(), s.kind)) {
                return Err(Error::invalid(file, item, "placed twice"));
            }
        }
        Ok(())
    }

    /// The placement as an [`Assignment`] of `w` over the reference tier and
    /// `profiles`: every placed structure must be in the workload, every used tier must
    /// have a profile, and no tier may exceed its capacity. Unlisted structures are on
    /// the reference tier.
    pub fn assignment(&self, w: &Workload, profiles: &[Profile]) -> Result<Assignment> {
        self.validate()?;
        let file = self.file();
        let mut tier_index: HashMap<&str, usize> = HashMap::new();
        tier_index.insert(REFERENCE_TIER, 0);
        for (k, p) in profiles.iter().enumerate() {
            tier_index.insert(p.tier.as_str(), k + 1);
        }
        let mut by_id: HashMap<(&str, &str, StructureKind), usize> = HashMap::new();
        for (i, s) in w.structures.iter().enumerate() {
            by_id.insert((s.table.as_str(), s.column.as_str(), s.kind), i);
        }
        let mut a = Assignment::all(w.structures.len(), 0);
        for (i, s) in self.structures.iter().enumerate() {
            let id = structure_id(&s.table, &s.column, s.kind);
            let item = format!("structures[{i}] ({id})");
            let &idx = by_id
                .get(&(s.table.as_str(), s.column.as_str(), s.kind))
                .ok_or_else(|| Error::invalid(file, &item, "no such structure in the workload"))?;
            let &k = tier_index.get(s.tier.as_str()).ok_or_else(|| {
                Error::invalid(file, &item, format!("tier `{}` has no profile", s.tier))
            })?;
            a.tier[idx] = k;
        }
        let mut bytes: HashMap<usize, u64> = HashMap::new();
        for (s, &k) in w.structures.iter().zip(&a.tier) {
            let e = bytes.entry(k).or_default();
            *e = e.saturating_add(s.bytes);
        }
        for (i, t) in self.tiers.iter().enumerate() {
            let (Some(cap), Some(k)) = (t.capacity_bytes, tier_index.get(t.name.as_str())) else {
                continue;
            };
            let used = bytes.get(k).copied().unwrap_or(0);
            if used > cap {
                return Err(Error::invalid(
                    file,
                    format!("tiers[{i}] ({})", t.name),
                    format!("placement puts {used} bytes on it, its capacity is {cap} bytes"),
                ));
            }
        }
        Ok(a)
    }

    /// Fails naming the first listed structure `exists(table, column, kind)` denies (a
    /// structure the database does not have).
    pub fn check_structures(
        &self,
        exists: impl Fn(&str, &str, StructureKind) -> bool,
    ) -> Result<()> {
        for (i, s) in self.structures.iter().enumerate() {
            if !exists(&s.table, &s.column, s.kind) {
                return Err(Error::invalid(
                    self.file(),
                    format!(
                        "structures[{i}] ({})",
                        structure_id(&s.table, &s.column, s.kind)
                    ),
                    "no such structure in the database",
                ));
            }
        }
        Ok(())
    }

    /// Fails naming the first tier with a capacity smaller than the bytes of the
    /// structures placed on it, `bytes_of(table, column, kind)` giving a structure's
    /// size in the database (`None`: not in the database; [`Self::check_structures`]
    /// names those). Structures not listed count on the reference tier, so
    /// `all_bytes` is the database's total.
    pub fn check_capacities(
        &self,
        all_bytes: u64,
        bytes_of: impl Fn(&str, &str, StructureKind) -> Option<u64>,
    ) -> Result<()> {
        let mut used: HashMap<&str, u64> = HashMap::new();
        let mut off_reference = 0u64;
        for s in &self.structures {
            if s.tier == REFERENCE_TIER {
                continue;
            }
            let b = bytes_of(&s.table, &s.column, s.kind).unwrap_or(0);
            let e = used.entry(s.tier.as_str()).or_default();
            *e = e.saturating_add(b);
            off_reference = off_reference.saturating_add(b);
        }
        used.insert(REFERENCE_TIER, all_bytes.saturating_sub(off_reference));
        for (i, t) in self.tiers.iter().enumerate() {
            let (Some(cap), Some(&u)) = (t.capacity_bytes, used.get(t.name.as_str())) else {
                continue;
            };
            if u > cap {
                return Err(Error::invalid(
                    self.file(),
                    format!("tiers[{i}] ({})", t.name),
                    format!(
                        "capacity_bytes {cap} cannot hold the {u} bytes of the database's structures placed on it"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The store's placement of `table`: each listed structure of the table on its
    /// tier's location; unlisted structures stay home. A used tier without a location
    /// is an error.
    pub fn to_store_placement(&self, table: &str) -> Result<pmolap_store::Placement> {
        self.validate()?;
        let file = self.file();
        // Structures the file does not list stay on the reference tier (DRAM, or where
        // the reference tier's location says).
        let reference = match self.tiers.first().and_then(|t| t.location.as_deref()) {
            Some(loc) => loc
                .parse::<Location>()
                .map_err(|e| Error::invalid(file, "tiers[0]", format!("{e}")))?,
            None => Location::Tier(pmolap_tier::TierSpec::Dram { node: None }),
        };
        let mut p = pmolap_store::Placement::home();
        p.default = reference;
        for (i, s) in self.structures.iter().enumerate() {
            if s.table != table {
                continue;
            }
            let t = self.tiers.iter().find(|t| t.name == s.tier);
            let loc = t.and_then(|t| t.location.as_deref()).ok_or_else(|| {
                Error::invalid(
                    file,
                    format!(
                        "structures[{i}] ({})",
                        structure_id(&s.table, &s.column, s.kind)
                    ),
                    format!("tier `{}` has no location to apply it to", s.tier),
                )
            })?;
            let loc: Location = loc
                .parse()
                .map_err(|e| Error::invalid(file, format!("tier {}", s.tier), format!("{e}")))?;
            p = p.with(&s.column, s.kind, loc);
        }
        Ok(p)
    }
}
