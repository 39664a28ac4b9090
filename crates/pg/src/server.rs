//! One private PostgreSQL cluster per run: found binaries, `initdb` into a directory of
//! its own, the server on a private Unix socket, stopped and removed on every way out.
//!
//! How the server never outlives the command:
//! - every server and `initdb` process is started through `setpriv --pdeathsig KILL`, so
//!   the kernel kills the postmaster when pmolap dies, SIGKILL included (its backends
//!   then exit on postmaster death; the kernel sends it when the *thread* that started
//!   the server exits, so [`Cluster::start`] is called from the thread that runs the
//!   whole benchmark); it runs in a process group of its own, so a
//!   terminal's Ctrl-C reaches pmolap only, which stops it at the next safe point;
//! - [`Cluster`] stops the server (`pg_ctl stop -m fast`, else SIGKILL) and removes the
//!   run directory and every tablespace directory when dropped (errors, interrupts);
//! - a watcher (`sh`, its own process group, stdin a pipe from pmolap) removes those
//!   directories once that pipe closes, which is when pmolap exits however it exits;
//! - each directory is named `pmolap-pg-<pid>` and holds an `owner` file (pid and process
//!   start time): [`remove_stale`] deletes those whose process is gone, so even a
//!   watcher killed along with pmolap leaves nothing for longer than the next run;
//! - shared memory: dynamic segments live in the data directory
//!   (`dynamic_shared_memory_type = mmap`, [`crate::settings`]; for `initdb`'s own
//!   backends too, [`crate::share`]), removed with it; the
//!   server's one small System V segment (an interlock PostgreSQL keeps even with
//!   `shared_memory_type = mmap`) outlives a killed server, so whoever removes a data
//!   directory whose server died — [`Cluster`]'s teardown, the watcher, [`remove_stale`] —
//!   first removes the segment its `postmaster.pid` names ([`remove_segment`]).

use std::os::unix::fs::PermissionsExt as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// The superuser the cluster is created with (trust authentication on a private socket).
pub const DB_USER: &str = "pmolap";
/// Prefix of every directory a run creates.
pub const DIR_PREFIX: &str = "pmolap-pg-";
const OWNER_FILE: &str = "owner";

/// The PostgreSQL programs used.
#[derive(Debug, Clone)]
pub struct Binaries {
    /// Holds `initdb`, `postgres`, `pg_ctl`.
    pub bin_dir: PathBuf,
    /// `psql` (for the single-stream baseline load).
    pub psql: PathBuf,
    /// `postgres --version`, e.g. `postgres (PostgreSQL) 15.14 (Debian 15.14-0+deb12u1)`.
    pub version: String,
}

