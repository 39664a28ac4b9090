//! Figures and tables of the placement advisor's own documents (kinds `place-workload`,
//! `place-profile`, `placement`): the workload's accesses per structure (a bar figure of
//! the most accessed structures and the table of every structure with its accesses per
//! byte), a profile's extra cost per access over DRAM, and a placement's tiers and
//! structures with the model's prediction.

use pmolap_results::placefiles::{PlacementDoc, ProfileDoc, WorkloadDoc};
use pmolap_results::size::format_size;
use pmolap_results::Detail;

use crate::draw::axis::count;
use crate::draw::{Bar, BarFigure, Figure, SEP};
use crate::markup::Table;

/// The most structures drawn in the workload's figure (the table lists all).
const MAX_BARS: usize = 20;

fn id(table: &str, column: &str, kind: &str) -> String {
    let short = match kind {
        "dictionary" => "dict",
        "data_vector" => "dv",
        "inverted_index" => "inv",
        k => k,
    };
    format!("{table}.{column}.{short}")
}

pub(crate) fn workload_summary(w: &WorkloadDoc) -> String {
    let bytes: u64 = w.structures.iter().map(|s| s.bytes).sum();
    let accessed = w.structures.iter().filter(|s| s.accesses() > 0).count();
    format!(
        "placement workload{}: {} structures ({}), {accessed} accessed, T_DRAM {:.1} ms",
        if w.description.is_empty() {
            String::new()
        } else {
            format!(" \"{}\"", crate::markup::clip(&w.description))
        },
        w.structures.len(),
        format_size(bytes),
        w.t_dram_ns / 1e6
    )
}

/// The most accessed structures as bars (log axis when they span orders of magnitude).
pub(crate) fn workload_figures(w: &WorkloadDoc) -> Vec<Figure> {
    let mut s: Vec<_> = w.structures.iter().filter(|s| s.accesses() > 0).collect();
    if s.is_empty() {
        return Vec::new();
    }
    s.sort_by_key(|st| std::cmp::Reverse(st.accesses()));
    let shown = s.len().min(MAX_BARS);
    let bars = s[..shown]
        .iter()
        .map(|st| Bar {
            label: format!(
                "{} ({})",
                id(&st.table, &st.column, &st.kind),
                format_size(st.bytes)
            ),
            qps: st.accesses() as f64,
            rel: None,
            baseline: false,
            hybrid: false,
        })
        .collect();
    let threads = w.threads.unwrap_or(1);
    vec![Figure::Bars(BarFigure {
        stem: "place-workload-accesses".into(),
        title: format!(
            "Placement workload: accesses per structure ({shown} most accessed of {})",
            s.len()
        ),
        subtitle: [
            crate::markup::clip(&w.description),
            format!("{threads} worker thread(s)"),
            format!("T_DRAM {:.1} ms", w.t_dram_ns / 1e6),
        ]
        .join(SEP),
        x_desc: "logical accesses (scan, lookup and dense accesses together)".into(),
        unit: "accesses",
        bars,
        caption: format!(
            "Logical accesses per structure (name: table.column.dict|dv|inv, its size) \
             counted while the workload ran with every structure in DRAM ({}; {threads} \
             worker thread(s)); the {shown} most accessed of {} accessed structures. What the \
             placement model weighs against the slow tier's extra cost per access (PVLDB'22 \
             §4.1). The table lists every structure with its accesses per byte.",
            if w.description.is_empty() {
                "no description"
            } else {
                &w.description
            },
            s.len()
        ),
    })]
}

pub(crate) fn workload_tables(w: &WorkloadDoc) -> Vec<Table> {
    let types: Vec<String> = {
        let mut t: Vec<String> = w
            .structures
            .iter()
            .flat_map(|s| s.counts.keys().cloned())
            .collect();
        t.sort();
        t.dedup();
        t
    };
    let mut s: Vec<_> = w.structures.iter().collect();
    s.sort_by(|a, b| b.accesses().cmp(&a.accesses()).then(b.bytes.cmp(&a.bytes)));
    let mut head = vec!["structure".to_string(), "size".into()];
    head.extend(types.iter().cloned());
    head.extend(["accesses".into(), "accesses per KiB (heat)".into()]);
    let rows = s
        .iter()
        .map(|st| {
            let mut r = vec![id(&st.table, &st.column, &st.kind), format_size(st.bytes)];
            r.extend(
                types
                    .iter()
                    .map(|t| count(st.counts.get(t).copied().unwrap_or(0) as f64)),
            );
            r.push(count(st.accesses() as f64));
            r.push(if st.bytes == 0 {
                "-".into()
            } else {
                format!("{:.3}", st.accesses() as f64 * 1024.0 / st.bytes as f64)
            });
            r
        })
        .collect();
    vec![Table { head, rows }]
}

