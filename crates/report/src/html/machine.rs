//! The top of the report: the machine(s) the results were measured on — CPU, cores,
//! NUMA nodes, tiers, OS and kernel, pmolap versions, dates — and the demo's steps.

use std::fmt::Write as _;
use std::path::PathBuf;

use pmolap_results::demo::DemoSummary;
use pmolap_results::Machine;

use crate::doc::Document;
use crate::draw::header;
use crate::markup::{clip, clip_long, esc, file_name, table_html, Table, PARTIAL_BADGE};

/// One `<section>` per distinct machine (host name and CPU), naming its files.
pub(super) fn machines_html(docs: &[(PathBuf, Document)]) -> String {
    let mut groups: Vec<(&Machine, Vec<&(PathBuf, Document)>)> = Vec::new();
    for d in docs {
        // The placement advisor's documents say nothing of a machine.
        let Some(m) = d.1.machine() else {
            continue;
        };
        match groups
            .iter_mut()
            .find(|(g, _)| g.hostname == m.hostname && g.cpu_model == m.cpu_model)
        {
            Some((_, v)) => v.push(d),
            None => groups.push((m, vec![d])),
        }
    }
    let mut out = String::new();
    for (i, (m, files)) in groups.iter().enumerate() {
        let title = if groups.len() == 1 {
            "Machine and tiers".to_string()
        } else {
            format!(
                "Machine {} of {}: {}",
                i + 1,
                groups.len(),
                clip(&m.hostname)
            )
        };
        let _ = write!(
            out,
            "<section class=\"machine\" id=\"machine-{}\">\n<h2>{}</h2>\n",
            i + 1,
            esc(&title)
        );
        out.push_str(&facts_table(m, files));
        out.push_str(&nodes_table(m));
        out.push_str(&tiers_table(m));
        out.push_str("</section>\n");
    }
    out
}

fn facts_table(m: &Machine, files: &[&(PathBuf, Document)]) -> String {
    let versions: Vec<String> = dedup(
        files
            .iter()
            .filter_map(|d| d.1.pmolap_version().map(str::to_string)),
    );
    let dates: Vec<String> = dedup(files.iter().filter_map(|d| d.1.started_unix()).map(date));
    let names: Vec<String> = files.iter().map(|d| file_name(&d.0)).collect();
    let rows = [
        ("host", clip(&m.hostname)),
        ("CPU", clip(m.cpu_model.trim())),
        (
            "cores",
            format!(
                "{} logical CPUs, {} physical cores, {} socket{}",
                m.logical_cpus,
                m.physical_cores,
                m.sockets,
                if m.sockets == 1 { "" } else { "s" }
            ),
        ),
        ("CPU features", clip_long(&m.cpu_features.join(" "))),
        ("NUMA nodes", m.numa_nodes.len().to_string()),
        ("OS", clip(&m.os)),
        ("kernel", clip(&m.kernel_release)),
        ("pmolap", versions.join(", ")),
        (
            "runs started",
            if dates.is_empty() {
                "not recorded".into()
            } else {
                dates.join(", ")
            },
        ),
        ("result files", clip_long(&names.join(", "))),
    ];
    let mut s = String::from("<table class=\"facts\">\n");
    for (k, v) in rows {
        let _ = writeln!(s, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(&v));
    }
    s.push_str("</table>\n");
    s
}

fn nodes_table(m: &Machine) -> String {
    if m.numa_nodes.is_empty() {
        return String::new();
    }
    let t = Table {
        head: header(&["node", "CPUs", "memory", "kind", "distances"]),
        rows: m
            .numa_nodes
            .iter()
            .map(|n| {
                vec![
                    n.id.to_string(),
                    n.cpus.len().to_string(),
                    bytes(n.mem_total),
                    if n.cpu_less {
                        "CPU-less memory (CXL/PMEM)"
                    } else {
                        "CPUs + memory"
                    }
                    .into(),
                    n.distances
                        .iter()
                        .map(|d| d.to_string())
                        .collect::<Vec<_>>()
                        .join(" "),
                ]
            })
            .collect(),
    };
    format!("<h3>NUMA nodes</h3>\n{}", table_html(&t))
}

fn tiers_table(m: &Machine) -> String {
    let t = Table {
        head: header(&[
            "tier",
            "spec",
            "kind",
            "capacity",
            "NUMA node",
            "persistence",
            "notes",
        ]),
        rows: m
            .tiers
            .iter()
            .map(|t| {
                vec![
                    clip(&t.name),
                    clip(&t.spec),
                    clip(&t.kind),
                    if t.capacity == 0 {
                        "?".into()
                    } else {
                        bytes(t.capacity)
                    },
                    t.numa_node.map_or("–".into(), |n| n.to_string()),
                    clip(&t.persistence),
                    clip_long(&t.notes.join("; ")),
                ]
            })
            .collect(),
    };
    if t.rows.is_empty() {
        return "<p>No tiers recorded.</p>\n".into();
    }
    format!("<h3>Tiers</h3>\n{}", table_html(&t))
}

/// The demo's steps: done, skipped (and why), failed, interrupted.
pub(super) fn demo_html(path: &std::path::Path, d: &DemoSummary) -> String {
    let t = Table {
        head: header(&[
            "step",
            "status",
            "seconds",
            "what it did, or why not",
            "files",
        ]),
        rows: d
            .steps
            .iter()
            .map(|s| {
                vec![
                    clip(&s.name),
                    s.status.word().into(),
                    format!("{:.1}", s.seconds),
                    clip_long(&s.detail),
                    clip_long(&s.files.join(", ")),
                ]
            })
            .collect(),
    };
    format!(
        "<section id=\"demo\">\n<h2>Demo steps</h2>\n<p class=\"meta\">{}: SSB scale factor {}, {:.0} s in all{}</p>\n{}</section>\n",
        esc(&file_name(path)),
        d.sf,
        d.seconds,
        if d.header.partial { PARTIAL_BADGE } else { "" },
        table_html(&t)
    )
}

/// Bytes in GiB (or MiB below 1 GiB), one decimal.
fn bytes(b: u64) -> String {
    let gib = b as f64 / f64::from(1u32 << 30);
    if gib >= 1.0 {
        format!("{gib:.1} GiB")
    } else {
        format!("{:.1} MiB", b as f64 / f64::from(1u32 << 20))
    }
}

fn dedup(it: impl Iterator<Item = String>) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for s in it {
        if !v.contains(&s) {
            v.push(s);
        }
    }
    v
}

/// `YYYY-MM-DD HH:MM UTC` of seconds since the Unix epoch.
pub fn date(unix: u64) -> String {
    let days = (unix / 86_400) as i64;
    let secs = unix % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        secs / 3600,
        (secs % 3600) / 60
    )
}

#[cfg(test)]
mod tests {
    use super::date;

    #[test]
    fn dates() {
        assert_eq!(date(0), "1970-01-01 00:00 UTC");
        assert_eq!(date(951_782_400), "2000-02-29 00:00 UTC");
        assert_eq!(date(1_700_000_000), "2023-11-14 22:13 UTC");
    }
}
