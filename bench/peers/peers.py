"""pmolap's peers, loaded from the same dbgen .tbl files and timed the same way.

Three set-ups, each an object with `run(sql) -> rows` and `close()`:

- `DuckFile`: DuckDB on a checkpointed database file (WORK/sfSF/ssb.duckdb, built once
  by ssb_vs_duckdb.load_duckdb), opened read-only: the set-up issue 15 calls DuckDB's
  fastest (warm after the warm-up run).
- `DuckMemory`: DuckDB in memory, the same tables loaded right before the queries.
- `Hyper`: Tableau Hyper (the hyperd of the pinned `tableauhyperapi` package) on a .hyper
  file (WORK/sfSF/ssb.hyper, built once with Hyper's `external()` CSV reader).

`measure` runs a list of queries through one set-up (one warm-up, then R timed runs,
median: ssb_vs_duckdb.timed); `run_pmolap` runs the same list through
`pmolap ssb query FILE.sql` and reads pmolap's own per-query figures. Used by compare.py
for the 13 SSB queries and for the random sample alike.
"""

import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "ssb-vs-duckdb"))
import ssb_vs_duckdb as base  # noqa: E402  (schema, DuckDB loader, timing, answers)

HYPER_TYPES = {"BIGINT": "BIGINT", "INTEGER": "INTEGER", "VARCHAR": "TEXT"}


class DuckFile:
    key, label = "duckdb_file", "DuckDB file"

    def __init__(self, duckdb, args, sfdir):
        self.load_s = base.load_duckdb(duckdb, args, sfdir)
        self.con = duckdb.connect(os.path.join(sfdir, "ssb.duckdb"), read_only=True)
        self.threads = set_duckdb_threads(self.con, args.threads)
        self.version = duckdb.__version__
        self.note = (f"DuckDB {self.version}, checkpointed database file opened read-only, "
                     f"SET threads={self.threads}, warm after the warm-up run")

    def run(self, sql):
        return self.con.execute(sql).fetchall()

    def close(self):
        self.con.close()


class DuckMemory(DuckFile):
    key, label = "duckdb_mem", "DuckDB in-memory"

    def __init__(self, duckdb, args, sfdir):
        self.con = duckdb.connect(":memory:")
        self.threads = set_duckdb_threads(self.con, args.threads)
        base.log(f"loading {sfdir}/tbl/*.tbl into DuckDB in memory")
        t0 = time.perf_counter()
        base.load_tables(self.con, os.path.join(sfdir, "tbl"))
        self.load_s = time.perf_counter() - t0
        self.version = duckdb.__version__
        self.note = (f"DuckDB {self.version}, in memory, queried right after loading, "
                     f"SET threads={self.threads}")


def set_duckdb_threads(con, threads):
    con.execute(f"SET threads={int(threads)}")
    got = int(con.execute("SELECT current_setting('threads')").fetchone()[0])
    if got != int(threads):
        base.die(f"DuckDB runs {got} threads, not {threads}", 1)
    return got


class Hyper:
    """hyperd of the tableauhyperapi package. Hyper documents no process setting for its
    thread count (its process settings: connectivity, logging, database file version);
    it sizes its worker pool from the CPUs it may run on. With --threads below the CPU
    count, hyperd is started with its CPU affinity limited to that many CPUs (inherited
    from this process, which is restricted around the start and restored after)."""

    key, label = "hyper", "Hyper"

    def __init__(self, hapi, args, sfdir):
        self.hapi = hapi
        cpus = sorted(os.sched_getaffinity(0))
        self.proc, self.threads = start_hyperd(hapi, args.threads)
        db = os.path.join(sfdir, "ssb.hyper")
        self.load_s = None
        if os.path.exists(db):
            base.log(f"{db}: present, not reloaded")
        else:
            self.load_s = self._load(db, os.path.join(sfdir, "tbl"))
        self.con = hapi.Connection(self.proc.endpoint, db, hapi.CreateMode.NONE)
        self.version = hapi.__version__
        server = self.con.execute_scalar_query("SELECT version()")
        self.note = (f"Hyper API {self.version} ({server}), .hyper file, warm after the "
                     f"warm-up run; hyperd on {self.threads} of {len(cpus)} CPUs "
                     f"(no documented thread-count setting: it uses the CPUs it may run on)")

    def _load(self, db, tbl):
        """The five .tbl files into db (built as a temporary file, renamed when complete)."""
        tmp = db + ".tmp.hyper"
        if os.path.exists(tmp):
            os.remove(tmp)
        base.log(f"loading {tbl}/*.tbl into {db}")
        t0 = time.perf_counter()
        with self.hapi.Connection(self.proc.endpoint, tmp, self.hapi.CreateMode.CREATE) as con:
            for table, (fname, cols) in base.SCHEMA.items():
                t1 = time.perf_counter()
                coldefs = ", ".join(f"{c} {HYPER_TYPES[t]} NOT NULL" for c, t in cols)
                con.execute_command(f"CREATE TABLE {table} ({coldefs})")
                # As for DuckDB: explicit columns, one more for the '|' ending every line.
                # dbgen's text has no '"' (CSV's quote character here: Hyper requires one).
                desc = ", ".join(f"{c} {HYPER_TYPES[t]}" for c, t in cols) + ", trailing__ TEXT"
                path = os.path.join(tbl, fname).replace("'", "''")
                n = con.execute_command(
                    f"INSERT INTO {table} SELECT {', '.join(c for c, _ in cols)} "
                    f"FROM external('{path}', COLUMNS => DESCRIPTOR({desc}), FORMAT => 'csv', "
                    f"DELIMITER => '|', HEADER => false)")
                base.log(f"  {table:<10} {n:>12,} rows  {time.perf_counter() - t1:7.2f} s")
        os.rename(tmp, db)
        secs = time.perf_counter() - t0
        base.log(f"  loaded in {secs:.2f} s")
        return secs

    def run(self, sql):
        return self.con.execute_list_query(as_hyper_sql(sql))

    def close(self):
        self.con.close()
        self.proc.close()


