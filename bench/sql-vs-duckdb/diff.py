#!/usr/bin/env python3
"""Differential test of pmolap's SQL front end and engine against DuckDB (issues 15, 35).

Generates seeded random star-join queries of the family pmolap accepts (docs/engine.md)
over two schemas — SSB (`pmolap ssb gen` data at --sf) and the checked-in star-retail
schema (workloads/star-retail: DECIMAL measures, DATE keys, loaded with `pmolap load`) —
and runs them all through `pmolap ssb query FILE.sql` and each through DuckDB on the same
data, failing on the first query whose rows differ (naming it and its first differing
row). The queries: random dimensions joined to the fact table (or none: fact-only
queries), as a comma list or JOIN … ON, tables aliased or not and columns qualified or
not; predicates drawn from the data's own value domains (=, <>, <, <=, >, >=, BETWEEN,
NOT BETWEEN, IN, NOT IN, OR of equalities on one column, decimals and DATE literals on
star-retail, and IS [NOT] NULL on star-retail's nullable columns) and ORs across several
columns of one dimension (mixed with AND, IN and parentheses); group-bys over dimension
and fact attributes (or none: one row; a nullable column's NULL group), GROUP BY
in any order, by name, position or a selected column's alias, sometimes of columns not
selected; one to three
aggregates (SUM, COUNT(*), COUNT(col), MIN, MAX, AVG of a fact column or of `a op b`:
`a * b` of decimals at the sum of their scales; `a ± b` only of one scale, as pmolap
refuses decimals of two scales added); ORDER BY every select column (by name,
alias, position or the aggregate written again), sometimes after a group-by column or an
aggregate that is not selected; sometimes LIMIT. DECIMAL answers are compared as the
exact decimal strings DuckDB prints, dates as YYYY-MM-DD, AVG (a double in both) with a
relative tolerance of 1e-9, everything else exactly.

    bench/sql-vs-duckdb/run.sh [--sf 0.01] [--queries 200] [--retail-queries 200] [--seed 1]

DuckDB is the pinned package of bench/ssb-vs-duckdb/requirements.txt. `random_queries`
(the SSB generator of the narrower, older family) is also bench/peers' sample.
"""
import argparse
import datetime
import decimal
import json
import os
import random
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, "..", "ssb-vs-duckdb"))
import ssb_vs_duckdb as base  # noqa: E402  (the SSB loader, the row comparison)

# A schema: the fact table, its dimensions — (fact key, dim key, attributes usable in
# predicates and group-bys) — the fact columns for predicates and group-bys, the
# aggregate arguments (`a op b` only where pmolap and DuckDB agree on the type: decimals
# of one scale added, any decimals multiplied), and arguments only MIN / MAX / COUNT take.
SSB = {
    "name": "ssb",
    "fact": "lineorder",
    "dims": {
        "ddate": ("lo_orderdate", "d_datekey",
                  ["d_year", "d_yearmonthnum", "d_yearmonth", "d_weeknuminyear",
                   "d_sellingseason", "d_monthnuminyear", "d_daynuminweek"]),
        "customer": ("lo_custkey", "c_custkey", ["c_region", "c_nation", "c_city", "c_mktsegment"]),
        "supplier": ("lo_suppkey", "s_suppkey", ["s_region", "s_nation", "s_city"]),
        "part": ("lo_partkey", "p_partkey",
                 ["p_mfgr", "p_category", "p_brand1", "p_size", "p_container"]),
    },
    "fact_pred": ["lo_quantity", "lo_discount", "lo_tax", "lo_shipmode", "lo_orderpriority"],
    "fact_group": ["lo_shipmode", "lo_discount", "lo_tax"],
    "aggs": ["lo_revenue", "lo_extendedprice * lo_discount", "lo_revenue - lo_supplycost",
             "lo_quantity", "lo_supplycost + lo_tax", "lo_discount"],
    "minmax": [],
}
RETAIL = {
    "name": "star-retail",
    "fact": "sales",
    "dims": {
        "day": ("sa_date", "d_date", ["d_date", "d_month", "d_year", "d_weekday"]),
        "store": ("sa_store", "st_id", ["st_name", "st_city", "st_region"]),
        "product": ("sa_product", "p_id",
                    ["p_name", "p_color", "p_brand", "p_category", "p_list_price"]),
    },
    "fact_pred": ["sa_quantity", "sa_price", "sa_discount", "sa_date", "sa_id", "sa_store"],
    "fact_group": ["sa_discount", "sa_date", "sa_quantity", "sa_store"],
    "aggs": ["sa_price", "sa_quantity", "sa_quantity * sa_price", "sa_price * sa_discount",
             "sa_price - sa_discount", "sa_price + sa_discount", "sa_id",
             "sa_quantity * sa_discount"],
    "minmax": ["sa_date"],
    # Columns with NULLs in the data (IS [NOT] NULL predicates; NULL groups).
    "nullable": ["sa_store", "sa_quantity", "sa_discount", "p_color"],
}
FUNCS = ["sum", "sum", "count", "min", "max", "avg"]


