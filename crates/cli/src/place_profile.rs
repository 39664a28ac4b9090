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
    /// Where to write the profile JSON.
    #[arg(short, long)]
    pub out: PathBuf,
    /// Replace an existing --out file (without it an existing file is refused).
    #[arg(long)]
    pub overwrite: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

fn default_name(spec: &TierSpec) -> String {
    let s = spec.to_string();
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect::<String>()
        .trim_matches('-')
        .to_string()
}

pub fn run(a: &ProfileArgs) -> Result<()> {
    crate::place_cmd::check_out_file(&a.out, a.overwrite)?;
    if a.tier == (TierSpec::Dram { node: None }) {
        anyhow::bail!("--tier dram: DRAM is the reference tier; profile another tier against it");
    }
    let mut o = ProfileOptions::new(
        a.tier.clone(),
        a.name.clone().unwrap_or_else(|| default_name(&a.tier)),
        a.quick,
    );
    if let Some(r) = a.rows {
        anyhow::ensure!(r >= 1 << 16, "--rows {r}: at least 65536 rows");
        o.rows = r;
    }
    if let Some(r) = a.reps {
        anyhow::ensure!(r >= 1, "--reps must be at least 1");
        o.reps = r;
    }
    let topo = Topology::detect()?;
    let pb = crate::ssb_run::bar(0, a.quiet);
    let p = measure(&o, &topo, &pb)?;
    pb.finish_and_clear();
    p.save(&a.out)?;
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
    println!("-> {}", a.out.display());
    Ok(())
}
