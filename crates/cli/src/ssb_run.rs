//! `pmolap ssb run | query | breakdown | tiers`: the SSB queries (or a custom star-join
//! query) on the column store, on any tier, with the SIGMOD'21 Table 1 switches.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use pmolap_bench::machine::Machine;
use pmolap_engine::{
    parse_queries, run_query, select_ssb, Database, ExecOptions, Layout, OutValue, Query, QueryRun,
    StripedFact,
};
use pmolap_store::table::OpenOptions;
use pmolap_store::Placement;
use pmolap_tier::io::{fadvise, Advice};
use pmolap_tier::{Pinning, RegionOptions, TierSpec, Topology};

use crate::membench_cmd::write_json;

/// Where the data comes from and the execution switches (shared by every subcommand).
#[derive(Debug, Clone, Args)]
pub struct DataArgs {
    /// A database directory written by `pmolap ssb load` (`<dir>/<table>/`).
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
    #[arg(long, default_value_t = 16 * 1024)]
    pub morsel: usize,
    /// Join index for every join: auto (dense array when keys are dense, else hash), dense, hash.
    #[arg(long, default_value = "auto")]
    pub join_index: pmolap_engine::query::IndexChoice,
    /// Allow more than 4 threads per logical CPU.
    #[arg(long)]
    pub oversubscribe: bool,
}

impl DataArgs {
    fn exec(&self) -> ExecOptions {
        ExecOptions {
            threads: self.threads,
            pin: self.pin,
            stripe: !self.no_stripe,
            replicate_dims: !self.no_replicate_dims,
            morsel_rows: self.morsel,
            oversubscribe: self.oversubscribe,
            ..ExecOptions::default()
        }
    }

    /// The database directory, generated at `--sf` when missing.
    fn dir(&self) -> Result<PathBuf> {
        match (&self.data, self.sf) {
            (Some(d), _) => Ok(d.clone()),
            (None, sf) => {
                let sf = sf.unwrap_or(1.0);
                if !(sf > 0.0 && sf.is_finite()) {
                    bail!("--sf {sf}: the scale factor must be positive");
                }
                let dir = PathBuf::from(format!("data/ssb/sf{sf}"));
                // Reused only when its database file says it holds all SSB tables at
                // exactly this scale factor (anything else is regenerated, whole).
                let complete = pmolap_store::database::read_database(&dir)
                    .ok()
                    .flatten()
                    .is_some_and(|m| {
                        m.meta.get("sf").and_then(|v| v.as_f64()) == Some(sf)
                            && pmolap_ssb::TABLES.iter().all(|t| m.table(t).is_some())
                    });
                if !complete {
                    eprintln!(
                        "generating SSB SF {sf} into {} (once; reused later)",
                        dir.display()
                    );
                    crate::ssb_load::load(sf, "home", &dir, None, false)?;
                }
                Ok(dir)
            }
        }
    }
}

fn placement(tier: &str) -> Result<Placement> {
    Ok(if tier == "home" {
        Placement::home()
    } else {
        Placement::all(
            tier.parse::<TierSpec>()
                .with_context(|| format!("--tier {tier}"))?,
        )
    })
}

/// Opens `dir` on `tier`; `warm`: verify checksums and prefault every page (a cold open
/// does neither, so the query itself faults its data in from the device).
fn open(dir: &Path, tier: &str, warm: bool) -> Result<Database> {
    let opts = OpenOptions {
        verify_checksums: warm,
        region: RegionOptions {
            prefault: warm,
            ..RegionOptions::default()
        },
    };
    Database::open(dir, &placement(tier)?, &opts)
        .with_context(|| format!("opening the database {} on {tier}", dir.display()))
}

/// Applies `q`'s join-index choice override.
fn with_index(mut q: Query, a: &DataArgs) -> Query {
    if a.join_index != pmolap_engine::query::IndexChoice::Auto {
        for j in &mut q.joins {
            j.index = a.join_index;
        }
    }
    q
}

/// A prepared database: tables, layout and (when striped) the node-local fact copies.
struct Prepared {
    db: Database,
    layout: Layout,
    striped: StripedFact,
    exec: ExecOptions,
}

