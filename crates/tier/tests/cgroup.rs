//! Guards the memory-cgroup bound of `pmolap place validate --setting cache:SIZE`: inside
//! a `MemoryLimit` the process's page cache stays under the limit while it reads a file
//! twice its size, and leaving removes the group. Skips (saying why) where this machine
//! or user cannot make memory cgroups.

use std::io::{Read, Write};

use pmolap_os::cgroup::MemoryLimit;
use pmolap_tier::io::{fadvise, Advice};

#[test]
fn page_cache_stays_under_the_limit() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let path = dir.path().join("data");
    let mut f = std::fs::File::create(&path).unwrap();
    let chunk = vec![7u8; 1 << 20];
    for _ in 0..64 {
        f.write_all(&chunk).unwrap();
    }
    f.sync_all().unwrap();
    fadvise(&f, &path, Advice::DontNeed).unwrap();
    drop(f);
    let limit = 32 << 20;
    let g = match MemoryLimit::enter(limit) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("skipped: {e}");
            return;
        }
    };
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap();
    assert!(
        own.contains(&format!("pmolap-{}", std::process::id())),
        "{own}"
    );
    let mut buf = vec![0u8; 1 << 20];
    let mut r = std::fs::File::open(&path).unwrap();
    let mut total = 0;
    while let Ok(n) = r.read(&mut buf) {
        if n == 0 {
            break;
        }
        total += n;
    }
    assert_eq!(total, 64 << 20);
    let cache = g
        .page_cache_bytes()
        .expect("memory.stat has the page cache");
    assert!(cache <= limit, "page cache {cache} over the limit {limit}");
    let peak = g.peak_bytes().unwrap_or(0);
    assert!(peak <= limit, "peak {peak} over the limit {limit}");
    let parent = g.group_dir().parent().unwrap().to_path_buf();
    drop(g);
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap();
    assert!(!own.contains(&format!("pmolap-{}", std::process::id())));
    assert!(!parent
        .join(format!("pmolap-{}", std::process::id()))
        .exists());
    // The group of a pmolap killed inside one (no such pid) is removed by the next entry.
    let stale = parent.join("pmolap-999999999");
    std::fs::create_dir(&stale).unwrap();
    let g = MemoryLimit::enter(limit).unwrap();
    assert!(!stale.exists(), "stale group left at {}", stale.display());
    drop(g);
}
