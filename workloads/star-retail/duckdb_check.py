#!/usr/bin/env python3
"""DuckDB's answers to the star-retail test queries (crates/cli/tests/load_cli.rs), on the
same files and the same schema.sql, compared with expected.py's: a second independent
check of the values the test embeds. Needs the pinned DuckDB of bench/ssb-vs-duckdb:
    source bench/ssb-vs-duckdb/venv.sh; bench_venv /tmp/duckvenv bench/ssb-vs-duckdb/requirements.txt
    /tmp/duckvenv/bin/python workloads/star-retail/duckdb_check.py
Prints DuckDB's answers and `same as expected.py`, or the first query that differs (exit 1)."""
import json, os, subprocess, sys

import duckdb

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, '..', '..')
# The same loading as the differential test's (bench/sql-vs-duckdb/diff.py).
sys.path.insert(0, os.path.join(root, 'bench', 'sql-vs-duckdb'))
from diff import retail_duckdb  # noqa: E402
con = retail_duckdb(duckdb)
src = open(os.path.join(root, 'crates/cli/tests/load_cli.rs')).read()
text = src.split('const QUERIES: &str = "')[1].split('";')[0]
got = {}
for i, stmt in enumerate([s for s in text.split(';') if s.strip()], 1):
    got[f'q{i}'] = [[v if v is None or isinstance(v, (int, float)) else str(v) for v in r]
                    for r in con.execute(stmt).fetchall()]
print(json.dumps(got))
want = json.loads(subprocess.check_output([sys.executable, os.path.join(here, 'expected.py')]))
for q in want:
    if got.get(q) != want[q]:
        print(f'{q}: DuckDB {got.get(q)}, expected.py {want[q]}')
        sys.exit(1)
print('same as expected.py')
