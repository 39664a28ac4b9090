//! Helpers of the PostgreSQL tests (`pg_tpch.rs`, `pg_kill.rs`): whether a server is
//! installed, directories it can reach, and what a run left behind.

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

/// Whether PostgreSQL server binaries are installed; prints the one skip line if not.
pub fn have_server() -> bool {
    match pmolap_pg::server::find_binaries() {
        Ok(_) => true,
        Err(e) => {
            println!("skipped: {e}");
            false
        }
    }
}

/// A directory the server user can reach (tempdirs are 0700; as root the server runs
/// as `postgres`), named `<prefix>…` under /var/tmp.
pub fn open_tempdir(prefix: &str) -> tempfile::TempDir {
    let t = tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in("/var/tmp")
        .unwrap();
    std::fs::set_permissions(t.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    t
}

/// Cluster directories (`pmolap-pg-*`) left in `dir`.
pub fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("pmolap-pg-"))
                .collect()
        })
        .unwrap_or_default()
}
