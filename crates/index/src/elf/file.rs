//! The Elf index file: a header page and the linearized array, with checksums and an
//! atomic commit (layout in `docs/formats.md`, section "Elf index").

use std::ffi::OsString;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use pmolap_os::durable::{commit_rename, fsync_file, Steps};
use pmolap_os::{FileLock, LockMode};
use pmolap_tier::{Region, RegionOptions, TierSpec};

use super::{Elf, MAX_DIMS, MAX_WORDS, PRELUDE, VALUE_MASK};
use crate::error::{Error, Result};

/// Header page size; the payload (the word array) starts here.
pub const HEADER_LEN: usize = 4096;
/// Bytes 0..8 of every Elf index file.
pub const MAGIC: [u8; 8] = *b"PMOLELF\0";
/// The format version this build writes and reads.
pub const VERSION: u32 = 1;

// Header fields (little endian).
const OFF_MAGIC: usize = 0; // [u8; 8]
const OFF_VERSION: usize = 8; // u32
const OFF_DIMS: usize = 12; // u32
const OFF_ROWS: usize = 16; // u64
const OFF_WORDS: usize = 24; // u64: payload length in u32 words
const OFF_CARD0: usize = 32; // u32: dense first-dimension length (= payload word 1)
const OFF_PAYLOAD_CRC: usize = 36; // u32: crc32 of the payload bytes
const OFF_HEADER_CRC: usize = 40; // u32: crc32 of header bytes 0..40
const HEADER_USED: usize = 44; // the rest of the page is zero

/// How [`Elf::write`] writes.
#[derive(Debug, Clone)]
pub struct WriteOptions {
    /// Bytes of payload written and persisted per step.
    #[doc(hidden)]
    pub persist_chunk: usize,
    /// Testing only: abort the process right after the Nth write/persist step.
    #[doc(hidden)]
    pub crash_after_step: Option<u64>,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            persist_chunk: 8 << 20,
            crash_after_step: None,
        }
    }
}

/// `<path>.new`, where a build is written before it replaces `path`.
pub fn staging_path(path: &Path) -> PathBuf {
    let mut s: OsString = path.as_os_str().to_owned();
    s.push(".new");
    PathBuf::from(s)
}

/// `<path>.lock`, the index's lock file: exclusive while [`write`] replaces the index,
/// shared while an [`Elf`] opened from it lives.
pub fn lock_path(path: &Path) -> PathBuf {
    let mut s: OsString = path.as_os_str().to_owned();
    s.push(".lock");
    PathBuf::from(s)
}

/// Takes the index's lock (see [`lock_path`]); a read-only location is read unlocked.
pub(crate) fn lock(path: &Path, mode: LockMode) -> Result<Option<FileLock>> {
    let what = format!("Elf index {}", path.display());
    Ok(FileLock::acquire_or_read_only(
        &lock_path(path),
        mode,
        &what,
    )?)
}

fn header(dims: usize, rows: usize, words: &[u32], payload_crc: u32) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[OFF_MAGIC..OFF_MAGIC + 8].copy_from_slice(&MAGIC);
    h[OFF_VERSION..OFF_VERSION + 4].copy_from_slice(&VERSION.to_le_bytes());
    h[OFF_DIMS..OFF_DIMS + 4].copy_from_slice(&(dims as u32).to_le_bytes());
    h[OFF_ROWS..OFF_ROWS + 8].copy_from_slice(&(rows as u64).to_le_bytes());
    h[OFF_WORDS..OFF_WORDS + 8].copy_from_slice(&(words.len() as u64).to_le_bytes());
    h[OFF_CARD0..OFF_CARD0 + 4].copy_from_slice(&words[1].to_le_bytes());
    h[OFF_PAYLOAD_CRC..OFF_PAYLOAD_CRC + 4].copy_from_slice(&payload_crc.to_le_bytes());
    let crc = crc32fast::hash(&h[..OFF_HEADER_CRC]);
    h[OFF_HEADER_CRC..OFF_HEADER_CRC + 4].copy_from_slice(&crc.to_le_bytes());
    h
}

/// Writes the file: payload, then header, into `<path>.new` (each persisted), fsync,
/// rename over `path`, fsync of the directory.
pub(crate) fn write(
    path: &Path,
    dims: usize,
    rows: usize,
    words: &[u32],
    opts: &WriteOptions,
) -> Result<()> {
    let _lock = lock(path, LockMode::Exclusive)?;
    let steps = Steps::new(opts.crash_after_step);
    let new = staging_path(path);
    match std::fs::remove_file(&new) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(Error::io(&new, e)),
    }
    steps.step();
    let payload: &[u8] = bytemuck::cast_slice(words);
    let len = HEADER_LEN + payload.len();
    {
        let spec = TierSpec::File { path: new.clone() };
        let staged = RegionOptions {
            keep_file: true,
            existing: pmolap_tier::ExistingFile::Use,
            ..RegionOptions::default()
        };
        let mut region = Region::new(&spec, len, &staged)?;
        steps.step();
        for (i, chunk) in payload.chunks(opts.persist_chunk.max(1)).enumerate() {
            region.write_durable(HEADER_LEN + i * opts.persist_chunk.max(1), chunk)?;
            steps.step();
        }
        let h = header(dims, rows, words, crc32fast::hash(payload));
        region.write_durable(0, &h)?;
        steps.step();
    }
    // The file's size and blocks (fallocate) are metadata: make them durable too.
    fsync_file(&new)?;
    steps.step();
    commit_rename(&new, path, &steps)?;
    Ok(())
}

