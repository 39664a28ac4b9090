//! The findings at the top of the report, made from the documents alone: per tier the SSB
//! slowdown vs DRAM (geomean over the queries of the per-query medians, with its range),
//! the tier's measured bandwidth and latency vs DRAM (membench), the placement headline
//! (place-validate), PostgreSQL's cold speedup (ratio of totals and mean of per-query
//! ratios), the Dash and Elf headlines — each linking to its section. A ratio is stated
//! as a finding only outside noise (`pmolap_results::stats::Ratio`): within noise it says
//! so, and with one repetition it says the noise is unknown (docs/report.md, "Noise").

use std::fmt::Write as _;
use std::path::PathBuf;

use pmolap_results::membench::{Operation, Results as Membench};
use pmolap_results::stats::{Ratio, Spread, Verdict};

use crate::doc::Document;
use crate::markup::esc;

/// One line: the text, and the section it links to.
struct Finding {
    text: String,
    link: &'static str,
}

/// `what` is `ratio` of `base`: a finding outside noise, said to be within noise
/// otherwise.
fn ratio_words(what: &str, r: &Ratio, unit: &str, base: &str) -> String {
    let range = format!("range {:.2}–{:.2}", r.low, r.high);
    match r.verdict {
        Verdict::Outside => format!("{what}: {:.2}{unit} {base} ({range})", r.ratio),
        Verdict::WithinNoise => format!(
            "{what}: no difference outside noise from {base} ({:.2}{unit}, {range}: the \
             repetitions' ranges overlap)",
            r.ratio
        ),
        _ => format!(
            "{what}: {:.2}{unit} {base} (one repetition: noise unknown)",
            r.ratio
        ),
    }
}

fn ssb(d: &pmolap_results::ssb::TiersReport, out: &mut Vec<Finding>) {
    let Some(base) = d.tiers.first() else {
        return;
    };
    for t in 1..d.tiers.len() {
        let Some(r) = d.geomean_ratio(t) else {
            continue;
        };
        out.push(Finding {
            text: ratio_words(
                &format!(
                    "SSB on {} (geomean over {} queries of the per-query median times)",
                    d.tiers[t].tier.name,
                    d.slowdowns(t).len()
                ),
                &r,
                "×",
                &format!("{}'s time", base.tier.name),
            ),
            link: "ssb-tiers",
        });
    }
}

/// Per tier: the best read bandwidth (the run with the highest median) and the lowest
/// median latency, as spreads over the repetitions.
fn membench_tiers(d: &Membench) -> Vec<(String, Option<Spread>, Option<Spread>)> {
    let mut tiers: Vec<(String, Option<Spread>, Option<Spread>)> = Vec::new();
    for run in &d.runs {
        let name = run.params.tier.to_string();
        let i = match tiers.iter().position(|t| t.0 == name) {
            Some(i) => i,
            None => {
                tiers.push((name, None, None));
                tiers.len() - 1
            }
        };
        if run.params.operation == Operation::Read {
            let bw: Vec<f64> = run.reps.iter().map(|r| r.bandwidth_gib_s).collect();
            if let Some(s) = Spread::of(&bw) {
                if tiers[i].1.is_none_or(|b| s.median > b.median) {
                    tiers[i].1 = Some(s);
                }
            }
        }
        let lat: Vec<f64> = run
            .reps
            .iter()
            .filter_map(|r| r.latency.as_ref().map(|l| l.p50_ns))
            .collect();
        if let Some(s) = Spread::of(&lat) {
            if tiers[i].2.is_none_or(|b| s.median < b.median) {
                tiers[i].2 = Some(s);
            }
        }
    }
    tiers
}

fn membench(d: &Membench, out: &mut Vec<Finding>) {
    let tiers = membench_tiers(d);
    let Some(dram) = tiers.iter().find(|t| t.0.starts_with("dram")).cloned() else {
        return;
    };
    for (name, bw, lat) in tiers.iter().filter(|t| t.0 != dram.0) {
        let mut parts = Vec::new();
        if let Some(r) = dram.1.zip(*bw).and_then(|(a, b)| Ratio::of(&b, &a)) {
            parts.push(ratio_words(
                "best read bandwidth",
                &r,
                "×",
                &format!("{}'s", dram.0),
            ));
        }
        if let Some(r) = dram.2.zip(*lat).and_then(|(a, b)| Ratio::of(&b, &a)) {
            parts.push(ratio_words(
                "median load latency",
                &r,
                "×",
                &format!("{}'s", dram.0),
            ));
        }
        if !parts.is_empty() {
            out.push(Finding {
                text: format!("{} (membench): {}", short(name), parts.join("; ")),
                link: "membench",
            });
        }
    }
}

