#!/usr/bin/env python3
"""pmolap vs DuckDB and Tableau Hyper: the 13 SSB queries and a seeded random sample.

On the same dbgen .tbl files (`pmolap ssb gen`): pmolap's column store (`ssb query
FILE.sql`, --tier dram), DuckDB on a checkpointed database file, DuckDB in memory right
after loading, Hyper on a .hyper file. Every engine runs the 13 reference queries and N
random queries of the SQL family (bench/sql-vs-duckdb's generator), one warm-up and R
timed runs each, median; every answer must equal DuckDB's (a difference fails the run).
Prints per-query times and speedups (peer ms / pmolap ms), geometric means, the slowest
query, issue 15's targets (met / not met), pmolap's effective bandwidth per query next to
`pmolap membench`'s sequential read bandwidth measured in the same run, and writes a
JSON document and the Markdown.

    bench/peers/run.sh --sf 1 --threads 2 --reps 5 --sample 50 --seed 1
"""

import argparse
import datetime
import json
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "sql-vs-duckdb"))
import peers  # noqa: E402
import diff  # noqa: E402  (the random-query generator)

base = peers.base
ENGINES = {"duckdb_file": peers.DuckFile, "duckdb_mem": peers.DuckMemory, "hyper": peers.Hyper}

# Issue 15's targets: (group, peer, kind, goal). kind "every": the smallest speedup over the
# peer is >= goal ("faster" goals, 1.0, need > 1); "geomean": the geometric mean >= goal;
# "bandwidth": the median query's effective bandwidth >= goal x membench's.
TARGETS = [
    ("ssb", "duckdb_file", "every", 3.0),
    ("ssb", "duckdb_file", "geomean", 4.0),
    ("ssb", "hyper", "every", 1.0),
    ("ssb", "hyper", "geomean", 2.5),
    ("sample", "duckdb_file", "every", 1.0),
    ("sample", "hyper", "every", 1.0),
    ("sample", "duckdb_file", "geomean", 2.5),
    ("ssb", None, "bandwidth", 0.40),
    ("sample", None, "bandwidth", 0.40),
]
GROUP_NAMES = {"ssb": "13 SSB queries", "sample": "random sample"}


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def membench(args, sfdir):
    """`pmolap membench`: sequential 4 KiB reads on DRAM by --threads threads."""
    out = os.path.join(sfdir, "peers-membench.json")
    cmd = [args.pmolap, "membench", "--operation", "read", "--access-size", "4K",
           "--threads", str(args.threads), "--tier", "dram", "--duration", str(args.membench_s),
           "--quiet", "--json", out]
    base.run_cmd(cmd, quiet=True)
    with open(out) as f:
        run = json.load(f)["runs"][0]
    s = run["summary"]
    return {"command": " ".join(["pmolap"] + cmd[1:-2]), "kernel": run["kernel"],
            "read_gib_s_median": s["read_gib_s_median"], "read_gib_s_min": s["bandwidth_gib_s_min"],
            "read_gib_s_max": s["bandwidth_gib_s_max"]}


def group_figures(ids, sqls, pm, peer_res, mem_gib_s):
    """Per query: pmolap's figures, each peer's and the speedups; the group's summary."""
    rows, ratios = [], {k: [] for k in peer_res}
    for q in ids:
        p = pm[q]
        eff = p["fact_bytes"] / 2**30 / max(p["median_ms"] / 1e3, 1e-9)
        row = {"id": q, "sql": sqls[q], "rows": p["rows"], "pmolap_ms": p["median_ms"],
               "pmolap_times_ms": p["times_ms"], "pmolap_plan_ms": p.get("plan_ms"),
               "fact_bytes": p["fact_bytes"], "effective_gib_s": eff,
               "share_of_membench": eff / mem_gib_s, "peers": {}}
        for k, res in peer_res.items():
            r = res[q]["median_ms"] / p["median_ms"]
            ratios[k].append((r, q))
            row["peers"][k] = {"median_ms": res[q]["median_ms"], "times_ms": res[q]["times_ms"],
                               "speedup": r}
        rows.append(row)
    # Queries answered without reading fact data (an empty join filter, MIN/MAX from the
    # dictionaries) have no bandwidth to speak of: the median is over the others.
    effs = sorted(r["effective_gib_s"] for r in rows if r["fact_bytes"] > 0)
    med_eff = statistics.median(effs) if effs else 0.0
    return {
        "queries": rows,
        "geomean_speedup": {k: geomean([r for r, _ in v]) for k, v in ratios.items()},
        "slowest": {k: {"id": min(v)[1], "speedup": min(v)[0]} for k, v in ratios.items()},
        "pmolap_faster": {k: sum(r > 1 for r, _ in v) for k, v in ratios.items()},
        "median_effective_gib_s": med_eff,
        "median_share_of_membench": med_eff / mem_gib_s,
    }


