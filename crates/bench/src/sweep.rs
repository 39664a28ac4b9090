//! What membench and iobench sweep files share: a YAML mapping of benchmark names to
//! sections, kept in file order, parsed with errors that name the file and line; and the
//! cross product of a matrix's axes.

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

/// Parses a sweep file's YAML text; errors name `file` and the line.
pub fn parse<S: DeserializeOwned>(text: &str, file: &Path) -> Result<Vec<(String, S)>> {
    let named: Named<S> = serde_yaml_ng::from_str(text).map_err(|e| {
        let line = e.location().map(|l| l.line());
        let msg = e.to_string();
        let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
        Error::Config {
            file: file.to_path_buf(),
            line,
            msg,
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

/// Reads and parses a sweep file.
pub fn load<S: DeserializeOwned>(path: &Path) -> Result<Vec<(String, S)>> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse(&text, path)
}

/// The cross product of `axes`, each combination folded with `merged` from `A::default()`;
/// the last axis varies fastest.
pub fn cross<A: Clone + Default>(axes: Vec<Vec<A>>, merged: impl Fn(&A, &A) -> A) -> Vec<A> {
    let mut combos = vec![A::default()];
    for axis in axes {
        combos = combos
            .iter()
            .flat_map(|c| axis.iter().map(|v| merged(c, v)))
            .collect();
    }
    combos
}
