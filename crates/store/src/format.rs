//! The on-disk table format: structure-file header, payload layouts, manifest, and file
//! names. `docs/formats.md` ("Column store table") describes the same bytes.
//!
//! ```text
//! Structure file (one per dictionary / data vector / inverted index), little endian:
//!
//!  offset  size  field
//!  0       8     magic                 b"PMOLAPCS"
//!  8       4     format version u32    FORMAT_VERSION (2)
//!  12      4     structure kind u32    1 int dictionary, 2 string dictionary,
//!                                      3 data vector, 4 inverted index,
//!                                      5 int frame (frame-of-reference dictionary)
//!  16      8     generation u64        the table generation the file belongs to
//!  24      4     column index u32
//!  28      4     bit width u32         data vector: 1..=32; otherwise 0
//!  32      8     entries u64           dictionary: values; data vector: rows;
//!                                      inverted index: distinct values
//!  40      8     payload offset u64    PAYLOAD_OFFSET (4096)
//!  48      8     payload length u64    bytes; the file is exactly offset + length long
//!  56      4     payload crc32         CRC-32 (IEEE, crc32fast) of the payload bytes
//!  60      4     header crc32          CRC-32 of bytes 0..60
//!  64      4032  zero
//!  4096    len   payload (page aligned, so it can be mapped and cast zero-copy)
//!
//! Payloads:
//!  int dictionary     entries × i64, ascending, unique
//!  int frame          one i64: the column's minimum; value id i is minimum + i for
//!                     i < entries (entries = maximum − minimum + 1 ≤ 2^32)
//!  string dictionary  (entries + 1) × u64 offsets into the string bytes (offsets[0] = 0,
//!                     non-decreasing, last = byte count), then the UTF-8 bytes;
//!                     strings ascending by bytes, unique
//!  data vector        words_for(rows, width) × u64: id i at bits i*w.. of the LE word
//!                     stream, then one zero padding word (pmolap_kernels::bitpack)
//!  inverted index     (entries + 1) × u64 offsets into the row ids (CSR), then
//!                     rows × u32 row ids, ascending within each value id
//!
//! MANIFEST (the commit point; replaced atomically by rename):
//!  0       8     magic                 b"PMOLAPMF"
//!  8       4     format version u32
//!  12      4     crc32 of the JSON body
//!  16      8     JSON body length u64
//!  24      len   JSON body (serde of `Manifest`)
//! ```

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::schema::{ColumnType, Schema};

/// Magic of a structure file.
pub const MAGIC: [u8; 8] = *b"PMOLAPCS";
/// Magic of a manifest.
pub const MANIFEST_MAGIC: [u8; 8] = *b"PMOLAPMF";
/// The format version of structure files, and of the manifest of a table without NULLs
/// (2: adds the int frame, kind 5).
pub const FORMAT_VERSION: u32 = 2;
/// The manifest version of a table with a column holding NULLs (a column's `nulls` > 0:
/// value id `dict_len` is NULL); its structure files stay [`FORMAT_VERSION`].
pub const MANIFEST_NULLS_VERSION: u32 = 3;

/// The structure files' format version of a table whose manifest has version
/// `manifest_version` (NULLs change the manifest, not the structures).
pub fn structure_version(manifest_version: u32) -> u32 {
    if manifest_version == MANIFEST_NULLS_VERSION {
        FORMAT_VERSION
    } else {
        manifest_version
    }
}

pub const OFF_MAGIC: usize = 0;
pub const OFF_VERSION: usize = 8;
pub const OFF_KIND: usize = 12;
pub const OFF_GENERATION: usize = 16;
pub const OFF_COLUMN: usize = 24;
pub const OFF_WIDTH: usize = 28;
pub const OFF_ENTRIES: usize = 32;
pub const OFF_PAYLOAD_OFFSET: usize = 40;
pub const OFF_PAYLOAD_LEN: usize = 48;
pub const OFF_PAYLOAD_CRC: usize = 56;
pub const OFF_HEADER_CRC: usize = 60;
/// Bytes of the header covered by the header checksum.
pub const HEADER_USED: usize = 64;
/// Where the payload starts (page aligned).
pub const PAYLOAD_OFFSET: usize = 4096;

pub const MF_OFF_MAGIC: usize = 0;
pub const MF_OFF_VERSION: usize = 8;
pub const MF_OFF_CRC: usize = 12;
pub const MF_OFF_LEN: usize = 16;
pub const MF_BODY: usize = 24;

/// The manifest's file name; `MANIFEST.tmp` is its staging name.
pub const MANIFEST: &str = "MANIFEST";
pub const MANIFEST_TMP: &str = "MANIFEST.tmp";

