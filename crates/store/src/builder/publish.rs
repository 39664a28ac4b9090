//! The commit protocol of a table generation ([`super::TableBuilder::finish`]): the
//! structure files planned and checked against free space, written and persisted in
//! parallel, the manifest staged, fsynced and renamed, and the files of other generations
//! removed.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use pmolap_os::durable::{fsync_file, publish_via, Steps};
use pmolap_tier::{Region, RegionOptions, TierSpec};

use super::WriteOptions;
use crate::encode::Encoded;
use crate::error::{Error, Result};
use crate::format::{
    file_name, parse_file_name, ColumnEntry, FileEntry, Header, Manifest, StructureKind,
    FORMAT_VERSION, HEADER_USED, MANIFEST, MANIFEST_NULLS_VERSION, MANIFEST_TMP, PAYLOAD_OFFSET,
};
use crate::schema::Schema;
use crate::table::read_manifest;

/// The structure files of a new generation, (column, kind, file length) each, and their
/// bytes in all.
pub(super) fn structure_plan(
    encoded: &[Encoded],
    with_index: &[bool],
    rows: usize,
) -> (Vec<(usize, StructureKind, usize)>, u64) {
    let mut plan = Vec::new();
    let mut needed = 0u64;
    for (ci, e) in encoded.iter().enumerate() {
        let mut kinds = vec![StructureKind::Dictionary, StructureKind::DataVector];
        if with_index[ci] {
            kinds.push(StructureKind::InvertedIndex);
        }
        for k in kinds {
            let len = PAYLOAD_OFFSET + e.payload_len(k, rows);
            needed += len as u64;
            plan.push((ci, k, len));
        }
    }
    (plan, needed)
}

/// Fails with [`Error::OutOfSpace`] unless `needed` bytes (and 64 KiB to spare) fit in
/// `dir`'s free space and the quota of `opts`.
pub(super) fn check_space(dir: &Path, opts: &WriteOptions, needed: u64) -> Result<()> {
    let fs_free = pmolap_tier::region::capacity(&TierSpec::File {
        path: dir.to_path_buf(),
    })?;
    let available = opts.capacity_limit.map_or(fs_free, |l| l.min(fs_free));
    if needed + 64 * 1024 > available {
        return Err(Error::OutOfSpace {
            dir: dir.to_path_buf(),
            needed,
            available,
        });
    }
    Ok(())
}

/// A generation being written: where, what, and the files written so far (removed again
/// if the build fails before the manifest is published).
pub(super) struct Generation<'a> {
    pub(super) dir: &'a Path,
    pub(super) schema: &'a Schema,
    pub(super) encoded: &'a [Encoded],
    pub(super) rows: usize,
    pub(super) generation: u64,
    pub(super) written: &'a Mutex<Vec<PathBuf>>,
}

impl Generation<'_> {
    /// Removes the files written so far and wraps `e` as a failed build.
    fn fail(&self, e: Error) -> Error {
        for p in self.written.lock().map(|w| w.clone()).unwrap_or_default() {
            let _ = std::fs::remove_file(p);
        }
        Error::Build {
            dir: self.dir.to_path_buf(),
            source: Box::new(e),
        }
    }

    /// Writes and persists every structure file of `plan` on up to `threads` threads;
    /// returns the file entries per column.
    pub(super) fn write_structures(
        &self,
        plan: Vec<(usize, StructureKind, usize)>,
        threads: usize,
        opts: &WriteOptions,
        steps: &Steps,
    ) -> Result<Vec<Vec<FileEntry>>> {
        let (encoded, rows, generation) = (self.encoded, self.rows, self.generation);
        let results = par_map(plan, threads, |(ci, kind, len)| {
            let name = file_name(ci, kind, generation);
            let path = self.dir.join(&name);
            let ty = self.schema.columns[ci].ty;
            let r = write_structure(
                &path,
                len,
                &opts.region,
                steps,
                self.written,
                |payload| encoded[ci].write_payload(kind, rows, payload),
                |crc| Header {
                    kind_code: kind.code(ty, encoded[ci].encoding()),
                    generation,
                    column: ci as u32,
                    width: if kind == StructureKind::DataVector {
                        encoded[ci].width
                    } else {
                        0
                    },
                    entries: match kind {
                        StructureKind::DataVector => rows as u64,
                        StructureKind::InvertedIndex => encoded[ci].ids() as u64,
                        StructureKind::Dictionary => encoded[ci].distinct() as u64,
                    },
                    payload_len: (len - PAYLOAD_OFFSET) as u64,
                    payload_crc: crc,
                },
            );
            r.map(|crc| {
                (
                    ci,
                    FileEntry {
                        kind,
                        file: name,
                        size: len as u64,
                        crc32: crc,
                    },
                )
            })
        });
        let mut files: Vec<Vec<FileEntry>> = vec![Vec::new(); encoded.len()];
        for r in results {
            match r {
                Ok((ci, f)) => files[ci].push(f),
                Err(e) => return Err(self.fail(e)),
            }
        }
        Ok(files)
    }

    /// The manifest of this generation with `files` per column.
    pub(super) fn manifest(&self, files: Vec<Vec<FileEntry>>, with_index: &[bool]) -> Manifest {
        let nulls = self.encoded.iter().any(|e| e.nulls > 0);
        Manifest {
            // A table with NULLs is version 3: a build that does not know NULL ids refuses
            // it instead of reading one as a value; any other stays version 2, byte for
            // byte as before.
            format_version: if nulls {
                MANIFEST_NULLS_VERSION
            } else {
                FORMAT_VERSION
            },
            generation: self.generation,
            rows: self.rows as u64,
            columns: self
                .schema
                .columns
                .iter()
                .zip(self.encoded)
                .zip(files)
                .enumerate()
                .map(|(ci, ((c, e), mut files))| {
                    files.sort_by_key(|f| f.kind);
                    ColumnEntry {
                        name: c.name.clone(),
                        ty: c.ty,
                        dict_len: e.distinct() as u64,
                        nulls: e.nulls as u64,
                        encoding: e.encoding(),
                        bit_width: e.width,
                        has_index: with_index[ci],
                        files,
                    }
                })
                .collect(),
        }
    }

    /// Publishes `manifest`: staged, fsynced, renamed over MANIFEST, directory fsynced.
    /// On failure before the rename the generation's files are removed.
    pub(super) fn publish(&self, manifest: &Manifest, steps: &Steps) -> Result<()> {
        let dir = self.dir;
        let staged = dir.join(MANIFEST_TMP);
        if let Err(e) = publish_via(&dir.join(MANIFEST), &staged, &manifest.encode()?, steps) {
            let e = Error::from(e);
            let _ = std::fs::remove_file(dir.join(MANIFEST_TMP));
            if read_manifest(dir).is_ok_and(|m| m.generation == self.generation) {
                // The rename happened: the new table is published; keep its files.
                return Err(e);
            }
            return Err(self.fail(e));
        }
        Ok(())
    }
}

