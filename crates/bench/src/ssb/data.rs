//! Where an SSB run's database is and how it is opened: `--data DIR`, or `--sf SF` (the
//! database `data/ssb/sf<SF>`, generated on first use and reused only when its database
//! file says it holds all five tables at exactly that scale factor); a database opened on
//! a tier warm (checksums verified, every page prefaulted) or cold (neither, after its
//! files' pages were dropped from the page cache), and prepared as an engine
//! [`Session`].

use std::fs::File;
use std::path::{Path, PathBuf};

use pmolap_engine::session::open_options;
use pmolap_engine::{Database, ExecOptions, Session};
use pmolap_store::table::OpenOptions;
use pmolap_store::Placement;
use pmolap_tier::io::{fadvise, Advice};
use pmolap_tier::TierSpec;

use crate::error::{Error, Result};

/// Where the data comes from and the execution switches.
#[derive(Debug, Clone)]
pub struct DataOptions {
    /// A database directory written by `pmolap load` or `pmolap ssb load`.
    pub data: Option<PathBuf>,
    /// Else: this scale factor's database under `data/ssb/` (default SF 1).
    pub sf: Option<f64>,
    pub exec: ExecOptions,
    /// A placement file (`pmolap place advise`): each structure on the tier it names.
    pub placement: Option<PathBuf>,
}

/// The database directory: `data`, or `data/ssb/sf<SF>`, generated (whole) when it is
/// missing or holds anything else. `on_generate` is told before a generation starts;
/// `progress` sees generated rows.
pub fn database_dir(
    o: &DataOptions,
    on_generate: &dyn Fn(f64, &Path),
    progress: &dyn Fn(u64),
) -> Result<PathBuf> {
    if let Some(d) = &o.data {
        return Ok(d.clone());
    }
    let sf = o.sf.unwrap_or(1.0);
    if !(sf > 0.0 && sf.is_finite()) {
        return Err(Error::Ssb(format!(
            "--sf {sf}: the scale factor must be positive"
        )));
    }
    let dir = PathBuf::from(format!("data/ssb/sf{sf}"));
    let complete = pmolap_store::database::read_database(&dir)
        .ok()
        .flatten()
        .is_some_and(|m| {
            m.meta.get("sf").and_then(|v| v.as_f64()) == Some(sf)
                && pmolap_ssb::TABLES.iter().all(|t| m.table(t).is_some())
        });
    if !complete {
        on_generate(sf, &dir);
        pmolap_ssb::load_database(
            sf,
            &dir,
            None,
            &pmolap_store::WriteOptions::default(),
            &|_, _| {},
            progress,
        )?;
    }
    Ok(dir)
}

/// [`database_dir`], printing a line above `pb` when the data has to be generated.
pub fn database_dir_noting(o: &DataOptions, pb: &indicatif::ProgressBar) -> Result<PathBuf> {
    database_dir(
        o,
        &|sf, d| {
            pb.println(format!(
                "generating SSB SF {sf} into {} (once)",
                d.display()
            ))
        },
        &|_| {},
    )
}

/// The placement a tier name means for a database: `home` (every structure mapped from
/// its file) or a tier spec (every structure copied there).
pub fn placement(tier: &str) -> Result<Placement> {
    Ok(if tier == "home" {
        Placement::home()
    } else {
        Placement::all(tier.parse::<TierSpec>()?)
    })
}

/// Opens `dir` on `tier`; `warm`: verify checksums and prefault every page (a cold open
/// does neither, so the query itself faults its data in from the device).
pub fn open_database(dir: &Path, tier: &str, warm: bool) -> Result<Database> {
    Database::open(dir, &placement(tier)?, &open_options(warm)).map_err(|e| {
        Error::Ssb(format!(
            "opening the database {} on {tier}: {e}",
            dir.display()
        ))
    })
}

