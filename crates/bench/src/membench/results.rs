//! The membench result document: config, machine metadata and per-repetition figures,
//! defined in `pmolap_results::membench` (the report reads it from there). Plots and CSV
//! are made from this alone.

pub use pmolap_results::membench::{
    GroupResult, Latency, Rep, Results, Run, Summary, ThreadResult, FORMAT_VERSION,
};
