#!/usr/bin/env python3
"""pmolap vs DuckDB and Tableau Hyper on a second retail star (issue 35's Performance).

The star: TPC-H data from the `tpchgen` crate (crates/load/examples/tpch_star.rs; SF 0.5
is ~3 M fact rows, SF 5 ~30 M) under schema.sql, written once as CSV and converted once
to Parquet by DuckDB (`COPY … TO … (FORMAT parquet)`: snappy, DuckDB's row groups).

- Load, alternated: each round loads the same files into pmolap (`pmolap load`, from CSV
  and from Parquet, into a fresh database directory), DuckDB (schema.sql with its keys,
  `COPY … FROM` CSV and Parquet into a fresh file, checkpointed) and Hyper (`external()`
  of the CSV and Parquet files into a fresh .hyper file); rows/s over all tables.
- Queries (queries.sql), alternated: each round runs every query once in one `pmolap ssb
  query` process (--tier dram, --reps 1: its own warm-up, then its in-process figure),
  then once in DuckDB (the checkpointed file, read-only) and once in Hyper (the .hyper
  file): the wall time around execute + fetching every row. One untimed warm-up round
  first. Every pmolap answer (the database loaded from CSV, and the one from Parquet) and
  every Hyper answer must equal DuckDB's; a query pmolap refuses is listed with its
  message and left out.
- Figures: median (min–max) of the rounds; pmolap against each peer the ratio of medians
  with pmolap_results::stats' one rule: "faster" only when the two min–max ranges do not
  overlap, else "within noise".

    bench/retail-star/run.sh --sf 0.5 --threads 2 --reps 5 --load-reps 3
"""

import argparse
import decimal
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "peers"))
import peers  # noqa: E402  (DuckDB threads, Hyper's start and AVG rewrite)

base = peers.base
SCHEMA = os.path.join(HERE, "schema.sql")
QUERIES = os.path.join(HERE, "queries.sql")
MARKER = ".complete"


def tables():
    """[(table, [(column, SQL type)])] of schema.sql, dimensions first (its order)."""
    out = []
    text = open(SCHEMA).read()
    for m in re.finditer(r"CREATE TABLE (\w+) \((.*?)\n\);", text, re.S):
        cols = []
        for line in m.group(2).splitlines():
            c = re.match(r"\s+(\w+)\s+([A-Z]+(?:\(\d+(?:,\d+)?\))?)", line)
            if c and c.group(1) not in ("PRIMARY", "FOREIGN"):
                cols.append((c.group(1), c.group(2)))
        out.append((m.group(1), cols))
    return out


def read_queries():
    """[(id, sql)] of queries.sql: each `-- Rn` line names the statement after it."""
    out, cur, lines = [], None, []
    for line in open(QUERIES):
        m = re.match(r"^--\s*(R\d+)\s*$", line)
        if m:
            if cur:
                out.append((cur, "\n".join(lines).strip().rstrip(";")))
            cur, lines = m.group(1), []
        elif cur and not line.startswith("--"):
            lines.append(line.rstrip("\n"))
    if cur:
        out.append((cur, "\n".join(lines).strip().rstrip(";")))
    return out


# --------------------------------------------------------------------------- data

def make_data(args, sfdir):
    """WORK/sfSF/csv (tpch_star) and WORK/sfSF/parquet (DuckDB's conversion), once."""
    csv_dir, pq_dir = os.path.join(sfdir, "csv"), os.path.join(sfdir, "parquet")
    if not os.path.exists(os.path.join(csv_dir, MARKER)):
        tmp = csv_dir + ".tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        base.run_cmd([args.gen, "--sf", args.sf, "--out", tmp], quiet=True)
        open(os.path.join(tmp, MARKER), "w").close()
        shutil.rmtree(csv_dir, ignore_errors=True)
        os.rename(tmp, csv_dir)
    if not os.path.exists(os.path.join(pq_dir, MARKER)):
        import duckdb
        tmp = pq_dir + ".tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        con = duckdb.connect(":memory:")
        con.execute(open(SCHEMA).read())
        for t, _ in tables():
            con.execute(f"COPY {t} FROM '{os.path.join(csv_dir, t + '.csv')}' (HEADER)")
            con.execute(f"COPY {t} TO '{os.path.join(tmp, t + '.parquet')}' (FORMAT parquet)")
        con.close()
        open(os.path.join(tmp, MARKER), "w").close()
        shutil.rmtree(pq_dir, ignore_errors=True)
        os.rename(tmp, pq_dir)
    rows = {}
    for t, _ in tables():
        with open(os.path.join(csv_dir, t + ".csv"), "rb") as f:
            rows[t] = sum(1 for _ in f) - 1
    return csv_dir, pq_dir, rows