/// Where a database's structures go: every one on one tier (`home` or a tier spec), or
/// where a placement file puts it (structures it does not list on its reference tier,
/// DRAM).
#[derive(Debug, Clone, Copy)]
pub enum Where<'a> {
    Tier(&'a str),
    Placement(&'a pmolap_place::PlacementFile),
}

impl Where<'_> {
    /// Opens `dir` here, warm (checksums verified, pages prefaulted for reading) or not.
    pub fn open(self, dir: &Path, warm: bool) -> Result<Database> {
        self.open_with(dir, &open_options(warm))
    }

    /// Opens `dir` here with `opts`.
    pub fn open_with(self, dir: &Path, opts: &OpenOptions) -> Result<Database> {
        match self {
            Where::Tier(tier) => Database::open(dir, &placement(tier)?, opts).map_err(|e| {
                Error::Ssb(format!(
                    "opening the database {} on {tier}: {e}",
                    dir.display()
                ))
            }),
            Where::Placement(pf) => open_under_with(dir, pf, opts).map_err(|e| {
                Error::Ssb(format!(
                    "opening the database {} under a placement: {e}",
                    dir.display()
                ))
            }),
        }
    }
}

/// Loads the placement file `file`.
pub fn load_placement(file: &Path) -> Result<pmolap_place::PlacementFile> {
    Ok(pmolap_place::PlacementFile::load(file)?)
}

/// Opens `dir` with every structure where `pf` puts it, warm (checksums verified, pages
/// prefaulted) or not; fails naming a structure `pf` lists that the database lacks.
pub fn open_under(dir: &Path, pf: &pmolap_place::PlacementFile, warm: bool) -> Result<Database> {
    open_under_with(dir, pf, &open_options(warm))
}

/// [`open_under`] with `opts`.
fn open_under_with(
    dir: &Path,
    pf: &pmolap_place::PlacementFile,
    opts: &OpenOptions,
) -> Result<Database> {
    let db = Database::open_placed(
        dir,
        &|table| {
            pf.to_store_placement(table)
                .map_err(|e| pmolap_engine::Error::Options(e.to_string()))
        },
        opts,
    )?;
    check_placed(&db, pf)?;
    Ok(db)
}

/// Opens `dir` as `at` says without reading the files mapped in place (checksums
/// unchecked, nothing prefaulted), then drops every file of the database from the page
/// cache (`POSIX_FADV_DONTNEED`, allowed for any reader), so the next query faults its
/// slow data in from the device. The one way `cold` is made (`ssb run`, `ssb tiers`,
/// `place validate`).
pub fn open_cold(dir: &Path, at: Where<'_>) -> Result<Database> {
    let db = at.open(dir, false)?;
    drop_db_pages(&db, &db.files())?;
    Ok(db)
}

/// Drops the pages of `files` (files of `db`) from the page cache, the pages `db`'s own
/// mappings hold included: the open reads some payload through them (a string
/// dictionary's offsets and text are checked when it opens), and a mapped page is not
/// dropped ([`Database::release_pages`] unmaps them first). Pages another process maps
/// stay.
pub fn drop_db_pages(db: &Database, files: &[PathBuf]) -> Result<()> {
    db.release_pages();
    drop_pages(files)
}

/// Drops `files`' pages from the page cache (pages some process maps stay).
pub fn drop_pages(files: &[PathBuf]) -> Result<()> {
    for f in files {
        let file = File::open(f).map_err(|e| Error::io(f, e))?;
        fadvise(&file, f, Advice::DontNeed)?;
    }
    Ok(())
}

/// Fails naming the first structure of `pf` that `db` does not have.
pub fn check_placed(db: &Database, pf: &pmolap_place::PlacementFile) -> Result<()> {
    pf.check_structures(|t, c, k| {
        db.table(t)
            .ok()
            .and_then(|t| t.column(c).ok())
            .is_some_and(|col| match k {
                pmolap_store::StructureKind::InvertedIndex => col.index.is_some(),
                _ => true,
            })
    })?;
    // Every tier's capacity must hold the structures placed on it (their file sizes).
    let infos: Vec<(String, pmolap_store::TableInfo)> = db
        .tables()
        .map(|(n, t)| (n.to_string(), t.info()))
        .collect();
    let all: u64 = infos
        .iter()
        .flat_map(|(_, i)| &i.columns)
        .flat_map(|c| &c.structures)
        .fold(0u64, |a, s| a.saturating_add(s.info.file_bytes));
    pf.check_capacities(all, |t, c, k| {
        let (_, info) = infos.iter().find(|(n, _)| n == t)?;
        let col = info.columns.iter().find(|col| col.name == c)?;
        col.structures
            .iter()
            .find(|s| s.kind == k)
            .map(|s| s.info.file_bytes)
    })?;
    Ok(())
}