/// Runs `f` over `items` on up to `threads` threads; results in item order.
pub(super) fn par_map<T: Send, R: Send>(
    items: Vec<T>,
    threads: usize,
    f: impl Fn(T) -> R + Sync,
) -> Vec<R> {
    let n = items.len();
    if threads <= 1 || n <= 1 {
        return items.into_iter().map(f).collect();
    }
    let queue = Mutex::new(items.into_iter().enumerate().collect::<Vec<_>>());
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..n).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..threads.min(n) {
            s.spawn(|| loop {
                // Take from the front so big early columns start first.
                let job = {
                    let mut q = queue.lock().unwrap_or_else(|p| p.into_inner());
                    if q.is_empty() {
                        None
                    } else {
                        Some(q.remove(0))
                    }
                };
                let Some((i, item)) = job else { break };
                let r = f(item);
                results.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(r);
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .into_iter()
        .flatten()
        .collect()
}

/// One past the highest generation in the manifest or among file names in `dir`.
pub(super) fn next_generation(dir: &Path, current: Option<&Manifest>) -> Result<u64> {
    let mut g = current.map_or(0, |m| m.generation);
    for e in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let e = e.map_err(|e| Error::io(dir, e))?;
        if let Some(n) = e.file_name().to_str().and_then(parse_file_name) {
            g = g.max(n);
        }
    }
    Ok(g + 1)
}

/// Names in `dir` that look like structure files (or the staged manifest) and are not
/// listed in `keep`.
pub(super) fn unlisted(dir: &Path, keep: Option<&Manifest>) -> Result<Vec<PathBuf>> {
    let listed: Vec<&str> = keep.map(|m| m.file_names().collect()).unwrap_or_default();
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let e = e.map_err(|e| Error::io(dir, e))?;
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        if (parse_file_name(name).is_some() && !listed.contains(&name)) || name == MANIFEST_TMP {
            out.push(e.path());
        }
    }
    out.sort();
    Ok(out)
}

pub(super) fn remove_unlisted(dir: &Path, keep: Option<&Manifest>) -> Result<()> {
    for p in unlisted(dir, keep)? {
        std::fs::remove_file(&p).map_err(|e| Error::io(&p, e))?;
    }
    Ok(())
}

pub(super) fn remove_unlisted_stepped(dir: &Path, keep: &Manifest, steps: &Steps) -> Result<()> {
    for p in unlisted(dir, Some(keep))? {
        std::fs::remove_file(&p).map_err(|e| Error::io(&p, e))?;
        steps.step();
    }
    Ok(())
}

/// Creates `path` as a region of `len` bytes, fills the payload, computes its checksum,
/// writes the header, persists and fsyncs. Returns the payload checksum.
pub(super) fn write_structure(
    path: &Path,
    len: usize,
    region_opts: &RegionOptions,
    steps: &Steps,
    written: &Mutex<Vec<PathBuf>>,
    fill: impl FnOnce(&mut [u8]) -> Result<()>,
    header: impl FnOnce(u32) -> Header,
) -> Result<u32> {
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(Error::io(path, e)),
    }
    written
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(path.to_path_buf());
    let opts = RegionOptions {
        keep_file: true,
        existing: pmolap_tier::ExistingFile::Use,
        ..region_opts.clone()
    };
    let mut region = Region::new(
        &TierSpec::File {
            path: path.to_path_buf(),
        },
        len,
        &opts,
    )?;
    steps.step();
    let bytes = region.as_mut_slice();
    fill(&mut bytes[PAYLOAD_OFFSET..])?;
    let crc = crc32fast::hash(&bytes[PAYLOAD_OFFSET..]);
    steps.step();
    bytes[..HEADER_USED].copy_from_slice(&header(crc).encode());
    steps.step();
    region.persist(0, len)?;
    fsync_file(path)?;
    steps.step();
    Ok(crc)
}
