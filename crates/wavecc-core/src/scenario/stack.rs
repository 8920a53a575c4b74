//! TCP stacks: `tcp.stack` names whose TCP a run behaves like. wavecc's defaults
//! follow Linux; another stack is a preset of `[tcp]` switches and of each
//! algorithm's `flows[].cc` parameters, filled into the raw config before serde's
//! defaults, so that every key the user sets still wins and the effective config
//! shows what the stack chose. Adding a stack is one entry in [`STACKS`]
//! (docs/validation.md says what each ns-3 switch follows, with its source).

use super::ConfigError;
use serde_json::{Map, Value};

/// A preset value (a const-friendly stand-in for a JSON value).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Preset {
    Bool(bool),
    Int(u64),
    Float(f64),
    Str(&'static str),
}

impl Preset {
    pub fn to_json(self) -> Value {
        match self {
            Preset::Bool(b) => Value::Bool(b),
            Preset::Int(i) => Value::from(i),
            Preset::Float(f) => Value::from(f),
            Preset::Str(s) => Value::from(s),
        }
    }

    pub fn to_toml(self) -> toml::Value {
        match self {
            Preset::Bool(b) => toml::Value::Boolean(b),
            Preset::Int(i) => toml::Value::Integer(i as i64),
            Preset::Float(f) => toml::Value::Float(f),
            Preset::Str(s) => toml::Value::String(s.into()),
        }
    }
}

/// Keys and the values a stack gives them.
pub type Keys = &'static [(&'static str, Preset)];

pub struct Stack {
    pub name: &'static str,
    pub summary: &'static str,
    /// `[tcp]` keys.
    pub tcp: Keys,
    /// `flows[].cc` keys per algorithm (`flows[].cca`); algorithms not listed keep
    /// their defaults.
    pub cc: &'static [(&'static str, Keys)],
}

use Preset::{Bool, Float, Int, Str};

/// Algorithm parameters ns-3 3.37 and 3.29 share: the same `TcpNewReno`,
/// `TcpHighSpeed`, `TcpVegas`, `TcpScalable`, `TcpYeah` and `TcpWestwood` rules.
const NS3_NEWRENO: Keys = &[
    ("increase_per", Str("ack_bytes")),
    ("ssthresh_basis", Str("inflight")),
];
const NS3_HIGHSPEED: Keys = &[
    ("ssthresh_basis", Str("inflight")),
    ("slow_start_per", Str("ack")),
];
const NS3_VEGAS: Keys = &[
    ("ssthresh_rule", Str("ns3")),
    ("restart_on_idle", Bool(false)),
    ("integer_windows", Bool(true)),
];
const NS3_SCALABLE: Keys = &[
    ("ai_cnt", Int(50)),
    ("ssthresh_basis", Str("inflight")),
    ("slow_start_per", Str("ack")),
];
const NS3_YEAH: Keys = &[
    ("phy_integer_division", Bool(true)),
    ("ssthresh_basis", Str("inflight")),
    ("restart_on_idle", Bool(false)),
    ("reno_increase_per", Str("ack_bytes")),
    ("slow_start_per", Str("ack")),
];
const NS3_WESTWOOD: Keys = &[
    ("loss_response", Str("immediate")),
    ("filter", Str("tustin")),
    ("sampling", Str("ns3")),
    ("count", Str("ns3")),
    ("increase_per", Str("ack_bytes")),
];

