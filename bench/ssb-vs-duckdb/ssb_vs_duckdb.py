#!/usr/bin/env python3
"""The 13 Star Schema Benchmark queries in DuckDB and in `pmolap ssb run`, side by side.

Generates the SSB data once with `pmolap ssb gen` (dbgen-identical .tbl files), builds
pmolap's column store from those files (`pmolap ssb load --tbl`) and a DuckDB database
from the same files, runs the queries of ../shared/ssb-reference/queries.sql in both
(same threads, one warm-up run, R timed runs, median), checks that both return exactly
the same rows, prints a Markdown table with the speedups and writes a JSON file.

    python3 bench/ssb-vs-duckdb/ssb_vs_duckdb.py --sf 1 --threads 2 --reps 5
    python3 bench/ssb-vs-duckdb/ssb_vs_duckdb.py --sf 1 --duckdb-only \
        --check-reference ../shared/ssb-reference/answers-sf1.json

Stdlib and duckdb only (see requirements.txt; run.sh makes the venv).
"""

import argparse
import datetime
import decimal
import json
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))  # the repository (bench/ssb-vs-duckdb/..)
DEFAULT_QUERIES_SQL = os.path.join(ROOT, "..", "shared", "ssb-reference", "queries.sql")

# SSB dbgen column order (`-T a`), with the table names of queries.sql (date -> ddate).
# Every .tbl line ends in '|', read as one extra, empty column that is dropped.
SCHEMA = {
    "lineorder": ("lineorder.tbl", [
        ("lo_orderkey", "BIGINT"), ("lo_linenumber", "INTEGER"), ("lo_custkey", "INTEGER"),
        ("lo_partkey", "INTEGER"), ("lo_suppkey", "INTEGER"), ("lo_orderdate", "INTEGER"),
        ("lo_orderpriority", "VARCHAR"), ("lo_shippriority", "INTEGER"),
        ("lo_quantity", "INTEGER"), ("lo_extendedprice", "INTEGER"),
        ("lo_ordtotalprice", "INTEGER"), ("lo_discount", "INTEGER"),
        ("lo_revenue", "INTEGER"), ("lo_supplycost", "INTEGER"), ("lo_tax", "INTEGER"),
        ("lo_commitdate", "INTEGER"), ("lo_shipmode", "VARCHAR"),
    ]),
    "part": ("part.tbl", [
        ("p_partkey", "INTEGER"), ("p_name", "VARCHAR"), ("p_mfgr", "VARCHAR"),
        ("p_category", "VARCHAR"), ("p_brand1", "VARCHAR"), ("p_color", "VARCHAR"),
        ("p_type", "VARCHAR"), ("p_size", "INTEGER"), ("p_container", "VARCHAR"),
    ]),
    "supplier": ("supplier.tbl", [
        ("s_suppkey", "INTEGER"), ("s_name", "VARCHAR"), ("s_address", "VARCHAR"),
        ("s_city", "VARCHAR"), ("s_nation", "VARCHAR"), ("s_region", "VARCHAR"),
        ("s_phone", "VARCHAR"),
    ]),
    "customer": ("customer.tbl", [
        ("c_custkey", "INTEGER"), ("c_name", "VARCHAR"), ("c_address", "VARCHAR"),
        ("c_city", "VARCHAR"), ("c_nation", "VARCHAR"), ("c_region", "VARCHAR"),
        ("c_phone", "VARCHAR"), ("c_mktsegment", "VARCHAR"),
    ]),
    "ddate": ("date.tbl", [
        ("d_datekey", "INTEGER"), ("d_date", "VARCHAR"), ("d_dayofweek", "VARCHAR"),
        ("d_month", "VARCHAR"), ("d_year", "INTEGER"), ("d_yearmonthnum", "INTEGER"),
        ("d_yearmonth", "VARCHAR"), ("d_daynuminweek", "INTEGER"),
        ("d_daynuminmonth", "INTEGER"), ("d_daynuminyear", "INTEGER"),
        ("d_monthnuminyear", "INTEGER"), ("d_weeknuminyear", "INTEGER"),
        ("d_sellingseason", "VARCHAR"), ("d_lastdayinweekfl", "INTEGER"),
        ("d_lastdayinmonthfl", "INTEGER"), ("d_holidayfl", "INTEGER"),
        ("d_weekdayfl", "INTEGER"),
    ]),
}
TBL_FILES = [f for f, _ in SCHEMA.values()]
MARKER = ".complete"  # written into a data directory once it is complete


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def die(msg, code=2):
    log("error: " + msg)
    sys.exit(code)