def start_hyperd(hapi, threads):
    """A HyperProcess (logging off) on at most `threads` CPUs (the affinity it inherits from
    this process, restricted around the start and restored after): (process, CPUs)."""
    cpus = sorted(os.sched_getaffinity(0))
    keep = cpus[: int(threads)]
    if len(keep) < len(cpus):
        os.sched_setaffinity(0, keep)
    try:
        proc = hapi.HyperProcess(hapi.Telemetry.DO_NOT_SEND_USAGE_DATA_TO_TABLEAU,
                                 parameters={"log_config": ""})
    finally:
        os.sched_setaffinity(0, cpus)
    return proc, len(keep)


# AVG over a column or `a op b` of two columns, as the query generator writes it.
AVG_ARG = re.compile(r"\bavg\(([^()]*)\)", re.IGNORECASE)


def as_hyper_sql(sql):
    """Hyper's AVG of an integer is a NUMERIC rounded to 6 decimals, DuckDB's and pmolap's
    a DOUBLE: Hyper is asked for AVG over DOUBLE PRECISION, so all three answer the same
    question (every occurrence is rewritten alike, so ORDER BY avg(...) still matches)."""
    return AVG_ARG.sub(r"avg(CAST(\1 AS DOUBLE PRECISION))", sql)


def measure(engine, queries, reps, verbose=True):
    """Every (id, sql) of queries through engine: ({id: figures}, {id: plain rows})."""
    res, answers = {}, {}
    for qid, sql in queries:
        res[qid], answers[qid] = base.timed(engine.run, sql, reps)
        if verbose:
            base.log(f"  {engine.key} {qid}: {res[qid]['median_ms']:9.2f} ms  ({res[qid]['rows']} rows)")
    return res, answers


def run_pmolap(args, sfdir, queries):
    """All of queries in one `pmolap ssb query FILE.sql` (the store on --tier dram, the
    default): ({id: pmolap's figures}, {id: rows}, pmolap's JSON document)."""
    sql_file = os.path.join(sfdir, "peers-queries.sql")
    with open(sql_file, "w") as f:
        for qid, sql in queries:
            # "-- query ID": a comment pmolap does not take as a name (`-- Qx.y` would be).
            f.write(f"-- query {qid}\n{sql};\n")
    out_json = os.path.join(sfdir, "peers-pmolap.json")
    out_answers = os.path.join(sfdir, "peers-pmolap-answers.json")
    for p in (out_json, out_answers):
        if os.path.exists(p):
            os.remove(p)
    base.run_cmd([args.pmolap, "ssb", "query", sql_file, "--data", os.path.join(sfdir, "store"),
                  "--threads", str(args.threads), "--reps", str(args.reps), "--quiet",
                  "--json", out_json, "--answers", out_answers], quiet=True)
    with open(out_json) as f:
        doc = json.load(f)
    with open(out_answers) as f:
        answers = json.load(f)
    # pmolap numbers the statements of a .sql file 1, 2, ... in order.
    by_num = {str(e["id"]): e for e in doc.get("queries", [])}
    res, rows = {}, {}
    for i, (qid, _) in enumerate(queries, 1):
        if str(i) not in by_num or str(i) not in answers:
            base.die(f"{out_json}: no figures or answer for statement {i} ({qid})", 1)
        res[qid], rows[qid] = by_num[str(i)], answers[str(i)]
    return res, rows, doc


def canonical(rows):
    """Rows as lists (every engine, pmolap included, gives SQL's one row for an
    aggregate without GROUP BY over no rows: counts 0, the others NULL)."""
    return [list(r) for r in rows]
