#!/usr/bin/env python3
"""Writes the star-retail tables (deterministic; run once, output checked in): store.csv
(`,` with a header), product.tsv (tab, no header), day.tbl (dbgen style: `|` with a
trailing `|`), sales.csv. Keys are shuffled: the loader derives the row order itself."""
import datetime, os, random

os.chdir(os.path.dirname(os.path.abspath(__file__)))
random.seed(35)
stores = [(1, 'Harbor', 'Hamburg', 'EU'), (2, 'Alster', 'Hamburg', 'EU'), (3, 'Spree', 'Berlin', 'EU'),
          (4, 'Seine', 'Paris', 'EU'), (5, 'Hudson', 'New York', 'AM'), (6, 'Lake', 'Chicago', 'AM'),
          (7, 'Bay', 'Chicago', 'AM'), (8, 'Ginza', 'Tokyo', 'AS')]
random.shuffle(stores)
with open('store.csv', 'w') as f:
    f.write('st_id,st_name,st_city,st_region\n')
    for s in stores:
        f.write('%d,%s,%s,%s\n' % s)
brands = {'Acme': 'Tools', 'Bolt': 'Tools', 'Cosy': 'Home', 'Dune': 'Home', 'Echo': 'Audio'}
colors = ['red', 'blue', 'green', 'black']
prods = []
for i in range(1, 13):
    b = list(brands)[(i * 7) % 5]
    prods.append((i * 10, '%s %s %d' % (b, brands[b].lower(), i), random.choice(colors), b, brands[b],
                  '%d.%02d' % (random.randint(3, 120), random.choice([0, 49, 95, 99]))))
# NULLs (issue 35): product 10 has no colour (an empty field).
prods = [p[:2] + ('',) + p[3:] if p[0] == 10 else p for p in prods]
random.shuffle(prods)
with open('product.tsv', 'w') as f:
    for p in prods:
        f.write('\t'.join(str(x) for x in p) + '\n')
d0 = datetime.date(2023, 12, 20)
days = [d0 + datetime.timedelta(days=i) for i in range(60)]
with open('day.tbl', 'w') as f:
    for d in sorted(days, key=lambda d: (d.day, d.month)):
        f.write('%s|%s|%d|%s|\n' % (d.isoformat(), d.strftime('%Y-%m'), d.year, d.strftime('%A')))
with open('sales.csv', 'w') as f:
    f.write('sa_id,sa_date,sa_store,sa_product,sa_quantity,sa_price,sa_discount\n')
    for i in range(1, 151):
        d = random.choice(days)
        s = random.choice(stores)[0]
        p = random.choice(prods)
        q = '%d.%d' % (random.randint(1, 12), random.choice([0, 0, 5]))
        price = p[5] if random.random() < 0.7 else '%d.%02d' % (random.randint(1, 130), random.randint(0, 99))
        disc = random.choice(['0', '0.05', '0.10', '0.25'])
        f.write('%d,%s,%d,%d,%s,%s,%s\n' % (1000 + i * 3, d.isoformat(), s, p[0], q, price, disc))
    # NULLs (issue 35): ten more rows; an empty field is NULL. A NULL store key joins no
    # store; NULL quantities and discounts are skipped by the aggregates.
    for i in range(151, 161):
        d = random.choice(days)
        s = '' if i % 2 else str(random.choice(stores)[0])
        p = random.choice(prods)
        q = '' if i % 3 == 0 else '%d.0' % random.randint(1, 12)
        disc = random.choice(['0', '0.05']) if i % 4 == 1 else ''
        f.write('%d,%s,%s,%d,%s,%s,%s\n' % (1000 + i * 3, d.isoformat(), s, p[0], q, p[5], disc))
