//! `TierSpec`: the textual name of a memory tier (`dram`, `dram:node=N`, `file:PATH`,
//! `devdax:PATH`), parsed and printed so that `Display` round-trips `FromStr`.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use pmolap_os::{Error, Result};

/// Where a [`crate::Region`] lives.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TierSpec {
    /// Anonymous DRAM, optionally bound to one NUMA node (`dram`, `dram:node=1`).
    Dram { node: Option<u32> },
    /// A file on any filesystem (`file:/mnt/pmem0/x`, `file:/dev/shm/x`). A directory
    /// means "a fresh temporary file in it". DAX mounts are detected and mapped with
    /// `MAP_SYNC`.
    File { path: PathBuf },
    /// A device-DAX character device (`devdax:/dev/dax0.0`).
    DevDax { path: PathBuf },
}

impl TierSpec {
    /// The NUMA node the spec binds to, if it names one.
    pub fn node(&self) -> Option<u32> {
        match self {
            TierSpec::Dram { node } => *node,
            _ => None,
        }
    }

    /// A short kind name: `dram`, `file` or `devdax`.
    pub fn kind(&self) -> &'static str {
        match self {
            TierSpec::Dram { .. } => "dram",
            TierSpec::File { .. } => "file",
            TierSpec::DevDax { .. } => "devdax",
        }
    }
}

fn bad(spec: &str, reason: impl Into<String>) -> Error {
    Error::BadSpec {
        spec: spec.to_string(),
        reason: reason.into(),
    }
}

impl FromStr for TierSpec {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        let (kind, rest) = match s.split_once(':') {
            Some((k, r)) => (k, Some(r)),
            None => (s, None),
        };
        match kind {
            "dram" => {
                let Some(rest) = rest else {
                    return Ok(TierSpec::Dram { node: None });
                };
                let Some(value) = rest.strip_prefix("node=") else {
                    return Err(bad(s, "dram takes only `node=N` (e.g. `dram:node=1`)"));
                };
                let node = value
                    .parse::<u32>()
                    .map_err(|_| bad(s, format!("node `{value}` is not a non-negative integer")))?;
                Ok(TierSpec::Dram { node: Some(node) })
            }
            "file" | "devdax" => {
                let path = rest.unwrap_or("");
                if path.is_empty() {
                    return Err(bad(s, format!("{kind} needs a path (e.g. `{kind}:/path`)")));
                }
                let path = PathBuf::from(path);
                Ok(if kind == "file" {
                    TierSpec::File { path }
                } else {
                    TierSpec::DevDax { path }
                })
            }
            "" => Err(bad(
                s,
                "empty tier spec; use dram, dram:node=N, file:PATH or devdax:PATH",
            )),
            other => Err(bad(
                s,
                format!(
                    "unknown tier kind `{other}`; use dram, dram:node=N, file:PATH or devdax:PATH"
                ),
            )),
        }
    }
}

impl fmt::Display for TierSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TierSpec::Dram { node: None } => write!(f, "dram"),
            TierSpec::Dram { node: Some(n) } => write!(f, "dram:node={n}"),
            TierSpec::File { path } => write!(f, "file:{}", path.display()),
            TierSpec::DevDax { path } => write!(f, "devdax:{}", path.display()),
        }
    }
}

impl Serialize for TierSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for TierSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for s in [
            "dram",
            "dram:node=0",
            "dram:node=7",
            "file:/dev/shm/x",
            "file:rel/dir",
            "devdax:/dev/dax0.0",
        ] {
            let spec: TierSpec = s.parse().unwrap();
            assert_eq!(spec.to_string(), s);
            assert_eq!(spec.to_string().parse::<TierSpec>().unwrap(), spec);
        }
    }

    #[test]
    fn rejects_bad_specs() {
        for (s, needle) in [
            ("", "empty"),
            ("ram", "unknown tier kind `ram`"),
            ("dram:node=x", "node `x`"),
            ("dram:node=-1", "node `-1`"),
            ("dram:socket=1", "only `node=N`"),
            ("file:", "needs a path"),
            ("devdax", "needs a path"),
        ] {
            let e = s.parse::<TierSpec>().unwrap_err().to_string();
            assert!(e.contains(needle), "{s}: {e}");
            assert!(!e.contains('\n'));
        }
    }

    #[test]
    fn serde_uses_the_string_form() {
        let spec: TierSpec = serde_json::from_str("\"dram:node=1\"").unwrap();
        assert_eq!(spec, TierSpec::Dram { node: Some(1) });
        assert_eq!(serde_json::to_string(&spec).unwrap(), "\"dram:node=1\"");
        assert!(serde_json::from_str::<TierSpec>("\"nvme\"").is_err());
    }
}
