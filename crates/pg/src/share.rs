//! How `initdb`'s own backends are told to keep dynamic shared memory in the data
//! directory: PostgreSQL 15's `initdb` picks `posix` (files in `/dev/shm`) and writes it
//! into `postgresql.conf` before it bootstraps, and it has no `-c`. So `initdb` reads a
//! private share directory ([`make_private_share`]: links to every file of the real one,
//! except `postgresql.conf.sample`, a copy whose `#dynamic_shared_memory_type = posix`
//! line is `dynamic_shared_memory_type = mmap`); PostgreSQL 16 and later get
//! `-c dynamic_shared_memory_type=mmap` instead ([`initdb_args`]).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Result};
use crate::server::{chown_to, RunAs};

/// The sample configuration `initdb` copies into every new cluster.
const SAMPLE: &str = "postgresql.conf.sample";
/// Its line that PostgreSQL 15's `initdb` replaces with the type it chose.
const DSM_LINE: &str = "#dynamic_shared_memory_type = posix";
/// What the private copy says instead (no `#`: `initdb` no longer finds its token).
const DSM_MMAP: &str = "dynamic_shared_memory_type = mmap";

/// The major version in `postgres --version` output
/// (`postgres (PostgreSQL) 15.14 (Debian 15.14-0+deb12u1)` → 15).
pub fn major_version(version: &str) -> Option<u32> {
    let rest = &version[version.find(')')? + 1..];
    let num = rest.trim_start().split(['.', ' ', 'b', 'r']).next()?;
    num.parse().ok()
}

/// Whether `dir` holds what `initdb` reads from its share directory.
fn is_share_dir(dir: &Path) -> bool {
    dir.join("postgres.bki").is_file() && dir.join(SAMPLE).is_file()
}

