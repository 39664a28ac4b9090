//! How `place validate` runs one placement: in-memory placement documents, the cold
//! procedure (one open, each query warmed up, pages dropped before every timed run) and
//! the cached one (one open, a memory cgroup, a warm-up pass, then the timed passes).
//! Every timed run of a placement's query is paired with a run of the same query on the
//! all-DRAM reference database, just before or just after it (alternately): the
//! placement's relative time divides by runs milliseconds away, not by a block of runs
//! seconds to minutes away.

use std::path::{Path, PathBuf};

use indicatif::ProgressBar;
use pmolap_engine::{Database, Query, QueryRun, Session};
use pmolap_os::cgroup::MemoryLimit;
use pmolap_place::placement::{
    PlacedStructure, PlacementTier, PLACEMENT_FORMAT, PLACEMENT_VERSION,
};
use pmolap_place::{Assignment, PlacementFile, Profile, Workload, REFERENCE_TIER};
use pmolap_results::place::{FramesFigures, IoFigures};
use pmolap_tier::Topology;

use super::counters::measured;
use super::ValidateOptions;
use crate::error::Result;
use crate::ssb::data::{make_cold, Where};

/// An in-memory placement document: structures on tier 1 of `a` mapped from their files
/// (`home`), the rest copied to DRAM.
pub(super) fn placement_of(w: &Workload, profile: &Profile, a: &Assignment) -> PlacementFile {
    PlacementFile {
        format: PLACEMENT_FORMAT.into(),
        version: PLACEMENT_VERSION,
        tiers: vec![
            PlacementTier {
                name: REFERENCE_TIER.into(),
                location: None,
                capacity_bytes: None,
            },
            PlacementTier {
                name: profile.tier.clone(),
                location: Some("home".into()),
                capacity_bytes: None,
            },
        ],
        structures: w
            .structures
            .iter()
            .zip(&a.tier)
            .filter(|(_, &t)| t == 1)
            .map(|(s, _)| PlacedStructure {
                table: s.table.clone(),
                column: s.column.clone(),
                kind: s.kind,
                tier: profile.tier.clone(),
            })
            .collect(),
        predicted: None,
        accuracy: None,
        origin: None,
    }
}

/// Opens `dir` with every structure copied to DRAM, reading the files only to copy them,
/// then drops the files' pages: the all-DRAM run of `T_DRAM` and of the cold baseline.
pub(crate) fn open_fresh_dram(dir: &Path) -> Result<Database> {
    let pf = PlacementFile {
        format: PLACEMENT_FORMAT.into(),
        version: PLACEMENT_VERSION,
        tiers: vec![PlacementTier {
            name: REFERENCE_TIER.into(),
            location: None,
            capacity_bytes: None,
        }],
        structures: Vec::new(),
        predicted: None,
        accuracy: None,
        origin: None,
    };
    open_cold(dir, &pf)
}

/// Opens `dir` under `pf` without reading the slow files, then drops every file's pages.
fn open_cold(dir: &Path, pf: &PlacementFile) -> Result<Database> {
    crate::ssb::data::open_cold(dir, Where::Placement(pf))
}

/// Whether repetition `rep` of query `i` runs the reference before the placement: in
/// turn by repetition and by query, so that with one repetition (`run.sh 10 3 1`) half
/// the queries still run the placement first — alternating by repetition alone put
/// every placement run of such a run after its reference run.
fn reference_first(rep: usize, i: usize) -> bool {
    (rep + i).is_multiple_of(2)
}

/// Per query, each run's time (ms) and what the device did during it.
#[derive(Debug, Default, Clone)]
pub(super) struct Runs {
    pub times: Vec<Vec<f64>>,
    pub io: Vec<Vec<Option<IoFigures>>>,
}

impl Runs {
    pub fn new(queries: usize) -> Self {
        Runs {
            times: vec![Vec::new(); queries],
            io: vec![Vec::new(); queries],
        }
    }

    /// Adds `o`'s runs (of the same queries) to these.
    pub fn extend(&mut self, o: Runs) {
        for (a, b) in self.times.iter_mut().zip(o.times) {
            a.extend(b);
        }
        for (a, b) in self.io.iter_mut().zip(o.io) {
            a.extend(b);
        }
    }

    fn push(&mut self, query: usize, ms: f64, io: Option<IoFigures>) {
        self.times[query].push(ms);
        self.io[query].push(io);
    }
}

/// What a placement's procedure measured: per query its runs and the all-DRAM
/// reference runs paired with them; for a cached run the group's page cache at the end
/// and its peak memory; the frames holding the placement's and the reference's pages
/// after the last run.
pub(super) struct Measured {
    pub runs: Runs,
    pub reference: Runs,
    pub page_cache: Option<u64>,
    pub peak: u64,
    pub frames: Option<FramesFigures>,
}

/// Runs every query under one placement, each timed run beside a run of the query on
/// `reference`; per query its times (ms).
pub(super) struct Runner<'a> {
    pub o: &'a ValidateOptions,
    pub dir: PathBuf,
    pub topo: Topology,
    pub pb: &'a ProgressBar,
    /// The all-DRAM database, opened once for the whole run (warm): every placement's
    /// relative time divides by its runs paired with the placement's.
    pub reference: &'a Session,
}

