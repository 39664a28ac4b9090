//! `pmolap pg tpch`: one cluster, one tablespace and database per tier, the same data
//! loaded into each, then every query cold and warm on each tier.

use std::path::{Path, PathBuf};
use std::time::Instant;

use md5::{Digest as _, Md5};

use crate::data;
use crate::error::{Error, Result};
use crate::load;
use crate::queries;
use crate::results::{
    Answer, LoadSummary, QueryRun, ServerInfo, Setting, TierRun, TpchConfig, TpchReport, HEAD_ROWS,
};
use crate::server::{self, Cluster, ClusterOptions};
use crate::settings::{self, MachineFacts};
use crate::tiers::{self, ColdMethod};

/// What to run.
#[derive(Debug, Clone)]
pub struct TpchOptions {
    pub sf: f64,
    pub tiers: Vec<PathBuf>,
    pub reps: usize,
    pub queries: Vec<u32>,
    pub streams: usize,
    /// Where the run directory is made (default: the system temporary directory).
    pub work_dir: PathBuf,
    /// Also measure the single-stream `psql \copy` baseline.
    pub psql_baseline: bool,
}

/// Progress, for the CLI to show.
#[derive(Debug)]
#[non_exhaustive]
pub enum Event<'a> {
    /// A step starts (`generating SF 1`, `loading /dev/shm`, ...).
    Step(&'a str),
    /// A step finished, with a one-line result.
    Done(&'a str),
    /// One query finished on one tier (all repetitions).
    Query {
        tier: &'a str,
        run: &'a QueryRun,
        rows: u64,
    },
}

/// Checks the options and the tier paths; returns each tier's device facts. Nothing is
/// created.
/// `opts` with its tier paths and work directory absolute (as from the current directory).
fn absolute_paths(opts: &TpchOptions) -> Result<TpchOptions> {
    let abs = |p: &std::path::Path| {
        std::path::absolute(p).map_err(|e| Error::Tier {
            path: p.to_path_buf(),
            why: format!("cannot be made absolute: {e}"),
        })
    };
    let mut o = opts.clone();
    o.tiers = opts.tiers.iter().map(|t| abs(t)).collect::<Result<_>>()?;
    o.work_dir = abs(&opts.work_dir)?;
    Ok(o)
}

pub fn preflight(opts: &TpchOptions) -> Result<Vec<tiers::DeviceInfo>> {
    if !(opts.sf > 0.0 && opts.sf.is_finite() && opts.sf <= 1000.0) {
        return Err(Error::Invalid(format!(
            "--sf {} must be a number > 0 and <= 1000",
            opts.sf
        )));
    }
    if opts.tiers.is_empty() {
        return Err(Error::Invalid("give at least one --tier PATH".into()));
    }
    if opts.reps == 0 || opts.reps > 100 {
        return Err(Error::Invalid("--reps must be between 1 and 100".into()));
    }
    if opts.queries.is_empty() {
        return Err(Error::Invalid("no query to run".into()));
    }
    if opts.streams == 0 || opts.streams > 64 {
        return Err(Error::Invalid("--streams must be between 1 and 64".into()));
    }
    let mut seen = Vec::new();
    for t in &opts.tiers {
        let c = std::fs::canonicalize(t).unwrap_or_else(|_| t.clone());
        if seen.contains(&c) {
            return Err(Error::Tier {
                path: t.clone(),
                why: "given twice".into(),
            });
        }
        seen.push(c);
    }
    // Every filesystem written to (paths on one add up) and RAM (tmpfs tiers), with the
    // largest scale factor that fits named when this one does not.
    crate::sizing::check_fits(opts.sf, &crate::sizing::spaces(opts)?)?;
    let tier_need = (opts.sf * tiers::TIER_BYTES_PER_SF) as u64 + tiers::FIXED_BYTES;
    let user = server::run_as()?;
    let mut out = Vec::new();
    for t in &opts.tiers {
        out.push(tiers::check(t, tier_need)?);
        reachable(t, user.as_ref())?;
    }
    reachable(&opts.work_dir, user.as_ref())?;
    let work_need =
        (opts.sf * tiers::WORK_BYTES_PER_SF) as u64 + tiers::FIXED_BYTES + tiers::WAL_BYTES;
    tiers::check(&opts.work_dir, work_need).map_err(|e| match e {
        Error::Tier { path, why } => Error::Tier {
            path,
            why: format!("(the --work-dir) {why}"),
        },
        e => e,
    })?;
    Ok(out)
}

/// As root the server runs as another user: it must be able to reach `path` (search
/// permission on every ancestor directory).
fn reachable(path: &Path, user: Option<&server::RunAs>) -> Result<()> {
    use std::os::unix::fs::MetadataExt as _;
    let Some(u) = user else { return Ok(()) };
    let abs = std::fs::canonicalize(path).map_err(|e| Error::io(path, e))?;
    for dir in abs.ancestors() {
        let Ok(m) = std::fs::metadata(dir) else {
            continue;
        };
        let bit = if m.uid() == u.uid {
            0o100
        } else if m.gid() == u.gid {
            0o010
        } else {
            0o001
        };
        if m.mode() & bit == 0 {
            return Err(Error::Tier {
                path: path.to_path_buf(),
                why: format!(
                    "the server runs as user {} (pmolap runs as root), which cannot enter {} (mode {:o})",
                    u.name,
                    dir.display(),
                    m.mode() & 0o777
                ),
            });
        }
    }
    Ok(())
}

fn tier_name(d: &tiers::DeviceInfo) -> String {
    format!("{} ({})", d.path.display(), d.fs_type)
}

/// Runs the benchmark (module docs). The cluster is stopped and removed before this
/// returns, whatever happens. An interrupt during the query runs returns what finished,
/// marked partial.
pub fn run(opts: &TpchOptions, on_event: &dyn Fn(Event<'_>)) -> Result<TpchReport> {
    // The server runs in a directory of its own and tablespace locations must be
    // absolute: relative tier and work paths are taken from here.
    let opts = &absolute_paths(opts)?;
    let devices = preflight(opts)?;
    let bins = server::find_binaries()?;
    let t_start = Instant::now();
    let topo = pmolap_tier::Topology::detect()?;
    let machine = pmolap_results::Machine::from_topology(&topo);
    let settings = settings::pgtune(MachineFacts::detect());
    let mut cluster = Cluster::create(
        bins.clone(),
        &ClusterOptions {
            work_parent: opts.work_dir.clone(),
            tier_paths: opts.tiers.clone(),
            settings: settings.clone(),
        },
    )?;
    let config = cluster.config("postgres");
    let result = cancel_on_interrupt(config, || run_in(opts, &mut cluster, devices, on_event))
        .map_err(|e| with_server_reason(e, &cluster));
    let destroyed = cluster.destroy();
    let (tier_runs, answers, load, partial) = result?;
    destroyed?;
    let run_as = server::run_as()?
        .map(|u| u.name)
        .unwrap_or_else(|| format!("uid {}", server::euid()));
    Ok(TpchReport {
        header: pmolap_results::Header::new(pmolap_results::kind::PG_TPCH, machine, partial),
        config: TpchConfig {
            sf: opts.sf,
            tier_paths: opts.tiers.clone(),
            reps: opts.reps,
            queries: opts.queries.clone(),
            streams: opts.streams,
            work_dir: opts.work_dir.clone(),
        },
        server: ServerInfo {
            version: bins.version,
            run_as,
            settings: settings
                .into_iter()
                .map(|(name, value)| Setting { name, value })
                .collect(),
            work_device: tiers::describe(&opts.work_dir),
        },
        load,
        tiers: tier_runs,
        answers,
        seconds_total: t_start.elapsed().as_secs_f64(),
    })
}

/// A broken connection's error with the server log's reason appended (the log goes
/// with the cluster's directory, so this is the user's only view of it).
fn with_server_reason(e: Error, c: &Cluster) -> Error {
    match e {
        Error::Pg { context, detail } => match c.failure_reason(2) {
            Some(why) => Error::Pg {
                context,
                detail: format!("{detail}; server log: {why}"),
            },
            None => Error::Pg { context, detail },
        },
        e => e,
    }
}

type Outcome = (Vec<TierRun>, Vec<Answer>, LoadSummary, bool);

fn run_in(
    opts: &TpchOptions,
    c: &mut Cluster,
    devices: Vec<tiers::DeviceInfo>,
    on_event: &dyn Fn(Event<'_>),
) -> Result<Outcome> {
    c.start()?;
    let tbl_dir = c.work.join("tbl");
    on_event(Event::Step(&format!("generating TPC-H SF {}", opts.sf)));
    let t0 = Instant::now();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let files = data::generate(opts.sf, &tbl_dir, opts.streams, threads)?;
    let generate_seconds = t0.elapsed().as_secs_f64();
    let rows: u64 = files.iter().map(|f| f.rows).sum();
    let tbl_bytes: u64 = files.iter().map(|f| f.bytes).sum();
    on_event(Event::Done(&format!(
        "generated {rows} rows ({:.2} GB) in {generate_seconds:.1} s",
        tbl_bytes as f64 / 1e9
    )));
    // Tablespaces and databases, one per tier.
    for (i, ts) in c.tablespaces.clone().iter().enumerate() {
        load::create_database(c, &format!("ts{i}"), ts, &format!("tpch{i}"))?;
    }
    // The baseline: single-stream psql \copy into the first tier, same files, no indexes.
    let psql_copy_seconds = if opts.psql_baseline {
        on_event(Event::Step(
            "baseline: single-stream psql \\copy into the first tier",
        ));
        load::exec(c, "postgres", "CREATE DATABASE baseline TABLESPACE ts0")?;
        load::exec(c, "baseline", load::DDL)?;
        let s = load::psql_copy(c, "baseline", &files)?;
        load::check_counts(c, "baseline", &files)?;
        load::exec(c, "postgres", "DROP DATABASE baseline")?;
        on_event(Event::Done(&format!(
            "psql \\copy: {:.1} s, {:.0} rows/s",
            s,
            rows as f64 / s
        )));
        Some(s)
    } else {
        None
    };
    let mut tier_runs = Vec::new();
    for (i, dev) in devices.into_iter().enumerate() {
        pmolap_os::signal::check()?;
        let db = format!("tpch{i}");
        let name = tier_name(&dev);
        on_event(Event::Step(&format!(
            "loading {name}: {} COPY streams",
            opts.streams
        )));
        load::exec(c, &db, load::DDL)?;
        let copy_seconds = load::parallel_copy(c, &db, &files, opts.streams)?;
        load::check_counts(c, &db, &files)?;
        on_event(Event::Step(&format!(
            "indexes and VACUUM ANALYZE on {name}"
        )));
        let index_seconds = load::build_indexes(c, &db, opts.streams)?;
        let vacuum_analyze_seconds = load::vacuum_analyze(c, &db)?;
        let database_bytes = load::database_bytes(c, &db)?;
        on_event(Event::Done(&format!(
            "{name}: COPY {copy_seconds:.1} s ({:.0} rows/s), indexes {index_seconds:.1} s, VACUUM ANALYZE {vacuum_analyze_seconds:.1} s, {:.2} GB",
            rows as f64 / copy_seconds,
            database_bytes as f64 / 1e9
        )));
        tier_runs.push(TierRun {
            name,
            device: dev,
            cold_method: ColdMethod::Fadvise,
            cold_note: String::new(),
            copy_seconds,
            index_seconds,
            vacuum_analyze_seconds,
            database_bytes,
            queries: Vec::new(),
        });
    }
    let _ = std::fs::remove_dir_all(&tbl_dir);
    let load = LoadSummary {
        rows,
        tbl_bytes,
        generate_seconds,
        psql_copy_seconds,
        parallel_copy_seconds: tier_runs.first().map_or(0.0, |t| t.copy_seconds),
    };
    let mut answers: Vec<Answer> = Vec::new();
    let mut partial = false;
    'tiers: for (i, tier) in tier_runs.iter_mut().enumerate() {
        on_event(Event::Step(&format!("queries on {}", tier.name)));
        for &q in &opts.queries {
            match run_query(c, i, q, opts.reps, tier, &mut answers, on_event) {
                Ok(()) => {}
                Err(e) if e.is_interrupted() => {
                    partial = true;
                    break 'tiers;
                }
                Err(e) => return Err(e),
            }
        }
    }
    Ok((tier_runs, answers, load, partial))
}

/// One query on tier `i`: `reps` times cold then warm; its answer checked against the
/// first one seen.
fn run_query(
    c: &mut Cluster,
    i: usize,
    q: u32,
    reps: usize,
    tier: &mut TierRun,
    answers: &mut Vec<Answer>,
    on_event: &dyn Fn(Event<'_>),
) -> Result<()> {
    let db = format!("tpch{i}");
    let sql = queries::text(q);
    let mut run = QueryRun {
        query: q,
        cold_seconds: Vec::new(),
        warm_seconds: Vec::new(),
        top_node: String::new(),
    };
    let mut rows = 0;
    for _ in 0..reps {
        pmolap_os::signal::check()?;
        make_cold(c, i, tier)?;
        let mut client = c.connect(&db)?;
        for warm in [false, true] {
            let (secs, answer) = timed_interruptible(&mut client, q, sql)?;
            rows = answer.rows;
            check_answer(answers, answer, &tier.name)?;
            if warm {
                run.warm_seconds.push(secs);
            } else {
                run.cold_seconds.push(secs);
            }
        }
        if run.top_node.is_empty() {
            run.top_node = top_node(&mut client, q, sql)?;
        }
    }
    on_event(Event::Query {
        tier: &tier.name,
        run: &run,
        rows,
    });
    tier.queries.push(run);
    Ok(())
}

/// Restarts the server and drops the data directory's and the tier's files from the
/// page cache (module docs of [`tiers`]); notes on `tier` what that did.
fn make_cold(c: &mut Cluster, i: usize, tier: &mut TierRun) -> Result<()> {
    c.stop()?;
    let ts = c.tablespaces[i].clone();
    let dirs: [&Path; 2] = [&c.data, &ts];
    let (files, err) = tiers::drop_from_cache(&dirs);
    c.start()?;
    if tier.cold_note.is_empty() || err.is_some() {
        match err {
            Some(e) => {
                tier.cold_method = ColdMethod::None;
                tier.cold_note = format!(
                    "could not drop the tier's files from the page cache ({e}): the cold runs are warm"
                );
            }
            None => {
                tier.cold_note = if tier.device.fs_type == "tmpfs" {
                    format!("server restarted; {files} files advised DONTNEED (on tmpfs the files are memory: nothing leaves)")
                } else {
                    format!("server restarted; {files} files synced (syncfs) and advised DONTNEED")
                };
            }
        }
    }
    Ok(())
}

/// [`timed`]; a query cancelled by Ctrl-C ([`cancel_on_interrupt`]) is the interrupt.
fn timed_interruptible(client: &mut postgres::Client, q: u32, sql: &str) -> Result<(f64, Answer)> {
    match timed(client, q, sql) {
        Err(_) if pmolap_os::signal::interrupted() => Err(pmolap_os::Error::Interrupted.into()),
        r => r,
    }
}

/// Runs `f` while a watcher cancels every running statement of the cluster once Ctrl-C
/// arrives (a COPY, an index build or a query at a large scale factor need not finish
/// before the run stops); an error after the interrupt is the interrupt.
fn cancel_on_interrupt<T>(config: postgres::Config, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let done = std::sync::atomic::AtomicBool::new(false);
    let r = std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                if pmolap_os::signal::interrupted() {
                    if let Ok(mut c) = config.connect(postgres::NoTls) {
                        let _ = c.batch_execute(
                            "SELECT pg_cancel_backend(pid) FROM pg_stat_activity \
                             WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'",
                        );
                    }
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
        });
        let r = f();
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        r
    });
    match r {
        Err(e) if pmolap_os::signal::interrupted() && !e.is_interrupted() => {
            Err(pmolap_os::Error::Interrupted.into())
        }
        r => r,
    }
}

