//! The HTML report: one self-contained page (inline SVG figures, inline CSS, no script,
//! nothing fetched). At the top the findings (`findings`), the machine and tier metadata, then the demo's steps
//! (when a `demo.json` is among the inputs), then one section per result kind — membench,
//! iobench, SSB tiers, SSB breakdown, placement, the placement inputs, PostgreSQL TPC-H, the Dash hash table, SSB runs, Elf — with one article per document: its
//! figures, each captioned with what was measured, where, and which paper figure it
//! corresponds to, and its figures as a table. Partial documents are labelled
//! "partial (interrupted)". JSON files of a directory that are not results are listed at
//! the end.

mod machine;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use pmolap_results::kind;

use crate::doc::{Document, Inputs};
use crate::draw::Figure;
use crate::error::Result;
use crate::kinds;
use crate::markup::{esc, file_name, table_html, PARTIAL_BADGE};

pub use machine::date;

/// The sections, in order: kind, heading, what the section shows.
const SECTIONS: &[(&str, &str, &str)] = &[
    (
        kind::MEMBENCH.name,
        "Memory bandwidth and latency (membench)",
        "Bandwidth by access size, threads and pinning, and load latency, per tier \
         (SIGMOD'21 §3–§5, Figs 3–13).",
    ),
    (
        kind::IOBENCH.name,
        "Storage workloads (iobench)",
        "Table scan, buffer manager and logging over I/O paths (DaMoN'21 §3, Figs 2–5).",
    ),
    (
        kind::SSB_TIERS.name,
        "SSB on every tier (Fig. 14)",
        "The 13 Star Schema Benchmark queries on every tier, and the slowdown vs DRAM \
         (SIGMOD'21 Fig. 14).",
    ),
    (
        kind::SSB_BREAKDOWN.name,
        "SSB optimisation ladder (Table 1)",
        "One query from 1 thread to all threads, pinning, striping and replication, per tier \
         (SIGMOD'21 Table 1).",
    ),
    (
        kind::PLACE_VALIDATE.name,
        "Placement: predicted vs measured",
        "The placement paper's placements with the slow structures on this machine's disk \
         (cold, or behind a bounded page cache): measured relative time against the paper's \
         model, its ablations and the page model (PVLDB'22 §6).",
    ),
    (
        kind::PLACE_WORKLOAD.name,
        "Placement inputs: workloads",
        "The accesses per structure the placement model weighs (PVLDB'22 §4.1), counted \
         with every structure in DRAM.",
    ),
    (
        kind::PLACE_PROFILE.name,
        "Placement inputs: tier cost profiles",
        "A slow tier's extra cost per access over DRAM per structure, variant and access \
         type (PVLDB'22 §4.2, Table 2), and its page costs where the tier is page-granular.",
    ),
    (
        kind::PLACEMENT.name,
        "Placements (place advise)",
        "Which structure `place advise` put on which tier, with the model's prediction and \
         its measured accuracy on this machine.",
    ),
    (
        kind::PG_TPCH.name,
        "TPC-H on PostgreSQL per tier (Fig. 6)",
        "An unmodified PostgreSQL with its tablespace on each tier: every TPC-H query cold \
         and warm, the speedup over the slowest tier, and parallel COPY vs psql (DaMoN'21 §4, \
         Fig. 6).",
    ),
    (
        kind::HASHBENCH.name,
        "Dash persistent hash table (hash bench)",
        "Lookup and insert throughput of the Dash hash table per tier and thread count \
         against std HashMap in DRAM in the same run, its load factor, and the time to \
         reopen a table after a crash (Dash, VLDB'20; the joins of SIGMOD'21 §6.2).",
    ),
    (
        kind::SSB_RUN.name,
        "SSB runs",
        "SSB queries on one tier (one tier of SIGMOD'21 Fig. 14).",
    ),
    (
        kind::ELFBENCH.name,
        "Elf index with selective caching (elf bench)",
        "Queries/s per caching variant and query type, throughput over the query stream, \
         and vs selectivity (the selective-caching Elf paper, Figs 3–5).",
    ),
];

