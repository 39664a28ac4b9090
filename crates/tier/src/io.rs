//! Low-level file I/O primitives for the storage benchmarks (iobench): aligned buffers
//! for `O_DIRECT`, `posix_fadvise`/`posix_fallocate`, read prefaulting of file mappings,
//! and an io_uring ring that owns its buffers and files ([`RingIo`]).
//!
//! `pread`/`pwrite` need no unsafe code (std's `FileExt`), and file mappings with and
//! without `MAP_SYNC` are [`crate::Region`]s; everything here is what is left.

use std::alloc::{self, Layout};
use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::ptr::NonNull;

use io_uring::{opcode, squeue, types, IoUring};

use pmolap_os::{Error, Result};

const MADV_POPULATE_READ: libc::c_int = 22;

/// A zeroed heap buffer whose start is aligned to `align` bytes (a power of two), as
/// `O_DIRECT` needs (the device's logical block size, or a page).
#[derive(Debug)]
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    layout: Layout,
}

// SAFETY: the buffer is uniquely owned heap memory; nothing ties it to a thread.
unsafe impl Send for AlignedBuf {}
// SAFETY: `&AlignedBuf` only gives out `&[u8]`; writes need `&mut`.
unsafe impl Sync for AlignedBuf {}

impl AlignedBuf {
    /// Allocates `len` zeroed bytes (at least one) aligned to `align`.
    pub fn new(len: usize, align: usize) -> Result<AlignedBuf> {
        let layout = Layout::from_size_align(len.max(1), align.max(1)).map_err(|_| {
            Error::Invalid(format!(
                "cannot allocate {len} bytes aligned to {align} (alignment must be a power of two)"
            ))
        })?;
        // SAFETY: the layout has a non-zero size.
        let p = unsafe { alloc::alloc_zeroed(layout) };
        let ptr = NonNull::new(p).ok_or_else(|| {
            Error::Invalid(format!("out of memory allocating a {len}-byte I/O buffer"))
        })?;
        Ok(AlignedBuf { ptr, layout })
    }

    pub fn len(&self) -> usize {
        self.layout.size()
    }

    pub fn is_empty(&self) -> bool {
        self.layout.size() == 0
    }

    fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }
}

impl std::ops::Deref for AlignedBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: `ptr` is a live, initialised (zeroed) allocation of `layout.size()` bytes.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.layout.size()) }
    }
}

impl std::ops::DerefMut for AlignedBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as for `deref`, and `&mut self` makes this the only access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.layout.size()) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with exactly this layout.
        unsafe { alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

/// A `posix_fadvise` hint for a whole file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Advice {
    Normal,
    Sequential,
    Random,
    WillNeed,
    /// Drop the file's clean pages from the page cache.
    DontNeed,
}

/// `posix_fadvise(fd, 0, 0, advice)`: applies to the whole file.
pub fn fadvise(file: &File, path: &Path, advice: Advice) -> Result<()> {
    let a = match advice {
        Advice::Normal => libc::POSIX_FADV_NORMAL,
        Advice::Sequential => libc::POSIX_FADV_SEQUENTIAL,
        Advice::Random => libc::POSIX_FADV_RANDOM,
        Advice::WillNeed => libc::POSIX_FADV_WILLNEED,
        Advice::DontNeed => libc::POSIX_FADV_DONTNEED,
    };
    // SAFETY: a valid open fd; posix_fadvise only reads its integer arguments.
    let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, a) };
    if rc != 0 {
        return Err(Error::io(path, std::io::Error::from_raw_os_error(rc)));
    }
    Ok(())
}

/// `posix_fallocate(fd, 0, len)`: reserves the file's blocks (no zeroing of data).
pub fn fallocate(file: &File, path: &Path, len: u64) -> Result<()> {
    // SAFETY: a valid open fd; posix_fallocate only reads its integer arguments.
    let rc = unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, len as libc::off_t) };
    if rc != 0 {
        return Err(Error::io(path, std::io::Error::from_raw_os_error(rc)));
    }
    Ok(())
}

/// Opens `path` with `O_DIRECT` (read/write, created if `create`); a filesystem that
/// refuses `O_DIRECT` gives a one-line error saying so.
pub fn open_direct(path: &Path, create: bool, truncate: bool) -> Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(create)
        .truncate(truncate)
        .custom_flags(libc::O_DIRECT)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::EINVAL) {
                Error::Invalid(format!(
                    "{}: the filesystem refuses O_DIRECT ({e})",
                    path.display()
                ))
            } else {
                Error::io(path, e)
            }
        })
}

