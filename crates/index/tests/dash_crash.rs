//! Crash safety of the Dash hash table: a seeded workload of inserts, updates, deletes
//! (and the splits and directory doublings they cause) stopped at persist point N, then
//! reopened; every acknowledged operation must be there, the operation in flight must
//! show its key's old or new value and nothing else, and the full check must pass.
//!
//! Two ways to crash, both through the table's persist points:
//! * in process, with the simulated medium: the durable image is a shadow updated only
//!   by persist calls, so unpersisted stores are lost exactly as on persistent memory
//!   after a power failure; the live image (every store kept, as a page-cache file keeps
//!   them after the process dies) is checked too. `PMOLAP_DASH_CRASH_POINTS` sets how
//!   many persist points are exercised (default 400; the recorded run used more).
//! * a real process death: a child (this test binary, re-executed through the
//!   workspace's one crash harness, `pmolap_os::durable::crash`) aborts right after
//!   persist point N on a file table; the parent reopens the file.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use pmolap_index::dash::{Dash, DashOptions};
use pmolap_index::Error;
use pmolap_os::durable::{crash, Steps};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

#[derive(Debug, Clone, Copy)]
enum Op {
    Put(u64, u64),
    Del(u64),
}

impl Op {
    fn key(self) -> u64 {
        match self {
            Op::Put(k, _) | Op::Del(k) => k,
        }
    }
}

/// The seeded workload: mostly new keys (so segments split), updates and deletes.
fn workload(seed: u64, n: usize) -> Vec<Op> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut keys: Vec<u64> = Vec::new();
    (0..n)
        .map(|i| match rng.gen_range(0..100) {
            r if r < 70 || keys.is_empty() => {
                let k = rng.gen::<u64>();
                keys.push(k);
                Op::Put(k, i as u64)
            }
            70..=84 => Op::Put(keys[rng.gen_range(0..keys.len())], i as u64 | 1 << 40),
            _ => Op::Del(keys[rng.gen_range(0..keys.len())]),
        })
        .collect()
}

fn apply(d: &Dash, op: Op) -> Result<(), Error> {
    match op {
        Op::Put(k, v) => d.insert(k, v).map(|_| ()),
        Op::Del(k) => d.remove(k).map(|_| ()),
    }
}

fn model_after(ops: &[Op]) -> HashMap<u64, u64> {
    let mut m = HashMap::new();
    for &op in ops {
        match op {
            Op::Put(k, v) => {
                m.insert(k, v);
            }
            Op::Del(k) => {
                m.remove(&k);
            }
        }
    }
    m
}

/// Verifies a reopened table: acknowledged ops `ops[..acked]` all there, op `acked`
/// (if any) old or new, invariants hold, and the table still takes writes.
fn verify(d: &Dash, ops: &[Op], acked: usize, what: &str) {
    let rep = d
        .check()
        .unwrap_or_else(|e| panic!("{what}: check failed: {e}"));
    assert!(rep.problems.is_empty(), "{what}: {:?}", rep.problems);
    let before = model_after(&ops[..acked]);
    let inflight = ops.get(acked).copied();
    let after = inflight.map(|_| model_after(&ops[..=acked]));
    let keys: BTreeSet<u64> = ops.iter().map(|o| o.key()).collect();
    for k in keys {
        let got = d.get(k).unwrap();
        let old = before.get(&k).copied();
        if inflight.is_some_and(|op| op.key() == k) {
            let new = after.as_ref().unwrap().get(&k).copied();
            assert!(
                got == old || got == new,
                "{what}: in-flight key {k}: {got:?}, not {old:?} or {new:?}"
            );
        } else {
            assert_eq!(got, old, "{what}: key {k}");
        }
    }
    // The recovered table keeps working.
    d.insert(u64::MAX - 1, 5).unwrap();
    assert_eq!(d.get(u64::MAX - 1).unwrap(), Some(5));
}

fn options() -> DashOptions {
    DashOptions {
        max_segments: 16,
        initial_depth: 0,
    }
}

/// Runs `ops` on a simulated table stopping at persist point `stop`; returns the table
/// and how many ops were acknowledged.
fn run_until(ops: &[Op], stop: Option<u64>) -> (Dash, usize) {
    let d = Dash::create_simulated(options(), stop).unwrap();
    for (i, &op) in ops.iter().enumerate() {
        match apply(&d, op) {
            Ok(()) => {}
            Err(Error::CrashStop(_)) => return (d, i),
            Err(e) => panic!("op {i}: {e}"),
        }
    }
    (d, ops.len())
}

