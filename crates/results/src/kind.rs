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

/// `pmolap place workload` (and the demo's `place-workload.json`): per structure its
/// size and access counts. Its own format is `pmolap-workload` with a `version` field
/// (read and checked by `pmolap-place`); files written before `kind` was added are
/// recognised by that `format` ([`by_format`]).
pub const PLACE_WORKLOAD: Kind = Kind {
    name: "place-workload",
    format_version: 1,
};
/// `pmolap place profile` (and the demo's `place-profile-*.json`): a slow tier's extra
/// cost per access over DRAM; format `pmolap-profile`.
pub const PLACE_PROFILE: Kind = Kind {
    name: "place-profile",
    format_version: 1,
};
/// `pmolap place advise -o`: which structure goes on which tier; format
/// `pmolap-placement`.
pub const PLACEMENT: Kind = Kind {
    name: "placement",
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
    PLACE_WORKLOAD,
    PLACE_PROFILE,
    PLACEMENT,
];

/// The kind named `name`, if this build reads it.
pub fn find(name: &str) -> Option<Kind> {
    ALL.iter().copied().find(|k| k.name == name)
}

/// The kind of a placement document by its own `format` field (`pmolap-workload`,
/// `pmolap-profile`, `pmolap-placement`): how files written before they carried a
/// `kind` are read.
pub fn by_format(format: &str) -> Option<Kind> {
    match format {
        "pmolap-workload" => Some(PLACE_WORKLOAD),
        "pmolap-profile" => Some(PLACE_PROFILE),
        "pmolap-placement" => Some(PLACEMENT),
        _ => None,
    }
}