def sf_label(sf):
    """'1' for 1.0, '0.01' for 0.01: the form used in directory and file names."""
    v = float(sf)
    if v <= 0 or not math.isfinite(v):
        raise argparse.ArgumentTypeError("scale factor must be > 0")
    return str(int(v)) if v == int(v) else repr(v)


# --------------------------------------------------------------------------- queries

def read_queries(path):
    """{id: sql} in file order, from '-- Q1.1' header lines each followed by one query."""
    queries, cur = {}, None
    with open(path) as f:
        for line in f:
            m = re.match(r"^\s*--\s*Q(\d+\.\d+)\s*$", line)
            if m:
                cur = m.group(1)
                queries[cur] = []
            elif cur is not None and not line.lstrip().startswith("--"):
                queries[cur].append(line.rstrip("\n"))
    out = {}
    for qid, lines in queries.items():
        sql = "\n".join(lines).strip().rstrip(";").strip()
        if not sql:
            die(f"{path}: query Q{qid} is empty")
        out[qid] = sql
    if not out:
        die(f"{path}: no '-- Qx.y' queries found")
    return out


def select_queries(all_queries, spec):
    if spec == "all":
        return list(all_queries)
    ids = [q.strip().lstrip("Qq") for q in spec.split(",") if q.strip()]
    unknown = [q for q in ids if q not in all_queries]
    if unknown:
        die(f"unknown queries {','.join(unknown)} (have {','.join(all_queries)})")
    return ids


# --------------------------------------------------------------------------- data

def run_cmd(cmd, quiet=False):
    log("+ " + " ".join(cmd))
    t0 = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL if quiet else sys.stderr)
    if r.returncode != 0:
        die(f"{cmd[0]} exited with {r.returncode}", 1)
    return time.perf_counter() - t0


def fresh_dir(path):
    """An empty directory at path (a half-written earlier attempt is removed)."""
    if os.path.isdir(path):
        shutil.rmtree(path)
    os.makedirs(path)


def generate(args, sfdir):
    """pmolap ssb gen -> sfdir/tbl, pmolap ssb load -> sfdir/store; each skipped when done."""
    info = {}
    tbl, store = os.path.join(sfdir, "tbl"), os.path.join(sfdir, "store")
    if os.path.exists(os.path.join(tbl, MARKER)):
        log(f"{tbl}: present, not regenerated")
    else:
        fresh_dir(tbl)
        info["gen_s"] = run_cmd([args.pmolap, "ssb", "gen", "--sf", args.sf, "--out", tbl,
                                 "--threads", str(args.threads)])
        missing = [f for f in TBL_FILES if not os.path.isfile(os.path.join(tbl, f))]
        if missing:
            die(f"pmolap ssb gen wrote no {', '.join(missing)} in {tbl}", 1)
        open(os.path.join(tbl, MARKER), "w").close()
    if args.duckdb_only:
        return info
    if args.rebuild_store and os.path.isdir(store):
        log(f"{store}: removed (--rebuild-store)")
        shutil.rmtree(store)
    if os.path.exists(os.path.join(store, MARKER)):
        log(f"{store}: present, not rebuilt")
    else:
        if os.path.isdir(store):
            shutil.rmtree(store)
        info["store_load_s"] = run_cmd([args.pmolap, "ssb", "load", "--sf", args.sf,
                                        "--out", store, "--tbl", tbl, "--quiet"])
        open(os.path.join(store, MARKER), "w").close()
    return info


