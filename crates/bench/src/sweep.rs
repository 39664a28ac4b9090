//! What membench and iobench sweep files share: a YAML mapping of benchmark names to
//! sections, kept in file order, parsed with errors that name the file and line; and the
//! cross product of a matrix's axes.
//!
//! Hostile input is refused before it costs anything: a file over [`MAX_CONFIG_BYTES`]
//! is not read past the limit (so `--config /dev/zero` fails at once), nesting deeper
//! than [`MAX_DEPTH`] is found by one linear scan before the YAML parser sees the text,
//! a sweep's combinations are counted before any is built ([`MAX_COMBINATIONS`]), and
//! error messages quote at most a short excerpt of the input.

use std::path::Path;

use serde::de::DeserializeOwned;
use serde::Deserialize;

use crate::error::{Error, Result};

/// Named sections in file order; a name given twice is an error.
#[derive(Debug, Clone)]
pub struct Named<S>(pub Vec<(String, S)>);

impl<'de, S: Deserialize<'de>> Deserialize<'de> for Named<S> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<S>(std::marker::PhantomData<S>);
        impl<'de, S: Deserialize<'de>> serde::de::Visitor<'de> for V<S> {
            type Value = Named<S>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a mapping of benchmark names to {args, matrix}")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> std::result::Result<Named<S>, A::Error> {
                let mut out: Vec<(String, S)> = Vec::new();
                while let Some(name) = m.next_key::<String>()? {
                    if out.iter().any(|(n, _)| *n == name) {
                        return Err(serde::de::Error::custom(format!(
                            "benchmark `{name}` is defined twice"
                        )));
                    }
                    out.push((name, m.next_value()?));
                }
                Ok(Named(out))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// Largest sweep file read: real ones are a few KiB.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;
/// Deepest nesting of mappings, sequences and flow collections accepted (real sweep
/// files nest about five deep).
pub const MAX_DEPTH: usize = 64;
/// Most parameter combinations one sweep (all its benchmarks together) may expand to.
pub const MAX_COMBINATIONS: u64 = 100_000;
/// Characters of input an error message quotes at most (per quoted value).
const EXCERPT_CHARS: usize = 40;

/// `s` itself if short, else its first [`EXCERPT_CHARS`] characters and the total length.
pub fn excerpt(s: &str) -> String {
    let n = s.chars().count();
    if n <= EXCERPT_CHARS {
        return s.to_string();
    }
    let head: String = s.chars().take(EXCERPT_CHARS).collect();
    format!("{head}… ({n} characters)")
}

/// A parser message with every back-quoted value (the parser quotes input it did not
/// understand) cut to an excerpt, and the whole on one line.
fn shorten_quoted(msg: &str) -> String {
    let mut out = String::new();
    let mut parts = msg.split('`');
    if let Some(first) = parts.next() {
        out.push_str(first);
    }
    for (i, part) in parts.enumerate() {
        out.push('`');
        // Odd pieces (1st, 3rd, … after the first) lie between a pair of back quotes.
        if i % 2 == 0 {
            out.push_str(&excerpt(part));
        } else {
            out.push_str(part);
        }
    }
    excerpt_line(&out.replace(['\n', '\r'], " "))
}

/// Cuts a whole message to a readable length.
fn excerpt_line(s: &str) -> String {
    const MAX: usize = 300;
    if s.chars().count() <= MAX {
        return s.to_string();
    }
    let head: String = s.chars().take(MAX).collect();
    format!("{head} …")
}

/// Refuses a sweep file nested deeper than [`MAX_DEPTH`] (the one linear scan of
/// `pmolap_os::input`), naming the line where it first is.
pub fn check_depth(text: &str, file: &Path) -> Result<()> {
    match pmolap_os::input::nesting_exceeds(text, MAX_DEPTH) {
        Some(line) => Err(Error::Config {
            file: file.to_path_buf(),
            line: Some(line),
            msg: format!(
                "nested more than {MAX_DEPTH} levels deep; a sweep file is a shallow mapping of benchmarks"
            ),
        }),
        None => Ok(()),
    }
}

/// Parses a sweep file's YAML text; errors name `file` and the line.
pub fn parse<S: DeserializeOwned>(text: &str, file: &Path) -> Result<Vec<(String, S)>> {
    check_depth(text, file)?;
    let named: Named<S> = serde_yaml_ng::from_str(text).map_err(|e| {
        let line = e.location().map(|l| l.line());
        let msg = e.to_string();
        let msg = msg.split(" at line ").next().unwrap_or(&msg);
        Error::Config {
            file: file.to_path_buf(),
            line,
            msg: shorten_quoted(msg),
        }
    })?;
    if named.0.is_empty() {
        return Err(Error::Config {
            file: file.to_path_buf(),
            line: None,
            msg: "no benchmarks defined".into(),
        });
    }
    Ok(named.0)
}

/// Reads a sweep file's text, at most [`MAX_CONFIG_BYTES`] of it (a device such as
/// `/dev/zero` or a huge file is refused after reading just past the limit).
pub fn read_text(path: &Path) -> Result<String> {
    Ok(pmolap_os::input::read_bounded(path, MAX_CONFIG_BYTES)?)
}

/// Reads and parses a sweep file.
pub fn load<S: DeserializeOwned>(path: &Path) -> Result<Vec<(String, S)>> {
    parse(&read_text(path)?, path)
}