/// Runs Qn, returning its seconds and its answer.
fn timed(client: &mut postgres::Client, q: u32, sql: &str) -> Result<(f64, Answer)> {
    let t0 = Instant::now();
    let msgs = client
        .simple_query(sql)
        .map_err(|e| Error::pg(format!("Q{q}"), e))?;
    let secs = t0.elapsed().as_secs_f64();
    let mut lines: Vec<String> = Vec::new();
    let mut head: Vec<Vec<Option<String>>> = Vec::new();
    for m in &msgs {
        if let postgres::SimpleQueryMessage::Row(r) = m {
            let vals: Vec<Option<String>> =
                (0..r.len()).map(|k| r.get(k).map(str::to_string)).collect();
            lines.push(
                vals.iter()
                    .map(|v| v.as_deref().unwrap_or("\\N"))
                    .collect::<Vec<_>>()
                    .join("|"),
            );
            if head.len() < HEAD_ROWS {
                head.push(vals);
            }
        }
    }
    lines.sort_unstable();
    let mut h = Md5::new();
    for l in &lines {
        h.update(l.as_bytes());
        h.update(b"\n");
    }
    let digest = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    Ok((
        secs,
        Answer {
            query: q,
            rows: lines.len() as u64,
            digest,
            head,
        },
    ))
}