def load_tables(con, tbl):
    """Creates the five tables in the DuckDB connection con and fills them from the .tbl
    files in the directory tbl (logging rows and seconds per table)."""
    for table, (fname, cols) in SCHEMA.items():
        t1 = time.perf_counter()
        coldefs = ", ".join(f"{c} {t} NOT NULL" for c, t in cols)
        con.execute(f"CREATE TABLE {table} ({coldefs})")
        # Explicit columns (no sniffing); the trailing '|' makes one more, empty column.
        # No quoting or escaping in dbgen's text; the NOT NULLs reject empty fields.
        csv_cols = ", ".join(f"'{c}': '{t}'" for c, t in cols) + ", 'trailing__': 'VARCHAR'"
        path = os.path.join(tbl, fname).replace("'", "''")
        con.execute(
            f"INSERT INTO {table} SELECT {', '.join(c for c, _ in cols)} FROM read_csv('{path}', "
            f"delim='|', header=false, quote='', escape='', columns={{{csv_cols}}})")
        n = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        log(f"  {table:<10} {n:>12,} rows  {time.perf_counter() - t1:7.2f} s")


def load_duckdb(duckdb, args, sfdir):
    """The five .tbl files into sfdir/ssb.duckdb (built under a temporary name, renamed
    when complete, so an existing ssb.duckdb is a complete one). Returns seconds or None."""
    db = os.path.join(sfdir, "ssb.duckdb")
    if os.path.exists(db):
        log(f"{db}: present, not reloaded")
        return None
    tmp = db + ".tmp"
    for p in (tmp, tmp + ".wal"):
        if os.path.exists(p):
            os.remove(p)
    tbl = os.path.join(sfdir, "tbl")
    log(f"loading {tbl}/*.tbl into {db}")
    t0 = time.perf_counter()
    con = duckdb.connect(tmp)
    con.execute(f"SET threads={int(args.threads)}")
    load_tables(con, tbl)
    con.execute("CHECKPOINT")
    con.close()
    if os.path.exists(tmp + ".wal"):
        die(f"{tmp}.wal left after CHECKPOINT", 1)
    os.rename(tmp, db)
    secs = time.perf_counter() - t0
    log(f"  loaded in {secs:.2f} s")
    return secs


# --------------------------------------------------------------------------- answers

