//! Value checks that the schema's types cannot express. Each error names the key
//! path and the valid range.

use super::{AppKind, Config, ConfigError};
use crate::net::HEADER_BYTES;

pub(super) type Check = Result<(), ConfigError>;

pub(super) fn positive(path: &str, v: f64) -> Check {
    if v.is_finite() && v > 0.0 { Ok(()) } else { Err(ConfigError::invalid(path, format!("must be a positive number, got {v}"))) }
}

pub(super) fn non_negative(path: &str, v: f64) -> Check {
    if v.is_finite() && v >= 0.0 { Ok(()) } else { Err(ConfigError::invalid(path, format!("must be >= 0, got {v}"))) }
}

pub(super) fn probability(path: &str, v: f64) -> Check {
    if (0.0..=1.0).contains(&v) { Ok(()) } else { Err(ConfigError::invalid(path, format!("must be a probability in [0, 1], got {v}"))) }
}

pub(super) fn at_least(path: &str, v: u64, min: u64) -> Check {
    if v >= min { Ok(()) } else { Err(ConfigError::invalid(path, format!("must be >= {min}, got {v}"))) }
}

impl Config {
    pub(super) fn validate(&self) -> Check {
        positive("duration_s", self.duration_s)?;
        self.validate_path()?;
        self.validate_tcp()?;
        positive("trace.interval_s", self.trace.interval_s)?;
        if self.flows.is_empty() {
            return Err(ConfigError::invalid("flows", "at least one [[flows]] entry is required"));
        }
        for (i, f) in self.flows.iter().enumerate() {
            self.validate_flow(i, f)?;
        }
        match &self.radio {
            Some(radio) => radio.validate(&self.flows),
            None => match self.flows.iter().position(|f| f.ue != 0) {
                Some(i) => Err(ConfigError::invalid(format!("flows[{i}].ue"), "applies only to scenarios with [radio]")),
                None => Ok(()),
            },
        }
    }

    fn validate_path(&self) -> Check {
        let p = &self.path;
        positive("path.rate_bps", p.rate_bps)?;
        non_negative("path.reverse_rate_bps", p.reverse_rate_bps)?;
        non_negative("path.one_way_delay_s", p.one_way_delay_s)?;
        if p.buffer_packets == 0 {
            at_least("path.buffer_bytes", p.buffer_bytes, p.mtu_bytes as u64)?;
        }
        let min_mtu = self.tcp.mss_bytes as u64 + HEADER_BYTES as u64;
        if p.mtu_bytes > 65_535 {
            return Err(ConfigError::invalid("path.mtu_bytes", format!("must be at most 65535 (an IPv4 packet), got {}", p.mtu_bytes)));
        }
        if (p.mtu_bytes as u64) < min_mtu {
            return Err(ConfigError::invalid(
                "path.mtu_bytes",
                format!("must hold tcp.mss_bytes plus {HEADER_BYTES} header bytes (>= {min_mtu}), got {}", p.mtu_bytes),
            ));
        }
        probability("path.loss.per_byte", p.loss.per_byte)?;
        probability("path.loss.per_packet", p.loss.per_packet)?;
        if let Some(ge) = &p.loss.gilbert_elliott {
            probability("path.loss.gilbert_elliott.p_good_to_bad", ge.p_good_to_bad)?;
            probability("path.loss.gilbert_elliott.p_bad_to_good", ge.p_bad_to_good)?;
            probability("path.loss.gilbert_elliott.loss_good", ge.loss_good)?;
            probability("path.loss.gilbert_elliott.loss_bad", ge.loss_bad)?;
        }
        Ok(())
    }

    fn validate_tcp(&self) -> Check {
        let t = &self.tcp;
        super::stack::get(&t.stack)?;
        at_least("tcp.mss_bytes", t.mss_bytes as u64, 1)?;
        at_least("tcp.initial_cwnd_segments", t.initial_cwnd_segments as u64, 1)?;
        if let Some(s) = t.initial_ssthresh_segments {
            at_least("tcp.initial_ssthresh_segments", s as u64, 2)?;
        }
        positive("tcp.min_rto_s", t.min_rto_s)?;
        positive("tcp.initial_rto_s", t.initial_rto_s)?;
        if !(t.max_rto_s >= t.min_rto_s) {
            return Err(ConfigError::invalid("tcp.max_rto_s", format!("must be >= tcp.min_rto_s ({}), got {}", t.min_rto_s, t.max_rto_s)));
        }
        at_least("tcp.dupthresh", t.dupthresh as u64, 1)?;
        non_negative("tcp.pacing_burst_s", t.pacing_burst_s)?;
        if !(t.rtt_granularity_s >= 0.0 && t.rtt_granularity_s <= 1.0) {
            return Err(ConfigError::invalid("tcp.rtt_granularity_s", format!("must be in [0, 1] seconds (0: exact, 0.001: ns-3's milliseconds), got {}", t.rtt_granularity_s)));
        }
        at_least("tcp.ack_every_segments", t.ack_every_segments as u64, 1)?;
        positive("tcp.delayed_ack_timeout_s", t.delayed_ack_timeout_s)?;
        at_least("tcp.snd_buf_bytes", t.snd_buf_bytes, t.mss_bytes as u64)?;
        at_least("tcp.rcv_buf_bytes", t.rcv_buf_bytes, t.mss_bytes as u64)?;
        Ok(())
    }

