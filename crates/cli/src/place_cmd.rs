//! `pmolap place workload | advise | whatif | profiles`: parses, prints and writes files; the
//! shared solver flags ([`SolverArgs`]), the default profile and the accuracy records'
//! directory ([`PLACE_DIR`]); the model, the solvers and the workload recording live in
//! `pmolap_place` and `pmolap_bench::ssb`.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};

use indicatif::ProgressBar;
use pmolap_bench::machine::Machine;
use pmolap_bench::ssb::{self, DataOptions};
use pmolap_engine::Query;
use pmolap_place::{
    scenarios, AccuracyRecord, AdviceOptions, Goal, Granularity, PlacementFile, Profile, SlowShare,
    Source, Workload, BUILTIN_PROFILES,
};
use pmolap_tier::cpu::CacheSizes;
use pmolap_tier::Topology;

use crate::output::create_parent;
use crate::ssb_run::DataArgs;

#[derive(Debug, Subcommand)]
pub enum PlaceCommand {
    /// Run queries (the SSB ones, or a SQL/YAML file of the engine's family) in DRAM with
    /// the store's access counters on and write the workload (per structure: bytes, type,
    /// width, counts per access type; T_DRAM; the worker threads).
    Workload(Box<WorkloadArgs>),
    /// Solve a placement: most bytes on the slow tier within a slowdown budget, or least
    /// slowdown with a target share of the accessed bytes there; print it, with the model's measured
    /// error on this tier, and write a placement file.
    Advise(Box<AdviseArgs>),
    /// Predict the slowdown of the usual placements (the fixed ones and the advice of
    /// every budget and target `validate` measures): model output, labelled as such.
    Whatif(Box<ModelArgs>),
    /// Predicted vs measured: run the placements `advise` would write (and the paper's
    /// fixed ones) with the slow tier on this machine's disk (cold, or behind a page cache
    /// bounded by a memory cgroup) and compare each model variant's prediction with the
    /// measured relative time.
    Validate(Box<crate::place_validate::ValidateArgs>),
    /// The tables of `place validate` documents (settings × alternated rounds) as
    /// markdown: the advised model's error with its spread across rounds, per setting and
    /// per query, the promise kept per placement, and the advice against the baselines.
    Tables(Box<crate::place_validate::TablesArgs>),
    /// Measure a tier's profile against DRAM (placement paper §4.2) over the store's own
    /// primitives: per structure type and access type the extra ns per access; page
    /// costs for a page-granular tier (a disk directory).
    Profile(Box<crate::place_profile::ProfileArgs>),
    /// List the built-in profiles: name, where the numbers come from, description.
    Profiles,
}

/// Where `place` keeps what later commands find by default: measured profiles
/// (`profiles/`, written by `place profile` without `--out`) and the accuracy records of
/// `place validate` (`accuracy/`). Relative to the working directory, like `results/`.
pub(crate) const PLACE_DIR: &str = "results/place";

pub(crate) fn profiles_dir() -> PathBuf {
    Path::new(PLACE_DIR).join("profiles")
}

pub(crate) fn accuracy_dir() -> PathBuf {
    Path::new(PLACE_DIR).join("accuracy")
}

/// The database, the queries and their timed repetitions (`place workload` and
/// `place validate`).
#[derive(Debug, Clone, Args)]
pub struct QueriesArgs {
    #[command(flatten)]
    pub data: DataArgs,
    /// Queries: all (the 13 SSB queries), a list such as 1.1,2.3, or a file of the
    /// engine's family: FILE.sql (a SQL script) or FILE.yaml / FILE.json (queries as data).
    #[arg(long, default_value = "all")]
    pub queries: String,
    /// Timed repetitions per query (for T_DRAM; per placement with `validate`).
    #[arg(long, default_value_t = 3)]
    pub reps: usize,
}

