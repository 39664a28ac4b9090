//! Process signals turned into ordinary control flow and one-line errors.
//!
//! [`install`] (called once by the `pmolap` binary) sets up:
//! - SIGINT / SIGTERM: the first one sets a flag that long runs poll at their safe points
//!   ([`interrupted`], [`check`]); they stop there, keep and write what finished (marked
//!   partial), remove their temporary files and exit 130. A second one exits at once.
//! - SIGXFSZ (`ulimit -f` exceeded): ignored, so the write that crossed the limit fails
//!   with `EFBIG` and becomes a normal "file too large" error instead of killing the
//!   process without a word.
//! - SIGBUS (a mapped file was truncated by someone else, or a sparse mapping hit a full
//!   filesystem): a one-line message and exit 1 instead of a core dump.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::{Error, Result};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// The exit status of a run stopped by SIGINT/SIGTERM (128 + SIGINT).
pub const EXIT_INTERRUPTED: i32 = 130;

const MSG_INT: &[u8] =
    b"\npmolap: interrupted; stopping at the next safe point and keeping what finished (again to abort at once)\n";
const MSG_BUS: &[u8] =
    b"pmolap: error: a memory-mapped file was truncated under this process, or its filesystem ran out of space (SIGBUS); the run was stopped\n";

extern "C" fn on_interrupt(_sig: libc::c_int) {
    if INTERRUPTED.swap(true, Ordering::SeqCst) {
        // SAFETY: _exit is async-signal-safe and takes only an integer.
        unsafe { libc::_exit(EXIT_INTERRUPTED) };
    }
    // SAFETY: write(2) is async-signal-safe; the buffer is a static byte string.
    unsafe { libc::write(2, MSG_INT.as_ptr().cast(), MSG_INT.len()) };
}

extern "C" fn on_bus(_sig: libc::c_int) {
    // SAFETY: write(2) and _exit(2) are async-signal-safe; the buffer is static.
    unsafe {
        libc::write(2, MSG_BUS.as_ptr().cast(), MSG_BUS.len());
        libc::_exit(1);
    }
}

fn set_handler(sig: libc::c_int, handler: libc::sighandler_t) -> Result<()> {
    // SAFETY: a zeroed sigaction is a valid "no flags, empty mask" value; we then set the
    // handler (a plain `extern "C" fn(c_int)` or SIG_IGN) and install it for `sig`.
    let rc = unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = handler;
        libc::sigemptyset(&mut sa.sa_mask);
        sa.sa_flags = libc::SA_RESTART;
        libc::sigaction(sig, &sa, std::ptr::null_mut())
    };
    if rc != 0 {
        return Err(Error::last_os("sigaction"));
    }
    Ok(())
}

/// Installs the handlers described in the module docs. Idempotent.
pub fn install() -> Result<()> {
    set_handler(
        libc::SIGINT,
        on_interrupt as extern "C" fn(libc::c_int) as usize,
    )?;
    set_handler(
        libc::SIGTERM,
        on_interrupt as extern "C" fn(libc::c_int) as usize,
    )?;
    set_handler(libc::SIGXFSZ, libc::SIG_IGN)?;
    set_handler(libc::SIGBUS, on_bus as extern "C" fn(libc::c_int) as usize)?;
    Ok(())
}

/// Whether SIGINT/SIGTERM arrived (or [`request_interrupt`] was called).
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// `Err(Error::Interrupted)` once an interrupt arrived: `?` it at safe points.
pub fn check() -> Result<()> {
    if interrupted() {
        Err(Error::Interrupted)
    } else {
        Ok(())
    }
}

/// Sets the interrupt flag as a signal would (tests, and callers that stop a run).
pub fn request_interrupt() {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Whether an I/O error is the file-size limit (`ulimit -f`, EFBIG) or a full device
/// (ENOSPC, EDQUOT): the cases a user fixes by making room.
pub fn is_out_of_room(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EFBIG) | Some(libc::ENOSPC) | Some(libc::EDQUOT)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_room_errors() {
        assert!(is_out_of_room(&std::io::Error::from_raw_os_error(
            libc::EFBIG
        )));
        assert!(is_out_of_room(&std::io::Error::from_raw_os_error(
            libc::ENOSPC
        )));
        assert!(!is_out_of_room(&std::io::Error::from_raw_os_error(
            libc::EIO
        )));
    }
}
