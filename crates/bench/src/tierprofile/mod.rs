//! `pmolap place profile --tier SPEC`: a tier's extra cost per access over DRAM, measured
//! with the method of the placement paper (§4.2) over pmolap's own store primitives —
//! the `DataVector::get`/`unpack`, `Dictionary::get`/`scan_strs` and `InvertedIndex`
//! code the engine and the store run — on one table opened twice in the same run: every
//! structure copied to DRAM, and every structure on the tier.
//!
//! - **lookup**: dependent random lookups (each position derived from the value just
//!   read, so no two loads overlap), one thread, over structures far larger than the LLC.
//! - **scan**: a sequential pass (`unpack` in blocks, `scan_strs`), ns per entry.
//! - **dense**: dependent lookups at strides 2^0 … 2^18 entries, each stride classed as
//!   the store's counters class it (near < 8, medium < 512, far < 2^18); a class's cost is
//!   the mean over its strides.
//! - `extra_ns` = tier − DRAM as measured (negative differences kept; the model clamps).
//!
//! On a page-granular tier (a `file:` directory on a disk filesystem: not tmpfs, not DAX)
//! the tier copy is the table's own files, mapped without prefaulting, and every pass
//! starts with the files' pages dropped (`POSIX_FADV_DONTNEED`): the per-access costs are
//! then first-touch costs, and the profile also gets [`PageCosts`](pmolap_place::PageCosts) (the `pages` module) — the extra cost per
//! page touched in random page order, and per page of a sequential pass.

mod pages;

use std::path::{Path, PathBuf};
use std::time::Instant;

use indicatif::ProgressBar;
use serde::Serialize;

use pmolap_place::{Access, CostEntry, Profile, Variant};
use pmolap_store::table::{OpenOptions, Table};
use pmolap_store::{
    ColumnDef, ColumnType, Placement, Schema, StructureKind, TableBuilder, WriteOptions,
};
use pmolap_tier::{RegionOptions, TierSpec, Topology};

use crate::error::{Error, Result};
use crate::machine::Machine;
use pages::page_costs;
pub use pages::readahead_pages;

/// What to measure.
#[derive(Debug, Clone)]
pub struct ProfileOptions {
    pub tier: TierSpec,
    /// The profile's tier name.
    pub name: String,
    /// Rows of the measured table (its data vectors hold this many ids).
    pub rows: usize,
    /// Repetitions of each measurement (the median is kept).
    pub reps: usize,
    /// Accesses per lookup measurement.
    pub lookups: usize,
}

impl ProfileOptions {
    /// Defaults: 16 Mi rows (a 40 MiB 20-bit data vector, an 8 MiB int dictionary), 3
    /// repetitions, 200 000 lookups; `quick`: 1 Mi rows, 1 repetition, 20 000 lookups.
    pub fn new(tier: TierSpec, name: String, quick: bool) -> ProfileOptions {
        ProfileOptions {
            tier,
            name,
            rows: if quick { 1 << 20 } else { 1 << 24 },
            reps: if quick { 1 } else { 3 },
            lookups: if quick { 20_000 } else { 200_000 },
        }
    }

    /// A profile's tier name for `spec` when none is given: its alphanumerics, the rest
    /// as dashes (`file:/mnt/nvme` → `file--mnt-nvme`).
    pub fn default_name(spec: &TierSpec) -> String {
        spec.to_string()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect::<String>()
            .trim_matches('-')
            .to_string()
    }

    /// Fails naming the first option that cannot be measured: DRAM as the tier (it is
    /// the reference), fewer than 65,536 rows, no repetition.
    pub fn check(&self) -> Result<()> {
        let bad = |msg: String| {
            Err(Error::Invalid {
                bench: "place profile".into(),
                msg,
            })
        };
        if self.tier == (TierSpec::Dram { node: None }) {
            return bad(
                "--tier dram: DRAM is the reference tier; profile another tier against it".into(),
            );
        }
        if self.rows < 1 << 16 {
            return bad(format!("--rows {}: at least 65536 rows", self.rows));
        }
        if self.reps == 0 {
            return bad("--reps must be at least 1".into());
        }
        Ok(())
    }
}

