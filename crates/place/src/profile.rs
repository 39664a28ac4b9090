//! `Profile`: a slow tier's extra cost per access over the reference tier (DRAM), per
//! structure kind, access type and variant (dictionary value type, data-vector encoding
//! and optionally bit width) — the `b` of Eq. 3–5 in the placement paper. Profiles are
//! labelled with where their numbers come from: published (the paper's Table 2, built
//! in) or measured here (on a named machine).
//!
//! JSON (`docs/placement.md`):
//!
//! ```json
//! { "format": "pmolap-profile", "version": 1, "tier": "optane-200",
//!   "source": { "kind": "published", "citation": "..." }, "store_format": 1,
//!   "costs": [ { "structure": "data_vector", "variant": "uncompressed",
//!                "access": "lookup", "extra_ns": 225.8,
//!                "dram_ns": 589.4, "tier_ns": 815.2, "note": "Table 2" } ] }
//! ```

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

use pmolap_store::{AccessCounts, StructureKind};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::files::{check_header, parse_json, read_json, write_json};

/// The `format` field of a profile document.
pub const PROFILE_FORMAT: &str = "pmolap-profile";
/// The version of the profile document this build reads and writes.
pub const PROFILE_VERSION: u32 = 1;
/// The largest cost a profile may state, in ns per access or per page: one second (a
/// page read from the slowest disk takes milliseconds; anything above is not a
/// measurement).
pub const MAX_NS: f64 = 1e9;
/// The largest page a page-granular tier may move (1 GiB, a huge page).
pub const MAX_PAGE_BYTES: u64 = 1 << 30;
/// The most pages one fault may bring in (readahead windows are at most a few MB).
pub const MAX_FAULT_PAGES: u64 = 1 << 20;
/// The name of the reference tier every profile's costs are relative to.
pub const REFERENCE_TIER: &str = "dram";

/// The access types of §4.1, as the store counts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// Each entry read by a sequential pass.
    Scan,
    /// A random lookup (the first of a batch, or a stride beyond the far class).
    Lookup,
    /// A lookup a short stride after the previous one (the store: stride < 8).
    NearDense,
    /// The store: 8 <= stride < 512.
    MediumDense,
    /// The store: 512 <= stride < 2^18.
    FarDense,
}

impl Access {
    pub const ALL: [Access; 5] = [
        Access::Scan,
        Access::Lookup,
        Access::NearDense,
        Access::MediumDense,
        Access::FarDense,
    ];

    /// The three dense classes.
    pub const DENSE: [Access; 3] = [Access::NearDense, Access::MediumDense, Access::FarDense];

    /// This access type's counter in `c`.
    pub fn count(self, c: &AccessCounts) -> u64 {
        match self {
            Access::Scan => c.scan,
            Access::Lookup => c.lookup,
            Access::NearDense => c.near_dense,
            Access::MediumDense => c.medium_dense,
            Access::FarDense => c.far_dense,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Access::Scan => "scan",
            Access::Lookup => "lookup",
            Access::NearDense => "near_dense",
            Access::MediumDense => "medium_dense",
            Access::FarDense => "far_dense",
        }
    }
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which implementation of a structure a cost applies to: the dictionary's value type,
/// the data vector's encoding, or `any` for inverted indexes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    /// Integer dictionary.
    Int,
    /// String dictionary.
    Str,
    /// Bit-packed data vector with no further compression.
    Uncompressed,
    /// Run-length-encoded data vector.
    Rle,
    /// Inverted index (one implementation).
    Any,
}

impl Variant {
    /// Whether this variant exists for `kind`.
    pub fn fits(self, kind: StructureKind) -> bool {
        matches!(
            (kind, self),
            (StructureKind::Dictionary, Variant::Int | Variant::Str)
                | (
                    StructureKind::DataVector,
                    Variant::Uncompressed | Variant::Rle
                )
                | (StructureKind::InvertedIndex, Variant::Any)
        )
    }

    fn name(self) -> &'static str {
        match self {
            Variant::Int => "int",
            Variant::Str => "str",
            Variant::Uncompressed => "uncompressed",
            Variant::Rle => "rle",
            Variant::Any => "any",
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a profile's numbers come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Source {
    /// Numbers from a publication, for what-if use on machines that lack the tier.
    Published { citation: String },
    /// Numbers measured on this kind of machine.
    MeasuredHere { machine: String },
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Published { citation } => write!(f, "published ({citation})"),
            Source::MeasuredHere { machine } => write!(f, "measured here ({machine})"),
        }
    }
}

