//! Built-in scenarios, shipped as TOML files inside the library so that Rust tests,
//! benchmarks and the Python package all read the same text.

use super::ConfigError;

const BUILTINS: &[(&str, &str)] = &[
    (
        "dumbbell-1g",
        include_str!("../../scenarios/dumbbell-1g.toml"),
    ),
    (
        "dumbbell-4flows",
        include_str!("../../scenarios/dumbbell-4flows.toml"),
    ),
    (
        "lossy-100m",
        include_str!("../../scenarios/lossy-100m.toml"),
    ),
    ("fbtcp-1", include_str!("../../scenarios/fbtcp-1.toml")),
    ("fbtcp-2", include_str!("../../scenarios/fbtcp-2.toml")),
    ("fbtcp-3", include_str!("../../scenarios/fbtcp-3.toml")),
    ("fbtcp-4", include_str!("../../scenarios/fbtcp-4.toml")),
    ("urban", include_str!("../../scenarios/urban.toml")),
    // `python/wavecc/city.py`'s output for 100 UEs (a Python test checks they agree).
    (
        "city-100ue",
        include_str!("../../scenarios/city-100ue.toml"),
    ),
    (
        "mateo-building13",
        include_str!("../../scenarios/mateo-building13.toml"),
    ),
    (
        "mateo-buildings4",
        include_str!("../../scenarios/mateo-buildings4.toml"),
    ),
    (
        "mateo-obstacles",
        include_str!("../../scenarios/mateo-obstacles.toml"),
    ),
    (
        "mateo-handover",
        include_str!("../../scenarios/mateo-handover.toml"),
    ),
    (
        "mateo-multiuser",
        include_str!("../../scenarios/mateo-multiuser.toml"),
    ),
    (
        "dtcp-small-building",
        include_str!("../../scenarios/dtcp-small-building.toml"),
    ),
    (
        "dtcp-large-building",
        include_str!("../../scenarios/dtcp-large-building.toml"),
    ),
    (
        "dtcp-highspeed",
        include_str!("../../scenarios/dtcp-highspeed.toml"),
    ),
    (
        "dtcp-bottleneck",
        include_str!("../../scenarios/dtcp-bottleneck.toml"),
    ),
    (
        "dtcp-fairness",
        include_str!("../../scenarios/dtcp-fairness.toml"),
    ),
    (
        "trace-bottleneck",
        include_str!("../../scenarios/trace-bottleneck.toml"),
    ),
];

/// (id, description) of every built-in scenario; the description is the first
/// comment line of its file.
pub fn list() -> Vec<(&'static str, &'static str)> {
    BUILTINS
        .iter()
        .map(|(id, text)| {
            let desc = text
                .lines()
                .next()
                .and_then(|l| l.strip_prefix("# "))
                .unwrap_or("");
            (*id, desc)
        })
        .collect()
}

pub fn get(id: &str) -> Result<&'static str, ConfigError> {
    BUILTINS
        .iter()
        .find(|(i, _)| *i == id)
        .map(|(_, t)| *t)
        .ok_or_else(|| {
            let ids: Vec<&str> = BUILTINS.iter().map(|(i, _)| *i).collect();
            ConfigError::invalid(
                "scenario",
                format!("no built-in scenario '{id}'; built-ins: {}", ids.join(", ")),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Config;

    #[test]
    fn every_builtin_is_valid_and_described() {
        for (id, desc) in list() {
            assert!(!desc.is_empty(), "{id} has no description line");
            let c = Config::from_toml(get(id).unwrap()).unwrap_or_else(|e| panic!("{id}: {e}"));
            assert_eq!(c.name, id);
        }
    }

    #[test]
    fn unknown_id_lists_the_builtins() {
        let e = get("nope").unwrap_err().to_string();
        assert!(e.contains("dumbbell-1g"), "{e}");
    }
}