impl Runner<'_> {
    /// The frames holding `p`'s structures (those mapped from their files, the copies)
    /// and the reference's copies, read after a placement's last timed run. The
    /// reference's census is taken anew each time (about 0.1 s at SF 10, outside every
    /// timed run): compaction may migrate its anonymous pages between placements.
    fn frames(&self, p: &Session) -> Option<FramesFigures> {
        let (mapped, copies) = p.database().frames()?;
        let (_, reference) = self.reference.database().frames()?;
        Some(FramesFigures {
            mapped,
            copies,
            reference,
        })
    }

    /// `--min-time` in ms: the least a placement's timed runs add up to (past `--reps`).
    fn min_ms(&self) -> f64 {
        self.o.min_time.as_secs_f64() * 1e3
    }

    /// One timed run of query `i` (`q`) on the placement (`run`) and one on the
    /// reference, in the order [`reference_first`] gives (an effect of going first or
    /// second falls on both alike).
    fn paired(
        &self,
        rep: usize,
        i: usize,
        q: &Query,
        out: &mut Runs,
        reference: &mut Runs,
        run: impl FnOnce() -> Result<(pmolap_engine::Result<QueryRun>, Option<IoFigures>)>,
    ) -> Result<()> {
        let on_reference = || measured(|| self.reference.run(q));
        let (placed, refd) = if reference_first(rep, i) {
            let refd = on_reference();
            (run()?, refd)
        } else {
            let placed = run()?;
            (placed, on_reference())
        };
        reference.push(i, refd.0?.total_ms, refd.1);
        out.push(i, placed.0?.total_ms, placed.1);
        self.pb.inc(1);
        Ok(())
    }

    /// Every query warmed up once, then `reps` times (and past them until its runs add
    /// up to its share of `--min-time`, [`ValidateOptions::another_rep`]) cold
    /// ([`make_cold`]: this process's mappings released and every file's pages dropped
    /// before the run), on one open of
    /// the database under `pf` (its DRAM copies made once); the counters cover the query
    /// only. Each cold run is paired with a run of the query on the reference.
    pub fn cold(&self, pf: &PlacementFile) -> Result<Measured> {
        let p = Session::new(
            open_cold(&self.dir, pf)?,
            &self.topo,
            self.o.data.exec.clone(),
        )?;
        let mut out = Runs::new(self.o.queries.len());
        let mut reference = Runs::new(self.o.queries.len());
        // Each query's share of `--min-time`.
        let min_ms = self.min_ms() / self.o.queries.len().max(1) as f64;
        for (i, q) in self.o.queries.iter().enumerate() {
            p.run(q)?;
            self.reference.run(q)?;
            let mut rep = 0;
            while self.o.another_rep(rep, out.times[i].iter().sum(), min_ms) {
                if pmolap_os::signal::interrupted() {
                    return Err(pmolap_os::Error::Interrupted.into());
                }
                if rep >= self.o.reps {
                    self.pb.inc_length(1);
                }
                self.paired(rep, i, q, &mut out, &mut reference, || {
                    make_cold(&p)?;
                    Ok(measured(|| p.run(q)))
                })?;
                rep += 1;
            }
        }
        Ok(Measured {
            runs: out,
            reference,
            page_cache: None,
            peak: 0,
            frames: self.frames(&p),
        })
    }

    /// Warm-up pass, then `reps` timed passes (and past them until they add up to
    /// `--min-time`, [`ValidateOptions::another_rep`]), inside a cgroup of `limit` bytes
    /// (none: an unlimited child group, to measure the peak); each timed run is paired with a
    /// run of the query on the reference, in the same group (its working memory is charged
    /// there as the placement's is; its data, copied before, is not).
    pub fn cached(&self, pf: &PlacementFile, limit: Option<u64>) -> Result<Measured> {
        let p = Session::new(
            open_cold(&self.dir, pf)?,
            &self.topo,
            self.o.data.exec.clone(),
        )?;
        let guard = MemoryLimit::enter(limit.unwrap_or(1 << 50))?;
        let mut out = Runs::new(self.o.queries.len());
        let mut reference = Runs::new(self.o.queries.len());
        for q in &self.o.queries {
            p.run(q)?;
            self.reference.run(q)?;
        }
        let min_ms = self.min_ms();
        let mut rep = 0;
        while self
            .o
            .another_rep(rep, out.times.iter().flatten().sum(), min_ms)
        {
            if rep >= self.o.reps {
                self.pb.inc_length(self.o.queries.len() as u64);
            }
            for (i, q) in self.o.queries.iter().enumerate() {
                if pmolap_os::signal::interrupted() {
                    return Err(pmolap_os::Error::Interrupted.into());
                }
                self.paired(rep, i, q, &mut out, &mut reference, || {
                    Ok(measured(|| p.run(q)))
                })?;
            }
            rep += 1;
        }
        let page_cache = guard.page_cache_bytes();
        let peak = guard.peak_bytes().unwrap_or(0);
        let frames = self.frames(&p);
        drop(guard);
        drop(p);
        Ok(Measured {
            runs: out,
            reference,
            page_cache,
            peak,
            frames,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::reference_first;

    #[test]
    fn the_reference_goes_first_in_half_the_pairs_even_with_one_repetition() {
        for reps in 1..=4 {
            let first = (0..13)
                .flat_map(|i| (0..reps).map(move |r| reference_first(r, i)))
                .filter(|&f| f)
                .count();
            // 13 queries: 7 or 6 of 13 with one repetition, exactly half of each even count.
            assert!(
                first.abs_diff(13 * reps - first) <= 1,
                "{reps} reps: {first} first"
            );
        }
        // Each query alternates between repetitions.
        assert_ne!(reference_first(0, 3), reference_first(1, 3));
    }
}
