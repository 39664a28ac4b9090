//! Where a Dash table's words live and how its updates become durable: a tier region
//! (persisted with the tier's instructions: `msync` on page-cache files, cache-line
//! flush and `sfence` on DAX) or a heap array (DRAM, nothing to persist), plus the crash hooks of
//! the crash tests.
//!
//! Every call of [`Mem::persist`] is one *persist point*. Crash tests stop a workload at
//! persist point N in one of two ways:
//! * [`Steps`] (the workspace's one crash hook): the process aborts right after persist
//!   point N; the parent reopens the file. On a page-cache file every store made before
//!   the abort survives (the kernel still holds the dirty pages), so this checks recovery
//!   from "everything up to the crash reached the media".
//! * the *shadow image*: a copy of the table updated only by persist calls. Persist
//!   point N and everything after it fail with [`Error::CrashStop`] and copy nothing, so
//!   the shadow holds exactly what the persist protocol made durable, and stores that
//!   were never persisted are lost, as on persistent memory after a power failure.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use pmolap_os::durable::Steps;
use pmolap_tier::{AtomicRegion, Durability};

use crate::error::{Error, Result};

#[derive(Debug)]
enum Store {
    Region(AtomicRegion),
    Heap(Box<[AtomicU64]>),
}

#[derive(Debug)]
struct Shadow {
    image: Mutex<Vec<u64>>,
    stop_at: Option<u64>,
    stopped: AtomicBool,
}

/// A table's words and its persistence.
#[derive(Debug)]
pub(crate) struct Mem {
    store: Store,
    /// Whether persist points do anything (a persistent tier, a shadow or a crash hook).
    active: bool,
    persistent: bool,
    shadow: Option<Shadow>,
    steps: Option<Arc<Steps>>,
    points: AtomicU64,
}

impl Mem {
    pub fn region(r: AtomicRegion, steps: Option<Arc<Steps>>) -> Mem {
        let persistent = r.durability() != Durability::Volatile;
        Mem {
            store: Store::Region(r),
            active: persistent || steps.is_some(),
            persistent,
            shadow: None,
            steps,
            points: AtomicU64::new(0),
        }
    }

    /// A volatile heap array of `words` zero words (an error, not an abort, where the
    /// allocator refuses it).
    pub fn heap(words: usize) -> Result<Mem> {
        let mut v: Vec<AtomicU64> = Vec::new();
        v.try_reserve_exact(words).map_err(|_| {
            Error::TooLarge(format!(
                "a DRAM table of {words} words does not fit in memory"
            ))
        })?;
        v.extend((0..words).map(|_| AtomicU64::new(0)));
        Ok(Mem {
            store: Store::Heap(v.into_boxed_slice()),
            active: false,
            persistent: false,
            shadow: None,
            steps: None,
            points: AtomicU64::new(0),
        })
    }

    /// A private copy of a table's file in memory: treated as persistent (so segments
    /// are recovered in it), but persisting does nothing and the file is never written.
    pub fn copy(words: Box<[AtomicU64]>) -> Mem {
        Mem {
            store: Store::Heap(words),
            active: false,
            persistent: true,
            shadow: None,
            steps: None,
            points: AtomicU64::new(0),
        }
    }

    /// A heap array holding `image`, treated as persistent, with a shadow image that
    /// stops the table at persist point `stop_at` (crash simulation).
    pub fn simulated(image: Vec<u64>, stop_at: Option<u64>) -> Mem {
        Mem {
            store: Store::Heap(image.iter().map(|&w| AtomicU64::new(w)).collect()),
            active: true,
            persistent: true,
            shadow: Some(Shadow {
                image: Mutex::new(image),
                stop_at,
                stopped: AtomicBool::new(false),
            }),
            steps: None,
            points: AtomicU64::new(0),
        }
    }

    #[inline]
    pub fn words(&self) -> &[AtomicU64] {
        match &self.store {
            Store::Region(r) => r.words(),
            Store::Heap(h) => h,
        }
    }

    /// Whether the table survives the process (and so needs recovery after a crash).
    pub fn persistent(&self) -> bool {
        self.persistent
    }

    /// Persist points taken so far.
    pub fn points(&self) -> u64 {
        self.points.load(Ordering::Relaxed)
    }

    /// Makes words `at..at+n` durable: one persist point.
    pub fn persist(&self, at: usize, n: usize) -> Result<()> {
        if !self.active {
            return Ok(());
        }
        let k = self.points.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(s) = &self.shadow {
            if s.stopped.load(Ordering::Relaxed) || s.stop_at.is_some_and(|stop| k >= stop) {
                s.stopped.store(true, Ordering::Relaxed);
                return Err(Error::CrashStop(k));
            }
            let mut img = s.image.lock().unwrap_or_else(|e| e.into_inner());
            for (i, w) in self.words()[at..at + n].iter().enumerate() {
                img[at + i] = w.load(Ordering::Relaxed);
            }
        }
        if let Store::Region(r) = &self.store {
            r.persist(at * 8, n * 8)?;
        }
        if let Some(steps) = &self.steps {
            steps.step();
        }
        Ok(())
    }

    /// The durable image (crash simulation only): what a crash now would leave.
    pub fn shadow_image(&self) -> Option<Vec<u64>> {
        let s = self.shadow.as_ref()?;
        Some(s.image.lock().unwrap_or_else(|e| e.into_inner()).clone())
    }

    /// How updates are made durable here, in words.
    pub fn durability_name(&self) -> String {
        match &self.store {
            Store::Region(r) => r.durability().to_string(),
            Store::Heap(_) if self.shadow.is_some() => "simulated (shadow image)".into(),
            Store::Heap(_) if self.persistent => "none (a private copy of a file)".into(),
            Store::Heap(_) => Durability::Volatile.to_string(),
        }
    }

    /// Writes every word to a new file at `path`, as the table's file would hold them if
    /// the process died now (the recovery benchmark builds large tables this way).
    pub fn write_image(&self, path: &Path) -> Result<()> {
        let mut f = std::io::BufWriter::with_capacity(
            1 << 20,
            std::fs::File::create(path).map_err(|e| Error::io(path, e))?,
        );
        for w in self.words() {
            f.write_all(&w.load(Ordering::Relaxed).to_le_bytes())
                .map_err(|e| Error::io(path, e))?;
        }
        f.into_inner()
            .map_err(|e| Error::io(path, e.into_error()))?
            .sync_all()
            .map_err(|e| Error::io(path, e))
    }

    /// Every word as it is now, persisted or not.
    pub fn live_image(&self) -> Vec<u64> {
        self.words()
            .iter()
            .map(|w| w.load(Ordering::Relaxed))
            .collect()
    }
}
