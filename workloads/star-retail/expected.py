#!/usr/bin/env python3
"""Independent answers of the retail star's test queries (crates/cli/tests/load_cli.rs),
computed from the CSV/TSV/TBL files with Python's exact `decimal` arithmetic — no pmolap
code. Run: python3 workloads/retail/expected.py; the test embeds what it prints."""
import csv, json, os
from collections import defaultdict
from decimal import Decimal as D

here = os.path.dirname(os.path.abspath(__file__))
def rows(name, delim, header):
    with open(os.path.join(here, name), newline='') as f:
        r = list(csv.reader(f, delimiter=delim))
    r = r[1:] if header else r
    return [x[:-1] if x and x[-1] == '' else x for x in r if x]

store = {int(r[0]): r for r in rows('store.csv', ',', True)}
product = {int(r[0]): r for r in rows('product.tsv', '\t', False)}
day = {r[0]: r for r in rows('day.tbl', '|', False)}
sales = [dict(id=int(r[0]), date=r[1], store=store[int(r[2])], product=product[int(r[3])],
              day=day[r[1]], qty=D(r[4]), price=D(r[5]), disc=D(r[6]))
         for r in rows('sales.csv', ',', True)]

def fix(x, scale):  # a decimal written with exactly `scale` decimals
    return str(x.quantize(D(1).scaleb(-scale)))

out = {}
g = defaultdict(lambda: [D(0), 0])
for s in sales:
    if s['date'] >= '2024-01-01':
        a = g[s['store'][3]]; a[0] += s['qty'] * s['price']; a[1] += 1
out['q1'] = [[k, fix(v[0], 3), v[1]] for k, v in sorted(g.items())]

g = defaultdict(lambda: [D(0), None, None])
for s in sales:
    p = s['product']
    if p[4] == 'Home':
        a = g[(p[4], p[3])]; a[0] += s['price']
        a[1] = s['price'] if a[1] is None else min(a[1], s['price'])
        a[2] = s['date'] if a[2] is None else max(a[2], s['date'])
out['q2'] = [[k[0], k[1], fix(v[0], 2), fix(v[1], 2), v[2]] for k, v in sorted(g.items(), key=lambda kv: kv[0][1])]

g = defaultdict(lambda: [D(0), D(0), 0])
for s in sales:
    if s['day'][3] in ('Saturday', 'Sunday'):
        a = g[s['day'][1]]; a[0] += s['qty']; a[1] += s['disc']; a[2] += 1
out['q3'] = [[k, fix(v[0], 1), float(v[1] / v[2])] for k, v in sorted(g.items())]

n, tot = 0, D(0)
for s in sales:
    if s['store'][2] == 'Chicago' and s['date'] < '2024-01-01' and s['qty'] >= D('5.5'):
        n += 1; tot += s['price'] * s['disc']
out['q4'] = [[n, fix(tot, 4)]]

g = defaultdict(lambda: D(0))
for s in sales:
    if s['store'][3] == 'EU' and s['price'] <= D('50') and s['product'][2] != 'red':
        g[s['store'][2]] += s['qty']
out['q5'] = [[k, fix(v, 1)] for k, v in sorted(g.items())]
g = defaultdict(int)
for s in sales:
    if s['product'][4] == 'Audio':
        g[D(s['product'][5])] += 1
out['q6'] = [[fix(k, 2), v] for k, v in sorted(g.items())]

g = defaultdict(lambda: D(0))
for s in sales:
    if '2024-02-10' <= s['date'] <= '2024-02-17':
        g[s['date']] += s['disc']
out['q7'] = [[k, fix(v, 2)] for k, v in sorted(g.items())]
print(json.dumps(out))
