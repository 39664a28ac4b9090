//! `pmolap place workload | advise | whatif | profiles`: parses, prints and writes files; the model,
//! the solvers and the workload recording live in `pmolap_place` and `pmolap_bench::ssb`.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};

use pmolap_bench::machine::Machine;
use pmolap_bench::ssb::{self, DataOptions};
use pmolap_place::{
    scenarios, solve_budget, solve_target, Granularity, Model, ModelOptions, PlacementFile,
    Profile, Source, TwoTierProblem, Workload, BUILTIN_PROFILES,
};
use pmolap_tier::cpu::CacheSizes;
use pmolap_tier::Topology;

use crate::ssb_run::DataArgs;

#[derive(Debug, Subcommand)]
pub enum PlaceCommand {
    /// Run SSB queries in DRAM with the store's access counters on and write the workload
    /// (per structure: bytes, type, width, counts per access type; T_DRAM).
    Workload {
        #[command(flatten)]
        data: DataArgs,
        /// Queries: all, or a list such as 1.1,2.3.
        #[arg(long, default_value = "all")]
        queries: String,
        /// Timed repetitions per query for T_DRAM.
        #[arg(long, default_value_t = 3)]
        reps: usize,
        /// Where to write the workload JSON (its directory must exist; an existing
        /// file is refused unless --overwrite).
        #[arg(short, long)]
        out: PathBuf,
        /// Replace an existing --out file.
        #[arg(long)]
        overwrite: bool,
    },
    /// Solve a placement: most bytes on the slow tier within a slowdown budget, or least
    /// slowdown with a target share of bytes there; print it and write a placement file.
    Advise(Box<AdviseArgs>),
    /// Predict the slowdown of the usual placements on a tier this machine may not have
    /// (a published profile): model output, labelled as such.
    Whatif(Box<ModelArgs>),
    /// Predicted vs measured: run the paper's placements with the slow tier on this
    /// machine's disk (cold, or behind a page cache bounded by a memory cgroup) and
    /// compare each model variant's prediction with the measured relative time.
    Validate(Box<crate::place_validate::ValidateArgs>),
    /// Measure a tier's profile against DRAM (placement paper §4.2) over the store's own
    /// primitives: per structure type and access type the extra ns per access; page
    /// costs for a page-granular tier (a disk directory).
    Profile(Box<crate::place_profile::ProfileArgs>),
    /// List the built-in profiles: name, where the numbers come from, description.
    Profiles,
}