pub(crate) fn profile_summary(p: &ProfileDoc) -> String {
    format!(
        "cost profile of tier {}: {} per-access costs{}, {}",
        crate::markup::clip(&p.tier),
        p.costs.len(),
        if p.pages.is_some() {
            " and page costs"
        } else {
            ""
        },
        crate::markup::clip(&p.source_text())
    )
}

fn ns(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{v:.2}"))
}

pub(crate) fn profile_tables(p: &ProfileDoc) -> Vec<Table> {
    let rows = p
        .costs
        .iter()
        .map(|c| {
            vec![
                c.structure.clone(),
                match c.bit_width {
                    Some(w) => format!("{} ({w} bits)", c.variant),
                    None => c.variant.clone(),
                },
                c.access.clone(),
                ns(c.dram_ns),
                ns(c.tier_ns),
                format!("{:.2}", c.extra_ns),
                c.note.clone().unwrap_or_default(),
            ]
        })
        .collect();
    let mut out = vec![Table {
        head: [
            "structure",
            "variant",
            "access",
            "DRAM ns",
            &format!("{} ns", p.tier),
            "extra ns per access",
            "note",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }];
    if let Some(Detail::Object(pages)) = &p.pages {
        out.push(Table {
            head: vec!["page cost".into(), "value".into()],
            rows: pages
                .iter()
                .map(|(k, v)| {
                    vec![
                        k.clone(),
                        v.as_str().map_or_else(|| v.to_string(), str::to_string),
                    ]
                })
                .collect(),
        });
    }
    out
}

fn field(d: &Option<Detail>, k: &str) -> Option<f64> {
    d.as_ref().and_then(|d| d.get(k)).and_then(Detail::as_f64)
}

pub(crate) fn placement_summary(p: &PlacementDoc) -> String {
    let slow = p
        .structures
        .iter()
        .filter(|s| p.tiers.first().is_none_or(|t| t.name != s.tier))
        .count();
    format!(
        "placement over {} tiers: {slow} of {} listed structures off {}{}",
        p.tiers.len(),
        p.structures.len(),
        p.tiers
            .first()
            .map_or("the first tier", |t| t.name.as_str()),
        field(&p.predicted, "relative")
            .map_or(String::new(), |r| format!(", predicted {r:.3}x DRAM time"))
    )
}

pub(crate) fn placement_tables(p: &PlacementDoc) -> Vec<Table> {
    let per_tier = |name: &str| p.structures.iter().filter(|s| s.tier == name).count();
    let mut out = vec![Table {
        head: ["tier", "location", "capacity", "structures listed"]
            .map(String::from)
            .to_vec(),
        rows: p
            .tiers
            .iter()
            .map(|t| {
                vec![
                    t.name.clone(),
                    t.location.clone().unwrap_or_else(|| "-".into()),
                    t.capacity_bytes.map_or("-".into(), format_size),
                    per_tier(&t.name).to_string(),
                ]
            })
            .collect(),
    }];
    let mut facts = Vec::new();
    if let Some(r) = field(&p.predicted, "relative") {
        facts.push(vec![
            "predicted time vs all in DRAM".into(),
            format!("{r:.3}x"),
        ]);
    }
    if let Some(b) = field(&p.predicted, "bytes_moved") {
        facts.push(vec!["bytes off DRAM".into(), format_size(b as u64)]);
    }
    let share = p.predicted.as_ref().and_then(|d| d.get("slow_share"));
    if let Some(f) = share
        .and_then(|s| s.get("accessed_fraction"))
        .and_then(Detail::as_f64)
    {
        facts.push(vec![
            "slow share of the accessed bytes".into(),
            format!("{:.1} %", f * 100.0),
        ]);
    }
    if let Some(a) = &p.accuracy {
        facts.push(vec![
            "model accuracy here".into(),
            match a {
                Detail::String(s) => s.replace('_', " "),
                a => a.to_string(),
            },
        ]);
    }
    if !facts.is_empty() {
        out.push(Table {
            head: vec!["prediction".into(), "value".into()],
            rows: facts,
        });
    }
    out.push(Table {
        head: ["structure", "tier"].map(String::from).to_vec(),
        rows: p
            .structures
            .iter()
            .map(|s| vec![id(&s.table, &s.column, &s.kind), s.tier.clone()])
            .collect(),
    });
    out
}
