//! Loading: the TPC-H DDL, parallel COPY streams through the client crate, the
//! single-stream `psql \copy` baseline of the same files, the primary/foreign-key indexes
//! and VACUUM ANALYZE.

use std::io::Write as _;
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use crate::data::{TblFile, TABLES};
use crate::error::{Error, Result};
use crate::server::Cluster;

/// The tables (TPC-H clause 1.4 types; keys of orders/lineitem are bigint so that large
/// scale factors fit).
pub const DDL: &str = "
CREATE TABLE region (r_regionkey integer NOT NULL, r_name char(25) NOT NULL, r_comment varchar(152));
CREATE TABLE nation (n_nationkey integer NOT NULL, n_name char(25) NOT NULL, n_regionkey integer NOT NULL, n_comment varchar(152));
CREATE TABLE supplier (s_suppkey integer NOT NULL, s_name char(25) NOT NULL, s_address varchar(40) NOT NULL, s_nationkey integer NOT NULL, s_phone char(15) NOT NULL, s_acctbal decimal(15,2) NOT NULL, s_comment varchar(101) NOT NULL);
CREATE TABLE customer (c_custkey integer NOT NULL, c_name varchar(25) NOT NULL, c_address varchar(40) NOT NULL, c_nationkey integer NOT NULL, c_phone char(15) NOT NULL, c_acctbal decimal(15,2) NOT NULL, c_mktsegment char(10) NOT NULL, c_comment varchar(117) NOT NULL);
CREATE TABLE part (p_partkey integer NOT NULL, p_name varchar(55) NOT NULL, p_mfgr char(25) NOT NULL, p_brand char(10) NOT NULL, p_type varchar(25) NOT NULL, p_size integer NOT NULL, p_container char(10) NOT NULL, p_retailprice decimal(15,2) NOT NULL, p_comment varchar(23) NOT NULL);
CREATE TABLE partsupp (ps_partkey integer NOT NULL, ps_suppkey integer NOT NULL, ps_availqty integer NOT NULL, ps_supplycost decimal(15,2) NOT NULL, ps_comment varchar(199) NOT NULL);
CREATE TABLE orders (o_orderkey bigint NOT NULL, o_custkey integer NOT NULL, o_orderstatus char(1) NOT NULL, o_totalprice decimal(15,2) NOT NULL, o_orderdate date NOT NULL, o_orderpriority char(15) NOT NULL, o_clerk char(15) NOT NULL, o_shippriority integer NOT NULL, o_comment varchar(79) NOT NULL);
CREATE TABLE lineitem (l_orderkey bigint NOT NULL, l_partkey integer NOT NULL, l_suppkey integer NOT NULL, l_linenumber integer NOT NULL, l_quantity decimal(15,2) NOT NULL, l_extendedprice decimal(15,2) NOT NULL, l_discount decimal(15,2) NOT NULL, l_tax decimal(15,2) NOT NULL, l_returnflag char(1) NOT NULL, l_linestatus char(1) NOT NULL, l_shipdate date NOT NULL, l_commitdate date NOT NULL, l_receiptdate date NOT NULL, l_shipinstruct char(25) NOT NULL, l_shipmode char(10) NOT NULL, l_comment varchar(44) NOT NULL);
";

/// Primary keys and the indexes on foreign-key columns (built in parallel).
pub const INDEXES: [&str; 14] = [
    "ALTER TABLE region ADD PRIMARY KEY (r_regionkey)",
    "ALTER TABLE nation ADD PRIMARY KEY (n_nationkey)",
    "ALTER TABLE supplier ADD PRIMARY KEY (s_suppkey)",
    "ALTER TABLE customer ADD PRIMARY KEY (c_custkey)",
    "ALTER TABLE part ADD PRIMARY KEY (p_partkey)",
    "ALTER TABLE partsupp ADD PRIMARY KEY (ps_partkey, ps_suppkey)",
    "ALTER TABLE orders ADD PRIMARY KEY (o_orderkey)",
    "ALTER TABLE lineitem ADD PRIMARY KEY (l_orderkey, l_linenumber)",
    "CREATE INDEX ON nation (n_regionkey)",
    "CREATE INDEX ON supplier (s_nationkey)",
    "CREATE INDEX ON customer (c_nationkey)",
    "CREATE INDEX ON partsupp (ps_suppkey)",
    "CREATE INDEX ON orders (o_custkey)",
    "CREATE INDEX ON lineitem (l_partkey, l_suppkey)",
];

