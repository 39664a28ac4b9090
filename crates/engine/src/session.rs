//! The engine's query session: a database opened once — its schema to translate SQL
//! against, its data to run on — with the thread layout, the node-local fact copies (when
//! striping) and the bit kernels chosen; a SQL script parsed, planned, run and answered
//! on it. The benchmark crate (`pmolap_bench::ssb`) times and repeats on top of it.
//!
//! The bit kernels dispatch through one process-wide table
//! (`pmolap_kernels::bits::active`, read in the probe's innermost loops): [`Session::new`]
//! is the one place that selects it, from [`ExecOptions::bits_isa`] (None: the widest this
//! CPU has). Sessions of one process therefore share one choice: the last one opened.

use std::path::Path;
use std::sync::OnceLock;
use std::time::Instant;

use pmolap_kernels::bits;
use pmolap_store::table::OpenOptions;
use pmolap_store::Placement;
use pmolap_tier::kernel::Isa;
use pmolap_tier::{CpuFeatures, RegionOptions, Topology};

use crate::answer::{QueryRun, StepReport};
use crate::db::Database;
use crate::error::{Error, Result};
use crate::exec::{execute, ExecOptions, Layout, StripedFact};
use crate::plan::{plan, Test};
use crate::query::{IndexChoice, Query};
use crate::sql::Script;

/// How a database is opened for a benchmark: every structure on its tier before the
/// open returns; `warm` verifies every checksum (on each column's first use, the
/// warm-up) and prefaults every page; a cold open does neither, so a query faults its
/// data in from the device.
pub fn open_options(warm: bool) -> OpenOptions {
    OpenOptions {
        verify_checksums: warm,
        region: RegionOptions {
            prefault: warm,
            ..RegionOptions::default()
        },
        lazy: false,
    }
}

/// How a database is opened to answer queries (`pmolap sql`): the open reads the
/// manifests alone; each column's structures are opened onto their tier, prefaulted
/// and verified on the column's first use, so a query pays for the columns it reads
/// and a column it does not read costs nothing (nor fails it when damaged).
pub fn query_open_options() -> OpenOptions {
    OpenOptions {
        lazy: true,
        ..open_options(true)
    }
}

/// A database ready to answer queries: its tables, the thread layout over its fact table
/// and (when striping) the fact partitions copied onto their nodes.
#[derive(Debug)]
pub struct Session {
    db: Database,
    layout: Layout,
    striped: StripedFact,
    exec: ExecOptions,
    /// The bit kernels' name (`avx512+vbmi`, `avx512`, `avx2`, `portable`).
    kernels: &'static str,
}

impl Session {
    /// Opens the database `dir` with every structure where `placement` puts it, warm or
    /// cold ([`open_options`]), and prepares it ([`Session::new`]).
    pub fn open(
        dir: &Path,
        placement: &Placement,
        warm: bool,
        topo: &Topology,
        exec: ExecOptions,
    ) -> Result<Session> {
        Session::new(
            Database::open(dir, placement, &open_options(warm))?,
            topo,
            exec,
        )
    }

    /// Prepares `db`: selects the bit kernels `exec` names (the process's one choice: see
    /// the module), lays out threads over the fact table ([`Database::fact_table`]: the
    /// one `DATABASE` names, else the one with its row references, else the largest
    /// table) and, when striping, copies its partitions onto their nodes.
    pub fn new(db: Database, topo: &Topology, exec: ExecOptions) -> Result<Session> {
        let kernels = select_kernels(exec.bits_isa)?;
        let (_, fact) = db
            .fact_table()
            .ok_or_else(|| Error::Database(format!("{}: an empty database", db.dir().display())))?;
        let layout = Layout::new(topo, &exec, fact.rows())?;
        let cols: Vec<&str> = fact.column_names().collect();
        let striped = StripedFact::new(fact, &cols, &layout, &RegionOptions::default())?;
        Ok(Session {
            db,
            layout,
            striped,
            exec,
            kernels,
        })
    }

