//! The iobench result document: config, machine and device metadata, per-repetition
//! figures, defined in `pmolap_results::iobench` (the report reads it from there). Plots
//! are made from this alone.

pub use pmolap_results::iobench::{
    Device, Latency, Rep, Results, Run, Summary, ThreadResult, FORMAT_VERSION,
};
