//! `pmolap`: characterise memory tiers and run OLAP work on them.
#![forbid(unsafe_code)]

mod demo_cmd;
mod elf_cmd;
mod hash_cmd;
mod iobench_cmd;
mod load_cmd;
mod membench_cmd;
mod output;
mod pg_cmd;
mod place_cmd;
mod place_profile;
mod place_validate;
mod progress;
mod report_cmd;
mod sql_cmd;
mod ssb_cli;
mod ssb_cmd;
mod ssb_load;
mod ssb_run;
mod store_cmd;
mod sweep_args;
mod topology_cmd;

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

/// The subcommands; each module's flags are its own (`*Args`, `*Command`).
#[derive(Debug, Subcommand)]
enum Command {
    /// Everything, quick: topology, memory sweeps, storage workloads, SSB on every tier
    /// with the Table 1 ladder, Elf, placement advice, and one HTML report (~3 min).
    Demo(demo_cmd::DemoArgs),
    /// Show the NUMA nodes, memory tiers, DAX devices and CPU features of this machine.
    Topology(topology_cmd::TopologyArgs),
    /// Measure bandwidth and latency of a memory tier (SIGMOD'21 §3–§5, PerMA-Bench).
    Membench(Box<membench_cmd::MembenchArgs>),
    /// Star Schema Benchmark: data, the 13 queries on any tier, the Table 1 ladder, Fig. 14.
    Ssb {
        #[command(subcommand)]
        command: ssb_cli::SsbCommand,
    },
    /// Load your own star schema: CREATE TABLE statements (--schema) and a delimited
    /// text file per table (--from) into a database (--out), published whole.
    Load(load_cmd::LoadArgs),
    /// Run the star-join queries of a file on a database (--data): SQL (`.sql`, `;`
    /// separated) or YAML/JSON; median ms, rows and GB/s per query (`ssb query` is the
    /// same).
    Query(ssb_cli::QueryArgs),
    /// The queries (--queries FILE.sql, or SSB ids) on every tier of this machine and
    /// the slowdown of each against DRAM (`ssb tiers` is the same).
    Tiers(Box<ssb_run::TiersArgs>),
    /// Answer star-join SQL (`SELECT … FROM fact, dims WHERE …`) on a database named by
    /// --data or --sf (SSB or one `pmolap load` wrote): SQL as an argument, -f FILE or -
    /// (stdin); each statement's answer printed as a table, CSV or JSON (docs/engine.md).
    Sql(Box<sql_cmd::SqlArgs>),
    /// Drop-in storage workloads over I/O paths (DaMoN'21 §3): table scan, buffer manager, logging.
    Iobench(Box<iobench_cmd::IobenchArgs>),
    /// The placement advisor (PVLDB'22): record a workload, advise a placement, what-if.
    Place {
        #[command(subcommand)]
        command: place_cmd::PlaceCommand,
    },
    /// Column-store tables.
    Store {
        #[command(subcommand)]
        command: store_cmd::StoreCommand,
    },
    /// The Dash persistent hash table: build a table file, check it, benchmark it.
    Hash {
        #[command(subcommand)]
        command: hash_cmd::HashCommand,
    },
    /// The Elf index: build, query through a caching variant, the selective-caching benchmark.
    Elf {
        #[command(subcommand)]
        command: elf_cmd::ElfCommand,
    },
    /// A real PostgreSQL per storage tier (DaMoN'21 §4): TPC-H cold and warm per tier.
    Pg {
        #[command(subcommand)]
        command: pg_cmd::PgCommand,
    },
    /// Draw PNG and SVG plots from a results JSON file.
    Plot(report_cmd::PlotArgs),
    /// One self-contained HTML page (inline SVG figures) from result files and
    /// directories of them: machine and tiers, then a section per result kind.
    Report(report_cmd::ReportArgs),
}

/// The dispatch table: each subcommand to its module's entry point.
fn dispatch(command: &Command) -> Result<()> {
    match command {
        Command::Demo(a) => demo_cmd::run(a),
        Command::Topology(a) => topology_cmd::run(a),
        Command::Membench(a) => membench_cmd::run(a),
        Command::Ssb { command } => ssb_cli::run(command),
        Command::Load(a) => load_cmd::run(a),
        Command::Query(a) => ssb_cli::query(a),
        Command::Tiers(a) => ssb_run::tiers(a),
        Command::Sql(a) => sql_cmd::run(a),
        Command::Iobench(a) => iobench_cmd::run(a),
        Command::Place { command } => place_cmd::run(command),
        Command::Store { command } => store_cmd::run(command),
        Command::Hash { command } => hash_cmd::run(command),
        Command::Elf { command } => elf_cmd::run(command),
        Command::Pg { command } => pg_cmd::run(command),
        Command::Plot(a) => report_cmd::plot(a),
        Command::Report(a) => report_cmd::report(a),
    }
}

fn main() {
    let cli = Cli::parse();
    // Buffers freed by one query are reused by the next instead of faulted in again.
    pmolap_tier::alloc::keep_freed_memory();
    if let Err(e) = pmolap_os::signal::install() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
    if let Err(e) = dispatch(&cli.command) {
        if pmolap_os::signal::interrupted() {
            // What finished was written (marked partial) on the way out.
            eprintln!("pmolap: interrupted");
            std::process::exit(pmolap_os::signal::EXIT_INTERRUPTED);
        }
        eprintln!("error: {}", one_line(&e));
        std::process::exit(1);
    }
    if pmolap_os::signal::interrupted() {
        std::process::exit(pmolap_os::signal::EXIT_INTERRUPTED);
    }
}

/// The chain of contexts, outermost first, on one line: a cause whose text the previous
/// message already ends with is not repeated, newlines become spaces, and the whole is
/// cut to a readable length (an error never echoes a big input back).
fn one_line(e: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for c in e.chain() {
        let s = c.to_string().replace(['\n', '\r'], " ");
        if parts
            .last()
            .is_some_and(|p| p.ends_with(&s) || p.contains(&s))
        {
            continue;
        }
        if let Some(last) = parts.last_mut() {
            if s.starts_with(last.as_str()) {
                // "query x" then "query x: no column y": keep the longer one.
                *last = s;
                continue;
            }
        }
        parts.push(s);
    }
    let mut msg = parts.join(": ");
    const MAX: usize = 400;
    if msg.len() > MAX {
        let mut cut = MAX;
        while !msg.is_char_boundary(cut) {
            cut -= 1;
        }
        msg.truncate(cut);
        msg.push_str(" …");
    }
    msg
}

#[cfg(test)]
mod tests {
    use super::one_line;
    use anyhow::Context;

    #[test]
    fn error_chains_print_each_part_once() {
        let e = Err::<(), _>(anyhow::anyhow!("q.yaml: literal 1.5: not supported"))
            .context("q.yaml")
            .unwrap_err();
        assert_eq!(one_line(&e), "q.yaml: literal 1.5: not supported");
        let io = std::io::Error::from_raw_os_error(21);
        let e = Err::<(), _>(anyhow::Error::new(io))
            .context(format!("x: {}", std::io::Error::from_raw_os_error(21)))
            .unwrap_err();
        assert_eq!(one_line(&e).matches("os error 21").count(), 1);
        let e = anyhow::anyhow!("{}", "y".repeat(10_000));
        assert!(one_line(&e).len() < 500);
    }
}