/// Which structure of a column a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StructureKind {
    Dictionary,
    DataVector,
    InvertedIndex,
}

impl StructureKind {
    pub const ALL: [StructureKind; 3] = [
        StructureKind::Dictionary,
        StructureKind::DataVector,
        StructureKind::InvertedIndex,
    ];

    /// The short name used in file names and placements: `dict`, `dv`, `inv`.
    pub fn short(self) -> &'static str {
        match self {
            StructureKind::Dictionary => "dict",
            StructureKind::DataVector => "dv",
            StructureKind::InvertedIndex => "inv",
        }
    }

    pub fn from_short(s: &str) -> Option<Self> {
        Some(match s {
            "dict" | "dictionary" => StructureKind::Dictionary,
            "dv" | "data_vector" | "datavector" => StructureKind::DataVector,
            "inv" | "index" | "inverted_index" => StructureKind::InvertedIndex,
            _ => return None,
        })
    }

    /// The header's kind code for this structure of a column of type `ty` encoded as
    /// `encoding`.
    pub fn code(self, ty: ColumnType, encoding: ColumnEncoding) -> u32 {
        match (self, ty, encoding) {
            (StructureKind::Dictionary, ColumnType::Int, ColumnEncoding::Frame) => 5,
            (StructureKind::Dictionary, ColumnType::Int, ColumnEncoding::Dictionary) => 1,
            (StructureKind::Dictionary, ColumnType::Str, _) => 2,
            (StructureKind::DataVector, _, _) => 3,
            (StructureKind::InvertedIndex, _, _) => 4,
        }
    }
}

/// How a column maps values to value ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ColumnEncoding {
    /// A sorted dictionary of the distinct values: id i is the i-th smallest value.
    #[default]
    Dictionary,
    /// Frame of reference (int columns): id i is the minimum + i, so decoding is an
    /// addition and reads no memory. Chosen for int columns whose distinct values are
    /// many (a dictionary beyond the L1 cache) and fill their range densely enough that
    /// the wider ids cost less than the dictionary lookups they save.
    Frame,
}

impl std::fmt::Display for ColumnEncoding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ColumnEncoding::Dictionary => "dictionary",
            ColumnEncoding::Frame => "frame",
        })
    }
}

impl std::fmt::Display for StructureKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StructureKind::Dictionary => "dictionary",
            StructureKind::DataVector => "data vector",
            StructureKind::InvertedIndex => "inverted index",
        })
    }
}

/// The name of a structure file: `c0003.dv.g7`.
pub fn file_name(column: usize, kind: StructureKind, generation: u64) -> String {
    format!("c{column:04}.{}.g{generation}", kind.short())
}

/// The generation of a name made by [`file_name`], or None for any other name.
pub fn parse_file_name(name: &str) -> Option<u64> {
    let mut parts = name.split('.');
    let (c, k, g) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some()
        || !c.starts_with('c')
        || c.len() < 2
        || !c[1..].bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    if !matches!(k, "dict" | "dv" | "inv") {
        return None;
    }
    g.strip_prefix('g')?.parse().ok()
}

/// A decoded structure-file header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub kind_code: u32,
    pub generation: u64,
    pub column: u32,
    pub width: u32,
    pub entries: u64,
    pub payload_len: u64,
    pub payload_crc: u32,
}

fn u32_at(b: &[u8], off: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[off..off + 4]);
    u32::from_le_bytes(a)
}

fn u64_at(b: &[u8], off: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[off..off + 8]);
    u64::from_le_bytes(a)
}

impl Header {
    /// The 64 header bytes (the rest of the first page is zero).
    pub fn encode(&self) -> [u8; HEADER_USED] {
        let mut b = [0u8; HEADER_USED];
        b[OFF_MAGIC..OFF_MAGIC + 8].copy_from_slice(&MAGIC);
        b[OFF_VERSION..OFF_VERSION + 4].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        b[OFF_KIND..OFF_KIND + 4].copy_from_slice(&self.kind_code.to_le_bytes());
        b[OFF_GENERATION..OFF_GENERATION + 8].copy_from_slice(&self.generation.to_le_bytes());
        b[OFF_COLUMN..OFF_COLUMN + 4].copy_from_slice(&self.column.to_le_bytes());
        b[OFF_WIDTH..OFF_WIDTH + 4].copy_from_slice(&self.width.to_le_bytes());
        b[OFF_ENTRIES..OFF_ENTRIES + 8].copy_from_slice(&self.entries.to_le_bytes());
        b[OFF_PAYLOAD_OFFSET..OFF_PAYLOAD_OFFSET + 8]
            .copy_from_slice(&(PAYLOAD_OFFSET as u64).to_le_bytes());
        b[OFF_PAYLOAD_LEN..OFF_PAYLOAD_LEN + 8].copy_from_slice(&self.payload_len.to_le_bytes());
        b[OFF_PAYLOAD_CRC..OFF_PAYLOAD_CRC + 4].copy_from_slice(&self.payload_crc.to_le_bytes());
        let crc = crc32fast::hash(&b[..OFF_HEADER_CRC]);
        b[OFF_HEADER_CRC..OFF_HEADER_CRC + 4].copy_from_slice(&crc.to_le_bytes());
        b
    }