# --------------------------------------------------------------------------- loads

def remove(path):
    if os.path.isdir(path):
        shutil.rmtree(path)
    elif os.path.exists(path):
        os.remove(path)


def load_pmolap(args, src, out):
    remove(out)
    t0 = time.perf_counter()
    base.run_cmd([args.pmolap, "load", "--quiet", "--schema", SCHEMA, "--from", src, "--out", out],
                 quiet=True)
    return time.perf_counter() - t0


def load_duckdb(duckdb, args, src, fmt, path):
    for p in (path, path + ".wal"):
        remove(p)
    t0 = time.perf_counter()
    con = duckdb.connect(path)
    peers.set_duckdb_threads(con, args.threads)
    con.execute(open(SCHEMA).read())
    for t, _ in tables():
        f = os.path.join(src, f"{t}.{fmt}")
        con.execute(f"COPY {t} FROM '{f}' " + ("(HEADER)" if fmt == "csv" else "(FORMAT parquet)"))
    con.execute("CHECKPOINT")
    con.close()
    return time.perf_counter() - t0


def hyper_type(t):
    return "TEXT" if t.startswith(("CHAR", "VARCHAR")) else t.replace("DECIMAL", "NUMERIC")


def load_hyper(hapi, proc, src, fmt, path):
    remove(path)
    t0 = time.perf_counter()
    with hapi.Connection(proc.endpoint, path, hapi.CreateMode.CREATE) as con:
        for t, cols in tables():
            con.execute_command(f"CREATE TABLE {t} (" + ", ".join(
                f"{c} {hyper_type(ty)} NOT NULL" for c, ty in cols) + ")")
            f = os.path.join(src, f"{t}.{fmt}").replace("'", "''")
            if fmt == "csv":
                desc = ", ".join(f"{c} {hyper_type(ty)}" for c, ty in cols)
                ext = (f"external('{f}', COLUMNS => DESCRIPTOR({desc}), FORMAT => 'csv', "
                       f"DELIMITER => ',', HEADER => true)")
            else:
                ext = f"external('{f}', FORMAT => 'parquet')"
            con.execute_command(f"INSERT INTO {t} SELECT {', '.join(c for c, _ in cols)} FROM {ext}")
    return time.perf_counter() - t0


# --------------------------------------------------------------------------- answers

NUMBER = re.compile(r"-?\d+(\.\d+)?")


