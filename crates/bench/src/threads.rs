//! Worker threads of the benchmarks: how many a run may start, starting them with
//! errors instead of panics, and a start gate that can be called off.
//!
//! Every benchmark thread is started through [`spawn`] (`std::thread::Builder`), so a
//! refused thread (the system's thread or memory limit) is an [`Error::Spawn`], and the
//! threads already started are released through [`Gate::abort`] instead of waiting at
//! the start forever.

use std::sync::{Condvar, Mutex, PoisonError};
use std::thread::{Scope, ScopedJoinHandle};

use crate::error::{Error, Result};

/// Threads per logical CPU a run may start without `--oversubscribe`.
pub const MAX_PER_CPU: usize = 4;
/// Threads a run may start without `--oversubscribe`, however many CPUs there are.
pub const MAX_THREADS: usize = 1024;
/// Threads a run may start even with `--oversubscribe`: each needs its own stack and
/// guard mappings, and far beyond this the process runs out of mappings and aborts.
pub const MAX_THREADS_OVERSUBSCRIBED: usize = 4096;

/// Refuses a run of `threads` threads (all that run at once) that is far beyond the
/// machine's `cpus` logical CPUs, unless `oversubscribe`; and any beyond
/// [`MAX_THREADS_OVERSUBSCRIBED`].
pub fn check_count(bench: &str, threads: usize, cpus: usize, oversubscribe: bool) -> Result<()> {
    let soft = (cpus.max(1) * MAX_PER_CPU).min(MAX_THREADS);
    let msg = if threads > MAX_THREADS_OVERSUBSCRIBED {
        format!(
            "{threads} threads at once are more than pmolap starts ({MAX_THREADS_OVERSUBSCRIBED} at most, even with --oversubscribe)"
        )
    } else if threads > soft && !oversubscribe {
        format!(
            "{threads} threads at once are far more than the {cpus} logical CPUs of this machine (at most {soft} without --oversubscribe)"
        )
    } else {
        return Ok(());
    };
    Err(Error::Invalid {
        bench: bench.to_string(),
        msg,
    })
}

/// Starts a scoped thread named `name`; a refusal is an error naming how many threads
/// were already running (`index` of `total`).
pub fn spawn<'scope, 'env, T: Send + 'scope>(
    s: &'scope Scope<'scope, 'env>,
    name: &str,
    index: usize,
    total: usize,
    f: impl FnOnce() -> T + Send + 'scope,
) -> Result<ScopedJoinHandle<'scope, T>> {
    std::thread::Builder::new()
        .name(format!("{name}-{index}"))
        .spawn_scoped(s, f)
        .map_err(|source| Error::Spawn {
            started: index,
            total,
            source,
        })
}

/// What a thread returns when its start was called off ([`Gate::wait`] gave `false`):
/// never the error reported, as the thread that called it off has its own.
pub fn called_off() -> Error {
    Error::Thread(CALLED_OFF.into())
}

const CALLED_OFF: &str = "start called off";

fn is_called_off(e: &Error) -> bool {
    matches!(e, Error::Thread(m) if m == CALLED_OFF)
}

/// Joins a scoped thread, a panic becoming [`Error::Thread`] (`what` names the thread).
pub fn join<T>(h: ScopedJoinHandle<'_, Result<T>>, what: &str) -> Result<T> {
    h.join()
        .map_err(|_| Error::Thread(format!("{what} panicked")))?
}

/// A start barrier for `n` threads that can be called off: [`Gate::wait`] returns
/// `true` once all `n` arrived, `false` if [`Gate::abort`] was called (a later thread
/// could not be started), so the threads already waiting return instead of hanging.
#[derive(Debug)]
pub struct Gate {
    state: Mutex<(usize, bool)>,
    cv: Condvar,
    n: usize,
}

impl Gate {
    pub fn new(n: usize) -> Gate {
        Gate {
            state: Mutex::new((0, false)),
            cv: Condvar::new(),
            n,
        }
    }

    /// Waits for all `n` threads; `false` if the start was called off.
    pub fn wait(&self) -> bool {
        let mut st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        st.0 += 1;
        if st.0 >= self.n {
            self.cv.notify_all();
        }
        while st.0 < self.n && !st.1 {
            st = self.cv.wait(st).unwrap_or_else(PoisonError::into_inner);
        }
        !st.1 || st.0 >= self.n
    }

    /// Calls the start off: every waiting and later [`Gate::wait`] returns `false`.
    pub fn abort(&self) {
        let mut st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        st.1 = true;
        self.cv.notify_all();
    }
}

/// Starts `jobs.len()` scoped threads behind one [`Gate`] (each job gets it and calls
/// [`Gate::wait`] before its timed part; a job that fails calls the start off for the
/// others), then joins them all. If a thread cannot
/// be started, the gate is called off, the started ones are joined, and the spawn error
/// is returned. `what` names the threads in errors.
pub fn run_gated<J, T>(
    what: &str,
    jobs: Vec<J>,
    f: impl Fn(J, &Gate) -> Result<T> + Sync,
) -> Result<Vec<T>>
where
    J: Send,
    T: Send,
{
    let total = jobs.len();
    let gate = Gate::new(total);
    std::thread::scope(|s| {
        let mut handles = Vec::with_capacity(total);
        let mut failed = None;
        for (i, job) in jobs.into_iter().enumerate() {
            let (gate, f) = (&gate, &f);
            let run = move || {
                let r = f(job, gate);
                if r.is_err() {
                    // Failed before the gate (or after): release the others.
                    gate.abort();
                }
                r
            };
            match spawn(s, what, i, total, run) {
                Ok(h) => handles.push(h),
                Err(e) => {
                    gate.abort();
                    failed = Some(e);
                    break;
                }
            }
        }
        let joined: Vec<Result<T>> = handles.into_iter().map(|h| join(h, what)).collect();
        if let Some(e) = failed {
            return Err(e);
        }
        // The error of the thread that called the start off, not of those it released.
        let mut out = Vec::with_capacity(total);
        let mut first_err = None;
        for r in joined {
            match r {
                Ok(v) => out.push(v),
                Err(e) if first_err.is_none() || first_err.as_ref().is_some_and(is_called_off) => {
                    first_err = Some(e)
                }
                Err(_) => {}
            }
        }
        match first_err {
            Some(e) => Err(e),
            None => Ok(out),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_far_above_the_cpus_are_refused_unless_asked_for() {
        check_count("b", 8, 2, false).unwrap();
        let e = check_count("b", 9, 2, false).unwrap_err().to_string();
        assert!(
            e.contains("--oversubscribe") && e.contains("9 threads"),
            "{e}"
        );
        check_count("b", 9, 2, true).unwrap();
        check_count("b", 1024, 512, false).unwrap();
        assert!(check_count("b", 1025, 512, false).is_err());
        assert!(check_count("b", 16384, 2, true).is_err());
    }

    #[test]
    fn an_aborted_gate_releases_the_waiting_threads() {
        let gate = Gate::new(3);
        std::thread::scope(|s| {
            let h = s.spawn(|| gate.wait());
            std::thread::sleep(std::time::Duration::from_millis(20));
            gate.abort();
            assert!(!h.join().unwrap());
        });
        let r = run_gated("t", vec![1u64, 2, 3], |j, g| {
            assert!(g.wait());
            Ok(j * 2)
        })
        .unwrap();
        assert_eq!(r, vec![2, 4, 6]);
    }
}
