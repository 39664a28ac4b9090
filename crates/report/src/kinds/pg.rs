//! Figures and tables of `pmolap pg tpch` (kind `pg-tpch`, DaMoN'21 §4 on this machine's
//! tiers): per TPC-H query the cold and the warm seconds on each tier as grouped bars
//! (the paper's Fig. 6), the speedup over the slowest tier, the per-query table with the
//! averages, and the load comparison.

use pmolap_results::pg::TpchReport;

use crate::draw::grouped::BarSeries;
use crate::draw::{header, Figure, GroupedBars, SEP};
use crate::markup::Table;

fn subtitle(doc: &TpchReport) -> String {
    [
        format!("SF {}", doc.config.sf),
        doc.server.version.clone(),
        format!("median of {} rep(s)", doc.config.reps),
        crate::markup::clip(doc.header.machine.cpu_model.trim()),
    ]
    .join(SEP)
}

/// Cold and warm seconds per query and tier, and the cold speedup over the slowest tier.
pub(crate) fn figures(doc: &TpchReport) -> Vec<Figure> {
    let rows = doc.rows();
    if rows.is_empty() {
        return Vec::new();
    }
    let categories: Vec<String> = rows.iter().map(|r| format!("Q{}", r.query)).collect();
    let names: Vec<&str> = doc.tiers.iter().map(|t| t.name.as_str()).collect();
    let mut series = Vec::new();
    for (i, t) in doc.tiers.iter().enumerate() {
        let cold_label = if t.cold_is_cold() {
            "cold"
        } else {
            "cold (not dropped: warm)"
        };
        series.push(BarSeries {
            label: format!("{} {cold_label}", t.name),
            values: rows.iter().map(|r| Some(r.cold[i])).collect(),
        });
        series.push(BarSeries {
            label: format!("{} warm", t.name),
            values: rows.iter().map(|r| Some(r.warm[i])).collect(),
        });
    }
    let mut out = vec![Figure::Grouped(GroupedBars {
        stem: "pg-tpch-seconds".into(),
        title: format!("TPC-H on PostgreSQL per tier ({})", names.join(", ")),
        subtitle: subtitle(doc),
        x_desc: "TPC-H query".into(),
        y_desc: "seconds".into(),
        categories: categories.clone(),
        series,
        reference: None,
        caption: format!(
            "Seconds of each TPC-H query on an unmodified PostgreSQL with its tablespace on \
             each tier ({}), cold (server restarted, the tier's files dropped from the page \
             cache) and warm (repeated at once). Corresponds to DaMoN'21 Fig. 6 (TPC-H on \
             PostgreSQL: NVMe, RAID 0, PMem).",
            names.join(", ")
        ),
    })];
    if doc.tiers.len() > 1 {
        let series = doc
            .tiers
            .iter()
            .enumerate()
            .map(|(i, t)| BarSeries {
                label: t.name.clone(),
                values: rows.iter().map(|r| Some(r.cold_speedup[i])).collect(),
            })
            .collect();
        out.push(Figure::Grouped(GroupedBars {
            stem: "pg-tpch-speedup".into(),
            title: "TPC-H on PostgreSQL: cold speedup over the slowest tier".into(),
            subtitle: subtitle(doc),
            x_desc: "TPC-H query".into(),
            y_desc: "slowest tier's seconds / this tier's".into(),
            categories,
            series,
            reference: Some(1.0),
            caption: "Per query, the slowest tier's cold seconds over each tier's (dashed: 1×); \
                      the paper reports PMem 4.2× over one NVMe on average (DaMoN'21 §4)."
                .into(),
        }));
    }
    out
}

/// The per-query table with the averages, and the load table.
pub(crate) fn tables(doc: &TpchReport) -> Vec<Table> {
    let mut head = vec!["query".to_string()];
    for kind in ["cold", "warm"] {
        for t in &doc.tiers {
            head.push(format!("{kind} {} (s)", t.name));
            head.push("speedup".into());
        }
    }
    head.push("top plan node".into());
    head.push("rows".into());
    let mut rows: Vec<Vec<String>> = doc
        .rows()
        .iter()
        .map(|r| {
            let mut row = vec![format!("Q{}", r.query)];
            for (v, s) in r.cold.iter().zip(&r.cold_speedup) {
                row.push(format!("{v:.3}"));
                row.push(format!("{s:.2}×"));
            }
            for (v, s) in r.warm.iter().zip(&r.warm_speedup) {
                row.push(format!("{v:.3}"));
                row.push(format!("{s:.2}×"));
            }
            let node = doc.tiers[0]
                .queries
                .iter()
                .find(|q| q.query == r.query)
                .map_or(String::new(), |q| q.top_node.clone());
            row.push(node);
            let n = doc
                .answers
                .iter()
                .find(|a| a.query == r.query)
                .map_or(String::new(), |a| a.rows.to_string());
            row.push(n);
            row
        })
        .collect();
    let summary = doc.summary();
    let mut total = vec!["total / average".to_string()];
    for s in &summary {
        total.push(format!("{:.3}", s.cold_total));
        total.push(format!("{:.2}×", s.cold_avg_speedup));
    }
    for s in &summary {
        total.push(format!("{:.3}", s.warm_total));
        total.push(format!("{:.2}×", s.warm_avg_speedup));
    }
    total.extend([String::new(), String::new()]);
    rows.push(total);
    let per_query = Table { head, rows };

    let l = &doc.load;
    let mut load_rows = Vec::new();
    if let (Some(s), Some(rps)) = (l.psql_copy_seconds, l.psql_rows_per_s()) {
        load_rows.push(vec![
            "single-stream psql \\copy (first tier)".into(),
            format!("{s:.1}"),
            format!("{rps:.0}"),
            "1.00×".into(),
        ]);
    }
    let base = l.psql_rows_per_s();
    for t in &doc.tiers {
        let rps = t.copy_rows_per_s(l.rows);
        load_rows.push(vec![
            format!("{} COPY streams into {}", doc.config.streams, t.name),
            format!("{:.1}", t.copy_seconds),
            format!("{rps:.0}"),
            base.map_or("-".into(), |b| format!("{:.2}×", rps / b)),
        ]);
    }
    let load = Table {
        head: header(&["load (no indexes)", "seconds", "rows/s", "vs psql"]),
        rows: load_rows,
    };
    let devices = Table {
        head: header(&[
            "tier",
            "device",
            "model",
            "filesystem",
            "mount options",
            "cold runs",
            "indexes (s)",
            "VACUUM ANALYZE (s)",
            "database (GB)",
        ]),
        rows: doc
            .tiers
            .iter()
            .map(|t| {
                vec![
                    t.name.clone(),
                    t.device.device.clone(),
                    t.device.model.clone().unwrap_or_else(|| "-".into()),
                    t.device.fs_type.clone(),
                    t.device.mount_options.clone(),
                    t.cold_note.clone(),
                    format!("{:.1}", t.index_seconds),
                    format!("{:.1}", t.vacuum_analyze_seconds),
                    format!("{:.2}", t.database_bytes as f64 / 1e9),
                ]
            })
            .collect(),
    };
    vec![per_query, load, devices]
}