/// Makes `p`'s next run cold: releases this process's mappings of the database's files
/// and drops every file's pages from the page cache, so the run faults what it reads from
/// a slow tier in from the device (the structures copied to DRAM stay as they are). The
/// one way a cold run is made (`ssb run`, `ssb tiers`, `place validate`): on a database
/// opened once and warmed up by one run of the query, as a process that keeps its data on
/// the tier runs. Reopening before every run instead measured the open's aftermath too:
/// 1.08-1.29x the all-DRAM time for placements that read nothing from the disk, and the
/// all-DRAM runs themselves 1.3-1.6x slower than on an open database (2026-11-27, SF 1).
pub fn make_cold(p: &Session) -> Result<()> {
    drop_db_pages(p.database(), &p.database().files())
}

/// The file of each structure of `w` (in [`pmolap_place::Workload::structures`]' order)
/// in the database under `db_dir`: the table directories found below it (those holding a
/// MANIFEST) by name, each structure's file as its table's MANIFEST names it. Fails
/// naming a table, column or structure the database lacks, and a file whose size is not
/// the recorded one (another database than the workload's).
pub fn structure_files(db_dir: &Path, w: &pmolap_place::Workload) -> Result<Vec<PathBuf>> {
    fn tables(dir: &Path, out: &mut std::collections::HashMap<String, PathBuf>) -> Result<()> {
        for e in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
            let p = e.map_err(|e| Error::io(dir, e))?.path();
            if !p.is_dir() {
                continue;
            }
            if p.join("MANIFEST").is_file() {
                let name = p
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned();
                if out.insert(name.clone(), p.clone()).is_some() {
                    return Err(Error::Ssb(format!(
                        "two directories for table {name} under {}",
                        dir.display()
                    )));
                }
            } else {
                tables(&p, out)?;
            }
        }
        Ok(())
    }
    let mut dirs = std::collections::HashMap::new();
    tables(db_dir, &mut dirs)?;
    let mut manifests = std::collections::HashMap::new();
    w.structures
        .iter()
        .map(|st| {
            let dir = dirs.get(&st.table).ok_or_else(|| {
                Error::Ssb(format!("no table {} under {}", st.table, db_dir.display()))
            })?;
            if !manifests.contains_key(&st.table) {
                let m = pmolap_store::read_manifest(dir)
                    .map_err(|e| Error::Ssb(format!("{}: {e}", dir.display())))?;
                manifests.insert(st.table.clone(), m);
            }
            let f = manifests[&st.table]
                .columns
                .iter()
                .find(|c| c.name == st.column)
                .and_then(|c| c.file(st.kind))
                .ok_or_else(|| Error::Ssb(format!("{}: not in {}", st.id(), dir.display())))?;
            if f.size != st.bytes {
                return Err(Error::Ssb(format!(
                    "{}: the file has {} bytes, the workload recorded {} (another database)",
                    st.id(),
                    f.size,
                    st.bytes
                )));
            }
            Ok(dir.join(&f.file))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structure_files_are_the_recorded_ones_and_a_foreign_workload_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("db");
        pmolap_ssb::load_database(
            0.01,
            &dir,
            None,
            &pmolap_store::WriteOptions::default(),
            &|_, _| {},
            &|_| {},
        )
        .unwrap();
        let data = DataOptions {
            data: Some(dir.clone()),
            sf: None,
            exec: ExecOptions::default(),
            placement: None,
        };
        let queries: Vec<_> = pmolap_engine::ssb_queries().into_iter().take(2).collect();
        let pb = indicatif::ProgressBar::hidden();
        let mut w = crate::ssb::workload::ssb_workload(&data, &queries, 1, &pb).unwrap();
        let files = structure_files(tmp.path(), &w).unwrap();
        assert_eq!(files.len(), w.structures.len());
        for (f, s) in files.iter().zip(&w.structures) {
            assert!(f.starts_with(&dir), "{}", f.display());
            assert_eq!(std::fs::metadata(f).unwrap().len(), s.bytes, "{}", s.id());
        }
        // Another database's sizes, and a table this one lacks: refused by name.
        w.structures[0].bytes += 1;
        let e = structure_files(&dir, &w).unwrap_err().to_string();
        assert!(e.contains(&w.structures[0].id()), "{e}");
        w.structures[0].table = "nosuch".into();
        let e = structure_files(&dir, &w).unwrap_err().to_string();
        assert!(e.contains("no table nosuch"), "{e}");
    }
}
