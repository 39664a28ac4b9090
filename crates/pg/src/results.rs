//! The `pg-tpch` result document (docs/pg.md describes every field) and the summary
//! computed from it, defined in `pmolap_results::pg` (the report reads it from there).

pub use pmolap_results::pg::*;