const STYLE: &str = "
body { font-family: system-ui, sans-serif; margin: 0 auto; max-width: 1200px; padding: 0 1.5em 3em; color: #222; }
h1 { margin-top: 1em; } h2 { border-bottom: 2px solid #ddd; padding-bottom: .2em; margin-top: 2em; }
h3 { margin-top: 1.6em; } nav ul { columns: 2; }
div.scroll { max-width: 100%; overflow-x: auto; }
td { overflow-wrap: anywhere; } ul.findings li { margin: .3em 0; }
table { border-collapse: collapse; margin: .6em 0 1.2em; font-size: .88em; }
th, td { border: 1px solid #ddd; padding: .25em .55em; text-align: left; vertical-align: top; }
thead th { background: #f2f2f2; } table.facts th { background: #f7f7f7; white-space: nowrap; }
figure.plot { margin: 1.2em 0; border: 1px solid #e4e4e4; padding: .6em; }
figure.plot svg { display: block; max-width: 100%; height: auto; }
figcaption { font-size: .92em; color: #333; margin-top: .4em; }
.meta { color: #555; } .partial { background: #fde2b8; color: #7a4300; padding: .05em .45em; border-radius: .3em; font-size: .85em; font-weight: 600; }
.empty { color: #7a4300; } ul.notes { color: #555; font-size: .9em; }
";

/// The whole page for `inputs`; `generated_unix` is the time it is made.
pub(crate) fn render(inputs: &Inputs, generated_unix: u64) -> Result<String> {
    let mut body = String::new();
    let mut toc = Vec::new();
    let findings = crate::findings::html(&inputs.docs);
    if !findings.is_empty() {
        toc.push(("findings".to_string(), "Findings".to_string()));
        body.push_str(&findings);
    }
    let machines = machine::machines_html(&inputs.docs);
    if !machines.is_empty() {
        toc.push(("machine-1".to_string(), "Machine and tiers".to_string()));
        body.push_str(&machines);
    }
    for (path, d) in &inputs.docs {
        if let Document::Demo(s) = d {
            toc.push(("demo".into(), "Demo steps".into()));
            body.push_str(&machine::demo_html(path, s));
        }
    }
    let mut fig_no = 0;
    for (kind, heading, intro) in SECTIONS {
        let docs: Vec<&(PathBuf, Document)> =
            inputs.docs.iter().filter(|d| d.1.kind() == *kind).collect();
        if docs.is_empty() {
            continue;
        }
        toc.push((kind.to_string(), heading.to_string()));
        let _ = write!(
            body,
            "<section class=\"kind\" id=\"{kind}\">\n<h2>{}</h2>\n<p>{}</p>\n",
            esc(heading),
            esc(intro)
        );
        for (path, d) in docs {
            body.push_str(&article(path, d, &mut fig_no)?);
        }
        body.push_str("</section>\n");
    }
    if !inputs.skipped.is_empty() {
        toc.push(("skipped".into(), "Skipped files".into()));
        body.push_str(
            "<section id=\"skipped\">\n<h2>Skipped files</h2>\n<p>Inputs that could not be read \
             as pmolap results, each with the reason (the rest of the report is made \
             without them):</p>\n<ul>\n",
        );
        for (p, why) in &inputs.skipped {
            let _ = writeln!(
                body,
                "<li><code>{}</code>: {}</li>",
                esc(&p.display().to_string()),
                esc(why)
            );
        }
        body.push_str("</ul>\n</section>\n");
    }
    let mut nav = String::from("<nav><ul>\n");
    for (id, title) in &toc {
        let _ = writeln!(nav, "<li><a href=\"#{id}\">{}</a></li>", esc(title));
    }
    nav.push_str("</ul></nav>\n");
    Ok(format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>pmolap report</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <h1>pmolap report</h1>\n<p class=\"meta\">Made {} by pmolap {} from {} result file{}{} \
         ({} figure{}).</p>\n{nav}{body}</body>\n</html>\n",
        date(generated_unix),
        env!("CARGO_PKG_VERSION"),
        inputs.docs.len(),
        if inputs.docs.len() == 1 { "" } else { "s" },
        match inputs.skipped.len() {
            0 => String::new(),
            n => format!(", {n} skipped"),
        },
        fig_no,
        if fig_no == 1 { "" } else { "s" },
    ))
}

/// One document: heading, facts, notes, figures, tables.
fn article(path: &Path, d: &Document, fig_no: &mut usize) -> Result<String> {
    let partial = d.partial();
    let mut s = format!(
        "<article class=\"result\">\n<h3>{}{}</h3>\n<p class=\"meta\">{}</p>\n",
        esc(&file_name(path)),
        if partial { PARTIAL_BADGE } else { "" },
        esc(&summary(path, d))
    );
    let notes = kinds::notes(d);
    if !notes.is_empty() {
        s.push_str("<ul class=\"notes\">\n");
        for n in notes {
            let _ = writeln!(s, "<li>{}</li>", esc(&n));
        }
        s.push_str("</ul>\n");
    }
    let figs = kinds::figures(d);
    if figs.is_empty() {
        let _ = writeln!(
            s,
            "<p class=\"empty\">No figure: {}</p>",
            esc(&kinds::nothing_to_plot(d))
        );
    }
    for f in &figs {
        s.push_str(&figure_html(f, partial, fig_no)?);
    }
    for t in kinds::tables(d) {
        s.push_str(&table_html(&t));
    }
    s.push_str("</article>\n");
    Ok(s)
}

/// Kind, size and provenance of a document, in one line.
fn summary(path: &Path, d: &Document) -> String {
    let started = d
        .started_unix()
        .map_or(String::new(), |t| format!(", started {}", date(t)));
    let version = d
        .pmolap_version()
        .map_or(String::new(), |v| format!(", pmolap {v}"));
    format!(
        "{} ({}): {}{started}{version}",
        path.display(),
        d.kind(),
        kinds::summary(d),
    )
}

fn figure_html(f: &Figure, partial: bool, fig_no: &mut usize) -> Result<String> {
    *fig_no += 1;
    Ok(format!(
        "<figure class=\"plot\" id=\"fig-{n}\">\n{svg}<figcaption><b>Figure {n}.</b> {p}{c}</figcaption>\n</figure>\n",
        n = *fig_no,
        svg = f.to_svg()?,
        p = if partial {
            "<span class=\"partial\">partial (interrupted)</span> "
        } else {
            ""
        },
        c = esc(f.caption()),
    ))
}
