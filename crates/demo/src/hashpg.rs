//! The demo's Dash hash table and PostgreSQL TPC-H steps.

use std::path::PathBuf;

use pmolap_results::stats::Spread;

use crate::error::Result;
use crate::steps::{io_tiers, publish, Ctx};
use crate::Outcome;

/// Keys of the hash step's DRAM, tmpfs and fsdax runs and of its HashMap baselines.
const HASH_KEYS: usize = 200_000;
/// Keys on the disk: every insert persists by msync there (~2 per insert), from 5 k to
/// 200 inserts/s here depending on the disk's writeback (5 000 keys took 1 s after a
/// small demo and 40 s after SF 1's SSB data was written).
const HASH_DISK_KEYS: usize = 1_000;
/// Table sizes of the hash step's recovery measurement.
const RECOVERY_ITEMS: [usize; 2] = [10_000, 100_000];

/// The hash step's settings: DRAM and every file tier of the output directory's machine
/// (tmpfs, the output directory's disk, fsdax), 1 and all threads, a small recovery
/// measurement on the output directory's disk.
fn hash_params(c: &Ctx) -> Result<pmolap_index::dash::bench::HashBenchParams> {
    use pmolap_index::dash::bench::{HashBenchParams, TierRunSpec};
    let spec = |s: &str, keys: usize| {
        TierRunSpec::parse(&format!("{s}@{keys}"), keys)
            .map_err(|e| crate::Error::Demo(format!("hash bench tier {s}: {e}")))
    };
    let mut tiers = vec![spec("dram", HASH_KEYS)?];
    let (files, _) = io_tiers(c);
    for (_, dir) in &files {
        let keys = if *dir == c.out {
            HASH_DISK_KEYS
        } else {
            HASH_KEYS
        };
        tiers.push(spec(&format!("file:{}", dir.display()), keys)?);
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut threads = vec![1];
    if cpus > 1 {
        threads.push(cpus);
    }
    Ok(HashBenchParams {
        keys: HASH_KEYS,
        tiers,
        threads,
        recovery_items: RECOVERY_ITEMS.to_vec(),
        recovery_dir: c.out.clone(),
        seed: 1,
        reps: 3,
        out: Some(c.out.join("hashbench.json")),
    })
}

/// The Dash hash table on every tier against std HashMap in DRAM, and its recovery.
pub(crate) fn hash(c: &Ctx) -> Result<Outcome> {
    let p = hash_params(c)?;
    let r = pmolap_index::dash::bench::run(&p, &mut |_| {})
        .map_err(|e| crate::Error::Demo(format!("hash bench: {e}")))?;
    let tiers: Vec<&str> = r.dash.iter().map(|d| d.tier.as_str()).collect();
    let top = p.threads.last().copied().unwrap_or(1);
    let mut detail = format!(
        "Dash on {} at {} thread(s) vs std HashMap in DRAM",
        tiers.join(", "),
        p.threads
            .iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(" and ")
    );
    if let Some(d) = r.dash.iter().find(|d| d.tier == "dram") {
        if let Some(pt) = d.points.iter().find(|x| x.threads == top) {
            let lookups = pt
                .positive_lookup
                .map_or(format!("{:.1} M/s", pt.positive_lookup_mops), |s| {
                    s.display("M/s")
                });
            detail.push_str(&format!(
                "; dram: positive lookups {lookups} at {top} thread(s), load factor {:.2}",
                d.load_factor
            ));
        }
    }
    if let Some(ratio) = r.dram_ratios.iter().find(|x| x.threads == top) {
        let x = ratio
            .positive
            .map_or(format!("{:.2}x", ratio.dash_over_baseline_positive), |r| {
                r.display()
            });
        detail.push_str(&format!(", {x} {} in the same run", ratio.baseline));
    }
    if let Some(rec) = r.recovery.last() {
        detail.push_str(&format!(
            "; reopening {} items after a crash: open {:.1} ms, every segment recovered in {:.1} ms",
            rec.items, rec.open_ms, rec.recover_all_ms
        ));
    }
    Ok(Outcome::Done {
        files: vec!["hashbench.json".into()],
        detail,
    })
}

/// The TPC-H scale factor of the PostgreSQL step: small, for seconds. Every query is run
/// cold (a server restart) on every tier, so even SF 0.01 takes ~24 s here; SF 0.03 took
/// 40 s and SF 0.1 96 s (2-vCPU KVM guest), too long for the demo.
fn pg_sf(demo_sf: f64) -> f64 {
    if demo_sf < 1.0 {
        0.01
    } else {
        0.03
    }
}

fn pg_options(c: &Ctx) -> pmolap_pg::TpchOptions {
    let (files, _) = io_tiers(c);
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    pmolap_pg::TpchOptions {
        sf: pg_sf(c.sf),
        tiers: files
            .into_iter()
            .map(|(_, dir)| dir)
            .collect::<Vec<PathBuf>>(),
        reps: 1,
        queries: (1..=22).collect(),
        streams: cpus.max(2),
        work_dir: std::env::temp_dir(),
        psql_baseline: true,
    }
}

/// TPC-H on an unmodified PostgreSQL with a tablespace on each file tier; skipped when
/// there is no server or the run is not possible here (the preflight's reason).
pub(crate) fn postgres_tpch(c: &Ctx) -> Result<Outcome> {
    let o = pg_options(c);
    if o.tiers.is_empty() {
        return Ok(Outcome::Skipped("no file tier on this machine".into()));
    }
    if let Err(e) = pmolap_pg::server::find_binaries() {
        return Ok(Outcome::Skipped(e.to_string()));
    }
    if let Err(e) = pmolap_pg::run::preflight(&o) {
        return Ok(Outcome::Skipped(format!("not possible here: {e}")));
    }
    let r = pmolap_pg::run(&o, &|_| {}).map_err(|e| crate::Error::Demo(format!("pg tpch: {e}")))?;
    publish(&c.out, "pg-tpch.json", &r)?;
    let totals: Vec<String> = r
        .tiers
        .iter()
        .map(|t| {
            let total = |f: fn(&pmolap_results::pg::QueryRun) -> &Vec<f64>| {
                let parts: Vec<Spread> =
                    t.queries.iter().filter_map(|q| Spread::of(f(q))).collect();
                Spread::sum(&parts).map_or("-".into(), |s| s.display("s"))
            };
            format!(
                "{} cold {} / warm {}",
                t.name,
                total(|q| &q.cold_seconds),
                total(|q| &q.warm_seconds)
            )
        })
        .collect();
    Ok(Outcome::Done {
        files: vec!["pg-tpch.json".into()],
        detail: format!(
            "TPC-H SF {} on {}, {} queries cold and warm, one tablespace per tier: {}{}",
            o.sf,
            r.server.version,
            r.rows().len(),
            totals.join("; "),
            if r.header.partial {
                " (interrupted)"
            } else {
                ""
            }
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(out: PathBuf, sf: f64) -> Ctx {
        Ctx {
            out,
            sf,
            topo: pmolap_tier::Topology::detect().unwrap(),
        }
    }

    #[test]
    fn the_new_steps_come_after_elf_in_order() {
        let names: Vec<&str> = crate::steps::all().iter().map(|s| s.0).collect();
        let elf = names.iter().position(|n| *n == "elf").unwrap();
        assert_eq!(names[elf + 1..elf + 3], ["hash", "postgres tpch"]);
        assert_eq!(names.last(), Some(&crate::steps::REPORT));
    }

    #[test]
    fn hash_and_pg_settings_follow_the_demo_sf_and_tiers() {
        let dir = tempfile::tempdir().unwrap();
        let c = ctx(dir.path().to_path_buf(), 0.01);
        let p = hash_params(&c).unwrap();
        assert_eq!(p.tiers[0].tier, "dram");
        assert_eq!(p.threads[0], 1);
        assert_eq!(p.out, Some(dir.path().join("hashbench.json")));
        let (files, _) = io_tiers(&c);
        assert_eq!(p.tiers.len(), 1 + files.len());
        for t in &p.tiers[1..] {
            assert!(t.tier.starts_with("file:"), "{}", t.tier);
        }
        let o = pg_options(&c);
        assert_eq!(o.sf, 0.01);
        assert_eq!(o.queries.len(), 22);
        assert_eq!(o.reps, 1);
        assert_eq!(pg_sf(1.0), 0.03);
        assert_eq!(pg_sf(0.5), 0.01);
    }
}