    /// Decodes and checks a header (magic, version, header checksum, payload offset)
    /// and that the file is exactly as long as the header says.
    pub fn decode(path: &Path, b: &[u8], file_len: u64) -> Result<Header> {
        let bad = |p: String| Error::corrupt(path, p);
        if (file_len as usize) < PAYLOAD_OFFSET || b.len() < HEADER_USED {
            return Err(bad(format!(
                "truncated: {file_len} bytes, shorter than the {PAYLOAD_OFFSET}-byte header page"
            )));
        }
        if b[OFF_MAGIC..OFF_MAGIC + 8] != MAGIC {
            return Err(bad(format!(
                "not a pmolap column-store file (bad magic {:02x?}, expected \"PMOLAPCS\")",
                &b[..8]
            )));
        }
        let version = u32_at(b, OFF_VERSION);
        if version != FORMAT_VERSION {
            return Err(bad(format!(
                "format version {version}, this build reads version {FORMAT_VERSION}"
            )));
        }
        let stored = u32_at(b, OFF_HEADER_CRC);
        let computed = crc32fast::hash(&b[..OFF_HEADER_CRC]);
        if stored != computed {
            return Err(bad(format!(
                "header checksum mismatch (stored {stored:08x}, computed {computed:08x}): header damaged"
            )));
        }
        let off = u64_at(b, OFF_PAYLOAD_OFFSET);
        if off != PAYLOAD_OFFSET as u64 {
            return Err(bad(format!(
                "payload offset {off}, expected {PAYLOAD_OFFSET}"
            )));
        }
        let h = Header {
            kind_code: u32_at(b, OFF_KIND),
            generation: u64_at(b, OFF_GENERATION),
            column: u32_at(b, OFF_COLUMN),
            width: u32_at(b, OFF_WIDTH),
            entries: u64_at(b, OFF_ENTRIES),
            payload_len: u64_at(b, OFF_PAYLOAD_LEN),
            payload_crc: u32_at(b, OFF_PAYLOAD_CRC),
        };
        let Some(want) = h.payload_len.checked_add(PAYLOAD_OFFSET as u64) else {
            return Err(bad(format!(
                "payload length {} is past any file size",
                h.payload_len
            )));
        };
        if file_len < want {
            return Err(bad(format!(
                "truncated: {file_len} bytes, the header says {want}"
            )));
        }
        if file_len > want {
            return Err(bad(format!(
                "{} trailing bytes after the payload (file {file_len} bytes, header says {want})",
                file_len - want
            )));
        }
        Ok(h)
    }
}

/// One structure file as the manifest lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    pub kind: StructureKind,
    pub file: String,
    /// Whole file size in bytes (header page + payload).
    pub size: u64,
    /// The payload checksum (as in the file's header).
    pub crc32: u32,
}

/// One column as the manifest lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColumnEntry {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: ColumnType,
    /// Value ids: dictionary entries, or the frame's range (maximum − minimum + 1).
    pub dict_len: u64,
    /// How values map to ids (absent: `dictionary`).
    #[serde(default)]
    pub encoding: ColumnEncoding,
    pub bit_width: u32,
    pub has_index: bool,
    pub files: Vec<FileEntry>,
    /// Rows holding NULL (absent: none). When there are any, value id `dict_len` — one
    /// past the dictionary — is NULL, so the data vector holds `dict_len + 1` ids (and an
    /// inverted index lists the NULL rows under that id, last).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub nulls: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl ColumnEntry {
    pub fn file(&self, kind: StructureKind) -> Option<&FileEntry> {
        self.files.iter().find(|f| f.kind == kind)
    }

    /// Value ids the data vector may hold: the dictionary's, and the NULL id when the
    /// column has NULLs.
    pub fn ids(&self) -> u64 {
        self.dict_len + u64::from(self.nulls > 0)
    }
}

/// The manifest: what the committed table is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub format_version: u32,
    pub generation: u64,
    pub rows: u64,
    pub columns: Vec<ColumnEntry>,
}

