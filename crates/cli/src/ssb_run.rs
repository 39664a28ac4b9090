//! `pmolap ssb run | breakdown`, `pmolap query` and `pmolap tiers` (also `ssb query`,
//! `ssb tiers`): the SSB queries, or the star-join queries of a file, on the column store
//! of any database, on any tier, with the SIGMOD'21 Table 1 switches.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;

use pmolap_bench::ssb::{self, DataOptions, QueryFigures, TiersReport};
use pmolap_engine::{parse_queries, select_ssb, ExecOptions, OutValue, Query, Script};
use pmolap_tier::kernel::Isa;
use pmolap_tier::Pinning;

use crate::output::{
    check_optional, print_text, render_answer, truncate, write_json, AnswerFormat,
};
use crate::progress::bar;

/// Where the data comes from and the execution switches (shared by every subcommand).
#[derive(Debug, Clone, Args)]
pub struct DataArgs {
    /// A database directory written by `pmolap load` or `pmolap ssb load`.
    #[arg(long, conflicts_with = "sf")]
    pub data: Option<PathBuf>,
    /// Scale factor: use (and generate on first use) `data/ssb/sf<SF>` under the current
    /// directory.
    #[arg(long)]
    pub sf: Option<f64>,
    /// Worker threads (0: one per CPU).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Thread pinning: none, numa, cores.
    #[arg(long, default_value = "cores")]
    pub pin: Pinning,
    /// Do not stripe fact partitions over NUMA nodes (striping is on by default; a no-op on
    /// one node).
    #[arg(long)]
    pub no_stripe: bool,
    /// Do not copy the join filters onto each NUMA node (on by default; a no-op on one node).
    #[arg(long)]
    pub no_replicate_dims: bool,
    /// Rows per morsel (a multiple of 64).
    #[arg(long, default_value_t = pmolap_engine::exec::DEFAULT_MORSEL_ROWS)]
    pub morsel: usize,
    /// Join index for every join: auto (the fact's row-reference column when the database
    /// has one, else a dense array when keys are dense, else hash), dense, hash, dash (the
    /// Dash hash table in DRAM); all but auto join through the foreign key.
    #[arg(long, default_value = "auto")]
    pub join_index: pmolap_engine::query::IndexChoice,
    /// Allow more than 4 threads per logical CPU.
    #[arg(long)]
    pub oversubscribe: bool,
    /// Bit kernels that unpack and test the packed value ids: auto (the widest this CPU
    /// has), avx512, avx2, portable.
    #[arg(long, default_value = "auto", value_parser = parse_bits_isa)]
    pub bits_isa: Isa,
}

impl DataArgs {
    /// The execution switches, the join index and the bit kernels included (the engine
    /// session selects those when it opens).
    fn exec(&self) -> ExecOptions {
        ExecOptions {
            threads: self.threads,
            pin: self.pin,
            stripe: !self.no_stripe,
            replicate_dims: !self.no_replicate_dims,
            morsel_rows: self.morsel,
            oversubscribe: self.oversubscribe,
            join_index: self.join_index,
            bits_isa: Some(self.bits_isa),
            ..ExecOptions::default()
        }
    }

    /// The data options.
    pub(crate) fn options(&self) -> DataOptions {
        DataOptions {
            data: self.data.clone(),
            sf: self.sf,
            exec: self.exec(),
            placement: None,
        }
    }
}

/// `--bits-isa`: auto (the widest of this CPU) or an ISA this CPU has.
fn parse_bits_isa(s: &str) -> std::result::Result<Isa, String> {
    Isa::select(s, &pmolap_tier::CpuFeatures::detect()).map_err(|e| e.to_string())
}

/// The answers of a run, in the format of `ssb-reference/answers-*.json`.
fn answers(figs: &[QueryFigures]) -> BTreeMap<String, &Vec<Vec<OutValue>>> {
    figs.iter().map(|f| (f.id.clone(), &f.last.rows)).collect()
}

