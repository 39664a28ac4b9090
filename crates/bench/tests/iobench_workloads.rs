//! Guards iobench's workloads and checks: table scan, buffer manager and logging run over
//! every I/O path this machine can do, on /dev/shm and on the disk, moving the bytes and
//! the read/write mix they claim and removing their files; impossible combinations and bad
//! input are refused in one line before any file is created.

use std::path::{Path, PathBuf};

use pmolap_bench::iobench::config::{resolve, Args, Config, IoPath, LogFile, Paths, Workload};
use pmolap_bench::iobench::{run_all, validate_all, Params, Results, RunOptions};
use pmolap_bench::size::Size;
use pmolap_tier::Topology;

fn reuse(reuse_files: bool) -> RunOptions {
    RunOptions {
        reuse_files,
        ..RunOptions::default()
    }
}

fn topo() -> Topology {
    Topology::detect().unwrap()
}

/// A directory on the disk (inside target/), and one on /dev/shm when it is there.
fn dirs() -> Vec<(&'static str, tempfile::TempDir)> {
    let mut v = vec![(
        "disk",
        tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap(),
    )];
    if Path::new("/dev/shm").is_dir() {
        v.push(("shm", tempfile::tempdir_in("/dev/shm").unwrap()));
    }
    v
}

fn small(workload: Workload, io: IoPath, dir: &Path) -> Params {
    let mut p = resolve(&Args {
        workload: Some(workload),
        io: Some(io),
        path: Some(Paths(vec![dir.to_path_buf()])),
        threads: Some(2),
        file_size: Some(Size(2 << 20)),
        pool_size: Some(Size(256 << 10)),
        log_size: Some(Size(64 << 10)),
        entry_size: Some(Size(512)),
        reps: Some(2),
        ..Args::default()
    });
    if io.is_uring() && workload != Workload::Logging {
        p.queue_depth = 4;
    }
    if workload == Workload::BufferManager {
        p.write_ratio = 0.2;
        p.bytes = Some(256 << 10);
    }
    p
}

fn run(runs: Vec<(String, Params)>) -> pmolap_bench::Result<Results> {
    run_all(&runs, &topo(), None, &RunOptions::default(), |_| {})
}

fn uring_refused(e: &pmolap_bench::Error) -> bool {
    let msg = e.to_string();
    if msg.contains("io_uring unavailable") {
        eprintln!("note: the kernel refuses io_uring here ({msg}); io_uring case skipped");
        true
    } else {
        false
    }
}

fn is_tmpfs(dir: &Path) -> bool {
    topo()
        .filesystem_for(dir)
        .is_some_and(|m| m.fs_type == "tmpfs")
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect()
}

#[test]
fn every_workload_runs_on_every_possible_path_and_cleans_up() {
    for (where_, d) in dirs() {
        let dir = d.path();
        for workload in [
            Workload::TableScan,
            Workload::BufferManager,
            Workload::Logging,
        ] {
            for io in [
                IoPath::Pread,
                IoPath::Direct,
                IoPath::Mmap,
                IoPath::IoUring,
                IoPath::IoUringDirect,
            ] {
                if io.is_direct() && is_tmpfs(dir) {
                    continue; // refused there; see the refusal test
                }
                let mut runs = vec![("t".to_string(), small(workload, io, dir))];
                if workload == Workload::Logging && !io.is_mapped() {
                    let mut p = small(workload, io, dir);
                    p.log_file = LogFile::New;
                    runs.push(("t-new".to_string(), p));
                }
                let r = match run(runs.clone()) {
                    Ok(r) => r,
                    Err(e) if io.is_uring() && uring_refused(&e) => continue,
                    Err(e) => panic!("{where_} {workload:?} {io:?}: {e}"),
                };
                assert_eq!(r.header.kind, "iobench");
                assert!(!r.devices.is_empty());
                for (run, (_, p)) in r.runs.iter().zip(&runs) {
                    let what = format!("{where_} {workload:?} {io:?} {:?}", p.log_file);
                    assert_eq!(run.reps.len(), 2, "{what}");
                    for rep in &run.reps {
                        let expect = p.bytes_per_thread() * p.threads as u64;
                        assert_eq!(rep.bytes, expect, "{what}");
                        assert_eq!(rep.ops, expect / p.op_size(), "{what}");
                        assert!(rep.bandwidth_gib_s > 0.0, "{what}");
                        assert!(rep.latency.p50_ns > 0.0, "{what}");
                        match workload {
                            Workload::TableScan => assert_eq!(rep.writes, 0, "{what}"),
                            Workload::Logging => assert_eq!(rep.reads, 0, "{what}"),
                            Workload::BufferManager => {
                                // 20% writes: exactly every fifth operation per thread.
                                let per_thread = rep.ops / p.threads as u64;
                                assert_eq!(rep.writes, per_thread / 5 * p.threads as u64, "{what}");
                            }
                        }
                    }
                }
                assert!(
                    entries(dir).is_empty(),
                    "{where_} {workload:?} {io:?} left files: {:?}",
                    entries(dir)
                );
            }
        }
    }
}