def norm(v):
    """A value as the engines agree on it: exact numbers as Decimal (pmolap writes decimals
    as exact strings, DuckDB and Hyper return Decimal), dates as YYYY-MM-DD, AVG floats."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, float):
        return v
    if isinstance(v, (int, decimal.Decimal)):
        return decimal.Decimal(v)
    if isinstance(v, str):
        return decimal.Decimal(v) if NUMBER.fullmatch(v) else v
    if hasattr(v, "to_date"):  # tableauhyperapi.Date
        v = v.to_date()
    return v.isoformat() if hasattr(v, "isoformat") else str(v)


def same(a, b):
    if isinstance(a, float) or isinstance(b, float):
        try:
            return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-9)
        except (TypeError, ValueError):
            return False
    return a == b


def differ(rows, ref):
    """None when equal, else the first differing row of each as text."""
    rows = [[norm(v) for v in r] for r in rows]
    ref = [[norm(v) for v in r] for r in ref]
    for i in range(max(len(rows), len(ref))):
        a = rows[i] if i < len(rows) else None
        b = ref[i] if i < len(ref) else None
        if a is None or b is None or len(a) != len(b) or not all(map(same, a, b)):
            return f"{len(rows)} rows vs {len(ref)}; row {i}: {a} vs {b}"
    return None


# --------------------------------------------------------------------------- queries

def accepted(args, db, queries):
    """The queries pmolap runs, and {id: its one-line refusal} of the others."""
    ok, refused = [], {}
    for qid, sql in queries:
        r = subprocess.run([args.pmolap, "sql", "--data", db, "--format", "json", sql],
                           capture_output=True, text=True)
        if r.returncode == 0:
            ok.append((qid, sql))
        else:
            refused[qid] = (r.stderr.strip().splitlines() or ["(no message)"])[-1]
            base.log(f"  pmolap refuses {qid}: {refused[qid]}")
    return ok, refused


def pmolap_round(args, db, queries, work):
    """One `pmolap ssb query` process over all queries: ({id: ms}, {id: rows})."""
    sql_file = os.path.join(work, "queries.sql")
    with open(sql_file, "w") as f:
        for qid, sql in queries:
            f.write(f"-- query {qid}\n{sql};\n")
    out_json, out_answers = os.path.join(work, "pmolap.json"), os.path.join(work, "answers.json")
    for p in (out_json, out_answers):
        remove(p)
    base.run_cmd([args.pmolap, "ssb", "query", sql_file, "--data", db, "--tier", "dram",
                  "--threads", str(args.threads), "--reps", "1", "--quiet",
                  "--json", out_json, "--answers", out_answers], quiet=True)
    doc, answers = json.load(open(out_json)), json.load(open(out_answers))
    by_num = {str(e["id"]): e for e in doc.get("queries", [])}
    ms, rows = {}, {}
    for i, (qid, _) in enumerate(queries, 1):
        if str(i) not in by_num or str(i) not in answers:
            base.die(f"{out_json}: no figures or answer for statement {i} ({qid})", 1)
        ms[qid], rows[qid] = by_num[str(i)]["median_ms"], answers[str(i)]
    return ms, rows


def peer_round(run, queries):
    ms, rows = {}, {}
    for qid, sql in queries:
        t0 = time.perf_counter()
        rows[qid] = run(sql)
        ms[qid] = (time.perf_counter() - t0) * 1e3
    return ms, rows


# --------------------------------------------------------------------------- figures

def spread(v):
    """pmolap_results::stats::Spread: median, min, max, n."""
    return {"median": statistics.median(v), "min": min(v), "max": max(v), "n": len(v)}


def ratio(a, b):
    """pmolap_results::stats::Ratio::of: median(a)/median(b) and the one rule's verdict."""
    if a["n"] < 2 or b["n"] < 2:
        verdict = "unknown"
    elif a["max"] < b["min"] or b["max"] < a["min"]:
        verdict = "outside"
    else:
        verdict = "within_noise"
    return {"ratio": a["median"] / b["median"], "verdict": verdict}


