//! The demo's steps, in order. Each writes its result documents into the output
//! directory and says what it measured, or why it was skipped on this machine.

use std::path::{Path, PathBuf};

use serde::Serialize;

use pmolap_bench::ssb::{self, DataOptions};
use pmolap_engine::ExecOptions;
use pmolap_results::topology::TopologyDoc;
use pmolap_results::{kind, Header, Machine};
use pmolap_tier::{TierClass, Topology};

use crate::error::Result;
use crate::Outcome;

/// The step that writes the report (its first file is the report's path).
pub(crate) const REPORT: &str = "report";

pub(crate) struct Ctx {
    pub out: PathBuf,
    pub sf: f64,
    pub topo: Topology,
}

type Step = fn(&Ctx) -> Result<Outcome>;

/// Every step, in order.
pub(crate) fn all() -> Vec<(&'static str, Step)> {
    vec![
        ("topology", topology),
        ("membench", membench),
        ("iobench", iobench),
        ("ssb tiers", ssb_tiers),
        ("ssb breakdown", ssb_breakdown),
        ("elf", elf),
        ("hash", crate::hashpg::hash),
        ("postgres tpch", crate::hashpg::postgres_tpch),
        ("placement", placement),
        (REPORT, report),
    ]
}

/// Every file the steps may write into the output directory, `demo.json` and the report
/// included (what `--out` is checked against before anything runs).
pub(crate) fn outputs(c: &Ctx) -> Vec<String> {
    let mut v: Vec<String> = [
        "topology.json",
        "membench-dram.json",
        "ssb-tiers.json",
        "ssb-breakdown.json",
        "elf-bench.json",
        "hashbench.json",
        "pg-tpch.json",
        "place-workload.json",
        "place-profile-disk.json",
        "place-validate-cold.json",
        pmolap_report::REPORT_FILE,
        "demo.json",
    ]
    .map(String::from)
    .to_vec();
    v.extend(io_tiers(c).0.iter().map(|(slug, _)| iobench_file(slug)));
    v
}

fn iobench_file(slug: &str) -> String {
    format!("iobench-{slug}.json")
}

/// Publishes `doc` as `out/name` (durably, whole).
pub(crate) fn publish<T: Serialize>(out: &Path, name: &str, doc: &T) -> Result<()> {
    pmolap_results::publish(&out.join(name), doc)?;
    Ok(())
}

fn topology(c: &Ctx) -> Result<Outcome> {
    let tiers = c.topo.tiers_for(&c.out);
    let names: Vec<String> = tiers.iter().map(|t| t.name.clone()).collect();
    publish(
        &c.out,
        "topology.json",
        &TopologyDoc {
            header: Header::new(kind::TOPOLOGY, Machine::from_topology(&c.topo), false),
            topology: &c.topo,
            tiers,
        },
    )?;
    Ok(Outcome::Done {
        files: vec!["topology.json".into()],
        detail: format!("tiers: {}", names.join(", ")),
    })
}

/// The persist instructions this CPU has, for the write sweep.
fn persist_modes(t: &Topology) -> Vec<&'static str> {
    let f = &t.cpu_features;
    let mut v = vec!["none", "nt-store"];
    if f.clwb {
        v.push("clwb");
    }
    if f.clflushopt {
        v.push("clflushopt");
    }
    v
}

fn membench(c: &Ctx) -> Result<Outcome> {
    use pmolap_bench::membench::{run_all, Config, RunOptions};
    let modes = persist_modes(&c.topo);
    let text = include_str!("../../../workloads/demo/membench.yaml")
        .replace("{PERSIST}", &modes.join(", "))
        .replace("{TIER}", "dram");
    let cfg = Config::parse(&text, Path::new("workloads/demo/membench.yaml"))?;
    let runs = cfg.expand(&Default::default())?;
    let opts = RunOptions {
        progress: false,
        oversubscribe: false,
    };
    let mut r = run_all(
        &runs,
        &c.topo,
        Some("workloads/demo/membench.yaml".into()),
        &opts,
        |_| {},
    )?;
    r.header.partial |= pmolap_os::signal::interrupted();
    publish(&c.out, "membench-dram.json", &r)?;
    Ok(Outcome::Done {
        files: vec!["membench-dram.json".into()],
        detail: format!(
            "{} runs on dram: read/write/random by access size and threads, latency; persist: {}",
            r.runs.len(),
            modes.join(", ")
        ),
    })
}

