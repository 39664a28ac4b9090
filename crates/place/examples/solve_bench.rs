//! Times the two-tier Pareto front on an SSB-shaped workload (5 tables, 58 columns, a
//! dictionary, data vector and inverted index per column: 174 structures with their
//! sizes at SF 10), median of `--runs` runs per granularity. Access counters are random
//! but plausible: only the 26 columns the 13 SSB queries touch have counts (as in the
//! paper, never-accessed data costs nothing), inverted indexes only on the four
//! dimension keys; `--all-accessed` gives every structure counts (a stress case with a
//! much larger front).
//!
//! `cargo run --release -p pmolap-place --example solve_bench -- [--runs N] [--copies C]
//! [--all-accessed] [--mip] [--workload FILE]` (`--copies` repeats the schema C times to scale the
//! structures; `--mip` also times the three-tier MIP, once per granularity).

use std::time::{Duration, Instant};

use pmolap_place::solve::mip::solve_tiers_within;
use pmolap_place::solve::Granularity;
use pmolap_place::{
    pareto_front, Encoding, Model, ModelOptions, Objective, Profile, StructureLoad, TierProblem,
    TwoTierProblem, Workload,
};
use pmolap_store::{AccessCounts, ColumnType, StructureKind};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// (table, rows at SF 1, columns: (name, distinct values at SF 1 (0 = rows), is string))
type Table = (&'static str, u64, &'static [(&'static str, u64, bool)]);

const SSB: [Table; 5] = [
    (
        "lineorder",
        6_000_000,
        &[
            ("lo_orderkey", 1_500_000, false),
            ("lo_linenumber", 7, false),
            ("lo_custkey", 20_000, false),
            ("lo_partkey", 200_000, false),
            ("lo_suppkey", 2_000, false),
            ("lo_orderdate", 2_406, false),
            ("lo_orderpriority", 5, true),
            ("lo_shippriority", 1, false),
            ("lo_quantity", 50, false),
            ("lo_extendedprice", 1_000_000, false),
            ("lo_ordtotalprice", 1_400_000, false),
            ("lo_discount", 11, false),
            ("lo_revenue", 3_000_000, false),
            ("lo_supplycost", 60_000, false),
            ("lo_tax", 9, false),
            ("lo_commitdate", 2_466, false),
            ("lo_shipmode", 7, true),
        ],
    ),
    (
        "customer",
        30_000,
        &[
            ("c_custkey", 0, false),
            ("c_name", 0, true),
            ("c_address", 0, true),
            ("c_city", 250, true),
            ("c_nation", 25, true),
            ("c_region", 5, true),
            ("c_phone", 0, true),
            ("c_mktsegment", 5, true),
        ],
    ),
    (
        "supplier",
        2_000,
        &[
            ("s_suppkey", 0, false),
            ("s_name", 0, true),
            ("s_address", 0, true),
            ("s_city", 250, true),
            ("s_nation", 25, true),
            ("s_region", 5, true),
            ("s_phone", 0, true),
        ],
    ),
    (
        "part",
        200_000,
        &[
            ("p_partkey", 0, false),
            ("p_name", 94_000, true),
            ("p_mfgr", 5, true),
            ("p_category", 25, true),
            ("p_brand1", 1_000, true),
            ("p_color", 94, true),
            ("p_type", 150, true),
            ("p_size", 50, false),
            ("p_container", 40, true),
        ],
    ),
    (
        "date",
        2_556,
        &[
            ("d_datekey", 0, false),
            ("d_date", 0, true),
            ("d_dayofweek", 7, true),
            ("d_month", 12, true),
            ("d_year", 7, false),
            ("d_yearmonthnum", 84, false),
            ("d_yearmonth", 84, true),
            ("d_daynuminweek", 7, false),
            ("d_daynuminmonth", 31, false),
            ("d_daynuminyear", 366, false),
            ("d_monthnuminyear", 12, false),
            ("d_weeknuminyear", 53, false),
            ("d_sellingseason", 5, true),
            ("d_lastdayinweekfl", 2, false),
            ("d_lastdayinmonthfl", 2, false),
            ("d_holidayfl", 2, false),
            ("d_weekdayfl", 2, false),
        ],
    ),
];

const PAGE: u64 = 4096;

fn pages(bytes: u64) -> u64 {
    PAGE + bytes.div_ceil(PAGE) * PAGE
}

/// The columns the 13 SSB queries read (predicates, joins, aggregates, group-bys).
const ACCESSED: [&str; 26] = [
    "lo_orderdate",
    "lo_custkey",
    "lo_partkey",
    "lo_suppkey",
    "lo_revenue",
    "lo_supplycost",
    "lo_extendedprice",
    "lo_discount",
    "lo_quantity",
    "c_custkey",
    "c_city",
    "c_nation",
    "c_region",
    "s_suppkey",
    "s_city",
    "s_nation",
    "s_region",
    "p_partkey",
    "p_mfgr",
    "p_category",
    "p_brand1",
    "d_datekey",
    "d_year",
    "d_yearmonthnum",
    "d_yearmonth",
    "d_weeknuminyear",
];

/// Dimension keys, the columns whose inverted indexes the star joins use.
const KEYS: [&str; 4] = ["c_custkey", "s_suppkey", "p_partkey", "d_datekey"];

/// The SSB-shaped workload at scale factor `sf`, `copies` times over.
fn workload(sf: u64, copies: usize, all: bool, rng: &mut SmallRng) -> Workload {
    let mut structures = Vec::new();
    for copy in 0..copies {
        for (table, rows1, cols) in SSB {
            let scaled = table == "lineorder" || table == "customer" || table == "supplier";
            let rows = if scaled { rows1 * sf } else { rows1 };
            let table = if copy == 0 {
                table.to_string()
            } else {
                format!("{table}_{copy}")
            };
            for &(name, distinct1, is_str) in cols {
                let distinct = if distinct1 == 0 {
                    rows
                } else {
                    distinct1.min(rows)
                };
                let width = (64 - (distinct.max(2) - 1).leading_zeros()).max(1);
                let ty = if is_str {
                    ColumnType::Str
                } else {
                    ColumnType::Int
                };
                let dict_bytes = if is_str { distinct * 24 } else { distinct * 8 };
                // How often the workload touches this column (many columns rarely).
                let hot: f64 =
                    rng.gen::<f64>().powi(3) * f64::from(u8::from(all || ACCESSED.contains(&name)));
                let scans = (hot * 13.0 * rows as f64) as u64;
                let mk = |kind, bytes, counts| StructureLoad {
                    table: table.clone(),
                    column: name.to_string(),
                    kind,
                    bytes: pages(bytes),
                    value_type: ty,
                    encoding: (kind == StructureKind::DataVector).then_some(Encoding::Uncompressed),
                    bit_width: (kind == StructureKind::DataVector).then_some(width),
                    counts,
                };
                let lookups = |rng: &mut SmallRng, n: u64| AccessCounts {
                    scan: 0,
                    lookup: (hot * rng.gen::<f64>() * n as f64) as u64,
                    near_dense: (hot * rng.gen::<f64>() * n as f64) as u64,
                    medium_dense: (hot * rng.gen::<f64>() * n as f64 / 4.0) as u64,
                    far_dense: (hot * rng.gen::<f64>() * n as f64 / 16.0) as u64,
                };
                let mut dict = lookups(rng, rows);
                if is_str {
                    dict.scan = (hot * rng.gen::<f64>() * 3.0 * distinct as f64) as u64;
                }
                structures.push(mk(StructureKind::Dictionary, dict_bytes, dict));
                let mut dv = lookups(rng, rows / 4);
                dv.scan = scans;
                structures.push(mk(StructureKind::DataVector, rows * width as u64 / 8, dv));
                let inv_hot = hot * f64::from(u8::from(all || KEYS.contains(&name)));
                let inv = AccessCounts {
                    lookup: (inv_hot * rng.gen::<f64>() * 1e5) as u64,
                    near_dense: (inv_hot * rng.gen::<f64>() * 1e6) as u64,
                    ..AccessCounts::default()
                };
                structures.push(mk(
                    StructureKind::InvertedIndex,
                    rows * 4 + distinct * 8,
                    inv,
                ));
            }
        }
    }
    // T_DRAM: a run whose all-PMEM slowdown is in the paper's range (~1.5x).
    let mut w = Workload::new(pmolap_store::format::FORMAT_VERSION, 1.0, structures)
        .expect("valid workload");
    let model = Model::new(ModelOptions::new(60 << 20)).expect("model");
    let all: f64 = model
        .costs(&w, &Profile::optane_200())
        .expect("costs")
        .iter()
        .sum();
    w.t_dram_ns = all / 0.5;
    w
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mut runs = 51usize;
    let mut copies = 1usize;
    let mut all = false;
    let mut mip = false;
    let mut recorded: Option<String> = None;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--all-accessed" {
            all = true;
            continue;
        }
        if a == "--mip" {
            mip = true;
            continue;
        }
        if a == "--workload" {
            recorded = it.next().cloned();
            continue;
        }
        let v = it.next().and_then(|v| v.parse().ok());
        match (a.as_str(), v) {
            ("--runs", Some(n)) if n > 0 => runs = n,
            ("--copies", Some(n)) if n > 0 => copies = n,
            _ => {
                eprintln!("usage: solve_bench [--runs N] [--copies C] [--all-accessed] [--mip] [--workload FILE]");
                std::process::exit(2);
            }
        }
    }
    let mut rng = SmallRng::seed_from_u64(12);
    let w = match &recorded {
        Some(f) => Workload::load(std::path::Path::new(f)).unwrap_or_else(|e| {
            eprintln!("solve_bench: {e}");
            std::process::exit(2)
        }),
        None => workload(10, copies, all, &mut rng),
    };
    // S_LLC of the paper's 200 Series machine: 58 368 KiB L3 + 38 x 1280 KiB L2.
    let llc = ModelOptions::llc_bytes_of(58_368 << 10, &[1280 << 10; 38]);
    let model = Model::new(ModelOptions::new(llc)).expect("model");
    let profile = Profile::optane_200();
    let shape = match &recorded {
        Some(f) => format!("recorded by `pmolap place workload` ({f})"),
        None if all => format!("SSB SF 10 shape x{copies}, every structure accessed"),
        None => format!("SSB SF 10 shape x{copies}, SSB's 26 columns accessed"),
    };
    println!(
        "workload: {shape}: {} structures ({} with accesses), {:.2} GiB; profile {} ({})",
        w.structures.len(),
        w.structures.iter().filter(|s| s.counts.total() > 0).count(),
        w.total_bytes() as f64 / (1u64 << 30) as f64,
        profile.tier,
        profile.source
    );
    for g in [
        Granularity::Structure,
        Granularity::Column,
        Granularity::Table,
    ] {
        let mut times = Vec::with_capacity(runs);
        let mut size = 0;
        let mut units = 0;
        let mut read = Vec::with_capacity(runs);
        for _ in 0..runs {
            // The whole front from the workload: costs, units, every point with the
            // trace that gives any point's placement.
            let t0 = Instant::now();
            let p = TwoTierProblem::new(&w, &model, &profile, g).expect("problem");
            let f = pareto_front(&p).expect("front");
            times.push(t0.elapsed().as_secs_f64() * 1e3);
            size = f.points().len();
            units = p.items().len();
            // Reading one placement off it (budget mode at 10 %).
            let t1 = Instant::now();
            let s = f.solution(f.budget_index(0.1).expect("budget"));
            std::hint::black_box(s);
            read.push(t1.elapsed().as_secs_f64() * 1e3);
        }
        println!(
            "{g:?}: {units} units, front of {size} points: {:.2} ms median for the whole front, {:.3} ms to read one placement off it; median of {runs} runs",
            median(times),
            median(read)
        );
    }
    if mip {
        // Three tiers: Optane 200 and a slower copy of Optane 100, each holding at most
        // 40 % of the bytes; budget 10 %.
        let mut far = Profile::optane_100();
        far.tier = "far-pmem".into();
        let profiles = [profile.clone(), far];
        let cap = Some(w.total_bytes() * 2 / 5);
        for g in [
            Granularity::Table,
            Granularity::Column,
            Granularity::Structure,
        ] {
            let t0 = Instant::now();
            let p = TierProblem::new(&w, &model, &profiles, &[None, cap, cap], g).expect("problem");
            let r = solve_tiers_within(&p, Objective::Budget(0.1), Duration::from_secs(120));
            println!(
                "MIP, 3 tiers, {g:?} ({} units): {:.1} ms: {}",
                p.items().len(),
                t0.elapsed().as_secs_f64() * 1e3,
                match r {
                    Ok(s) => format!(
                        "optimal, {} bytes off DRAM, relative {:.4}",
                        s.bytes_moved, s.relative
                    ),
                    Err(e) => e.to_string(),
                }
            );
        }
    }
}
