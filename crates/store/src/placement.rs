//! `Placement`: which tier holds each structure (dictionary, data vector, inverted index)
//! of each column when a table is opened. The default puts everything "home": mapped
//! zero-copy from the table's own files.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use pmolap_tier::TierSpec;

use crate::error::{Error, Result};
use crate::format::StructureKind;

/// Where one structure lives once the table is open.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Location {
    /// The table's own file, mapped zero-copy (its durability is the file's).
    #[default]
    Home,
    /// A copy on this tier (`dram`, `dram:node=N`, `file:DIR`, `devdax:PATH`). A `file:`
    /// spec naming the table directory itself means [`Location::Home`].
    Tier(TierSpec),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Home => f.write_str("home"),
            Location::Tier(t) => write!(f, "{t}"),
        }
    }
}

impl FromStr for Location {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        if s == "home" {
            return Ok(Location::Home);
        }
        Ok(Location::Tier(s.parse::<TierSpec>()?))
    }
}

/// Which tier holds each structure of each column. Lookups go from the most specific
/// rule (column + structure) to the structure-wide rule to the default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Placement {
    pub default: Location,
    per_kind: BTreeMap<StructureKind, Location>,
    per_structure: BTreeMap<(String, StructureKind), Location>,
}

impl Placement {
    /// Everything mapped zero-copy from the table's files.
    pub fn home() -> Self {
        Placement::default()
    }

    /// Everything copied onto `spec`.
    pub fn all(spec: TierSpec) -> Self {
        Placement {
            default: Location::Tier(spec),
            ..Placement::default()
        }
    }

    /// This kind of structure of every column on `loc` (unless a column rule says else).
    pub fn with_kind(mut self, kind: StructureKind, loc: Location) -> Self {
        self.per_kind.insert(kind, loc);
        self
    }

    /// One structure of one column on `loc`.
    pub fn with(mut self, column: &str, kind: StructureKind, loc: Location) -> Self {
        self.per_structure.insert((column.to_string(), kind), loc);
        self
    }

    /// Where `kind` of `column` goes.
    pub fn location(&self, column: &str, kind: StructureKind) -> &Location {
        self.per_structure
            .get(&(column.to_string(), kind))
            .or_else(|| self.per_kind.get(&kind))
            .unwrap_or(&self.default)
    }
}

/// `LOC[,RULE...]` where the first item may be a default location and each rule is
/// `KIND=LOC` or `COLUMN.KIND=LOC` (KIND: dict, dv, inv; LOC: home or a tier spec), e.g.
/// `dram,dv=file:/mnt/pmem0/t,lo_revenue.dv=dram`.
impl FromStr for Placement {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let mut p = Placement::default();
        for (i, item) in s.split(',').map(str::trim).enumerate() {
            if item.is_empty() {
                continue;
            }
            // A rule has `=` before any `:` (tier specs like dram:node=1 have it after).
            let rule = item
                .find('=')
                .filter(|&eq| item.find(':').is_none_or(|c| eq < c));
            let Some(eq) = rule else {
                if i != 0 {
                    return Err(Error::Placement(format!(
                        "`{item}`: only the first item may be a bare location; rules are KIND=LOC or COLUMN.KIND=LOC"
                    )));
                }
                p.default = item.parse()?;
                continue;
            };
            let (target, loc) = (&item[..eq], item[eq + 1..].parse::<Location>()?);
            let (column, kind) = match target.rsplit_once('.') {
                Some((c, k)) => (Some(c), k),
                None => (None, target),
            };
            let kind = StructureKind::from_short(kind).ok_or_else(|| {
                Error::Placement(format!(
                    "`{item}`: unknown structure `{kind}`; use dict, dv or inv"
                ))
            })?;
            match column {
                Some(c) => p = p.with(c, kind, loc),
                None => p = p.with_kind(kind, loc),
            }
        }
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rules() {
        let p: Placement = "dram,dv=file:/tmp,lo_revenue.dv=home,x.dict=dram:node=0"
            .parse()
            .unwrap();
        assert_eq!(p.default, Location::Tier(TierSpec::Dram { node: None }));
        assert_eq!(
            p.location("a", StructureKind::DataVector),
            &Location::Tier(TierSpec::File {
                path: "/tmp".into()
            })
        );
        assert_eq!(
            p.location("lo_revenue", StructureKind::DataVector),
            &Location::Home
        );
        assert_eq!(
            p.location("x", StructureKind::Dictionary),
            &Location::Tier(TierSpec::Dram { node: Some(0) })
        );
        assert_eq!(
            p.location("a", StructureKind::InvertedIndex),
            &Location::Tier(TierSpec::Dram { node: None })
        );
        assert!("dram,zz=dram".parse::<Placement>().is_err());
        assert!("dram,file:/x".parse::<Placement>().is_err());
        assert_eq!("home".parse::<Placement>().unwrap(), Placement::home());
    }
}