/// The file tiers the storage workloads run on: tmpfs, the output directory's disk, and
/// fsdax mounts — with what is missing said.
pub(crate) fn io_tiers(c: &Ctx) -> (Vec<(String, PathBuf)>, Vec<String>) {
    let mut out = Vec::new();
    let mut missing = Vec::new();
    let tiers = c.topo.tiers_for(&c.out);
    for t in &tiers {
        let dir = match (t.class, t.cold) {
            (TierClass::Tmpfs, _) => PathBuf::from("/dev/shm"),
            (TierClass::Disk, false) => c.out.clone(),
            (TierClass::Fsdax, _) => PathBuf::from(t.spec.trim_start_matches("file:")),
            _ => continue,
        };
        let slug: String = t
            .name
            .chars()
            .map(|ch| if ch.is_ascii_alphanumeric() { ch } else { '-' })
            .collect();
        out.push((slug.trim_matches('-').to_string(), dir));
    }
    if !tiers.iter().any(|t| t.class == TierClass::Fsdax) {
        missing.push("no fsdax mount: the PMem (MAP_SYNC) path was not run".to_string());
    }
    (out, missing)
}

fn iobench(c: &Ctx) -> Result<Outcome> {
    use pmolap_bench::iobench::{run_all, Config, RunOptions};
    let (tiers, missing) = io_tiers(c);
    if tiers.is_empty() {
        return Ok(Outcome::Skipped("no file tier on this machine".into()));
    }
    let mut files = Vec::new();
    let mut ran = Vec::new();
    for (slug, dir) in &tiers {
        if pmolap_os::signal::interrupted() {
            break;
        }
        let text = include_str!("../../../workloads/demo/iobench.yaml")
            .replace("{PATH}", &dir.display().to_string());
        let cfg = Config::parse(&text, Path::new("workloads/demo/iobench.yaml"))?;
        let runs = cfg.expand(&Default::default())?;
        let opts = RunOptions {
            progress: false,
            keep_files: false,
            reuse_files: false,
            oversubscribe: false,
        };
        let mut r = run_all(
            &runs,
            &c.topo,
            Some("workloads/demo/iobench.yaml".into()),
            &opts,
            |_| {},
        )?;
        r.header.partial |= pmolap_os::signal::interrupted();
        let name = iobench_file(slug);
        publish(&c.out, &name, &r)?;
        files.push(name);
        ran.push(dir.display().to_string());
    }
    let mut detail = format!(
        "table scan, buffer manager and logging on {}",
        ran.join(", ")
    );
    for m in missing {
        detail.push_str("; ");
        detail.push_str(&m);
    }
    Ok(Outcome::Done { files, detail })
}

fn data(c: &Ctx) -> DataOptions {
    DataOptions {
        data: None,
        sf: Some(c.sf),
        exec: ExecOptions::default(),
        placement: None,
    }
}

/// The demo's repetitions of a timed query: at least [`MIN_REPS`] (a spread to judge
/// noise by), then more while the query's timed runs took under [`REP_BUDGET_S`] seconds,
/// up to [`MAX_REPS`]. Millisecond queries get 10; a cold query of ~100 ms gets 3
/// (docs/report.md, "Noise").
pub(crate) const MIN_REPS: usize = 3;
pub(crate) const MAX_REPS: usize = 10;
pub(crate) const REP_BUDGET_S: f64 = 0.15;

pub(crate) fn reps() -> ssb::Reps {
    ssb::Reps::budget(MIN_REPS, MAX_REPS, REP_BUDGET_S)
}

/// How a ratio reads in the demo's summary: a difference outside noise as `1.42x`, one
/// within noise (or with no spread to judge by) says so (`stats::Ratio::display`).
fn ratio_text(r: Option<pmolap_results::stats::Ratio>) -> String {
    r.map_or("-".into(), |r| r.display())
}

fn ssb_tiers(c: &Ctx) -> Result<Outcome> {
    let queries = pmolap_engine::ssb_queries();
    let pb = indicatif::ProgressBar::hidden();
    let r = ssb::tiers(&data(c), &queries, reps(), &[], &pb, &|_| {})?;
    publish(&c.out, "ssb-tiers.json", &r)?;
    let slow: Vec<String> = (1..r.tiers.len())
        .map(|i| {
            format!(
                "{} {}",
                r.tiers[i].tier.name,
                ratio_text(r.geomean_ratio(i))
            )
        })
        .collect();
    let runs: Vec<usize> = r
        .tiers
        .iter()
        .flat_map(|t| t.queries.iter().map(|q| q.times_ms.len()))
        .collect();
    let mut detail = format!(
        "13 SSB queries at SF {} on {} tiers, {}-{} timed runs each; geomean slowdown vs dram: {}",
        c.sf,
        r.tiers.len(),
        runs.iter().min().unwrap_or(&0),
        runs.iter().max().unwrap_or(&0),
        slow.join(", ")
    );
    for n in &r.notes {
        detail.push_str("; ");
        detail.push_str(n);
    }
    Ok(Outcome::Done {
        files: vec!["ssb-tiers.json".into()],
        detail,
    })
}