    fn validate_flow(&self, i: usize, f: &super::FlowConfig) -> Check {
        let key = |k: &str| format!("flows[{i}].{k}");
        if f.app != AppKind::Udp {
            let params = f.cc.clone().unwrap_or(serde_json::Value::Null);
            crate::cc::build(&f.cca, &params).map_err(|e| {
                let path = if e.starts_with("unknown algorithm") { key("cca") } else { key("cc") };
                ConfigError::invalid(path, e)
            })?;
        }
        let needs_rate = matches!(f.app, AppKind::Rate | AppKind::Onoff | AppKind::Udp);
        match (needs_rate, f.rate_bps) {
            (true, None) => return Err(ConfigError::invalid(key("rate_bps"), format!("required for app = \"{}\"", f.app.as_str()))),
            (true, Some(r)) => positive(&key("rate_bps"), r)?,
            (false, Some(_)) => return Err(ConfigError::invalid(key("rate_bps"), "applies only to app = \"rate\", \"onoff\" or \"udp\"")),
            (false, None) => {}
        }
        if let Some(w) = f.write_bytes {
            if f.app == AppKind::Bulk {
                return Err(ConfigError::invalid(key("write_bytes"), "applies only to app = \"rate\", \"onoff\" or \"udp\""));
            }
            at_least(&key("write_bytes"), w as u64, 1)?;
            if f.app == AppKind::Udp && w + HEADER_BYTES > self.path.mtu_bytes {
                return Err(ConfigError::invalid(key("write_bytes"), format!("a UDP datagram must fit path.mtu_bytes ({}) with headers", self.path.mtu_bytes)));
            }
        }
        let is_onoff = f.app == AppKind::Onoff;
        for (name, v) in [("on_s", f.on_s), ("off_s", f.off_s)] {
            match (is_onoff, v) {
                (true, None) => return Err(ConfigError::invalid(key(name), "required for app = \"onoff\"")),
                (true, Some(v)) => positive(&key(name), v)?,
                (false, Some(_)) => return Err(ConfigError::invalid(key(name), "applies only to app = \"onoff\"")),
                (false, None) => {}
            }
        }
        if f.period_distribution.is_some() && !is_onoff {
            return Err(ConfigError::invalid(key("period_distribution"), "applies only to app = \"onoff\""));
        }
        non_negative(&key("start_s"), f.start_s)?;
        if let Some(stop) = f.stop_s {
            if !(stop > f.start_s) {
                return Err(ConfigError::invalid(key("stop_s"), format!("must be after start_s ({}), got {stop}", f.start_s)));
            }
        }
        non_negative(&key("access_delay_s"), f.access_delay_s)?;
        if let Some(r) = f.access_rate_bps {
            positive(&key("access_rate_bps"), r)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::builtin;
    use crate::Config;

    fn with(key_value: &str) -> String {
        let base = builtin::get("dumbbell-1g").unwrap();
        // Insert the override before the first table so it lands at top level or in [path].
        base.replacen("[path]\n", &format!("[path]\n{key_value}\n"), 1)
    }

    fn err(toml: &str) -> String {
        Config::from_toml(toml).unwrap_err().to_string()
    }

    #[test]
    fn the_builtin_dumbbell_is_valid() {
        let c = Config::from_toml(builtin::get("dumbbell-1g").unwrap()).unwrap();
        assert_eq!(c.flows.len(), 1);
        assert_eq!(c.path.rate_bps, 1e9);
    }

    #[test]
    fn unknown_key_is_named_with_its_path_and_the_valid_keys() {
        let e = err(&with("rate_bsp = 1"));
        assert!(e.contains("path") && e.contains("rate_bsp") && e.contains("rate_bps"), "{e}");
    }

    #[test]
    fn negative_rate_is_rejected() {
        let e = err(&with("rate_bps = -5").replacen("rate_bps = 1e9\n", "", 1));
        assert!(e.starts_with("path.rate_bps: must be a positive number"), "{e}");
    }

    #[test]
    fn missing_flows_are_rejected() {
        let e = err("duration_s = 1\n");
        assert!(e.contains("flows"), "{e}");
        let e = err("duration_s = 1\nflows = []\n");
        assert_eq!(e, "flows: at least one [[flows]] entry is required");
    }

    #[test]
    fn toml_syntax_error_is_one_line() {
        let e = err("duration_s = = 1\n");
        assert!(!e.contains('\n') && !e.is_empty(), "{e}");
    }

    #[test]
    fn unknown_algorithm_names_the_flow_key() {
        let e = err("[[flows]]\ncca = \"warp\"\n");
        assert!(e.starts_with("flows[0].cca: unknown algorithm 'warp'"), "{e}");
    }

    #[test]
    fn loss_outside_unit_interval_is_rejected() {
        let e = err("[path.loss]\nper_byte = 1.5\n[[flows]]\n");
        assert!(e.starts_with("path.loss.per_byte: must be a probability"), "{e}");
    }

    #[test]
    fn app_specific_keys_are_checked() {
        assert!(err("[[flows]]\napp = \"rate\"\n").starts_with("flows[0].rate_bps: required"));
        assert!(err("[[flows]]\nrate_bps = 1e6\n").starts_with("flows[0].rate_bps: applies only"));
        assert!(err("[[flows]]\napp = \"onoff\"\nrate_bps = 1e6\non_s = 1\n").starts_with("flows[0].off_s: required"));
    }

    #[test]
    fn rtt_clock_keys_are_checked() {
        let e = err("[tcp]\nrtt_granularity_s = -0.001\n[[flows]]\n");
        assert!(e.starts_with("tcp.rtt_granularity_s: must be in [0, 1] seconds"), "{e}");
        let e = err("[tcp]\nrtt_granularity_s = 2\n[[flows]]\n");
        assert!(e.starts_with("tcp.rtt_granularity_s: must be in [0, 1]"), "{e}");
        let e = err("[tcp]\ncc_rtt = \"srtt\"\n[[flows]]\n");
        assert!(e.contains("cc_rtt") && e.contains("sample") && e.contains("smoothed"), "{e}");
        let c = Config::from_toml("[tcp]\nrtt_granularity_s = 0.001\ncc_rtt = \"smoothed\"\n[[flows]]\n").unwrap();
        assert_eq!((c.tcp.rtt_granularity_s, c.tcp.cc_rtt), (0.001, crate::tcp::CcRtt::Smoothed));
    }

    #[test]
    fn ns3_socket_switches_name_their_choices() {
        for key in ["receive_window", "recovery_sends", "rate_samples", "pipe"] {
            let e = err(&format!("[tcp]\n{key} = \"ns-3\"\n[[flows]]\n"));
            assert!(e.contains(key) && e.contains("linux") && e.contains("ns3"), "{e}");
        }
        let c = Config::from_toml("[tcp]\nreceive_window = \"ns3\"\nrecovery_sends = \"ns3\"\nrate_samples = \"ns3\"\npipe = \"ns3\"\n[[flows]]\n").unwrap();
        assert_eq!(c.tcp.receive_window, crate::tcp::ReceiveWindow::Ns3);
        assert_eq!(c.tcp.recovery_sends, crate::tcp::RecoverySends::Ns3);
        assert_eq!(c.tcp.rate_samples, crate::tcp::RateSamples::Ns3);
        assert_eq!(c.tcp.pipe, crate::tcp::Pipe::Ns3);
        assert_eq!(Config::from_toml("[[flows]]\n").unwrap().tcp.pipe, crate::tcp::Pipe::Linux);
    }

    #[test]
    fn mtu_must_hold_a_segment() {
        let e = err("[path]\nmtu_bytes = 1000\n[[flows]]\n");
        assert!(e.starts_with("path.mtu_bytes: must hold tcp.mss_bytes"), "{e}");
    }

    #[test]
    fn json_errors_name_the_key_without_json_positions() {
        let e = Config::from_json(r#"{"path": {"rate_bsp": 1}, "flows": [{}]}"#).unwrap_err().to_string();
        assert!(e.starts_with("path.rate_bsp: unknown field `rate_bsp`"), "{e}");
        assert!(!e.contains("line"), "{e}");
        let e = Config::from_json(r#"{"duration_s": 1}"#).unwrap_err().to_string();
        assert_eq!(e, "missing field `flows`");
    }

    #[test]
    fn json_and_toml_give_the_same_config() {
        let c = Config::from_toml(builtin::get("dumbbell-1g").unwrap()).unwrap();
        assert_eq!(Config::from_json(&c.to_json()).unwrap(), c);
    }
}