/// The measured table's columns: (name, distinct values, bit width of its ids).
const INT_WIDE: (&str, usize) = ("a", 1 << 20);
const INT_NARROW: (&str, usize) = ("b", 1 << 8);
const STR: (&str, usize) = ("s", 1 << 16);

/// Strides of the dense measurements: 2^0 … 2^18 entries.
const STRIDES: std::ops::RangeInclusive<u32> = 0..=18;

/// The dense class of a stride, as `pmolap_store::counters` classes it.
pub fn dense_class(stride: u64) -> Option<Access> {
    use pmolap_store::counters::{FAR_MAX_STRIDE, MEDIUM_MAX_STRIDE, NEAR_MAX_STRIDE};
    if stride < NEAR_MAX_STRIDE {
        Some(Access::NearDense)
    } else if stride < MEDIUM_MAX_STRIDE {
        Some(Access::MediumDense)
    } else if stride < FAR_MAX_STRIDE {
        Some(Access::FarDense)
    } else {
        None
    }
}

/// Mean ns per dense class from `(stride, ns)` points.
pub fn class_means(points: &[(u64, f64)]) -> Vec<(Access, f64)> {
    Access::DENSE
        .iter()
        .filter_map(|&c| {
            let v: Vec<f64> = points
                .iter()
                .filter(|(s, _)| dense_class(*s) == Some(c))
                .map(|p| p.1)
                .collect();
            (!v.is_empty()).then(|| (c, v.iter().sum::<f64>() / v.len() as f64))
        })
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// A cheap mix for dependent positions.
#[inline(always)]
fn next(x: u64, v: u64) -> u64 {
    (x ^ v.wrapping_add(0x9E37_79B9_7F4A_7C15)).wrapping_mul(0xBF58_476D_1CE4_E5B9) >> 17
}

/// The two copies of the table and how the tier copy is made cold.
struct Copies {
    dram: Table,
    tier: Option<Table>,
    dir: PathBuf,
    /// The tier copy is the table's files, paged in on demand: drop before each pass.
    paged: bool,
    spec: TierSpec,
}

impl Copies {
    /// The tier copy, freshly opened (and cold when paged).
    fn tier(&mut self) -> Result<&Table> {
        if self.paged || self.tier.is_none() {
            self.tier = None;
            let placement = if self.paged {
                Placement::home()
            } else {
                Placement::all(self.spec.clone())
            };
            let opts = OpenOptions {
                verify_checksums: !self.paged,
                region: RegionOptions {
                    prefault: !self.paged,
                    ..RegionOptions::default()
                },
                lazy: false,
            };
            if self.paged {
                drop_pages(&self.dir)?;
            }
            self.tier = Some(Table::open_with(&self.dir, &placement, &opts)?);
            if self.paged {
                drop_pages(&self.dir)?;
            }
        }
        Ok(self.tier.as_ref().expect("opened above"))
    }
}

/// Drops the page-cache pages of every file in `dir` (the table's files), through the
/// one implementation the cold runs use ([`crate::ssb::data::drop_pages`]).
fn drop_pages(dir: &Path) -> Result<()> {
    let mut files = Vec::new();
    for e in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let p = e.map_err(|e| Error::io(dir, e))?.path();
        if p.is_file() {
            files.push(p);
        }
    }
    crate::ssb::data::drop_pages(&files)
}

/// One measurement on both copies: `f(table)` returns (ns, accesses); the median ns per
/// access of `reps` runs on each.
fn both(
    c: &mut Copies,
    reps: usize,
    f: &dyn Fn(&Table) -> Result<(f64, u64)>,
) -> Result<(f64, f64)> {
    let per = |t: &Table| -> Result<f64> {
        let (ns, n) = f(t)?;
        Ok(ns / n.max(1) as f64)
    };
    let mut d = Vec::new();
    let mut t = Vec::new();
    // One untimed run on DRAM first: the tier's runs are the ones meant to be cold.
    per(&c.dram)?;
    for _ in 0..reps {
        if pmolap_os::signal::interrupted() {
            return Err(pmolap_os::Error::Interrupted.into());
        }
        d.push(per(&c.dram)?);
        t.push(per(c.tier()?)?);
    }
    Ok((median(d), median(t)))
}

