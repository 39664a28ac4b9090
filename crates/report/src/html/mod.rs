//! The HTML report: one self-contained page (inline SVG figures, inline CSS, no script,
//! nothing fetched). At the top the machine and tier metadata, then the demo's steps
//! (when a `demo.json` is among the inputs), then one section per result kind — membench,
//! iobench, SSB tiers, SSB breakdown, placement, PostgreSQL TPC-H, the Dash hash table, SSB runs, Elf — with one article per document: its
//! figures, each captioned with what was measured, where, and which paper figure it
//! corresponds to, and its figures as a table. Partial documents are labelled
//! "partial (interrupted)". JSON files of a directory that are not results are listed at
//! the end.

mod machine;
mod tables;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::doc::{Document, Inputs};
use crate::draw::Figure;
use crate::error::Result;

pub(crate) use machine::date;

/// The label of a partial document.
pub(crate) const PARTIAL_BADGE: &str = " <span class=\"partial\">partial (interrupted)</span>";

/// A table of text cells (escaped when written).
#[derive(Debug, Clone, Default)]
pub(crate) struct Table {
    pub(crate) head: Vec<String>,
    pub(crate) rows: Vec<Vec<String>>,
}

/// The sections, in order: kind, heading, what the section shows.
const SECTIONS: &[(&str, &str, &str)] = &[
    (
        "membench",
        "Memory bandwidth and latency (membench)",
        "Bandwidth by access size, threads and pinning, and load latency, per tier \
         (SIGMOD'21 §3–§5, Figs 3–13).",
    ),
    (
        "iobench",
        "Storage workloads (iobench)",
        "Table scan, buffer manager and logging over I/O paths (DaMoN'21 §3, Figs 2–5).",
    ),
    (
        "ssb-tiers",
        "SSB on every tier (Fig. 14)",
        "The 13 Star Schema Benchmark queries on every tier, and the slowdown vs DRAM \
         (SIGMOD'21 Fig. 14).",
    ),
    (
        "ssb-breakdown",
        "SSB optimisation ladder (Table 1)",
        "One query from 1 thread to all threads, pinning, striping and replication, per tier \
         (SIGMOD'21 Table 1).",
    ),
    (
        "place-validate",
        "Placement: predicted vs measured",
        "The placement paper's placements with the slow structures on this machine's disk \
         (cold, or behind a bounded page cache): measured relative time against the paper's \
         model, its ablations and the page model (PVLDB'22 §6).",
    ),
    (
        "pg-tpch",
        "TPC-H on PostgreSQL per tier (Fig. 6)",
        "An unmodified PostgreSQL with its tablespace on each tier: every TPC-H query cold \
         and warm, the speedup over the slowest tier, and parallel COPY vs psql (DaMoN'21 §4, \
         Fig. 6).",
    ),
    (
        "hashbench",
        "Dash persistent hash table (hash bench)",
        "Lookup and insert throughput of the Dash hash table per tier and thread count \
         against std HashMap in DRAM in the same run, its load factor, and the time to \
         reopen a table after a crash (Dash, VLDB'20; the joins of SIGMOD'21 §6.2).",
    ),
    (
        "ssb-run",
        "SSB runs",
        "SSB queries on one tier (one tier of SIGMOD'21 Fig. 14).",
    ),
    (
        "elfbench",
        "Elf index with selective caching (elf bench)",
        "Queries/s per caching variant and query type, throughput over the query stream, \
         and vs selectivity (the selective-caching Elf paper, Figs 3–5).",
    ),
];

/// The most characters of one string field of a document (a CPU model, host name, OS,
/// kernel, tier name) shown in the report: longer ones are cut with `…` (docs/report.md,
/// "Input"). Real values are under 100.
pub(crate) const MAX_FIELD_CHARS: usize = 160;
/// The most characters of a free-text field (notes, a demo step's detail, file lists).
pub(crate) const MAX_TEXT_CHARS: usize = 2000;
/// The most characters of any one text the page escapes (a caption, a table cell):
/// the bound behind the two above, for fields rendered without them.
pub(crate) const MAX_ESCAPED_CHARS: usize = 16_384;

/// `s` cut to [`MAX_FIELD_CHARS`] characters, `…` marking the cut.
pub(crate) fn clip(s: &str) -> String {
    clip_to(s, MAX_FIELD_CHARS).into_owned()
}

/// `s` cut to [`MAX_TEXT_CHARS`] characters, `…` marking the cut.
pub(crate) fn clip_long(s: &str) -> String {
    clip_to(s, MAX_TEXT_CHARS).into_owned()
}

/// `s` cut to `max` characters (`…` marking the cut), borrowed when it fits.
pub(crate) fn clip_to(s: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match s.char_indices().nth(max) {
        None => std::borrow::Cow::Borrowed(s),
        Some((cut, _)) => std::borrow::Cow::Owned(format!("{}…", &s[..cut])),
    }
}

/// Escapes text for HTML element content and attribute values (at most
/// [`MAX_ESCAPED_CHARS`] characters of it).
pub(crate) fn esc(s: &str) -> String {
    let s = clip_to(s, MAX_ESCAPED_CHARS);
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

pub(crate) fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

pub(crate) fn table_html(t: &Table) -> String {
    let mut s = String::from("<table>\n<thead><tr>");
    for h in &t.head {
        let _ = write!(s, "<th>{}</th>", esc(h));
    }
    s.push_str("</tr></thead>\n<tbody>\n");
    for r in &t.rows {
        s.push_str("<tr>");
        for c in r {
            let _ = write!(s, "<td>{}</td>", esc(c));
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody>\n</table>\n");
    s
}

const STYLE: &str = "
body { font-family: system-ui, sans-serif; margin: 0 auto; max-width: 1200px; padding: 0 1.5em 3em; color: #222; }
h1 { margin-top: 1em; } h2 { border-bottom: 2px solid #ddd; padding-bottom: .2em; margin-top: 2em; }
h3 { margin-top: 1.6em; } nav ul { columns: 2; }
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
    let mut toc = vec![("machine-1".to_string(), "Machine and tiers".to_string())];
    body.push_str(&machine::machines_html(&inputs.docs));
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
            "<section id=\"skipped\">\n<h2>Skipped files</h2>\n<p>JSON files in the given \
             directories that are not pmolap results:</p>\n<ul>\n",
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
         <h1>pmolap report</h1>\n<p class=\"meta\">Made {} by pmolap {} from {} result file{} \
         ({} figure{}).</p>\n{nav}{body}</body>\n</html>\n",
        date(generated_unix),
        env!("CARGO_PKG_VERSION"),
        inputs.docs.len(),
        if inputs.docs.len() == 1 { "" } else { "s" },
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
        esc(&tables::summary(path, d))
    );
    let notes = tables::notes(d);
    if !notes.is_empty() {
        s.push_str("<ul class=\"notes\">\n");
        for n in notes {
            let _ = writeln!(s, "<li>{}</li>", esc(&n));
        }
        s.push_str("</ul>\n");
    }
    let figs = crate::plot::figures(d);
    if figs.is_empty() {
        let _ = writeln!(
            s,
            "<p class=\"empty\">No figure: {}</p>",
            esc(&crate::plot::nothing_to_plot(d))
        );
    }
    for f in &figs {
        s.push_str(&figure_html(f, partial, fig_no)?);
    }
    for t in tables::tables(d) {
        s.push_str(&table_html(&t));
    }
    s.push_str("</article>\n");
    Ok(s)
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
