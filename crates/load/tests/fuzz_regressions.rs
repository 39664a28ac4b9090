//! Guards `pmolap load`'s parsers against the inputs cargo-fuzz found crashing them
//! (fuzz/fuzz_targets/star_load.rs): each crasher, fed as the target fed it, now gives a
//! value or a one-line error.

use std::path::Path;

use pmolap_load::value::parse_int;
use pmolap_load::ColType;

fn crasher(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz_crashers")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// star_load, field mode: a field holding line breaks (and NULs) echoed raw in the
/// error made it several lines; control characters are now escaped in messages.
#[test]
fn a_field_with_a_line_break_is_a_one_line_error() {
    let b = crasher("star_load-field-with-line-break");
    let text = std::str::from_utf8(&b[1..]).unwrap();
    assert!(text.contains('\n'));
    for ty in [
        ColType::SmallInt,
        ColType::Integer,
        ColType::BigInt,
        ColType::Decimal {
            precision: 18,
            scale: 4,
        },
        ColType::Date,
    ] {
        let e = parse_int(text, ty).unwrap_err();
        assert!(!e.contains('\n') && !e.contains('\0'), "{ty}: {e:?}");
        assert!(e.contains("\\n"), "{ty}: the break shown escaped: {e}");
    }
}