/// PostgreSQL's share directory for the binaries in `bin_dir`: `pg_config --sharedir` of
/// that directory, else `../share/postgresql` or `../share` beside it.
pub fn find_share_dir(bin_dir: &Path) -> Result<PathBuf> {
    let mut candidates = Vec::new();
    if let Ok(out) = Command::new(bin_dir.join("pg_config"))
        .arg("--sharedir")
        .output()
    {
        if out.status.success() {
            candidates.push(PathBuf::from(
                String::from_utf8_lossy(&out.stdout).trim().to_string(),
            ));
        }
    }
    if let Some(parent) = bin_dir.parent() {
        candidates.push(parent.join("share").join("postgresql"));
        candidates.push(parent.join("share"));
    }
    candidates
        .iter()
        .find(|d| is_share_dir(d))
        .cloned()
        .ok_or_else(|| {
            Error::Invalid(format!(
                "no PostgreSQL share directory (postgres.bki, {SAMPLE}) for {}: looked in {}",
                bin_dir.display(),
                candidates
                    .iter()
                    .map(|c| c.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
}

/// `text` (a `postgresql.conf.sample`) with its `#dynamic_shared_memory_type = posix`
/// line set to mmap; `None` without such a line.
pub fn sample_with_mmap(text: &str) -> Option<String> {
    let mut found = false;
    let lines: Vec<String> = text
        .split_inclusive('\n')
        .map(|l| match l.strip_prefix(DSM_LINE) {
            Some(rest) if !found => {
                found = true;
                format!("{DSM_MMAP}{rest}")
            }
            _ => l.to_string(),
        })
        .collect();
    found.then(|| lines.concat())
}

/// Makes `dest` (new) a share directory for `initdb`: a symbolic link to every entry of
/// `real`, except [`SAMPLE`], which is a copy set to mmap ([`sample_with_mmap`]); owned by
/// `user` when given.
pub fn make_private_share(real: &Path, dest: &Path, user: Option<&RunAs>) -> Result<()> {
    std::fs::create_dir(dest).map_err(|e| Error::io(dest, e))?;
    chown_to(dest, user)?;
    let rd = std::fs::read_dir(real).map_err(|e| Error::io(real, e))?;
    for e in rd {
        let e = e.map_err(|e| Error::io(real, e))?;
        let to = dest.join(e.file_name());
        if e.file_name() == SAMPLE {
            let text = std::fs::read_to_string(e.path()).map_err(|err| Error::io(e.path(), err))?;
            let text = sample_with_mmap(&text).ok_or_else(|| {
                Error::Invalid(format!(
                    "{}: no `{DSM_LINE}` line to set (initdb's backends would use /dev/shm)",
                    e.path().display()
                ))
            })?;
            std::fs::write(&to, text).map_err(|err| Error::io(&to, err))?;
            chown_to(&to, user)?;
        } else {
            std::os::unix::fs::symlink(e.path(), &to).map_err(|err| Error::io(&to, err))?;
        }
    }
    Ok(())
}

/// The `initdb` arguments that make its backends use mmap: `-c` from PostgreSQL 16 on,
/// else `-L` and a private share directory made at `dest` ([`make_private_share`]).
pub fn initdb_args(
    version: &str,
    bin_dir: &Path,
    dest: &Path,
    user: Option<&RunAs>,
) -> Result<Vec<std::ffi::OsString>> {
    if major_version(version).is_some_and(|m| m >= 16) {
        return Ok(vec!["-c".into(), DSM_MMAP.replace(' ', "").into()]);
    }
    make_private_share(&find_share_dir(bin_dir)?, dest, user)?;
    Ok(vec!["-L".into(), dest.into()])
}

/// The `dynamic_shared_memory_type` that the active line of a `postgresql.conf` sets.
pub fn configured_dsm_type(conf: &str) -> Option<String> {
    conf.lines().rev().find_map(|l| {
        let l = l.split('#').next()?.trim();
        let v = l.strip_prefix("dynamic_shared_memory_type")?;
        let v = v.trim_start().strip_prefix('=')?;
        Some(v.trim().trim_matches('\'').to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_major_version_is_read_from_postgres_version() {
        assert_eq!(
            major_version("postgres (PostgreSQL) 15.14 (Debian 15.14-0+deb12u1)"),
            Some(15)
        );
        assert_eq!(major_version("postgres (PostgreSQL) 17beta2"), Some(17));
        assert_eq!(major_version("postgres (PostgreSQL) 16rc1"), Some(16));
        assert_eq!(major_version("garbage"), None);
    }

    #[test]
    fn the_sample_line_is_set_to_mmap_once_and_the_rest_kept() {
        let text = "a = 1\n#dynamic_shared_memory_type = posix\t# the default\n\
                    #min_dynamic_shared_memory = 0MB\n";
        let out = sample_with_mmap(text).unwrap();
        assert_eq!(
            out,
            "a = 1\ndynamic_shared_memory_type = mmap\t# the default\n\
             #min_dynamic_shared_memory = 0MB\n"
        );
        assert_eq!(configured_dsm_type(&out).as_deref(), Some("mmap"));
        assert_eq!(configured_dsm_type(text), None);
        assert!(sample_with_mmap("a = 1\n").is_none());
    }

    #[test]
    fn the_private_share_links_everything_but_the_sample() {
        let t = tempfile::tempdir().unwrap();
        let real = t.path().join("real");
        std::fs::create_dir(&real).unwrap();
        std::fs::write(real.join("postgres.bki"), "bki").unwrap();
        std::fs::create_dir(real.join("timezonesets")).unwrap();
        std::fs::write(real.join(SAMPLE), "#dynamic_shared_memory_type = posix\n").unwrap();
        let dest = t.path().join("share");
        make_private_share(&real, &dest, None).unwrap();
        assert!(is_share_dir(&dest));
        for name in ["postgres.bki", "timezonesets"] {
            assert_eq!(
                std::fs::read_link(dest.join(name)).unwrap(),
                real.join(name)
            );
        }
        assert!(!dest.join(SAMPLE).is_symlink());
        assert_eq!(
            std::fs::read_to_string(dest.join(SAMPLE)).unwrap(),
            "dynamic_shared_memory_type = mmap\n"
        );
        // A sample without the line is refused in one line, naming the file.
        std::fs::write(real.join(SAMPLE), "a = 1\n").unwrap();
        let e = make_private_share(&real, &t.path().join("share2"), None)
            .unwrap_err()
            .to_string();
        assert!(e.contains(SAMPLE) && !e.contains('\n'), "{e}");
    }
}