impl QueriesArgs {
    /// The queries `--queries` names, a SQL script translated against the database, and
    /// where they come from (`SSB` or the file).
    pub fn resolve(&self, data: &DataOptions, pb: &ProgressBar) -> Result<(Vec<Query>, String)> {
        crate::ssb_run::resolve_queries(&self.queries, data, pb)
    }
}

/// Flags of `pmolap place workload`.
#[derive(Debug, Clone, Args)]
pub struct WorkloadArgs {
    #[command(flatten)]
    pub q: QueriesArgs,
    /// Where to write the workload JSON (its directory must exist; an existing file is
    /// refused unless --overwrite).
    #[arg(short, long)]
    pub out: PathBuf,
    /// Replace an existing --out file.
    #[arg(long)]
    pub overwrite: bool,
    /// Then time what recording pages costs: ROUNDS alternated rounds of every query's
    /// counted run with page recording on and off (a benchmark: run it on a quiet
    /// machine).
    #[arg(long, value_name = "ROUNDS")]
    pub overhead: Option<usize>,
}

/// The profile and the model's options: one set shared by `advise`, `whatif` and
/// `validate` (so a budget means the same placement in each).
#[derive(Debug, Clone, Args)]
pub struct SolverArgs {
    /// The slow tier's profile: a profile file, or optane-100, optane-200 (published, the
    /// paper's Table 2), cxl, far-numa (derived from published figures; `place
    /// profiles`). Default: the newest profile measured here by `place profile` in
    /// results/place/profiles/.
    #[arg(long)]
    pub profile: Option<String>,
    /// structure, column or table: what moves as one unit.
    #[arg(long, default_value = "structure")]
    pub granularity: Granularity,
    /// S_LLC in bytes (default: L3 + every core's L2 of this machine).
    #[arg(long)]
    pub llc: Option<u64>,
    /// Ablation: cache-miss ratio 1 for every structure (no Eq. 6).
    #[arg(long)]
    pub no_cmr: bool,
    /// Ablation: dense lookups counted as random lookups.
    #[arg(long)]
    pub no_dense: bool,
}

impl SolverArgs {
    /// The advice's options for `w` (I/O threads: the workload's worker threads).
    pub fn options(&self, w: &Workload) -> Result<AdviceOptions> {
        let mut o = AdviceOptions::new(w, llc_bytes(self.llc)?);
        o.granularity = self.granularity;
        o.cache_miss_ratio = !self.no_cmr;
        o.dense_classes = !self.no_dense;
        Ok(o)
    }
}

/// The workload and the model.
#[derive(Debug, Clone, Args)]
pub struct ModelArgs {
    /// A workload file (`pmolap place workload`).
    #[arg(long)]
    pub workload: PathBuf,
    #[command(flatten)]
    pub solver: SolverArgs,
    /// Also predict behind a page cache of this many bytes kept between queries (e.g.
    /// 64MiB): the prediction `place validate --setting cache:…` compares with when its
    /// run's page cache held this much (it prints the figure).
    #[arg(long, value_parser = pmolap_results::size::parse_size)]
    pub cache: Option<u64>,
}

/// What a cliff of the miss curve adds to a prediction behind a cache whose values at
/// ±10 % of the cache span `lo..hi`: nothing off one.
pub(crate) fn cliff_note((lo, hi): (f64, f64)) -> String {
    if !pmolap_place::CacheBand::is_cliff(lo, hi) {
        return String::new();
    }
    format!(" (on a cliff: {lo:.3}-{hi:.3} at ±10 % of the cache)")
}

