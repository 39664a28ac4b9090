//! What `pmolap membench` and `pmolap iobench` share on the command line: the sweep
//! flags (config, selection, outputs, quiet, dry run), config enums and sizes given as
//! flags, and the dry-run listing and per-run lines they print.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;

use pmolap_bench::membench::config::parse_name;
use pmolap_bench::size::{parse_size, Size};

use crate::output::Outputs;

/// The flags every sweep command has.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// A YAML sweep: named benchmarks with `args` and a `matrix` (cross product).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Run only these benchmarks of the config (repeatable).
    #[arg(long)]
    pub only: Vec<String>,
    /// Allow far more threads than logical CPUs (more than 4 per CPU or 1024).
    #[arg(long)]
    pub oversubscribe: bool,
    /// Where to write the JSON results (default: results/<command>-YYYYMMDD-HHMMSS.json, UTC).
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Also write the results as CSV here.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// No progress bar and no per-run lines; only errors and the output paths.
    #[arg(long)]
    pub quiet: bool,
    /// Validate and list the parameter sets; create and run nothing.
    #[arg(long)]
    pub dry_run: bool,
}

impl SweepArgs {
    /// Runs a validated sweep: checks the outputs (creating nothing), lists the parameter
    /// sets instead with `--dry-run`, else prints the header and a row per finished run
    /// (unless quiet) while `run` runs them (given the config file's name and the per-run
    /// callback), and publishes the results as JSON and, with `--csv`, through `csv`.
    pub(crate) fn execute<P, R, T: serde::Serialize>(
        &self,
        show: &SweepShow<P, R, T>,
        runs: &[(String, P)],
        run: impl FnOnce(Option<String>, &mut dyn FnMut(&R)) -> Result<T>,
        csv: impl FnOnce(&T, &Path) -> Result<()>,
    ) -> Result<()> {
        let SweepShow {
            kind,
            describe,
            header,
            row,
            partial,
        } = show;
        let outputs = Outputs::new(kind, &self.json, &self.csv)?;
        if self.dry_run {
            for (n, p) in runs {
                println!("{n}: {}", describe(p));
            }
            println!("{} parameter sets, all valid", runs.len());
            return Ok(());
        }
        let quiet = self.quiet;
        if !quiet {
            println!("{header}");
        }
        let mut on_run = |r: &R| {
            if !quiet {
                println!("{}", row(r));
                let _ = std::io::stdout().flush();
            }
        };
        let config = self.config.as_ref().map(|p| p.display().to_string());
        let results = run(config, &mut on_run)?;
        outputs.write(&results, partial(&results), csv)
    }
}

/// How a sweep command names its results, lists its parameter sets and prints its runs.
pub(crate) struct SweepShow<P, R, T> {
    /// The results' kind: the default JSON file is `results/<kind>-YYYYMMDD-HHMMSS.json`.
    pub kind: &'static str,
    /// One parameter set, for `--dry-run`.
    pub describe: fn(&P) -> String,
    /// The table's header line, and a finished run's row.
    pub header: String,
    pub row: fn(&R) -> String,
    /// Whether the results say an interrupt cut the sweep short.
    pub partial: fn(&T) -> bool,
}

/// A config enum given as a flag (`--flag value`), parsed by its config name.
pub(crate) fn enum_arg<T: serde::de::DeserializeOwned>(
    flag: &str,
    v: &Option<String>,
) -> Result<Option<T>> {
    v.as_deref()
        .map(|s| parse_name(s).map_err(|e| anyhow::anyhow!("--{flag}: {e}")))
        .transpose()
}

/// A byte size given as a flag.
pub(crate) fn size_arg(flag: &str, v: &Option<String>) -> Result<Option<Size>> {
    v.as_deref()
        .map(|s| {
            parse_size(s)
                .map(Size)
                .map_err(|e| anyhow::anyhow!("--{flag}: {e}"))
        })
        .transpose()
}

/// Keeps only the `--only` benchmarks of the config at `path` (all when none is
/// given), before anything is expanded; errors on a name the config lacks.
pub(crate) fn select_only<S>(
    benchmarks: &mut Vec<(String, S)>,
    only: &[String],
    path: &Path,
) -> Result<()> {
    for o in only {
        if !benchmarks.iter().any(|(n, _)| n == o) {
            let names: Vec<&str> = benchmarks.iter().map(|(n, _)| n.as_str()).collect();
            anyhow::bail!(
                "{}: no benchmark `{o}` (has: {})",
                path.display(),
                names.join(", ")
            );
        }
    }
    if !only.is_empty() {
        benchmarks.retain(|(n, _)| only.contains(n));
    }
    Ok(())
}