/// A tier's short name for a sentence: a file tier's last directory.
fn short(name: &str) -> String {
    crate::draw::palette::short_tier(name)
}

fn pg(d: &pmolap_results::pg::TpchReport, out: &mut Vec<Finding>) {
    let summary = d.summary();
    for s in &summary {
        let Some(r) = s.cold_total_speedup else {
            continue;
        };
        // The slowest tier is the reference: its speedup over itself says nothing.
        if (r.ratio - 1.0).abs() < 1e-12 && r.low <= 1.0 && r.high >= 1.0 {
            continue;
        }
        out.push(Finding {
            text: format!(
                "{}; mean of the per-query ratios {:.2}×",
                ratio_words(
                    &format!(
                        "PostgreSQL TPC-H cold on {} (ratio of total times, SF {})",
                        s.tier, d.config.sf
                    ),
                    &r,
                    "×",
                    "faster than the slowest tier",
                ),
                s.cold_avg_speedup
            ),
            link: "pg-tpch",
        });
    }
}

fn hash(d: &pmolap_results::hashbench::HashBenchReport, out: &mut Vec<Finding>) {
    for r in &d.dram_ratios {
        let text = match &r.positive {
            Some(p) => ratio_words(
                &format!(
                    "Dash in DRAM, positive lookups at {} thread(s)",
                    r.threads
                ),
                p,
                "×",
                &format!("the throughput of {}", r.baseline),
            ),
            None => format!(
                "Dash in DRAM, positive lookups at {} thread(s): {:.2}× the throughput of {} (noise not recorded)",
                r.threads, r.dash_over_baseline_positive, r.baseline
            ),
        };
        out.push(Finding {
            text,
            link: "hashbench",
        });
    }
}

fn elf(d: &pmolap_results::elfbench::BenchReport, out: &mut Vec<Finding>) {
    for q in &d.query_types {
        if let Some(x) = q.pm_speedup_over_column_scan {
            out.push(Finding {
                text: format!(
                    "Elf {} queries on {}: {x:.2}× the column scan's queries/s (one run per \
                     variant: noise unknown)",
                    q.query_type, q.tier
                ),
                link: "elfbench",
            });
        }
    }
}

/// The findings section, or nothing when no document has a comparison to state.
pub(crate) fn html(docs: &[(PathBuf, Document)]) -> String {
    let mut f = Vec::new();
    for (_, d) in docs {
        match d {
            Document::SsbTiers(r) => ssb(r, &mut f),
            Document::Membench(r) => membench(r, &mut f),
            Document::PlaceValidate(r) => f.push(Finding {
                text: format!(
                    "Placement on {} ({}): {}",
                    r.config.profile_tier,
                    r.config.setting,
                    crate::kinds::place_headline(r)
                ),
                link: "place-validate",
            }),
            Document::PgTpch(r) => pg(r, &mut f),
            Document::HashBench(r) => hash(r, &mut f),
            Document::Elf(r) => elf(r, &mut f),
            _ => {}
        }
    }
    if f.is_empty() {
        return String::new();
    }
    // In the order of the report's sections.
    const ORDER: [&str; 6] = [
        "ssb-tiers",
        "membench",
        "place-validate",
        "pg-tpch",
        "hashbench",
        "elfbench",
    ];
    f.sort_by_key(|x| ORDER.iter().position(|o| *o == x.link));
    let mut s = String::from(
        "<section id=\"findings\">\n<h2>Findings</h2>\n<p class=\"meta\">From the documents \
         below alone. Ratios compare medians over repetitions; a difference whose \
         repetitions' min–max ranges overlap is said to be within noise, not stated as a \
         finding (docs/report.md, \"Noise\"). SSB slowdowns are the geometric mean over the \
         queries of the per-query median times.</p>\n<ul class=\"findings\">\n",
    );
    for x in f {
        let _ = writeln!(
            s,
            "<li>{} <a href=\"#{}\">(section)</a></li>",
            esc(&x.text),
            x.link
        );
    }
    s.push_str("</ul>\n</section>\n");
    s
}