/// One extra cost: `extra_ns` more per access of type `access` on a `structure` of
/// `variant` (and, if given, of exactly `bit_width` bits) on this tier than on DRAM.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CostEntry {
    pub structure: StructureKind,
    pub variant: Variant,
    /// Data vectors only: the width this cost was measured at. An entry without a width
    /// applies to every width that has no entry of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bit_width: Option<u32>,
    pub access: Access,
    /// Tier latency minus DRAM latency per access (the paper's "Diff."). Negative values
    /// (measurement noise) are kept as given and clamped to zero by the model (§4.2).
    pub extra_ns: f64,
    /// The DRAM latency per access, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dram_ns: Option<f64>,
    /// The tier's latency per access, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier_ns: Option<f64>,
    /// Where this number comes from, if not the profile's source as a whole says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl CostEntry {
    /// A width-less entry with only the extra cost and where it comes from.
    pub fn noted(
        structure: StructureKind,
        variant: Variant,
        access: Access,
        extra_ns: f64,
        note: String,
    ) -> CostEntry {
        CostEntry {
            structure,
            variant,
            bit_width: None,
            access,
            extra_ns,
            dram_ns: None,
            tier_ns: None,
            note: Some(note),
        }
    }

    /// `structure/variant[/wN]/access`, as error messages name entries.
    pub fn key(&self) -> String {
        cost_key(self.structure, self.variant, self.bit_width, self.access)
    }
}

/// `structure/variant[/wN]/access`.
pub(crate) fn cost_key(
    kind: StructureKind,
    variant: Variant,
    bit_width: Option<u32>,
    access: Access,
) -> String {
    let kind = match kind {
        StructureKind::Dictionary => "dictionary",
        StructureKind::DataVector => "data_vector",
        StructureKind::InvertedIndex => "inverted_index",
    };
    match bit_width {
        Some(w) => format!("{kind}/{variant}/w{w}/{access}"),
        None => format!("{kind}/{variant}/{access}"),
    }
}

/// What a page-granular tier costs per page that is not in memory yet, over DRAM.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageCosts {
    /// The unit the tier moves (the page size the mapping faults in).
    pub page_bytes: u64,
    /// Extra ns per page touched in random order (a major fault, one page read).
    pub random_page_ns: f64,
    /// Extra ns per page of a sequential pass (faults with the kernel's readahead).
    pub sequential_page_ns: f64,
    /// Pages one random fault brings in (the kernel reads around a faulting page: the
    /// device's readahead window); random touches closer than this share a read.
    #[serde(default = "one")]
    pub fault_pages: u64,
    /// The device's readahead window in pages (`/sys/class/bdi/*/read_ahead_kb`, as
    /// `place profile` reads it): a page missed at most this far past the structure's
    /// last missed page is read by the stream, not faulted
    /// ([`crate::pages::DEFAULT_READAHEAD_PAGES`] when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub readahead_pages: Option<u64>,
    /// The wall time in ns per page of a read-around window that a major fault reads
    /// synchronously (the faulting worker waits for the window), measured by `place
    /// profile` with isolated faults: their time over the pages the kernel read for
    /// them. Absent in profiles from before it was measured
    /// ([`crate::pages::PageReads::cost`]).
    pub fault_page_ns: Option<f64>,
    /// The wall ns of one small read from the device (one page, no readahead): the
    /// latency every major fault pays before its window's pages, measured by `place
    /// profile` with scattered one-page reads. With it, a fault that reads few pages (a
    /// small file: a dictionary, a dimension's column) costs at least this much instead
    /// of its pages' share of a whole window's time. Absent in older profiles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault_latency_ns: Option<f64>,
    /// The extra wall ns per page read while the page cache it goes into is full (a
    /// memory cgroup at its limit reclaims a page for every page read in), over a page
    /// read with room to spare; measured by `place profile` streaming a file cold and
    /// then twice inside a memory cgroup smaller than it, as the system CPU per page read
    /// the cgroup's direct reclaim adds, over the workers (it runs in each faulting
    /// worker; profiles before 2026-11-29 hold an unpaired wall-time difference, five to
    /// nine times smaller). Absent in older profiles and where no memory cgroup could be
    /// made (then 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reclaim_page_ns: Option<f64>,
    /// The wall ns per page read when several files are streamed at once by every
    /// worker (the engine's morsels read the columns of a query together), by number of
    /// streams, ascending; where given, the page model prices the pages of a step with
    /// as many streams as it reads structures (interpolated linearly, held beyond the
    /// last), instead of `sequential_page_ns` (absent in older profiles).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streams: Option<Vec<StreamCost>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The wall ns per page read with `streams` files streamed at once.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamCost {
    pub streams: u32,
    pub page_ns: f64,
}

