//! The `pg-tpch` result document (docs/pg.md describes every field) and the summary
//! computed from it, defined in `pmolap_results::pg` (the report reads it from there).

pub use pmolap_results::pg::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(&[]), 0.0);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
