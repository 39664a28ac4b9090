//! What the placement probes (`cgdiag`, `servecost`) share: their arguments
//! `DIR PLACEMENT.json LIMIT_BYTES [N]` and a session on one open of the database.
use pmolap_bench::ssb::data::{open_cold, Where};
use pmolap_engine::Session;
use pmolap_place::PlacementFile;
use pmolap_tier::Topology;
use std::path::PathBuf;

/// The database directory, the placement, the cgroup limit in bytes and the count
/// (passes or repetitions, `default` when not given). Exits with the usage line when
/// an argument is missing or unreadable.
pub fn args(usage: &str, default: usize) -> (PathBuf, PlacementFile, u64, usize) {
    let a: Vec<String> = std::env::args().collect();
    let parsed = (|| {
        let dir = PathBuf::from(a.get(1)?);
        let pf = PlacementFile::load(std::path::Path::new(a.get(2)?)).ok()?;
        let limit = a.get(3)?.parse().ok()?;
        let n = match a.get(4) {
            Some(s) => s.parse().ok()?,
            None => default,
        };
        Some((dir, pf, limit, n))
    })();
    parsed.unwrap_or_else(|| {
        eprintln!("usage: {usage}");
        std::process::exit(2)
    })
}

/// A session on `dir` opened under `at`, its files' pages dropped.
pub fn session(dir: &std::path::Path, at: Where<'_>, topo: &Topology) -> Session {
    Session::new(open_cold(dir, at).unwrap(), topo, Default::default()).unwrap()
}
