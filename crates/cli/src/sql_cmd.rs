//! `pmolap sql`: star-join SQL as a query tool — the SQL from an argument, `-f FILE` or
//! stdin, each statement's answer printed as a table, CSV or JSON; one run by default,
//! `--reps N` for timings (on stderr); `--setting`, `--json` and `--answers` run it as
//! the `ssb query` benchmark does.

use std::io::Read as _;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;

use pmolap_bench::ssb::{self, RunSetting};
use pmolap_engine::sql::MAX_SQL_BYTES;

use crate::output::{print_text, render_answer, AnswerFormat};
use crate::progress::bar;
use crate::ssb_run::{self, DataArgs, RunArgs};

/// Flags of `pmolap sql`.
#[derive(Debug, Args)]
pub struct SqlArgs {
    /// The SQL: one SELECT, or several `;`-separated (each prints its own answer); `-`
    /// reads it from stdin.
    #[arg(required_unless_present = "file", conflicts_with = "file")]
    sql: Option<String>,
    /// Read the SQL from this file (`-`: stdin).
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    file: Option<PathBuf>,
    #[command(flatten)]
    data: DataArgs,
    /// Tier to put every structure on: home (the database's own files, mapped: the
    /// default), dram, dram:node=N, file:DIR (each a copy made at open).
    #[arg(long, default_value = "home", conflicts_with = "placement")]
    tier: String,
    /// Put each structure on the tier a placement file names (`pmolap place advise`).
    #[arg(long)]
    placement: Option<PathBuf>,
    /// How answers are printed: table (column names over aligned rows), csv (RFC 4180,
    /// a header record) or json (one line per statement: an array of objects, one per
    /// row, `{"column": value}`; decimals as numbers with their exact digits). Several
    /// statements print one answer each (tables and
    /// CSV separated by an empty line).
    #[arg(long, value_enum, default_value_t = AnswerFormat::Table)]
    format: AnswerFormat,
    /// Runs per statement: 1 (the default) answers once; more warm each up once, then
    /// time them and print the median and min–max on stderr.
    #[arg(long, default_value_t = 1)]
    reps: usize,
    /// As in `ssb query` (warm, cold, cache:SIZE); other than warm runs the benchmark:
    /// its timing table, then the answers.
    #[arg(long, default_value = "warm")]
    setting: RunSetting,
    /// Write the results document of the benchmark run here (runs it as `ssb query`).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write the answers here, in the format of ssb-reference/answers-sf1.json (runs
    /// the benchmark as `ssb query`).
    #[arg(long)]
    answers: Option<PathBuf>,
    /// Accepted for older scripts: the answers are always printed.
    #[arg(long, hide = true)]
    print: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

/// `pmolap sql`.
pub fn run(a: &SqlArgs) -> Result<()> {
    let text = sql_text(a)?;
    let script = ssb_run::sql_texts(&text, &a.data)?;
    if a.reps == 0 {
        bail!("--reps must be at least 1");
    }
    if a.setting != RunSetting::Warm || a.json.is_some() || a.answers.is_some() {
        let args = RunArgs {
            data: a.data.clone(),
            tier: a.tier.clone(),
            placement: a.placement.clone(),
            setting: a.setting,
            reps: a.reps,
            json: a.json.clone(),
            answers: a.answers.clone(),
            print: true,
            quiet: a.quiet,
        };
        return ssb_run::run_printing(&args, script, a.format).context("pmolap sql");
    }
    let pb = bar(0, a.quiet);
    let data = ssb::DataOptions {
        placement: a.placement.clone(),
        ..a.data.options()
    };
    let r = ssb::answer(&data, &a.tier, &script, a.reps, &pb).context("pmolap sql")?;
    pb.finish_and_clear();
    for n in &r.notes {
        eprintln!("note: {n}");
    }
    let mut out = String::new();
    let several = r.answers.len() > 1;
    for (i, ans) in r.answers.iter().enumerate() {
        if i > 0 && a.format != AnswerFormat::Json {
            out.push('\n');
        }
        if several && a.format == AnswerFormat::Table {
            out.push_str(&format!("-- {}\n", ans.id));
        }
        out.push_str(&render_answer(
            a.format,
            &ans.columns,
            &ans.rows,
            &ans.decimal_columns,
        ));
    }
    print_text(&out)?;
    if r.warmed_up {
        for ans in &r.answers {
            if let Some(s) = ans.spread() {
                eprintln!("{}: {} after 1 warm-up", ans.id, s.display("ms"));
            }
        }
    }
    if pmolap_os::signal::interrupted() {
        eprintln!(
            "interrupted: {} of {} statements answered",
            r.answers.len(),
            script.len()
        );
    }
    // The process exits next: its teardown unmaps the database's structures at once,
    // cheaper than unmapping them one by one first (the shared lock goes with it).
    std::mem::forget(r.session);
    Ok(())
}

/// The SQL text: the argument, or the file `-f` names, or stdin (`-` for either),
/// bounded to the SQL front end's limit.
fn sql_text(a: &SqlArgs) -> Result<String> {
    let from_stdin = || -> Result<String> {
        let mut s = String::new();
        std::io::stdin()
            .lock()
            .take(MAX_SQL_BYTES as u64 + 1)
            .read_to_string(&mut s)
            .context("reading the SQL from stdin")?;
        Ok(s)
    };
    let text = match (&a.sql, &a.file) {
        (Some(s), _) if s == "-" => from_stdin()?,
        (Some(s), _) => s.clone(),
        (None, Some(f)) if f.as_os_str() == "-" => from_stdin()?,
        (None, Some(f)) => pmolap_os::input::read_bounded(f, MAX_SQL_BYTES as u64)
            .with_context(|| format!("-f {}", f.display()))?,
        (None, None) => bail!("no SQL: give it as an argument, with -f FILE, or - for stdin"),
    };
    if text.trim().is_empty() {
        bail!("no SQL: the text is empty");
    }
    Ok(text)
}