fn timed(f: impl FnOnce() -> u64) -> (f64, u64) {
    let t0 = Instant::now();
    let n = f();
    (t0.elapsed().as_nanos() as f64, n)
}

fn build(dir: &Path, rows: usize) -> Result<()> {
    let schema = Schema {
        columns: [
            (INT_WIDE.0, ColumnType::Int),
            (INT_NARROW.0, ColumnType::Int),
            (STR.0, ColumnType::Str),
        ]
        .iter()
        .map(|(n, t)| ColumnDef {
            name: n.to_string(),
            ty: *t,
        })
        .collect(),
    };
    let mut b = TableBuilder::new(schema);
    let mut x = 0x1234_5678u64;
    let mut wide = Vec::with_capacity(rows);
    let mut narrow = Vec::with_capacity(rows);
    for i in 0..rows {
        x = next(x, i as u64);
        // Every distinct value appears (the first rows cycle through them).
        wide.push(
            if i < INT_WIDE.1 {
                i as u64
            } else {
                x % INT_WIDE.1 as u64
            } as i64
                * 7,
        );
        narrow.push((x >> 20) as i64 % INT_NARROW.1 as i64);
    }
    b.extend_ints(0, &wide)?;
    b.extend_ints(1, &narrow)?;
    drop((wide, narrow));
    let strs: Vec<String> = (0..STR.1)
        .map(|k| format!("value-{k:08}-{}", k % 97))
        .collect();
    let refs: Vec<&str> = (0..rows)
        .map(|i| strs[(i * 2_654_435_761) % STR.1].as_str())
        .collect();
    b.extend_strs(2, refs.iter().copied())?;
    let opts = WriteOptions {
        index_columns: vec![INT_NARROW.0.to_string()],
        // The profile prices dictionary lookups: the int columns must have dictionaries
        // (a frame of reference decodes without reading memory).
        dictionary_only: true,
        ..WriteOptions::default()
    };
    b.finish(dir, &opts)?;
    Ok(())
}