/// The HTML report of everything in the output directory (the steps so far included).
fn report(c: &Ctx) -> Result<Outcome> {
    let (name, detail) = report_of(c)?;
    Ok(Outcome::Done {
        detail,
        files: vec![name],
    })
}

/// Writes the report of the output directory as it is: the page's name in it and what
/// the step did.
pub(crate) fn report_of(c: &Ctx) -> Result<(String, String)> {
    let (page, read) = pmolap_report::write_report(std::slice::from_ref(&c.out), &c.out)
        .map_err(|e| crate::Error::Demo(e.to_string()))?;
    let name = page
        .strip_prefix(&c.out)
        .unwrap_or(&page)
        .display()
        .to_string();
    let detail = format!(
        "{name}: machine and tiers, these steps, a section per result kind ({} documents{})",
        read.docs.len(),
        if read.skipped.is_empty() {
            String::new()
        } else {
            format!(", {} skipped", read.skipped.len())
        }
    );
    Ok((name, detail))
}

fn ssb_breakdown(c: &Ctx) -> Result<Outcome> {
    let q = pmolap_engine::select_ssb("2.1")
        .map_err(pmolap_bench::Error::from)?
        .remove(0);
    let r = ssb::breakdown(&data(c), &q, reps(), &[], &|_| {})?;
    publish(&c.out, "ssb-breakdown.json", &r)?;
    let tiers: Vec<&String> = r
        .steps
        .iter()
        .map(|s| &s.tier)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    Ok(Outcome::Done {
        files: vec!["ssb-breakdown.json".into()],
        detail: format!(
            "the Table 1 ladder for Q2.1 on {} tiers; {}",
            tiers.len(),
            ladder_summary(&r.steps)
        ),
    })
}

/// The ladder on its first tier in words: each rung against the one before, a
/// difference within noise said to be one, and a rung that ran the rung before's
/// configuration (striping and replication on one NUMA node) said to be the same.
pub(crate) fn ladder_summary(steps: &[pmolap_results::ssb::LadderStep]) -> String {
    use pmolap_results::stats::Ratio;
    let Some(first) = steps.first() else {
        return "no rung finished".into();
    };
    let mut parts = Vec::new();
    for w in steps.windows(2).filter(|w| w[1].tier == first.tier) {
        let (prev, step) = (&w[0], &w[1]);
        if step.same_configuration(prev) {
            parts.push(format!(
                "{}: the same configuration as `{}` here ({} threads, pin {}; no NUMA effect on one node)",
                step.step, prev.step, step.threads, step.pin
            ));
            continue;
        }
        let r = prev
            .spread()
            .zip(step.spread())
            .and_then(|(a, b)| Ratio::of(&a, &b));
        parts.push(format!(
            "{} {} over `{}`",
            step.step,
            ratio_text(r),
            prev.step
        ));
    }
    format!("on {}: {}", first.tier, parts.join(", "))
}

/// The placement advisor end to end on this machine: the workload's counts, a quick
/// profile of the database's disk, and the paper's placements measured cold on it against
/// the models' predictions (four queries, one repetition: the full run is
/// `bench/place-validate/run.sh`).
fn placement(c: &Ctx) -> Result<Outcome> {
    use pmolap_bench::ssb::validate::{validate, Setting, ValidateOptions};
    use pmolap_bench::tierprofile::{measure, ProfileOptions};
    let pb = indicatif::ProgressBar::hidden();
    let queries =
        pmolap_engine::select_ssb("1.1,2.1,3.1,4.1").map_err(pmolap_bench::Error::from)?;
    let d = data(c);
    let w = ssb::ssb_workload(&d, &queries, 1, &pb)?;
    publish(&c.out, "place-workload.json", &w.document())?;
    let db = ssb::database_dir(&d, &|_, _| {}, &|_| {})?;
    let parent = db
        .parent()
        .unwrap_or(std::path::Path::new("."))
        .to_path_buf();
    let spec = pmolap_tier::TierSpec::File { path: parent };
    let profile = measure(
        &ProfileOptions::new(spec, "disk".into(), true),
        &c.topo,
        &pb,
    )?;
    publish(&c.out, "place-profile-disk.json", &profile.document())?;
    let m = Machine::from_topology(&c.topo);
    // S_LLC: this machine's L3 + every core's L2 (32 MiB where sysfs does not say).
    let llc = pmolap_tier::cpu::CacheSizes::detect_at(std::path::Path::new("/"))
        .llc_bytes(m.physical_cores, m.sockets)
        .unwrap_or(32 << 20);
    let o = ValidateOptions {
        data: d,
        queries,
        reps: 1,
        min_time: std::time::Duration::ZERO,
        max_reps: 1,
        profile,
        setting: Setting::Cold,
        advice: pmolap_place::AdviceOptions::new(&w, llc),
        baselines: false,
    };
    let r = validate(&o, w, &pb)?;
    publish(&c.out, "place-validate-cold.json", &r)?;
    let err = |m: &str| {
        r.errors
            .iter()
            .find(|e| e.model == m)
            .map_or("-".to_string(), |e| format!("{:.2}", e.workload_median))
    };
    let all = r.scenarios.first();
    Ok(Outcome::Done {
        files: vec![
            "place-workload.json".into(),
            "place-profile-disk.json".into(),
            "place-validate-cold.json".into(),
        ],
        detail: format!(
            "{} placements with the slow structures on the disk ({}), cold: all slow measured {} vs predicted {} (paper) / {} (page model); median |error| paper {}, page model {}",
            r.scenarios.len(),
            r.config.slow_fs,
            all.map_or("-".into(), |s| format!(
                "{:.2}x{}",
                s.measured,
                pmolap_results::stats::Verdict::Unknown.suffix()
            )),
            all.map_or("-".into(), |s| format!("{:.2}x", s.predicted.paper)),
            all.and_then(|s| s.predicted.page)
                .map_or("-".into(), |p| format!("{p:.2}x")),
            err("paper"),
            err("page")
        ),
    })
}

