//! HTML building blocks shared by the per-kind modules and the page: escaping, tables of
//! text cells (every cell escaped), the partial badge, file names.

use std::fmt::Write as _;
use std::path::Path;

/// The label of a partial document.
pub(crate) const PARTIAL_BADGE: &str = " <span class=\"partial\">partial (interrupted)</span>";

/// The last component of `p` (all of it when it has none).
pub(crate) fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// At most this many rows in a run table (the rest are counted).
const MAX_ROWS: usize = 400;

/// A table of text cells (escaped when written).
#[derive(Debug, Clone, Default)]
pub(crate) struct Table {
    pub(crate) head: Vec<String>,
    pub(crate) rows: Vec<Vec<String>>,
}

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

/// A table in a container that scrolls sideways when the table is wider than the page.
pub(crate) fn table_html(t: &Table) -> String {
    let mut s = String::from("<div class=\"scroll\"><table>\n<thead><tr>");
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
    s.push_str("</tbody>\n</table></div>\n");
    s
}

/// `rows`, at most [`MAX_ROWS`] of them, then one row counting the rest.
pub(crate) fn capped(mut rows: Vec<Vec<String>>, width: usize) -> Vec<Vec<String>> {
    if rows.len() > MAX_ROWS {
        let n = rows.len() - MAX_ROWS;
        rows.truncate(MAX_ROWS);
        let mut last = vec![format!("… {n} more runs in the file")];
        last.resize(width, String::new());
        rows.push(last);
    }
    rows
}