impl PageCosts {
    /// The wall ns per page read in a step that streams `k` structures at once: from
    /// [`PageCosts::streams`] (linear between its points, the first below it, the last
    /// beyond it), else `sequential_page_ns`.
    pub fn page_ns(&self, k: u32) -> f64 {
        let Some(pts) = self.streams.as_deref().filter(|p| !p.is_empty()) else {
            return self.sequential_page_ns.max(0.0);
        };
        let k = k.max(1);
        let ns = match pts.iter().position(|p| p.streams >= k) {
            None => pts[pts.len() - 1].page_ns,
            Some(0) => pts[0].page_ns,
            Some(i) => {
                let (a, b) = (pts[i - 1], pts[i]);
                let f = f64::from(k - a.streams) / f64::from(b.streams - a.streams);
                a.page_ns + f * (b.page_ns - a.page_ns)
            }
        };
        ns.max(0.0)
    }
}

fn one() -> u64 {
    1
}

/// A slow tier's access-cost profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Always [`PROFILE_FORMAT`].
    pub format: String,
    /// Always [`PROFILE_VERSION`].
    pub version: u32,
    /// The tier's name (what placement files call it); not [`REFERENCE_TIER`].
    pub tier: String,
    pub source: Source,
    /// The store format version whose structures the costs describe.
    pub store_format: u32,
    #[serde(default)]
    pub description: String,
    pub costs: Vec<CostEntry>,
    /// Page-granular tiers only (a file behind the page cache): the cost of bringing a
    /// page in, for the page model (`docs/placement.md`, "The page model"). Absent for
    /// byte-addressable tiers (DRAM, PMEM, CXL), where the per-access costs say it all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<PageCosts>,
    /// The file the profile was loaded from (not part of the document; error messages
    /// name it). `None` for a profile built in code.
    #[serde(skip)]
    pub origin: Option<String>,
}

/// The paper, as the built-in profiles cite it.
pub const PAPER_CITATION: &str = "Lasch, Legler, Scheirle, May, Sattler: Cost Modelling for Optimal Data Placement in Heterogeneous Main Memory, PVLDB 15(11):2867-2880, 2022, Table 2 (Sec. 4.2)";

/// The names [`Profile::builtin`] knows: the paper's Table 2 (`optane-100`,
/// `optane-200`) and the what-if profiles derived from published latency and bandwidth
/// figures (`cxl`, `far-numa`; [`crate::whatif`]).
pub const BUILTIN_PROFILES: [&str; 4] = ["optane-100", "optane-200", "cxl", "far-numa"];

impl Profile {
    /// The paper's Table 2 for Intel Optane PM 100 Series (Xeon Platinum 8260L), see
    /// [`Profile::builtin`] for what is and is not from the table.
    pub fn optane_100() -> Profile {
        published(
            "optane-100",
            "Intel Optane PM 100 Series vs DDR4-2666 (Xeon Platinum 8260L), App Direct, NUMA-local",
            &TABLE2_100,
        )
    }

    /// The paper's Table 2 for Intel Optane PM 200 Series (Xeon Platinum 8368).
    pub fn optane_200() -> Profile {
        published(
            "optane-200",
            "Intel Optane PM 200 Series vs DDR4-3200 (Xeon Platinum 8368), App Direct, NUMA-local",
            &TABLE2_200,
        )
    }

    /// CXL-attached DRAM vs local DRAM, derived from published figures
    /// ([`crate::whatif`] gives the derivation and the sources).
    pub fn cxl() -> Profile {
        crate::whatif::cxl()
    }