fn crash_points() -> usize {
    std::env::var("PMOLAP_DASH_CRASH_POINTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(400)
}

#[test]
fn simulated_crash_at_persist_points_recovers_every_acknowledged_op() {
    let ops = workload(42, 4000);
    // A full run: how many persist points each op takes, and which ops split.
    let d = Dash::create_simulated(options(), None).unwrap();
    let base = d.persist_points();
    let mut split_points = Vec::new();
    let mut last_splits = 0;
    for &op in &ops {
        let p0 = d.persist_points();
        apply(&d, op).unwrap();
        let s = d.split_stats().0;
        if s != last_splits {
            split_points.extend(p0 + 1..=d.persist_points());
            last_splits = s;
        }
    }
    let total = d.persist_points();
    assert!(last_splits >= 2, "the workload split {last_splits} times");
    // Every persist point of every split, and evenly spread points elsewhere.
    let want = crash_points().max(split_points.len() + 50);
    let mut points: BTreeSet<u64> = split_points.into_iter().collect();
    let stride = ((total - base) / (want - points.len()) as u64).max(1);
    let mut p = base + 1;
    while p <= total && points.len() < want {
        points.insert(p);
        p += stride;
    }
    for &stop in &points {
        let (d, acked) = run_until(&ops, Some(stop));
        assert!(acked < ops.len(), "stop at {stop} stopped nothing");
        let durable = d.durable_image().unwrap();
        let live = d.live_image();
        drop(d);
        let t = Dash::open_simulated(durable, None).unwrap();
        verify(&t, &ops, acked, &format!("point {stop} (durable image)"));
        let t = Dash::open_simulated(live, None).unwrap();
        verify(&t, &ops, acked, &format!("point {stop} (live image)"));
    }
    eprintln!(
        "dash crash simulation: {} of {} persist points, {} ops, {last_splits} splits",
        points.len(),
        total - base,
        ops.len()
    );
}

#[test]
fn crash_during_recovery_is_recovered_again() {
    let ops = workload(9, 1500);
    let (d, acked) = run_until(&ops, Some(2500));
    let image = d.durable_image().unwrap();
    drop(d);
    // Crash again at each persist point of the recovery (check recovers everything).
    for stop in 1..40 {
        let t = Dash::open_simulated(image.clone(), Some(stop)).unwrap_or_else(|e| {
            assert!(matches!(e, Error::CrashStop(_)));
            Dash::open_simulated(image.clone(), None).unwrap()
        });
        let _ = t.check();
        let again = t.durable_image().unwrap();
        let t = Dash::open_simulated(again, None).unwrap();
        verify(&t, &ops, acked, &format!("recovery crash at {stop}"));
    }
}

const ENV_FILE: &str = "PMOLAP_DASH_CRASH_FILE";
const ENV_STEP: &str = "PMOLAP_DASH_CRASH_STEP";
const BASE_OPS: usize = 1250;
const CHILD_OPS: usize = 220;

/// The child side: opens the table file, runs the workload's tail with the crash hook
/// armed, and logs every acknowledged op to `<file>.acked`.
#[test]
fn dash_crash_child() {
    let (Ok(file), Some(step)) = (std::env::var(ENV_FILE), crash::child_step(ENV_STEP)) else {
        return;
    };
    let ops = workload(3, BASE_OPS + CHILD_OPS);
    let steps = Arc::new(Steps::new(Some(step)));
    let d = Dash::open(Path::new(&file), Some(steps)).unwrap();
    let log = format!("{file}.acked");
    for (i, &op) in ops.iter().enumerate().skip(BASE_OPS) {
        apply(&d, op).unwrap();
        std::fs::write(&log, (i + 1).to_string()).unwrap();
    }
    d.close().unwrap();
}

fn scratch() -> tempfile::TempDir {
    if Path::new("/dev/shm").is_dir() {
        tempfile::tempdir_in("/dev/shm").unwrap()
    } else {
        tempfile::tempdir().unwrap()
    }
}

#[test]
fn process_abort_at_every_persist_point_recovers() {
    let dir = scratch();
    let ops = workload(3, BASE_OPS + CHILD_OPS);
    let base: PathBuf = dir.path().join("base.dash");
    let spec = format!("file:{}", base.display()).parse().unwrap();
    let d = Dash::create(&spec, options(), None).unwrap();
    for &op in &ops[..BASE_OPS] {
        apply(&d, op).unwrap();
    }
    d.close().unwrap();
    let file = dir.path().join("t.dash");
    let n = crash::every_step(
        "dash_crash_child",
        ENV_STEP,
        2000,
        |_| {
            std::fs::copy(&base, &file).unwrap();
            let _ = std::fs::remove_file(file.with_extension("dash.acked"));
            ((), vec![(ENV_FILE.to_string(), file.display().to_string())])
        },
        |step, crashed, _| {
            let acked = std::fs::read_to_string(file.with_extension("dash.acked"))
                .map(|s| s.parse().unwrap())
                .unwrap_or(BASE_OPS);
            if !crashed {
                assert_eq!(
                    acked,
                    ops.len(),
                    "a run that did not crash acknowledged every op"
                );
            }
            let d = Dash::open(&file, None).unwrap();
            verify(
                &d,
                &ops,
                acked,
                &format!("abort after persist point {step}"),
            );
        },
    );
    assert!(n > 300, "only {n} crash points");
}