#[derive(Debug, Clone, Args)]
pub struct AdviseArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    /// Slowdown allowed, as a share of T_DRAM (`10%` or `0.1`).
    #[arg(long, conflicts_with = "target")]
    pub budget: Option<String>,
    /// Share of the accessed bytes (the structures the workload touches) to put on the
    /// slow tier (`75%` or `0.75`); never-accessed structures go there too.
    #[arg(long)]
    pub target: Option<String>,
    /// Where the store puts the slow tier's structures (`file:/mnt/pmem0`, `home`, ...).
    #[arg(long, default_value = "home")]
    pub location: String,
    /// Where to write the placement file (its directory must exist; an existing file
    /// is refused unless --overwrite).
    #[arg(short, long)]
    pub out: PathBuf,
    /// Replace an existing --out file.
    #[arg(long)]
    pub overwrite: bool,
    /// List every structure put on the slow tier (by default only their number; the
    /// placement file lists them all).
    #[arg(short, long)]
    pub verbose: bool,
}

/// Checks an output file of `place …` before any work: its directory must exist (no
/// directory is created for a file the user names), and a file already there is refused
/// naming it unless `overwrite` (this run did not write it), then that it can be written.
pub(crate) fn check_out_file(path: &Path, overwrite: bool) -> Result<()> {
    if path.as_os_str().is_empty() {
        bail!("--out: an empty path");
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        bail!(
            "--out {}: the directory {} does not exist (pmolap creates no directory for an output file)",
            path.display(),
            dir.display()
        );
    }
    if path.symlink_metadata().is_ok() && !(overwrite && path.is_file()) {
        bail!(
            "--out {}: already exists; pmolap replaces only files it wrote in this run (give --overwrite to replace it)",
            path.display()
        );
    }
    pmolap_os::durable::check_writable(path).context("--out")?;
    Ok(())
}

fn fraction(s: &str, what: &str) -> Result<f64> {
    let v = match s.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map(|x| x / 100.0),
        None => s.trim().parse::<f64>(),
    }
    .with_context(|| format!("{what} `{s}`: not a number or a percentage"))?;
    if !(0.0..=1.0e6).contains(&v) {
        bail!("{what} `{s}`: out of range");
    }
    Ok(v)
}

/// A profile and what its numbers are: `measured here (FILE)` or `model output
/// (published profile)`.
pub(crate) struct ChosenProfile {
    pub profile: Profile,
    pub label: String,
}

fn label(p: &Profile, file: Option<&Path>) -> String {
    match (&p.source, file) {
        (Source::Published { .. }, _) => "model output (published profile)".into(),
        (Source::MeasuredHere { .. }, Some(f)) => format!("measured profile {}", f.display()),
        (Source::MeasuredHere { .. }, None) => "measured profile".into(),
    }
}

/// `--profile NAME|FILE`, or by default the newest profile measured here in
/// [`profiles_dir`]; neither: a one-line error saying what to do.
pub(crate) fn profile(name: Option<&str>) -> Result<ChosenProfile> {
    if let Some(name) = name {
        if let Some(p) = Profile::builtin(name) {
            let label = label(&p, None);
            return Ok(ChosenProfile { profile: p, label });
        }
        let p = Profile::load(Path::new(name)).with_context(|| {
            format!(
                "--profile {name}: not a built-in profile ({}) nor a readable profile file",
                BUILTIN_PROFILES.join(", ")
            )
        })?;
        let label = label(&p, Some(Path::new(name)));
        return Ok(ChosenProfile { profile: p, label });
    }
    let dir = profiles_dir();
    let mut newest: Option<(std::time::SystemTime, PathBuf, Profile)> = None;
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries {
            let e = e.with_context(|| format!("reading {}", dir.display()))?;
            let path = e.path();
            if path.extension().and_then(|x| x.to_str()) != Some("json") {
                continue;
            }
            let p = Profile::load(&path)?;
            if !matches!(p.source, Source::MeasuredHere { .. }) {
                continue;
            }
            let t = e
                .metadata()
                .and_then(|m| m.modified())
                .with_context(|| format!("{}: modification time", path.display()))?;
            if newest.as_ref().is_none_or(|(n, _, _)| t >= *n) {
                newest = Some((t, path, p));
            }
        }
    }
    match newest {
        Some((_, path, p)) => Ok(ChosenProfile {
            label: label(&p, Some(&path)),
            profile: p,
        }),
        None => bail!(
            "no profile of this machine's slow tier in {}: run `pmolap place profile --tier file:DIR` (it writes one there) or name one with --profile ({} or a file)",
            dir.display(),
            BUILTIN_PROFILES.join(", ")
        ),
    }
}

