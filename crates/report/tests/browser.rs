//! The report in a real browser: rendered from the checked-in result files of
//! `tests/fixtures/` (real short runs of membench, iobench, ssb tiers/breakdown, elf
//! bench, PostgreSQL TPC-H, hash bench and the placement documents), loaded by headless
//! Chromium: no figure empty or with text cut off at its edge, no table wider than the
//! page outside a scrolling container, every finding linking to its section.
//!
//! How errors are found (the simplest robust method: two plain Chromium runs, no
//! driver protocol):
//!
//! 1. **Figures and load errors**: a copy of the page gets a small script at the top of
//!    `<head>` that records every resource load error (an `error` listener in the
//!    capture phase), and on `load` checks every `<figure class="plot">`: it must hold an
//!    `<svg>` with a bounding box of at least 100 × 100 px and at least 20 drawn elements
//!    (paths, lines, rects, text). It also counts resources the page fetched (a
//!    self-contained page fetches none) and elements that could fetch (`img`, `link`,
//!    `script[src]`, `iframe`). The verdict goes into the DOM as
//!    `<div id="pmolap-check" data-result="ok …">`; `--dump-dom` prints the DOM after
//!    load, and the test reads the verdict. A page that fails to load has no verdict.
//! 2. **Console errors**: the same run has `--enable-logging=stderr --v=0`, which makes
//!    Chromium print every console message of the page as `INFO:CONSOLE…] "message",
//!    source: file:///…`. The report has no script of its own and the check script
//!    logs nothing, so any console line from the page (an uncaught exception, a
//!    `console.error`) fails the test.
//! 3. **Screenshot**: the unmodified page is rendered with `--screenshot` at
//!    1280 × 4000; the PNG is decoded (zlib + PNG row filters) and must have enough
//!    non-white pixels and distinct colours to be a drawn page, not a blank one.
//!
//! A second test feeds the same checker a page with an empty figure, a console error and
//! a missing image, and asserts that all three are reported (the checker can fail).
//!
//! Chromium is `/usr/bin/chromium`, or `chromium` / `chromium-browser` on `PATH`
//! (`.ci/run` installs the Debian package when missing). Without it the tests fail,
//! unless `PMOLAP_SKIP_BROWSER=1` is set.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Injected at the top of `<head>` of a copy of the page (see the module docs).
const CHECK_SCRIPT: &str = r#"<script>
(function () {
  var loadErrors = [];
  window.addEventListener('error', function (e) {
    var t = e.target;
    if (t && t !== window && (t.src || t.href)) loadErrors.push('cannot load ' + (t.src || t.href));
  }, true);
  window.addEventListener('load', function () {
    var bad = loadErrors.slice();
    var figs = document.querySelectorAll('figure.plot');
    figs.forEach(function (f, i) {
      var svg = f.querySelector('svg');
      if (!svg) { bad.push('figure ' + (i + 1) + ' has no svg'); return; }
      var r = svg.getBoundingClientRect();
      var drawn = svg.querySelectorAll('path, polyline, line, rect, circle, text').length;
      if (r.width < 100 || r.height < 100 || drawn < 20) {
        bad.push('figure ' + (i + 1) + ' is empty: ' + Math.round(r.width) + 'x' +
                 Math.round(r.height) + ' px, ' + drawn + ' elements');
      }
    });
    // Text drawn outside its figure (a legend cut off at the edge).
    figs.forEach(function (f, i) {
      var svg = f.querySelector('svg');
      if (!svg) return;
      var r = svg.getBoundingClientRect();
      svg.querySelectorAll('text').forEach(function (t) {
        var b = t.getBoundingClientRect();
        if (b.width > 0 && (b.right > r.right + 2 || b.left < r.left - 2)) {
          bad.push('figure ' + (i + 1) + ' text cut off: ' + t.textContent.trim().slice(0, 40));
        }
      });
    });
    // Tables wider than the page outside a sideways-scrolling container.
    var page = document.body.getBoundingClientRect();
    document.querySelectorAll('table').forEach(function (t, i) {
      var box = t.parentElement;
      var scrolls = box && getComputedStyle(box).overflowX === 'auto';
      var outer = scrolls ? box.getBoundingClientRect() : t.getBoundingClientRect();
      if (outer.right > page.right + 2) bad.push('table ' + (i + 1) + ' wider than the page');
    });
    // The findings: items, each linking to a section that exists.
    var findings = document.querySelectorAll('#findings li');
    findings.forEach(function (li) {
      var a = li.querySelector('a');
      if (!a || !document.getElementById(a.getAttribute('href').slice(1))) {
        bad.push('finding without its section: ' + li.textContent.slice(0, 60));
      }
    });
    var fetched = performance.getEntriesByType('resource').length;
    if (fetched > 0) bad.push(fetched + ' resources fetched');
    var external = document.querySelectorAll('img, link, iframe, script[src]').length;
    if (external > 0) bad.push(external + ' elements that load resources');
    var d = document.createElement('div');
    d.id = 'pmolap-check';
    d.setAttribute('data-result', (bad.length ? 'FAIL ' + bad.join('; ') : 'ok') +
                   ' figures=' + figs.length + ' findings=' + findings.length);
    document.body.appendChild(d);
  });
})();
</script>"#;

