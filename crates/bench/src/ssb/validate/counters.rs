//! What the device really did during a run: bytes read from storage
//! (`/proc/self/io` `read_bytes`, accounted when a read is submitted to the block layer,
//! so it includes mmap faults and the kernel's readahead by every thread of the process)
//! and major faults (`/proc/self/stat` `majflt`, every thread's, the figure `getrusage`
//! reports as `ru_majflt`).

use pmolap_results::place::IoFigures;

/// The process's counters at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IoSample {
    pub read_bytes: u64,
    pub major_faults: u64,
}

impl IoSample {
    /// The counters now; `None` where the kernel does not provide them (no task I/O
    /// accounting, no procfs).
    pub fn now() -> Option<IoSample> {
        let io = std::fs::read_to_string("/proc/self/io").ok()?;
        let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
        Some(IoSample {
            read_bytes: parse_io(&io)?,
            major_faults: parse_majflt(&stat)?,
        })
    }

    /// What happened between `self` and `later`.
    pub fn until(self, later: IoSample) -> IoFigures {
        IoFigures {
            read_bytes: later.read_bytes.saturating_sub(self.read_bytes) as f64,
            major_faults: later.major_faults.saturating_sub(self.major_faults) as f64,
        }
    }
}

/// `read_bytes` of a `/proc/PID/io` text.
fn parse_io(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix("read_bytes:"))
        .and_then(|v| v.trim().parse().ok())
}

/// `majflt` (field 12) of a `/proc/PID/stat` text; the command name (field 2) may hold
/// spaces and parentheses, so fields are counted after its last `)`.
fn parse_majflt(text: &str) -> Option<u64> {
    let rest = &text[text.rfind(')')? + 1..];
    // Fields 3.. follow: state(3) ppid pgrp session tty_nr tpgid flags minflt cminflt
    // majflt(12).
    rest.split_whitespace().nth(9)?.parse().ok()
}

/// The system CPU time every thread of this process has spent so far, in ns
/// (`/proc/self/stat` `stime`, field 15, in clock ticks of `USER_HZ` = 100 — what procfs
/// reports on every Linux architecture pmolap builds for); `None` without procfs. Kernel
/// work done for the process — a memory cgroup's direct reclaim in its faults — counts
/// here whatever the device's speed: what [`crate::tierprofile`] prices reclaim with.
pub fn system_cpu_ns() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    parse_stime(&stat).map(|t| t as f64 * 1e7)
}

/// `stime` (field 15) of a `/proc/PID/stat` text, fields counted as in [`parse_majflt`].
fn parse_stime(text: &str) -> Option<u64> {
    let rest = &text[text.rfind(')')? + 1..];
    // state(3) ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt
    // utime stime(15).
    rest.split_whitespace().nth(12)?.parse().ok()
}

/// The median per run of each counter over `runs` (`None` if any run lacks them).
pub fn median_of(runs: &[Option<IoFigures>]) -> Option<IoFigures> {
    let runs: Option<Vec<IoFigures>> = runs.iter().copied().collect();
    let runs = runs.filter(|r| !r.is_empty())?;
    let m = |f: fn(&IoFigures) -> f64| {
        pmolap_results::stats::median(&runs.iter().map(f).collect::<Vec<_>>())
    };
    Some(IoFigures {
        read_bytes: m(|r| r.read_bytes),
        major_faults: m(|r| r.major_faults),
    })
}

/// Runs `f`, returning what the device did meanwhile with its result.
pub fn measured<T>(f: impl FnOnce() -> T) -> (T, Option<IoFigures>) {
    let before = IoSample::now();
    let out = f();
    let io = before.zip(IoSample::now()).map(|(a, b)| a.until(b));
    (out, io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_proc_texts() {
        let io = "rchar: 6976\nwchar: 0\nsyscr: 10\nsyscw: 0\nread_bytes: 8388608\nwrite_bytes: 0\ncancelled_write_bytes: 0\n";
        assert_eq!(parse_io(io), Some(8_388_608));
        assert_eq!(parse_io("rchar: 1\n"), None);
        let stat = "123 (a (b) c) S 1 123 123 0 -1 4194560 900 0 17 0 5 3 0 0 20 0 3 0";
        assert_eq!(parse_majflt(stat), Some(17));
        assert_eq!(parse_stime(stat), Some(3));
        assert_eq!(parse_stime("123 (x) S 1"), None);
        assert!(system_cpu_ns().is_some());
        assert_eq!(parse_majflt("123 (x) S 1"), None);
    }

    #[test]
    fn reads_this_process_and_takes_medians() {
        let (_, io) = measured(|| std::hint::black_box(1 + 1));
        let io = io.expect("procfs with task I/O accounting");
        assert!(io.read_bytes >= 0.0 && io.major_faults >= 0.0);
        let f = |b: f64| {
            Some(IoFigures {
                read_bytes: b,
                major_faults: b / 2.0,
            })
        };
        let m = median_of(&[f(4.0), f(2.0), f(10.0)]).unwrap();
        assert_eq!((m.read_bytes, m.major_faults), (4.0, 2.0));
        assert_eq!(median_of(&[f(1.0), None]), None);
        assert_eq!(median_of(&[]), None);
    }
}
