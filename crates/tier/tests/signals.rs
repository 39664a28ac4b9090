//! Guards the signal handlers of `pmolap_os::signal`: a mapped file truncated under a
//! reader (SIGBUS) ends the process with one line and exit code 1 instead of a crash, and
//! the interrupt flag turns into `Error::Interrupted` at safe points.

use std::process::Command;

use pmolap_tier::{ExistingFile, Region, RegionOptions, TierSpec};

const ENV_FILE: &str = "PMOLAP_SIGBUS_FILE";

/// The child side: maps a file, has it truncated underneath, and reads past the end.
#[test]
fn sigbus_child() {
    let Ok(path) = std::env::var(ENV_FILE) else {
        return;
    };
    pmolap_os::signal::install().unwrap();
    std::fs::write(&path, vec![7u8; 1 << 20]).unwrap();
    let r = Region::new(
        &TierSpec::File {
            path: path.clone().into(),
        },
        1 << 20,
        &RegionOptions {
            existing: ExistingFile::Use,
            ..RegionOptions::default()
        },
    )
    .unwrap();
    assert_eq!(r.as_slice()[0], 7);
    // Someone else truncates the file (here: this process, through another handle).
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(0)
        .unwrap();
    let v = std::hint::black_box(r.as_slice())[1 << 19];
    println!("read {v} after truncation: no SIGBUS?");
}

#[test]
fn a_truncated_mapping_ends_with_one_line_not_a_crash() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("mapped");
    let o = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "sigbus_child", "--nocapture", "--test-threads=1"])
        .env(ENV_FILE, &f)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "stderr: {err}");
    let line = err
        .lines()
        .find(|l| l.contains("SIGBUS"))
        .unwrap_or_else(|| panic!("no SIGBUS line in: {err}"));
    assert!(line.starts_with("pmolap: error: a memory-mapped file was truncated"));
}

#[test]
fn interrupts_become_errors_at_safe_points() {
    assert!(pmolap_os::signal::check().is_ok());
    pmolap_os::signal::request_interrupt();
    assert!(matches!(
        pmolap_os::signal::check(),
        Err(pmolap_os::Error::Interrupted)
    ));
}
