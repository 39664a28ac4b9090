//! Server settings scaled to the machine, after PGTune's "data warehouse" profile (the
//! paper tuned PostgreSQL with PGTune), plus what a benchmark run needs: autovacuum off,
//! no WAL archiving, JIT off. docs/pg.md lists each with its reason.

use serde::{Deserialize, Serialize};

/// The machine facts the settings are scaled from.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct MachineFacts {
    /// Total memory (bytes).
    pub mem_bytes: u64,
    /// Logical CPUs.
    pub cpus: usize,
}

impl MachineFacts {
    /// Reads `/proc/meminfo` (MemTotal) and the available parallelism.
    pub fn detect() -> MachineFacts {
        let mem_kb = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|t| {
                t.lines()
                    .find_map(|l| l.strip_prefix("MemTotal:"))
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            })
            .unwrap_or(4 << 20);
        MachineFacts {
            mem_bytes: mem_kb * 1024,
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }
}

fn mb(bytes: u64) -> String {
    format!("{}MB", (bytes >> 20).max(1))
}

/// The settings (name, value) for `m`.
pub fn pgtune(m: MachineFacts) -> Vec<(String, String)> {
    let mem = m.mem_bytes;
    let cpus = m.cpus.max(1) as u64;
    let max_connections = 40u64; // PGTune DW
    let shared_buffers = mem / 4;
    let workers_per_gather = (cpus / 2).max(1);
    // PGTune: (RAM - shared_buffers) / (3 * max_connections) / workers per gather, >= 4 MB.
    let work_mem =
        ((mem - shared_buffers) / (3 * max_connections) / workers_per_gather).max(4 << 20);
    let maintenance = (mem / 8).min(2 << 30);
    let v: Vec<(&str, String)> = vec![
        ("max_connections", max_connections.to_string()),
        ("shared_buffers", mb(shared_buffers)),
        ("effective_cache_size", mb(mem / 4 * 3)),
        ("maintenance_work_mem", mb(maintenance)),
        ("work_mem", mb(work_mem)),
        ("checkpoint_completion_target", "0.9".into()),
        ("wal_buffers", "16MB".into()),
        ("default_statistics_target", "500".into()),
        ("random_page_cost", "1.1".into()),
        ("effective_io_concurrency", "200".into()),
        // PGTune's 4GB/16GB would let the load's WAL fill the run directory's disk
        // (a 21 GB disk ran out at SF 5); bounded, and counted by the size check.
        ("min_wal_size", mb(crate::tiers::MAX_WAL_BYTES / 2)),
        ("max_wal_size", mb(crate::tiers::MAX_WAL_BYTES)),
        ("max_worker_processes", cpus.to_string()),
        (
            "max_parallel_workers_per_gather",
            workers_per_gather.to_string(),
        ),
        ("max_parallel_workers", cpus.to_string()),
        (
            "max_parallel_maintenance_workers",
            workers_per_gather.to_string(),
        ),
        // A benchmark run, not a production server:
        ("autovacuum", "off".into()),
        ("wal_level", "minimal".into()),
        ("max_wal_senders", "0".into()),
        ("archive_mode", "off".into()),
        ("jit", "off".into()),
        ("checkpoint_timeout", "30min".into()),
        ("logging_collector", "off".into()),
        // Parallel queries' dynamic shared memory as files in the data directory, not
        // /dev/shm: removed with the cluster even when the server is killed.
        ("dynamic_shared_memory_type", "mmap".into()),
    ];
    v.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_with_the_machine() {
        let small = pgtune(MachineFacts {
            mem_bytes: 4 << 30,
            cpus: 2,
        });
        let big = pgtune(MachineFacts {
            mem_bytes: 64 << 30,
            cpus: 32,
        });
        let get = |s: &[(String, String)], k: &str| {
            s.iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.clone())
                .unwrap()
        };
        assert_eq!(get(&small, "shared_buffers"), "1024MB");
        assert_eq!(get(&big, "shared_buffers"), "16384MB");
        assert_eq!(get(&small, "max_parallel_workers_per_gather"), "1");
        assert_eq!(get(&big, "max_parallel_workers_per_gather"), "16");
        assert_eq!(get(&big, "maintenance_work_mem"), "2048MB");
        assert_eq!(get(&small, "autovacuum"), "off");
        assert_eq!(get(&small, "dynamic_shared_memory_type"), "mmap");
    }
}
