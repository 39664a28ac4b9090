//! Whether a TPC-H scale factor fits on this machine before any work (issue 34 item 9):
//! every filesystem the run writes to (each tier's tablespace, the run directory; paths
//! on one filesystem add up) and RAM (tmpfs tiers live in it beside PostgreSQL's shared
//! buffers) — and, when it does not, the largest scale factor that does.

use std::os::unix::fs::MetadataExt as _;
use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::tiers::{FIXED_BYTES, TIER_BYTES_PER_SF, WAL_BYTES, WORK_BYTES_PER_SF};
use crate::TpchOptions;

/// Memory kept free beside the tmpfs data and the shared buffers: the generator, the
/// server's backends and their work memory, the client.
pub const RAM_HEADROOM_BYTES: u64 = 1 << 30;

/// One place with a limited number of bytes and what the run would put there: per scale
/// factor and fixed.
#[derive(Debug, Clone, PartialEq)]
pub struct Space {
    /// `"/dev/shm (tmpfs)"`, `"RAM"`.
    pub name: String,
    pub free: u64,
    pub per_sf: f64,
    pub fixed: u64,
}

impl Space {
    /// Bytes needed at `sf`.
    pub fn need(&self, sf: f64) -> u64 {
        (sf * self.per_sf) as u64 + self.fixed
    }

    /// The largest scale factor whose data fits (0 when not even the fixed part does).
    pub fn largest_sf(&self) -> f64 {
        if self.per_sf <= 0.0 {
            return f64::INFINITY;
        }
        (self.free.saturating_sub(self.fixed) as f64 / self.per_sf).max(0.0)
    }
}

/// `x` rounded down to a scale factor a user would type: whole numbers from 1, tenths
/// from 0.1, hundredths below (0 below 0.01).
pub fn round_down_sf(x: f64) -> f64 {
    let step = if x >= 1.0 {
        1.0
    } else if x >= 0.1 {
        0.1
    } else {
        0.01
    };
    // The small epsilon keeps 0.3 (0.29999…) from rounding to 0.2.
    ((x / step) + 1e-9).floor() * step
}

/// The largest scale factor (rounded down by [`round_down_sf`]) that every space holds,
/// and the space that limits it.
pub fn largest_fitting(spaces: &[Space]) -> Option<(f64, &Space)> {
    let s = spaces
        .iter()
        .min_by(|a, b| a.largest_sf().total_cmp(&b.largest_sf()))?;
    Some((round_down_sf(s.largest_sf().min(1000.0)), s))
}

/// `Ok` when `sf` fits in every space; else a one-line error naming the space that is
/// short, what it needs and has, and the largest scale factor that fits here.
pub fn check_fits(sf: f64, spaces: &[Space]) -> Result<()> {
    let Some(short) = spaces.iter().find(|s| s.need(sf) > s.free) else {
        return Ok(());
    };
    let largest = match largest_fitting(spaces) {
        Some((l, _)) if l >= 0.01 => {
            format!("the largest scale factor that fits here is {l} (--sf {l}, or --sf largest)")
        }
        _ => "no scale factor fits here".into(),
    };
    Err(Error::Invalid(format!(
        "--sf {sf} does not fit: {} needs about {:.1} GB ({:.1} GB per SF + {:.1} GB) but has {:.1} GB free; {largest}",
        short.name,
        short.need(sf) as f64 / 1e9,
        short.per_sf / 1e9,
        short.fixed as f64 / 1e9,
        short.free as f64 / 1e9,
    )))
}