fn prepare(db: Database, topo: &Topology, exec: ExecOptions) -> Result<Prepared> {
    let fact = db.table("lineorder").or_else(|_| {
        db.tables()
            .max_by_key(|(_, t)| t.rows())
            .map(|(_, t)| t)
            .ok_or_else(|| anyhow::anyhow!("empty database"))
    })?;
    let layout = Layout::new(topo, &exec, fact.rows())?;
    let cols: Vec<&str> = fact.columns().iter().map(|c| c.name()).collect();
    let striped = StripedFact::new(fact, &cols, &layout, &RegionOptions::default())
        .context("placing fact partitions on the NUMA nodes")?;
    Ok(Prepared {
        db,
        layout,
        striped,
        exec,
    })
}

impl Prepared {
    fn run(&self, q: &Query) -> Result<QueryRun> {
        Ok(run_query(
            &self.db,
            q,
            &self.layout,
            &self.striped,
            &self.exec,
            &RegionOptions::default(),
        )?)
    }
}

/// Checks up front that a result can be written at `path` (its directory is created if
/// missing), so a long run never ends in an unwritable path.
pub(crate) fn check_output(path: Option<&PathBuf>) -> Result<()> {
    if let Some(p) = path {
        if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        pmolap_tier::durable::check_writable(p)?;
    }
    Ok(())
}

/// Per-query figures of a run.
#[derive(Debug, Serialize)]
pub struct QueryFigures {
    pub id: String,
    pub median_ms: f64,
    pub times_ms: Vec<f64>,
    pub rows: usize,
    /// Median of planning (predicates, join filters) and of the probe, ms.
    pub plan_ms: f64,
    pub probe_ms: f64,
    pub fact_bytes: u64,
    /// Packed fact bytes the query reads / median time.
    pub gbps: f64,
    pub last: QueryRun,
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}

/// What the queries run on: a prepared database (each query warmed up once, then timed),
/// or a cold disk (reopened cold before every timed run).
enum Source<'a> {
    Warm(&'a Prepared),
    Cold(&'a ColdTier, &'a ExecOptions),
}

/// Runs each query `reps` times (after one warm-up run on a warm source). After an
/// interrupt (Ctrl-C) it stops before the next run and returns the queries that have at
/// least one timed run.
fn run_queries(
    src: Source<'_>,
    queries: &[Query],
    reps: usize,
    pb: &ProgressBar,
) -> Result<Vec<QueryFigures>> {
    let mut out = Vec::new();
    for q in queries {
        if pmolap_tier::signal::interrupted() {
            break;
        }
        pb.set_message(format!("Q{}", q.label()));
        let mut runs = Vec::new();
        if let Source::Warm(p) = src {
            p.run(q)?;
        }
        for _ in 0..reps {
            if pmolap_tier::signal::interrupted() && !runs.is_empty() {
                break;
            }
            runs.push(match src {
                Source::Warm(p) => p.run(q)?,
                Source::Cold(c, exec) => c.cold_open(exec)?.run(q)?,
            });
            pb.inc(1);
        }
        let times: Vec<f64> = runs.iter().map(|r| r.total_ms).collect();
        let med = median(&times);
        let plan_ms = median(&runs.iter().map(|r| r.plan_ms).collect::<Vec<_>>());
        let probe_ms = median(&runs.iter().map(|r| r.probe_ms).collect::<Vec<_>>());
        let last = runs.pop().context("no repetitions (--reps 0)")?;
        out.push(QueryFigures {
            id: q.id.clone(),
            median_ms: med,
            times_ms: times,
            rows: last.rows.len(),
            plan_ms,
            probe_ms,
            fact_bytes: last.fact_bytes,
            gbps: last.fact_bytes as f64 / (med / 1e3) / 1e9,
            last,
        });
    }
    Ok(out)
}

fn bar(len: u64, quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len);
    pb.set_style(
        ProgressStyle::with_template("{msg:>6} {bar:30} {pos}/{len} runs {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    pb
}

/// The answers of a run, in the format of `ssb-reference/answers-*.json`.
fn answers(figs: &[QueryFigures]) -> BTreeMap<String, &Vec<Vec<OutValue>>> {
    figs.iter().map(|f| (f.id.clone(), &f.last.rows)).collect()
}

#[derive(Debug, Serialize)]
struct RunReport<'a> {
    /// True when the run was interrupted: only the queries listed finished.
    partial: bool,
    config: RunConfig,
    machine: Machine,
    layout: &'a Layout,
    queries: &'a [QueryFigures],
}

