//! Build speed and access-counter overhead of the column store on an SSB-lineorder-sized
//! synthetic table (default 6 M rows × 17 columns; `ROWS=N` to change, `DIR=PATH` for
//! where the table goes, default a temp dir under /dev/shm or /tmp).
//!
//! `cargo run --release -p pmolap-store --example store_bench`

use std::time::Instant;

use pmolap_store::{ColumnType, Placement, Schema, Table, TableBuilder, WriteOptions};

fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn main() -> Res<()> {
    let rows: usize = std::env::var("ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6_000_000);
    let base = std::env::var("DIR").unwrap_or_else(|_| {
        if std::path::Path::new("/dev/shm").is_dir() {
            "/dev/shm".into()
        } else {
            "/tmp".into()
        }
    });
    let tmp = tempfile::tempdir_in(&base)?;
    let dir = tmp.path().join("lineorder");

    let t0 = Instant::now();
    let b = generate(rows)?;
    let gen_s = t0.elapsed().as_secs_f64();

    let t1 = Instant::now();
    let m = b.finish(&dir, &WriteOptions::default().with_index(&["lo_orderdate"]))?;
    let build_s = t1.elapsed().as_secs_f64();
    let bytes: u64 = m
        .columns
        .iter()
        .flat_map(|c| c.files.iter().map(|f| f.size))
        .sum();
    println!(
        "build: {rows} rows x {} columns in {build_s:.2} s (+{gen_s:.2} s generating rows), {:.1} MiB on {}",
        m.columns.len(),
        bytes as f64 / (1 << 20) as f64,
        base
    );

    let t2 = Instant::now();
    let t = Table::open(&dir, &Placement::home())?;
    println!(
        "open (home, checksums verified): {:.3} s",
        t2.elapsed().as_secs_f64()
    );
    let t3 = Instant::now();
    let td = Table::open(&dir, &"dram".parse()?)?;
    println!(
        "open (copy to dram, verified): {:.3} s",
        t3.elapsed().as_secs_f64()
    );
    drop(t);

    let sink = counter_overhead(&td);
    let c = td.column("lo_orderdate")?.counts();
    println!("lo_orderdate counters: {}", serde_json_line(&c));
    println!("(checksum {sink})");
    Ok(())
}

/// A builder holding `rows` rows of lineorder-like columns.
fn generate(rows: usize) -> Res<TableBuilder> {
    // lineorder-like columns: (name, distinct values / generator)
    let ints: [(&str, u64); 15] = [
        ("lo_orderkey", rows as u64 / 4),
        ("lo_linenumber", 7),
        ("lo_custkey", 30_000),
        ("lo_partkey", 200_000),
        ("lo_suppkey", 2_000),
        ("lo_orderdate", 2_556),
        ("lo_shippriority", 1),
        ("lo_quantity", 50),
        ("lo_extendedprice", 1_000_000),
        ("lo_ordtotalprice", 40_000_000_000),
        ("lo_discount", 11),
        ("lo_revenue", 5_000_000),
        ("lo_supplycost", 100_000),
        ("lo_tax", 9),
        ("lo_commitdate", 2_556),
    ];
    let strs: [(&str, &[&str]); 2] = [
        (
            "lo_orderpriority",
            &["1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECI", "5-LOW"],
        ),
        (
            "lo_shipmode",
            &["AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"],
        ),
    ];
    let mut cols: Vec<(&str, ColumnType)> =
        ints.iter().map(|(n, _)| (*n, ColumnType::Int)).collect();
    cols.extend(strs.iter().map(|(n, _)| (*n, ColumnType::Str)));
    let schema = Schema::new(cols)?;

    let mut b = TableBuilder::new(schema);
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut v = vec![0i64; rows];
    for (ci, (name, distinct)) in ints.iter().enumerate() {
        for (i, o) in v.iter_mut().enumerate() {
            *o = match *name {
                "lo_orderkey" => (i / 4) as i64 + 1,
                "lo_orderdate" | "lo_commitdate" => {
                    19_920_101 + (xorshift(&mut x) % distinct) as i64
                }
                _ => (xorshift(&mut x) % distinct) as i64,
            };
        }
        b.extend_ints(ci, &v)?;
    }
    for (k, (_, values)) in strs.iter().enumerate() {
        let col = ints.len() + k;
        let picks: Vec<&str> = (0..rows)
            .map(|_| values[(xorshift(&mut x) % values.len() as u64) as usize])
            .collect();
        b.extend_strs(col, picks.iter().copied())?;
    }
    Ok(b)
}

/// Counter overhead: scans (unpack every column) and gathers (batches of 1024 rows at
/// mixed strides + dictionary decode), counting off vs on, interleaved; prints the
/// medians and returns a checksum.
fn counter_overhead(td: &Table) -> u64 {
    let mut rows_batch: Vec<u32> = Vec::with_capacity(1024);
    let scan = |t: &Table| {
        let mut sum = 0u64;
        for c in t.columns().expect("verified columns") {
            c.dv.for_each_block(|_, ids| {
                sum = ids.iter().fold(sum, |s, &x| s.wrapping_add(x as u64))
            });
        }
        sum
    };
    let mut gather = |t: &Table, seed: u64| {
        let mut x = seed | 1;
        let mut sum = 0i64;
        let mut ids = vec![0u32; 1024];
        let mut vals = vec![0i64; 1024];
        let n = t.rows() as u64;
        for _ in 0..2000 {
            rows_batch.clear();
            let mut r = xorshift(&mut x) % n;
            for _ in 0..1024 {
                r = (r + xorshift(&mut x) % 64) % n;
                rows_batch.push(r as u32);
            }
            for c in t.columns().expect("verified columns").iter().take(15) {
                c.dv.gather(&rows_batch, &mut ids);
                c.dict.gather_ints(&ids, &mut vals).unwrap();
                sum = sum.wrapping_add(vals[7]);
            }
        }
        sum
    };
    let mut times = [[Vec::new(), Vec::new()], [Vec::new(), Vec::new()]];
    let mut sink = 0u64;
    for rep in 0..7 {
        for on in [false, true] {
            td.set_counting(on);
            let s = Instant::now();
            sink = sink.wrapping_add(scan(td));
            times[0][on as usize].push(s.elapsed().as_secs_f64());
            let s = Instant::now();
            sink = sink.wrapping_add(gather(td, rep + 1) as u64);
            times[1][on as usize].push(s.elapsed().as_secs_f64());
        }
    }
    for (k, what) in [
        "scan (unpack all 17 columns)",
        "gather (2000 x 1024 rows x 15 columns + decode)",
    ]
    .iter()
    .enumerate()
    {
        let med = |v: &mut Vec<f64>| {
            v.sort_by(|a, b| a.total_cmp(b));
            v[v.len() / 2]
        };
        let off = med(&mut times[k][0]);
        let on = med(&mut times[k][1]);
        println!(
            "{what}: counting off {:.1} ms, on {:.1} ms, overhead {:+.2}%",
            off * 1e3,
            on * 1e3,
            (on / off - 1.0) * 100.0
        );
    }
    sink
}

fn serde_json_line(c: &pmolap_store::ColumnCounts) -> String {
    format!(
        "dv scan {} lookup {} near {} medium {} far {}; dict lookup {} near {}",
        c.data_vector.scan,
        c.data_vector.lookup,
        c.data_vector.near_dense,
        c.data_vector.medium_dense,
        c.data_vector.far_dense,
        c.dictionary.lookup,
        c.dictionary.near_dense
    )
}