/// The spaces a run of `opts` writes to on this machine: one per filesystem of the tiers
/// and the run directory (paths that do not exist are left to the tier checks), and RAM.
pub fn spaces(opts: &TpchOptions) -> Result<Vec<Space>> {
    // (path, bytes per SF, fixed bytes besides the cluster's): the run directory also
    // holds the data directory's WAL.
    let mut uses: Vec<(PathBuf, f64, u64)> = opts
        .tiers
        .iter()
        .map(|t| (t.clone(), TIER_BYTES_PER_SF, 0))
        .collect();
    uses.push((opts.work_dir.clone(), WORK_BYTES_PER_SF, WAL_BYTES));
    // Group by filesystem (st_dev).
    let mut fs: Vec<(u64, Space)> = Vec::new();
    let mut ram = Space {
        name: "RAM".into(),
        free: pmolap_tier::region::capacity(&pmolap_tier::TierSpec::Dram { node: None })?,
        per_sf: 0.0,
        fixed: shared_buffers_bytes() + RAM_HEADROOM_BYTES,
    };
    for (path, per_sf, extra) in &uses {
        let Ok(meta) = std::fs::metadata(path) else {
            continue;
        };
        let info = crate::tiers::describe(path);
        if info.fs_type == "tmpfs" {
            ram.per_sf += per_sf;
            ram.fixed += FIXED_BYTES + extra;
        }
        match fs.iter_mut().find(|(dev, _)| *dev == meta.dev()) {
            Some((_, s)) => {
                s.name = format!("{} + {}", s.name, path.display());
                s.per_sf += per_sf;
                s.fixed += FIXED_BYTES + extra;
            }
            None => fs.push((
                meta.dev(),
                Space {
                    name: format!("{} ({})", path.display(), info.fs_type),
                    free: pmolap_tier::region::fs_free_bytes(path)?,
                    per_sf: *per_sf,
                    fixed: FIXED_BYTES + extra,
                },
            )),
        }
    }
    let mut out: Vec<Space> = fs.into_iter().map(|(_, s)| s).collect();
    out.push(ram);
    Ok(out)
}

/// PostgreSQL's shared buffers as the run's settings give them (`settings::pgtune`).
fn shared_buffers_bytes() -> u64 {
    crate::settings::pgtune(crate::settings::MachineFacts::detect())
        .iter()
        .find(|(k, _)| k == "shared_buffers")
        .and_then(|(_, v)| v.strip_suffix("MB")?.parse::<u64>().ok())
        .map_or(0, |mb| mb << 20)
}

/// The largest scale factor a run of `opts` (its tiers and run directory) fits at here,
/// and the space that limits it, e.g. `(6, "RAM")`.
pub fn largest_sf(opts: &TpchOptions) -> Result<(f64, String)> {
    let s = spaces(opts)?;
    match largest_fitting(&s) {
        Some((sf, lim)) if sf >= 0.01 => Ok((sf, lim.name.clone())),
        _ => Err(Error::Invalid(
            "no TPC-H scale factor fits here (not even 0.01): free space on the tiers, the run directory or RAM"
                .into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn space(name: &str, free_gb: f64, per_sf_gb: f64) -> Space {
        Space {
            name: name.into(),
            free: (free_gb * 1e9) as u64,
            per_sf: per_sf_gb * 1e9,
            fixed: 600 << 20,
        }
    }

    #[test]
    fn the_largest_fitting_sf_is_named_in_a_one_line_refusal() {
        // This machine kind: 23 GB RAM (6 GB shared buffers + 1 GB kept free), /dev/shm
        // and the disk with the run directory.
        let s = vec![
            space("/dev/shm (tmpfs)", 24.0, 2.6),
            space("/var/tmp (ext4) + /tmp", 41.0, 3.8),
            Space {
                fixed: 7_600_000_000,
                ..space("RAM", 23.5, 2.6)
            },
        ];
        let (sf, lim) = largest_fitting(&s).unwrap();
        assert_eq!((sf, lim.name.as_str()), (6.0, "RAM"));
        check_fits(6.0, &s).unwrap();
        let e = check_fits(10.0, &s).unwrap_err().to_string();
        assert!(!e.contains('\n'), "{e}");
        assert!(
            e.contains("--sf 10 does not fit: /dev/shm (tmpfs) needs about"),
            "{e}"
        );
        assert!(
            e.contains("the largest scale factor that fits here is 6"),
            "{e}"
        );
        // Nothing fits.
        let tiny = vec![space("/x (ext4)", 0.1, 2.6)];
        let e = check_fits(1.0, &tiny).unwrap_err().to_string();
        assert!(e.contains("no scale factor fits here"), "{e}");
    }

    #[test]
    fn scale_factors_round_down_to_what_a_user_types() {
        assert_eq!(round_down_sf(6.93), 6.0);
        assert_eq!(round_down_sf(1.0), 1.0);
        assert!((round_down_sf(0.3) - 0.3).abs() < 1e-12);
        assert!((round_down_sf(0.349) - 0.3).abs() < 1e-12);
        assert!((round_down_sf(0.057) - 0.05).abs() < 1e-12);
        assert_eq!(round_down_sf(0.004), 0.0);
    }
}
