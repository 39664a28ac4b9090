//! Figures of iobench results (DaMoN'21 Figs 2–5): bandwidth vs threads, one line per
//! I/O path (and log file kind), one chart per benchmark, unit size, write ratio and set
//! of directories; plus bandwidth relative to pread where pread was measured (Fig. 4).

use std::collections::{BTreeMap, BTreeSet};

use pmolap_results::iobench::{Results, Run, Workload};
use pmolap_results::names::name;
use pmolap_results::size::format_size;

use crate::draw::{header, slug, Figure, LineFigure, Series, XAxis, SEP};
use crate::markup::{capped, Table};

/// What decides the chart a run goes on.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct ChartKey {
    bench: String,
    workload: String,
    unit: u64,
    write_pct: i64,
    dirs: String,
}

fn series_label(r: &Run) -> String {
    let p = &r.params;
    let mut l = name(&p.io);
    if p.io.is_uring() {
        l.push_str(&format!(" qd{}", p.queue_depth));
    }
    if p.workload == Workload::Logging {
        l.push_str(&format!(", {} log", name(&p.log_file)));
    }
    if !p.sync && p.workload == Workload::BufferManager && p.write_ratio > 0.0 {
        l.push_str(", no sync");
    }
    l
}

/// Every figure the runs of `doc` support.
pub(crate) fn figures(doc: &Results) -> Vec<Figure> {
    // chart → series label → threads → bandwidths
    type Acc = BTreeMap<ChartKey, BTreeMap<String, BTreeMap<usize, Vec<f64>>>>;
    let mut acc: Acc = BTreeMap::new();
    let mut ran: BTreeMap<ChartKey, Ran> = BTreeMap::new();
    for r in &doc.runs {
        let p = &r.params;
        let dirs: Vec<String> = p.paths.iter().map(|d| d.display().to_string()).collect();
        let key = ChartKey {
            bench: r.name.clone(),
            workload: name(&p.workload),
            unit: p.op_size(),
            write_pct: (p.write_ratio * 100.0).round() as i64,
            dirs: dirs.join(" + "),
        };
        let facts = ran.entry(key.clone()).or_default();
        facts.threads.insert(p.threads);
        facts.reps.insert(r.reps.len());
        facts.sizes.insert(match p.workload {
            Workload::Logging => p.log_size,
            _ => p.file_size,
        });
        acc.entry(key)
            .or_default()
            .entry(series_label(r))
            .or_default()
            .entry(p.threads)
            .or_default()
            .push(r.summary.bandwidth_gib_s_median);
    }
    let cpu = crate::markup::clip(doc.header.machine.cpu_model.trim());
    let mut out = Vec::new();
    for (k, lines) in acc {
        let facts = ran.remove(&k).unwrap_or_default();
        let threads: BTreeSet<usize> = lines.values().flat_map(|m| m.keys().copied()).collect();
        if threads.len() < 2 {
            continue;
        }
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
        let series: Vec<Series> = lines
            .iter()
            .map(|(label, pts)| Series {
                label: label.clone(),
                points: pts.iter().map(|(t, v)| (*t as f64, mean(v))).collect(),
            })
            .collect();
        let unit = match k.workload.as_str() {
            "logging" => format!("{} entries", format_size(k.unit)),
            _ => format!("{} pages", format_size(k.unit)),
        };
        let mut notes = vec![unit];
        if k.workload == "buffer-manager" {
            notes.push(format!("{}% writes", k.write_pct));
        }
        notes.push(format!("on {}", k.dirs));
        if !cpu.is_empty() {
            notes.push(cpu.clone());
        }
        let stem_base = slug(&format!(
            "iobench-{}-{}-{}-w{}",
            k.bench,
            k.workload,
            format_size(k.unit),
            k.write_pct
        ));
        // Relative to pread (Fig. 4), where pread was measured.
        let base = lines
            .iter()
            .find(|(l, _)| l.starts_with("pread"))
            .map(|(_, m)| m.clone());
        if let Some(base) = base {
            let rel: Vec<Series> = lines
                .iter()
                .filter(|(l, _)| !l.starts_with("pread"))
                .map(|(label, pts)| Series {
                    label: label.clone(),
                    points: pts
                        .iter()
                        .filter_map(|(t, v)| {
                            let b = mean(base.get(t)?);
                            (b > 0.0).then(|| (*t as f64, mean(v) / b))
                        })
                        .collect(),
                })
                .filter(|s| !s.points.is_empty())
                .collect();
            if !rel.is_empty() {
                out.push(Figure::Lines(LineFigure {
                    caption: caption(
                        &k,
                        &facts,
                        "Bandwidth of each I/O path relative to pread at the same thread count",
                        &cpu,
                        "Fig. 4 (relative bandwidth to Linux I/O)",
                    ),
                    stem: format!("{stem_base}-relative-to-pread"),
                    title: format!("{}: {} bandwidth relative to pread", k.bench, k.workload),
                    subtitle: notes.join(SEP),
                    x_desc: "threads".into(),
                    y_desc: "bandwidth / pread bandwidth".into(),
                    x_axis: XAxis::Linear,
                    y_max: None,
                    markers: true,
                    series: rel,
                }));
            }
        }
        let paper = match k.workload.as_str() {
            "table-scan" => "Fig. 2 (table scan bandwidth)",
            "buffer-manager" => "Fig. 3 (buffer management bandwidth)",
            _ => "Fig. 5 (logging bandwidth)",
        };
        out.push(Figure::Lines(LineFigure {
            caption: caption(
                &k,
                &facts,
                "Bandwidth by thread count, one line per I/O path",
                &cpu,
                paper,
            ),
            stem: format!("{stem_base}-bw-vs-threads"),
            title: format!("{}: {} bandwidth vs threads", k.bench, k.workload),
            subtitle: notes.join(SEP),
            x_desc: "threads".into(),
            y_desc: "bandwidth (GiB/s)".into(),
            x_axis: XAxis::Linear,
            y_max: None,
            markers: true,
            series,
        }));
    }
    out
}