fn u32_at(h: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(h[off..off + 4].try_into().expect("4 bytes"))
}

fn u64_at(h: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(h[off..off + 8].try_into().expect("8 bytes"))
}

/// Opens and verifies `path` (the payload checksum only if `verify_payload`); maps it in
/// place when `tier` is `None` or names this file, else copies the array onto `tier`.
pub(crate) fn open(path: &Path, tier: Option<&TierSpec>, verify_payload: bool) -> Result<Elf> {
    let mut f = File::open(path).map_err(|e| Error::io(path, e))?;
    // A writer replacing the index makes this fail at once, naming it.
    let lock = lock(path, LockMode::Shared)?;
    let flen = f.metadata().map_err(|e| Error::io(path, e))?.len();
    let mut h = vec![0u8; HEADER_LEN.min(flen as usize)];
    f.read_exact(&mut h).map_err(|e| Error::io(path, e))?;
    drop(f);
    let corrupt = |detail: String| Error::Corrupt {
        path: path.to_path_buf(),
        detail,
    };
    if h.len() < MAGIC.len() || h[..MAGIC.len()] != MAGIC {
        if h.len() < MAGIC.len() && MAGIC.starts_with(&h) {
            return Err(Error::Truncated {
                path: path.to_path_buf(),
                expected: HEADER_LEN as u64,
                found: flen,
            });
        }
        return Err(Error::NotElf {
            path: path.to_path_buf(),
        });
    }
    if h.len() < HEADER_USED {
        return Err(Error::Truncated {
            path: path.to_path_buf(),
            expected: HEADER_LEN as u64,
            found: flen,
        });
    }
    let version = u32_at(&h, OFF_VERSION);
    if version != VERSION {
        return Err(Error::Version {
            path: path.to_path_buf(),
            found: version,
            supported: VERSION,
        });
    }
    if crc32fast::hash(&h[..OFF_HEADER_CRC]) != u32_at(&h, OFF_HEADER_CRC) {
        return Err(Error::Checksum {
            path: path.to_path_buf(),
            what: "header",
        });
    }
    if h.len() < HEADER_LEN {
        return Err(Error::Truncated {
            path: path.to_path_buf(),
            expected: HEADER_LEN as u64,
            found: flen,
        });
    }
    let dims = u32_at(&h, OFF_DIMS) as usize;
    let rows = u64_at(&h, OFF_ROWS);
    let words = u64_at(&h, OFF_WORDS);
    let card0 = u32_at(&h, OFF_CARD0) as usize;
    if dims == 0 || dims > MAX_DIMS {
        return Err(corrupt(format!("{dims} dimensions (1..={MAX_DIMS})")));
    }
    if rows > VALUE_MASK as u64 {
        return Err(corrupt(format!("{rows} rows (TIDs are 31 bits)")));
    }
    if words < (PRELUDE + card0) as u64 || words > MAX_WORDS as u64 {
        return Err(corrupt(format!(
            "{words} payload words for a dense first dimension of {card0}"
        )));
    }
    let words = words as usize;
    let expected = (HEADER_LEN + 4 * words) as u64;
    if flen < expected {
        return Err(Error::Truncated {
            path: path.to_path_buf(),
            expected,
            found: flen,
        });
    }
    let spec = TierSpec::File {
        path: path.to_path_buf(),
    };
    let in_file = RegionOptions {
        existing: pmolap_tier::ExistingFile::Use,
        ..RegionOptions::default()
    };
    let mapped = Region::new(&spec, expected as usize, &in_file)?;
    let payload = &mapped.as_slice()[HEADER_LEN..expected as usize];
    if verify_payload && crc32fast::hash(payload) != u32_at(&h, OFF_PAYLOAD_CRC) {
        return Err(Error::Checksum {
            path: path.to_path_buf(),
            what: "payload",
        });
    }
    let w: &[u32] = bytemuck::cast_slice(payload);
    if w[0] as usize != dims || w[1] as usize != card0 {
        return Err(corrupt(format!(
            "payload starts with {} dimensions and dense length {}, header says {dims} and {card0}",
            w[0], w[1]
        )));
    }
    let in_place = match tier {
        None => true,
        Some(TierSpec::File { path: p }) => same_file(p, path),
        Some(_) => false,
    };
    let (region, base, lock) = match tier {
        Some(t) if !in_place => {
            let mut r = Region::new(t, 4 * words, &RegionOptions::default())?;
            r.write_durable(0, payload)?;
            (r, 0, None)
        }
        // Used in place: the shared lock is held as long as the mapping.
        _ => (mapped, HEADER_LEN, lock),
    };
    Ok(Elf {
        region,
        base,
        words,
        dims,
        rows: rows as usize,
        path: Some(path.to_path_buf()),
        _lock: lock,
    })
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