    /// Remote-socket (far-NUMA) DRAM vs local DRAM, derived from published figures
    /// ([`crate::whatif`] gives the derivation and the sources).
    pub fn far_numa() -> Profile {
        crate::whatif::far_numa()
    }

    /// A built-in profile by name ([`BUILTIN_PROFILES`]): `optane-100`, `optane-200`,
    /// and the derived what-if profiles `cxl` and `far-numa` ([`crate::whatif`]).
    ///
    /// In the Optane profiles, random lookups and scans are transcribed from the paper's
    /// Table 2 (DRAM, PMEM and Diff. columns as printed; the -0.3 ns string-dictionary
    /// scan on the 100 Series is kept and clamped to zero by the model, as §4.2 does). The table has no dense
    /// lookups: §4.2 gives them only as orders of magnitude read off Figure 6 (100
    /// Series, "qualitatively similar" for the other structures): near < 1 ns, medium
    /// "in the order of magnitude of ten nanoseconds", far "of a hundred nanoseconds".
    /// The profiles use 1, 10 and 100 ns for every data vector and dictionary, on both
    /// series, each entry saying so in its note; inverted indexes get only the near
    /// class (§4.2 counts only adjacent lookups as dense there, as the store does).
    /// Integer-dictionary scans and inverted-index scans are not in the table and are
    /// left out (the store never counts them): a workload that has them needs a
    /// measured profile.
    pub fn builtin(name: &str) -> Option<Profile> {
        match name {
            "optane-100" => Some(Profile::optane_100()),
            "optane-200" => Some(Profile::optane_200()),
            "cxl" => Some(Profile::cxl()),
            "far-numa" => Some(Profile::far_numa()),
            _ => None,
        }
    }

    /// A profile measured on `machine`, validated.
    pub fn measured(
        tier: &str,
        machine: &str,
        store_format: u32,
        costs: Vec<CostEntry>,
    ) -> Result<Profile> {
        let p = Profile {
            format: PROFILE_FORMAT.into(),
            version: PROFILE_VERSION,
            tier: tier.into(),
            source: Source::MeasuredHere {
                machine: machine.into(),
            },
            store_format,
            description: String::new(),
            costs,
            pages: None,
            origin: None,
        };
        p.validate("<memory>")?;
        Ok(p)
    }

    /// Loads and validates a profile file (at most
    /// [`MAX_DOCUMENT_BYTES`](crate::MAX_DOCUMENT_BYTES), read through
    /// `pmolap_os::input`).
    pub fn load(path: &Path) -> Result<Self> {
        let p: Profile = read_json(path)?;
        Profile::checked(p, path.display().to_string())
    }

    /// A profile from its JSON text, validated as [`Profile::load`] does; `origin`
    /// names it in errors.
    pub fn parse(origin: &str, text: &str) -> Result<Self> {
        let p: Profile = parse_json(Path::new(origin), text)?;
        Profile::checked(p, origin.to_string())
    }

    fn checked(mut p: Profile, file: String) -> Result<Self> {
        p.validate(&file)?;
        p.origin = Some(file);
        Ok(p)
    }

    /// Fails unless the profile is for store format `store_format` (the workload's).
    pub fn check_store_format(&self, store_format: u32) -> Result<()> {
        if self.store_format == store_format {
            return Ok(());
        }
        Err(Error::VersionMismatch {
            file: self.origin.clone().unwrap_or_else(|| "<built-in>".into()),
            tier: self.tier.clone(),
            profile_version: self.store_format,
            workload_version: store_format,
        })
    }

