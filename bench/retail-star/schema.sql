-- The retail star of bench/retail-star (issue 35's second, unrelated star schema): TPC-H
-- data (the `tpchgen` crate, dbgen-conformant; crates/load/examples/tpch_star.rs) as a
-- star. The fact is LINEITEM with its order's date, customer and priority; customer and
-- supplier carry their nation and region names; `day` is every day of 1992-1998.
CREATE TABLE day (
    d_date    DATE PRIMARY KEY,
    d_year    SMALLINT NOT NULL,
    d_quarter CHAR(7) NOT NULL,
    d_month   CHAR(7) NOT NULL,
    d_weekday VARCHAR(9) NOT NULL
);

CREATE TABLE customer (
    c_custkey    INTEGER PRIMARY KEY,
    c_name       VARCHAR(25) NOT NULL,
    c_nation     VARCHAR(25) NOT NULL,
    c_region     VARCHAR(25) NOT NULL,
    c_mktsegment VARCHAR(10) NOT NULL,
    c_acctbal    DECIMAL(15,2) NOT NULL
);

CREATE TABLE supplier (
    s_suppkey INTEGER PRIMARY KEY,
    s_name    VARCHAR(25) NOT NULL,
    s_nation  VARCHAR(25) NOT NULL,
    s_region  VARCHAR(25) NOT NULL,
    s_acctbal DECIMAL(15,2) NOT NULL
);

CREATE TABLE part (
    p_partkey     INTEGER PRIMARY KEY,
    p_mfgr        VARCHAR(25) NOT NULL,
    p_brand       VARCHAR(10) NOT NULL,
    p_type        VARCHAR(25) NOT NULL,
    p_size        INTEGER NOT NULL,
    p_container   VARCHAR(10) NOT NULL,
    p_retailprice DECIMAL(15,2) NOT NULL
);

CREATE TABLE sales (
    lo_orderkey      BIGINT NOT NULL,
    lo_linenumber    INTEGER NOT NULL,
    lo_orderdate     DATE NOT NULL REFERENCES day (d_date),
    lo_custkey       INTEGER NOT NULL REFERENCES customer (c_custkey),
    lo_partkey       INTEGER NOT NULL REFERENCES part (p_partkey),
    lo_suppkey       INTEGER NOT NULL REFERENCES supplier (s_suppkey),
    lo_orderpriority VARCHAR(15) NOT NULL,
    lo_shipmode      VARCHAR(10) NOT NULL,
    lo_returnflag    CHAR(1) NOT NULL,
    lo_linestatus    CHAR(1) NOT NULL,
    lo_shipdate      DATE NOT NULL,
    lo_quantity      DECIMAL(15,2) NOT NULL,
    lo_extendedprice DECIMAL(15,2) NOT NULL,
    lo_discount      DECIMAL(15,2) NOT NULL,
    lo_tax           DECIMAL(15,2) NOT NULL,
    lo_revenue       DECIMAL(15,4) NOT NULL,
    PRIMARY KEY (lo_orderkey, lo_linenumber)
);