def show(s, unit="", digits=2):
    u = f" {unit}" if unit else ""
    return f"{s['median']:.{digits}f}{u} ({s['min']:.{digits}f}–{s['max']:.{digits}f})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sf", default="0.5", help="TPC-H scale factor (0.5: ~3 M fact rows; 5: ~30 M)")
    ap.add_argument("--threads", type=int, default=2, help="threads for every engine (default 2)")
    ap.add_argument("--reps", type=int, default=5, help="timed query rounds (default 5)")
    ap.add_argument("--load-reps", type=int, default=3, help="timed load rounds (default 3)")
    ap.add_argument("--no-hyper", action="store_true", help="DuckDB only")
    ap.add_argument("--work", required=True, help="data, databases: WORK/sfSF/")
    ap.add_argument("--pmolap", required=True)
    ap.add_argument("--gen", required=True, help="the tpch_star example's binary")
    ap.add_argument("--out", help="result JSON (default WORK/retail-star-sfSF.json)")
    args = ap.parse_args()
    args.sf = base.sf_label(args.sf)
    if args.reps < 1 or args.load_reps < 1 or args.threads < 1:
        base.die("--reps, --load-reps and --threads must be >= 1")
    import duckdb
    hapi = None
    if not args.no_hyper:
        import tableauhyperapi as hapi
    sfdir = os.path.join(os.path.abspath(args.work), f"sf{args.sf}")
    os.makedirs(sfdir, exist_ok=True)
    args.out = args.out or os.path.join(sfdir, f"retail-star-sf{args.sf}.json")

    base.log(f"data: TPC-H SF {args.sf} as the retail star in {sfdir}")
    csv_dir, pq_dir, rows = make_data(args, sfdir)
    total = sum(rows.values())
    base.log(f"  {total:,} rows ({rows['sales']:,} fact rows)")

    proc = None
    if hapi:
        cpus = sorted(os.sched_getaffinity(0))
        proc, hyper_cpus = peers.start_hyperd(hapi, args.threads)
    db = {("pmolap", f): os.path.join(sfdir, f"pmolap-{f}") for f in ("csv", "parquet")}
    db.update({("duckdb", f): os.path.join(sfdir, f"{f}.duckdb") for f in ("csv", "parquet")})
    db.update({("hyper", f): os.path.join(sfdir, f"{f}.hyper") for f in ("csv", "parquet")})
    loads = {k: [] for k in db if hapi or k[0] != "hyper"}
    src = {"csv": csv_dir, "parquet": pq_dir}
    for r in range(args.load_reps):
        base.log(f"load round {r + 1} of {args.load_reps}")
        for (tool, fmt) in loads:
            if tool == "pmolap":
                s = load_pmolap(args, src[fmt], db[tool, fmt])
            elif tool == "duckdb":
                s = load_duckdb(duckdb, args, src[fmt], fmt, db[tool, fmt])
            else:
                s = load_hyper(hapi, proc, src[fmt], fmt, db[tool, fmt])
            loads[tool, fmt].append(s)
            base.log(f"  {tool} from {fmt}: {s:.3f} s")

    queries = read_queries()
    base.log(f"queries: {len(queries)} of {QUERIES}")
    ok, refused = accepted(args, db["pmolap", "csv"], queries)
    duck = duckdb.connect(db["duckdb", "csv"], read_only=True)
    peers.set_duckdb_threads(duck, args.threads)
    runs = {"duckdb": lambda sql: duck.execute(sql).fetchall()}
    hcon = None
    if hapi:
        hcon = hapi.Connection(proc.endpoint, db["hyper", "csv"], hapi.CreateMode.NONE)
        runs["hyper"] = lambda sql: hcon.execute_list_query(peers.as_hyper_sql(sql))
    work = os.path.join(sfdir, "run")
    os.makedirs(work, exist_ok=True)

    # Answers: the warm-up round, checked against DuckDB's (and pmolap from Parquet too).
    mismatches = []
    _, ref = peer_round(runs["duckdb"], queries)
    answers = {"pmolap": pmolap_round(args, db["pmolap", "csv"], ok, work)[1],
               "pmolap (Parquet load)": pmolap_round(args, db["pmolap", "parquet"], ok, work)[1]}
    if hapi:
        answers["hyper"] = peer_round(runs["hyper"], queries)[1]
    for who, got in answers.items():
        for qid in got:
            d = differ(got[qid], ref[qid])
            if d:
                mismatches.append(f"{qid} {who}: {d}")
                base.log(f"MISMATCH {qid}: {who} vs DuckDB: {d}")

    times = {k: {q: [] for q, _ in ok} for k in ["pmolap", *runs]}
    for r in range(args.reps):
        base.log(f"query round {r + 1} of {args.reps}")
        ms, _ = pmolap_round(args, db["pmolap", "csv"], ok, work)
        for q in ms:
            times["pmolap"][q].append(ms[q])
        for k, run in runs.items():
            ms, _ = peer_round(run, ok)
            for q in ms:
                times[k][q].append(ms[q])
    duck.close()
    if hcon:
        hcon.close()
    if proc:
        proc.close()

    # ----------------------------------------------------------------- report
    peer_names = [k for k in runs]
    lines = [f"## Retail star (TPC-H SF {args.sf} as a star: {rows['sales']:,} fact rows, "
             f"{total:,} rows in all), {args.threads} threads", ""]
    lines += ["### Load (alternated rounds: median (min–max) of %d)" % args.load_reps, "",
              "| tool | from | seconds | rows/s |", "|---|---|---|---|"]
    load_fig = {}
    for (tool, fmt), v in loads.items():
        s = spread(v)
        load_fig[f"{tool}/{fmt}"] = {**s, "times_s": v, "rows_per_s": total / s["median"]}
        lines.append(f"| {tool} | {fmt} | {show(s, 's', 3)} | {total / s['median']:,.0f} |")
    lines.append("")
    for fmt in ("csv", "parquet"):
        p, d = spread(loads["pmolap", fmt]), spread(loads["duckdb", fmt])
        rt = ratio(d, p)  # rows/s ratio pmolap/duckdb = duckdb s / pmolap s
        lines.append(f"pmolap rows/s over DuckDB's from {fmt}: {rt['ratio']:.2f}"
                     f" ({rt['verdict'].replace('_', ' ')}; issue 35 asks ≥ 1/1.5 = 0.67)")
    lines += ["", "### Queries (alternated rounds: median (min–max) ms of %d; speedup = peer / pmolap)"
              % args.reps, ""]
    head = "| query | pmolap |" + "".join(f" {k} | ×{k} |" for k in peer_names)
    lines += [head, "|---" * (2 + 2 * len(peer_names)) + "|"]
    qfig, faster = {}, {k: 0 for k in peer_names}
    for q, _ in ok:
        pm = spread(times["pmolap"][q])
        row = f"| {q} | {show(pm)} |"
        qfig[q] = {"pmolap": {**pm, "times_ms": times["pmolap"][q]}}
        for k in peer_names:
            s = spread(times[k][q])
            rt = ratio(s, pm)
            qfig[q][k] = {**s, "times_ms": times[k][q], "speedup": rt["ratio"], "verdict": rt["verdict"]}
            won = rt["ratio"] > 1 and rt["verdict"] == "outside"
            faster[k] += won
            note = "" if rt["verdict"] == "outside" else " (within noise)" if rt["verdict"] == "within_noise" else " (1 rep)"
            row += f" {show(s)} | {rt['ratio']:.2f}{note} |"
        lines.append(row)
    lines.append("")
    for k in peer_names:
        lines.append(f"pmolap faster than {k} (outside noise) on {faster[k]} of {len(ok)} queries")
    for q, m in refused.items():
        lines.append(f"refused by pmolap: {q}: {m}")
    lines.append(f"answers: {'all equal DuckDB' if not mismatches else str(len(mismatches)) + ' MISMATCHES'}"
                 f" (pmolap from CSV and from Parquet{', Hyper' if hapi else ''})")
    md = "\n".join(lines)
    print(md)
    doc = {
        "config": {"sf": float(args.sf), "threads": args.threads, "reps": args.reps,
                   "load_reps": args.load_reps, "fact_rows": rows["sales"], "rows": rows,
                   "what_is_timed": {
                       "load": "process / connection wall time of loading every table into a fresh database",
                       "pmolap": "pmolap ssb query --tier dram --reps 1: its in-process total_ms after its own warm-up",
                       "peers": "wall time around execute + fetching every row, warm"}},
        "machine": base.machine(), "git": base.git("rev-parse", "HEAD"),
        "engines": {"duckdb": duckdb.__version__,
                    **({"hyper": f"{hapi.__version__}, hyperd on {hyper_cpus} of {len(cpus)} CPUs"} if hapi else {})},
        "load": load_fig, "queries": qfig, "refused": refused, "mismatches": mismatches,
        "markdown": md,
    }
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1, default=str)
    base.log(f"wrote {args.out}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
