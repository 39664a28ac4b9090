//! `pmolap`: characterise memory tiers and run OLAP work on them.
#![forbid(unsafe_code)]

mod membench_cmd;
mod plot;
mod topology_cmd;

use std::path::PathBuf;

use anyhow::Result;
use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "pmolap",
    version,
    about = "OLAP on heterogeneous memory: DRAM, far NUMA, CXL, PMEM, SSD"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Show the NUMA nodes, memory tiers, DAX devices and CPU features of this machine.
    Topology {
        /// Print JSON instead of tables.
        #[arg(long)]
        json: bool,
    },
    /// Measure bandwidth and latency of a memory tier (SIGMOD'21 §3–§5, PerMA-Bench).
    Membench(Box<membench_cmd::MembenchArgs>),
    /// Draw PNG and SVG plots from a results JSON file.
    Plot {
        /// A results file written by `pmolap membench`.
        results: PathBuf,
        /// Output directory (created if missing).
        #[arg(short, long, default_value = "plots")]
        out: PathBuf,
    },
}

fn main() {
    let cli = Cli::parse();
    let r: Result<()> = match cli.command {
        Command::Topology { json } => topology_cmd::run(json),
        Command::Membench(args) => membench_cmd::run(&args),
        Command::Plot { results, out } => plot::run(&results, &out).map(|files| {
            for f in files {
                println!("{}", f.display());
            }
        }),
    };
    if let Err(e) = r {
        // One line: the chain of contexts, outermost first.
        let msg: Vec<String> = e.chain().map(|c| c.to_string()).collect();
        eprintln!("error: {}", msg.join(": "));
        std::process::exit(1);
    }
}
