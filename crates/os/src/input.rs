//! Bounded reading of user input files (sweep configs, query files): a size cap read
//! through a bounded reader (so `/dev/zero` or a FIFO cannot make pmolap read forever),
//! a cheap nesting-depth check before any YAML/JSON parser sees the text (deep nesting
//! costs parsers quadratic time or stack), and short excerpts for error messages (an
//! error never echoes a big input back). A FIFO is opened without waiting for a writer:
//! with none, the read ends at once with an error instead of blocking for ever.

use std::io::Read;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

use crate::error::{Error, Result};

/// The default cap on a config or query file: far above any real one.
pub const MAX_INPUT_BYTES: u64 = 4 << 20;
/// The cap on a JSON document pmolap reads (workloads, profiles, placements, result
/// documents): far above the largest one it writes (a few MB).
pub const MAX_DOCUMENT_BYTES: u64 = 64 << 20;
/// The default cap on nesting (flow brackets, or indentation levels of block YAML).
pub const MAX_NESTING: usize = 64;

/// Reads `path` as UTF-8 text of at most `max` bytes; larger inputs (also endless ones)
/// fail after reading `max + 1` bytes.
pub fn read_bounded(path: &Path, max: u64) -> Result<String> {
    let f = open_input(path)?;
    let meta = f.metadata().map_err(|e| Error::io(path, e))?;
    if meta.is_dir() {
        return Err(Error::Invalid(format!(
            "{}: is a directory, expected a file",
            path.display()
        )));
    }
    let mut buf = Vec::new();
    f.take(max + 1)
        .read_to_end(&mut buf)
        .map_err(|e| Error::io(path, e))?;
    if buf.is_empty() && meta.file_type().is_fifo() {
        return Err(Error::Invalid(format!(
            "{}: a FIFO with no writer — nothing to read",
            path.display()
        )));
    }
    if buf.len() as u64 > max {
        return Err(Error::Invalid(format!(
            "{}: larger than {} — not a pmolap input file",
            path.display(),
            human(max)
        )));
    }
    String::from_utf8(buf).map_err(|e| {
        Error::Invalid(format!(
            "{}: not UTF-8 text (invalid byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Opens `path` for reading without blocking on a FIFO that has no writer (`O_NONBLOCK`
/// on open), then puts the descriptor back in blocking mode, so a writer that is there
/// is read to its end and a FIFO without one reads as empty at once.
fn open_input(path: &Path) -> Result<std::fs::File> {
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    // SAFETY: fcntl on a descriptor this function owns (kept open by `f`), with integer
    // arguments only; F_GETFL/F_SETFL change nothing but the descriptor's status flags.
    let rc = unsafe {
        let fd = f.as_raw_fd();
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 {
            flags
        } else {
            libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK)
        }
    };
    if rc < 0 {
        return Err(Error::io(path, std::io::Error::last_os_error()));
    }
    Ok(f)
}

/// [`read_bounded`] with the cap of [`MAX_DOCUMENT_BYTES`], parsed as JSON of type `T`.
/// A parse error names the file, line and column.
pub fn read_json<T: serde::de::DeserializeOwned>(path: &Path, max: u64) -> Result<T> {
    let text = read_bounded(path, max)?;
    serde_json::from_str(&text).map_err(|e| Error::Invalid(format!("{}: {e}", path.display())))
}

/// The first line (1-based) where `text` (YAML or JSON) nests deeper than `max` levels,
/// or `None`: block indentation levels, `- ` sequence entries (`- - x` counts twice) and
/// `[`/`{` flow collections outside quoted scalars and comments, found in one linear pass
/// (parsers take quadratic time or deep recursion on deep nesting; this runs first).
pub fn nesting_exceeds(text: &str, max: usize) -> Option<usize> {
    // Block levels: the columns of the enclosing indentation levels.
    let mut indents: Vec<usize> = Vec::new();
    let mut flow = 0usize;
    for (n, line) in text.lines().enumerate() {
        let lineno = n + 1;
        let trimmed = line.trim_start_matches(' ');
        if flow == 0 {
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let mut col = line.len() - trimmed.len();
            let mut rest = trimmed;
            loop {
                while indents.last().is_some_and(|&top| top > col) {
                    indents.pop();
                }
                if indents.last() != Some(&col) {
                    indents.push(col);
                }
                let Some(after) = rest.strip_prefix("- ").or_else(|| rest.strip_prefix("-\t"))
                else {
                    break;
                };
                let inner = after.trim_start_matches([' ', '\t']);
                col += rest.len() - inner.len();
                rest = inner;
                if indents.len() > max {
                    return Some(lineno);
                }
            }
            if indents.len() > max {
                return Some(lineno);
            }
        }
        let (mut single, mut double) = (false, false);
        let mut prev = ' ';
        for c in line.chars() {
            // A quote opens a scalar only where one can start (`it's` is plain text).
            let starts = matches!(prev, ' ' | '\t' | '[' | '{' | ',' | ':');
            match c {
                '\'' if single => single = false,
                '\'' if !double && starts => single = true,
                '"' if double && prev != '\\' => double = false,
                '"' if !single && starts => double = true,
                '#' if !single && !double && (prev == ' ' || prev == '\t') => break,
                '[' | '{' if !single && !double => {
                    flow += 1;
                    if flow + indents.len() > max {
                        return Some(lineno);
                    }
                }
                ']' | '}' if !single && !double => flow = flow.saturating_sub(1),
                _ => {}
            }
            prev = c;
        }
    }
    None
}

/// [`nesting_exceeds`] as an error naming `origin` and the line.
pub fn check_nesting(text: &str, max: usize, origin: &str) -> Result<()> {
    match nesting_exceeds(text, max) {
        Some(line) => Err(Error::Invalid(format!(
            "{origin}:{line}: nested more than {max} levels deep — not a pmolap input"
        ))),
        None => Ok(()),
    }
}

/// At most `max` characters of `s` on one line, with `…` where it was cut.
pub fn excerpt(s: &str, max: usize) -> String {
    let one: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(max + 1)
        .collect();
    if one.chars().count() > max {
        let cut: String = one.chars().take(max).collect();
        format!("{cut}…")
    } else {
        one
    }
}

fn human(b: u64) -> String {
    if b >= 1 << 20 && b.is_multiple_of(1 << 20) {
        format!("{} MiB", b >> 20)
    } else {
        format!("{b} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endless_and_big_inputs_stop_at_the_cap() {
        let e = read_bounded(Path::new("/dev/zero"), 1 << 20)
            .unwrap_err()
            .to_string();
        assert!(e.contains("larger than 1 MiB"), "{e}");
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("x.yaml");
        std::fs::write(&p, "a: 1\n").unwrap();
        assert_eq!(read_bounded(&p, 100).unwrap(), "a: 1\n");
        let e = read_bounded(d.path(), 100).unwrap_err().to_string();
        assert!(e.contains("is a directory"), "{e}");
    }

    #[test]
    fn a_fifo_without_a_writer_ends_at_once_and_one_with_a_writer_is_read() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("fifo");
        let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo with a NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let t = std::time::Instant::now();
        let e = read_bounded(&p, 100).unwrap_err().to_string();
        assert!(e.contains("FIFO with no writer"), "{e}");
        assert!(t.elapsed().as_secs() < 5);
        let p2 = p.clone();
        let w = std::thread::spawn(move || {
            // Opening for writing waits for a reader; a reader that already saw no
            // writer and left makes the write fail (EPIPE): try again.
            for _ in 0..200 {
                if std::fs::write(&p2, "x: 1\n").is_ok() {
                    return;
                }
            }
            panic!("never written");
        });
        // The writer may not have opened yet: retry until it has (bounded).
        let mut got = None;
        for _ in 0..200 {
            if let Ok(s) = read_bounded(&p, 100) {
                got = Some(s);
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        w.join().unwrap();
        assert_eq!(got.as_deref(), Some("x: 1\n"));
        let e = read_json::<serde_json::Value>(Path::new("/dev/zero"), 1000)
            .unwrap_err()
            .to_string();
        assert!(e.contains("larger than 1000 bytes"), "{e}");
    }

    #[test]
    fn nesting_is_counted_in_linear_time() {
        let deep = "[".repeat(100_000);
        let t = std::time::Instant::now();
        let e = check_nesting(&deep, 64, "q.yaml").unwrap_err().to_string();
        assert!(e.contains("q.yaml:1: nested more than 64"), "{e}");
        assert!(t.elapsed().as_secs() < 5);
        let mut block = String::new();
        for i in 0..100 {
            block.push_str(&" ".repeat(i));
            block.push_str("a:\n");
        }
        assert!(check_nesting(&block, 64, "b").is_err());
        let ok = "x:\n  - { a: [1, 2], b: \"[[[[\" }\n  - y: 2\n";
        check_nesting(ok, 5, "ok").unwrap();
        assert!(check_nesting(ok, 4, "ok").is_err());
    }

    #[test]
    fn excerpts_are_short_and_one_line() {
        assert_eq!(excerpt("abc", 5), "abc");
        assert_eq!(excerpt("a\nbcdef", 3), "a b…");
    }
}
