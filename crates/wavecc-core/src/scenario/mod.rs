//! Scenario configs: the schema (serde, unknown keys rejected), validation of
//! values, and the built-in scenarios. The schema lives here once; Python hands
//! configs over as JSON and never re-implements it.

pub mod builtin;
mod estimate;
mod radio;
pub mod reference;
mod schema;
pub mod stack;
mod validate;

/// A flow's application kinds belong to the traffic sources; the schema uses them.
pub use crate::app::{AppKind, PeriodDistribution};
pub use estimate::{TraceRows, estimate_memory};
pub use radio::*;
pub use schema::*;

use thiserror::Error;

/// Why a config cannot run. The message names the key path (e.g.
/// `flows[0].cca`) and what would be valid.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ConfigError {
    #[error("{0}")]
    Syntax(String),
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
}

impl ConfigError {
    pub fn invalid(path: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError::Invalid {
            path: one_line(path.into()),
            message: one_line(message.into()),
        }
    }

    fn syntax(message: String) -> Self {
        ConfigError::Syntax(one_line(message))
    }
}

/// Text with its control characters escaped (`\n` for a newline), so that a key
/// or value quoted in a message keeps it on one line.
fn one_line(text: String) -> String {
    if !text.contains(char::is_control) {
        return text;
    }
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Turns a serde error with its key path into a one-line message.
fn from_serde<E>(e: serde_path_to_error::Error<E>, message: impl Fn(&E) -> String) -> ConfigError {
    let path = key_path(e.path());
    let inner = plain_words(&message(e.inner()));
    if path.is_empty() {
        ConfigError::syntax(inner)
    } else {
        ConfigError::invalid(path, inner)
    }
}

/// A key path as the messages write it everywhere: `radio.ues[0].legs[1]`
/// (serde_path_to_error writes `radio.ues.0.legs.1`).
fn key_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path {
        match segment {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } | Segment::Enum { variant: key } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Segment::Unknown => out.push_str(if out.is_empty() { "?" } else { ".?" }),
        }
    }
    out
}

/// serde's names of Rust types, in the words of a config.
const PLAIN_WORDS: &[(&str, &str)] = &[
    ("expected u8", "expected a whole number from 0 to 255"),
    ("expected u16", "expected a whole number from 0 to 65535"),
    (
        "expected u32",
        "expected a whole number from 0 to 4294967295",
    ),
    (
        "expected u64",
        "expected a whole number from 0 to 18446744073709551615",
    ),
    (
        "expected usize",
        "expected a whole number from 0 to 18446744073709551615",
    ),
    ("expected i64", "expected a whole number"),
    ("expected f64", "expected a number"),
    ("expected a sequence", "expected a list"),
    ("expected a map", "expected a table"),
    ("invalid type: map", "invalid type: table"),
    ("invalid type: sequence", "invalid type: list"),
    ("invalid type: unit value", "invalid type: null"),
    (
        "expected variant identifier",
        "expected one of the names the docs list",
    ),
];

/// A serde message without Rust type names: `expected struct Params` reads
/// `expected a table`, `expected u32` a whole number and its range.
pub(crate) fn plain_words(message: &str) -> String {
    let mut text = message.to_string();
    for (rust, plain) in PLAIN_WORDS {
        text = text.replace(rust, plain);
    }
    while let Some(at) = text.find("expected struct ") {
        let name = &text[at + "expected struct ".len()..];
        let end = name
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(name.len());
        text.replace_range(at..at + "expected struct ".len() + end, "expected a table");
    }
    text
}

/// serde_json's message without its " at line L column C": positions in JSON that
/// Python generated mean nothing to the user, who wrote TOML or a dict.
fn json_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// A TOML error on one line: "line L: message" (toml's own rendering spans
/// several lines with a source excerpt).
fn toml_message(e: &toml::de::Error, text: &str) -> String {
    match e.span() {
        Some(span) => format!(
            "line {}: {}",
            text[..span.start].matches('\n').count() + 1,
            e.message()
        ),
        None => e.message().to_string(),
    }
}

impl Config {
    pub fn from_json(text: &str) -> Result<Config, ConfigError> {
        let mut raw: serde_json::Value =
            serde_json::from_str(text).map_err(|e| ConfigError::syntax(json_message(&e)))?;
        stack::apply(&mut raw)?;
        let mut config: Config =
            serde_path_to_error::deserialize(raw).map_err(|e| from_serde(e, json_message))?;
        config.validate()?;
        config.load_trace()?;
        Ok(config)
    }

    /// The stack's keys are filled in first (`stack::apply`), so that serde's
    /// defaults fill only what neither the user nor the stack set.
    pub fn from_toml(text: &str) -> Result<Config, ConfigError> {
        let de = toml::Deserializer::parse(text)
            .map_err(|e| ConfigError::syntax(toml_message(&e, text)))?;
        let mut raw: toml::Value = serde::Deserialize::deserialize(de)
            .map_err(|e: toml::de::Error| ConfigError::syntax(toml_message(&e, text)))?;
        stack::apply(&mut raw)?;
        let mut config: Config = serde_path_to_error::deserialize(raw)
            .map_err(|e| from_serde(e, |e| e.message().to_string()))?;
        config.validate()?;
        config.load_trace()?;
        Ok(config)
    }

    /// Reads `path.trace`, if set, into `path.trace_link`: a file that is missing or
    /// malformed is a config error naming `path.trace`, the file and the line.
    fn load_trace(&mut self) -> Result<(), ConfigError> {
        let Some(file) = &self.path.trace else {
            return Ok(());
        };
        if file.is_empty() {
            return Err(ConfigError::invalid(
                "path.trace",
                "must name a link trace file (docs/traces.md), got an empty string",
            ));
        }
        let trace = crate::net::LinkTrace::load(std::path::Path::new(file))
            .map_err(|e| ConfigError::invalid("path.trace", e))?;
        validate::check_link_trace(file, &trace)?;
        self.path.trace_link = Some(std::sync::Arc::new(trace));
        Ok(())
    }

    /// The effective config, every default filled in, as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("configs always serialise")
    }
}
