//! The names of configuration values as documents and config files write them
//! (`read`, `nt-store`, `buffer-manager`: the serde names of the enums).

use serde::Serialize;

/// Parses one of the lowercase/kebab-case names of a config enum (`read`, `nt-store`, ...).
pub fn parse_name<T: serde::de::DeserializeOwned>(s: &str) -> Result<T, String> {
    serde_json::from_value(serde_json::Value::String(s.to_string())).map_err(|e| {
        let msg = e.to_string();
        // serde says "unknown variant `x`, expected one of `a`, `b`": keep that part.
        msg.split(" at line").next().unwrap_or(&msg).to_string()
    })
}

/// The config name of an enum value (`read`, `nt-store`, ...).
pub fn name<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}
