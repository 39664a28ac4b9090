//! Where a region's pages are: the NUMA nodes holding them (`move_pages` query) and the
//! bytes backed by huge pages (`/proc/self/smaps`).

use super::{Region, Residency, PAGE};
use pmolap_os::{Error, Result};

impl Region {
    /// Which NUMA nodes hold the region's pages: a `move_pages` query (no move) over up to
    /// `max_samples` evenly spaced pages.
    pub fn residency(&self, max_samples: usize) -> Result<Residency> {
        let pages = self.map_len / PAGE;
        let samples = pages.clamp(1, max_samples.max(1));
        let step = (pages / samples).max(1);
        let addrs: Vec<*mut libc::c_void> = (0..samples)
            .map(|i| (i * step * PAGE).min(self.map_len - 1))
            // SAFETY: every offset is below `map_len`, inside our mapping.
            .map(|off| unsafe { self.ptr.as_ptr().add(off & !(PAGE - 1)) }.cast())
            .collect();
        let mut status = vec![0 as libc::c_int; addrs.len()];
        // SAFETY: `addrs` and `status` both have `addrs.len()` elements; `nodes` is NULL,
        // which makes this a pure query.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_move_pages,
                0,
                addrs.len() as libc::c_ulong,
                addrs.as_ptr(),
                std::ptr::null::<libc::c_int>(),
                status.as_mut_ptr(),
                0,
            )
        };
        if rc < 0 {
            return Err(Error::last_os("move_pages"));
        }
        let mut r = Residency {
            pages_checked: addrs.len() as u64,
            ..Residency::default()
        };
        for s in status {
            if s >= 0 {
                *r.per_node.entry(s as u32).or_default() += 1;
            } else if s == -libc::ENOENT {
                r.not_present += 1;
            } else {
                r.unknown += 1;
            }
        }
        Ok(r)
    }

    /// Bytes of this mapping backed by huge pages, from `/proc/self/smaps`.
    pub(super) fn smaps_huge_bytes(&self) -> Option<u64> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let start = format!("{:x}-", self.ptr.as_ptr() as usize);
        let mut lines = smaps.lines().skip_while(|l| !l.starts_with(&start));
        lines.next()?;
        let mut page_kb = 4;
        let mut anon_huge_kb = 0;
        let mut rss_kb = 0;
        for l in lines {
            if l.split_whitespace()
                .next()
                .is_some_and(|w| w.contains('-') && !w.ends_with(':'))
            {
                break;
            }
            let kb = |l: &str| {
                l.split_whitespace()
                    .nth(1)
                    .and_then(|v| v.parse::<u64>().ok())
                    .unwrap_or(0)
            };
            if l.starts_with("KernelPageSize:") {
                page_kb = kb(l);
            } else if l.starts_with("AnonHugePages:") || l.starts_with("FilePmdMapped:") {
                anon_huge_kb += kb(l);
            } else if l.starts_with("Rss:") {
                rss_kb = kb(l);
            }
        }
        Some(if page_kb >= 2048 {
            rss_kb * 1024
        } else {
            anon_huge_kb * 1024
        })
    }
}