/// Every stack `tcp.stack` can name; the first is the default.
pub const STACKS: &[Stack] = &[
    Stack {
        name: "linux",
        summary: "Linux's TCP: wavecc's defaults",
        tcp: &[],
        cc: &[],
    },
    Stack {
        name: "ns3-3.37",
        summary: "ns-3 3.37's TCP models (docs/validation.md: each switch and the ns-3 source it follows)",
        tcp: &[
            ("rtt_granularity_s", Float(0.001)), // RTT from millisecond timestamps
            ("cc_rtt", Str("smoothed")), // PktsAcked is given the smoothed RTT, on every ACK
            ("quickack_segments", Int(1)), // the first data segment after the handshake is acked at once
            ("syn_timeout_s", Float(3.0)), // TcpSocket's ConnTimeout, doubled per SYN (SendEmptyPacket)
            ("cwnd_validation", Bool(false)), // TcpSocketBase grows cwnd on every ACK that advances
            ("receive_window", Str("ns3")), // TcpRxBuffer leaves out-of-order data out of the window
            ("recovery_sends", Str("ns3")), // NextSeg's rule 3 re-sends segments still in flight
            ("rto_ssthresh", Str("ns3")), // ReTxTimeout reduces again unless repeating CA_LOSS's head
            ("pipe", Str("ns3")), // a SACKed retransmission stays in flight until the cumulative ACK
            ("rate_samples", Str("ns3")), // TcpRateLinux keeps one delivery-rate sample across ACKs
            ("pacing_burst_s", Float(0.0)), // no TSO: the pacer sends packet by packet
            ("rtt_samples", Str("ns3")), // EstimateRtt samples only the RttHistory's oldest entry
        ],
        cc: &[
            ("newreno", NS3_NEWRENO),
            // ns-3's HyStart: the ACK train must span the whole minimum RTT, the delay
            // threshold is the minimum RTT itself (clamped to [4, 1000] ms), a round's
            // minimum RTT is that of its first 8 samples; no Reno-friendly region;
            // delay samples ignored for 10 ms (CubicDelta) after an epoch starts.
            (
                "cubic",
                &[
                    ("hystart_ack_train_ratio", Float(1.0)),
                    ("hystart_delay_ratio", Float(1.0)),
                    ("hystart_delay_max_ms", Float(1000.0)),
                    ("hystart_round_rtt", Str("first_samples")),
                    ("tcp_friendliness", Bool(false)),
                    ("rtt_holdoff_ms", Float(10.0)),
                ],
            ),
            ("highspeed", NS3_HIGHSPEED),
            (
                "bbr",
                &[
                    ("quantization", Str("ns3")),
                    ("extra_acked_gain", Float(0.0)),
                    ("lt_bw", Bool(false)),
                    ("cycle_rand", Int(6)),
                    ("samples", Str("ns3")),
                ],
            ),
            ("vegas", NS3_VEGAS),
            ("scalable", NS3_SCALABLE),
            ("yeah", NS3_YEAH),
            ("westwood", NS3_WESTWOOD),
        ],
    },
    Stack {
        name: "ns3-3.29",
        summary: "ns-3 3.29's TCP as ns3-mmwave (January 2020) ran the FB-TCP paper's scripts \
                  (docs/validation.md: each switch and the ns-3 source it follows)",
        tcp: &[
            ("initial_cwnd_segments", Int(1)), // TcpSocket's InitialCwnd default, which the scripts keep
            ("rtt_granularity_s", Float(0.001)), // RTT from millisecond timestamps
            ("cc_rtt", Str("smoothed")), // EstimateRtt sets m_lastRtt to the smoothed RTT, PktsAcked gets it on every ACK
            ("quickack_segments", Int(1)), // the first data segment after the handshake is acked at once
            ("syn_timeout_s", Float(3.0)), // TcpSocket's ConnTimeout, doubled per SYN (SendEmptyPacket)
            ("cwnd_validation", Bool(false)), // ProcessAck grows cwnd on every ACK that advances
            ("receive_window", Str("ns3")), // TcpRxBuffer::MaxRxSequence as in 3.37
            ("recovery", Str("classic")),  // TcpClassicRecovery: cwnd = ssthresh from entry to exit
            ("recovery_sends", Str("ns3-3.29")), // NextSeg's rule 3; every partial ACK retransmits
            ("partial_ack_rto", Str("first")), // NewAck restarts the RTO on the first partial ACK only
            ("rto_ssthresh", Str("ns3")), // ReTxTimeout reduces again unless repeating CA_LOSS's head
            ("pipe", Str("ns3")),         // TcpTxBuffer keeps a SACKed retransmission's count
            ("undo", Bool(false)),        // no D-SACK from the receiver, no undo in the sender
            ("rtt_samples", Str("ns3")),  // EstimateRtt samples only the RttHistory's oldest entry
            ("pacing_burst_s", Float(0.0)), // no TSO: the pacer sends packet by packet
        ],
        cc: &[
            ("newreno", NS3_NEWRENO),
            // ns3-mmwave's TcpCubic: Beta 0.8, one segment per ACK in slow start,
            // ssthresh from min(cwnd, in flight); HyStart, CubicDelta and no
            // Reno-friendly region as in 3.37.
            (
                "cubic",
                &[
                    ("beta", Float(0.8)),
                    ("slow_start_per", Str("ack")),
                    ("ssthresh_basis", Str("min")),
                    ("hystart_ack_train_ratio", Float(1.0)),
                    ("hystart_delay_ratio", Float(1.0)),
                    ("hystart_delay_max_ms", Float(1000.0)),
                    ("hystart_round_rtt", Str("first_samples")),
                    ("tcp_friendliness", Bool(false)),
                    ("rtt_holdoff_ms", Float(10.0)),
                ],
            ),
            ("highspeed", NS3_HIGHSPEED),
            ("vegas", NS3_VEGAS),
            ("scalable", NS3_SCALABLE),
            ("yeah", NS3_YEAH),
            ("westwood", NS3_WESTWOOD),
            // The paper's Tcpfbtcp: a cycle ends when the ACK reaches the recorded
            // snd_nxt, its rate is the sink's goodput on the scripts' 100 ms grid, and
            // its fallback is TcpNewReno::IncreaseWindow.
            (
                "fbtcp",
                &[
                    ("cycle_end", Str("reached")),
                    ("rate_source", Str("sink")),
                    ("reno_increase_per", Str("ack_bytes")),
                ],
            ),
        ],
    },
];