#[derive(Debug, Serialize)]
struct RunConfig {
    data: PathBuf,
    tier: String,
    reps: usize,
    threads: usize,
    pin: String,
    stripe: bool,
    replicate_dims: bool,
    morsel_rows: usize,
    join_index: String,
}

/// Options of `ssb run` and `ssb query`.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub data: DataArgs,
    /// Tier to put every structure on: dram, dram:node=N, file:DIR, home (the table files).
    #[arg(long, default_value = "dram")]
    pub tier: String,
    /// Timed repetitions per query (after one warm-up run).
    #[arg(long, default_value_t = 3)]
    pub reps: usize,
    /// Write the results (config, machine, per-query figures and plans) as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write the answers here, in the format of ssb-reference/answers-sf1.json.
    #[arg(long)]
    pub answers: Option<PathBuf>,
    /// Print every query's result rows.
    #[arg(long)]
    pub print: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// `pmolap ssb run` (`queries` = `all` or `1.1,2.3`) and `pmolap ssb query FILE`.
pub fn run(a: &RunArgs, queries: Vec<Query>) -> Result<()> {
    if a.reps == 0 {
        bail!("--reps must be at least 1");
    }
    check_output(a.json.as_ref()).context("--json")?;
    check_output(a.answers.as_ref()).context("--answers")?;
    let queries: Vec<Query> = queries
        .into_iter()
        .map(|q| with_index(q, &a.data))
        .collect();
    let topo = Topology::detect().context("detecting the machine topology")?;
    let dir = a.data.dir()?;
    let p = prepare(open(&dir, &a.tier, true)?, &topo, a.data.exec())?;
    for n in &p.layout.notes {
        eprintln!("note: {n}");
    }
    let pb = bar((queries.len() * a.reps) as u64, a.quiet);
    let figs = run_queries(Source::Warm(&p), &queries, a.reps, &pb)?;
    pb.finish_and_clear();
    let partial = pmolap_tier::signal::interrupted();
    if partial {
        eprintln!(
            "interrupted: {} of {} queries finished; writing those (marked partial)",
            figs.len(),
            queries.len()
        );
    }
    println!(
        "{} on {} — {} threads, pin {}, {}",
        dir.display(),
        a.tier,
        p.layout.threads,
        p.layout.pin,
        if p.layout.striped {
            "striped"
        } else {
            "one partition"
        }
    );
    println!(
        "{:>6} {:>10} {:>9} {:>9} {:>7} {:>8}  plan (step: selectivity)",
        "query", "median ms", "plan ms", "probe ms", "rows", "GB/s"
    );
    for f in &figs {
        let steps: Vec<String> = f
            .last
            .steps
            .iter()
            .map(|s| format!("{} {:.3}", s.what, s.selectivity))
            .collect();
        println!(
            "{:>6} {:>10.2} {:>9.2} {:>9.2} {:>7} {:>8.2}  {}",
            f.id,
            f.median_ms,
            f.plan_ms,
            f.probe_ms,
            f.rows,
            f.gbps,
            steps.join(" → ")
        );
        if a.print {
            for r in &f.last.rows {
                println!("        {}", serde_json::to_string(r)?);
            }
        }
    }
    if let Some(path) = &a.answers {
        write_json(&answers(&figs), path)?;
    }
    if let Some(path) = &a.json {
        let report = RunReport {
            partial,
            config: RunConfig {
                data: dir.clone(),
                tier: a.tier.clone(),
                reps: a.reps,
                threads: p.layout.threads,
                pin: p.layout.pin.to_string(),
                stripe: p.layout.striped,
                replicate_dims: p.layout.replicated,
                morsel_rows: a.data.morsel,
                join_index: format!("{:?}", a.data.join_index).to_lowercase(),
            },
            machine: Machine::from_topology(&topo),
            layout: &p.layout,
            queries: &figs,
        };
        write_json(&report, path)?;
        println!("results: {}", path.display());
    }
    Ok(())
}

/// The queries of a YAML/JSON file.
pub fn load_query_file(path: &Path) -> Result<Vec<Query>> {
    let text = pmolap_tier::input::read_bounded(path, pmolap_tier::input::MAX_INPUT_BYTES)?;
    Ok(parse_queries(&text, &path.display().to_string())?)
}

/// The SSB queries a `--queries` list names.
pub fn ssb_list(list: &str) -> Result<Vec<Query>> {
    select_ssb(list).context("--queries")
}

