#!/usr/bin/env python3
"""Differential test of pmolap's SQL front end and engine against DuckDB (issue 15).

Generates seeded random star-join queries of the family pmolap accepts (docs/engine.md):
random dimensions joined to lineorder (or none: fact-only queries), predicates drawn from
the data's own value domains (=, <>, <, <=, >, >=, BETWEEN, NOT BETWEEN, IN, NOT IN, OR of
equalities on one column), group-bys over dimension and fact attributes (or none: one
row), one to three aggregates (SUM, COUNT(*), COUNT(col), MIN, MAX, AVG of a fact column
or of `a op b`), ORDER BY every select column (by name, alias, position or the aggregate
written again), sometimes LIMIT. Runs all of them through `pmolap ssb query FILE.sql` and
each through DuckDB on the same generated data, and fails naming the first query whose
rows differ (and its first differing row). AVG is a double in both: compared with a
relative tolerance of 1e-9; everything else exactly.

    bench/sql-vs-duckdb/run.sh [--sf 0.01] [--queries 200] [--seed 1]

The data comes from `pmolap ssb gen` (loaded into both) under --work; DuckDB is the pinned
package of bench/ssb-vs-duckdb/requirements.txt.
"""
import argparse
import json
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ssb-vs-duckdb"))
import ssb_vs_duckdb as base  # noqa: E402  (the loader, the answer normalisation)

DIMS = {
    # dimension: (fact key, dim key, attributes usable in predicates and group-bys)
    "ddate": ("lo_orderdate", "d_datekey",
              ["d_year", "d_yearmonthnum", "d_yearmonth", "d_weeknuminyear", "d_sellingseason",
               "d_monthnuminyear", "d_daynuminweek"]),
    "customer": ("lo_custkey", "c_custkey", ["c_region", "c_nation", "c_city", "c_mktsegment"]),
    "supplier": ("lo_suppkey", "s_suppkey", ["s_region", "s_nation", "s_city"]),
    "part": ("lo_partkey", "p_partkey", ["p_mfgr", "p_category", "p_brand1", "p_size", "p_container"]),
}
FACT_PRED = ["lo_quantity", "lo_discount", "lo_tax", "lo_shipmode", "lo_orderpriority"]
FACT_GROUP = ["lo_shipmode", "lo_discount", "lo_tax"]
AGGS = ["lo_revenue", "lo_extendedprice * lo_discount", "lo_revenue - lo_supplycost",
        "lo_quantity", "lo_supplycost + lo_tax", "lo_discount"]
FUNCS = ["sum", "sum", "count", "min", "max", "avg"]


def lit(v):
    return "'" + v.replace("'", "''") + "'" if isinstance(v, str) else str(v)


def predicate(rng, col, values):
    vs = sorted(values)
    kind = rng.choice(["eq", "ne", "in", "not_in", "or", "between", "not_between",
                       "lt", "le", "gt", "ge"])
    a, b = sorted(rng.sample(vs, 2)) if len(vs) >= 2 else (vs[0], vs[0])
    if kind == "eq":
        return f"{col} = {lit(rng.choice(vs))}"
    if kind == "ne":
        return f"{col} <> {lit(rng.choice(vs))}"
    if kind == "in":
        return f"{col} in ({', '.join(lit(v) for v in rng.sample(vs, min(3, len(vs))))})"
    if kind == "not_in":
        return f"{col} not in ({', '.join(lit(v) for v in rng.sample(vs, min(2, len(vs))))})"
    if kind == "not_between":
        return f"{col} not between {lit(a)} and {lit(b)}"
    if kind == "or":
        return "(" + " or ".join(f"{col} = {lit(v)}" for v in rng.sample(vs, min(2, len(vs)))) + ")"
    if kind == "between":
        return f"{col} between {lit(a)} and {lit(b)}"
    op = {"lt": "<", "le": "<=", "gt": ">", "ge": ">="}[kind]
    return f"{col} {op} {lit(rng.choice(vs))}"