/// Options of `ssb run` and `ssb query`.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub data: DataArgs,
    /// Tier to put every structure on: dram, dram:node=N, file:DIR, home (the table files).
    #[arg(long, default_value = "dram", conflicts_with = "placement")]
    pub tier: String,
    /// Put each structure on the tier a placement file names (`pmolap place advise`).
    #[arg(long)]
    pub placement: Option<PathBuf>,
    /// How the database's files are kept: `warm` (opened once, every page read in),
    /// `cold` (opened once, each query warmed up, then every database file's pages dropped
    /// before each timed run) or `cache:SIZE` (the queries run in a memory cgroup that
    /// bounds the page cache to SIZE, e.g. 64MiB; needs a writable memory cgroup).
    #[arg(long, default_value = "warm")]
    pub setting: ssb::RunSetting,
    /// Timed repetitions per query (after one warm-up run).
    #[arg(long, default_value_t = 3)]
    pub reps: usize,
    /// Write the results (config, machine, per-query figures and plans) as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write the answers here, in the format of ssb-reference/answers-sf1.json.
    #[arg(long)]
    pub answers: Option<PathBuf>,
    /// Print every query's answer (column names over aligned rows) after the timings.
    #[arg(long)]
    pub print: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// What `ssb run`, `ssb query` and `sql` run: queries as data, or a SQL script (its
/// syntax checked; translated once the database is open).
pub enum QuerySource {
    Given(Vec<Query>),
    Sql(Script),
}

impl From<Vec<Query>> for QuerySource {
    fn from(q: Vec<Query>) -> Self {
        QuerySource::Given(q)
    }
}

impl From<Script> for QuerySource {
    fn from(s: Script) -> Self {
        QuerySource::Sql(s)
    }
}

/// `pmolap ssb run` (`queries` = `all` or `1.1,2.3`) and `pmolap query FILE` (`ssb
/// query`).
pub fn run(a: &RunArgs, queries: impl Into<QuerySource>) -> Result<()> {
    run_printing(a, queries, AnswerFormat::Table)
}

/// [`run`], `--print` printing the answers in `format` (`pmolap sql --format`).
pub fn run_printing(
    a: &RunArgs,
    queries: impl Into<QuerySource>,
    format: AnswerFormat,
) -> Result<()> {
    if a.reps == 0 {
        bail!("--reps must be at least 1");
    }
    check_optional(a.json.as_deref()).context("--json")?;
    check_optional(a.answers.as_deref()).context("--answers")?;
    let source = queries.into();
    let queries = match &source {
        QuerySource::Given(q) => ssb::Queries::Given(q),
        QuerySource::Sql(s) => ssb::Queries::Sql(s),
    };
    let pb = bar(0, a.quiet);
    let data = DataOptions {
        placement: a.placement.clone(),
        ..a.data.options()
    };
    let r = ssb::run(&data, &a.tier, a.setting, queries, a.reps, &pb)?;
    pb.finish_and_clear();
    for n in &r.notes {
        eprintln!("note: {n}");
    }
    if r.header.partial {
        eprintln!(
            "interrupted: {} of {} queries finished; writing those (marked partial)",
            r.queries.len(),
            queries.len()
        );
    }
    println!(
        "{} on {} ({}) — {} threads, pin {}, bit kernels {}, {}",
        r.config.data.display(),
        r.config.tier,
        r.config.setting,
        r.layout.threads,
        r.layout.pin,
        r.config.bits_kernel,
        if r.layout.striped {
            "striped"
        } else {
            "one partition"
        }
    );
    println!(
        "{:>6} {:>30} {:>9} {:>9} {:>7} {:>8}  plan (step: selectivity)",
        "query", "median ms (min–max, reps)", "plan ms", "probe ms", "rows", "GB/s"
    );
    for f in &r.queries {
        let steps: Vec<String> = f
            .last
            .steps
            .iter()
            .map(|s| format!("{} {:.3}", s.what, s.selectivity))
            .collect();
        println!(
            "{:>6} {:>30} {:>9.2} {:>9.2} {:>7} {:>8.2}  {}",
            f.id,
            f.spread()
                .map_or(format!("{:.2} ms", f.median_ms), |s| s.display("ms")),
            f.plan_ms,
            f.probe_ms,
            f.rows,
            f.gbps,
            steps.join(" → ")
        );
    }
    if a.print {
        // Each answer under its query's name, with its column names.
        for f in &r.queries {
            let answer = render_answer(
                format,
                &f.last.columns,
                &f.last.rows,
                &f.last.decimal_columns,
            );
            print_text(&format!("-- {}\n{answer}", f.id))?;
        }
    }
    if let Some(path) = &a.answers {
        write_json(&answers(&r.queries), path)?;
    }
    if let Some(path) = &a.json {
        write_json(&r, path)?;
        println!("results: {}", path.display());
    }
    Ok(())
}