/// The foreign keys (added one after another once the indexes exist).
pub const FOREIGN_KEYS: [&str; 8] = [
    "ALTER TABLE nation ADD FOREIGN KEY (n_regionkey) REFERENCES region",
    "ALTER TABLE supplier ADD FOREIGN KEY (s_nationkey) REFERENCES nation",
    "ALTER TABLE customer ADD FOREIGN KEY (c_nationkey) REFERENCES nation",
    "ALTER TABLE partsupp ADD FOREIGN KEY (ps_partkey) REFERENCES part",
    "ALTER TABLE partsupp ADD FOREIGN KEY (ps_suppkey) REFERENCES supplier",
    "ALTER TABLE orders ADD FOREIGN KEY (o_custkey) REFERENCES customer",
    "ALTER TABLE lineitem ADD FOREIGN KEY (l_orderkey) REFERENCES orders",
    "ALTER TABLE lineitem ADD FOREIGN KEY (l_partkey, l_suppkey) REFERENCES partsupp",
];

const COPY_OPTS: &str = "WITH (FORMAT text, DELIMITER '|')";

/// Runs `sql` (one or more statements) on `db`.
pub fn exec(c: &Cluster, db: &str, sql: &str) -> Result<()> {
    let mut client = c.connect(db)?;
    client
        .batch_execute(sql)
        .map_err(|e| Error::pg(first_words(sql), e))
}

fn first_words(sql: &str) -> String {
    sql.split_whitespace().take(6).collect::<Vec<_>>().join(" ")
}

/// Creates tablespace `ts` at `location` and database `db` in it (its temporary files
/// there too).
pub fn create_database(c: &Cluster, ts: &str, location: &Path, db: &str) -> Result<()> {
    let loc = location.to_string_lossy().replace('\'', "''");
    exec(
        c,
        "postgres",
        &format!("CREATE TABLESPACE {ts} LOCATION '{loc}'"),
    )?;
    exec(
        c,
        "postgres",
        &format!("CREATE DATABASE {db} TABLESPACE {ts}"),
    )?;
    exec(
        c,
        "postgres",
        &format!("ALTER DATABASE {db} SET temp_tablespaces = '{ts}'"),
    )
}

/// Loads `files` into `db` over `streams` connections, one file at a time each. Returns
/// the seconds taken.
pub fn parallel_copy(c: &Cluster, db: &str, files: &[TblFile], streams: usize) -> Result<f64> {
    let next = AtomicUsize::new(0);
    let first_err: Mutex<Option<Error>> = Mutex::new(None);
    let t0 = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..streams.max(1) {
            s.spawn(|| {
                let r = (|| -> Result<()> {
                    let mut client = c.connect(db)?;
                    loop {
                        if first_err.lock().map_or(true, |e| e.is_some()) {
                            return Ok(());
                        }
                        pmolap_os::signal::check()?;
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(f) = files.get(i) else { return Ok(()) };
                        let ctx = format!("COPY {} from {}", f.table, f.path.display());
                        let mut w = client
                            .copy_in(&format!("COPY {} FROM STDIN {COPY_OPTS}", f.table))
                            .map_err(|e| Error::pg(&ctx, e))?;
                        let mut r =
                            std::fs::File::open(&f.path).map_err(|e| Error::io(&f.path, e))?;
                        std::io::copy(&mut r, &mut w).map_err(|e| Error::Pg {
                            context: ctx.clone(),
                            detail: e.to_string(),
                        })?;
                        w.finish().map_err(|e| Error::pg(&ctx, e))?;
                    }
                })();
                if let Err(e) = r {
                    if let Ok(mut slot) = first_err.lock() {
                        slot.get_or_insert(e);
                    }
                }
            });
        }
    });
    if let Some(e) = first_err.into_inner().ok().flatten() {
        return Err(e);
    }
    Ok(t0.elapsed().as_secs_f64())
}