fn elf(c: &Ctx) -> Result<Outcome> {
    use pmolap_index::elf::bench::{bench, BenchParams};
    // The index and the baselines on the output directory's tier (the disk), small
    // enough for seconds: every caching variant against a scan and a sorted projection.
    let p = BenchParams {
        rows: 200_000,
        dims: 10,
        dir: c.out.clone(),
        exact_queries: 40_000,
        range_queries: 40,
        window: 4_000,
        max_secs: 2.0,
        out: Some(c.out.join("elf-bench.json")),
        ..BenchParams::default()
    };
    bench(&p, &|_| {}).map_err(|e| crate::Error::Demo(format!("elf bench: {e}")))?;
    Ok(Outcome::Done {
        files: vec!["elf-bench.json".into()],
        detail: format!(
            "Elf over {} rows x {} dims on {}: PM-only, hybrid, static, dynamic and probability caching vs a scan and a sorted projection (Figs. 4, 5)",
            p.rows,
            p.dims,
            c.out.display()
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmolap_results::ssb::LadderStep;

    fn rung(step: &str, threads: usize, pin: &str, striped: bool, times: &[f64]) -> LadderStep {
        LadderStep {
            tier: "dram".into(),
            step: step.into(),
            threads,
            pin: pin.into(),
            striped,
            replicated: striped,
            notes: Vec::new(),
            median_ms: pmolap_results::stats::median(times),
            speedup_vs_first: 1.0,
            times_ms: times.to_vec(),
            speedup: None,
        }
    }

    #[test]
    fn the_ladder_summary_states_only_differences_outside_noise() {
        // Issue 34: the last two rungs ran the same configuration (one node) at 8.14 vs
        // 5.43 ms; the summary must not show them as different.
        let steps = [
            rung("1 thread", 1, "none", false, &[20.0, 21.0, 22.0]),
            rung("all threads", 2, "none", false, &[10.0, 10.5, 11.0]),
            rung("+ pinning (cores)", 2, "cores", false, &[9.0, 10.2, 11.5]),
            rung(
                "+ stripe + replicate dims",
                2,
                "cores",
                false,
                &[8.14, 5.43, 9.0],
            ),
        ];
        let s = ladder_summary(&steps);
        assert!(s.contains("all threads 2.00x over `1 thread`"), "{s}");
        assert!(
            s.contains("+ pinning (cores) 1.03x (within noise) over `all threads`"),
            "{s}"
        );
        assert!(
            s.contains("+ stripe + replicate dims: the same configuration as `+ pinning (cores)`"),
            "{s}"
        );
        // Striped where the machine has several nodes: compared like any other rung.
        let mut numa = steps.clone();
        numa[3].striped = true;
        let s = ladder_summary(&numa);
        assert!(
            s.contains("+ stripe + replicate dims 1.25x (within noise)"),
            "{s}"
        );
    }

    #[test]
    fn repetitions_follow_the_time_budget() {
        let r = reps();
        assert_eq!((r.min, r.max), (MIN_REPS, MAX_REPS));
        assert!(r.min >= 3 && r.budget.as_secs_f64() > 0.0);
        assert!(r.rule().unwrap().contains("3 to 10"));
    }
}