impl Manifest {
    pub fn schema(&self) -> Schema {
        Schema {
            columns: self
                .columns
                .iter()
                .map(|c| crate::schema::ColumnDef {
                    name: c.name.clone(),
                    ty: c.ty,
                })
                .collect(),
        }
    }

    /// Every file name the manifest lists.
    pub fn file_names(&self) -> impl Iterator<Item = &str> {
        self.columns
            .iter()
            .flat_map(|c| c.files.iter().map(|f| f.file.as_str()))
    }

    pub fn encode(&self) -> Result<Vec<u8>> {
        let body = serde_json::to_vec_pretty(self)
            .map_err(|e| Error::Schema(format!("manifest does not serialise: {e}")))?;
        let mut b = Vec::with_capacity(MF_BODY + body.len());
        b.extend_from_slice(&MANIFEST_MAGIC);
        b.extend_from_slice(&self.format_version.to_le_bytes());
        b.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
        b.extend_from_slice(&(body.len() as u64).to_le_bytes());
        debug_assert_eq!(b.len(), MF_BODY);
        b.extend_from_slice(&body);
        Ok(b)
    }

    pub fn decode(path: &Path, b: &[u8]) -> Result<Manifest> {
        let bad = |p: String| Error::corrupt(path, p);
        if b.len() < MF_BODY {
            return Err(bad(format!(
                "truncated manifest: {} bytes, shorter than its {MF_BODY}-byte header",
                b.len()
            )));
        }
        if b[MF_OFF_MAGIC..MF_OFF_MAGIC + 8] != MANIFEST_MAGIC {
            return Err(bad(
                "not a pmolap column-store manifest (bad magic, expected \"PMOLAPMF\")".into(),
            ));
        }
        let version = u32_at(b, MF_OFF_VERSION);
        if version != FORMAT_VERSION && version != MANIFEST_NULLS_VERSION {
            return Err(bad(format!(
                "manifest format version {version}, this build reads versions {FORMAT_VERSION} and {MANIFEST_NULLS_VERSION}"
            )));
        }
        let len = u64_at(b, MF_OFF_LEN);
        let have = (b.len() - MF_BODY) as u64;
        if have != len {
            return Err(bad(format!(
                "manifest body is {have} bytes, its header says {len} (truncated or damaged)"
            )));
        }
        let body = &b[MF_BODY..];
        let stored = u32_at(b, MF_OFF_CRC);
        let computed = crc32fast::hash(body);
        if stored != computed {
            return Err(bad(format!(
                "manifest checksum mismatch (stored {stored:08x}, computed {computed:08x}): damaged"
            )));
        }
        let m: Manifest = serde_json::from_slice(body)
            .map_err(|e| bad(format!("manifest body is not valid: {e}")))?;
        if m.format_version != version {
            return Err(bad(format!(
                "manifest body says format version {}, its header {version}",
                m.format_version
            )));
        }
        // NULLs exactly in version 3: an older build refuses the table rather than read
        // a NULL id as a value.
        let nulls = m.columns.iter().any(|c| c.nulls > 0);
        if nulls != (version == MANIFEST_NULLS_VERSION) {
            return Err(bad(format!(
                "manifest version {version} {} columns with NULLs",
                if nulls { "lists" } else { "but no" }
            )));
        }
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let n = file_name(3, StructureKind::DataVector, 17);
        assert_eq!(n, "c0003.dv.g17");
        assert_eq!(parse_file_name(&n), Some(17));
        for bad in [
            "MANIFEST",
            "c.dv.g1",
            "c1.xx.g1",
            "c1.dv.1",
            "c1.dv.g1.tmp",
            "x1.dv.g1",
        ] {
            assert_eq!(parse_file_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn header_round_trips_and_rejects_damage() {
        let h = Header {
            kind_code: 3,
            generation: 9,
            column: 2,
            width: 5,
            entries: 100,
            payload_len: 80,
            payload_crc: 0xdead_beef,
        };
        let b = h.encode();
        let p = Path::new("f");
        assert_eq!(Header::decode(p, &b, 4096 + 80).unwrap(), h);
        assert!(Header::decode(p, &b, 4096 + 79)
            .unwrap_err()
            .to_string()
            .contains("truncated"));
        let mut d = b;
        d[OFF_ENTRIES] ^= 1;
        assert!(Header::decode(p, &d, 4096 + 80)
            .unwrap_err()
            .to_string()
            .contains("header checksum"));
        let mut d = b;
        d[0] = b'X';
        assert!(Header::decode(p, &d, 4096 + 80)
            .unwrap_err()
            .to_string()
            .contains("bad magic"));
    }
}
