//! Scenario configs: the schema (serde, unknown keys rejected), validation of
//! values, and the built-in scenarios. The schema lives here once; Python hands
//! configs over as JSON and never re-implements it.

pub mod builtin;
mod radio;
mod schema;
pub mod stack;
mod validate;

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
        ConfigError::Invalid { path: path.into(), message: message.into() }
    }
}

/// Turns a serde error with its key path into a one-line message.
fn from_serde<E>(e: serde_path_to_error::Error<E>, message: impl Fn(&E) -> String) -> ConfigError {
    let path = e.path().to_string();
    let inner = message(e.inner());
    if path == "." { ConfigError::Syntax(inner) } else { ConfigError::invalid(path, inner) }
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
        Some(span) => format!("line {}: {}", text[..span.start].matches('\n').count() + 1, e.message()),
        None => e.message().to_string(),
    }
}

impl Config {
    pub fn from_json(text: &str) -> Result<Config, ConfigError> {
        let raw: serde_json::Value = serde_json::from_str(text).map_err(|e| ConfigError::Syntax(json_message(&e)))?;
        Config::from_raw(raw)
    }

    pub fn from_toml(text: &str) -> Result<Config, ConfigError> {
        let de = toml::Deserializer::parse(text).map_err(|e| ConfigError::Syntax(toml_message(&e, text)))?;
        let raw = serde::Deserialize::deserialize(de).map_err(|e: toml::de::Error| ConfigError::Syntax(toml_message(&e, text)))?;
        Config::from_raw(raw)
    }

    /// A config from its raw form: the stack's keys filled in first (`stack::apply`),
    /// so that serde's defaults fill only what neither the user nor the stack set.
    fn from_raw(mut raw: serde_json::Value) -> Result<Config, ConfigError> {
        stack::apply(&mut raw)?;
        let config: Config = serde_path_to_error::deserialize(raw).map_err(|e| from_serde(e, json_message))?;
        config.validate()?;
        Ok(config)
    }

    /// The effective config, every default filled in, as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("configs always serialise")
    }
}