/// Finds the server binaries: `$PMOLAP_PG_BIN`, else the newest
/// `/usr/lib/postgresql/<major>/bin`, else the directory of `pg_config --bindir`.
pub fn find_binaries() -> Result<Binaries> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(d) = std::env::var_os("PMOLAP_PG_BIN") {
        candidates.push(PathBuf::from(d));
    }
    if let Ok(rd) = std::fs::read_dir("/usr/lib/postgresql") {
        let mut majors: Vec<(u32, PathBuf)> = rd
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let major = e.file_name().to_str()?.parse::<u32>().ok()?;
                Some((major, e.path().join("bin")))
            })
            .collect();
        majors.sort_by_key(|m| std::cmp::Reverse(m.0));
        candidates.extend(majors.into_iter().map(|m| m.1));
    }
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output() {
        if out.status.success() {
            candidates.push(PathBuf::from(
                String::from_utf8_lossy(&out.stdout).trim().to_string(),
            ));
        }
    }
    let looked = if candidates.is_empty() {
        "no PMOLAP_PG_BIN, no /usr/lib/postgresql/*/bin, no pg_config".to_string()
    } else {
        format!(
            "looked in {}",
            candidates
                .iter()
                .map(|c| c.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    for dir in candidates {
        if !["initdb", "postgres", "pg_ctl"]
            .iter()
            .all(|b| dir.join(b).is_file())
        {
            continue;
        }
        let psql = [dir.join("psql"), PathBuf::from("/usr/bin/psql")]
            .into_iter()
            .find(|p| p.is_file())
            .unwrap_or_else(|| dir.join("psql"));
        let out = Command::new(dir.join("postgres"))
            .arg("--version")
            .output()
            .map_err(|e| Error::io(dir.join("postgres"), e))?;
        return Ok(Binaries {
            version: String::from_utf8_lossy(&out.stdout).trim().to_string(),
            bin_dir: dir,
            psql,
        });
    }
    Err(Error::NoServer { looked })
}

/// The unprivileged user the server runs as when pmolap runs as root.
#[derive(Debug, Clone)]
pub struct RunAs {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
}

/// The effective user id of this process (the owner of `/proc/self`).
pub fn euid() -> u32 {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::metadata("/proc/self").map_or(u32::MAX, |m| m.uid())
}

/// `None` when not root; as root, the `postgres` user (PostgreSQL refuses to run as root).
pub fn run_as() -> Result<Option<RunAs>> {
    if euid() != 0 {
        return Ok(None);
    }
    let passwd = std::fs::read_to_string("/etc/passwd").map_err(|e| Error::io("/etc/passwd", e))?;
    passwd
        .lines()
        .find_map(|l| {
            let f: Vec<&str> = l.split(':').collect();
            (f.len() > 3 && f[0] == "postgres").then(|| {
                Some(RunAs {
                    name: f[0].to_string(),
                    uid: f[2].parse().ok()?,
                    gid: f[3].parse().ok()?,
                })
            })?
        })
        .map(Some)
        .ok_or_else(|| {
            Error::Invalid(
                "running as root, but there is no `postgres` user to run the server as \
                 (PostgreSQL refuses root); install the postgresql package or run as a normal user"
                    .into(),
            )
        })
}

/// Start time of process `pid` (field 22 of `/proc/<pid>/stat`), `None` if it is gone.
fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 2..];
    after.split(' ').nth(19)?.parse().ok()
}

/// This process's `owner` line: pid and start time.
fn owner_line() -> String {
    let pid = std::process::id();
    format!("{pid} {}\n", start_time(pid).unwrap_or(0))
}

/// The System V shared-memory segment (key, id) that the server of data directory `data`
/// recorded in line 7 of its `postmaster.pid`; the file is there only while the server
/// runs or after it died without shutting down.
fn recorded_segment(data: &Path) -> Option<(u64, u64)> {
    let text = std::fs::read_to_string(data.join("postmaster.pid")).ok()?;
    let mut it = text.lines().nth(6)?.split_whitespace();
    Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
}

/// Processes attached to the System V segment with this key and id (from
/// `/proc/sysvipc/shm`); `None` if there is no such segment.
fn segment_attached(key: u64, id: u64) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/sysvipc/shm").ok()?;
    text.lines().skip(1).find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        let num = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok());
        (num(0)? == key && num(1)? == id).then(|| num(6)).flatten()
    })
}