/// Measures the profile; `pb` ticks per measurement.
pub fn measure(o: &ProfileOptions, topo: &Topology, pb: &ProgressBar) -> Result<Profile> {
    o.check()?;
    let (dir, paged, _guard) = table_dir(&o.tier, topo)?;
    pb.set_message("building the table");
    build(&dir, o.rows)?;
    let dram = Table::open_with(
        &dir,
        &Placement::all(TierSpec::Dram { node: None }),
        &OpenOptions::default(),
    )?;
    let mut c = Copies {
        dram,
        tier: None,
        dir: dir.clone(),
        paged,
        spec: o.tier.clone(),
    };
    let mut costs = Vec::new();
    let mut add = |s: StructureKind, v: Variant, w: Option<u32>, a: Access, (d, t): (f64, f64)| {
        costs.push(CostEntry {
            structure: s,
            variant: v,
            bit_width: w,
            access: a,
            extra_ns: t - d,
            dram_ns: Some(d),
            tier_ns: Some(t),
            note: paged.then(|| "page-granular tier measured cold: first-touch costs".into()),
        });
        pb.inc(1);
    };
    let n = o.lookups;
    pb.set_length(22);
    // Data vectors (the wide and the narrow column).
    for col in [INT_WIDE.0, INT_NARROW.0] {
        let w = c.dram.column(col)?.dv.width();
        pb.set_message(format!("data vector, {w} bits"));
        let r = both(&mut c, o.reps, &|t| {
            let dv = &t.column(col)?.dv;
            let rows = dv.len() as u64;
            Ok(timed(|| {
                let mut x = 1u64;
                for _ in 0..n {
                    x = next(x, dv.get((x % rows) as usize) as u64);
                }
                std::hint::black_box(x);
                n as u64
            }))
        })?;
        add(
            StructureKind::DataVector,
            Variant::Uncompressed,
            Some(w),
            Access::Lookup,
            r,
        );
        let r = both(&mut c, o.reps, &|t| {
            let dv = &t.column(col)?.dv;
            let mut buf = vec![0u32; 4096];
            Ok(timed(|| {
                let mut s = 0u64;
                let mut start = 0;
                while start < dv.len() {
                    let k = buf.len().min(dv.len() - start);
                    dv.unpack(start, &mut buf[..k]);
                    s = s.wrapping_add(buf[..k].iter().map(|&v| v as u64).sum::<u64>());
                    start += k;
                }
                std::hint::black_box(s);
                dv.len() as u64
            }))
        })?;
        add(
            StructureKind::DataVector,
            Variant::Uncompressed,
            Some(w),
            Access::Scan,
            r,
        );
        let mut dram = Vec::new();
        let mut tier = Vec::new();
        for e in STRIDES {
            let d = 1u64 << e;
            let (a, b) = both(&mut c, o.reps, &|t| {
                let dv = &t.column(col)?.dv;
                let rows = dv.len() as u64;
                Ok(timed(|| {
                    let mut i = 0u64;
                    for _ in 0..n {
                        let v = dv.get(i as usize) as u64;
                        // `v >> 40` is 0, but the next position depends on the load.
                        i = (i + d + (v >> 40)) % rows;
                    }
                    std::hint::black_box(i);
                    n as u64
                }))
            })?;
            dram.push((d, a));
            tier.push((d, b));
        }
        for ((cls, a), (_, b)) in class_means(&dram).into_iter().zip(class_means(&tier)) {
            add(
                StructureKind::DataVector,
                Variant::Uncompressed,
                Some(w),
                cls,
                (a, b),
            );
        }
    }
    // The width-less data-vector entries: the wide column's (the costlier).
    let wide_w = c.dram.column(INT_WIDE.0)?.dv.width();
    let extra: Vec<CostEntry> = costs
        .iter()
        .filter(|e| e.bit_width == Some(wide_w))
        .map(|e| CostEntry {
            bit_width: None,
            note: Some(format!(
                "the {wide_w}-bit data vector's cost, for every other width"
            )),
            ..e.clone()
        })
        .collect();
    costs.extend(extra);
    dictionaries(&mut c, o, &mut costs, paged, pb)?;
    let pages = if paged {
        pb.set_message("page costs");
        Some(page_costs(&mut c, o)?)
    } else {
        None
    };
    let machine = Machine::from_topology(topo);
    let mut p = Profile::measured(
        &o.name,
        &format!(
            "{} ({} CPUs)",
            machine.cpu_model.trim(),
            machine.logical_cpus
        ),
        pmolap_store::format::FORMAT_VERSION,
        costs,
    )?;
    p.pages = pages;
    p.description = format!(
        "{} measured against DRAM by `pmolap place profile`: {} rows, {} lookups per measurement, median of {}{}",
        o.tier,
        o.rows,
        o.lookups,
        o.reps,
        if paged { "; page-granular: pages dropped before every pass" } else { "" }
    );
    Ok(p)
}

