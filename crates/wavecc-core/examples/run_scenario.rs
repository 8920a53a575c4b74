//! Runs a scenario (built-in id or TOML path) with optional `key=value` overrides of
//! top-level TOML and prints its summary as JSON: a Python-free driver for profiling
//! (`perf record`, `valgrind --tool=callgrind`).
//!
//!     cargo run --release --example run_scenario -- dumbbell-1g 'duration_s = 10'
//!
//! With `WAVECC_OUT=FILE` it also writes the whole output (summary and traces) as JSON,
//! to check that a change leaves results bit-identical.

use wavecc_core::{Config, scenario::builtin};

fn main() {
    let mut args = std::env::args().skip(1);
    let id = args
        .next()
        .expect("usage: run_scenario SCENARIO [TOML-LINE]...");
    let mut text = match builtin::get(&id) {
        Ok(t) => t.to_string(),
        Err(_) => std::fs::read_to_string(&id).expect("a built-in id or a readable TOML file"),
    };
    // Overrides are TOML lines placed before the first table, so they set top-level
    // keys or, written as `path.loss.per_byte = 1e-7`, dotted keys.
    let extra: Vec<String> = args.collect();
    if !extra.is_empty() {
        let mut merged: toml::Table = text.parse().expect("valid TOML");
        for line in extra {
            let t: toml::Table = line.parse().expect("override is a TOML line");
            merge(&mut merged, t);
        }
        text = toml::to_string(&merged).expect("serialisable");
    }
    let config = Config::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
    let out = wavecc_core::run(&config);
    println!(
        "{}",
        serde_json::to_string_pretty(&out.summary).expect("serialisable")
    );
    if let Some(path) = std::env::var_os("WAVECC_OUT") {
        let json = serde_json::to_string(&out).expect("serialisable");
        std::fs::write(path, json).expect("WAVECC_OUT is writable");
    }
}

fn merge(into: &mut toml::Table, from: toml::Table) {
    for (k, v) in from {
        match (into.get_mut(&k), v) {
            (Some(toml::Value::Table(a)), toml::Value::Table(b)) => merge(a, b),
            (_, v) => {
                into.insert(k, v);
            }
        }
    }
}