/// `S_LLC`: `given`, or L3 + every core's L2 of this machine.
pub(crate) fn llc_bytes(given: Option<u64>) -> Result<u64> {
    Ok(match given {
        Some(b) => b,
        None => {
            let topo = Topology::detect()?;
            let m = Machine::from_topology(&topo);
            CacheSizes::detect_at(Path::new("/"))
                .llc_bytes(m.physical_cores, m.sockets)
                .context("this machine reports no L2/L3 sizes in sysfs; give --llc BYTES")?
        }
    })
}

/// This machine's host name, as result documents record it.
pub(crate) fn hostname() -> Result<String> {
    Ok(Machine::from_topology(&Topology::detect()?).hostname)
}

pub fn run(cmd: &PlaceCommand) -> Result<()> {
    match cmd {
        PlaceCommand::Workload(a) => workload(a),
        PlaceCommand::Advise(a) => advise(a),
        PlaceCommand::Whatif(a) => whatif(a),
        PlaceCommand::Validate(a) => crate::place_validate::run(a),
        PlaceCommand::Tables(a) => crate::place_validate::tables(a),
        PlaceCommand::Profile(a) => crate::place_profile::run(a),
        PlaceCommand::Profiles => {
            profiles();
            Ok(())
        }
    }
}

fn workload(a: &WorkloadArgs) -> Result<()> {
    check_out_file(&a.out, a.overwrite)?;
    let opts: DataOptions = a.q.data.options();
    let pb = ProgressBar::hidden();
    let (qs, from) = a.q.resolve(&opts, &pb)?;
    let mut w = ssb::ssb_workload(&opts, &qs, a.q.reps, &pb)?;
    w.description = format!("{} from {from}", w.description);
    create_parent(&a.out)?;
    w.save(&a.out)?;
    println!(
        "{} structures, {:.1} MiB, T_DRAM {:.1} ms ({}) -> {}",
        w.structures.len(),
        w.total_bytes() as f64 / (1 << 20) as f64,
        w.t_dram_ns / 1e6,
        w.description,
        a.out.display()
    );
    if let Some(rounds) = a.overhead {
        if rounds == 0 {
            bail!("--overhead: give at least 1 round");
        }
        let times = ssb::recording_overhead(&opts, &qs, rounds, &pb)?;
        print_overhead(&times);
    }
    Ok(())
}

/// Per query and for the whole workload: the counted run's time with page recording on
/// over off, with the verdict of the one noise rule.
fn print_overhead(times: &[ssb::RecordingTimes]) {
    use pmolap_results::stats::{Ratio, Spread};
    println!("counted run, page recording on / off (median ms, min-max over the rounds):");
    let line = |id: &str, on: &[f64], off: &[f64]| {
        let (a, b) = (Spread::of(on), Spread::of(off));
        let r = match (&a, &b) {
            (Some(a), Some(b)) => Ratio::of(a, b).map_or_else(|| "-".into(), |r| r.display()),
            _ => "-".into(),
        };
        println!(
            "  {:<8} {:>32} {:>32}  {r}",
            id,
            a.map_or_else(|| "-".into(), |s| s.display("ms")),
            b.map_or_else(|| "-".into(), |s| s.display("ms"))
        );
    };
    for t in times {
        line(&t.id, &t.on_ms, &t.off_ms);
    }
    let total = |f: &dyn Fn(&ssb::RecordingTimes) -> &Vec<f64>| -> Vec<f64> {
        let n = times.iter().map(|t| f(t).len()).min().unwrap_or(0);
        (0..n)
            .map(|i| times.iter().map(|t| f(t)[i]).sum())
            .collect()
    };
    line("workload", &total(&|t| &t.on_ms), &total(&|t| &t.off_ms));
}