def lit(v):
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    if isinstance(v, datetime.date):
        return f"DATE '{v.isoformat()}'"
    return str(v)


def predicate(rng, col, values, nullable=False):
    """A random predicate on `col` (named as written) with literals from `values`; on a
    nullable column sometimes `IS [NOT] NULL` (the extra draw only there, so a schema
    without NULLs draws what it always drew)."""
    if nullable and rng.random() < 0.3:
        return f"{col} is {rng.choice(['', 'not '])}null"
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


def or_across(rng, cols, domains, name, nulls=()):
    """An OR across two or three columns of one dimension, an alternative sometimes an
    AND of two predicates (`(a = 1 or b in (…) or (c < 3 and a <> 2))`); `nulls`: the
    nullable columns (sometimes `IS [NOT] NULL`)."""
    picked = rng.sample(cols, min(len(cols), rng.randint(2, 3)))
    alts = [predicate(rng, name(c), domains[c], c in nulls) for c in picked]
    if rng.random() < 0.4:
        c1, c2 = rng.sample(cols, 2)
        alts.append(f"({predicate(rng, name(c1), domains[c1], c1 in nulls)} and "
                    f"{predicate(rng, name(c2), domains[c2], c2 in nulls)})")
    return "(" + " or ".join(alts) + ")"