/// The baseline: one `psql` session running `\copy` of every file, one after another,
/// into `db`. Returns the seconds taken (psql's start included, as a user would see it).
pub fn psql_copy(c: &Cluster, db: &str, files: &[TblFile]) -> Result<f64> {
    let mut script = String::new();
    for f in files {
        let p = f.path.to_string_lossy().replace('\'', "''");
        script.push_str(&format!("\\copy {} FROM '{p}' {COPY_OPTS}\n", f.table));
    }
    let t0 = Instant::now();
    let mut child = c
        .psql(db)
        .args(["-f", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::io(&c.bins.psql, e))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(script.as_bytes())
            .map_err(|e| Error::io(&c.bins.psql, e))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| Error::io(&c.bins.psql, e))?;
    let secs = t0.elapsed().as_secs_f64();
    if !out.status.success() {
        return Err(Error::Command {
            what: "psql \\copy baseline".into(),
            detail: String::from_utf8_lossy(&out.stderr)
                .trim()
                .replace('\n', " | "),
        });
    }
    Ok(secs)
}

/// Checks every table holds the rows generated for it.
pub fn check_counts(c: &Cluster, db: &str, files: &[TblFile]) -> Result<()> {
    let mut client = c.connect(db)?;
    for t in TABLES {
        let want: u64 = files.iter().filter(|f| f.table == t).map(|f| f.rows).sum();
        let row = client
            .query_one(&format!("SELECT count(*) FROM {t}"), &[])
            .map_err(|e| Error::pg(format!("count {t}"), e))?;
        let got: i64 = row.get(0);
        if got as u64 != want {
            return Err(Error::Invalid(format!(
                "{db}.{t} holds {got} rows after loading, {want} were generated"
            )));
        }
    }
    Ok(())
}

/// Builds the indexes over `streams` connections, then adds the foreign keys. Returns
/// the seconds taken.
pub fn build_indexes(c: &Cluster, db: &str, streams: usize) -> Result<f64> {
    let t0 = Instant::now();
    let next = AtomicUsize::new(0);
    let first_err: Mutex<Option<Error>> = Mutex::new(None);
    // Largest first: lineitem's two indexes, then orders', then the rest.
    let mut order: Vec<&str> = INDEXES.to_vec();
    order.reverse();
    std::thread::scope(|s| {
        for _ in 0..streams.max(1) {
            s.spawn(|| {
                let r = (|| -> Result<()> {
                    let mut client = c.connect(db)?;
                    while let Some(sql) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                        pmolap_os::signal::check()?;
                        client.batch_execute(sql).map_err(|e| Error::pg(*sql, e))?;
                    }
                    Ok(())
                })();
                if let Err(e) = r {
                    if let Ok(mut slot) = first_err.lock() {
                        slot.get_or_insert(e);
                    }
                }
            });
        }
    });
    if let Some(e) = first_err.into_inner().ok().flatten() {
        return Err(e);
    }
    let mut client = c.connect(db)?;
    for fk in FOREIGN_KEYS {
        pmolap_os::signal::check()?;
        client.batch_execute(fk).map_err(|e| Error::pg(fk, e))?;
    }
    Ok(t0.elapsed().as_secs_f64())
}

/// VACUUM ANALYZE of the database; returns the seconds taken.
pub fn vacuum_analyze(c: &Cluster, db: &str) -> Result<f64> {
    let t0 = Instant::now();
    exec(c, db, "VACUUM ANALYZE")?;
    Ok(t0.elapsed().as_secs_f64())
}

/// The database's size in bytes.
pub fn database_bytes(c: &Cluster, db: &str) -> Result<u64> {
    let mut client = c.connect(db)?;
    let row = client
        .query_one("SELECT pg_database_size(current_database())", &[])
        .map_err(|e| Error::pg("pg_database_size", e))?;
    let b: i64 = row.get(0);
    Ok(b.max(0) as u64)
}