def random_query(rng, domains):
    dims = rng.sample(sorted(DIMS), rng.randint(0, 3))
    where, groups = [], []
    for d in dims:
        fk, key, attrs = DIMS[d]
        where.append(f"{fk} = {key}")
        for col in rng.sample(attrs, rng.randint(0, 2)):
            where.append(predicate(rng, col, domains[col]))
        if rng.random() < 0.6:
            groups.append(rng.choice(attrs))
    for col in rng.sample(FACT_PRED, rng.randint(0, 2)):
        where.append(predicate(rng, col, domains[col]))
    if rng.random() < 0.25:
        groups.append(rng.choice(FACT_GROUP))
    groups = list(dict.fromkeys(groups))
    aggs = []  # (text, alias or None)
    for i in range(rng.randint(1, 3)):
        f = rng.choice(FUNCS)
        arg = "*" if f == "count" and rng.random() < 0.5 else rng.choice(AGGS)
        text = f"{f}({arg})"
        if text not in [t for t, _ in aggs]:
            aggs.append((text, f"a{i}" if rng.random() < 0.7 else None))
    select = groups + [t + (f" as {a}" if a else "") for t, a in aggs]
    sql = f"select {', '.join(select)} from lineorder"
    sql += "".join(f", {d}" for d in dims)
    if where:
        sql += " where " + " and ".join(where)
    if groups:
        sql += " group by " + ", ".join(groups)
    # Every select column is a key (a total order, so LIMIT is deterministic), each named
    # by name, alias, position or (aggregates) the expression written again.
    keys = [(i + 1, g, None) for i, g in enumerate(groups)]
    keys += [(len(groups) + i + 1, t, a) for i, (t, a) in enumerate(aggs)]
    rng.shuffle(keys)
    order = []
    for pos, text, alias in keys:
        form = rng.random()
        name = str(pos) if form < 0.3 else (alias if alias and form < 0.7 else text)
        order.append(f"{name} {rng.choice(['asc', 'desc'])}")
    sql += " order by " + ", ".join(order)
    if groups and rng.random() < 0.3:
        sql += f" limit {rng.randint(1, 10)}"
    return sql


def random_queries(fetch, n, seed):
    """n seeded random queries; fetch(sql) -> rows answers the value-domain look-ups
    (`select distinct col from table`) on the loaded data."""
    tables = {c: t for t, (_, cols) in base.SCHEMA.items() for c, _ in cols}
    domains = {}
    for col in sorted(set(FACT_PRED) | {a for _, _, attrs in DIMS.values() for a in attrs}):
        domains[col] = [r[0] for r in fetch(f"select distinct {col} from {tables[col]}")]
    rng = random.Random(seed)
    return [random_query(rng, domains) for _ in range(n)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sf", default="0.01")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--work", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "target", "bench-work", "sql-vs-duckdb"))
    ap.add_argument("--pmolap", default="target/release/pmolap")
    args = ap.parse_args()
    args.duckdb_only = False
    args.rebuild_store = False
    import duckdb
    sfdir = os.path.join(args.work, f"sf{args.sf}")
    os.makedirs(sfdir, exist_ok=True)
    base.generate(args, sfdir)
    base.load_duckdb(duckdb, args, sfdir)
    con = duckdb.connect(os.path.join(sfdir, "ssb.duckdb"), read_only=True)
    con.execute(f"SET threads={args.threads}")
    queries = random_queries(lambda sql: con.execute(sql).fetchall(), args.queries, args.seed)
    sql_file = os.path.join(args.work, "queries.sql")
    with open(sql_file, "w") as f:
        for i, q in enumerate(queries, 1):
            f.write(f"-- Q{i}\n{q};\n")
    answers = os.path.join(args.work, "answers.json")
    cmd = [args.pmolap, "ssb", "query", sql_file, "--data", os.path.join(sfdir, "store"),
           "--reps", "1", "--quiet", "--threads", str(args.threads), "--answers", answers]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    got = json.load(open(answers))
    bad = 0
    for i, q in enumerate(queries, 1):
        want = base.plain_rows(con.execute(q).fetchall())
        d = base.first_difference(got[str(i)], want)
        if d is not None:
            bad += 1
            if bad <= 5:
                r, a, b = d
                print(f"MISMATCH Q{i}: row {r}: pmolap {json.dumps(a)} vs duckdb {json.dumps(b)}\n  {q}",
                      file=sys.stderr)
    drawn = {f: sum(f"{f}(" in q for q in queries) for f in ("sum", "count", "min", "max", "avg")}
    drawn["not in"] = sum(" not in (" in q for q in queries)
    drawn["not between"] = sum(" not between " in q for q in queries)
    drawn["fact-only"] = sum(" from lineorder, " not in q for q in queries)
    drawn["no group by"] = sum(" group by " not in q for q in queries)
    print("queries with: " + ", ".join(f"{k} {v}" for k, v in drawn.items()))
    print(f"sql-vs-duckdb: {len(queries) - bad} of {len(queries)} random queries equal "
          f"(SF {args.sf}, seed {args.seed}, duckdb {duckdb.__version__})")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