/// Whether the calling process may create files in `dir` (`access(W_OK | X_OK)`).
pub fn dir_writable(dir: &Path) -> bool {
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()) else {
        return false;
    };
    // SAFETY: `c` is a valid NUL-terminated path; access only reads it.
    unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) == 0 }
}

/// Faults in every page of `bytes` (a file mapping) for reading, without dirtying it:
/// `madvise(MADV_POPULATE_READ)`, else one load per 4 KiB page.
pub fn prefault_read(bytes: &[u8]) {
    if bytes.is_empty() {
        return;
    }
    let start = bytes.as_ptr() as usize & !4095;
    let len = bytes.as_ptr() as usize + bytes.len() - start;
    // SAFETY: `start..start+len` covers the pages of `bytes`, a live mapping borrowed for
    // this call; MADV_POPULATE_READ only faults pages in and changes no content.
    let rc = unsafe { libc::madvise(start as *mut libc::c_void, len, MADV_POPULATE_READ) };
    if rc != 0 {
        let mut x = 0u8;
        for b in bytes.iter().step_by(4096) {
            x ^= *b;
        }
        std::hint::black_box(x);
    }
}

/// One finished request of a [`RingIo`]: the frame it used and its outcome (bytes moved,
/// or the error of the read/write or of its linked `fdatasync`).
#[derive(Debug)]
pub struct Done {
    pub frame: usize,
    pub result: std::result::Result<usize, std::io::Error>,
}

/// `user_data` bit marking the fsync linked behind a write.
const FSYNC_TAG: u64 = 1 << 63;

/// An io_uring instance with the files it reads and writes and a buffer of `frames`
/// frames of `frame_len` bytes each (aligned for `O_DIRECT`). Each request uses one
/// frame; a frame is busy from submission to completion and cannot be touched meanwhile,
/// and dropping the ring first waits for every request in flight, so the kernel never
/// writes to freed memory or a closed file.
pub struct RingIo {
    ring: IoUring,
    files: Vec<File>,
    buf: AlignedBuf,
    frame_len: usize,
    /// Requests (read/write and linked fsync) outstanding per frame.
    pending: Vec<u8>,
    /// First result (read/write) per frame of the request in flight.
    first: Vec<Option<std::result::Result<usize, std::io::Error>>>,
    busy_frames: usize,
    queued: usize,
    /// Created with `IORING_SETUP_R_DISABLED` and not yet enabled: the first submitting
    /// thread enables it and becomes its single issuer.
    disabled: bool,
}

impl std::fmt::Debug for RingIo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RingIo")
            .field("files", &self.files.len())
            .field("frames", &self.pending.len())
            .field("frame_len", &self.frame_len)
            .field("busy", &self.busy_frames)
            .finish()
    }
}

impl RingIo {
    /// Sets up a ring for `depth` requests in flight (each possibly with a linked
    /// fsync). A kernel that refuses io_uring (seccomp, `io_uring_disabled`) gives an
    /// error starting with `io_uring unavailable`.
    pub fn new(
        files: Vec<File>,
        depth: u32,
        frames: usize,
        frame_len: usize,
        align: usize,
    ) -> Result<RingIo> {
        if depth == 0 || frames == 0 || frame_len == 0 {
            return Err(Error::Invalid(
                "io_uring needs a queue depth, frames and a frame size of at least 1".into(),
            ));
        }
        let entries = (depth * 2).next_power_of_two();
        // As fio sets its rings up (3.33 on kernels ≥ 6.1): one submitting task, task work
        // run only when it enters the kernel to wait (`SINGLE_ISSUER | DEFER_TASKRUN |
        // COOP_TASKRUN`), instead of interrupting it for every completion, which costs
        // much where requests complete on io-wq workers (buffered reads of tmpfs).
        // Created disabled so the worker thread that first submits becomes the issuer;
        // kernels without these flags get a plain ring.
        let (ring, disabled) = match IoUring::builder()
            .setup_coop_taskrun()
            .setup_single_issuer()
            .setup_defer_taskrun()
            .setup_r_disabled()
            .build(entries)
        {
            Ok(r) => (r, true),
            Err(_) => (
                IoUring::new(entries).map_err(|e| Error::Sys {
                    op: "io_uring unavailable: io_uring_setup",
                    source: e,
                })?,
                false,
            ),
        };
        let len = frames.checked_mul(frame_len).ok_or_else(|| {
            Error::Invalid(format!("{frames} frames of {frame_len} bytes overflow"))
        })?;
        Ok(RingIo {
            ring,
            files,
            buf: AlignedBuf::new(len, align.max(4096))?,
            frame_len,
            pending: vec![0; frames],
            first: (0..frames).map(|_| None).collect(),
            busy_frames: 0,
            queued: 0,
            disabled,
        })
    }