def random_query(rng, domains, schema=SSB, wide=False, seen=None):
    """One random query of `schema`; `wide`: also the forms of issue 35 (ORs across a
    dimension's columns, table aliases and qualified names, JOIN … ON, GROUP BY in any
    order / by position / of more columns than selected, ORDER BY keys not selected).
    `seen` counts the forms drawn."""
    def mark(form):
        if seen is not None:
            seen[form] = seen.get(form, 0) + 1

    fact, dims_of = schema["fact"], schema["dims"]
    nulls = schema.get("nullable", [])
    dims = rng.sample(sorted(dims_of), rng.randint(0, min(3, len(dims_of))))
    alias = {}
    if wide and rng.random() < 0.5:
        alias = {t: f"t{i}" for i, t in enumerate([fact] + dims)}
    table_of = {c: d for d in dims for c in dims_of[d][2] + [dims_of[d][1]]}

    def name(col):
        t = table_of.get(col, fact)
        return f"{alias[t]}.{col}" if t in alias and rng.random() < 0.7 else col

    # `both`: joins and predicates in the order drawn (a comma list's WHERE); `where`:
    # the predicates alone (after JOIN … ON).
    both, where, groups, joins = [], [], [], []
    for d in dims:
        fk, key, attrs = dims_of[d]
        joins.append(f"{name(fk)} = {name(key)}")
        both.append(joins[-1])
        for col in rng.sample(attrs, rng.randint(0, 2)):
            where.append(predicate(rng, name(col), domains[col], col in nulls))
            both.append(where[-1])
        if wide and len(attrs) >= 2 and rng.random() < 0.3:
            where.append(or_across(rng, attrs, domains, name, nulls))
            both.append(where[-1])
            mark("or across columns")
        if rng.random() < 0.6:
            groups.append(rng.choice(attrs))
    for col in rng.sample(schema["fact_pred"], rng.randint(0, 2)):
        where.append(predicate(rng, name(col), domains[col], col in nulls))
        both.append(where[-1])
    if rng.random() < 0.25:
        groups.append(rng.choice(schema["fact_group"]))
    groups = list(dict.fromkeys(groups))
    if any(g in nulls for g in groups):
        mark("nullable group")
    # Group-by columns not selected (wide): grouped by, sometimes ordered by.
    hidden_groups = []
    if wide and len(groups) >= 2 and rng.random() < 0.25:
        hidden_groups = groups[-1:]
        groups = groups[:-1]
        mark("group by not selected")
    aggs = []  # (text, alias or None)
    for i in range(rng.randint(1, 3)):
        f = rng.choice(FUNCS)
        if f == "count" and rng.random() < 0.5:
            arg = "*"
        elif f in ("min", "max", "count") and schema["minmax"] and rng.random() < 0.3:
            arg = rng.choice(schema["minmax"])
        else:
            arg = rng.choice(schema["aggs"])
        text = f"{f}({arg})"
        if text not in [t for t, _ in aggs]:
            aggs.append((text, f"a{i}" if rng.random() < 0.7 else None))

    def agg_text(t):
        # Columns qualified or not, as `name` decides (the same aggregate either way).
        f, arg = t.split("(", 1)
        arg = arg[:-1]
        if arg == "*":
            return t
        return f + "(" + " ".join(name(w) if w[0].isalpha() else w for w in arg.split(" ")) + ")"

    # Aliases on selected group-by columns (wide): named by GROUP BY and ORDER BY too.
    galias = {}
    if wide:
        galias = {g: f"g{i}" for i, g in enumerate(groups) if rng.random() < 0.25}
        if galias:
            mark("group-by column alias")
    select = [name(g) + (f" as {galias[g]}" if g in galias else "") for g in groups]
    select += [agg_text(t) + (f" as {a}" if a else "") for t, a in aggs]
    from_items = [fact + (f" {alias[fact]}" if fact in alias else "")]
    from_items += [d + (f" {alias[d]}" if d in alias else "") for d in dims]
    if wide and dims and rng.random() < 0.3:
        sql = f"select {', '.join(select)} from {from_items[0]}"
        sql += "".join(f" join {t} on {j}" for t, j in zip(from_items[1:], joins))
        conds = where
        mark("join on")
    else:
        sql = f"select {', '.join(select)} from {', '.join(from_items)}"
        conds = both
    if not dims:
        mark("fact-only")
    if not groups and not hidden_groups:
        mark("no group by")
    if alias:
        mark("table aliases")
    if conds:
        sql += " where " + " and ".join(conds)
    all_groups = groups + hidden_groups
    if all_groups:
        order = list(range(len(all_groups)))
        if wide:
            rng.shuffle(order)
        keys = []
        for i in order:
            if wide and i < len(groups) and rng.random() < 0.2:
                keys.append(str(i + 1))  # the select-list position
            elif i < len(groups) and groups[i] in galias and rng.random() < 0.5:
                keys.append(galias[groups[i]])
            else:
                keys.append(name(all_groups[i]))
        sql += " group by " + ", ".join(keys)
    # Every select column is a key (a total order of the answer's rows, so LIMIT is
    # deterministic), each named by name, alias, position or (aggregates) the expression
    # written again; wide: first, sometimes, a key that is not selected.
    keys = [(i + 1, name(g), galias.get(g)) for i, g in enumerate(groups)]
    keys += [(len(groups) + i + 1, agg_text(t), a) for i, (t, a) in enumerate(aggs)]
    rng.shuffle(keys)
    order = []
    if wide and rng.random() < 0.3:
        extra = [name(g) for g in hidden_groups]
        extra.append(f"{rng.choice(['sum', 'max', 'min'])}({rng.choice(schema['aggs'])})")
        order.append(f"{rng.choice(extra)} {rng.choice(['asc', 'desc'])}")
        mark("order by not selected")
    for pos, text, al in keys:
        form = rng.random()
        key = str(pos) if form < 0.3 else (al if al and form < 0.7 else text)
        order.append(f"{key} {rng.choice(['asc', 'desc'])}")
    sql += " order by " + ", ".join(order)
    if (groups or wide) and rng.random() < 0.3:
        sql += f" limit {rng.randint(1, 10)}"
    return sql


def domains_of(fetch, schema):
    """Each predicate column's distinct values: `select distinct col from table`."""
    cols = {c: schema["fact"] for c in schema["fact_pred"]}
    for d, (_, _, attrs) in schema["dims"].items():
        cols.update({a: d for a in attrs})
    # NULLs are no literal a predicate can name (`= NULL` is never true).
    return {c: [r[0] for r in fetch(f"select distinct {c} from {t}") if r[0] is not None]
            for c, t in sorted(cols.items())}


def random_queries(fetch, n, seed, schema=SSB, wide=False, seen=None):
    """n seeded random queries; fetch(sql) -> rows answers the value-domain look-ups on
    the loaded data."""
    domains = domains_of(fetch, schema)
    rng = random.Random(seed)
    return [random_query(rng, domains, schema, wide, seen) for _ in range(n)]


def plain(v):
    """A DuckDB value as pmolap's answers write it: decimals as their exact digits at
    their scale, dates YYYY-MM-DD, integers and doubles as numbers."""
    if isinstance(v, decimal.Decimal):
        return format(v, "f")
    if isinstance(v, datetime.date):
        return v.isoformat()
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def retail_duckdb(duckdb):
    """An in-memory DuckDB of star-retail: workloads/star-retail's schema.sql and files."""
    src = os.path.join(ROOT, "workloads", "star-retail")
    con = duckdb.connect()
    con.execute(open(os.path.join(src, "schema.sql")).read())
    con.execute(f"COPY store FROM '{src}/store.csv' (HEADER, DELIMITER ',')")
    con.execute(f"COPY product FROM '{src}/product.tsv' (HEADER false, DELIMITER '\t')")
    # dbgen style: a trailing `|` on every line.
    rows = [line.rstrip("\n").rstrip("|").split("|") for line in open(os.path.join(src, "day.tbl"))]
    con.executemany("INSERT INTO day VALUES (?, ?, ?, ?)", rows)
    con.execute(f"COPY sales FROM '{src}/sales.csv' (HEADER, DELIMITER ',')")
    return con


