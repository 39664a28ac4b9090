-- A small retail star written for pmolap's tests (issue 35): a sales fact with decimal
-- quantities, prices and discounts and a date key, and three dimensions. Loaded by
--   pmolap load --schema workloads/star-retail/schema.sql --from workloads/star-retail --out DB
-- (crates/cli/tests/load_cli.rs; expected answers: expected.py; the data: make_data.py).
-- Nullable: a sale's store (a NULL key joins no store), quantity and discount, and a
-- product's colour; the data has NULLs in each (empty fields).
CREATE TABLE store (
    st_id     INTEGER PRIMARY KEY,
    st_name   VARCHAR(20) NOT NULL,
    st_city   VARCHAR(20) NOT NULL,
    st_region VARCHAR(10) NOT NULL
);

CREATE TABLE product (
    p_id         INTEGER NOT NULL,
    p_name       VARCHAR(30) NOT NULL,
    p_color      VARCHAR(10),
    p_brand      VARCHAR(20) NOT NULL,
    p_category   VARCHAR(20) NOT NULL,
    p_list_price DECIMAL(8,2) NOT NULL,
    PRIMARY KEY (p_id)
);

CREATE TABLE day (
    d_date    DATE PRIMARY KEY,
    d_month   CHAR(7) NOT NULL,
    d_year    SMALLINT NOT NULL,
    d_weekday VARCHAR(9) NOT NULL
);

CREATE TABLE sales (
    sa_id       BIGINT PRIMARY KEY,
    sa_date     DATE NOT NULL REFERENCES day (d_date),
    sa_store    INTEGER REFERENCES store (st_id),
    sa_product  INTEGER NOT NULL,
    sa_quantity DECIMAL(6,1),
    sa_price    DECIMAL(8,2) NOT NULL,
    sa_discount DECIMAL(3,2),
    FOREIGN KEY (sa_product) REFERENCES product (p_id)
);
