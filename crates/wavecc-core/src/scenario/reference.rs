//! The config's reference for people and editors: its JSON Schema, made by schemars
//! from the config types' serde attributes and doc comments, with the limits the
//! validator applies. docs/config.md is generated from it (`python -m wavecc.docs
//! config`). The limits come from running the validator itself over
//! [`EVERY_OPTION`], so the checks in `validate.rs` and `radio.rs` stay the only list
//! of ranges.

use super::{Config, validate};

/// Valid configs that together set every optional key the validator checks, so
/// that validating them reaches every range check: the defaults (a buffer in bytes)
/// and [`EVERY_OPTION`].
const EXEMPLARS: [&str; 2] = ["[[flows]]\n", EVERY_OPTION];

/// A valid config that sets the optional keys the defaults leave out (a buffer in
/// packets, bursty loss, an initial ssthresh, every kind of application with its
/// keys, a radio with a UE on legs, one on waypoints and an obstacle).
const EVERY_OPTION: &str = r#"
duration_s = 10
[path]
buffer_bytes = 0
buffer_packets = 100
[path.loss.gilbert_elliott]
p_good_to_bad = 0.01
p_bad_to_good = 0.5
[tcp]
initial_ssthresh_segments = 100
[[flows]]
stop_s = 5
access_rate_bps = 1e9
[[flows]]
app = "rate"
rate_bps = 1e8
write_bytes = 1400
[[flows]]
app = "onoff"
rate_bps = 1e8
on_s = 1
off_s = 1
ue = 1
[[flows]]
app = "udp"
rate_bps = 1e6
[radio]
channel_update_s = 0.001
[[radio.ues]]
position = [10, 0, 1.5]
legs = [{ at_s = 1, velocity = [1, 0, 0] }]
[[radio.ues]]
position = [20, 0, 1.5]
waypoints = [{ to = [30, 0, 1.5], speed_mps = 1, pause_s = 1 }]
[[radio.obstacles]]
class = "tree"
x = [40, 41]
y = [40, 41]
z = [0, 10]
"#;

/// Where the schema carries the limits: key pattern (`flows[].rate_bps`) -> limit
/// as the error messages write it (`[1e3, 1e13] b/s`).
pub const LIMITS_KEYWORD: &str = "x-wavecc-limits";

/// The JSON Schema (draft 2020-12) of a scenario config, with the validator's
/// limits under [`LIMITS_KEYWORD`].
pub fn config_schema() -> serde_json::Value {
    let mut schema =
        serde_json::to_value(schemars::schema_for!(Config)).expect("a schema serialises");
    schema[LIMITS_KEYWORD] = serde_json::to_value(config_limits()).expect("limits serialise");
    schema
}

/// The validator's limits by key pattern (see [`validate::limits_checked`]).
pub fn config_limits() -> std::collections::BTreeMap<String, String> {
    validate::limits_checked(|| {
        for config in EXEMPLARS {
            Config::from_toml(config).expect("the exemplars are valid configs");
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn every_option_reaches_the_conditional_checks() {
        let limits = config_limits();
        let expect = [
            ("duration_s", "[1e-9, 1e6] s"),
            ("path.buffer_packets", "[1, 1e6]"),
            ("path.buffer_bytes", "[1500, 1e10] bytes"),
            ("path.loss.gilbert_elliott.loss_bad", "[0, 1]"),
            ("tcp.initial_ssthresh_segments", "[2, 1e6]"),
            ("flows", "at most 2000 flows"),
            ("flows[].rate_bps", "[1e3, 1e13] b/s"),
            ("flows[].on_s", "[1e-9, 1e6] s"),
            ("flows[].access_rate_bps", "[1e3, 1e13] b/s"),
            ("radio.ues[].legs[].velocity[]", "[-1e3, 1e3] m/s"),
            ("radio.ues[].waypoints[].speed_mps", "(0, 1e3] m/s"),
            ("radio.obstacles[].x[]", "[-1e6, 1e6] m"),
            ("radio.ns3_mmwave.bf_redraw_s", "[1e-6, 1e6] s"),
            ("radio.channel_update_s", "[1e-6, 1e6] s"),
            // Checked twice; the later, stricter limit stays.
            ("trace.interval_s", "[1e-6, 1e6] s"),
        ];
        for (key, limit) in expect {
            assert_eq!(limits.get(key).map(String::as_str), Some(limit), "{key}");
        }
    }

    #[test]
    fn recording_stops_with_the_watched_validation() {
        config_limits();
        let later = validate::limits_checked(|| {});
        assert!(later.is_empty(), "{later:?}");
    }

    /// The schema's `properties` of a type, following a `$ref` into `$defs`.
    fn properties<'a>(schema: &'a Value, of: &'a Value) -> &'a serde_json::Map<String, Value> {
        let target = match of.get("$ref").and_then(Value::as_str) {
            Some(r) => &schema["$defs"][r.trim_start_matches("#/$defs/")],
            None => of,
        };
        target["properties"].as_object().expect("an object type")
    }

    #[test]
    fn the_schema_holds_every_key_of_the_effective_config_with_its_default() {
        let schema = config_schema();
        let config: Value =
            serde_json::from_str(&Config::from_toml(EVERY_OPTION).unwrap().to_json()).unwrap();
        let top = properties(&schema, &schema);
        let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(
            top.keys().cloned().collect::<Vec<_>>().len(),
            keys(&config).len()
        );
        for section in ["path", "tcp", "trace"] {
            let props = properties(&schema, &top[section]);
            let mut want = keys(&config[section]);
            want.sort();
            assert_eq!(props.keys().cloned().collect::<Vec<_>>(), want, "{section}");
        }
        let tcp = properties(&schema, &top["tcp"]);
        assert_eq!(tcp["mss_bytes"]["default"], 1400);
        assert!(tcp["min_rto_s"]["description"].is_string());
        assert_eq!(schema[LIMITS_KEYWORD]["tcp.mss_bytes"], "[1, 1e10] bytes");
    }
}