    pub fn frames(&self) -> usize {
        self.pending.len()
    }

    pub fn files(&self) -> &[File] {
        &self.files
    }

    /// Frames with a request in flight.
    pub fn busy(&self) -> usize {
        self.busy_frames
    }

    pub fn is_busy(&self, frame: usize) -> bool {
        self.pending.get(frame).is_some_and(|p| *p > 0)
    }

    /// The bytes of an idle frame.
    pub fn frame_mut(&mut self, frame: usize) -> Result<&mut [u8]> {
        self.check_idle(frame)?;
        let l = self.frame_len;
        Ok(&mut self.buf[frame * l..(frame + 1) * l])
    }

    fn check_idle(&self, frame: usize) -> Result<()> {
        match self.pending.get(frame) {
            None => Err(Error::Invalid(format!(
                "frame {frame} out of range ({} frames)",
                self.pending.len()
            ))),
            Some(0) => Ok(()),
            Some(_) => Err(Error::Invalid(format!("frame {frame} is in flight"))),
        }
    }

    fn check_file(&self, file: usize) -> Result<types::Fd> {
        self.files
            .get(file)
            .map(|f| types::Fd(f.as_raw_fd()))
            .ok_or_else(|| Error::Invalid(format!("file {file} out of range")))
    }

    /// Enables a ring created disabled, making the calling thread its issuer.
    fn enable(&mut self) -> Result<()> {
        if self.disabled {
            self.ring
                .submitter()
                .register_enable_rings()
                .map_err(|e| Error::Sys {
                    op: "io_uring_register(ENABLE_RINGS)",
                    source: e,
                })?;
            self.disabled = false;
        }
        Ok(())
    }

    fn push(&mut self, entries: &[squeue::Entry]) -> Result<()> {
        self.enable()?;
        let free = {
            let sq = self.ring.submission();
            sq.capacity() - sq.len()
        };
        if free < entries.len() {
            self.ring.submit().map_err(|e| Error::Sys {
                op: "io_uring_enter",
                source: e,
            })?;
            self.queued = 0;
        }
        // SAFETY: every entry points into `self.buf` (a frame marked busy below, not
        // touched again until its completion is reaped) and at a file owned by `self`;
        // `Drop` waits for all requests before either is freed.
        unsafe { self.ring.submission().push_multiple(entries) }
            .map_err(|_| Error::Invalid("io_uring submission queue full".into()))?;
        self.queued += entries.len();
        Ok(())
    }

    /// Queues a read of a frame's worth of bytes at `offset` of file `file` into `frame`.
    pub fn read(&mut self, frame: usize, file: usize, offset: u64) -> Result<()> {
        self.check_idle(frame)?;
        let fd = self.check_file(file)?;
        // SAFETY: frame < frames (checked), so the range lies in `buf`.
        let ptr = unsafe { self.buf.as_ptr().add(frame * self.frame_len) };
        let e = opcode::Read::new(fd, ptr, self.frame_len as u32)
            .offset(offset)
            .build()
            .user_data(frame as u64);
        self.push(&[e])?;
        self.pending[frame] = 1;
        self.busy_frames += 1;
        Ok(())
    }

    /// Queues a write of `frame` (or its first `len` bytes) to `offset` of file `file`,
    /// followed (linked) by an `fdatasync` of the file when `datasync`.
    pub fn write(
        &mut self,
        frame: usize,
        len: usize,
        file: usize,
        offset: u64,
        datasync: bool,
    ) -> Result<()> {
        self.check_idle(frame)?;
        let fd = self.check_file(file)?;
        let len = len.min(self.frame_len);
        // SAFETY: frame < frames (checked), so the range lies in `buf`.
        let ptr = unsafe { self.buf.as_ptr().add(frame * self.frame_len) };
        let w = opcode::Write::new(fd, ptr, len as u32)
            .offset(offset)
            .build()
            .user_data(frame as u64);
        if datasync {
            let s = opcode::Fsync::new(fd)
                .flags(types::FsyncFlags::DATASYNC)
                .build()
                .user_data(frame as u64 | FSYNC_TAG);
            self.push(&[w.flags(squeue::Flags::IO_LINK), s])?;
            self.pending[frame] = 2;
        } else {
            self.push(&[w])?;
            self.pending[frame] = 1;
        }
        self.busy_frames += 1;
        Ok(())
    }