def load_retail(duckdb, work, pmolap):
    """star-retail into pmolap (`pmolap load`, under work) and DuckDB (`retail_duckdb`);
    the DuckDB connection and pmolap's database."""
    src = os.path.join(ROOT, "workloads", "star-retail")
    db = os.path.join(work, "star-retail")
    shutil.rmtree(db, ignore_errors=True)
    subprocess.run([pmolap, "load", "--schema", os.path.join(src, "schema.sql"), "--from", src,
                    "--out", db], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return retail_duckdb(duckdb), db


def compare(args, label, con, data, queries, seen):
    """Runs `queries` in pmolap (one process) and DuckDB; the number that differ."""
    sql_file = os.path.join(args.work, f"queries-{label}.sql")
    with open(sql_file, "w") as f:
        for i, q in enumerate(queries, 1):
            f.write(f"-- Q{i}\n{q};\n")
    answers = os.path.join(args.work, f"answers-{label}.json")
    cmd = [args.pmolap, "ssb", "query", sql_file, "--data", data, "--reps", "1", "--quiet",
           "--threads", str(args.threads), "--answers", answers]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    got = json.load(open(answers))
    bad = 0
    for i, q in enumerate(queries, 1):
        want = [[plain(v) for v in row] for row in con.execute(q).fetchall()]
        d = base.first_difference(got[str(i)], want)
        if d is not None:
            bad += 1
            if bad <= 5:
                r, a, b = d
                print(f"MISMATCH {label} Q{i}: row {r}: pmolap {json.dumps(a)} vs duckdb "
                      f"{json.dumps(b)}\n  {q}", file=sys.stderr)
    drawn = {f: sum(f"{f}(" in q for q in queries) for f in ("sum", "count", "min", "max", "avg")}
    drawn["not in"] = sum(" not in (" in q for q in queries)
    drawn["not between"] = sum(" not between " in q for q in queries)
    drawn["DATE literal"] = sum("DATE '" in q for q in queries)
    drawn["limit"] = sum(" limit " in q for q in queries)
    drawn["is null"] = sum(" is null" in q for q in queries)
    drawn["is not null"] = sum(" is not null" in q for q in queries)
    drawn.update(seen)
    print(f"{label} queries with: " + ", ".join(f"{k} {v}" for k, v in drawn.items()))
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sf", default="0.01")
    ap.add_argument("--queries", type=int, default=200, help="random SSB queries")
    ap.add_argument("--retail-queries", type=int, default=200,
                    help="random star-retail queries (0: none)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--work", default=os.path.join(ROOT, "target", "bench-work", "sql-vs-duckdb"))
    ap.add_argument("--pmolap", default="target/release/pmolap")
    args = ap.parse_args()
    args.duckdb_only = False
    args.rebuild_store = False
    import duckdb
    bad, total, said = 0, 0, []
    if args.queries > 0:
        sfdir = os.path.join(args.work, f"sf{args.sf}")
        os.makedirs(sfdir, exist_ok=True)
        base.generate(args, sfdir)
        base.load_duckdb(duckdb, args, sfdir)
        con = duckdb.connect(os.path.join(sfdir, "ssb.duckdb"), read_only=True)
        con.execute(f"SET threads={args.threads}")
        seen = {}
        queries = random_queries(lambda sql: con.execute(sql).fetchall(), args.queries,
                                 args.seed, SSB, wide=True, seen=seen)
        bad += compare(args, "ssb", con, os.path.join(sfdir, "store"), queries, seen)
        total += len(queries)
        said.append(f"SSB SF {args.sf}")
    if args.retail_queries > 0:
        os.makedirs(args.work, exist_ok=True)
        con, db = load_retail(duckdb, args.work, args.pmolap)
        seen = {}
        queries = random_queries(lambda sql: con.execute(sql).fetchall(), args.retail_queries,
                                 args.seed, RETAIL, wide=True, seen=seen)
        bad += compare(args, "star-retail", con, db, queries, seen)
        total += len(queries)
        said.append("star-retail")
    print(f"sql-vs-duckdb: {total - bad} of {total} random queries equal "
          f"({' and '.join(said)}, seed {args.seed}, duckdb {duckdb.__version__})")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
