#!/usr/bin/env python3
"""Independent answers of the retail star's test queries (crates/cli/tests/load_cli.rs),
computed from the CSV/TSV/TBL files with Python's exact `decimal` arithmetic — no pmolap
code. Run: python3 workloads/star-retail/expected.py; the test embeds what it prints.
NULLs as SQL has them: an empty field is NULL (None); a NULL store key joins no store; a
comparison with NULL is not true; SUM/MIN/MAX/AVG/COUNT(col) skip NULLs, COUNT(*) does not;
an aggregate of only NULLs is NULL (null in the JSON); a NULL group sorts last."""
import csv, json, os
from collections import defaultdict
from decimal import Decimal as D

here = os.path.dirname(os.path.abspath(__file__))
def rows(name, delim, header, trailing=False):
    with open(os.path.join(here, name), newline='') as f:
        r = list(csv.reader(f, delimiter=delim))
    r = r[1:] if header else r
    # dbgen's trailing delimiter (day.tbl) ends every line with an empty field.
    return [x[:-1] if trailing else x for x in r if x]

store = {int(r[0]): r for r in rows('store.csv', ',', True)}
product = {int(r[0]): r for r in rows('product.tsv', '\t', False)}
day = {r[0]: r for r in rows('day.tbl', '|', False, True)}
def dec(f):  # an empty field is NULL
    return D(f) if f != '' else None
sales = [dict(id=int(r[0]), date=r[1], store=store[int(r[2])] if r[2] else None,
              store_key=int(r[2]) if r[2] else None, product=product[int(r[3])],
              day=day[r[1]], qty=dec(r[4]), price=D(r[5]), disc=dec(r[6]))
         for r in rows('sales.csv', ',', True)]

def fix(x, scale):  # a decimal written with exactly `scale` decimals; NULL stays NULL
    return None if x is None else str(x.quantize(D(1).scaleb(-scale)))

def mul(a, b):
    return None if a is None or b is None else a * b

def total(xs):  # SQL's SUM: NULLs skipped, NULL when nothing is left
    xs = [x for x in xs if x is not None]
    return sum(xs, D(0)) if xs else None

def nulls_last(k):
    return (k is None, k if k is not None else '')

out = {}
g = defaultdict(lambda: [[], 0])
for s in sales:
    if s['store'] and s['date'] >= '2024-01-01':
        a = g[s['store'][3]]; a[0].append(mul(s['qty'], s['price'])); a[1] += 1
out['q1'] = [[k, fix(total(v[0]), 3), v[1]] for k, v in sorted(g.items())]

g = defaultdict(lambda: [D(0), None, None])
for s in sales:
    p = s['product']
    if p[4] == 'Home':
        a = g[(p[4], p[3])]; a[0] += s['price']
        a[1] = s['price'] if a[1] is None else min(a[1], s['price'])
        a[2] = s['date'] if a[2] is None else max(a[2], s['date'])
out['q2'] = [[k[0], k[1], fix(v[0], 2), fix(v[1], 2), v[2]] for k, v in sorted(g.items(), key=lambda kv: kv[0][1])]

def avg(xs):
    xs = [x for x in xs if x is not None]
    return float(sum(xs, D(0)) / len(xs)) if xs else None

g = defaultdict(lambda: [[], []])
for s in sales:
    if s['day'][3] in ('Saturday', 'Sunday'):
        a = g[s['day'][1]]; a[0].append(s['qty']); a[1].append(s['disc'])
out['q3'] = [[k, fix(total(v[0]), 1), avg(v[1])] for k, v in sorted(g.items())]

n, tot = 0, []
for s in sales:
    if (s['store'] and s['store'][2] == 'Chicago' and s['date'] < '2024-01-01'
            and s['qty'] is not None and s['qty'] >= D('5.5')):
        n += 1; tot.append(mul(s['price'], s['disc']))
out['q4'] = [[n, fix(total(tot), 4)]]

g = defaultdict(list)
for s in sales:
    color = s['product'][2] or None  # an empty field: NULL, and NULL <> 'red' is not true
    if s['store'] and s['store'][3] == 'EU' and s['price'] <= D('50') and color is not None and color != 'red':
        g[s['store'][2]].append(s['qty'])
out['q5'] = [[k, fix(total(v), 1)] for k, v in sorted(g.items())]
g = defaultdict(int)
for s in sales:
    if s['product'][4] == 'Audio':
        g[D(s['product'][5])] += 1
out['q6'] = [[fix(k, 2), v] for k, v in sorted(g.items())]

g = defaultdict(list)
for s in sales:
    if '2024-02-10' <= s['date'] <= '2024-02-17':
        g[s['date']].append(s['disc'])
out['q7'] = [[k, fix(total(v), 2)] for k, v in sorted(g.items())]

# q8: no join — the rows with a NULL store key count; COUNT(col) skips NULLs.
out['q8'] = [[len(sales), sum(s['store_key'] is not None for s in sales),
              sum(s['disc'] is not None for s in sales), fix(total(s['disc'] for s in sales), 2),
              avg(s['qty'] for s in sales)]]
# q9: every sale joined to its store: the NULL keys drop out.
g = defaultdict(int)
for s in sales:
    if s['store']:
        g[s['store'][3]] += 1
out['q9'] = [[k, v] for k, v in sorted(g.items())]
# q10: IS NULL on a fact key.
sel = [s for s in sales if s['store_key'] is None]
out['q10'] = [[len(sel), fix(total(s['price'] for s in sel), 2)]]
# q11: GROUP BY a nullable measure: a NULL group, last.
g = defaultdict(int)
for s in sales:
    g[s['disc']] += 1
out['q11'] = [[fix(k, 2), v] for k, v in sorted(g.items(), key=lambda kv: nulls_last(kv[0]))]
# q12: aggregates over only NULLs are NULL; COUNT(col) of them 0.
sel = [s for s in sales if s['disc'] is None and s['qty'] is None]
out['q12'] = [[len(sel), fix(total(s['disc'] for s in sel), 2),
               fix(min((s['qty'] for s in sel if s['qty'] is not None), default=None), 1),
               sum(s['qty'] is not None for s in sel)]]
# q13: GROUP BY a nullable dimension attribute (a NULL group, last), IS NOT NULL on a
# measure, and a comparison that a NULL never passes.
g = defaultdict(lambda: [0, []])
for s in sales:
    if s['qty'] is not None and (s['disc'] is not None and s['disc'] < D('0.2')):
        a = g[s['product'][2] or None]; a[0] += 1; a[1].append(s['qty'])
out['q13'] = [[k, v[0], fix(total(v[1]), 1)] for k, v in sorted(g.items(), key=lambda kv: nulls_last(kv[0]))]
print(json.dumps(out))
