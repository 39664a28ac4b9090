-- The star queries of bench/retail-star on schema.sql: revenue by time, by customer and
-- supplier geography, by part brand and type, with dimension and fact filters (DATE and
-- DECIMAL literals), IN lists, a one-column OR, ORDER BY and LIMIT. Each statement is
-- named by the `-- Rn` line above it.

-- R1
SELECT d_year, sum(lo_revenue) AS revenue, count(*) AS lines
FROM sales, day
WHERE lo_orderdate = d_date
GROUP BY d_year
ORDER BY d_year;

-- R2
SELECT c_nation, d_year, sum(lo_revenue) AS revenue
FROM sales, customer, day
WHERE lo_custkey = c_custkey AND lo_orderdate = d_date
  AND c_region = 'ASIA' AND d_year BETWEEN 1994 AND 1996
GROUP BY c_nation, d_year
ORDER BY d_year, revenue DESC;

-- R3
SELECT p_brand, s_region, sum(lo_extendedprice) AS gross
FROM sales, part, supplier
WHERE lo_partkey = p_partkey AND lo_suppkey = s_suppkey
  AND p_mfgr = 'Manufacturer#2' AND s_region = 'EUROPE'
GROUP BY p_brand, s_region
ORDER BY p_brand;

-- R4
SELECT sum(lo_extendedprice * lo_discount) AS revenue
FROM sales
WHERE lo_shipdate >= DATE '1994-01-01' AND lo_shipdate < DATE '1995-01-01'
  AND lo_discount BETWEEN 0.05 AND 0.07 AND lo_quantity < 24;

-- R5
SELECT c_nation, s_nation, d_year, sum(lo_revenue) AS revenue
FROM sales, customer, supplier, day
WHERE lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND lo_orderdate = d_date
  AND c_region = 'AMERICA' AND s_region = 'AMERICA' AND d_year IN (1995, 1996)
GROUP BY c_nation, s_nation, d_year
ORDER BY d_year, revenue DESC, c_nation, s_nation;

-- R6
SELECT c_mktsegment, d_quarter, count(*) AS lines, sum(lo_revenue) AS revenue
FROM sales, customer, day
WHERE lo_custkey = c_custkey AND lo_orderdate = d_date AND d_year = 1997
GROUP BY c_mktsegment, d_quarter
ORDER BY c_mktsegment, d_quarter;

-- R7
SELECT p_type, sum(lo_quantity) AS quantity, avg(lo_extendedprice) AS avg_price
FROM sales, part
WHERE lo_partkey = p_partkey AND p_size IN (1, 5, 10, 15) AND p_container = 'SM BOX'
GROUP BY p_type
ORDER BY p_type;

-- R8
SELECT c_name, sum(lo_revenue) AS revenue
FROM sales, customer, day
WHERE lo_custkey = c_custkey AND lo_orderdate = d_date AND d_month = '1995-03'
GROUP BY c_name
ORDER BY revenue DESC, c_name
LIMIT 10;

-- R9
SELECT d_year, p_brand, sum(lo_revenue) AS revenue
FROM sales, part, day
WHERE lo_partkey = p_partkey AND lo_orderdate = d_date
  AND (p_brand = 'Brand#12' OR p_brand = 'Brand#23' OR p_brand = 'Brand#34')
GROUP BY d_year, p_brand
ORDER BY d_year, p_brand;

-- R10
SELECT s_nation, min(lo_extendedprice) AS lo, max(lo_extendedprice) AS hi, avg(lo_discount) AS avg_disc
FROM sales, supplier, day
WHERE lo_suppkey = s_suppkey AND lo_orderdate = d_date
  AND s_region = 'MIDDLE EAST' AND d_date BETWEEN DATE '1996-06-01' AND DATE '1996-08-31'
GROUP BY s_nation
ORDER BY s_nation;

-- R11
SELECT lo_returnflag, lo_linestatus, sum(lo_quantity) AS quantity, sum(lo_extendedprice) AS gross,
       sum(lo_revenue) AS revenue, avg(lo_discount) AS avg_disc, count(*) AS lines
FROM sales
WHERE lo_shipdate <= DATE '1998-09-02'
GROUP BY lo_returnflag, lo_linestatus
ORDER BY lo_returnflag, lo_linestatus;

-- R12
SELECT lo_shipmode, d_year, count(*) AS lines, sum(lo_extendedprice * lo_tax) AS tax
FROM sales, day
WHERE lo_orderdate = d_date AND d_year >= 1997 AND lo_shipmode IN ('MAIL', 'SHIP')
GROUP BY lo_shipmode, d_year
ORDER BY lo_shipmode, d_year;

-- R13
SELECT c_region, s_region, sum(lo_revenue) AS revenue
FROM sales, customer, supplier, part
WHERE lo_custkey = c_custkey AND lo_suppkey = s_suppkey AND lo_partkey = p_partkey
  AND p_type = 'ECONOMY ANODIZED STEEL' AND lo_orderpriority = '1-URGENT'
GROUP BY c_region, s_region
ORDER BY c_region, s_region;
