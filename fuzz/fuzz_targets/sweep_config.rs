//! Guards the membench and iobench sweep-config parsers: any bytes read as a sweep file
//! are parsed, expanded (matrix cross product, parallel groups) and validated, and give
//! parameter sets or a clean error, never a panic.
#![no_main]

use std::path::Path;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use pmolap_bench::{iobench, membench};
use pmolap_tier::Topology;

fn topology() -> &'static Topology {
    static TOPO: OnceLock<Topology> = OnceLock::new();
    TOPO.get_or_init(|| Topology::detect().expect("this machine's topology"))
}

fuzz_target!(|data: &[u8]| {
    // Sweep files are read with `read_to_string`: text that is not UTF-8 never gets here.
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let file = Path::new("fuzz.yaml");
    if let Ok(cfg) = membench::Config::parse(text, file) {
        // Expansion is itself bounded (combinations counted first): an error is fine.
        for (name, p) in cfg.expand(&membench::Args::default()).unwrap_or_default() {
            let _ = membench::config::validate(&p, &name, topology());
        }
    }
    if let Ok(cfg) = iobench::Config::parse(text, file) {
        for (name, p) in cfg.expand(&iobench::Args::default()).unwrap_or_default() {
            if iobench::config::validate_shape(&p, &name).is_ok() {
                let _ = (p.bytes_per_thread(), p.op_size());
            }
        }
    }
});
