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
    /// Where to write the JSON results (default: results/<command>-<time>.json).
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
    /// The output paths of a `kind` run, checked up front ([`Outputs::new`]).
    pub(crate) fn outputs(&self, kind: &str) -> Result<Outputs> {
        Outputs::new(kind, &self.json, &self.csv)
    }

    /// The config file as the results document names it.
    pub(crate) fn config_file(&self) -> Option<String> {
        self.config.as_ref().map(|p| p.display().to_string())
    }

    /// With `--dry-run`: lists the parameter sets (`describe`d) and returns true.
    pub(crate) fn dry_run<P>(&self, runs: &[(String, P)], describe: impl Fn(&P) -> String) -> bool {
        if self.dry_run {
            for (n, p) in runs {
                println!("{n}: {}", describe(p));
            }
            println!("{} parameter sets, all valid", runs.len());
        }
        self.dry_run
    }

    /// Prints `header` (unless quiet) and returns what prints each finished run's `row`.
    pub(crate) fn printer<R>(&self, header: String, row: fn(&R) -> String) -> impl FnMut(&R) {
        let quiet = self.quiet;
        if !quiet {
            println!("{header}");
        }
        move |run| {
            if !quiet {
                println!("{}", row(run));
                let _ = std::io::stdout().flush();
            }
        }
    }
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