#[test]
fn striping_spreads_pages_over_directories() {
    let ds = dirs();
    let a = tempfile::tempdir_in(ds[0].1.path()).unwrap();
    let b = tempfile::tempdir_in(ds[0].1.path()).unwrap();
    let mut p = small(Workload::TableScan, IoPath::Pread, a.path());
    p.paths.push(b.path().to_path_buf());
    let mut seen = Vec::new();
    let r = run_all(
        &[("s".into(), p.clone())],
        &topo(),
        None,
        &RunOptions {
            keep_files: true,
            ..RunOptions::default()
        },
        |_| {
            seen = [a.path(), b.path()]
                .iter()
                .map(|d| entries(d).len())
                .collect();
        },
    )
    .unwrap();
    assert_eq!(r.runs[0].files_per_thread, 2);
    // Kept on request: two threads, one stripe file each per directory.
    assert_eq!(entries(a.path()).len(), 2);
    assert_eq!(entries(b.path()).len(), 2);
    for f in entries(a.path()) {
        assert_eq!(std::fs::metadata(f).unwrap().len(), 1 << 20);
    }
    assert_eq!(seen, vec![2, 2]);
}

#[test]
fn reused_files_are_named_stably_kept_and_not_rewritten() {
    use std::os::unix::fs::FileExt;
    let d = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let p = small(Workload::TableScan, IoPath::Pread, d.path());
    let opts = RunOptions {
        reuse_files: true,
        ..RunOptions::default()
    };
    run_all(&[("r".into(), p.clone())], &topo(), None, &opts, |_| {}).unwrap();
    let t0 = d.path().join("pmolap-iobench-data-t0-s0.dat");
    let t1 = d.path().join("pmolap-iobench-data-t1-s0.dat");
    let mut names: Vec<_> = entries(d.path());
    names.sort();
    assert_eq!(names, vec![t0.clone(), t1.clone()], "stable names, kept");
    // A marker in thread 0's file survives the next run (reused as it is); thread 1's
    // file, cut short, is prepared again at the right size.
    let f = std::fs::OpenOptions::new().write(true).open(&t0).unwrap();
    f.write_all_at(b"pmolap-marker", 4096).unwrap();
    drop(f);
    std::fs::OpenOptions::new()
        .write(true)
        .open(&t1)
        .unwrap()
        .set_len(4096)
        .unwrap();
    let r = run_all(&[("r".into(), p)], &topo(), None, &opts, |_| {}).unwrap();
    assert!(r.runs[0].summary.bandwidth_gib_s_median > 0.0);
    let mut buf = [0u8; 13];
    std::fs::File::open(&t0)
        .unwrap()
        .read_exact_at(&mut buf, 4096)
        .unwrap();
    assert_eq!(&buf, b"pmolap-marker");
    assert_eq!(std::fs::metadata(&t1).unwrap().len(), 2 << 20);
}

#[test]
fn reused_files_need_no_free_space() {
    // A 1 TiB file per thread, larger than this filesystem's free space, already there
    // (sparse): a reusing run counts it as present, any other run as too big.
    let d = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let mut p = small(Workload::TableScan, IoPath::Pread, d.path());
    p.file_size = 1 << 40;
    let runs = [("big".to_string(), p)];
    let e = validate_all(&runs, &topo(), &reuse(true))
        .unwrap_err()
        .to_string();
    assert!(e.contains("free"), "{e}");
    for t in 0..2 {
        std::fs::File::create(d.path().join(format!("pmolap-iobench-data-t{t}-s0.dat")))
            .unwrap()
            .set_len(1 << 40)
            .unwrap();
    }
    validate_all(&runs, &topo(), &reuse(true)).unwrap();
    let e = validate_all(&runs, &topo(), &reuse(false))
        .unwrap_err()
        .to_string();
    assert!(e.contains("free"), "{e}");
}