/// Integer and string dictionaries and the inverted index.
fn dictionaries(
    c: &mut Copies,
    o: &ProfileOptions,
    costs: &mut Vec<CostEntry>,
    paged: bool,
    pb: &ProgressBar,
) -> Result<()> {
    let n = o.lookups;
    let mut add = |s: StructureKind, v: Variant, a: Access, (d, t): (f64, f64)| {
        costs.push(CostEntry {
            structure: s,
            variant: v,
            bit_width: None,
            access: a,
            extra_ns: t - d,
            dram_ns: Some(d),
            tier_ns: Some(t),
            note: paged.then(|| "page-granular tier measured cold: first-touch costs".into()),
        });
        pb.inc(1);
    };
    pb.set_message("dictionaries");
    let int_lookup = |t: &Table| -> Result<(f64, u64)> {
        let d = &t.column(INT_WIDE.0)?.dict;
        let len = d.len() as u64;
        Ok(timed(|| {
            let mut x = 1u64;
            for _ in 0..n {
                let v = d.get((x % len) as u32).as_int().unwrap_or(0) as u64;
                x = next(x, v);
            }
            std::hint::black_box(x);
            n as u64
        }))
    };
    add(
        StructureKind::Dictionary,
        Variant::Int,
        Access::Lookup,
        both(c, o.reps, &int_lookup)?,
    );
    let mut dram = Vec::new();
    let mut tier = Vec::new();
    for e in STRIDES {
        let step = 1u64 << e;
        let (a, b) = both(c, o.reps, &|t| {
            let d = &t.column(INT_WIDE.0)?.dict;
            let len = d.len() as u64;
            Ok(timed(|| {
                let mut i = 0u64;
                for _ in 0..n {
                    let v = d.get(i as u32).as_int().unwrap_or(0) as u64;
                    i = (i + step + (v >> 50)) % len;
                }
                std::hint::black_box(i);
                n as u64
            }))
        })?;
        dram.push((step, a));
        tier.push((step, b));
    }
    for ((cls, a), (_, b)) in class_means(&dram).into_iter().zip(class_means(&tier)) {
        add(StructureKind::Dictionary, Variant::Int, cls, (a, b));
    }
    let str_lookup = |t: &Table| -> Result<(f64, u64)> {
        let d = &t.column(STR.0)?.dict;
        let len = d.len() as u64;
        Ok(timed(|| {
            let mut x = 1u64;
            for _ in 0..n {
                let s = d.get((x % len) as u32);
                let v = s.as_str().map_or(0, |s| s.as_bytes()[s.len() - 1] as u64);
                x = next(x, v);
            }
            std::hint::black_box(x);
            n as u64
        }))
    };
    add(
        StructureKind::Dictionary,
        Variant::Str,
        Access::Lookup,
        both(c, o.reps, &str_lookup)?,
    );
    let str_scan = |t: &Table| -> Result<(f64, u64)> {
        let d = &t.column(STR.0)?.dict;
        let mut err = None;
        let r = timed(|| match d.scan_strs(|s| s.ends_with("-7")) {
            Ok(v) => {
                std::hint::black_box(v.len());
                d.len() as u64
            }
            Err(e) => {
                err = Some(e);
                1
            }
        });
        match err {
            Some(e) => Err(e.into()),
            None => Ok(r),
        }
    };
    add(
        StructureKind::Dictionary,
        Variant::Str,
        Access::Scan,
        both(c, o.reps, &str_scan)?,
    );
    // Dense string-dictionary lookups: the int dictionary's classes describe the same
    // access shape; measured on the string dictionary's near class only (adjacent ids).
    for (cls, step) in [
        (Access::NearDense, 1u64),
        (Access::MediumDense, 64),
        (Access::FarDense, 4096),
    ] {
        let r = both(c, o.reps, &|t| {
            let d = &t.column(STR.0)?.dict;
            let len = d.len() as u64;
            Ok(timed(|| {
                let mut i = 0u64;
                for _ in 0..n {
                    let s = d.get(i as u32);
                    let v = s.as_str().map_or(0, |s| s.len() as u64);
                    i = (i + step + (v >> 40)) % len;
                }
                std::hint::black_box(i);
                n as u64
            }))
        })?;
        add(StructureKind::Dictionary, Variant::Str, cls, r);
    }
    pb.set_message("inverted index");
    let inv_lookup = |t: &Table| -> Result<(f64, u64)> {
        let ix = inverted_index(t)?;
        let len = ix.len() as u64;
        Ok(timed(|| {
            let mut x = 1u64;
            for _ in 0..n {
                let rows = ix.rows_of((x % len) as u32);
                let v = rows
                    .get((x as usize / 7) % rows.len().max(1))
                    .copied()
                    .unwrap_or(0);
                x = next(x, v as u64);
            }
            std::hint::black_box(x);
            n as u64
        }))
    };
    add(
        StructureKind::InvertedIndex,
        Variant::Any,
        Access::Lookup,
        both(c, o.reps, &inv_lookup)?,
    );
    let inv_near = |t: &Table| -> Result<(f64, u64)> {
        let ix = inverted_index(t)?;
        let len = ix.len() as u64;
        Ok(timed(|| {
            let mut i = 0u64;
            for _ in 0..n {
                let rows = ix.rows_of(i as u32);
                let v = rows.first().copied().unwrap_or(0) as u64;
                i = (i + 1 + (v >> 40)) % len;
            }
            std::hint::black_box(i);
            n as u64
        }))
    };
    add(
        StructureKind::InvertedIndex,
        Variant::Any,
        Access::NearDense,
        both(c, o.reps, &inv_near)?,
    );
    Ok(())
}

