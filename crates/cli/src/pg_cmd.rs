//! `pmolap pg tpch`: parses, shows progress and prints; the work is `pmolap_pg::run`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};

use pmolap_pg::{Event, TpchOptions, TpchReport};

#[derive(Debug, Subcommand)]
pub enum PgCommand {
    /// TPC-H on a private PostgreSQL cluster, one tablespace per tier: load (parallel COPY
    /// vs single-stream psql), then every query cold and warm per tier (DaMoN'21 §4).
    Tpch(Box<TpchArgs>),
}

#[derive(Debug, Args)]
pub struct TpchArgs {
    /// TPC-H scale factor, or `largest`: the largest that the tiers, the run directory
    /// and RAM hold here (checked before any work; a scale factor that does not fit is
    /// refused naming the largest that does).
    #[arg(long, default_value = "1", value_parser = parse_sf)]
    sf: Sf,
    /// A directory on the storage to measure (repeat for each tier; e.g. /dev/shm, /var/tmp).
    #[arg(long = "tier", required = true)]
    tiers: Vec<PathBuf>,
    /// Cold+warm repetitions of each query (the median is reported).
    #[arg(long, default_value_t = 1)]
    reps: usize,
    /// Queries: all, or a list such as 1,6,14.
    #[arg(long, default_value = "all")]
    queries: String,
    /// Parallel COPY streams (0: one per CPU, at least 2).
    #[arg(long, default_value_t = 0)]
    streams: usize,
    /// Where the run directory (data directory, socket, generated data) is made
    /// (default: the system temporary directory).
    #[arg(long)]
    work_dir: Option<PathBuf>,
    /// Skip the single-stream `psql \copy` baseline load.
    #[arg(long)]
    no_baseline: bool,
    /// Write the `pg-tpch` result document here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// No progress spinner.
    #[arg(long)]
    quiet: bool,
}

/// `--sf`: a number, or `largest` (picked from the free space).
#[derive(Debug, Clone, Copy)]
enum Sf {
    Value(f64),
    Largest,
}

fn parse_sf(s: &str) -> std::result::Result<Sf, String> {
    if s == "largest" {
        return Ok(Sf::Largest);
    }
    s.parse::<f64>()
        .map(Sf::Value)
        .map_err(|_| format!("`{s}`: a scale factor (1, 0.1, 10) or `largest`"))
}

pub fn run(cmd: &PgCommand) -> Result<()> {
    match cmd {
        PgCommand::Tpch(a) => tpch(a),
    }
}

fn tpch(a: &TpchArgs) -> Result<()> {
    let queries = pmolap_pg::queries::parse_list(&a.queries).map_err(anyhow::Error::msg)?;
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut opts = TpchOptions {
        sf: match a.sf {
            Sf::Value(x) => x,
            Sf::Largest => 1.0,
        },
        tiers: a.tiers.clone(),
        reps: a.reps,
        queries,
        streams: if a.streams == 0 {
            cpus.max(2)
        } else {
            a.streams
        },
        work_dir: a.work_dir.clone().unwrap_or_else(std::env::temp_dir),
        psql_baseline: !a.no_baseline,
    };
    crate::output::check_optional(a.json.as_deref()).context("--json")?;
    if matches!(a.sf, Sf::Largest) {
        let (sf, limit) = pmolap_pg::sizing::largest_sf(&opts).context("--sf largest")?;
        println!("--sf largest: SF {sf} (the most that {limit} holds)");
        opts.sf = sf;
    }
    let pb = crate::progress::spinner(a.quiet);
    let on_event = |e: Event<'_>| match e {
        Event::Step(s) => pb.set_message(s.to_string()),
        Event::Done(s) => pb.println(s),
        Event::Query { tier, run, rows } => {
            let time = |v: &[f64], median: f64| {
                pmolap_results::stats::Spread::of(v)
                    .map_or(format!("{median:.3} s"), |s| s.display("s"))
            };
            pb.println(format!(
                "{tier:<28} Q{:<3} cold {:>28}  warm {:>28}  {rows:>6} rows  {}",
                run.query,
                time(&run.cold_seconds, run.cold_median()),
                time(&run.warm_seconds, run.warm_median()),
                run.top_node
            ))
        }
        _ => {}
    };
    let report = pmolap_pg::run(&opts, &on_event).context("pmolap pg tpch")?;
    pb.finish_and_clear();
    print_report(&report);
    if let Some(j) = &a.json {
        crate::output::publish_results(&report, j)?;
    }
    Ok(())
}

fn print_report(r: &TpchReport) {
    let names: Vec<&str> = r.tiers.iter().map(|t| t.name.as_str()).collect();
    println!(
        "TPC-H SF {} on {} ({}), {} rep(s); seconds are medians",
        r.config.sf, r.server.version, r.server.run_as, r.config.reps
    );
    for t in &r.tiers {
        println!(
            "  {}: device {} {} [{}], model {}, cold: {}",
            t.name,
            t.device.device,
            t.device.fs_type,
            t.device.mount_options,
            t.device.model.as_deref().unwrap_or("-"),
            t.cold_note
        );
    }
    let mut head = format!("{:<5}", "query");
    for kind in ["cold", "warm"] {
        for n in &names {
            head.push_str(&format!(" {:>22}", format!("{kind} {n}")));
        }
    }
    println!("{head}");
    for row in r.rows() {
        let mut line = format!("Q{:<4}", row.query);
        for (v, s) in row.cold.iter().zip(&row.cold_speedup) {
            line.push_str(&format!(" {:>13.3} s {:>5.2}x", v, s));
        }
        for (v, s) in row.warm.iter().zip(&row.warm_speedup) {
            line.push_str(&format!(" {:>13.3} s {:>5.2}x", v, s));
        }
        println!("{line}");
    }
    let total = |s: Option<pmolap_results::stats::Spread>, median: f64| {
        s.map_or(format!("{median:.2} s"), |s| s.display("s"))
    };
    let ratio = |r: Option<pmolap_results::stats::Ratio>| r.map_or("-".into(), |r| r.display());
    for s in r.summary() {
        println!(
            "{}: cold total {}, ratio of totals over the slowest {} (mean of per-query speedups {:.2}x); warm total {}, {} (mean {:.2}x)",
            s.tier,
            total(s.cold_total_spread, s.cold_total),
            ratio(s.cold_total_speedup),
            s.cold_avg_speedup,
            total(s.warm_total_spread, s.warm_total),
            ratio(s.warm_total_speedup),
            s.warm_avg_speedup
        );
    }
    let l = &r.load;
    println!(
        "load: {} rows, {:.2} GB generated in {:.1} s; parallel COPY ({} streams) {:.1} s = {:.0} rows/s",
        l.rows,
        l.tbl_bytes as f64 / 1e9,
        l.generate_seconds,
        r.config.streams,
        l.parallel_copy_seconds,
        l.parallel_rows_per_s()
    );
    if let (Some(s), Some(rps)) = (l.psql_copy_seconds, l.psql_rows_per_s()) {
        println!(
            "      single-stream psql \\copy {s:.1} s = {rps:.0} rows/s; parallel/psql {:.2}x",
            l.parallel_rows_per_s() / rps
        );
    }
    if r.header.partial {
        println!("(interrupted: only the queries that finished are shown)");
    }
    println!("total {:.0} s", r.seconds_total);
}
