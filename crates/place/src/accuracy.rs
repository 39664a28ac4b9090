//! What an advice says about its own accuracy: the advised model's measured error on this
//! machine's tier, from the latest `pmolap place validate` of the same workload, profile
//! and options ([`Accuracy`], carried by placement files), and the small records
//! `place validate` leaves for `place advise` to find ([`AccuracyRecord`], one file per
//! (key, setting) in a directory: `docs/placement.md`, "Accuracy").

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::files::{check_header, read_json, write_json};

/// The `format` field of an accuracy record.
pub const ACCURACY_FORMAT: &str = "pmolap-accuracy";
/// The version of the accuracy record this build reads and writes.
pub const ACCURACY_VERSION: u32 = 1;

/// The advised model's relative errors |predicted / measured − 1| in one validation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeasuredError {
    /// `page` or `paper`: the model the advice was solved with.
    pub model: String,
    /// `cold` or `cache:BYTES`: how the slow tier's pages were kept.
    pub setting: String,
    /// When the validation finished (`YYYY-MM-DD HH:MM UTC`).
    pub date: String,
    /// The `place-validate` document.
    pub document: String,
    /// Over every (placement, query).
    pub query_median: f64,
    pub query_max: f64,
    /// Over the placements, whole workload.
    pub workload_median: f64,
    pub workload_max: f64,
    /// Placements measured.
    pub placements: usize,
}

impl std::fmt::Display for MeasuredError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "measured error of the {} model on this tier ({}, {}): |predicted/measured - 1| per query median {:.1}% max {:.1}%, whole workload median {:.1}% max {:.1}% over {} placements ({})",
            self.model,
            self.setting,
            self.date,
            100.0 * self.query_median,
            100.0 * self.query_max,
            100.0 * self.workload_median,
            100.0 * self.workload_max,
            self.placements,
            self.document
        )
    }
}

/// An advice's accuracy as its placement file states it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Accuracy {
    /// Measured by `place validate` on this machine.
    Validated(MeasuredError),
    /// No validation of this workload, profile and options on this machine.
    NotValidated,
}

impl std::fmt::Display for Accuracy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Accuracy::Validated(e) => e.fmt(f),
            Accuracy::NotValidated => f.write_str("not validated on this machine"),
        }
    }
}

/// What `place validate` leaves behind for `place advise`: the key of the workload,
/// profile and options it solved with ([`crate::AdviceOptions::key`]), the machine, when,
/// and the advised model's errors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccuracyRecord {
    /// Always [`ACCURACY_FORMAT`].
    pub format: String,
    /// Always [`ACCURACY_VERSION`].
    pub version: u32,
    pub key: String,
    /// The host name of the machine validated on.
    pub machine: String,
    /// Seconds since the Unix epoch when the validation finished (orders records).
    pub unix_time: u64,
    pub error: MeasuredError,
}

impl AccuracyRecord {
    pub fn new(key: String, machine: String, unix_time: u64, error: MeasuredError) -> Self {
        AccuracyRecord {
            format: ACCURACY_FORMAT.into(),
            version: ACCURACY_VERSION,
            key,
            machine,
            unix_time,
            error,
        }
    }

    /// The record's file in `dir`: one per key and setting (a later validation in the
    /// same setting replaces it).
    pub fn path_in(&self, dir: &Path) -> PathBuf {
        let setting: String = self
            .error
            .setting
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        dir.join(format!("{}-{setting}.json", self.key))
    }

    /// Writes the record into `dir` (created if missing); its path.
    pub fn save(&self, dir: &Path) -> Result<PathBuf> {
        std::fs::create_dir_all(dir).map_err(|source| Error::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let path = self.path_in(dir);
        write_json(&path, self)?;
        Ok(path)
    }

    /// Loads and checks one record.
    pub fn load(path: &Path) -> Result<Self> {
        let r: AccuracyRecord = read_json(path)?;
        check_header(
            &path.display().to_string(),
            &r.format,
            r.version,
            ACCURACY_FORMAT,
            ACCURACY_VERSION,
        )?;
        Ok(r)
    }

    /// The accuracy of an advice with `key` on `machine` in `setting` (`cold`, or
    /// `cache:BYTES` behind a bounded cache) from the records for both in `dir`: the
    /// latest of the same setting; else, behind a cache, the latest of the cache nearest
    /// in size (by ratio); else the latest of any setting — the record's `setting` says
    /// which it was. [`Accuracy::NotValidated`] where there is none (also when `dir` does
    /// not exist).
    pub fn latest(dir: &Path, key: &str, machine: &str, setting: &str) -> Result<Accuracy> {
        let entries = match std::fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Accuracy::NotValidated)
            }
            Err(source) => {
                return Err(Error::Io {
                    path: dir.to_path_buf(),
                    source,
                })
            }
        };
        let prefix = format!("{key}-");
        let mut records = Vec::new();
        for e in entries {
            let e = e.map_err(|source| Error::Io {
                path: dir.to_path_buf(),
                source,
            })?;
            let name = e.file_name();
            let name = name.to_string_lossy();
            if !(name.starts_with(&prefix) && name.ends_with(".json")) {
                continue;
            }
            let r = AccuracyRecord::load(&e.path())?;
            if r.key == key && r.machine == machine {
                records.push(r);
            }
        }
        Ok(closest(records, setting)
            .map_or(Accuracy::NotValidated, |r| Accuracy::Validated(r.error)))
    }
}