    pub fn database(&self) -> &Database {
        &self.db
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    pub fn exec(&self) -> &ExecOptions {
        &self.exec
    }

    /// The bit kernels the queries run (`avx512+vbmi`, `avx512`, `avx2`, `portable`).
    pub fn bits_kernel(&self) -> &'static str {
        self.kernels
    }

    /// The database, to prepare again with other options.
    pub fn into_database(self) -> Database {
        self.db
    }

    /// The columns of table `name`, or None when the database has no such table.
    pub fn columns(&self, name: &str) -> Option<Vec<String>> {
        self.db
            .table(name)
            .ok()
            .map(|t| t.column_names().map(str::to_string).collect())
    }

    /// The statements of `script` as queries, their names resolved in this database.
    pub fn queries(&self, script: &Script) -> Result<Vec<Query>> {
        script.queries_with(&|t| self.columns(t), &|t| self.db.synonym(t))
    }

    /// Plans and runs `q`.
    pub fn run(&self, q: &Query) -> Result<QueryRun> {
        run_query(
            &self.db,
            q,
            &self.layout,
            &self.striped,
            &self.exec,
            &RegionOptions::default(),
        )
    }

    /// Parses `text` (`;`-separated statements), translates every statement against this
    /// database, then plans and runs each in turn: their runs, answers included.
    pub fn sql(&self, text: &str) -> Result<Vec<QueryRun>> {
        let queries = self.queries(&Script::parse(text)?)?;
        queries.iter().map(|q| self.run(q)).collect()
    }
}

/// Makes `isa` (None: the widest this CPU has) the bit kernels of this process; their
/// name.
fn select_kernels(isa: Option<Isa>) -> Result<&'static str> {
    static HOST: OnceLock<CpuFeatures> = OnceLock::new();
    let isa = isa.unwrap_or_else(|| Isa::best(HOST.get_or_init(CpuFeatures::detect)));
    bits::set_isa(isa)?;
    Ok(bits::active().name())
}

/// Plans and executes `query` on `db` (every join on `opts.join_index` unless that is
/// `auto`; a query naming no fact table on the database's), with the bit kernels
/// selected in this process.
pub fn run_query(
    db: &Database,
    query: &Query,
    layout: &Layout,
    striped: &StripedFact,
    opts: &ExecOptions,
    region: &pmolap_tier::RegionOptions,
) -> Result<QueryRun> {
    let overridden;
    let query = match opts.join_index {
        IndexChoice::Auto => query,
        c => {
            overridden = query.with_join_index(c);
            &overridden
        }
    };
    let query = db.with_fact(query)?;
    let query = query.as_ref();
    let t0 = Instant::now();
    // DECIMAL and DATE columns: literals read at their types, answers written so.
    let typed = crate::typed::bind(db, query)?;
    let query = typed.as_ref().map_or(query, |(q, _)| q);
    let p = plan(db, query)?;
    let (mut rows, exec) = execute(&p, layout, striped, opts, region)?;
    let mut decimal_columns = Vec::new();
    if let Some((_, shown)) = &typed {
        crate::typed::show(&mut rows, shown);
        decimal_columns = crate::typed::decimal_columns(&rows, shown);
    }
    let steps = p
        .steps
        .iter()
        .map(|s| StepReport {
            what: s.what.clone(),
            column: p.cols[s.col].name.clone(),
            test: match s.test {
                Test::Range { .. } => "range",
                Test::Bits(_) if s.hull.is_some() => "ranges, then bitmap",
                Test::Bits(_) => "bitmap",
                Test::Ranges(_) => "ranges",
                Test::Lookup(_) => "lookup",
                Test::Code { .. } => "group code",
            }
            .to_string(),
            selectivity: s.selectivity,
        })
        .collect();
    Ok(QueryRun {
        id: query.id.clone(),
        columns: query.column_names(),
        rows,
        decimal_columns,
        plan_ms: p.plan_ms,
        probe_ms: exec.probe_ms,
        total_ms: t0.elapsed().as_secs_f64() * 1e3,
        fact_rows: p.fact_rows,
        fact_bytes: if exec.morsels == 0 { 0 } else { p.fact_bytes() },
        steps,
        joins: p.joins.clone(),
        group_domain: p.group_domain,
        exec,
    })
}