/// The model line every command prints: which model, its I/O threads, S_LLC, T_DRAM.
fn model_line(w: &Workload, p: &Profile, o: &AdviceOptions) -> String {
    format!(
        "{} model{}, {} I/O thread(s), S_LLC {} KiB, {:?} granularity{}{}, T_DRAM {:.1} ms (the workload's)",
        o.model_name(p),
        if p.pages.is_some() {
            " (page-granular tier)"
        } else {
            " (per access)"
        },
        o.io_threads,
        o.llc_bytes >> 10,
        o.granularity,
        if o.cache_miss_ratio { "" } else { ", no CMR" },
        if o.dense_classes { "" } else { ", no dense classes" },
        w.t_dram_ns / 1e6
    )
}

/// What a relative time promises in wall time: the slow tier's extra time per workload
/// pass, `(relative − 1) · T_DRAM` with `T_DRAM` the workload's recorded CPU time over
/// its worker threads. The ratio moves with the CPU's speed on the day; the extra time is
/// what the model prices (docs/placement.md, "Promises and the CPU's speed").
fn extra_time(w: &Workload, relative: f64) -> String {
    let wall_ms = w.t_dram_ns / f64::from(w.threads.unwrap_or(1).max(1)) / 1e6;
    format!(
        "{:.1} ms of extra wall time a workload pass over {wall_ms:.1} ms all in DRAM",
        (relative - 1.0) * wall_ms
    )
}

/// A page cost in whole ns, `-` where it was not measured.
pub(crate) fn ns(x: Option<f64>) -> String {
    x.map_or("-".to_string(), |v| format!("{v:.0}"))
}

/// The profile an advice prices with: `p` with its page costs calibrated by the
/// workload's samples of the database's files ([`pmolap_place::calibration`]) where the
/// slow structures stay in those files (`home`), and a line saying which costs apply
/// (`None` where the profile has no page costs or the workload no samples).
pub(crate) fn calibrated_for(p: Profile, w: &Workload, home: bool) -> (Profile, Option<String>) {
    if !pmolap_place::calibration::applies(&p, w) {
        return (p, None);
    }
    if !home {
        return (
            p,
            Some("page costs: the profile's (the slow structures leave the database's files the workload sampled)".into()),
        );
    }
    let c = pmolap_place::calibration::for_workload(&p, w);
    let f = ns;
    let (was, now) = (
        pmolap_place::calibration::of_costs(p.pages.as_ref().expect("applies: page costs")),
        pmolap_place::calibration::of_costs(c.pages.as_ref().expect("calibrated")),
    );
    let line = format!(
        "page costs: the profile's, calibrated with {} samples of the database's files taken when the workload was recorded (ns: one stream {} a page, profile {}; isolated fault {} a page read, profile {}; fault on a small file {}, profile {})",
        w.page_samples.len(),
        f(now.one_stream_ns),
        f(was.one_stream_ns),
        f(now.fault_page_ns),
        f(was.fault_page_ns),
        f(now.fault_latency_ns),
        f(was.fault_latency_ns),
    );
    (c, Some(line))
}