    /// Submits what is queued and waits until at least `min` requests finished (0: just
    /// submit and reap what is there); appends the finished ones to `out`.
    pub fn wait(&mut self, min: usize, out: &mut Vec<Done>) -> Result<()> {
        self.enable()?;
        let min = min.min(self.busy_frames);
        let before = out.len();
        loop {
            let want = if out.len() - before >= min { 0 } else { 1 };
            if self.queued > 0 || want > 0 {
                match self.ring.submit_and_wait(want) {
                    Ok(_) => self.queued = 0,
                    Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                    Err(e) => {
                        return Err(Error::Sys {
                            op: "io_uring_enter",
                            source: e,
                        })
                    }
                }
            }
            self.reap(out);
            if out.len() - before >= min {
                return Ok(());
            }
        }
    }

    fn reap(&mut self, out: &mut Vec<Done>) {
        let cqes: Vec<(u64, i32)> = self
            .ring
            .completion()
            .map(|c| (c.user_data(), c.result()))
            .collect();
        for (ud, res) in cqes {
            let frame = (ud & !FSYNC_TAG) as usize;
            let Some(p) = self.pending.get_mut(frame) else {
                continue;
            };
            let r = if res < 0 {
                Err(std::io::Error::from_raw_os_error(-res))
            } else {
                Ok(res as usize)
            };
            if ud & FSYNC_TAG == 0 {
                self.first[frame] = Some(r);
            } else if let Err(e) = r {
                // A failed fsync wins over a successful write; a cancelled fsync (the
                // write failed or was short) keeps the write's result.
                if e.raw_os_error() != Some(libc::ECANCELED) {
                    self.first[frame] = Some(Err(e));
                }
            }
            *p -= 1;
            if *p == 0 {
                self.busy_frames -= 1;
                let result = self.first[frame]
                    .take()
                    .unwrap_or_else(|| Err(std::io::Error::other("no completion")));
                out.push(Done { frame, result });
            }
        }
    }
}

impl Drop for RingIo {
    fn drop(&mut self) {
        let mut sink = Vec::new();
        while self.busy_frames > 0 {
            if self.wait(1, &mut sink).is_err() {
                // The kernel would not take the wait; leak the buffer rather than free
                // memory a request may still write to.
                let buf = std::mem::replace(
                    &mut self.buf,
                    AlignedBuf::new(1, 1).unwrap_or_else(|_| std::process::abort()),
                );
                std::mem::forget(buf);
                return;
            }
            sink.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileExt;

    #[test]
    fn aligned_buffers_are_aligned_and_zeroed() {
        for align in [512, 4096, 65536] {
            let b = AlignedBuf::new(10_000, align).unwrap();
            assert_eq!(b.as_ptr() as usize % align, 0);
            assert!(b.iter().all(|&x| x == 0));
        }
        assert!(AlignedBuf::new(10, 3).is_err());
    }

    #[test]
    fn ring_reads_and_writes_or_says_unavailable() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let f = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .unwrap();
        let data: Vec<u8> = (0..16384u32).map(|i| (i % 251) as u8).collect();
        f.write_all_at(&data, 0).unwrap();
        let mut ring = match RingIo::new(vec![f], 4, 4, 4096, 4096) {
            Ok(r) => r,
            Err(e) => {
                let msg = e.to_string();
                assert!(msg.starts_with("io_uring unavailable"), "{msg}");
                eprintln!("note: {msg}; io_uring test skipped");
                return;
            }
        };
        for k in 0..4 {
            ring.read(k, 0, (k * 4096) as u64).unwrap();
        }
        assert!(ring.read(0, 0, 0).is_err(), "busy frame must be refused");
        let mut done = Vec::new();
        ring.wait(4, &mut done).unwrap();
        assert_eq!(done.len(), 4);
        for d in &done {
            assert_eq!(*d.result.as_ref().unwrap(), 4096);
            let k = d.frame;
            assert_eq!(ring.frame_mut(k).unwrap(), &data[k * 4096..(k + 1) * 4096]);
        }
        ring.frame_mut(1).unwrap().fill(7);
        ring.write(1, 4096, 0, 0, true).unwrap();
        done.clear();
        ring.wait(1, &mut done).unwrap();
        assert_eq!(*done[0].result.as_ref().unwrap(), 4096);
        let mut back = vec![0u8; 4096];
        ring.files()[0].read_exact_at(&mut back, 0).unwrap();
        assert!(back.iter().all(|&b| b == 7));
    }
}
