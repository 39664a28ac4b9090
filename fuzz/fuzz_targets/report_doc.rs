//! Guards the report's reading of result documents: any text read as a result file is
//! a typed document or a clean "not a pmolap result" / "newer version" error, and a
//! small document that reads is rendered into the report page (every string field cut
//! where it is rendered) without panicking.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = pmolap_report::doc::parse(Path::new("fuzz.json"), text) {
        assert!(!e.to_string().contains('\n'), "a multi-line error: {e}");
        return;
    }
    // Rendering draws every figure: keep the documents it is tried on small.
    if text.len() > 1 << 16 {
        return;
    }
    let path = pmolap_fuzz::scratch().join("doc.json");
    std::fs::write(&path, text).expect("the document");
    let _ = pmolap_report::render_report(&[path]);
});