/// A tier a run can use: a name, the placement spec, and whether the page cache is
/// dropped before each query (a cold disk).
#[derive(Debug, Clone, Serialize)]
pub struct TierChoice {
    pub name: String,
    pub spec: String,
    pub cold: bool,
}

/// The tiers this machine has for the store: DRAM, each NUMA node's memory (more than one
/// node), tmpfs, the disk holding the data (warm page cache and cold), fsdax mounts.
pub fn machine_tiers(topo: &Topology, dir: &Path) -> (Vec<TierChoice>, Vec<String>) {
    let mut t = vec![TierChoice {
        name: "dram".into(),
        spec: "dram".into(),
        cold: false,
    }];
    let mut notes = Vec::new();
    let mem_nodes: Vec<u32> = topo
        .nodes
        .iter()
        .filter(|n| n.mem_total > 0)
        .map(|n| n.id)
        .collect();
    if mem_nodes.len() > 1 {
        for n in mem_nodes {
            t.push(TierChoice {
                name: format!("node {n}"),
                spec: format!("dram:node={n}"),
                cold: false,
            });
        }
    } else {
        notes.push("one NUMA node: `dram` is its memory".into());
    }
    let data_fs = topo
        .filesystems
        .iter()
        .filter(|m| dir_canon(dir).starts_with(&m.mount_point))
        .max_by_key(|m| m.mount_point.as_os_str().len());
    let on_tmpfs = data_fs.is_some_and(|m| m.fs_type == "tmpfs");
    if Path::new("/dev/shm").is_dir() && !on_tmpfs {
        t.push(TierChoice {
            name: "/dev/shm".into(),
            spec: "file:/dev/shm".into(),
            cold: false,
        });
    }
    if !on_tmpfs {
        let fs = data_fs.map_or("?".to_string(), |m| format!("{}:{}", m.fs_type, m.device));
        t.push(TierChoice {
            name: format!("disk {fs} warm"),
            spec: "home".into(),
            cold: false,
        });
        t.push(TierChoice {
            name: format!("disk {fs} cold"),
            spec: "home".into(),
            cold: true,
        });
    } else {
        notes.push(format!(
            "{} is on tmpfs: no disk tier (put --data on a disk to measure one)",
            dir.display()
        ));
    }
    for m in &topo.dax_mounts {
        t.push(TierChoice {
            name: format!("fsdax {}", m.mount_point.display()),
            spec: format!("file:{}", m.mount_point.display()),
            cold: false,
        });
    }
    for d in &topo.dax_devices {
        notes.push(format!(
            "devdax {} skipped: a device-DAX device holds one structure, a database has hundreds (use an fsdax mount)",
            d.dev_path.display()
        ));
    }
    (t, notes)
}

/// The machine's tiers that `--only` names (all when empty; cold ones only with
/// `with_cold`), with the notes printed.
fn chosen_tiers(
    topo: &Topology,
    dir: &Path,
    only: &[String],
    with_cold: bool,
) -> Result<(Vec<TierChoice>, Vec<String>)> {
    let (mut choices, notes) = machine_tiers(topo, dir);
    choices.retain(|c| with_cold || !c.cold);
    if !only.is_empty() {
        choices.retain(|c| only.iter().any(|o| tier_matches(c, o)));
        if choices.is_empty() {
            bail!("--only {}: no such tier on this machine", only.join(","));
        }
    }
    for n in &notes {
        eprintln!("note: {n}");
    }
    Ok((choices, notes))
}

/// `--only` matching: the spec, the whole name, or one word of the name.
fn tier_matches(c: &TierChoice, o: &str) -> bool {
    o == c.spec
        || o == c.name
        || c.name
            .split_whitespace()
            .any(|w| w == o || w.trim_start_matches("/dev/") == o)
}

fn dir_canon(dir: &Path) -> PathBuf {
    dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf())
}

/// A disk tier measured cold: before every run, the database is closed, its files' pages
/// are dropped from the page cache (`POSIX_FADV_DONTNEED`, allowed for any reader) and
/// it is reopened without reading (checksums unchecked), so the query faults its data in.
struct ColdTier {
    dir: PathBuf,
    topo: Topology,
}

impl ColdTier {
    fn cold_open(&self, exec: &ExecOptions) -> Result<Prepared> {
        let db = open(&self.dir, "home", false)?;
        let files = db.files();
        drop(db);
        for f in files {
            let file = File::open(&f).with_context(|| format!("opening {}", f.display()))?;
            fadvise(&file, &f, Advice::DontNeed)
                .with_context(|| format!("dropping {} from the page cache", f.display()))?;
        }
        prepare(open(&self.dir, "home", false)?, &self.topo, exec.clone())
    }
}