/// Removes the System V segment that the dead server of data directory `data` left
/// behind: only the segment its `postmaster.pid` names, only while it still has that key
/// and id, and (`only_detached`) only with no process attached. Returns whether one was
/// removed (marked for removal: the kernel frees it when the last process detaches).
pub fn remove_segment(data: &Path, only_detached: bool) -> bool {
    let Some((key, id)) = recorded_segment(data) else {
        return false;
    };
    match segment_attached(key, id) {
        Some(n) if n == 0 || !only_detached => Command::new("ipcrm")
            .args(["-m", &id.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success()),
        _ => false,
    }
}

/// Removes `pmolap-pg-*` directories in `parent` whose owner process is gone (a run that
/// was SIGKILLed together with its watcher), and the shared-memory segment its dead
/// server left. Returns the directories removed.
pub fn remove_stale(parent: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let Ok(rd) = std::fs::read_dir(parent) else {
        return removed;
    };
    for e in rd.filter_map(|e| e.ok()) {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        if !name.starts_with(DIR_PREFIX) {
            continue;
        }
        let dir = e.path();
        let Ok(owner) = std::fs::read_to_string(dir.join(OWNER_FILE)) else {
            continue;
        };
        let mut it = owner.split_whitespace().map(|v| v.parse::<u64>().ok());
        let (Some(Some(pid)), Some(Some(start))) = (it.next(), it.next()) else {
            continue;
        };
        let alive = u32::try_from(pid)
            .ok()
            .and_then(start_time)
            .is_some_and(|s| s == start);
        if alive {
            continue;
        }
        remove_segment(&dir.join("data"), true);
        if std::fs::remove_dir_all(&dir).is_ok() {
            removed.push(dir);
        }
    }
    removed
}

/// Creates `parent/pmolap-pg-<pid>` (refusing an existing one) with its `owner` file,
/// owned by `user` when given.
fn make_run_dir(parent: &Path, user: Option<&RunAs>) -> Result<PathBuf> {
    let dir = parent.join(format!("{DIR_PREFIX}{}", std::process::id()));
    std::fs::create_dir(&dir).map_err(|e| Error::io(&dir, e))?;
    std::fs::write(dir.join(OWNER_FILE), owner_line())
        .map_err(|e| Error::io(dir.join(OWNER_FILE), e))?;
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
        .map_err(|e| Error::io(&dir, e))?;
    chown_to(&dir, user)?;
    Ok(dir)
}

pub(crate) fn chown_to(path: &Path, user: Option<&RunAs>) -> Result<()> {
    if let Some(u) = user {
        std::os::unix::fs::chown(path, Some(u.uid), Some(u.gid)).map_err(|e| Error::io(path, e))?;
    }
    Ok(())
}

/// What a cluster is created with.
#[derive(Debug, Clone)]
pub struct ClusterOptions {
    /// Where the run directory (data directory, socket, log, generated files) is made.
    pub work_parent: PathBuf,
    /// One tablespace directory is made in each.
    pub tier_paths: Vec<PathBuf>,
    /// `name = value` server settings ([`crate::settings`]).
    pub settings: Vec<(String, String)>,
}

/// A private cluster: created by [`Cluster::create`], stopped and removed on drop.
#[derive(Debug)]
pub struct Cluster {
    pub bins: Binaries,
    user: Option<RunAs>,
    /// The run directory (`<work_parent>/pmolap-pg-<pid>`).
    pub work: PathBuf,
    /// The data directory (inside `work`).
    pub data: PathBuf,
    /// One tablespace location per tier (`<tier>/pmolap-pg-<pid>/ts`).
    pub tablespaces: Vec<PathBuf>,
    tier_dirs: Vec<PathBuf>,
    pub port: u16,
    settings: Vec<(String, String)>,
    server: Option<Child>,
    watcher: Option<Child>,
}

impl Cluster {
    /// Removes stale directories of dead runs, makes the run and tablespace directories,
    /// starts the watcher and runs `initdb`. The server is not started.
    pub fn create(bins: Binaries, opts: &ClusterOptions) -> Result<Cluster> {
        let user = run_as()?;
        for p in std::iter::once(&opts.work_parent).chain(&opts.tier_paths) {
            remove_stale(p);
        }
        let mut c = Cluster {
            bins,
            user,
            work: PathBuf::new(),
            data: PathBuf::new(),
            tablespaces: Vec::new(),
            tier_dirs: Vec::new(),
            port: 0,
            settings: opts.settings.clone(),
            server: None,
            watcher: None,
        };
        // Every directory is registered right after it is made, so drop removes it.
        let work = make_run_dir(&opts.work_parent, c.user.as_ref())?;
        c.tier_dirs.push(work.clone());
        c.work = work.clone();
        c.data = work.join("data");
        for t in &opts.tier_paths {
            let d = make_run_dir(t, c.user.as_ref())?;
            c.tier_dirs.push(d.clone());
            let ts = d.join("ts");
            std::fs::create_dir(&ts).map_err(|e| Error::io(&ts, e))?;
            chown_to(&ts, c.user.as_ref())?;
            c.tablespaces.push(ts);
        }
        c.start_watcher()?;
        // A port of its own: only the socket file's name, in a private directory.
        c.port = 20000 + (std::process::id() % 40000) as u16;
        // initdb's own backends (bootstrap, single-user) keep their dynamic shared memory
        // in the data directory too: with initdb's choice (posix) a backend still running
        // when the directory goes would leave /dev/shm/PostgreSQL.* ([`crate::share`]).
        let dsm_args = crate::share::initdb_args(
            &c.bins.version,
            &c.bins.bin_dir,
            &work.join("share"),
            c.user.as_ref(),
        )?;
        let out = c
            .command(&c.bins.bin_dir.join("initdb"))
            .arg("-D")
            .arg(&c.data)
            .args(&dsm_args)
            .args([
                "-U",
                DB_USER,
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
                "--locale=C",
            ])
            .stdin(Stdio::null())
            .output()
            .map_err(|e| Error::io(c.bins.bin_dir.join("initdb"), e))?;
        if !out.status.success() {
            return Err(Error::Command {
                what: "initdb".into(),
                detail: last_lines(&String::from_utf8_lossy(&out.stderr), 3),
            });
        }
        let conf = c.data.join("postgresql.conf");
        let text = std::fs::read_to_string(&conf).map_err(|e| Error::io(&conf, e))?;
        match crate::share::configured_dsm_type(&text) {
            Some(t) if t == "mmap" => Ok(c),
            t => Err(Error::Command {
                what: "initdb".into(),
                detail: format!(
                    "{} sets dynamic_shared_memory_type = {}, not mmap (its backends used /dev/shm)",
                    conf.display(),
                    t.as_deref().unwrap_or("(default)")
                ),
            }),
        }
    }

    /// A command for a PostgreSQL program: as the server user when root, killed when
    /// pmolap dies, in a process group of its own.
    fn command(&self, program: &Path) -> Command {
        let mut cmd = Command::new("setpriv");
        if let Some(u) = &self.user {
            cmd.arg(format!("--reuid={}", u.uid))
                .arg(format!("--regid={}", u.gid))
                .arg("--init-groups");
        }
        cmd.args(["--pdeathsig", "KILL", "--"]).arg(program);
        cmd.current_dir(&self.work).process_group(0);
        cmd
    }

    fn start_watcher(&mut self) -> Result<()> {
        // Once pmolap is gone (the pipe closes), and with it the server (pdeathsig): the
        // System V segment named in a data directory's postmaster.pid, if it is still
        // there with that key and id ([`remove_segment`]), then the directories.
        let script = r#"cat >/dev/null; sleep 1
for d in "$@"; do
  f="$d/data/postmaster.pid"
  [ -f "$f" ] && sed -n 7p "$f" | { read k id && [ -n "$id" ] &&
    awk -v k="$k" -v i="$id" '$1 == k && $2 == i { f = 1 } END { exit !f }' /proc/sysvipc/shm &&
    ipcrm -m "$id"; }
done 2>/dev/null
rm -rf -- "$@"; sleep 3; rm -rf -- "$@""#;
        let child = Command::new("sh")
            .args(["-c", script, "pmolap-pg-watcher"])
            .args(&self.tier_dirs)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|e| Error::io("sh", e))?;
        self.watcher = Some(child);
        Ok(())
    }

    /// The server's log file.
    pub fn log_path(&self) -> PathBuf {
        self.work.join("server.log")
    }

    /// What the server's log says about why a connection broke: its last lines that
    /// report a crash, a PANIC/FATAL, a full disk or exhausted memory (at most `n`, joined
    /// by ` | `), or `None` when the log names no such cause.
    pub fn failure_reason(&self, n: usize) -> Option<String> {
        let log = std::fs::read_to_string(self.log_path()).ok()?;
        Some(failure_lines(&log, n)).filter(|s| !s.is_empty())
    }

    /// Starts the server and waits (up to 60 s) until it accepts connections.
    pub fn start(&mut self) -> Result<()> {
        if self.server.is_some() {
            return Ok(());
        }
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.log_path())
            .map_err(|e| Error::io(self.log_path(), e))?;
        let log2 = log.try_clone().map_err(|e| Error::io(self.log_path(), e))?;
        let mut cmd = self.command(&self.bins.bin_dir.join("postgres"));
        cmd.arg("-D")
            .arg(&self.data)
            .arg("-k")
            .arg(&self.work)
            .arg("-p")
            .arg(self.port.to_string())
            .args(["-c", "listen_addresses="]);
        for (k, v) in &self.settings {
            cmd.arg("-c").arg(format!("{k}={v}"));
        }
        let child = cmd
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log2)
            .spawn()
            .map_err(|e| Error::io("setpriv", e))?;
        self.server = Some(child);
        let t0 = Instant::now();
        loop {
            if let Some(Ok(Some(st))) = self.server.as_mut().map(|c| c.try_wait()) {
                self.server = None;
                return Err(Error::Command {
                    what: format!("postgres exited at start ({st})"),
                    detail: last_lines(
                        &std::fs::read_to_string(self.log_path()).unwrap_or_default(),
                        3,
                    ),
                });
            }
            if self.connect("postgres").is_ok() {
                return Ok(());
            }
            if t0.elapsed() > Duration::from_secs(60) {
                return Err(Error::Command {
                    what: "postgres did not accept connections within 60 s".into(),
                    detail: last_lines(
                        &std::fs::read_to_string(self.log_path()).unwrap_or_default(),
                        3,
                    ),
                });
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Stops the server (fast shutdown: a checkpoint, then exit) and waits for it.
    pub fn stop(&mut self) -> Result<()> {
        let Some(mut child) = self.server.take() else {
            return Ok(());
        };
        let out = self
            .command(&self.bins.bin_dir.join("pg_ctl"))
            .arg("stop")
            .arg("-D")
            .arg(&self.data)
            .args(["-m", "fast", "-w", "-t", "120"])
            .stdin(Stdio::null())
            .output();
        let ok = out.as_ref().is_ok_and(|o| o.status.success());
        if !ok {
            let _ = child.kill();
        }
        let _ = child.wait();
        if ok {
            Ok(())
        } else {
            Err(Error::Command {
                what: "pg_ctl stop".into(),
                detail: out.map_or_else(
                    |e| e.to_string(),
                    |o| last_lines(&String::from_utf8_lossy(&o.stderr), 2),
                ),
            })
        }
    }

    /// Whether the server is running.
    pub fn running(&self) -> bool {
        self.server.is_some()
    }

    /// The postmaster's pid, while running.
    pub fn server_pid(&self) -> Option<u32> {
        self.server.as_ref().map(|c| c.id())
    }

    /// The connection settings for database `db` over the private socket.
    pub fn config(&self, db: &str) -> postgres::Config {
        let mut c = postgres::Config::new();
        c.host_path(&self.work)
            .port(self.port)
            .user(DB_USER)
            .dbname(db)
            .application_name("pmolap");
        c
    }

    /// A connection to database `db` over the private socket.
    pub fn connect(&self, db: &str) -> Result<postgres::Client> {
        self.config(db)
            .connect(postgres::NoTls)
            .map_err(|e| Error::pg(format!("connect to {db}"), e))
    }

    /// `psql` arguments that connect to `db` (the single-stream baseline).
    pub fn psql(&self, db: &str) -> Command {
        let mut cmd = Command::new(&self.bins.psql);
        cmd.arg("-X")
            .arg("-q")
            .args(["-v", "ON_ERROR_STOP=1"])
            .arg("-h")
            .arg(&self.work)
            .arg("-p")
            .arg(self.port.to_string())
            .args(["-U", DB_USER, "-d", db])
            .process_group(0);
        cmd
    }

    /// Every directory this run made (the run directory first, then one per tier).
    pub fn dirs(&self) -> &[PathBuf] {
        &self.tier_dirs
    }

    /// Stops the server and removes every directory made; the first error is returned,
    /// but every step is tried.
    pub fn destroy(mut self) -> Result<()> {
        self.teardown()
    }

    fn teardown(&mut self) -> Result<()> {
        let mut first = self.stop().err();
        // A server that did not shut down cleanly (killed) left its segment.
        if !self.data.as_os_str().is_empty() {
            remove_segment(&self.data, false);
        }
        for d in self.tier_dirs.drain(..) {
            if let Err(e) = std::fs::remove_dir_all(&d) {
                if e.kind() != std::io::ErrorKind::NotFound && first.is_none() {
                    first = Some(Error::io(&d, e));
                }
            }
        }
        if let Some(mut w) = self.watcher.take() {
            // Everything is removed already: the watcher has nothing left to do.
            let _ = w.kill();
            let _ = w.wait();
        }
        first.map_or(Ok(()), Err)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.teardown();
    }
}

/// The last `n` lines of a server log that name why a backend or the server failed.
fn failure_lines(log: &str, n: usize) -> String {
    const SIGNS: [&str; 7] = [
        "PANIC:",
        "FATAL:",
        "terminated by signal",
        "was terminated",
        "No space left",
        "out of memory",
        "could not resize shared memory",
    ];
    let lines: Vec<&str> = log
        .lines()
        .filter(|l| SIGNS.iter().any(|s| l.contains(s)))
        .map(str::trim)
        .collect();
    lines[lines.len().saturating_sub(n)..].join(" | ")
}

fn last_lines(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join(" | ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crash_in_the_server_log_is_named() {
        let log = "LOG:  database system is ready to accept connections\n\
            LOG:  checkpoint starting: time\n\
            LOG:  server process (PID 42) was terminated by signal 9: Killed\n\
            DETAIL:  Failed process was running: COPY partsupp FROM STDIN\n\
            LOG:  terminating any other active server processes\n";
        assert_eq!(
            failure_lines(log, 2),
            "LOG:  server process (PID 42) was terminated by signal 9: Killed"
        );
        assert_eq!(failure_lines("LOG:  checkpoint complete\n", 2), "");
        let full = "ERROR:  could not extend file \"base/1/2\": No space left on device\n";
        assert!(failure_lines(full, 2).contains("No space left"));
    }

    #[test]
    fn stale_run_directories_of_dead_processes_are_removed_live_ones_kept() {
        let t = tempfile::tempdir().unwrap();
        let dead = t.path().join(format!("{DIR_PREFIX}4000000"));
        std::fs::create_dir(&dead).unwrap();
        std::fs::write(dead.join(OWNER_FILE), "4000000 12345\n").unwrap();
        // Our own pid, but another start time: a reused pid, so gone as well.
        let reused = t.path().join(format!("{DIR_PREFIX}reused"));
        std::fs::create_dir(&reused).unwrap();
        std::fs::write(
            reused.join(OWNER_FILE),
            format!("{} 1\n", std::process::id()),
        )
        .unwrap();
        let live = t.path().join(format!("{DIR_PREFIX}live"));
        std::fs::create_dir(&live).unwrap();
        std::fs::write(live.join(OWNER_FILE), owner_line()).unwrap();
        let unowned = t.path().join(format!("{DIR_PREFIX}no-owner-file"));
        std::fs::create_dir(&unowned).unwrap();
        let other = t.path().join("something-else");
        std::fs::create_dir(&other).unwrap();
        let mut removed = remove_stale(t.path());
        removed.sort();
        let mut want = vec![dead, reused];
        want.sort();
        assert_eq!(removed, want);
        assert!(live.exists() && unowned.exists() && other.exists());
    }

    #[test]
    fn a_missing_server_is_one_line_naming_where_it_looked() {
        let e = Error::NoServer {
            looked: "looked in /nowhere".into(),
        }
        .to_string();
        assert!(e.contains("/nowhere") && e.contains("postgresql") && !e.contains('\n'));
    }
}