    /// The profile as written: with its `kind` (`place-profile`) first.
    pub fn document(&self) -> crate::files::Tagged<'_, Self> {
        crate::files::Tagged::new(pmolap_results::kind::PLACE_PROFILE, self)
    }

    /// Writes the profile as JSON.
    pub fn save(&self, path: &Path) -> Result<()> {
        write_json(path, &self.document())
    }

    /// Checks the header, the tier name, and every entry (variant fits the structure,
    /// width only on data vectors, finite cost, no entry twice); `file` names the
    /// document in errors.
    pub fn validate(&self, file: &str) -> Result<()> {
        check_header(
            file,
            &self.format,
            self.version,
            PROFILE_FORMAT,
            PROFILE_VERSION,
        )?;
        if self.tier.is_empty() || self.tier == REFERENCE_TIER {
            return Err(Error::invalid(
                file,
                "tier",
                format!(
                    "`{}` cannot name a slow tier (empty, or the reference tier `{REFERENCE_TIER}`)",
                    self.tier
                ),
            ));
        }
        if let Some(pc) = &self.pages {
            let ok = pc.page_bytes.is_power_of_two()
                && pc.page_bytes <= MAX_PAGE_BYTES
                && (1..=MAX_FAULT_PAGES).contains(&pc.fault_pages);
            if !ok {
                return Err(Error::invalid(
                    file,
                    "pages",
                    format!(
                        "page_bytes must be a power of two up to {MAX_PAGE_BYTES}, fault_pages in 1..={MAX_FAULT_PAGES}"
                    ),
                ));
            }
            for (name, v) in [
                ("random_page_ns", pc.random_page_ns),
                ("sequential_page_ns", pc.sequential_page_ns),
                ("fault_page_ns", pc.fault_page_ns.unwrap_or(0.0)),
                ("fault_latency_ns", pc.fault_latency_ns.unwrap_or(0.0)),
                ("reclaim_page_ns", pc.reclaim_page_ns.unwrap_or(0.0)),
            ]
            .into_iter()
            .chain(
                pc.streams
                    .iter()
                    .flatten()
                    .map(|s| ("streams[].page_ns", s.page_ns)),
            ) {
                if !(v.is_finite() && (0.0..=MAX_NS).contains(&v)) {
                    return Err(Error::invalid(
                        file,
                        format!("pages.{name}"),
                        format!("{v} is not a number of ns in 0..={MAX_NS:e}"),
                    ));
                }
            }
            let pts = pc.streams.as_deref().unwrap_or(&[]);
            if pts.first().is_some_and(|p| p.streams == 0)
                || pts.windows(2).any(|w| w[0].streams >= w[1].streams)
            {
                return Err(Error::invalid(
                    file,
                    "pages.streams",
                    "stream counts must be at least 1 and strictly ascending",
                ));
            }
        }
        let mut seen = BTreeSet::new();
        for (i, c) in self.costs.iter().enumerate() {
            let item = format!("costs[{i}] ({})", c.key());
            let bad = |p: String| Error::invalid(file, &item, p);
            if !c.variant.fits(c.structure) {
                return Err(bad(format!(
                    "variant `{}` does not exist for {}",
                    c.variant, c.structure
                )));
            }
            if let Some(w) = c.bit_width {
                if c.structure != StructureKind::DataVector || !(1..=32).contains(&w) {
                    return Err(bad(format!(
                        "bit_width {w}: only data vectors have widths, 1..=32"
                    )));
                }
            }
            // Negative extra costs are measurement noise (kept, clamped to zero by the
            // model); a latency cannot be negative, and nothing takes more than a second
            // per access.
            if !(c.extra_ns.is_finite() && c.extra_ns.abs() <= MAX_NS) {
                return Err(bad(format!(
                    "extra_ns {} is not a number of ns within ±{MAX_NS:e}",
                    c.extra_ns
                )));
            }
            for (name, v) in [("dram_ns", c.dram_ns), ("tier_ns", c.tier_ns)] {
                if let Some(v) = v.filter(|v| !(v.is_finite() && (0.0..=MAX_NS).contains(v))) {
                    return Err(bad(format!(
                        "{name} {v} is not a latency in 0..={MAX_NS:e} ns"
                    )));
                }
            }
            if !seen.insert((c.structure, c.variant, c.bit_width, c.access)) {
                return Err(bad("appears twice".into()));
            }
        }
        Ok(())
    }

    /// The entry for one access on one structure variant: the entry of exactly
    /// `bit_width` if there is one, else the entry without a width.
    pub fn cost(
        &self,
        kind: StructureKind,
        variant: Variant,
        bit_width: Option<u32>,
        access: Access,
    ) -> Option<&CostEntry> {
        let matches = |c: &&CostEntry, w: Option<u32>| {
            c.structure == kind && c.variant == variant && c.access == access && c.bit_width == w
        };
        bit_width
            .and_then(|w| self.costs.iter().find(|c| matches(c, Some(w))))
            .or_else(|| self.costs.iter().find(|c| matches(c, None)))
    }
}