fn refusal(p: Params) -> String {
    let dirs: Vec<PathBuf> = p.paths.clone();
    let before: Vec<usize> = dirs
        .iter()
        .map(|d| std::fs::read_dir(d).map(|r| r.count()).unwrap_or(0))
        .collect();
    let e = run(vec![("bad".into(), p)]).unwrap_err().to_string();
    assert_eq!(e.lines().count(), 1, "{e}");
    let after: Vec<usize> = dirs
        .iter()
        .map(|d| std::fs::read_dir(d).map(|r| r.count()).unwrap_or(0))
        .collect();
    assert_eq!(before, after, "a refused run created files: {e}");
    e
}

#[test]
fn impossible_combinations_and_bad_input_are_refused_before_any_file() {
    let ds = dirs();
    let disk = ds[0].1.path();
    let t = topo();
    // pmem needs a DAX mount.
    if t.dax_mount_for(disk).is_none() {
        let e = refusal(small(Workload::Logging, IoPath::Pmem, disk));
        assert!(e.contains("DAX") && e.contains("MAP_SYNC"), "{e}");
    }
    // O_DIRECT on tmpfs.
    if let Some((_, shm)) = ds.iter().find(|(w, _)| *w == "shm") {
        if is_tmpfs(shm.path()) {
            let e = refusal(small(Workload::TableScan, IoPath::Direct, shm.path()));
            assert!(e.contains("tmpfs") && e.contains("O_DIRECT"), "{e}");
        }
    }
    // A page size that is not a multiple of the logical block size under O_DIRECT.
    let dev = pmolap_bench::iobench::files::describe_device(disk, &t);
    if let Some(lbs) = dev.logical_block_size.filter(|l| *l > 1) {
        let mut p = small(Workload::TableScan, IoPath::Direct, disk);
        p.page_size = lbs + lbs / 2;
        p.file_size = p.page_size * 64;
        let e = refusal(p);
        assert!(e.contains("logical block size"), "{e}");
    }
    // A missing directory, a file given as directory.
    let missing = disk.join("no/such/dir");
    let e = refusal(small(Workload::TableScan, IoPath::Pread, &missing));
    assert!(e.contains("does not exist"), "{e}");
    let file = disk.join("plain-file");
    std::fs::write(&file, b"x").unwrap();
    let e = refusal(small(Workload::TableScan, IoPath::Pread, &file));
    assert!(e.contains("not a directory"), "{e}");
    std::fs::remove_file(&file).unwrap();
    // Too little free space.
    let mut p = small(Workload::TableScan, IoPath::Pread, disk);
    p.file_size = 1 << 50;
    let e = refusal(p);
    assert!(e.contains("free"), "{e}");
    // Shape errors.
    let mut p = small(Workload::TableScan, IoPath::Pread, disk);
    p.queue_depth = 8;
    assert!(refusal(p).contains("queue_depth"));
    let mut p = small(Workload::Logging, IoPath::Mmap, disk);
    p.log_file = LogFile::New;
    assert!(refusal(p).contains("recycled"));
    let mut p = small(Workload::BufferManager, IoPath::Pread, disk);
    p.write_ratio = 1.5;
    assert!(refusal(p).contains("write_ratio"));
    // validate_all alone creates nothing and accepts a good run.
    validate_all(
        &[("ok".into(), small(Workload::TableScan, IoPath::Pread, disk))],
        &t,
        &reuse(false),
    )
    .unwrap();
    assert!(entries(disk).is_empty());
}

#[test]
fn config_files_parse_with_line_numbers_for_mistakes() {
    let f = Path::new("x.yaml");
    let e = Config::parse(
        "a:\n  args:\n    workload: logging\n    entry_sise: 128\n",
        f,
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("x.yaml:4:"), "{e}");
    assert!(e.contains("entry_sise"), "{e}");
    let e = Config::parse("a:\n  args:\n    io: mmapp\n", f)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("x.yaml:3:") && e.contains("mmapp"), "{e}");
    let c = Config::parse(
        "a:\n  args: {workload: table-scan, path: [/x, /y]}\n  matrix:\n    io: [pread, mmap]\n    threads: [1, 2, 4]\n",
        f,
    )
    .unwrap();
    let runs = c.expand(&Args::default()).unwrap();
    assert_eq!(runs.len(), 6);
    assert_eq!(runs[0].1.paths.len(), 2);
    // Every shipped workload file parses.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../workloads/iobench");
    for dir in [root.clone(), root.join("ci")] {
        let mut n = 0;
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "yaml") {
                let c = Config::load(&p).unwrap();
                for (name, params) in c.expand(&Args::default()).unwrap() {
                    pmolap_bench::iobench::config::validate_shape(&params, &name)
                        .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                }
                n += 1;
            }
        }
        assert!(n >= 4, "{}: {n} workload files", dir.display());
    }
}