fn chromium() -> Option<PathBuf> {
    let fixed = Path::new("/usr/bin/chromium");
    if fixed.is_file() {
        return Some(fixed.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser"] {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// Chromium, or `None` when the test may be skipped; panics when it is missing and no
/// skip was asked for.
fn browser_or_skip() -> Option<PathBuf> {
    if let Some(b) = chromium() {
        return Some(b);
    }
    if std::env::var("PMOLAP_SKIP_BROWSER").as_deref() == Ok("1") {
        eprintln!("note: no Chromium; browser test skipped (PMOLAP_SKIP_BROWSER=1)");
        return None;
    }
    panic!(
        "headless Chromium is needed for the report's browser test: install it \
         (`apt-get install chromium`; .ci/run does) or set PMOLAP_SKIP_BROWSER=1 to skip"
    );
}

/// Runs Chromium headless on `page` with `extra` arguments and a fresh profile; returns
/// (stdout, stderr). Killed after two minutes.
fn run_chromium(browser: &Path, page: &Path, extra: &[String]) -> (String, String) {
    let profile = tempfile::tempdir().unwrap();
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", browser.display()));
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_t = std::thread::spawn(move || {
        let mut s = String::new();
        out.read_to_string(&mut s).map(|_| s)
    });
    let err_t = std::thread::spawn(move || {
        let mut s = String::new();
        err.read_to_string(&mut s).map(|_| s)
    });
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("Chromium did not finish on {} within 120 s", page.display());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    (
        out_t.join().unwrap().unwrap_or_default(),
        err_t.join().unwrap().unwrap_or_default(),
    )
}

/// What the checker found on a page: the verdict, and the page's console lines.
struct Verdict {
    result: Option<String>,
    console: Vec<String>,
}

fn check_page(browser: &Path, html: &str, dir: &Path) -> Verdict {
    let page = dir.join("check.html");
    let with_script = html.replacen("<head>", &format!("<head>\n{CHECK_SCRIPT}"), 1);
    assert_ne!(with_script, html, "the page has no <head>");
    std::fs::write(&page, with_script).unwrap();
    let (dom, log) = run_chromium(
        browser,
        &page,
        &[
            "--enable-logging=stderr".into(),
            "--v=0".into(),
            "--dump-dom".into(),
        ],
    );
    let marker = "id=\"pmolap-check\" data-result=\"";
    let result = dom.find(marker).map(|i| {
        let rest = &dom[i + marker.len()..];
        rest[..rest.find('"').unwrap_or(rest.len())].to_string()
    });
    let console = log
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect();
    Verdict { result, console }
}

/// Decodes an 8-bit RGB or RGBA PNG (as Chromium writes screenshots): (width, height,
/// pixels as RGB).
fn decode_png(png: &[u8]) -> (usize, usize, Vec<[u8; 3]>) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let (mut w, mut h, mut channels) = (0usize, 0usize, 0usize);
    let mut idat = Vec::new();
    let mut at = 8;
    while at + 8 <= png.len() {
        let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        let kind = &png[at + 4..at + 8];
        let data = &png[at + 8..at + 8 + len];
        match kind {
            b"IHDR" => {
                w = u32::from_be_bytes(data[0..4].try_into().unwrap()) as usize;
                h = u32::from_be_bytes(data[4..8].try_into().unwrap()) as usize;
                assert_eq!(data[8], 8, "bit depth");
                assert_eq!(data[12], 0, "interlaced PNG");
                channels = match data[9] {
                    2 => 3,
                    6 => 4,
                    c => panic!("PNG colour type {c}"),
                };
            }
            b"IDAT" => idat.extend_from_slice(data),
            _ => {}
        }
        at += 12 + len;
    }
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(&idat[..])
        .read_to_end(&mut raw)
        .unwrap();
    let stride = w * channels;
    assert_eq!(raw.len(), h * (stride + 1), "PNG data length");
    let mut prev = vec![0u8; stride];
    let mut pixels = Vec::with_capacity(w * h);
    for y in 0..h {
        let filter = raw[y * (stride + 1)];
        let mut line = raw[y * (stride + 1) + 1..(y + 1) * (stride + 1)].to_vec();
        for i in 0..stride {
            let a = if i >= channels { line[i - channels] } else { 0 };
            let b = prev[i];
            let c = if i >= channels { prev[i - channels] } else { 0 };
            let pred = match filter {
                0 => 0,
                1 => a,
                2 => b,
                3 => ((u16::from(a) + u16::from(b)) / 2) as u8,
                4 => {
                    let p = i16::from(a) + i16::from(b) - i16::from(c);
                    let (pa, pb, pc) = (
                        (p - i16::from(a)).abs(),
                        (p - i16::from(b)).abs(),
                        (p - i16::from(c)).abs(),
                    );
                    if pa <= pb && pa <= pc {
                        a
                    } else if pb <= pc {
                        b
                    } else {
                        c
                    }
                }
                f => panic!("PNG filter {f}"),
            };
            line[i] = line[i].wrapping_add(pred);
        }
        pixels.extend(line.chunks(channels).map(|p| [p[0], p[1], p[2]]));
        prev = line;
    }
    (w, h, pixels)
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

#[test]
fn the_report_renders_in_chromium_without_errors_or_empty_figures() {
    let Some(browser) = browser_or_skip() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (page, read) = pmolap_report::write_report(&[fixtures()], &dir.path().join("out")).unwrap();
    assert!(read.skipped.is_empty(), "{:?}", read.skipped);
    let html = std::fs::read_to_string(&page).unwrap();
    let figures = html.matches("<figure class=\"plot\"").count();
    assert!(figures >= 15, "only {figures} figures");

    let v = check_page(&browser, &html, dir.path());
    let result = v
        .result
        .unwrap_or_else(|| panic!("the page did not load (no verdict in the DOM)"));
    let findings = html.matches("<a href=\"#").count() - html.matches("<li><a href=\"#").count();
    assert!(findings >= 10, "only {findings} findings");
    assert_eq!(
        result,
        format!("ok figures={figures} findings={findings}"),
        "browser check"
    );
    assert!(v.console.is_empty(), "console messages: {:#?}", v.console);

    let shot = dir.path().join("report.png");
    run_chromium(
        &browser,
        &page,
        &[
            format!("--screenshot={}", shot.display()),
            "--window-size=1280,4000".into(),
        ],
    );
    let png = std::fs::read(&shot).expect("Chromium wrote no screenshot");
    let (w, h, pixels) = decode_png(&png);
    assert_eq!((w, h), (1280, 4000), "screenshot size");
    let ink = pixels.iter().filter(|p| p.iter().any(|&c| c < 235)).count();
    let colours: std::collections::HashSet<[u8; 3]> = pixels.iter().copied().collect();
    assert!(
        ink * 100 >= pixels.len() && colours.len() >= 32,
        "the screenshot looks blank: {ink} of {} pixels drawn, {} colours",
        pixels.len(),
        colours.len()
    );
    if let Some(keep) = std::env::var_os("PMOLAP_REPORT_TEST_OUT") {
        std::fs::create_dir_all(&keep).unwrap();
        std::fs::copy(&page, Path::new(&keep).join("report.html")).unwrap();
        std::fs::copy(&shot, Path::new(&keep).join("report.png")).unwrap();
    }
}

#[test]
fn the_checker_reports_empty_figures_console_errors_and_load_errors() {
    let Some(browser) = browser_or_skip() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let html = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head><body>\n\
                <figure class=\"plot\"><svg width=\"0\" height=\"0\"></svg></figure>\n\
                <figure class=\"plot\"><svg width=\"400\" height=\"300\"><rect width=\"10\" height=\"10\"/></svg></figure>\n\
                <img src=\"missing-figure.png\">\n\
                <script>console.error('boom from the page');</script>\n\
                </body></html>\n";
    let v = check_page(&browser, html, dir.path());
    let result = v.result.expect("the page loaded");
    assert!(result.starts_with("FAIL "), "{result}");
    assert!(result.contains("figure 1 is empty"), "{result}");
    assert!(result.contains("figure 2 is empty"), "{result}");
    assert!(
        result.contains("cannot load") && result.contains("missing-figure.png"),
        "{result}"
    );
    assert!(
        v.console.iter().any(|l| l.contains("boom from the page")),
        "{:#?}",
        v.console
    );
}
