//! Reading result documents: the `kind` and `format_version` are read first, then the
//! document is deserialised into its type in `pmolap_results`. Inputs are files or
//! directories (every `*.json` in them, non-results listed as skipped).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use pmolap_results::{
    demo::DemoSummary, elfbench, hashbench, iobench, kind, membench, pg, place, placefiles, ssb,
    topology::TopologyDoc, Header, Machine,
};

use crate::error::{Error, Result};

/// Result files larger than this are refused (the largest sweeps write a few MB):
/// `pmolap_os::input::MAX_DOCUMENT_BYTES`, 64 MiB.
pub const MAX_BYTES: u64 = pmolap_os::input::MAX_DOCUMENT_BYTES;

/// One result document, typed by its `kind` (the types of `pmolap_results`; the parts
/// they leave to their producers, such as the engine's query runs, read as plain JSON).
/// It serialises as the document itself.
#[derive(Debug, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum Document {
    Membench(Box<membench::Results>),
    Iobench(Box<iobench::Results>),
    Elf(Box<elfbench::BenchReport>),
    SsbRun(Box<ssb::RunReport>),
    SsbTiers(Box<ssb::TiersReport>),
    SsbBreakdown(Box<ssb::BreakdownReport>),
    PlaceValidate(Box<place::ValidateReport>),
    Demo(Box<DemoSummary>),
    Topology(Box<TopologyDoc>),
    PgTpch(Box<pg::TpchReport>),
    HashBench(Box<hashbench::HashBenchReport>),
    /// The placement advisor's documents: no common header (no machine, version or
    /// start), read from their own shape.
    PlaceWorkload(Box<placefiles::WorkloadDoc>),
    PlaceProfile(Box<placefiles::ProfileDoc>),
    Placement(Box<placefiles::PlacementDoc>),
}

/// The fields every result document starts with.
#[derive(Deserialize)]
struct Envelope {
    kind: Option<String>,
    /// The placement documents' own format name (how those without `kind` are known).
    format: Option<serde_json::Value>,
    format_version: Option<u32>,
}

impl Document {
    /// The header every result document starts with (the placement advisor's
    /// documents have none).
    pub fn header(&self) -> Option<&Header> {
        Some(match self {
            Document::Membench(d) => &d.header,
            Document::Iobench(d) => &d.header,
            Document::Elf(d) => &d.header,
            Document::SsbRun(d) => &d.header,
            Document::SsbTiers(d) => &d.header,
            Document::SsbBreakdown(d) => &d.header,
            Document::PlaceValidate(d) => &d.header,
            Document::Demo(d) => &d.header,
            Document::Topology(d) => &d.header,
            Document::PgTpch(d) => &d.header,
            Document::HashBench(d) => &d.header,
            Document::PlaceWorkload(_) | Document::PlaceProfile(_) | Document::Placement(_) => {
                return None
            }
        })
    }

    /// The document's `kind`.
    pub fn kind(&self) -> &str {
        match self {
            Document::PlaceWorkload(_) => kind::PLACE_WORKLOAD.name,
            Document::PlaceProfile(_) => kind::PLACE_PROFILE.name,
            Document::Placement(_) => kind::PLACEMENT.name,
            d => d.header().map_or("", |h| h.kind.as_str()),
        }
    }

    /// What the results were measured on, where the document says.
    pub fn machine(&self) -> Option<&Machine> {
        self.header().map(|h| &h.machine)
    }

    /// True when the run that wrote it was interrupted (only what finished is there).
    pub fn partial(&self) -> bool {
        self.header().is_some_and(|h| h.partial)
    }

    /// The pmolap version that wrote it, where the document says.
    pub fn pmolap_version(&self) -> Option<&str> {
        self.header().map(|h| h.pmolap_version.as_str())
    }

    /// When the run started (seconds since the Unix epoch), where the document says.
    pub fn started_unix(&self) -> Option<u64> {
        match self {
            Document::Membench(d) => Some(d.started_unix),
            Document::Iobench(d) => Some(d.started_unix),
            Document::Elf(d) => Some(d.started_unix),
            Document::HashBench(d) => Some(d.started_unix),
            _ => None,
        }
    }
}

/// Reads one result file (see the module docs). A file that is not JSON, has no `kind`
/// or an unknown one is [`Error::NotAResult`]; a newer format version is
/// [`Error::NewerVersion`].
pub fn read(path: &Path) -> Result<Document> {
    let len = std::fs::metadata(path)
        .map_err(|e| Error::io(path, e))?
        .len();
    if len > MAX_BYTES {
        return Err(Error::not_a_result(
            path,
            format!("{len} bytes, more than any result file ({MAX_BYTES})"),
        ));
    }
    // Bounded whatever the size says (`/dev/zero`, a FIFO, a file still growing).
    let text = pmolap_os::input::read_bounded(path, MAX_BYTES).map_err(|e| match e {
        // Too big, endless, a FIFO without a writer, not UTF-8: not a result file.
        pmolap_os::Error::Invalid(m) => {
            let prefix = format!("{}: ", path.display());
            let why = m.strip_prefix(&prefix).unwrap_or(&m).to_string();
            Error::not_a_result(path, why)
        }
        e => Error::from(e),
    })?;
    parse(path, &text)
}