def plain(v):
    """A result value as a JSON-comparable plain value: exact ints, strings."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int) or isinstance(v, str) or v is None:
        return v
    if isinstance(v, decimal.Decimal):
        return int(v) if v == v.to_integral_value() else str(v)
    if isinstance(v, float):
        return int(v) if v.is_integer() else v
    return str(v)


def plain_rows(rows):
    return [[plain(v) for v in row] for row in rows]


def same_value(a, b):
    """Equal values; floats (AVG) within a relative 1e-9, as engines sum in other orders."""
    if isinstance(a, float) or isinstance(b, float):
        return (isinstance(a, (int, float)) and isinstance(b, (int, float))
                and not isinstance(a, bool) and not isinstance(b, bool)
                and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9))
    return a == b


def first_difference(a, b):
    """(index, row_a, row_b) of the first differing row, or None when equal."""
    for i in range(max(len(a), len(b))):
        ra = a[i] if i < len(a) else "<no row>"
        rb = b[i] if i < len(b) else "<no row>"
        if not (isinstance(ra, list) and isinstance(rb, list) and len(ra) == len(rb)
                and all(same_value(x, y) for x, y in zip(ra, rb))):
            return i, ra, rb
    return None


def compare(name_a, ans_a, name_b, ans_b, ids):
    """Ids whose rows differ; prints the first differing row of each."""
    bad = []
    for q in ids:
        if q not in ans_b:
            log(f"MISMATCH Q{q}: {name_b} has no answer")
            bad.append(q)
            continue
        d = first_difference(ans_a[q], [list(r) for r in ans_b[q]])
        if d is not None:
            i, ra, rb = d
            log(f"MISMATCH Q{q}: {len(ans_a[q])} rows in {name_a}, {len(ans_b[q])} in {name_b}; "
                f"first difference at row {i}: {name_a} {json.dumps(ra)} vs {name_b} {json.dumps(rb)}")
            bad.append(q)
    return bad


# --------------------------------------------------------------------------- runs

def timed(run, sql, reps):
    """One untimed warm-up run(sql), then reps timed ones: the wall time of run(sql), which
    executes the query and fetches every result row into Python. Returns ({median_ms,
    times_ms, rows}, the rows of the last run as plain values)."""
    rows = run(sql)
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        rows = run(sql)
        times.append((time.perf_counter() - t0) * 1e3)
    return {"median_ms": statistics.median(times), "times_ms": times, "rows": len(rows)}, plain_rows(rows)


def run_duckdb(duckdb, args, sfdir, queries, ids):
    con = duckdb.connect(os.path.join(sfdir, "ssb.duckdb"), read_only=True)
    con.execute(f"SET threads={int(args.threads)}")
    threads = con.execute("SELECT current_setting('threads')").fetchone()[0]
    if int(threads) != int(args.threads):
        die(f"DuckDB runs {threads} threads, not {args.threads}", 1)
    res, answers = {}, {}
    for q in ids:
        res[q], answers[q] = timed(lambda sql: con.execute(sql).fetchall(), queries[q], args.reps)
        log(f"  duckdb Q{q}: {res[q]['median_ms']:9.2f} ms  ({res[q]['rows']} rows)")
    con.close()
    return res, answers


def run_pmolap(args, sfdir, ids):
    out_json = os.path.join(sfdir, "pmolap.json")
    out_answers = os.path.join(sfdir, "pmolap-answers.json")
    for p in (out_json, out_answers):
        if os.path.exists(p):
            os.remove(p)
    run_cmd([args.pmolap, "ssb", "run", "--data", os.path.join(sfdir, "store"),
             "--threads", str(args.threads), "--reps", str(args.reps),
             "--queries", ",".join(ids), "--json", out_json, "--answers", out_answers])
    with open(out_json) as f:
        pm = json.load(f)
    with open(out_answers) as f:
        answers = json.load(f)
    res = {}
    for e in pm.get("queries", []):
        qid = str(e["id"]).lstrip("Qq")
        res[qid] = e
    missing = [q for q in ids if q not in res]
    if missing:
        die(f"{out_json} has no figures for {','.join(missing)}", 1)
    return pm, res, {str(k).lstrip("Qq"): v for k, v in answers.items()}


# --------------------------------------------------------------------------- metadata

def machine():
    cpu = None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    mem = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    return {"cpu_model": cpu, "nproc": os.cpu_count(), "mem_total_bytes": mem,
            "kernel": platform.release(), "os": platform.system(),
            "python": platform.python_version()}


def git(*a):
    try:
        r = subprocess.run(["git", "-C", ROOT, *a], capture_output=True, text=True)
        return r.stdout.strip() if r.returncode == 0 else None
    except OSError:
        return None


# --------------------------------------------------------------------------- main

def fmt_ms(v):
    return "-" if v is None else f"{v:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sf", type=sf_label, default="10", help="scale factor (default 10)")
    ap.add_argument("--threads", type=int, default=os.cpu_count(),
                    help="threads for both engines (default: nproc)")
    ap.add_argument("--reps", type=int, default=5, help="timed runs per query (default 5)")
    ap.add_argument("--work", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "target", "bench-work", "ssb-vs-duckdb"),
                    help="data directory; WORK/sfSF/{tbl,store,ssb.duckdb} (default target/bench-work/ssb-vs-duckdb in the repository)")
    ap.add_argument("--out", help="result JSON (default: results/ssb-vs-duckdb-sfSF.json in the repository)")
    ap.add_argument("--pmolap", default=os.path.join(ROOT, "target", "release", "pmolap"),
                    help="pmolap binary (default: target/release/pmolap in the repository)")
    ap.add_argument("--queries", default="all", help="all, or ids such as 1.1,2.3")
    ap.add_argument("--queries-sql", default=DEFAULT_QUERIES_SQL,
                    help="the queries (default ../shared/ssb-reference/queries.sql next to the repository)")
    ap.add_argument("--check-reference", metavar="PATH",
                    help="also check DuckDB's answers against this answers-sfX.json")
    ap.add_argument("--rebuild-store", action="store_true",
                    help="rebuild WORK/sfSF/store with this pmolap even when present "
                         "(after a change to the column-store format)")
    ap.add_argument("--duckdb-only", action="store_true",
                    help="run DuckDB only (no column store, no pmolap ssb run)")
    args = ap.parse_args()
    if args.threads < 1 or args.reps < 1:
        die("--threads and --reps must be >= 1")
    if args.out is None:
        args.out = os.path.join(ROOT, "results", f"ssb-vs-duckdb-sf{args.sf}.json")
    args.pmolap = os.path.abspath(args.pmolap)
    if not os.access(args.pmolap, os.X_OK):
        die(f"no pmolap binary at {args.pmolap} (cargo build --release -p pmolap)")

    try:
        import duckdb
    except ImportError:
        die("python module duckdb missing: pip install -r bench/ssb-vs-duckdb/requirements.txt "
            "(or use bench/ssb-vs-duckdb/run.sh)")

    queries = read_queries(args.queries_sql)
    ids = select_queries(queries, args.queries)
    reference = None
    if args.check_reference:
        with open(args.check_reference) as f:
            reference = {str(k).lstrip("Qq"): v for k, v in json.load(f).items()}
        # answers-sf0.01.json writes the NULL of a SUM over no rows (Q1.x, whose date
        # table has 25 rows at SF 0.01) as the string "None"; read that as NULL.
        reference = {q: [[None if v == "None" else v for v in row] for row in rows]
                     for q, rows in reference.items()}

    sfdir = os.path.join(os.path.abspath(args.work), f"sf{args.sf}")
    os.makedirs(sfdir, exist_ok=True)
    timings = generate(args, sfdir)
    duck_load = load_duckdb(duckdb, args, sfdir)
    if duck_load is not None:
        timings["duckdb_load_s"] = duck_load

    log(f"DuckDB {duckdb.__version__}, SF {args.sf}, {args.threads} threads, "
        f"1 warm-up + {args.reps} timed runs per query")
    duck, duck_answers = run_duckdb(duckdb, args, sfdir, queries, ids)

    failed = False
    ref_bad = []
    if reference is not None:
        ref_bad = compare("duckdb", duck_answers, "reference", reference, ids)
        if ref_bad:
            failed = True
        else:
            log(f"DuckDB's answers equal {args.check_reference} ({len(ids)} queries)")

    pm_doc, pm, pm_answers, pm_bad = None, {}, None, []
    if not args.duckdb_only:
        pm_doc, pm, pm_answers = run_pmolap(args, sfdir, ids)
        pm_bad = compare("duckdb", duck_answers, "pmolap", pm_answers, ids)
        if pm_bad:
            failed = True
        else:
            log(f"pmolap's answers equal DuckDB's ({len(ids)} queries)")

    # Table
    rows_out, speedups = [], []
    if args.duckdb_only:
        print(f"# SSB SF {args.sf}: DuckDB {duckdb.__version__} only, {args.threads} threads, "
              f"median of {args.reps} after 1 warm-up")
        print()
        print("| query | rows | DuckDB ms | answers |")
        print("|---|---:|---:|---|")
    else:
        print(f"# SSB SF {args.sf}: DuckDB {duckdb.__version__} vs pmolap, {args.threads} threads, "
              f"median of {args.reps} after 1 warm-up")
        print()
        print("| query | rows | DuckDB ms | pmolap ms | speedup (DuckDB / pmolap) | answers |")
        print("|---|---:|---:|---:|---:|---|")
    for q in ids:
        d = duck[q]["median_ms"]
        p = pm[q]["median_ms"] if q in pm else None
        sp = d / p if p else None
        if sp is not None:
            speedups.append(sp)
        if args.duckdb_only:
            ok = "-" if reference is None else ("MISMATCH (reference)" if q in ref_bad else "= reference")
            print(f"| Q{q} | {duck[q]['rows']} | {fmt_ms(d)} | {ok} |")
        else:
            ok = "MISMATCH" if q in pm_bad else "equal"
            if q in ref_bad:
                ok += ", DuckDB != reference"
            print(f"| Q{q} | {duck[q]['rows']} | {fmt_ms(d)} | {fmt_ms(p)} | "
                  f"{'-' if sp is None else f'{sp:.2f}x'} | {ok} |")
        rows_out.append({
            "id": q, "rows": duck[q]["rows"],
            "duckdb_median_ms": d, "duckdb_times_ms": duck[q]["times_ms"],
            "pmolap_median_ms": p, "pmolap_times_ms": pm[q].get("times_ms") if q in pm else None,
            "speedup": sp,
            "answers_equal": None if args.duckdb_only else q not in pm_bad,
            "duckdb_equals_reference": None if reference is None else q not in ref_bad,
        })
    geo = math.exp(sum(map(math.log, speedups)) / len(speedups)) if speedups else None
    duck_total = sum(duck[q]["median_ms"] for q in ids)
    pm_total = sum(pm[q]["median_ms"] for q in ids) if pm else None
    if args.duckdb_only:
        print(f"| total | | {fmt_ms(duck_total)} | |")
    else:
        print(f"| total | | {fmt_ms(duck_total)} | {fmt_ms(pm_total)} | "
              f"{'-' if not pm_total else f'{duck_total / pm_total:.2f}x'} | |")
        print()
        print(f"Geometric mean speedup (DuckDB / pmolap): {'-' if geo is None else f'{geo:.2f}x'}")
    print()
    m = machine()
    mem = f"{m['mem_total_bytes'] / 2**30:.0f} GiB" if m["mem_total_bytes"] else "?"
    print(f"Machine: {m['cpu_model']}, {m['nproc']} CPUs, {mem}, Linux {m['kernel']}; "
          f"pmolap {git('rev-parse', '--short', 'HEAD') or '?'}")

    dirty = git("status", "--porcelain", "--untracked-files=no")
    doc = {
        "config": {
            "sf": float(args.sf), "threads": args.threads, "reps": args.reps, "warmup_runs": 1,
            "queries": ids, "duckdb_version": duckdb.__version__,
            "pmolap_commit": git("rev-parse", "--short", "HEAD"),
            "pmolap_tree_dirty": None if dirty is None else bool(dirty),
            "pmolap_binary": args.pmolap, "work": sfdir,
            "queries_sql": os.path.abspath(args.queries_sql),
            "check_reference": os.path.abspath(args.check_reference) if args.check_reference else None,
            "duckdb_only": args.duckdb_only,
            "timestamp": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        },
        "machine": m,
        "setup_s": timings,
        "pmolap_config": pm_doc.get("config") if pm_doc else None,
        "queries": rows_out,
        "geomean_speedup": geo,
        "duckdb_total_ms": duck_total,
        "pmolap_total_ms": pm_total,
        "answers_equal": None if args.duckdb_only else not pm_bad,
        "duckdb_equals_reference": None if reference is None else not ref_bad,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    log(f"wrote {args.out}")
    if failed:
        log("answers differ: " + ", ".join(
            [f"Q{q} (DuckDB vs reference)" for q in ref_bad] + [f"Q{q} (DuckDB vs pmolap)" for q in pm_bad]))
        sys.exit(1)


if __name__ == "__main__":
    main()
