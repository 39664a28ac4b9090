//! Process utilities every pmolap crate leans on, below the memory tiers: the platform
//! [`Error`] (one line naming what was wrong; `pmolap-tier` fails with it too),
//! [`signal`] (SIGINT/SIGTERM as a flag polled at safe points, SIGXFSZ and SIGBUS as
//! one-line errors), [`lock`] (advisory one-writer-or-readers locks of persistent
//! structures), [`durable`] (the one durable-publish protocol and its crash-step hook),
//! [`input`] (bounded reading of user input files) and [`cgroup`] (a memory cgroup
//! around the process). Only [`signal`] (the libc calls that install handlers) and
//! [`input`] (`fcntl` to make a FIFO's descriptor blocking again) have `unsafe` code,
//! each block with a `// SAFETY:` line.

#![deny(unsafe_code)]

pub mod cgroup;
pub mod durable;
pub mod error;
#[allow(unsafe_code)]
pub mod input;
pub mod lock;
#[allow(unsafe_code)]
pub mod signal;

pub use error::{Error, Result};
pub use lock::{FileLock, LockMode};