/// [`read`] of `text`, as if read from `path`.
pub fn parse(path: &Path, text: &str) -> Result<Document> {
    let env: Envelope = serde_json::from_str(text).map_err(|e| {
        let why = if e.is_data() {
            "not a JSON object".to_string()
        } else {
            format!("not JSON ({e})")
        };
        Error::not_a_result(path, why)
    })?;
    // The placement advisor's documents written before they carried a `kind` are known
    // by their own `format`.
    let Some(kind) = env.kind.or_else(|| {
        env.format
            .as_ref()
            .and_then(serde_json::Value::as_str)
            .and_then(kind::by_format)
            .map(|k| k.name.to_string())
    }) else {
        return Err(Error::not_a_result(path, "no \"kind\" field"));
    };
    let Some(kind::Kind {
        name: kind,
        format_version: supported,
    }) = kind::find(&kind)
    else {
        return Err(Error::not_a_result(
            path,
            format!(
                "unknown kind {kind:?} (this build reads {})",
                kind::ALL
                    .iter()
                    .map(|k| k.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    };
    let found = env.format_version.unwrap_or(1);
    if found > supported {
        return Err(Error::NewerVersion {
            path: path.to_path_buf(),
            kind: kind.into(),
            found,
            supported,
        });
    }
    fn typed<T: serde::de::DeserializeOwned>(path: &Path, kind: &str, text: &str) -> Result<T> {
        serde_json::from_str(text).map_err(|e| {
            Error::not_a_result(path, format!("a {kind} document that does not parse: {e}"))
        })
    }
    let k = |c: kind::Kind| c.name == kind;
    Ok(if k(kind::MEMBENCH) {
        Document::Membench(typed(path, kind, text)?)
    } else if k(kind::IOBENCH) {
        Document::Iobench(typed(path, kind, text)?)
    } else if k(kind::ELFBENCH) {
        Document::Elf(typed(path, kind, text)?)
    } else if k(kind::SSB_RUN) {
        Document::SsbRun(typed(path, kind, text)?)
    } else if k(kind::SSB_TIERS) {
        Document::SsbTiers(typed(path, kind, text)?)
    } else if k(kind::SSB_BREAKDOWN) {
        Document::SsbBreakdown(typed(path, kind, text)?)
    } else if k(kind::PLACE_VALIDATE) {
        Document::PlaceValidate(typed(path, kind, text)?)
    } else if k(kind::DEMO) {
        Document::Demo(typed(path, kind, text)?)
    } else if k(kind::PG_TPCH) {
        Document::PgTpch(typed(path, kind, text)?)
    } else if k(kind::HASHBENCH) {
        Document::HashBench(typed(path, kind, text)?)
    } else if k(kind::PLACE_WORKLOAD) {
        Document::PlaceWorkload(typed(path, kind, text)?)
    } else if k(kind::PLACE_PROFILE) {
        Document::PlaceProfile(typed(path, kind, text)?)
    } else if k(kind::PLACEMENT) {
        Document::Placement(typed(path, kind, text)?)
    } else if k(kind::TOPOLOGY) {
        Document::Topology(typed(path, kind, text)?)
    } else {
        return Err(Error::not_a_result(
            path,
            format!("kind {kind:?} is listed but not read by this build"),
        ));
    })
}

/// The documents of a report, in the order given (a directory's files by name).
#[derive(Debug, Default)]
pub struct Inputs {
    pub docs: Vec<(PathBuf, Document)>,
    /// Inputs that could not be read as results (not a pmolap result, a newer format,
    /// unreadable, an empty directory), each with its one-line reason.
    pub skipped: Vec<(PathBuf, String)>,
}

/// Reads every input: files, and directories' `*.json` files. An input that cannot be
/// read as a result is listed as skipped with its reason, never fatal while another is
/// read; only when no document at all is read is it an error (that input's own error
/// when there was one input, else [`Error::NothingRead`]).
pub fn collect(inputs: &[PathBuf]) -> Result<Inputs> {
    if inputs.is_empty() {
        return Err(Error::NoInput);
    }
    let mut out = Inputs::default();
    let mut errors: Vec<Error> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for input in inputs {
        let files = match files_of(input) {
            Ok(f) => f,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        let before = out.docs.len();
        let mut bad = Vec::new();
        for f in files {
            if !seen.insert(canonical(&f)) {
                continue;
            }
            match read(&f) {
                Ok(d) => out.docs.push((f, d)),
                Err(e) => bad.push(e),
            }
        }
        if out.docs.len() == before && input.is_dir() && !bad.is_empty() {
            // Said of the directory as a whole; its files are still listed one by one.
            errors.push(Error::not_a_result(
                input,
                "none of the JSON files in this directory is a pmolap result",
            ));
        }
        errors.extend(bad);
    }
    if out.docs.is_empty() {
        return Err(match errors.len() {
            1 => errors.remove(0),
            0 => Error::NoInput,
            n => Error::NothingRead {
                count: n,
                first: errors.remove(0).to_string(),
            },
        });
    }
    out.skipped = errors.into_iter().map(|e| e.split_path()).collect();
    Ok(out)
}

/// A file input itself, or a directory's `*.json` files by name.
fn files_of(input: &Path) -> Result<Vec<PathBuf>> {
    let meta = std::fs::metadata(input).map_err(|e| Error::io(input, e))?;
    if !meta.is_dir() {
        return Ok(vec![input.to_path_buf()]);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(input)
        .map_err(|e| Error::io(input, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json") && p.is_file())
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(Error::EmptyDir {
            path: input.to_path_buf(),
        });
    }
    Ok(files)
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}