/// The queries of a YAML/JSON file, or the SQL script of a `.sql` file.
pub fn load_query_file(path: &Path) -> Result<QuerySource> {
    let text = pmolap_os::input::read_bounded(path, pmolap_os::input::MAX_INPUT_BYTES)?;
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("sql"))
    {
        return Ok(Script::parse(&text)?.into());
    }
    Ok(parse_queries(&text, &path.display().to_string())?.into())
}

/// `pmolap sql TEXT`: `;`-separated star-join SQL statements (a `-- Qx.y` comment line
/// before a statement names it, else it is numbered), their syntax checked. The database
/// must be named: `--data DIR` or `--sf SF` (`pmolap sql` never picks one itself).
pub fn sql_texts(text: &str, data: &DataArgs) -> Result<Script> {
    if data.data.is_none() && data.sf.is_none() {
        bail!("no database: give --data DIR (written by `pmolap load` or `pmolap ssb load`) or --sf SF (generated into data/ssb/sf<SF> on first use)");
    }
    Ok(Script::parse(text)?)
}

/// The SSB queries a `--queries` list names.
pub fn ssb_list(list: &str) -> Result<Vec<Query>> {
    select_ssb(list).context("--queries")
}

/// The queries `--queries` names — `all` (the 13 SSB queries) or a list such as
/// `1.1,2.3`, or a file of the engine's family: FILE.sql (a SQL script, translated
/// against the database of `data`) or FILE.yaml / FILE.json (queries as data) — and
/// where they come from (`SSB` or the file).
pub fn resolve_queries(
    q: &str,
    data: &DataOptions,
    pb: &indicatif::ProgressBar,
) -> Result<(Vec<Query>, String)> {
    let is_file = Path::new(q)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| ["sql", "yaml", "yml", "json"].contains(&e.to_ascii_lowercase().as_str()));
    if !is_file {
        let list = ssb_list(q)?;
        // The built-in queries on another schema would fail on a missing `lo_` column.
        ssb::check_ssb_database(data, pb)?;
        return Ok((list, "SSB".into()));
    }
    let path = Path::new(q);
    let queries = match load_query_file(path).with_context(|| format!("--queries {q}"))? {
        QuerySource::Given(v) => v,
        QuerySource::Sql(script) => {
            ssb::translate(data, &script, pb).with_context(|| format!("--queries {q}"))?
        }
    };
    if queries.is_empty() {
        bail!("--queries {q}: no queries in the file");
    }
    Ok((queries, path.display().to_string()))
}

/// Options of `ssb tiers`.
#[derive(Debug, Clone, Args)]
pub struct TiersArgs {
    #[command(flatten)]
    pub data: DataArgs,
    /// Queries: all (the 13 SSB queries), a list such as 1.1,2.3, or a file of the
    /// engine's family: FILE.sql (a SQL script) or FILE.yaml / FILE.json.
    #[arg(long, default_value = "all")]
    pub queries: String,
    /// Timed repetitions per query and tier.
    #[arg(long, default_value_t = 3)]
    pub reps: usize,
    /// Only these tiers: a spec (dram, file:/dev/shm, home) or a word of the printed name
    /// (cold, warm, shm, node).
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    #[arg(long)]
    pub json: Option<PathBuf>,
    #[arg(long)]
    pub quiet: bool,
}

/// `pmolap tiers` (and `ssb tiers`): every query on every tier of this machine, and the
/// slowdown of each against DRAM (SIGMOD'21 Fig. 14).
pub fn tiers(a: &TiersArgs) -> Result<()> {
    if a.reps == 0 {
        bail!("--reps must be at least 1");
    }
    check_optional(a.json.as_deref()).context("--json")?;
    let pb = bar(0, a.quiet);
    let data = a.data.options();
    let (queries, _) = resolve_queries(&a.queries, &data, &pb)?;
    let r = ssb::tiers(&data, &queries, a.reps, &a.only, &pb, &|c| {
        pb.set_prefix(c.name.clone())
    })?;
    pb.finish_and_clear();
    for n in &r.notes {
        eprintln!("note: {n}");
    }
    print_tiers(&r, &queries);
    if let Some(path) = &a.json {
        write_json(&r, path)?;
        println!("results: {}", path.display());
    }
    Ok(())
}

