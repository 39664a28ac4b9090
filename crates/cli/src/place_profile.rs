//! `pmolap place profile --tier SPEC`: parses, shows progress, prints the table and writes
//! the profile; the measurement is `pmolap_bench::tierprofile`.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use pmolap_bench::tierprofile::{measure, rows, ProfileOptions};
use pmolap_tier::{TierSpec, Topology};

#[derive(Debug, Args)]
pub struct ProfileArgs {
    /// The tier to profile against DRAM: `file:DIR` (a directory: its filesystem's page
    /// cache, cold, on a disk; DRAM-backed on tmpfs), `dram:node=N`, `devdax:PATH`.
    #[arg(long)]
    pub tier: TierSpec,
    /// The profile's tier name (what placement files call the tier).
    #[arg(long)]
    pub name: Option<String>,
    /// Rows of the measured table (default 16 Mi; 1 Mi with --quick).
    #[arg(long)]
    pub rows: Option<usize>,
    /// Repetitions of each measurement, median kept (default 3; 1 with --quick).
    #[arg(long)]
    pub reps: Option<usize>,
    /// A short run (seconds): fewer rows, lookups and repetitions.
    #[arg(long)]
    pub quick: bool,
    /// Where to write the profile JSON (default: results/place/profiles/NAME.json, where
    /// `place advise`, `whatif` and `validate` find the newest one without --profile).
    #[arg(short, long)]
    pub out: Option<PathBuf>,
    /// Replace an existing --out file (without it an existing file is refused).
    #[arg(long)]
    pub overwrite: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

pub fn run(a: &ProfileArgs) -> Result<()> {
    let name = a
        .name
        .clone()
        .unwrap_or_else(|| ProfileOptions::default_name(&a.tier));
    let out = match &a.out {
        Some(o) => o.clone(),
        None => {
            let file: String = name
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            crate::place_cmd::profiles_dir().join(format!("{file}.json"))
        }
    };
    if a.out.is_none() {
        // pmolap's own directory of profiles measured here: created, and a profile of the
        // same name replaced (it is this machine's newer measurement of the same tier).
        let dir = crate::place_cmd::profiles_dir();
        anyhow::Context::with_context(std::fs::create_dir_all(&dir), || {
            format!("creating {}", dir.display())
        })?;
        crate::place_cmd::check_out_file(&out, true)?;
    } else {
        crate::place_cmd::check_out_file(&out, a.overwrite)?;
    }
    let mut o = ProfileOptions::new(a.tier.clone(), name, a.quick);
    if let Some(r) = a.rows {
        o.rows = r;
    }
    if let Some(r) = a.reps {
        o.reps = r;
    }
    // Refused before the topology is read (`measure` checks again).
    o.check()?;
    let topo = Topology::detect()?;
    let pb = crate::progress::bar(0, a.quiet);
    let p = measure(&o, &topo, &pb)?;
    pb.finish_and_clear();
    crate::output::create_parent(&out)?;
    p.save(&out)?;
    println!("profile `{}`: {} ({})", p.tier, p.description, p.source);
    println!(
        "{:<44} {:>10} {:>10} {:>10}",
        "cost", "dram ns", "tier ns", "extra ns"
    );
    for r in rows(&p) {
        println!(
            "{:<44} {:>10.1} {:>10.1} {:>10.1}",
            r.key, r.dram_ns, r.tier_ns, r.extra_ns
        );
    }
    if let Some(pc) = &p.pages {
        println!(
            "pages of {} bytes: random {:.0} ns, sequential {:.0} ns extra per page",
            pc.page_bytes, pc.random_page_ns, pc.sequential_page_ns
        );
    }
    println!("-> {}", out.display());
    Ok(())
}