/// The cross product of `axes` (each named after its config key), each combination
/// folded with `merged` from `A::default()`; the last axis varies fastest. The
/// combinations are counted first: more than `budget` left (of [`MAX_COMBINATIONS`] for
/// the whole sweep) is an error naming `bench` and the count, and nothing is built.
pub fn cross<A: Clone + Default>(
    bench: &str,
    axes: Vec<(&str, Vec<A>)>,
    merged: impl Fn(&A, &A) -> A,
    budget: &mut u64,
) -> Result<Vec<A>> {
    let count = axes
        .iter()
        .try_fold(1u64, |n, (_, vs)| n.checked_mul(vs.len() as u64));
    if count.is_none_or(|n| n > *budget) {
        let shape: Vec<String> = axes
            .iter()
            .map(|(name, vs)| format!("{name} {}", vs.len()))
            .collect();
        let count = count.map_or_else(|| "more than 2^64".to_string(), |n| n.to_string());
        let within = if *budget < MAX_COMBINATIONS {
            format!("; with the benchmarks before it the sweep would exceed {MAX_COMBINATIONS}")
        } else {
            String::new()
        };
        return Err(Error::Invalid {
            bench: bench.to_string(),
            msg: format!(
                "the matrix has {count} combinations ({}), more than the {MAX_COMBINATIONS} a sweep may run{within}; split it into smaller benchmarks",
                shape.join(" × ")
            ),
        });
    }
    let count = count.unwrap_or(0);
    *budget -= count;
    let mut combos = Vec::with_capacity(count as usize);
    combos.push(A::default());
    for (_, axis) in axes {
        combos = combos
            .iter()
            .flat_map(|c| axis.iter().map(|v| merged(c, v)))
            .collect();
    }
    Ok(combos)
}

/// Declares every configurable field of a sweep's parameters (`Params`) once, producing
/// `Args` (one value each, all optional: a benchmark's `args:` or the CLI flags) and
/// `Matrix` (a list each: the cross product of a benchmark's `matrix:`), with `apply`
/// (set fields into a `Params`), `merged` (fields of the other win) and the matrix axes
/// in declaration order, each named after its key. Used by membench and iobench configs.
macro_rules! fields {
    (for $params:ty; $($name:ident : $ty:ty => |$p:ident, $v:ident| $apply:expr;)*) => {
        /// One value per field; unset fields keep their defaults.
        #[derive(Debug, Clone, Default, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Args { $(#[serde(default)] pub $name: Option<$ty>,)* }

        /// A list of values per field; the sweep is their cross product.
        #[derive(Debug, Clone, Default, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Matrix { $(#[serde(default)] pub $name: Option<Vec<$ty>>,)* }

        impl Args {
            /// Writes every set field into `p`.
            pub fn apply(&self, p: &mut $params) {
                $(if let Some($v) = self.$name.clone() { let $p = &mut *p; $apply; })*
            }

            /// Fields set in `other` replace ours.
            pub fn merged(&self, other: &Args) -> Args {
                Args { $($name: other.$name.clone().or_else(|| self.$name.clone()),)* }
            }
        }

        impl Matrix {
            /// One axis per listed field, in declaration order, named after its key;
            /// each value as an `Args`.
            fn axes(&self) -> Vec<(&'static str, Vec<Args>)> {
                let mut axes = Vec::new();
                $(if let Some(vs) = &self.$name {
                    axes.push((stringify!($name), vs.iter().map(|v| Args { $name: Some(v.clone()), ..Args::default() }).collect()));
                })*
                axes
            }
        }
    };
}
pub(crate) use fields;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_counts_blocks_sequences_and_flow() {
        let f = Path::new("t.yaml");
        check_depth(
            "a:\n  args:\n    threads: 1\n  matrix:\n    x: [1, [2]]\n",
            f,
        )
        .unwrap();
        let deep_flow = "[".repeat(MAX_DEPTH + 1);
        assert!(check_depth(&deep_flow, f).is_err());
        let deep_seq = "- ".repeat(MAX_DEPTH + 1) + "x";
        assert!(check_depth(&deep_seq, f).is_err());
        let mut deep_block = String::new();
        for i in 0..=MAX_DEPTH {
            deep_block.push_str(&format!("{}k{i}:\n", " ".repeat(i)));
        }
        let e = check_depth(&deep_block, f).unwrap_err().to_string();
        assert!(e.contains("nested more than"), "{e}");
        // Brackets inside quotes and comments do not count; a quote inside a plain
        // scalar opens nothing.
        let quoted = format!("a: '{}' # {}\n", "[".repeat(500), "{".repeat(500));
        check_depth(&quoted, f).unwrap();
        let sneaky = format!("a: [it's, {}]\n", "[".repeat(500));
        assert!(check_depth(&sneaky, f).is_err());
    }

    #[test]
    fn quoted_input_is_cut_to_an_excerpt() {
        let long = "x".repeat(10_000);
        let m = shorten_quoted(&format!(
            "unknown variant `{long}`, expected one of `a`, `b`"
        ));
        assert!(m.len() < 200, "{m}");
        assert!(m.contains("expected one of `a`, `b`"), "{m}");
        assert!(m.contains("10000 characters"), "{m}");
    }

    #[test]
    fn combinations_are_counted_before_they_are_built() {
        let axis = |n: usize| (0..n).collect::<Vec<usize>>();
        let mut budget = MAX_COMBINATIONS;
        let axes: Vec<(&str, Vec<usize>)> = (0..9).map(|_| ("threads", axis(10))).collect();
        let e = cross("big", axes, |a, b| a + b, &mut budget)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("big: the matrix has 1000000000 combinations"),
            "{e}"
        );
        let ok = cross(
            "small",
            vec![("a", axis(3)), ("b", axis(2))],
            |a, b| a * 10 + b,
            &mut budget,
        )
        .unwrap();
        assert_eq!(ok, vec![0, 1, 10, 11, 20, 21]);
        assert_eq!(budget, MAX_COMBINATIONS - 6);
    }
}