/// The Fig. 14 table: per query and tier the median with its min–max and repetitions,
/// and the slowdown against the first tier (DRAM) with the noise verdict; then the
/// geomean slowdown per tier.
fn print_tiers(r: &TiersReport, queries: &[Query]) {
    let base = &r.tiers[0];
    let mut rows = Vec::new();
    for q in queries {
        for (ti, t) in r.tiers.iter().enumerate() {
            let fig = t.queries.iter().find(|f| f.id == q.id);
            let time = fig
                .and_then(|f| f.spread())
                .map_or("not run".to_string(), |s| s.display("ms"));
            let vs = match (ti, r.slowdown_ratio(ti, &q.id)) {
                (0, _) | (_, None) => String::new(),
                (_, Some(x)) => x.display(),
            };
            let id = if ti == 0 { q.id.clone() } else { String::new() };
            rows.push(vec![id, truncate(&t.tier.name, 34), time, vs]);
        }
    }
    let mut out = String::new();
    let vs = format!("vs {}", truncate(&base.tier.name, 20));
    crate::output::table(
        &mut out,
        &["query", "tier", "median (min–max, reps)", &vs],
        &rows,
    );
    print!("{out}");
    for ti in 1..r.tiers.len() {
        if let Some(g) = r.geomean_ratio(ti) {
            println!(
                "geomean slowdown of {} vs {}: {}",
                r.tiers[ti].tier.name,
                base.tier.name,
                g.display()
            );
        }
    }
    println!(
        "(slowdown = median time on the tier / median time on {}; \"within noise\": the two min–max ranges overlap, docs/report.md)",
        base.tier.name
    );
}

/// One rung of the ladder: its time with spread, its speedup with the noise verdict, and
/// whether it ran the same configuration as the rung before (striping on one node).
pub(crate) fn ladder_line(step: &ssb::LadderStep, same_as_previous: bool) -> String {
    let time = step
        .spread()
        .map_or(format!("{:.2} ms", step.median_ms), |s| s.display("ms"));
    let speedup = step
        .speedup
        .map_or(format!("{:.2}x", step.speedup_vs_first), |x| x.display());
    let mut notes = step.notes.clone();
    if same_as_previous {
        notes.push("the same configuration as the rung before here".into());
    }
    format!(
        "{:>30} | {:<26} {:>30} {}{}",
        truncate(&step.tier, 30),
        step.step,
        time,
        speedup,
        if notes.is_empty() {
            String::new()
        } else {
            format!("  ({})", notes.join("; "))
        }
    )
}

/// Options of `ssb breakdown`.
#[derive(Debug, Clone, Args)]
pub struct BreakdownArgs {
    #[command(flatten)]
    pub data: DataArgs,
    /// The SSB query.
    #[arg(long, default_value = "2.1")]
    pub query: String,
    #[arg(long, default_value_t = 3)]
    pub reps: usize,
    /// Only these tiers (specs or name words, as in `ssb tiers`).
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// `pmolap ssb breakdown`: the SIGMOD'21 Table 1 ladder for one query on every tier —
/// 1 thread, all threads, + pinning, + striping and replication.
pub fn breakdown(a: &BreakdownArgs) -> Result<()> {
    if a.reps == 0 {
        bail!("--reps must be at least 1");
    }
    check_optional(a.json.as_deref()).context("--json")?;
    let q = ssb_list(&a.query)?
        .into_iter()
        .next()
        .context("--query names no query")?;
    println!(
        "Q{} — the Table 1 ladder ({} reps; median (min–max), speedup over the first rung)",
        q.id, a.reps
    );
    let prev = std::cell::RefCell::new(None::<ssb::LadderStep>);
    let r = ssb::breakdown(&a.data.options(), &q, a.reps, &a.only, &|step| {
        let same = prev
            .borrow()
            .as_ref()
            .is_some_and(|p| step.same_configuration(p));
        println!("{}", ladder_line(step, same));
        *prev.borrow_mut() = Some(step.clone());
    })?;
    for n in &r.notes {
        eprintln!("note: {n}");
    }
    if let Some(path) = &a.json {
        write_json(&r, path)?;
        println!("results: {}", path.display());
    }
    Ok(())
}
