//! Reading result documents: the `kind` and `format_version` are read first, then the
//! document is deserialised into the producing crate's type. Inputs are files or
//! directories (every `*.json` in them, non-results listed as skipped).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use pmolap_bench::machine::Machine;
use pmolap_bench::ssb::validate::{ValidateReport, KIND_VALIDATE};
use pmolap_bench::ssb::{BreakdownReport, RunReport, TiersReport};
use pmolap_bench::{iobench, membench};
use pmolap_demo::DemoSummary;
use pmolap_index::dash::bench as hashbench;
use pmolap_index::elf::bench::results as elfbench;
use pmolap_tier::TierInfo;

use crate::error::{Error, Result};

/// Result files larger than this are refused (the largest sweeps write a few MB):
/// `pmolap_tier::input::MAX_DOCUMENT_BYTES`, 64 MiB.
pub const MAX_BYTES: u64 = pmolap_tier::input::MAX_DOCUMENT_BYTES;

/// One result document, typed by its `kind`.
#[derive(Debug)]
#[non_exhaustive]
pub enum Document {
    Membench(Box<membench::Results>),
    Iobench(Box<iobench::Results>),
    Elf(Box<elfbench::BenchReport>),
    SsbRun(Box<RunReport>),
    SsbTiers(Box<TiersReport>),
    SsbBreakdown(Box<BreakdownReport>),
    PlaceValidate(Box<ValidateReport>),
    Demo(Box<DemoSummary>),
    Topology(Box<TopologyDoc>),
    PgTpch(Box<pmolap_pg::TpchReport>),
    HashBench(Box<hashbench::HashBenchReport>),
}

/// `topology.json` of `pmolap demo`: the machine and its tiers (the detailed topology
/// it also holds is not needed here).
#[derive(Debug, Clone, Deserialize)]
pub struct TopologyDoc {
    pub kind: String,
    pub format_version: u32,
    pub pmolap_version: String,
    #[serde(default)]
    pub partial: bool,
    pub machine: Machine,
    pub tiers: Vec<TierInfo>,
}

/// The fields every result document starts with.
#[derive(Deserialize)]
struct Envelope {
    kind: Option<String>,
    format_version: Option<u32>,
}

/// Every kind this build reads, with the newest format version it reads.
pub const KINDS: &[(&str, u32)] = &[
    ("membench", membench::results::FORMAT_VERSION),
    ("iobench", iobench::results::FORMAT_VERSION),
    (elfbench::KIND, elfbench::FORMAT_VERSION),
    (
        pmolap_bench::ssb::KIND_RUN,
        pmolap_bench::ssb::FORMAT_VERSION,
    ),
    (
        pmolap_bench::ssb::KIND_TIERS,
        pmolap_bench::ssb::FORMAT_VERSION,
    ),
    (
        pmolap_bench::ssb::KIND_BREAKDOWN,
        pmolap_bench::ssb::FORMAT_VERSION,
    ),
    (KIND_VALIDATE, pmolap_bench::ssb::FORMAT_VERSION),
    (pmolap_demo::KIND, pmolap_demo::FORMAT_VERSION),
    ("topology", 1),
    (pmolap_pg::KIND, pmolap_pg::FORMAT_VERSION),
    (hashbench::KIND, hashbench::FORMAT_VERSION),
];

impl Document {
    /// The document's `kind`.
    pub fn kind(&self) -> &str {
        match self {
            Document::Membench(d) => &d.kind,
            Document::Iobench(d) => &d.kind,
            Document::Elf(d) => &d.kind,
            Document::SsbRun(d) => &d.kind,
            Document::SsbTiers(d) => &d.kind,
            Document::SsbBreakdown(d) => &d.kind,
            Document::PlaceValidate(d) => &d.kind,
            Document::Demo(d) => &d.kind,
            Document::Topology(d) => &d.kind,
            Document::PgTpch(d) => &d.kind,
            Document::HashBench(d) => &d.kind,
        }
    }

    /// What the results were measured on.
    pub fn machine(&self) -> &Machine {
        match self {
            Document::Membench(d) => &d.machine,
            Document::Iobench(d) => &d.machine,
            Document::Elf(d) => &d.machine,
            Document::SsbRun(d) => &d.machine,
            Document::SsbTiers(d) => &d.machine,
            Document::SsbBreakdown(d) => &d.machine,
            Document::PlaceValidate(d) => &d.machine,
            Document::Demo(d) => &d.machine,
            Document::Topology(d) => &d.machine,
            Document::PgTpch(d) => &d.machine,
            Document::HashBench(d) => &d.machine,
        }
    }