/// The measured table's inverted index (on the narrow column).
fn inverted_index(t: &Table) -> Result<&pmolap_store::InvertedIndex> {
    t.column(INT_NARROW.0)?
        .index
        .as_ref()
        .ok_or_else(|| Error::Ssb("the profile table lost its inverted index".into()))
}
/// Removes the profile's table directory when dropped.
struct RemoveDir(PathBuf);

impl Drop for RemoveDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Where the measured table is written: in the `file:` tier's directory (its files are
/// then the tier copy; page-granular unless the filesystem is tmpfs or DAX), else in a
/// temporary directory (the tier copy is made by the store's placement).
fn table_dir(spec: &TierSpec, topo: &Topology) -> Result<(PathBuf, bool, RemoveDir)> {
    let (parent, paged) = match spec {
        TierSpec::File { path } => {
            if !path.is_dir() {
                return Err(Error::Ssb(format!(
                    "--tier {spec}: name an existing directory (pmolap writes its own table there and removes it)"
                )));
            }
            let fs = topo.filesystem_for(path).map(|m| m.fs_type.clone());
            let dax = topo.dax_mount_for(path).is_some();
            (path.clone(), !(dax || fs.as_deref() == Some("tmpfs")))
        }
        _ => (std::env::temp_dir(), false),
    };
    let dir = parent.join(format!(".pmolap-profile-{}", std::process::id()));
    if dir.exists() {
        return Err(Error::Ssb(format!(
            "{} exists: another profile run of this process? remove it",
            dir.display()
        )));
    }
    Ok((dir.clone(), paged, RemoveDir(dir)))
}

/// A measured profile's printable rows.
#[derive(Debug, Serialize)]
pub struct Row {
    pub key: String,
    pub dram_ns: f64,
    pub tier_ns: f64,
    pub extra_ns: f64,
}

/// The profile's entries as printable rows.
pub fn rows(p: &Profile) -> Vec<Row> {
    p.costs
        .iter()
        .map(|c| Row {
            key: c.key(),
            dram_ns: c.dram_ns.unwrap_or(f64::NAN),
            tier_ns: c.tier_ns.unwrap_or(f64::NAN),
            extra_ns: c.extra_ns,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strides_class_like_the_counters() {
        assert_eq!(dense_class(1), Some(Access::NearDense));
        assert_eq!(dense_class(7), Some(Access::NearDense));
        assert_eq!(dense_class(8), Some(Access::MediumDense));
        assert_eq!(dense_class(511), Some(Access::MediumDense));
        assert_eq!(dense_class(512), Some(Access::FarDense));
        assert_eq!(dense_class((1 << 18) - 1), Some(Access::FarDense));
        assert_eq!(dense_class(1 << 18), None);
        // 2^0..2^2 near, 2^3..2^8 medium, 2^9..2^17 far, 2^18 random (not dense).
        let pts: Vec<(u64, f64)> = STRIDES.map(|e| (1u64 << e, e as f64)).collect();
        let m = class_means(&pts);
        assert_eq!(
            m,
            vec![
                (Access::NearDense, 1.0),
                (Access::MediumDense, 5.5),
                (Access::FarDense, 13.0)
            ]
        );
    }
}