/// What the runs of one chart were: thread counts, repetitions, bytes of file (or log)
/// per thread.
#[derive(Debug, Default)]
struct Ran {
    threads: BTreeSet<usize>,
    reps: BTreeSet<usize>,
    sizes: BTreeSet<u64>,
}

/// The report's caption of a chart: what, where, which paper figure; the thread counts,
/// the file size per thread and the repetitions as run.
fn caption(k: &ChartKey, ran: &Ran, what: &str, cpu: &str, paper: &str) -> String {
    let mut unit = format!(
        "{} {}",
        format_size(k.unit),
        if k.workload == "logging" {
            "entries"
        } else {
            "pages"
        }
    );
    if k.workload == "buffer-manager" {
        unit.push_str(&format!(", {}% writes", k.write_pct));
    }
    unit.push_str(&format!(
        "; threads {}; {} {} per thread; {} per point",
        super::listed(&ran.threads, |t| t.to_string()),
        if k.workload == "logging" {
            "log"
        } else {
            "file"
        },
        super::listed(&ran.sizes, format_size),
        super::reps_of(&ran.reps),
    ));
    format!(
        "{what}: {} workload of benchmark `{}` ({unit}) on {}{}. Corresponds to DaMoN'21 {paper}.",
        k.workload,
        k.bench,
        k.dirs,
        if cpu.is_empty() {
            String::new()
        } else {
            format!(" ({cpu})")
        },
    )
}

/// The directories used and their devices, then every run.
pub(super) fn tables(r: &Results) -> Vec<Table> {
    vec![devices_table(r), runs_table(r)]
}

fn devices_table(r: &Results) -> Table {
    Table {
        head: header(&[
            "directory",
            "filesystem",
            "device",
            "rotational",
            "DAX",
            "mount options",
        ]),
        rows: r
            .devices
            .iter()
            .map(|d| {
                let opt = |o: &Option<String>| o.clone().unwrap_or_else(|| "?".into());
                vec![
                    d.path.clone(),
                    opt(&d.filesystem),
                    opt(&d.device),
                    d.rotational
                        .map_or("–".into(), |r| if r { "yes" } else { "no" }.into()),
                    if d.dax { "yes" } else { "no" }.into(),
                    opt(&d.mount_options),
                ]
            })
            .collect(),
    }
}

fn runs_table(r: &Results) -> Table {
    let head = header(&[
        "benchmark",
        "workload",
        "I/O path",
        "unit",
        "writes",
        "threads",
        "files/thread",
        "GiB/s (median)",
        "ops/s",
        "p50 µs",
        "p99 µs",
    ]);
    let rows = r
        .runs
        .iter()
        .map(|run| {
            let p = &run.params;
            let s = &run.summary;
            vec![
                run.name.clone(),
                name(&p.workload),
                name(&p.io),
                format_size(p.op_size()),
                format!("{:.0}%", p.write_ratio * 100.0),
                p.threads.to_string(),
                run.files_per_thread.to_string(),
                format!("{:.3}", s.bandwidth_gib_s_median),
                format!("{:.0}", s.ops_per_s_median),
                format!("{:.1}", s.latency_p50_ns_median / 1e3),
                format!("{:.1}", s.latency_p99_ns_median / 1e3),
            ]
        })
        .collect();
    Table {
        rows: capped(rows, head.len()),
        head,
    }
}