/// The bytes of a `cache:BYTES` setting.
fn cache_bytes(setting: &str) -> Option<f64> {
    let b: u64 = setting.strip_prefix("cache:")?.parse().ok()?;
    (b > 0).then_some(b as f64)
}

/// The record whose setting matches `setting` best ([`AccuracyRecord::latest`]'s order:
/// the same setting, then the nearest cache behind a cache, then any; the latest among
/// equals).
fn closest(records: Vec<AccuracyRecord>, setting: &str) -> Option<AccuracyRecord> {
    let wanted = cache_bytes(setting);
    // Higher is better: (the same setting, minus the log-distance of the caches' sizes).
    let rank = |r: &AccuracyRecord| -> (bool, f64) {
        let same = r.error.setting == setting;
        let near = match (wanted, cache_bytes(&r.error.setting)) {
            (Some(a), Some(b)) => -(a / b).ln().abs(),
            _ => f64::NEG_INFINITY,
        };
        (same, near)
    };
    records.into_iter().max_by(|a, b| {
        let (ra, rb) = (rank(a), rank(b));
        ra.0.cmp(&rb.0)
            .then(ra.1.total_cmp(&rb.1))
            .then(a.unix_time.cmp(&b.unix_time))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(setting: &str, median: f64) -> MeasuredError {
        MeasuredError {
            model: "page".into(),
            setting: setting.into(),
            date: "2024-01-01 00:00 UTC".into(),
            document: "v.json".into(),
            query_median: median,
            query_max: 2.0 * median,
            workload_median: median,
            workload_max: median,
            placements: 13,
        }
    }

    #[test]
    fn latest_record_of_the_key_and_machine_wins() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("accuracy");
        assert_eq!(
            AccuracyRecord::latest(&d, "k", "host", "cold").unwrap(),
            Accuracy::NotValidated
        );
        AccuracyRecord::new("k".into(), "host".into(), 10, error("cold", 0.1))
            .save(&d)
            .unwrap();
        AccuracyRecord::new("k".into(), "host".into(), 20, error("cache:1024", 0.2))
            .save(&d)
            .unwrap();
        AccuracyRecord::new("k".into(), "other".into(), 30, error("cold", 0.3))
            .save(&d)
            .unwrap();
        AccuracyRecord::new("j".into(), "host".into(), 40, error("cold", 0.4))
            .save(&d)
            .unwrap();
        // `other` replaced host's cold record (same key and setting): the cache one is
        // all that is left for host, and stands in for the cold one (its setting says so).
        assert_eq!(
            AccuracyRecord::latest(&d, "k", "host", "cold").unwrap(),
            Accuracy::Validated(error("cache:1024", 0.2))
        );
        assert_eq!(
            AccuracyRecord::latest(&d, "k", "other", "cold").unwrap(),
            Accuracy::Validated(error("cold", 0.3))
        );
        assert_eq!(
            AccuracyRecord::latest(&d, "x", "host", "cold").unwrap(),
            Accuracy::NotValidated
        );
        // A damaged record is a one-line error naming it.
        std::fs::write(d.join("k-broken.json"), "{").unwrap();
        let e = AccuracyRecord::latest(&d, "k", "host", "cold")
            .unwrap_err()
            .to_string();
        assert!(e.contains("k-broken.json"), "{e}");
    }

    #[test]
    fn the_record_of_the_advice_s_own_setting_wins() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("accuracy");
        for (t, setting) in [
            (10, "cold"),
            (20, "cache:1000"),
            (30, "cache:4000"),
            (5, "cache:2000"),
        ] {
            AccuracyRecord::new("k".into(), "host".into(), t, error(setting, 0.1))
                .save(&d)
                .unwrap();
        }
        let of = |setting: &str| match AccuracyRecord::latest(&d, "k", "host", setting).unwrap() {
            Accuracy::Validated(e) => e.setting,
            Accuracy::NotValidated => "none".into(),
        };
        // The same setting, however old; cold never takes a cache's record while it has
        // its own.
        assert_eq!(of("cold"), "cold");
        assert_eq!(of("cache:1000"), "cache:1000");
        assert_eq!(of("cache:2000"), "cache:2000");
        // Behind another cache, the nearest by ratio (2900 is 1.45x 2000, 1.38x 4000),
        // not the latest.
        assert_eq!(of("cache:1900"), "cache:2000");
        assert_eq!(of("cache:2900"), "cache:4000");
        assert_eq!(of("cache:100"), "cache:1000");
        // Without a record of its kind: the latest of any setting.
        std::fs::remove_file(d.join("k-cold.json")).unwrap();
        assert_eq!(of("cold"), "cache:4000");
        for s in ["cache:1000", "cache:4000", "cache:2000"] {
            std::fs::remove_file(d.join(format!("k-{}.json", s.replace(':', "-")))).unwrap();
        }
        assert_eq!(of("cache:1000"), "none");
    }

    #[test]
    fn accuracy_round_trips_in_json() {
        for a in [
            Accuracy::Validated(error("cold", 0.05)),
            Accuracy::NotValidated,
        ] {
            let text = serde_json::to_string(&a).unwrap();
            assert_eq!(
                serde_json::from_str::<Accuracy>(&text).unwrap(),
                a,
                "{text}"
            );
        }
        assert_eq!(
            serde_json::to_string(&Accuracy::NotValidated).unwrap(),
            r#"{"status":"not_validated"}"#
        );
        assert_eq!(
            Accuracy::NotValidated.to_string(),
            "not validated on this machine"
        );
    }
}
