//! One colour per tier across the whole report: a series whose label names a tier
//! (`dram`, `shm`, `disk`, `file:/mnt/pmem0`, `dram cold`, ...) gets that tier's colour
//! in every figure; figures whose series are not one per tier (or name one tier twice,
//! such as cold and warm bars of the same tier) keep the palette in series order. Short
//! names for legends ([`short_tier`]): a file tier by its last directory (the full path
//! is in the captions and tables).

use plotters::style::RGBColor;

use super::PALETTE;

/// The tier a label names, short: the label's first word, a `file:` or `devdax:` path by
/// its last component, `dram:node=N` kept.
pub(crate) fn short_tier(label: &str) -> String {
    let first = label.split_whitespace().next().unwrap_or(label);
    let path = first
        .strip_prefix("file:")
        .or_else(|| first.strip_prefix("devdax:"))
        .unwrap_or(first);
    if path.contains('/') {
        let last = path
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or(path);
        if last.is_empty() {
            return path.to_string();
        }
        return last.to_string();
    }
    path.to_string()
}

/// A legend's text: the label with a leading tier path shortened ([`short_tier`]); the
/// full path stays in the caption and tables.
pub(crate) fn legend_label(label: &str) -> String {
    label
        .split(' ')
        .map(|w| {
            if w.contains('/') && (w.starts_with('/') || w.contains(':')) {
                let (open, rest) = w.split_at(w.len() - w.trim_start_matches('(').len());
                let kept = rest.trim_end_matches([')', ',']);
                format!("{open}{}{}", short_tier(kept), &rest[kept.len()..])
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The colour of tier `name` (short name): fixed for the usual tiers, else a stable
/// hash of the name into the palette.
pub(crate) fn tier_colour(name: &str) -> RGBColor {
    let i = match name {
        "dram" => 0,
        "shm" => 2,
        "disk" | "tmp" => 1,
        "pmem" | "pmem0" | "fsdax" => 3,
        "devdax" | "dax0.0" => 4,
        "cxl" => 5,
        _ if name.starts_with("dram:") => 9,
        _ => {
            let mut h: u64 = 0xcbf2_9ce4_8422_2325;
            for b in name.bytes() {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
            (h % PALETTE.len() as u64) as usize
        }
    };
    PALETTE[i]
}

/// Whether `label` names a tier as its first word (not a baseline such as `HashMap`).
fn names_tier(label: &str) -> bool {
    let first = label.split_whitespace().next().unwrap_or("");
    first == "dram"
        || first.starts_with("dram:")
        || first.starts_with("file:")
        || first.starts_with("devdax:")
        || first.starts_with('/')
        || matches!(first, "shm" | "disk" | "pmem" | "cxl" | "tmp")
}

/// The colours of a figure's series: by tier where every series names a distinct tier,
/// else the palette in order.
pub(crate) fn series_colours(labels: &[&str]) -> Vec<RGBColor> {
    let tiers: Vec<String> = labels.iter().map(|l| short_tier(l)).collect();
    let mut distinct = tiers.clone();
    distinct.sort();
    distinct.dedup();
    let colours: Vec<RGBColor> = tiers.iter().map(|t| tier_colour(t)).collect();
    let mut cs = colours.clone();
    cs.sort_by_key(|c| (c.0, c.1, c.2));
    cs.dedup();
    if !labels.is_empty()
        && labels.iter().all(|l| names_tier(l))
        && distinct.len() == labels.len()
        && cs.len() == labels.len()
    {
        colours
    } else {
        (0..labels.len())
            .map(|i| PALETTE[i % PALETTE.len()])
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tier_has_one_colour_in_every_figure() {
        let a = series_colours(&["dram", "shm", "disk"]);
        let b = series_colours(&["disk", "dram"]);
        assert_eq!(a[0], b[1]);
        assert_eq!(a[2], b[0]);
        assert_eq!(short_tier("file:/var/tmp/x/disk cold"), "disk");
        assert_eq!(short_tier("dram:node=1"), "dram:node=1");
        // Two series of one tier: palette order.
        assert_eq!(
            legend_label("Dash on file:/var/tmp/pmolap/disk (1000 keys)"),
            "Dash on disk (1000 keys)"
        );
        assert_eq!(legend_label("/mnt/pmem0/x cold"), "x cold");
        let c = series_colours(&["dram cold", "dram warm"]);
        assert_ne!(c[0], c[1]);
    }
}
