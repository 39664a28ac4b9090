//! Guards `TierSpec` parsing: any text parses or gives a one-line error, and what parses
//! prints (`Display`, and the serde string form) as text that parses back to the same spec.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pmolap_tier::TierSpec;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match text.parse::<TierSpec>() {
        Ok(spec) => {
            let shown = spec.to_string();
            let again: TierSpec = shown.parse().unwrap_or_else(|e| {
                panic!("`{shown}` (printed from `{text}`) does not parse: {e}")
            });
            assert_eq!(again, spec, "`{text}` printed as `{shown}`");
            let json = serde_json::to_string(&spec).expect("a spec serialises");
            let back: TierSpec = serde_json::from_str(&json).expect("its serde form parses");
            assert_eq!(back, spec, "serde form {json}");
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(!msg.is_empty());
        }
    }
});
