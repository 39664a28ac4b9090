//! The document kinds: the `kind` field of each result document and the newest format
//! version this build reads (and writes) of it.

/// A document kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kind {
    /// The `kind` field.
    pub name: &'static str,
    /// The newest format version read and written.
    pub format_version: u32,
}

/// `pmolap membench`.
pub const MEMBENCH: Kind = Kind {
    name: "membench",
    format_version: 1,
};
/// `pmolap iobench`.
pub const IOBENCH: Kind = Kind {
    name: "iobench",
    format_version: 1,
};
/// `pmolap elf bench`.
pub const ELFBENCH: Kind = Kind {
    name: "elfbench",
    format_version: 1,
};
/// `pmolap ssb run` / `ssb query`.
pub const SSB_RUN: Kind = Kind {
    name: "ssb-run",
    format_version: 1,
};
/// `pmolap ssb tiers` (SIGMOD'21 Fig. 14).
pub const SSB_TIERS: Kind = Kind {
    name: "ssb-tiers",
    format_version: 1,
};
/// `pmolap ssb breakdown` (SIGMOD'21 Table 1).
pub const SSB_BREAKDOWN: Kind = Kind {
    name: "ssb-breakdown",
    format_version: 1,
};
/// `pmolap place validate`.
pub const PLACE_VALIDATE: Kind = Kind {
    name: "place-validate",
    format_version: 1,
};
/// `demo.json` of `pmolap demo`.
pub const DEMO: Kind = Kind {
    name: "demo",
    format_version: 1,
};
/// `topology.json` of `pmolap demo`.
pub const TOPOLOGY: Kind = Kind {
    name: "topology",
    format_version: 1,
};
/// `pmolap pg tpch`.
pub const PG_TPCH: Kind = Kind {
    name: "pg-tpch",
    format_version: 1,
};
/// `pmolap hash bench`.
pub const HASHBENCH: Kind = Kind {
    name: "hashbench",
    format_version: 1,
};

/// Every kind this build reads.
pub const ALL: &[Kind] = &[
    MEMBENCH,
    IOBENCH,
    ELFBENCH,
    SSB_RUN,
    SSB_TIERS,
    SSB_BREAKDOWN,
    PLACE_VALIDATE,
    DEMO,
    TOPOLOGY,
    PG_TPCH,
    HASHBENCH,
];

/// The kind named `name`, if this build reads it.
pub fn find(name: &str) -> Option<Kind> {
    ALL.iter().copied().find(|k| k.name == name)
}