/// One row of Table 2: structure, variant, access, DRAM ns, PMEM ns, Diff. ns.
pub(crate) type Row = (StructureKind, Variant, Access, f64, f64, f64);

use Access::{Lookup, Scan};
use StructureKind::{DataVector as Dv, Dictionary as Dict, InvertedIndex as Inv};
use Variant::{Any, Int, Rle, Str, Uncompressed as Unc};

/// Table 2, "100 Series" columns, as printed.
pub(crate) const TABLE2_100: [Row; 8] = [
    (Dv, Unc, Lookup, 691.4, 1304.4, 613.0),
    (Dv, Unc, Scan, 0.5, 1.2, 0.7),
    (Dv, Rle, Lookup, 2268.0, 4670.0, 2401.9),
    (Dv, Rle, Scan, 3.0, 4.4, 1.4),
    (Dict, Int, Lookup, 146.7, 413.6, 267.0),
    (Dict, Str, Lookup, 523.2, 860.1, 336.9),
    (Dict, Str, Scan, 231.5, 231.2, -0.3),
    (Inv, Any, Lookup, 680.6, 1035.0, 354.4),
];

/// Table 2, "200 Series" columns, as printed.
pub(crate) const TABLE2_200: [Row; 8] = [
    (Dv, Unc, Lookup, 589.4, 815.2, 225.8),
    (Dv, Unc, Scan, 0.6, 1.0, 0.4),
    (Dv, Rle, Lookup, 1907.4, 3126.1, 1218.7),
    (Dv, Rle, Scan, 3.2, 4.4, 1.2),
    (Dict, Int, Lookup, 107.9, 372.5, 264.5),
    (Dict, Str, Lookup, 483.8, 820.4, 336.6),
    (Dict, Str, Scan, 216.2, 216.2, 0.0),
    (Inv, Any, Lookup, 602.8, 868.5, 265.7),
];

/// Dense-lookup extra costs: the orders of magnitude §4.2 states for Figure 6.
const DENSE_ORDERS: [(Access, f64, &str); 3] = [
    (
        Access::NearDense,
        1.0,
        "Sec. 4.2 text on Fig. 6 (100 Series): near dense < 1 ns; 1 ns used",
    ),
    (
        Access::MediumDense,
        10.0,
        "Sec. 4.2 text on Fig. 6 (100 Series): medium dense ~10 ns (order of magnitude)",
    ),
    (
        Access::FarDense,
        100.0,
        "Sec. 4.2 text on Fig. 6 (100 Series): far dense ~100 ns (order of magnitude)",
    ),
];

fn published(tier: &str, description: &str, table: &[Row]) -> Profile {
    let mut costs: Vec<CostEntry> = table
        .iter()
        .map(
            |&(structure, variant, access, dram, tier_ns, diff)| CostEntry {
                structure,
                variant,
                bit_width: None,
                access,
                extra_ns: diff,
                dram_ns: Some(dram),
                tier_ns: Some(tier_ns),
                note: Some("Table 2".into()),
            },
        )
        .collect();
    for (structure, variant) in [(Dv, Unc), (Dv, Rle), (Dict, Int), (Dict, Str)] {
        for (access, ns, note) in DENSE_ORDERS {
            costs.push(CostEntry::noted(
                structure,
                variant,
                access,
                ns,
                note.into(),
            ));
        }
    }
    let (access, ns, note) = DENSE_ORDERS[0];
    costs.push(CostEntry {
        structure: Inv,
        variant: Any,
        bit_width: None,
        access,
        extra_ns: ns,
        dram_ns: None,
        tier_ns: None,
        note: Some(format!("{note}; adjacent entries only (Sec. 4.2)")),
    });
    Profile {
        format: PROFILE_FORMAT.into(),
        version: PROFILE_VERSION,
        tier: tier.into(),
        source: Source::Published {
            citation: PAPER_CITATION.into(),
        },
        store_format: pmolap_store::format::FORMAT_VERSION,
        description: description.into(),
        costs,
        pages: None,
        origin: None,
    }
}