fn advise(a: &AdviseArgs) -> Result<()> {
    check_out_file(&a.out, a.overwrite)?;
    let w = Workload::load(&a.model.workload)?;
    let ChosenProfile { profile: p, label } = profile(a.model.solver.profile.as_deref())?;
    let (p, costs_line) = calibrated_for(p, &w, a.location == "home");
    let mut o = a.model.solver.options(&w)?;
    // The setting the advice is for: its baselines are compared behind this cache.
    o.cache_bytes = a.model.cache;
    let goal = match (&a.budget, &a.target) {
        (Some(b), None) => Goal::Budget(fraction(b, "--budget")?),
        (None, Some(t)) => Goal::Target(fraction(t, "--target")?),
        _ => bail!("give --budget (e.g. 10%) or --target (e.g. 75%)"),
    };
    let s = pmolap_place::advise(&w, &p, &o, goal)?;
    // The error measured in this advice's own setting where validate ran it, named as
    // `place validate` names its setting in the record.
    let setting = a
        .model
        .cache
        .map_or(pmolap_results::place::Setting::Cold, |bytes| {
            pmolap_results::place::Setting::Cache { bytes }
        })
        .to_string();
    let accuracy = AccuracyRecord::latest(&accuracy_dir(), &o.key(&w, &p), &hostname()?, &setting)?;
    // Behind a bounded cache: the band, and the promise (the OS alone gets the DRAM
    // bytes as page cache too).
    let band = match a.model.cache {
        Some(c) => {
            let c = s.cache_behind(c);
            Some((c, o.cache_band(&w, &p, &s.assignment, c)?))
        }
        None => None,
    };
    let mut pf = PlacementFile::from_solution(&w, std::slice::from_ref(&p), &s);
    if let (Some(pr), Some((c, b))) = (pf.predicted.as_mut(), &band) {
        pr.behind_cache = Some(pmolap_place::placement::BehindCache::new(*c, b));
    }
    pf.tiers[0].location = Some("dram".into());
    if let Some(t) = pf.tiers.get_mut(1) {
        t.location = Some(a.location.clone());
    }
    pf.accuracy = Some(accuracy.clone());
    create_parent(&a.out)?;
    pf.save(&a.out)?;
    println!("{goal} on {} ({}): {label}", p.tier, p.source);
    println!("{}", model_line(&w, &p, &o));
    if let Some(l) = &costs_line {
        println!("{l}");
    }
    let slow: Vec<usize> = (0..w.structures.len())
        .filter(|&si| s.assignment.tier[si] != 0)
        .collect();
    if a.verbose {
        for &si in &slow {
            let st = &w.structures[si];
            println!(
                "  {:<34} {:>10.1} KiB -> {}",
                st.id(),
                st.bytes as f64 / 1024.0,
                p.tier
            );
        }
    }
    println!(
        "structures: {} of {} on {}{}",
        slow.len(),
        w.structures.len(),
        p.tier,
        if a.verbose || slow.is_empty() {
            ""
        } else {
            " (listed with --verbose and in the placement file)"
        }
    );
    println!(
        "bytes: {:.1} MiB in dram, {:.1} MiB on {}: {}; predicted relative time {:.3}{} (model output; {})",
        s.bytes_per_tier[0] as f64 / (1 << 20) as f64,
        s.bytes_moved as f64 / (1 << 20) as f64,
        p.tier,
        SlowShare::of(&w, &s.assignment).describe(),
        s.relative,
        // Behind a cache the advice's promise is the next lines'; this one is cold.
        if a.model.cache.is_some() {
            " cold (pages dropped before each query)"
        } else {
            ""
        },
        extra_time(&w, s.relative)
    );
    if let Some((c, b)) = band {
        println!(
            "behind a page cache of {c} bytes kept between queries: predicted relative time {:.3} (model output; {}; with 10 % less cache {:.3}, 10 % more {:.3})",
            b.at,
            extra_time(&w, b.at),
            b.less,
            b.more
        );
        let (lo, hi) = b.range();
        if b.on_cliff() {
            println!(
                "  on a cliff of the page cache's miss curve: the cache the kernel really gives decides, and the measured time can land anywhere from {lo:.3} to {hi:.3} (docs/placement.md, \"A second look\")"
            );
        }
        println!(
            "promise behind this cache: at most {:.3} ({}): the highest of the three, as the cache the kernel really gives is not known to 10 %",
            hi.max(b.at),
            extra_time(&w, hi.max(b.at))
        );
    }
    match &s.baseline {
        Some(b) => println!(
            "advice: the `{b}` baseline{}: the model predicts it faster than the solver's optimum at the same DRAM bytes",
            s.page_cache_dram_bytes.map_or_else(String::new, |d| format!(
                " (everything on {}, {:.1} MiB of DRAM left to the page cache)",
                p.tier,
                d as f64 / (1 << 20) as f64
            ))
        ),
        None => println!(
            "advice: the solver's optimum (no baseline at the same DRAM bytes is predicted faster)"
        ),
    }
    println!("accuracy: {accuracy}");
    if let pmolap_place::Accuracy::Validated(e) = &accuracy {
        if e.setting != setting {
            println!(
                "  (validated {}, not {setting}: run `place validate --setting {setting}` for this setting's own figures)",
                e.setting
            );
        }
    }
    println!("placement: {}", a.out.display());
    Ok(())
}