def check_targets(groups, mem_gib_s):
    out = []
    for g, peer, kind, goal in TARGETS:
        fig = groups.get(g)
        if kind == "bandwidth":
            value = fig["median_share_of_membench"] if fig else None
            what = f"{GROUP_NAMES[g]}: median query's effective bandwidth >= {goal:.0%} of membench ({mem_gib_s:.1f} GiB/s)"
            met = None if value is None else value >= goal
        else:
            name = "DuckDB (file)" if peer == "duckdb_file" else "Hyper"
            if fig is None or peer not in fig["geomean_speedup"]:
                value, met = None, None
            elif kind == "every":
                value = fig["slowest"][peer]["speedup"]
                met = value > 1.0 if goal == 1.0 else value >= goal
            else:
                value = fig["geomean_speedup"][peer]
                met = value >= goal
            what = (f"{GROUP_NAMES[g]}: every query " + ("faster than" if goal == 1.0 else f">= {goal:g}x")
                    + f" {name}" if kind == "every" else f"{GROUP_NAMES[g]}: geomean >= {goal:g}x {name}")
        out.append({"group": g, "peer": peer, "kind": kind, "goal": goal, "what": what,
                    "value": value, "met": met})
    return out


def markdown(doc):
    cfg, keys = doc["config"], doc["config"]["peers"]
    labels = {k: ENGINES[k].label for k in keys}
    out = [f"SF {cfg['sf']:g}, {cfg['threads']} threads, 1 warm-up + median of {cfg['reps']}; "
           f"pmolap {cfg['pmolap_commit']}{' (dirty tree)' if cfg['pmolap_tree_dirty'] else ''}; "
           f"membench read {doc['membench']['read_gib_s_median']:.2f} GiB/s "
           f"(`{doc['membench']['command']}`); load average (1/5/15 min) "
           f"{'/'.join(f'{x:.1f}' for x in doc['load_average']['before'])} before, "
           f"{'/'.join(f'{x:.1f}' for x in doc['load_average']['after'])} after", ""]
    for g, fig in doc["groups"].items():
        out.append(f"**{GROUP_NAMES[g]}** (ms; in brackets peer ms / pmolap ms)")
        out.append("")
        out.append("| query | rows | pmolap | " + " | ".join(labels[k] for k in keys)
                   + " | fact MiB | GiB/s | of membench |")
        out.append("|---|---:|---:|" + "---:|" * len(keys) + "---:|---:|---:|")
        for r in fig["queries"]:
            cells = [f"{r['peers'][k]['median_ms']:.2f} ({r['peers'][k]['speedup']:.2f}x)" for k in keys]
            mark = "" if r["id"] not in doc["mismatches"] else " MISMATCH"
            out.append(f"| {r['id']}{mark} | {r['rows']} | {r['pmolap_ms']:.2f} | " + " | ".join(cells)
                       + f" | {r['fact_bytes'] / 2**20:.1f} | {r['effective_gib_s']:.2f} | "
                       f"{r['share_of_membench']:.0%} |")
        out.append("| geomean | | | " + " | ".join(f"{fig['geomean_speedup'][k]:.2f}x" for k in keys)
                   + f" | | {fig['median_effective_gib_s']:.2f} (median) | "
                   f"{fig['median_share_of_membench']:.0%} |")
        out.append("")
        for k in keys:
            s = fig["slowest"][k]
            out.append(f"- vs {labels[k]}: pmolap faster on {fig['pmolap_faster'][k]} of "
                       f"{len(fig['queries'])}; slowest {s['id']} at {s['speedup']:.2f}x")
        out.append("")
    out.append("Targets of issue 15 (set for SF 10):")
    out.append("")
    for t in doc["targets"]:
        v = "-" if t["value"] is None else (f"{t['value']:.0%}" if t["kind"] == "bandwidth" else f"{t['value']:.2f}x")
        state = "not measured" if t["met"] is None else ("met" if t["met"] else "not met")
        out.append(f"- {t['what']}: {v} — **{state}**")
    out.append("")
    out.append(f"Answers: {'all equal to DuckDB (file)' if doc['answers_equal'] else 'MISMATCH: ' + ', '.join(doc['mismatches'])}")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sf", type=base.sf_label, default="1", help="scale factor (default 1)")
    ap.add_argument("--threads", type=int, default=2, help="threads for every engine (default 2)")
    ap.add_argument("--reps", type=int, default=5, help="timed runs per query (default 5)")
    ap.add_argument("--sample", type=int, default=50, help="random queries (default 50)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the random queries (default 1)")
    ap.add_argument("--peers", default="duckdb_file,duckdb_mem,hyper",
                    help="peers to run (duckdb_file is always run: it is the reference)")
    ap.add_argument("--membench-s", type=float, default=2.0, help="seconds per membench repetition")
    ap.add_argument("--work", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "target", "bench-work", "peers"), help="data directory: WORK/sfSF/")
    ap.add_argument("--out", help="result JSON (default results/peers-sfSF.json)")
    ap.add_argument("--md", help="also write the Markdown here (default: next to the JSON)")
    ap.add_argument("--pmolap", default=os.path.join(base.ROOT, "target", "release", "pmolap"))
    ap.add_argument("--queries-sql", default=base.DEFAULT_QUERIES_SQL)
    ap.add_argument("--rebuild-store", action="store_true")
    ap.add_argument("--quiet", action="store_true", help="no per-query progress lines")
    args = ap.parse_args()
    args.duckdb_only = False
    keys = ["duckdb_file"] + [k.strip() for k in args.peers.split(",") if k.strip() and k.strip() != "duckdb_file"]
    bad = [k for k in keys if k not in ENGINES]
    if bad or args.threads < 1 or args.reps < 1 or args.sample < 0:
        base.die(f"unknown peers {bad} (have {', '.join(ENGINES)})" if bad else "--threads, --reps >= 1, --sample >= 0")
    args.out = args.out or os.path.join(base.ROOT, "results", f"peers-sf{args.sf}.json")
    args.md = args.md or os.path.splitext(args.out)[0] + ".md"
    args.pmolap = os.path.abspath(args.pmolap)
    import duckdb
    hapi = None
    if "hyper" in keys:
        try:
            import tableauhyperapi as hapi
        except ImportError:
            base.die("python module tableauhyperapi missing: pip install -r bench/peers/requirements.txt")

    sfdir = os.path.join(os.path.abspath(args.work), f"sf{args.sf}")
    os.makedirs(sfdir, exist_ok=True)
    setup = base.generate(args, sfdir)
    ssb = base.read_queries(args.queries_sql)
    sqls = {f"Q{q}": s for q, s in ssb.items()}
    duck = peers.DuckFile(duckdb, args, sfdir)
    sample = diff.random_queries(duck.run, args.sample, args.seed)
    sqls.update({f"R{i}": s for i, s in enumerate(sample, 1)})
    ids = {"ssb": [f"Q{q}" for q in ssb], "sample": [f"R{i}" for i in range(1, len(sample) + 1)]}
    queries = [(q, sqls[q]) for g in ids.values() for q in g]

    load_before = os.getloadavg()
    mem = membench(args, sfdir)
    base.log(f"membench: {mem['read_gib_s_median']:.2f} GiB/s sequential read")
    pm, pm_answers, pm_doc = peers.run_pmolap(args, sfdir, queries)
    res, answers, notes = {}, {"pmolap": {q: peers.canonical(r) for q, r in pm_answers.items()}}, {}
    for k in keys:
        eng = duck if k == "duckdb_file" else ENGINES[k](hapi if k == "hyper" else duckdb, args, sfdir)
        if eng.load_s is not None:
            setup[f"{k}_load_s"] = eng.load_s
        notes[k] = eng.note
        res[k], ans = peers.measure(eng, queries, args.reps, verbose=not args.quiet)
        answers[k] = {q: peers.canonical(r) for q, r in ans.items()}
        eng.close()

    mismatches = []
    for name, ans in answers.items():
        if name == "duckdb_file":
            continue
        for q in sqls:
            d = base.first_difference(ans[q], answers["duckdb_file"][q])
            if d is not None:
                base.log(f"MISMATCH {q}: {name} vs DuckDB, row {d[0]}: {json.dumps(d[1])} vs "
                         f"{json.dumps(d[2])}\n  {sqls[q]}")
                mismatches.append(q)
    mismatches = sorted(set(mismatches), key=list(sqls).index)

    mem_gib = mem["read_gib_s_median"]
    groups = {g: group_figures(gi, sqls, pm, res, mem_gib) for g, gi in ids.items() if gi}
    dirty = base.git("status", "--porcelain", "--untracked-files=no")
    doc = {
        "kind": "peers",
        "config": {
            "sf": float(args.sf), "threads": args.threads, "reps": args.reps, "warmup_runs": 1,
            "sample": args.sample, "seed": args.seed, "peers": keys,
            "pmolap_commit": base.git("rev-parse", "--short", "HEAD"),
            "pmolap_tree_dirty": None if dirty is None else bool(dirty),
            "timestamp": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "what_is_timed": {
                "pmolap": "pmolap's own per-query median (`ssb query --json`: total_ms = planning incl. "
                          "dimension filters + probe + result rows, in process, no printing), --tier dram",
                "peers": "wall time around execute + fetch of every result row into Python "
                         "(parse, optimise/compile, run, result transfer); no printing",
            },
        },
        "machine": base.machine(),
        # Other work on the machine: 1/5/15-minute load averages when the timing began and ended.
        "load_average": {"before": load_before, "after": os.getloadavg()},
        "engines": notes,
        "pmolap_config": pm_doc.get("config"),
        "setup_s": setup,
        "membench": mem,
        "groups": groups,
        "targets": check_targets(groups, mem_gib),
        "answers_equal": not mismatches,
        "mismatches": mismatches,
    }
    md = markdown(doc)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    with open(args.md, "w") as f:
        f.write(md)
    print(md)
    base.log(f"wrote {args.out} and {args.md}")
    base.log(f"peers: {len(sqls)} queries (SF {args.sf}) through pmolap and {', '.join(keys)}: "
             + ("answers all equal" if not mismatches else f"{len(mismatches)} answers differ"))
    if mismatches:
        base.log(f"answers differ from DuckDB's: {', '.join(mismatches)}")
        sys.exit(1)


if __name__ == "__main__":
    main()