/// The workload and the model.
#[derive(Debug, Clone, Args)]
pub struct ModelArgs {
    /// A workload file (`pmolap place workload`).
    #[arg(long)]
    pub workload: PathBuf,
    /// The slow tier's profile: optane-100, optane-200 (published, the paper's Table 2),
    /// cxl, far-numa (derived from published latency/bandwidth figures; `place profiles`)
    /// or a profile file.
    #[arg(long, default_value = "optane-200")]
    pub profile: String,
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

#[derive(Debug, Clone, Args)]
pub struct AdviseArgs {
    #[command(flatten)]
    pub model: ModelArgs,
    /// Slowdown allowed, as a share of T_DRAM (`10%` or `0.1`).
    #[arg(long, conflicts_with = "target")]
    pub budget: Option<String>,
    /// Share of the bytes to put on the slow tier (`75%` or `0.75`).
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
    pmolap_tier::durable::check_writable(path).context("--out")?;
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

pub(crate) fn profile(name: &str) -> Result<Profile> {
    Ok(match Profile::builtin(name) {
        Some(p) => p,
        None if Path::new(name).symlink_metadata().is_ok() => {
            Profile::load(Path::new(name)).with_context(|| format!("--profile {name}"))?
        }
        None => Profile::load(Path::new(name)).with_context(|| {
            format!(
                "--profile {name}: not a built-in profile ({}) nor a readable profile file",
                BUILTIN_PROFILES.join(", ")
            )
        })?,
    })
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

fn model(a: &ModelArgs) -> Result<(Model, u64)> {
    let llc = llc_bytes(a.llc)?;
    let mut o = ModelOptions::new(llc);
    o.cache_miss_ratio = !a.no_cmr;
    o.dense_classes = !a.no_dense;
    Ok((Model::new(o)?, llc))
}

pub fn run(cmd: &PlaceCommand) -> Result<()> {
    match cmd {
        PlaceCommand::Workload {
            data,
            queries,
            reps,
            out,
            overwrite,
        } => {
            check_out_file(out, *overwrite)?;
            let qs = crate::ssb_run::ssb_list(queries)?;
            let opts: DataOptions = data.options();
            let w = ssb::ssb_workload(&opts, &qs, *reps, &indicatif::ProgressBar::hidden())?;
            w.save(out)?;
            println!(
                "{} structures, {:.1} MiB, T_DRAM {:.1} ms ({}) -> {}",
                w.structures.len(),
                w.total_bytes() as f64 / (1 << 20) as f64,
                w.t_dram_ns / 1e6,
                w.description,
                out.display()
            );
            Ok(())
        }
        PlaceCommand::Advise(a) => advise(a),
        PlaceCommand::Whatif(a) => whatif(a),
        PlaceCommand::Validate(a) => crate::place_validate::run(a),
        PlaceCommand::Profile(a) => crate::place_profile::run(a),
        PlaceCommand::Profiles => {
            profiles();
            Ok(())
        }
    }
}

fn advise(a: &AdviseArgs) -> Result<()> {
    check_out_file(&a.out, a.overwrite)?;
    let w = Workload::load(&a.model.workload)?;
    let p = profile(&a.model.profile)?;
    let (m, llc) = model(&a.model)?;
    let problem = TwoTierProblem::new(&w, &m, &p, a.model.granularity)?;
    let (s, mode) = match (&a.budget, &a.target) {
        (Some(b), None) => (
            solve_budget(&problem, fraction(b, "--budget")?)?,
            format!("budget {b}"),
        ),
        (None, Some(t)) => (
            solve_target(&problem, fraction(t, "--target")?)?,
            format!("target {t}"),
        ),
        _ => bail!("give --budget (e.g. 10%) or --target (e.g. 75%)"),
    };
    let mut pf = PlacementFile::from_solution(&w, std::slice::from_ref(&p), &s);
    pf.tiers[0].location = Some("dram".into());
    if let Some(t) = pf.tiers.get_mut(1) {
        t.location = Some(a.location.clone());
    }
    pf.save(&a.out)?;
    println!(
        "{mode} on {} ({}), S_LLC {} KiB, {:?} granularity",
        p.tier,
        p.source,
        llc >> 10,
        a.model.granularity
    );
    for (si, st) in w.structures.iter().enumerate() {
        if s.assignment.tier[si] != 0 {
            println!(
                "  {:<34} {:>10.1} KiB -> {}",
                st.id(),
                st.bytes as f64 / 1024.0,
                p.tier
            );
        }
    }
    println!(
        "bytes: {:.1} MiB in dram, {:.1} MiB on {} ({:.1}%); predicted relative time {:.3} (model output)",
        s.bytes_per_tier[0] as f64 / (1 << 20) as f64,
        s.bytes_moved as f64 / (1 << 20) as f64,
        p.tier,
        100.0 * s.bytes_moved as f64 / w.total_bytes().max(1) as f64,
        s.relative
    );
    println!("placement: {}", a.out.display());
    Ok(())
}

fn whatif(a: &ModelArgs) -> Result<()> {
    let w = Workload::load(&a.workload)?;
    let p = profile(&a.profile)?;
    let (m, llc) = model(a)?;
    println!(
        "model output, not a measurement: predicted relative time of {} on {}, S_LLC {} KiB{}{}",
        a.workload.display(),
        p.tier,
        llc >> 10,
        if a.no_cmr { ", no CMR" } else { "" },
        if a.no_dense { ", no dense classes" } else { "" }
    );
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
        "{:<20} {:>12} {:>10}",
        "placement", "bytes slow", "relative"
    );
    for s in scenarios(&w, &m, &p, a.granularity)? {
        println!(
            "{:<20} {:>11.1}% {:>10.3}",
            s.name,
            100.0 * s.slow_fraction,
            s.relative
        );
    }
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
