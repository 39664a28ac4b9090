//! Reading and writing the crate's JSON documents with errors that name the file.

use std::path::Path;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::{Error, Result};

/// The largest workload, profile or placement document read (64 MiB: a workload of
/// [`crate::solve::MAX_STRUCTURES`] structures with per-query counts of 100 queries
/// is well under it).
pub const MAX_DOCUMENT_BYTES: u64 = pmolap_os::input::MAX_DOCUMENT_BYTES;

/// Reads `path` as a JSON document of type `T` through `pmolap_os::input` (at most
/// [`MAX_DOCUMENT_BYTES`]; `/dev/zero`, a FIFO without a writer or a huge file end with
/// one line); a syntax or shape error names the file and the line and column.
pub(crate) fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T> {
    let text = pmolap_os::input::read_bounded(path, MAX_DOCUMENT_BYTES)?;
    parse_json(path, &text)
}

/// [`read_json`] of `text`, as if read from `path`. The top-level `kind` that
/// documents written by [`Tagged`] carry is not part of the types: it is set aside before
/// they are read (files without it read as they always did).
pub(crate) fn parse_json<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T> {
    let err = |e: serde_json::Error| Error::Json {
        path: path.to_path_buf(),
        message: crate::error::one_line(e.to_string()),
    };
    match serde_json::from_str(text) {
        Ok(v) => Ok(v),
        Err(first) => {
            if let Ok(serde_json::Value::Object(mut m)) = serde_json::from_str(text) {
                if m.remove("kind").is_some_and(|k| k.is_string()) {
                    return serde_json::from_value(serde_json::Value::Object(m)).map_err(err);
                }
            }
            Err(err(first))
        }
    }
}

/// A document with its `kind` first (`pmolap_results::kind`: `place-workload`,
/// `place-profile`, `placement`), as it is written, so `pmolap report` knows it.
#[derive(Debug, Serialize)]
pub struct Tagged<'a, T> {
    kind: &'static str,
    #[serde(flatten)]
    doc: &'a T,
}

impl<'a, T> Tagged<'a, T> {
    pub(crate) fn new(kind: pmolap_results::Kind, doc: &'a T) -> Self {
        Tagged {
            kind: kind.name,
            doc,
        }
    }
}

/// Writes `value` to `path` as pretty JSON with a final newline.
pub(crate) fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let mut text = serde_json::to_string_pretty(value).map_err(|e| Error::Json {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    text.push('\n');
    std::fs::write(path, text).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// A 64-bit FNV-1a digest of `value`'s compact JSON, as 16 hex digits (identifies a
/// document's content; not a cryptographic hash).
pub(crate) fn digest<T: Serialize>(value: &T) -> String {
    let bytes = serde_json::to_vec(value).unwrap_or_default();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Checks a document's `format` and `version` header fields.
pub(crate) fn check_header(
    file: &str,
    format: &str,
    version: u32,
    want_format: &str,
    want_version: u32,
) -> Result<()> {
    if format != want_format {
        return Err(Error::invalid(
            file,
            "format",
            format!("`{format}`, expected `{want_format}`"),
        ));
    }
    if version != want_version {
        return Err(Error::invalid(
            file,
            "version",
            format!("{version}, this build reads version {want_version}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Profile;

    #[test]
    fn documents_are_written_with_their_kind_and_read_back_with_or_without_it() {
        let p = Profile::optane_100();
        let text = serde_json::to_string(&p.document()).unwrap();
        assert!(text.starts_with("{\"kind\":\"place-profile\","), "{text}");
        let back: Profile = parse_json(Path::new("p.json"), &text).unwrap();
        assert_eq!(back, p);
        // Written before `kind`: as ever.
        let old = serde_json::to_string(&p).unwrap();
        assert_eq!(parse_json::<Profile>(Path::new("p.json"), &old).unwrap(), p);
        // Other unknown fields are still refused, naming them.
        let bad = text.replacen("\"kind\"", "\"kinds\"", 1);
        let e = parse_json::<Profile>(Path::new("p.json"), &bad)
            .unwrap_err()
            .to_string();
        assert!(e.contains("kinds"), "{e}");
    }
}