#[derive(Debug, Serialize)]
struct TiersReport<'a> {
    /// True when interrupted: only the tiers (and queries) listed finished.
    partial: bool,
    config: TiersConfig,
    machine: Machine,
    notes: &'a [String],
    tiers: Vec<TierResult>,
}

#[derive(Debug, Serialize)]
struct TiersConfig {
    data: PathBuf,
    reps: usize,
    threads: usize,
    pin: String,
}

#[derive(Debug, Serialize)]
struct TierResult {
    tier: TierChoice,
    queries: Vec<QueryFigures>,
}

/// Options of `ssb tiers`.
#[derive(Debug, Clone, Args)]
pub struct TiersArgs {
    #[command(flatten)]
    pub data: DataArgs,
    /// Queries: all, or a list such as 1.1,2.3.
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

/// `pmolap ssb tiers`: every query on every tier of this machine, and the slowdown of
/// each against DRAM (SIGMOD'21 Fig. 14).
pub fn tiers(a: &TiersArgs) -> Result<()> {
    if a.reps == 0 {
        bail!("--reps must be at least 1");
    }
    check_output(a.json.as_ref()).context("--json")?;
    let queries: Vec<Query> = ssb_list(&a.queries)?
        .into_iter()
        .map(|q| with_index(q, &a.data))
        .collect();
    let topo = Topology::detect().context("detecting the machine topology")?;
    let dir = a.data.dir()?;
    let (choices, notes) = chosen_tiers(&topo, &dir, &a.only, true)?;
    let mut results = Vec::new();
    for c in &choices {
        if pmolap_tier::signal::interrupted() {
            break;
        }
        let pb = bar((queries.len() * a.reps) as u64, a.quiet);
        pb.set_prefix(c.name.clone());
        let exec = a.data.exec();
        let figs = if c.cold {
            let cold = ColdTier {
                dir: dir.clone(),
                topo: topo.clone(),
            };
            run_queries(Source::Cold(&cold, &exec), &queries, a.reps, &pb)?
        } else {
            let p = prepare(open(&dir, &c.spec, true)?, &topo, exec)
                .with_context(|| format!("tier {}", c.name))?;
            run_queries(Source::Warm(&p), &queries, a.reps, &pb)?
        };
        pb.finish_and_clear();
        eprintln!("{}: done", c.name);
        results.push(TierResult {
            tier: c.clone(),
            queries: figs,
        });
    }
    let partial = pmolap_tier::signal::interrupted();
    let Some(base) = results.first() else {
        bail!("interrupted before the first tier finished a query");
    };
    print!("{:>6}", "query");
    for r in &results {
        print!(" | {:>28}", truncate(&r.tier.name, 28));
    }
    println!();
    for (qi, q) in queries.iter().enumerate() {
        let Some(b) = base.queries.get(qi).map(|f| f.median_ms) else {
            break; // interrupted: the rest did not run
        };
        print!("{:>6}", q.id);
        for r in &results {
            match r.queries.get(qi) {
                Some(f) => print!(" | {:>14.2} ms {:>8.2}x", f.median_ms, f.median_ms / b),
                None => print!(" | {:>28}", "not run"),
            }
        }
        println!();
    }
    print!("{:>6}", "geo");
    for r in &results {
        let g = geomean(
            r.queries
                .iter()
                .zip(&base.queries)
                .map(|(x, b)| x.median_ms / b.median_ms),
        );
        print!(" | {:>17} {:>8.2}x", "", g);
    }
    println!();
    println!(
        "(slowdown = median time on the tier / median time on {})",
        base.tier.name
    );
    if let Some(path) = &a.json {
        let report = TiersReport {
            partial,
            config: TiersConfig {
                data: dir.clone(),
                reps: a.reps,
                threads: a.data.threads,
                pin: a.data.pin.to_string(),
            },
            machine: Machine::from_topology(&topo),
            notes: &notes,
            tiers: results,
        };
        write_json(&report, path)?;
        println!("results: {}", path.display());
    }
    Ok(())
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n - 1).chain(['…']).collect()
    }
}