fn whatif(a: &ModelArgs) -> Result<()> {
    let w = Workload::load(&a.workload)?;
    let ChosenProfile { profile: p, label } = profile(a.solver.profile.as_deref())?;
    // The placements `validate` measures: the slow structures stay in the database's
    // files.
    let (p, costs_line) = calibrated_for(p, &w, true);
    // The placements `advise --cache` writes and `validate --setting cache:` measures.
    let mut o = a.solver.options(&w)?;
    o.cache_bytes = a.cache;
    println!(
        "model output, not a measurement: predicted relative time of {} on {} ({label})",
        a.workload.display(),
        p.tier,
    );
    println!("{}", model_line(&w, &p, &o));
    if let Some(l) = &costs_line {
        println!("{l}");
    }
    match &p.source {
        Source::Published { citation } => {
            println!("profile {}: published figures, {}", p.tier, p.description);
            println!("  source: {citation}");
        }
        Source::MeasuredHere { machine } => {
            println!("profile {}: measured on {machine}", p.tier)
        }
    }
    println!(
        "{:<20} {:>14} {:>10} {:>10}{}",
        "placement",
        "slow accessed",
        "slow all",
        // Behind a cache the relative time cold beside the one behind it.
        if a.cache.is_some() {
            "cold"
        } else {
            "relative"
        },
        a.cache
            .map_or_else(String::new, |c| format!(" {:>16}", format!("cache {c} B")))
    );
    for s in scenarios(&w, &p, &o)? {
        let cached = match a.cache {
            Some(c) => {
                // The OS alone gets the DRAM bytes as page cache too.
                let c = c + s.page_cache_dram_bytes.unwrap_or(0);
                let b = o.cache_band(&w, &p, &s.assignment, c)?;
                format!(" {:>16.3}{}", b.at, cliff_note(b.range()))
            }
            None => String::new(),
        };
        println!(
            "{:<20} {:>13.1}% {:>9.1}% {:>10.3}{cached}{}",
            s.name,
            100.0 * s.share.accessed_fraction,
            100.0 * s.share.fraction,
            s.relative,
            s.baseline
                .as_ref()
                .map_or_else(String::new, |b| format!("  (the `{b}` baseline)"))
        );
    }
    println!("(slow: bytes on the slow tier as a share of the bytes the workload accesses, and of all bytes)");
    Ok(())
}

fn profiles() {
    println!("{:<12} {:<10} description", "profile", "source");
    for name in BUILTIN_PROFILES {
        let p = Profile::builtin(name).expect("every name in BUILTIN_PROFILES is built in");
        let (kind, detail) = match &p.source {
            Source::Published { citation } => ("published", citation.as_str()),
            Source::MeasuredHere { machine } => ("measured", machine.as_str()),
        };
        println!("{:<12} {:<10} {}", p.tier, kind, p.description);
        println!("{:<12} {:<10}   source: {detail}", "", "");
    }
    println!("(costs per entry with their derivations: docs/placement.md; a profile file works wherever a name does)");
}