fn check_answer(answers: &mut Vec<Answer>, a: Answer, tier: &str) -> Result<()> {
    match answers.iter().find(|x| x.query == a.query) {
        Some(first) if first.digest != a.digest => Err(Error::AnswerMismatch {
            query: a.query,
            tier: tier.to_string(),
            got: a.digest,
            first_tier: "the first run".into(),
            expected: first.digest.clone(),
        }),
        Some(_) => Ok(()),
        None => {
            answers.push(a);
            Ok(())
        }
    }
}

/// The top node of Qn's plan.
fn top_node(client: &mut postgres::Client, q: u32, sql: &str) -> Result<String> {
    let msgs = client
        .simple_query(&format!("EXPLAIN (FORMAT JSON) {sql}"))
        .map_err(|e| Error::pg(format!("EXPLAIN Q{q}"), e))?;
    let text = msgs.iter().find_map(|m| match m {
        postgres::SimpleQueryMessage::Row(r) => r.get(0).map(str::to_string),
        _ => None,
    });
    let v: serde_json::Value = text
        .as_deref()
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or_default();
    let node = &v[0]["Plan"];
    let mut name = node["Node Type"].as_str().unwrap_or("?").to_string();
    if let Some(s) = node["Strategy"].as_str() {
        if s != "Plain" {
            name = format!("{s} {name}");
        }
    }
    Ok(name)
}