fn geomean(v: impl Iterator<Item = f64>) -> f64 {
    let (mut s, mut n) = (0.0, 0usize);
    for x in v {
        s += x.ln();
        n += 1;
    }
    (s / n.max(1) as f64).exp()
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

#[derive(Debug, Serialize)]
struct LadderStep {
    tier: String,
    step: String,
    threads: usize,
    pin: String,
    striped: bool,
    replicated: bool,
    notes: Vec<String>,
    median_ms: f64,
    speedup_vs_first: f64,
}

/// `pmolap ssb breakdown`: the SIGMOD'21 Table 1 ladder for one query on every tier —
/// 1 thread, all threads, + pinning, + striping and replication.
pub fn breakdown(a: &BreakdownArgs) -> Result<()> {
    if a.reps == 0 {
        bail!("--reps must be at least 1");
    }
    check_output(a.json.as_ref()).context("--json")?;
    let q = with_index(
        ssb_list(&a.query)?
            .into_iter()
            .next()
            .context("--query names no query")?,
        &a.data,
    );
    let topo = Topology::detect().context("detecting the machine topology")?;
    let dir = a.data.dir()?;
    let (choices, _) = chosen_tiers(&topo, &dir, &a.only, false)?;
    let all = if a.data.threads == 0 {
        topo.cpus.len().max(1)
    } else {
        a.data.threads
    };
    let base = ExecOptions {
        morsel_rows: a.data.morsel,
        oversubscribe: a.data.oversubscribe,
        ..ExecOptions::default()
    };
    let ladder: Vec<(&str, ExecOptions)> = vec![
        (
            "1 thread",
            ExecOptions {
                threads: 1,
                pin: Pinning::None,
                stripe: false,
                replicate_dims: false,
                ..base.clone()
            },
        ),
        (
            "all threads",
            ExecOptions {
                threads: all,
                pin: Pinning::None,
                stripe: false,
                replicate_dims: false,
                ..base.clone()
            },
        ),
        (
            "+ pinning (cores)",
            ExecOptions {
                threads: all,
                pin: Pinning::Cores,
                stripe: false,
                replicate_dims: false,
                ..base.clone()
            },
        ),
        (
            "+ stripe + replicate dims",
            ExecOptions {
                threads: all,
                pin: Pinning::Cores,
                stripe: true,
                replicate_dims: true,
                ..base.clone()
            },
        ),
    ];
    let mut out = Vec::new();
    println!("Q{} — the Table 1 ladder ({} reps, median)", q.id, a.reps);
    for c in &choices {
        // One open per tier; each rung only re-lays out threads and partitions.
        let mut db = Some(open(&dir, &c.spec, true)?);
        let mut first = f64::NAN;
        for (name, opts) in &ladder {
            if pmolap_tier::signal::interrupted() {
                break;
            }
            let p = prepare(db.take().context("database")?, &topo, opts.clone())?;
            let figs = run_queries(
                Source::Warm(&p),
                std::slice::from_ref(&q),
                a.reps,
                &ProgressBar::hidden(),
            )?;
            let Some(ms) = figs.first().map(|f| f.median_ms) else {
                break; // interrupted before this rung finished
            };
            if first.is_nan() {
                first = ms;
            }
            let step = LadderStep {
                tier: c.name.clone(),
                step: name.to_string(),
                threads: p.layout.threads,
                pin: p.layout.pin.to_string(),
                striped: p.layout.striped,
                replicated: p.layout.replicated,
                notes: p.layout.notes.clone(),
                median_ms: ms,
                speedup_vs_first: first / ms,
            };
            println!(
                "{:>30} | {:<26} {:>9.2} ms {:>6.2}x{}",
                truncate(&c.name, 30),
                name,
                ms,
                step.speedup_vs_first,
                if step.notes.is_empty() {
                    String::new()
                } else {
                    format!("  ({})", step.notes.join("; "))
                }
            );
            out.push(step);
            db = Some(p.db);
        }
    }
    if let Some(path) = &a.json {
        #[derive(Serialize)]
        struct Report<'a> {
            partial: bool,
            query: &'a str,
            reps: usize,
            machine: Machine,
            steps: &'a [LadderStep],
        }
        write_json(
            &Report {
                partial: pmolap_tier::signal::interrupted(),
                query: &q.id,
                reps: a.reps,
                machine: Machine::from_topology(&topo),
                steps: &out,
            },
            path,
        )?;
        println!("results: {}", path.display());
    }
    Ok(())
}