pub fn default_stack() -> String {
    STACKS[0].name.into()
}

/// The stack called `name`, or an error at `tcp.stack` naming the valid ones.
pub fn get(name: &str) -> Result<&'static Stack, ConfigError> {
    STACKS.iter().find(|s| s.name == name).ok_or_else(|| {
        let names: Vec<&str> = STACKS.iter().map(|s| s.name).collect();
        ConfigError::invalid(
            "tcp.stack",
            format!("unknown stack '{name}' (stacks: {})", names.join(", ")),
        )
    })
}

impl Stack {
    /// The `flows[].cc` keys this stack gives `cca` (none for an algorithm it does not list).
    pub fn cc_keys(&self, cca: &str) -> Keys {
        self.cc
            .iter()
            .find(|(name, _)| *name == cca)
            .map_or(&[], |(_, keys)| *keys)
    }

    /// The stack as JSON: {"name", "summary", "tcp": {key: value}, "cc": {cca: {key: value}}}.
    pub fn to_json(&self) -> Value {
        let cc: Map<String, Value> = self
            .cc
            .iter()
            .map(|(cca, keys)| (cca.to_string(), object(keys)))
            .collect();
        serde_json::json!({"name": self.name, "summary": self.summary, "tcp": object(self.tcp), "cc": cc})
    }
}

fn object(keys: Keys) -> Value {
    Value::Object(
        keys.iter()
            .map(|(k, v)| (k.to_string(), v.to_json()))
            .collect(),
    )
}

/// Fills a raw config (as the user wrote it) with the keys of the stack its
/// `tcp.stack` names that it does not set: `[tcp]` keys, and each TCP flow's `cc`
/// keys for its algorithm. Shapes serde will reject (a `tcp` that is no table, a
/// stack that is no string) are left for serde to report.
pub(super) fn apply<R: Raw>(raw: &mut R) -> Result<(), ConfigError> {
    if !raw.is_table() {
        return Ok(());
    }
    let name = match raw.get("tcp").map(|tcp| tcp.get("stack").map(Raw::as_str)) {
        None | Some(None) => STACKS[0].name,
        Some(Some(Some(name))) => name,
        Some(Some(None)) => return Ok(()),
    };
    let stack = get(name)?;
    if !stack.tcp.is_empty()
        && let Some(tcp) = raw.table_at("tcp", false)
    {
        tcp.fill(stack.tcp);
    }
    if let Some(flows) = raw.get_mut("flows") {
        flows.for_each_item(|flow| fill_flow(flow, stack));
    }
    Ok(())
}

/// A TCP flow's `cc` gains the stack's keys for its algorithm (`flows[].cca`, or
/// the schema's default) that it does not set; a UDP flow has no algorithm.
fn fill_flow<R: Raw>(flow: &mut R, stack: &Stack) {
    if !flow.is_table() || flow.get("app").and_then(Raw::as_str) == Some("udp") {
        return;
    }
    let cca = match flow.get("cca").map(Raw::as_str) {
        None => super::schema::default_cca(),
        Some(Some(cca)) => cca.to_string(),
        Some(None) => return,
    };
    let keys = stack.cc_keys(&cca);
    if keys.is_empty() {
        return;
    }
    // A null `cc` (JSON's way of leaving it unset) becomes the stack's table.
    if let Some(cc) = flow.table_at("cc", true) {
        cc.fill(keys);
    }
}

/// A raw config tree as parsed: JSON (from the Python API) or TOML (from a file).
/// TOML is kept as TOML so that its `nan` and `inf` reach validation, which names
/// them; JSON has no way to hold them.
pub(super) trait Raw: Sized {
    fn is_table(&self) -> bool;
    fn as_str(&self) -> Option<&str>;
    /// The value at `key` of a table.
    fn get(&self, key: &str) -> Option<&Self>;
    fn get_mut(&mut self, key: &str) -> Option<&mut Self>;
    /// The table at `key` of this table, made when `key` is absent (or null, with
    /// `replace_null`); None when something else is there.
    fn table_at(&mut self, key: &str, replace_null: bool) -> Option<&mut Self>;
    /// Inserts each of `keys` this table does not have.
    fn fill(&mut self, keys: Keys);
    /// Calls `f` on each item of a list.
    fn for_each_item(&mut self, f: impl FnMut(&mut Self));
}