    /// True when the run that wrote it was interrupted (only what finished is there).
    pub fn partial(&self) -> bool {
        match self {
            Document::Membench(d) => d.partial,
            Document::Iobench(d) => d.partial,
            Document::Elf(d) => d.partial,
            Document::SsbRun(d) => d.partial,
            Document::SsbTiers(d) => d.partial,
            Document::SsbBreakdown(d) => d.partial,
            Document::PlaceValidate(d) => d.partial,
            Document::Demo(d) => d.partial,
            Document::Topology(d) => d.partial,
            Document::PgTpch(d) => d.partial,
            // `pmolap hash bench` writes its document only when every measurement finished.
            Document::HashBench(_) => false,
        }
    }

    /// The pmolap version that wrote it.
    pub fn pmolap_version(&self) -> &str {
        match self {
            Document::Membench(d) => &d.pmolap_version,
            Document::Iobench(d) => &d.pmolap_version,
            Document::Elf(d) => &d.pmolap_version,
            Document::SsbRun(d) => &d.pmolap_version,
            Document::SsbTiers(d) => &d.pmolap_version,
            Document::SsbBreakdown(d) => &d.pmolap_version,
            Document::PlaceValidate(d) => &d.pmolap_version,
            Document::Demo(d) => &d.pmolap_version,
            Document::Topology(d) => &d.pmolap_version,
            Document::PgTpch(d) => &d.pmolap_version,
            Document::HashBench(d) => &d.pmolap_version,
        }
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
    let text = pmolap_tier::input::read_bounded(path, MAX_BYTES).map_err(|e| match e {
        // Too big, endless, a FIFO without a writer, not UTF-8: not a result file.
        pmolap_tier::Error::Invalid(m) => {
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
    let Some(kind) = env.kind else {
        return Err(Error::not_a_result(path, "no \"kind\" field"));
    };
    let Some(&(kind, supported)) = KINDS.iter().find(|(k, _)| *k == kind) else {
        return Err(Error::not_a_result(
            path,
            format!(
                "unknown kind {kind:?} (this build reads {})",
                KINDS.iter().map(|k| k.0).collect::<Vec<_>>().join(", ")
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
    Ok(match kind {
        "membench" => Document::Membench(typed(path, kind, text)?),
        "iobench" => Document::Iobench(typed(path, kind, text)?),
        elfbench::KIND => Document::Elf(typed(path, kind, text)?),
        pmolap_bench::ssb::KIND_RUN => Document::SsbRun(typed(path, kind, text)?),
        pmolap_bench::ssb::KIND_TIERS => Document::SsbTiers(typed(path, kind, text)?),
        pmolap_bench::ssb::KIND_BREAKDOWN => Document::SsbBreakdown(typed(path, kind, text)?),
        KIND_VALIDATE => Document::PlaceValidate(typed(path, kind, text)?),
        pmolap_demo::KIND => Document::Demo(typed(path, kind, text)?),
        pmolap_pg::KIND => Document::PgTpch(typed(path, kind, text)?),
        hashbench::KIND => Document::HashBench(typed(path, kind, text)?),
        _ => Document::Topology(typed(path, kind, text)?),
    })
}

/// The documents of a report, in the order given (a directory's files by name).
#[derive(Debug, Default)]
pub struct Inputs {
    pub docs: Vec<(PathBuf, Document)>,
    /// JSON files in a directory that are not pmolap results, and why.
    pub skipped: Vec<(PathBuf, String)>,
}

/// Reads every input: a file must be a result; a directory must hold at least one
/// `*.json` file and at least one result among them (others are listed as skipped).
pub fn collect(inputs: &[PathBuf]) -> Result<Inputs> {
    if inputs.is_empty() {
        return Err(Error::NoInput);
    }
    let mut out = Inputs::default();
    let mut seen = std::collections::HashSet::new();
    for input in inputs {
        let meta = std::fs::metadata(input).map_err(|e| Error::io(input, e))?;
        if !meta.is_dir() {
            if seen.insert(canonical(input)) {
                out.docs.push((input.clone(), read(input)?));
            }
            continue;
        }
        let mut files: Vec<PathBuf> = std::fs::read_dir(input)
            .map_err(|e| Error::io(input, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json") && p.is_file())
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(Error::EmptyDir {
                path: input.clone(),
            });
        }
        let before = out.docs.len();
        for f in files {
            if !seen.insert(canonical(&f)) {
                continue;
            }
            match read(&f) {
                Ok(d) => out.docs.push((f, d)),
                Err(Error::NotAResult { path, why }) => out.skipped.push((path, why)),
                Err(e) => return Err(e),
            }
        }
        if out.docs.len() == before && out.skipped.iter().any(|(p, _)| p.starts_with(input)) {
            return Err(Error::not_a_result(
                input,
                "none of the JSON files in this directory is a pmolap result",
            ));
        }
    }
    Ok(out)
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}