impl Raw for Value {
    fn is_table(&self) -> bool {
        self.is_object()
    }
    fn as_str(&self) -> Option<&str> {
        Value::as_str(self)
    }
    fn get(&self, key: &str) -> Option<&Self> {
        self.as_object()?.get(key)
    }
    fn get_mut(&mut self, key: &str) -> Option<&mut Self> {
        self.as_object_mut()?.get_mut(key)
    }
    fn table_at(&mut self, key: &str, replace_null: bool) -> Option<&mut Self> {
        let value = self
            .as_object_mut()?
            .entry(key)
            .or_insert_with(|| Value::Object(Map::new()));
        if replace_null && value.is_null() {
            *value = Value::Object(Map::new());
        }
        value.is_object().then_some(value)
    }
    fn fill(&mut self, keys: Keys) {
        if let Some(table) = self.as_object_mut() {
            for (key, value) in keys {
                table
                    .entry(key.to_string())
                    .or_insert_with(|| value.to_json());
            }
        }
    }
    fn for_each_item(&mut self, f: impl FnMut(&mut Self)) {
        if let Some(items) = self.as_array_mut() {
            items.iter_mut().for_each(f);
        }
    }
}

impl Raw for toml::Value {
    fn is_table(&self) -> bool {
        self.is_table()
    }
    fn as_str(&self) -> Option<&str> {
        toml::Value::as_str(self)
    }
    fn get(&self, key: &str) -> Option<&Self> {
        self.as_table()?.get(key)
    }
    fn get_mut(&mut self, key: &str) -> Option<&mut Self> {
        self.as_table_mut()?.get_mut(key)
    }
    fn table_at(&mut self, key: &str, _replace_null: bool) -> Option<&mut Self> {
        // TOML has no null.
        let value = self
            .as_table_mut()?
            .entry(key)
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        value.is_table().then_some(value)
    }
    fn fill(&mut self, keys: Keys) {
        if let Some(table) = self.as_table_mut() {
            for (key, value) in keys {
                table
                    .entry(key.to_string())
                    .or_insert_with(|| value.to_toml());
            }
        }
    }
    fn for_each_item(&mut self, f: impl FnMut(&mut Self)) {
        if let Some(items) = self.as_array_mut() {
            items.iter_mut().for_each(f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Config;
    use serde_json::json;

    fn ns3() -> &'static Stack {
        get("ns3-3.37").unwrap()
    }

    fn config(tcp: Value, flow: Value) -> Config {
        Config::from_json(&json!({"tcp": tcp, "flows": [flow]}).to_string()).unwrap()
    }

    #[test]
    fn linux_is_the_default_and_sets_nothing() {
        let plain = Config::from_json(r#"{"flows": [{"cca": "vegas"}]}"#).unwrap();
        assert_eq!(plain.tcp.stack, "linux");
        assert_eq!(
            plain,
            config(json!({"stack": "linux"}), json!({"cca": "vegas"}))
        );
        assert_eq!(plain.flows[0].cc, None);
    }

    #[test]
    fn a_stack_sets_every_tcp_switch_and_its_algorithms_parameters() {
        for stack in STACKS {
            for (cca, keys) in stack.cc {
                let c = config(json!({"stack": stack.name}), json!({"cca": cca}));
                let effective: Value = serde_json::from_str(&c.to_json()).unwrap();
                assert_eq!(effective["tcp"]["stack"], stack.name);
                for (key, value) in stack.tcp {
                    assert_eq!(effective["tcp"][key], value.to_json(), "{key}");
                }
                for (key, value) in *keys {
                    assert_eq!(
                        effective["flows"][0]["cc"][key],
                        value.to_json(),
                        "{cca}: {key}"
                    );
                }
            }
        }
    }

    #[test]
    fn every_stack_builds_every_algorithm() {
        for stack in STACKS {
            for alg in crate::cc::ALGORITHMS {
                let raw = json!({"tcp": {"stack": stack.name}, "flows": [{"cca": alg.name}]});
                Config::from_json(&raw.to_string())
                    .unwrap_or_else(|e| panic!("{} {}: {e}", stack.name, alg.name));
            }
        }
    }

    #[test]
    fn a_key_the_user_sets_beats_the_stack() {
        let c = config(
            json!({"stack": "ns3-3.37", "cc_rtt": "sample"}),
            json!({"cca": "vegas", "cc": {"integer_windows": false}}),
        );
        assert_eq!(c.tcp.cc_rtt, crate::tcp::CcRtt::Sample);
        assert_eq!(c.tcp.rtt_granularity_s, 0.001); // the stack's, not set by the user
        let cc = c.flows[0].cc.as_ref().unwrap();
        assert_eq!(cc["integer_windows"], json!(false));
        assert_eq!(cc["ssthresh_rule"], json!("ns3"));
    }

    #[test]
    fn the_default_algorithm_gets_its_parameters_and_udp_flows_none() {
        let c = Config::from_json(
            &json!({"tcp": {"stack": "ns3-3.37"}, "flows": [{}, {"app": "udp", "rate_bps": 1e6}]})
                .to_string(),
        )
        .unwrap();
        assert_eq!(
            c.flows[0].cc.as_ref().unwrap()["tcp_friendliness"],
            json!(false)
        );
        assert_eq!(c.flows[1].cc, None);
    }

    #[test]
    fn the_effective_config_reads_back_to_itself() {
        let c = config(json!({"stack": "ns3-3.37"}), json!({"cca": "bbr"}));
        assert_eq!(Config::from_json(&c.to_json()).unwrap(), c);
    }

    #[test]
    fn toml_configs_take_the_stack_too() {
        let c = Config::from_toml("[tcp]\nstack = \"ns3-3.37\"\n[[flows]]\ncca = \"westwood\"\n")
            .unwrap();
        assert!(!c.tcp.cwnd_validation);
        assert_eq!(c.flows[0].cc.as_ref().unwrap()["filter"], json!("tustin"));
    }

    #[test]
    fn in_toml_too_a_key_the_user_sets_beats_the_stack() {
        let text = "[tcp]\nstack = \"ns3-3.37\"\ncwnd_validation = true\n[[flows]]\ncca = \"westwood\"\n[flows.cc]\nfilter = \"linux\"\n";
        let c = Config::from_toml(text).unwrap();
        assert!(c.tcp.cwnd_validation);
        assert_eq!(c.tcp.rtt_granularity_s, 0.001);
        let cc = c.flows[0].cc.as_ref().unwrap();
        assert_eq!(cc["filter"], json!("linux"));
        assert_eq!(cc["sampling"], json!("ns3"));
    }

    #[test]
    fn an_unknown_stack_names_the_valid_ones() {
        let e = Config::from_json(r#"{"tcp": {"stack": "bsd"}, "flows": [{}]}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "tcp.stack: unknown stack 'bsd' (stacks: linux, ns3-3.37, ns3-3.29)"
        );
        let e = Config::from_toml("[tcp]\nstack = 3\n[[flows]]\n").unwrap_err();
        assert!(e.to_string().starts_with("tcp.stack: invalid type"), "{e}");
    }

    #[test]
    fn every_tcp_switch_of_a_stack_differs_from_linux() {
        let linux = serde_json::to_value(crate::scenario::TcpConfig::default()).unwrap();
        for stack in STACKS {
            for (key, value) in stack.tcp {
                assert!(linux.get(key).is_some(), "{}: no tcp.{key}", stack.name);
                assert_ne!(
                    linux[key],
                    value.to_json(),
                    "{}: tcp.{key} is Linux's already",
                    stack.name
                );
            }
        }
        assert_eq!(ns3().cc_keys("dtcp"), &[] as Keys);
    }

    #[test]
    fn ns3_3_29_starts_from_one_segment_and_recovers_classically() {
        let c = config(json!({"stack": "ns3-3.29"}), json!({"cca": "cubic"}));
        assert_eq!(c.tcp.initial_cwnd_segments, 1);
        assert_eq!(c.tcp.recovery, crate::tcp::Recovery::Classic);
        assert_eq!(c.tcp.recovery_sends, crate::tcp::RecoverySends::Ns3v329);
        assert!(!c.tcp.undo);
        assert_eq!(c.flows[0].cc.as_ref().unwrap()["beta"], json!(0.8));
        // BBR, which 3.29 does not have, keeps its own defaults.
        assert_eq!(get("ns3-3.29").unwrap().cc_keys("bbr"), &[] as Keys);
    }

    #[test]
    fn stack_names_are_unique() {
        let names: std::collections::HashSet<&str> = STACKS.iter().map(|s| s.name).collect();
        assert_eq!(names.len(), STACKS.len());
    }
}
