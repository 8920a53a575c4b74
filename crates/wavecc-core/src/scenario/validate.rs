//! Value checks that the schema's types cannot express. Each error names the key
//! path and the valid range.

use super::{AppKind, Config, ConfigError, TraceRows};
use crate::net::{HEADER_BYTES, LinkTrace};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;

pub(super) type Check = Result<(), ConfigError>;

/// The largest time the engine is given: delays, timeouts, durations, start and
/// stop times, seconds. Times are integer nanoseconds (`engine::time`): 1e6 s is
/// 1e15 ns, exact in an f64 and far from u64's end however times are added.
pub const MAX_TIME_S: f64 = 1e6;
/// The engine's resolution: a non-zero time shorter than this would round to 0.
pub const MIN_TIME_S: f64 = 1e-9;
/// The shortest sampling or channel-update period: below it a run does nothing but sample.
pub const MIN_PERIOD_S: f64 = 1e-6;
/// Link and application rates, bits per second: at the lowest a 64 KB packet takes
/// 524 s to serialise, at the highest a 1500-byte one takes 1.2 ns.
pub const MIN_RATE_BPS: f64 = 1e3;
pub const MAX_RATE_BPS: f64 = 1e13;
/// Buffers, bytes (10 GB).
pub const MAX_BYTES: f64 = 1e10;
/// Counts of segments, packets and HARQ processes.
pub const MAX_COUNT: f64 = 1e6;
/// Logged events: a million take 52 MB in the core (`trace::EVENT_ROW_BYTES`).
pub const MAX_EVENTS: f64 = 1e7;
/// Rows of the sampled time series over a run (`TraceRows::sampled`): about
/// 300 MB in the core and 2.5 GB as DataFrames through the Python API.
pub const MAX_SAMPLED_ROWS: f64 = 5e6;
/// Flows, UEs and gNBs of one scenario (two flows for each of the most UEs).
pub const MAX_FLOWS: usize = 2000;
pub const MAX_UES: usize = 1000;
pub const MAX_GNBS: usize = 100;
/// Coordinates, metres, and speeds, m/s.
pub const MAX_COORDINATE_M: f64 = 1e6;
pub const MAX_SPEED_MPS: f64 = 1e3;
/// Gains and losses, dB.
pub const MAX_DB: f64 = 1e3;

/// The valid values of a quantity: `min` to `max`, each end included unless `open`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Range {
    min: f64,
    max: f64,
    open: (bool, bool),
    unit: &'static str,
}

impl Range {
    pub const fn closed(min: f64, max: f64, unit: &'static str) -> Self {
        Range {
            min,
            max,
            open: (false, false),
            unit,
        }
    }

    /// Excluding `min`.
    pub const fn above(min: f64, max: f64, unit: &'static str) -> Self {
        Range {
            min,
            max,
            open: (true, false),
            unit,
        }
    }

    pub const fn open(min: f64, max: f64, unit: &'static str) -> Self {
        Range {
            min,
            max,
            open: (true, true),
            unit,
        }
    }

    fn contains(&self, v: f64) -> bool {
        let above = if self.open.0 {
            v > self.min
        } else {
            v >= self.min
        };
        let below = if self.open.1 {
            v < self.max
        } else {
            v <= self.max
        };
        above && below
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (l, r) = (
            if self.open.0 { '(' } else { '[' },
            if self.open.1 { ')' } else { ']' },
        );
        write!(f, "{l}{}, {}{r}", Number(self.min), Number(self.max))?;
        if !self.unit.is_empty() {
            write!(f, " {}", self.unit)?;
        }
        Ok(())
    }
}

/// A number as a person writes it, in the shorter of the plain and the exponent
/// forms: 1e6 and 1e-9, but 1400 and 0.1.
struct Number(f64);

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (plain, exponent) = (format!("{}", self.0), format!("{:e}", self.0));
        f.write_str(if exponent.len() < plain.len() {
            &exponent
        } else {
            &plain
        })
    }
}

/// Delays and start times: from 0.
pub(super) const TIME: Range = Range::closed(0.0, MAX_TIME_S, "s");
/// Durations and timeouts: at least the engine's resolution.
pub(super) const DURATION: Range = Range::closed(MIN_TIME_S, MAX_TIME_S, "s");
/// Sampling and channel-update periods.
pub(super) const PERIOD: Range = Range::closed(MIN_PERIOD_S, MAX_TIME_S, "s");
pub(super) const RATE: Range = Range::closed(MIN_RATE_BPS, MAX_RATE_BPS, "b/s");
pub(super) const PROBABILITY: Range = Range::closed(0.0, 1.0, "");
pub(super) const DB: Range = Range::closed(0.0, MAX_DB, "dB");
pub(super) const COORDINATE: Range = Range::closed(-MAX_COORDINATE_M, MAX_COORDINATE_M, "m");
pub(super) const VELOCITY: Range = Range::closed(-MAX_SPEED_MPS, MAX_SPEED_MPS, "m/s");

/// A count or size of at least `min`.
pub(super) fn count(min: u64) -> Range {
    Range::closed(min as f64, MAX_COUNT, "")
}

pub(super) fn bytes(min: u64) -> Range {
    Range::closed(min as f64, MAX_BYTES, "bytes")
}

/// A config value that can be range-checked: compared as an f64, shown as written.
pub(super) trait Quantity: Copy {
    fn value(self) -> f64;
    fn shown(self) -> String;
}

impl Quantity for f64 {
    fn value(self) -> f64 {
        self
    }

    fn shown(self) -> String {
        Number(self).to_string()
    }
}

macro_rules! integer_quantity {
    ($($t:ty),*) => {$(
        impl Quantity for $t {
            fn value(self) -> f64 {
                self as f64
            }

            fn shown(self) -> String {
                self.to_string()
            }
        }
    )*};
}
integer_quantity!(u8, u32, u64, usize);

/// The one range check: `path` must hold a value in `range` (NaN never is).
pub(super) fn check(path: &str, v: impl Quantity, range: Range) -> Check {
    note_limit(path, || range.to_string());
    if range.contains(v.value()) {
        Ok(())
    } else {
        Err(ConfigError::invalid(
            path,
            format!("must be in {range}, got {}", v.shown()),
        ))
    }
}

/// How many entries a list may have.
pub(super) fn at_most(path: &str, len: usize, max: usize, what: &str) -> Check {
    note_limit(path, || format!("at most {max} {what}"));
    if len <= max {
        Ok(())
    } else {
        Err(ConfigError::invalid(
            path,
            format!("at most {max} {what}, got {len}"),
        ))
    }
}

thread_local! {
    /// The limits [`check`] and [`at_most`] apply, by key pattern, while
    /// [`limits_checked`] watches a validation; `None` otherwise.
    static LIMITS: RefCell<Option<BTreeMap<String, String>>> = const { RefCell::new(None) };
}

/// Every limit the validator applies while `validate` runs, as the error messages
/// write it (`[1e3, 1e13] b/s`), keyed by the key's path with list indices left
/// out (`flows[].rate_bps`). The checks themselves are the only list of ranges:
/// the config reference (docs/config.md) reads them this way. A key checked twice
/// keeps its last limit, the stricter one in this validator.
pub(super) fn limits_checked(validate: impl FnOnce()) -> BTreeMap<String, String> {
    LIMITS.with_borrow_mut(|limits| *limits = Some(BTreeMap::new()));
    validate();
    LIMITS.with_borrow_mut(|limits| limits.take().unwrap_or_default())
}

fn note_limit(path: &str, limit: impl FnOnce() -> String) {
    LIMITS.with_borrow_mut(|limits| {
        if let Some(limits) = limits {
            limits.insert(key_pattern(path), limit());
        }
    });
}

/// A key path without its list indices: `radio.ues[0].legs[1].at_s` ->
/// `radio.ues[].legs[].at_s`.
fn key_pattern(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut in_index = false;
    for c in path.chars() {
        match c {
            '[' => {
                in_index = true;
                out.push_str("[]");
            }
            ']' => in_index = false,
            _ if !in_index => out.push(c),
            _ => {}
        }
    }
    out
}

/// The values of a parsed `path.trace` the engine needs in range (the parser checks
/// only the format); the message names `path.trace`, the file and the key at fault.
pub(super) fn check_link_trace(file: &str, trace: &LinkTrace) -> Check {
    let buffer = trace.buffer_bytes.map_or(0.0, |b| b as f64);
    let reverse_rate = trace.reverse_rate_bps.unwrap_or(MIN_RATE_BPS);
    let values = [
        ("slot_s", trace.slot_s, PERIOD),
        ("forward_delay_s", trace.forward_delay_s, TIME),
        ("reverse_delay_s", trace.reverse_delay_s, TIME),
        (
            "buffer_bytes",
            buffer,
            Range::closed(0.0, MAX_BYTES, "bytes"),
        ),
        ("reverse_rate_bps", reverse_rate, RATE),
    ];
    for (key, value, range) in values {
        if !range.contains(value) {
            return Err(ConfigError::invalid(
                "path.trace",
                format!("{file}: {key} must be in {range}, got {}", Number(value)),
            ));
        }
    }
    Ok(())
}

impl Config {
    pub(crate) fn validate(&self) -> Check {
        check("duration_s", self.duration_s, DURATION)?;
        self.validate_path()?;
        self.validate_tcp()?;
        if self.flows.is_empty() {
            return Err(ConfigError::invalid(
                "flows",
                "at least one [[flows]] entry is required",
            ));
        }
        at_most("flows", self.flows.len(), MAX_FLOWS, "flows")?;
        for (i, f) in self.flows.iter().enumerate() {
            self.validate_flow(i, f)?;
        }
        match &self.radio {
            Some(radio) => radio.validate(&self.flows)?,
            None => {
                if let Some(i) = self.flows.iter().position(|f| f.ue != 0) {
                    return Err(ConfigError::invalid(
                        format!("flows[{i}].ue"),
                        "applies only to scenarios with [radio]",
                    ));
                }
            }
        }
        self.validate_trace()
    }

    fn validate_path(&self) -> Check {
        let p = &self.path;
        check("path.rate_bps", p.rate_bps, RATE)?;
        if p.reverse_rate_bps != 0.0 && !RATE.contains(p.reverse_rate_bps) {
            let message = format!(
                "must be 0 (the same as path.rate_bps) or in {RATE}, got {}",
                Number(p.reverse_rate_bps)
            );
            return Err(ConfigError::invalid("path.reverse_rate_bps", message));
        }
        check("path.one_way_delay_s", p.one_way_delay_s, TIME)?;
        let min_mtu = self.tcp.mss_bytes as u64 + HEADER_BYTES as u64;
        if p.mtu_bytes > 65_535 {
            return Err(ConfigError::invalid(
                "path.mtu_bytes",
                format!(
                    "must be at most 65535 (an IPv4 packet), got {}",
                    p.mtu_bytes
                ),
            ));
        }
        if (p.mtu_bytes as u64) < min_mtu {
            return Err(ConfigError::invalid(
                "path.mtu_bytes",
                format!(
                    "must hold tcp.mss_bytes plus {HEADER_BYTES} header bytes (>= {min_mtu}), got {}",
                    p.mtu_bytes
                ),
            ));
        }
        self.validate_buffer()?;
        check("path.loss.per_byte", p.loss.per_byte, PROBABILITY)?;
        check("path.loss.per_packet", p.loss.per_packet, PROBABILITY)?;
        if let Some(ge) = &p.loss.gilbert_elliott {
            check(
                "path.loss.gilbert_elliott.p_good_to_bad",
                ge.p_good_to_bad,
                PROBABILITY,
            )?;
            check(
                "path.loss.gilbert_elliott.p_bad_to_good",
                ge.p_bad_to_good,
                PROBABILITY,
            )?;
            check(
                "path.loss.gilbert_elliott.loss_good",
                ge.loss_good,
                PROBABILITY,
            )?;
            check(
                "path.loss.gilbert_elliott.loss_bad",
                ge.loss_bad,
                PROBABILITY,
            )?;
        }
        Ok(())
    }

    /// Exactly one of `buffer_bytes` and `buffer_packets` limits the queue; the
    /// other is 0.
    fn validate_buffer(&self) -> Check {
        let p = &self.path;
        match (p.buffer_bytes, p.buffer_packets) {
            (0, 0) => Err(ConfigError::invalid(
                "path.buffer_bytes",
                "set path.buffer_bytes or path.buffer_packets (both are 0)",
            )),
            (_, 0) => check(
                "path.buffer_bytes",
                p.buffer_bytes,
                bytes(p.mtu_bytes as u64),
            ),
            (0, _) => check("path.buffer_packets", p.buffer_packets, count(1)),
            (b, n) => Err(ConfigError::invalid(
                "path.buffer_packets",
                format!(
                    "set path.buffer_bytes ({b}) or path.buffer_packets ({n}), not both: set the other to 0"
                ),
            )),
        }
    }

    fn validate_tcp(&self) -> Check {
        let t = &self.tcp;
        super::stack::get(&t.stack)?;
        check("tcp.mss_bytes", t.mss_bytes, bytes(1))?;
        check(
            "tcp.initial_cwnd_segments",
            t.initial_cwnd_segments,
            count(1),
        )?;
        if let Some(s) = t.initial_ssthresh_segments {
            check("tcp.initial_ssthresh_segments", s, count(2))?;
        }
        check("tcp.min_rto_s", t.min_rto_s, DURATION)?;
        check("tcp.initial_rto_s", t.initial_rto_s, DURATION)?;
        check(
            "tcp.max_rto_s",
            t.max_rto_s,
            Range::closed(t.min_rto_s, MAX_TIME_S, "s (from tcp.min_rto_s)"),
        )?;
        check("tcp.dupthresh", t.dupthresh, count(1))?;
        check("tcp.pacing_burst_s", t.pacing_burst_s, TIME)?;
        check(
            "tcp.rtt_granularity_s",
            t.rtt_granularity_s,
            Range::closed(0.0, 1.0, "s (0: exact, 0.001: ns-3's milliseconds)"),
        )?;
        check("tcp.ack_every_segments", t.ack_every_segments, count(1))?;
        check(
            "tcp.delayed_ack_timeout_s",
            t.delayed_ack_timeout_s,
            DURATION,
        )?;
        check("tcp.quickack_segments", t.quickack_segments, count(0))?;
        check("tcp.syn_timeout_s", t.syn_timeout_s, DURATION)?;
        check(
            "tcp.snd_buf_bytes",
            t.snd_buf_bytes,
            bytes(t.mss_bytes as u64),
        )?;
        check(
            "tcp.rcv_buf_bytes",
            t.rcv_buf_bytes,
            bytes(t.mss_bytes as u64),
        )?;
        Ok(())
    }

    /// The trace settings, last: the sample cap counts the flows', links' and UEs'
    /// rows, and is what an interval too short for the duration meets first.
    fn validate_trace(&self) -> Check {
        check(
            "trace.max_events",
            self.trace.max_events,
            Range::closed(0.0, MAX_EVENTS, "events"),
        )?;
        check(
            "trace.interval_s",
            self.trace.interval_s,
            Range::above(0.0, MAX_TIME_S, "s"),
        )?;
        self.validate_trace_size()?;
        check("trace.interval_s", self.trace.interval_s, PERIOD)
    }

    /// The sampled time series stay within [`MAX_SAMPLED_ROWS`]: a run that would
    /// need more memory for its traces is refused before it allocates any.
    fn validate_trace_size(&self) -> Check {
        let rows = TraceRows::of(self);
        if rows.sampled() <= MAX_SAMPLED_ROWS {
            return Ok(());
        }
        let per_sample = rows.sampled() / rows.samples;
        Err(ConfigError::invalid(
            "trace.interval_s",
            format!(
                "{} s gives {} samples x {per_sample} rows = {} trace rows over duration_s = {}, more than the {} allowed: \
                 use a longer interval (at least {} s)",
                Number(self.trace.interval_s),
                Number(rows.samples),
                Number(rows.sampled()),
                Number(self.duration_s),
                Number(MAX_SAMPLED_ROWS),
                Number(self.duration_s * per_sample / MAX_SAMPLED_ROWS),
            ),
        ))
    }

    fn validate_flow(&self, i: usize, f: &super::FlowConfig) -> Check {
        let key = |k: &str| format!("flows[{i}].{k}");
        if f.app != AppKind::Udp {
            let params = f.cc.clone().unwrap_or(serde_json::Value::Null);
            crate::cc::build(&f.cca, &params).map_err(|e| {
                let path = if e.starts_with("unknown algorithm") {
                    key("cca")
                } else {
                    key("cc")
                };
                ConfigError::invalid(path, super::plain_words(&e))
            })?;
        }
        let needs_rate = matches!(f.app, AppKind::Rate | AppKind::Onoff | AppKind::Udp);
        match (needs_rate, f.rate_bps) {
            (true, None) => {
                return Err(ConfigError::invalid(
                    key("rate_bps"),
                    format!("required for app = \"{}\"", f.app.as_str()),
                ));
            }
            (true, Some(r)) => check(&key("rate_bps"), r, RATE)?,
            (false, Some(_)) => {
                return Err(ConfigError::invalid(
                    key("rate_bps"),
                    "applies only to app = \"rate\", \"onoff\" or \"udp\"",
                ));
            }
            (false, None) => {}
        }
        if let Some(w) = f.write_bytes {
            if f.app == AppKind::Bulk {
                return Err(ConfigError::invalid(
                    key("write_bytes"),
                    "applies only to app = \"rate\", \"onoff\" or \"udp\"",
                ));
            }
            check(&key("write_bytes"), w, bytes(1))?;
            if f.app == AppKind::Udp && w + HEADER_BYTES > self.path.mtu_bytes {
                return Err(ConfigError::invalid(
                    key("write_bytes"),
                    format!(
                        "a UDP datagram must fit path.mtu_bytes ({}) with headers",
                        self.path.mtu_bytes
                    ),
                ));
            }
        }
        let is_onoff = f.app == AppKind::Onoff;
        for (name, v) in [("on_s", f.on_s), ("off_s", f.off_s)] {
            match (is_onoff, v) {
                (true, None) => {
                    return Err(ConfigError::invalid(
                        key(name),
                        "required for app = \"onoff\"",
                    ));
                }
                (true, Some(v)) => check(&key(name), v, DURATION)?,
                (false, Some(_)) => {
                    return Err(ConfigError::invalid(
                        key(name),
                        "applies only to app = \"onoff\"",
                    ));
                }
                (false, None) => {}
            }
        }
        if f.period_distribution.is_some() && !is_onoff {
            return Err(ConfigError::invalid(
                key("period_distribution"),
                "applies only to app = \"onoff\"",
            ));
        }
        check(&key("start_s"), f.start_s, TIME)?;
        if f.start_s >= self.duration_s {
            return Err(ConfigError::invalid(
                key("start_s"),
                format!(
                    "must be before the end of the run (duration_s = {}), got {}: the flow would send nothing",
                    self.duration_s, f.start_s
                ),
            ));
        }
        if let Some(stop) = f.stop_s {
            check(&key("stop_s"), stop, TIME)?;
            // `check` has rejected NaN, so `<=` is the complete negation of `>`.
            if stop <= f.start_s {
                return Err(ConfigError::invalid(
                    key("stop_s"),
                    format!("must be after start_s ({}), got {stop}", f.start_s),
                ));
            }
        }
        check(&key("access_delay_s"), f.access_delay_s, TIME)?;
        if let Some(r) = f.access_rate_bps {
            check(&key("access_rate_bps"), r, RATE)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::builtin;
    use super::MAX_FLOWS;
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
    fn a_path_trace_is_loaded_or_refused_naming_the_key_and_the_file() {
        let dir = std::env::temp_dir().join(format!("wavecc-path-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.csv");
        std::fs::write(
            &good,
            "# wavecc link trace 1\n# slot_s = 0.001\nt_s,bytes\n0,1500\n",
        )
        .unwrap();
        let tiny = dir.join("tiny.csv");
        std::fs::write(
            &tiny,
            "# wavecc link trace 1\n# slot_s = 1e-9\nt_s,bytes\n0,1\n",
        )
        .unwrap();
        let loaded = Config::from_toml(&with(&format!("trace = {:?}", good.display())));
        let refused_tiny = err(&with(&format!("trace = {:?}", tiny.display())));
        std::fs::remove_dir_all(&dir).unwrap();
        let link = loaded.unwrap().path.trace_link.expect("loaded");
        assert_eq!(link.bytes, vec![1500]);
        assert_eq!(
            err(&with("trace = \"/nonexistent/t.csv\"")),
            "path.trace: /nonexistent/t.csv: no such file"
        );
        assert!(err(&with("trace = \"\"")).starts_with("path.trace: must name"));
        assert!(
            refused_tiny.starts_with("path.trace: ")
                && refused_tiny.ends_with("tiny.csv: slot_s must be in [1e-6, 1e6] s, got 1e-9"),
            "{refused_tiny}"
        );
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
        assert!(
            e.contains("path") && e.contains("rate_bsp") && e.contains("rate_bps"),
            "{e}"
        );
    }

    #[test]
    fn negative_rate_is_rejected() {
        let e = err(&with("rate_bps = -5").replacen("rate_bps = 1e9\n", "", 1));
        assert_eq!(e, "path.rate_bps: must be in [1e3, 1e13] b/s, got -5");
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
        assert!(
            e.starts_with("flows[0].cca: unknown algorithm 'warp'"),
            "{e}"
        );
    }

    #[test]
    fn loss_outside_unit_interval_is_rejected() {
        let e = err("[path.loss]\nper_byte = 1.5\n[[flows]]\n");
        assert_eq!(e, "path.loss.per_byte: must be in [0, 1], got 1.5");
    }

    #[test]
    fn app_specific_keys_are_checked() {
        assert!(err("[[flows]]\napp = \"rate\"\n").starts_with("flows[0].rate_bps: required"));
        assert!(err("[[flows]]\nrate_bps = 1e6\n").starts_with("flows[0].rate_bps: applies only"));
        assert!(
            err("[[flows]]\napp = \"onoff\"\nrate_bps = 1e6\non_s = 1\n")
                .starts_with("flows[0].off_s: required")
        );
    }

    #[test]
    fn rtt_clock_keys_are_checked() {
        let e = err("[tcp]\nrtt_granularity_s = -0.001\n[[flows]]\n");
        assert!(
            e.starts_with("tcp.rtt_granularity_s: must be in [0, 1] s"),
            "{e}"
        );
        let e = err("[tcp]\nrtt_granularity_s = 2\n[[flows]]\n");
        assert!(
            e.starts_with("tcp.rtt_granularity_s: must be in [0, 1]"),
            "{e}"
        );
        let e = err("[tcp]\ncc_rtt = \"srtt\"\n[[flows]]\n");
        assert!(
            e.contains("cc_rtt") && e.contains("sample") && e.contains("smoothed"),
            "{e}"
        );
        let c = Config::from_toml(
            "[tcp]\nrtt_granularity_s = 0.001\ncc_rtt = \"smoothed\"\n[[flows]]\n",
        )
        .unwrap();
        assert_eq!(
            (c.tcp.rtt_granularity_s, c.tcp.cc_rtt),
            (0.001, crate::tcp::CcRtt::Smoothed)
        );
    }

    #[test]
    fn recovery_names_its_choices() {
        let e = err("[tcp]\nrecovery = \"rfc5681\"\n[[flows]]\n");
        assert!(
            e.contains("recovery") && e.contains("prr") && e.contains("classic"),
            "{e}"
        );
        let e = err("[tcp]\nrecovery_sends = \"ns3-3.30\"\n[[flows]]\n");
        assert!(e.contains("ns3-3.29"), "{e}");
        let c = Config::from_toml(
            "[tcp]\nrecovery = \"classic\"\nrecovery_sends = \"ns3-3.29\"\n[[flows]]\n",
        )
        .unwrap();
        assert_eq!(c.tcp.recovery, crate::tcp::Recovery::Classic);
        assert_eq!(c.tcp.recovery_sends, crate::tcp::RecoverySends::Ns3v329);
        let e = err("[tcp]\npartial_ack_rto = \"impatient\"\n[[flows]]\n");
        assert!(
            e.contains("partial_ack_rto") && e.contains("every") && e.contains("first"),
            "{e}"
        );
    }

    #[test]
    fn ns3_socket_switches_name_their_choices() {
        for key in ["receive_window", "recovery_sends", "rate_samples", "pipe"] {
            let e = err(&format!("[tcp]\n{key} = \"ns-3\"\n[[flows]]\n"));
            assert!(
                e.contains(key) && e.contains("linux") && e.contains("ns3"),
                "{e}"
            );
        }
        let c = Config::from_toml("[tcp]\nreceive_window = \"ns3\"\nrecovery_sends = \"ns3\"\nrate_samples = \"ns3\"\npipe = \"ns3\"\n[[flows]]\n").unwrap();
        assert_eq!(c.tcp.receive_window, crate::tcp::ReceiveWindow::Ns3);
        assert_eq!(c.tcp.recovery_sends, crate::tcp::RecoverySends::Ns3);
        assert_eq!(c.tcp.rate_samples, crate::tcp::RateSamples::Ns3);
        assert_eq!(c.tcp.pipe, crate::tcp::Pipe::Ns3);
        assert_eq!(
            Config::from_toml("[[flows]]\n").unwrap().tcp.pipe,
            crate::tcp::Pipe::Linux
        );
    }

    #[test]
    fn mtu_must_hold_a_segment() {
        let e = err("[path]\nmtu_bytes = 1000\n[[flows]]\n");
        assert!(
            e.starts_with("path.mtu_bytes: must hold tcp.mss_bytes"),
            "{e}"
        );
    }

    #[test]
    fn json_errors_name_the_key_without_json_positions() {
        let e = Config::from_json(r#"{"path": {"rate_bsp": 1}, "flows": [{}]}"#)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("path.rate_bsp: unknown field `rate_bsp`"),
            "{e}"
        );
        assert!(!e.contains("line"), "{e}");
        let e = Config::from_json(r#"{"duration_s": 1}"#)
            .unwrap_err()
            .to_string();
        assert_eq!(e, "missing field `flows`");
    }

    #[test]
    fn json_and_toml_give_the_same_config() {
        let c = Config::from_toml(builtin::get("dumbbell-1g").unwrap()).unwrap();
        assert_eq!(Config::from_json(&c.to_json()).unwrap(), c);
    }

    /// Parses `dumbbell-1g` with `overrides` (`key.path = TOML value`, list indices
    /// as numbers: `flows.0.cca`) set in its tables.
    fn dumbbell(overrides: &[&str]) -> Result<Config, String> {
        let mut config: toml::Value =
            toml::Value::Table(builtin::get("dumbbell-1g").unwrap().parse().unwrap());
        for line in overrides {
            let (key, value) = line.split_once(" = ").unwrap();
            let value = format!("v = {value}")
                .parse::<toml::Table>()
                .unwrap()
                .remove("v")
                .unwrap();
            set(&mut config, &key.split('.').collect::<Vec<_>>(), value);
        }
        Config::from_toml(&toml::to_string(&config).unwrap()).map_err(|e| e.to_string())
    }

    fn set(at: &mut toml::Value, keys: &[&str], value: toml::Value) {
        let (first, rest) = keys.split_first().unwrap();
        let child = match at {
            toml::Value::Array(items) => &mut items[first.parse::<usize>().unwrap()],
            toml::Value::Table(table) if rest.is_empty() => {
                table.insert(first.to_string(), value);
                return;
            }
            toml::Value::Table(table) => table
                .entry(*first)
                .or_insert_with(|| toml::Value::Table(Default::default())),
            _ => panic!("{first} is not a table or a list"),
        };
        set(child, rest, value);
    }

    fn rejects(overrides: &[&str], expected: &str) {
        let e = dumbbell(overrides).unwrap_err();
        assert_eq!(e, expected);
    }

    #[test]
    fn times_above_the_engines_maximum_are_rejected() {
        // 1.9e10 s used to wrap to about 0 ns and run silently.
        rejects(
            &["path.one_way_delay_s = 1.9e10"],
            "path.one_way_delay_s: must be in [0, 1e6] s, got 1.9e10",
        );
        rejects(
            &["tcp.delayed_ack_timeout_s = 1.9e10"],
            "tcp.delayed_ack_timeout_s: must be in [1e-9, 1e6] s, got 1.9e10",
        );
        rejects(
            &["duration_s = 1e7"],
            "duration_s: must be in [1e-9, 1e6] s, got 1e7",
        );
        rejects(
            &["flows.0.access_delay_s = 2e6"],
            "flows[0].access_delay_s: must be in [0, 1e6] s, got 2e6",
        );
        rejects(
            &["tcp.max_rto_s = 1e12"],
            "tcp.max_rto_s: must be in [1, 1e6] s (from tcp.min_rto_s), got 1e12",
        );
        rejects(
            &["tcp.initial_rto_s = 1e-12"],
            "tcp.initial_rto_s: must be in [1e-9, 1e6] s, got 1e-12",
        );
        assert!(dumbbell(&["path.one_way_delay_s = 1e6"]).is_ok());
    }

    #[test]
    fn rto_bounds_at_the_maximum_run_to_the_end() {
        // RTO values this large used to overflow and hang a 0.2 s run.
        let c = dumbbell(&[
            "duration_s = 0.2",
            "tcp.min_rto_s = 1e6",
            "tcp.max_rto_s = 1e6",
            "tcp.initial_rto_s = 1e6",
        ])
        .unwrap();
        let out = crate::run(&c);
        assert_eq!(out.summary.sim_time_s, 0.2);
        assert!(out.summary.flows[0].bytes_delivered > 0);
    }

    #[test]
    fn rates_sizes_and_counts_have_ranges() {
        rejects(
            &["path.rate_bps = 1e20"],
            "path.rate_bps: must be in [1e3, 1e13] b/s, got 1e20",
        );
        rejects(
            &["path.reverse_rate_bps = 5"],
            "path.reverse_rate_bps: must be 0 (the same as path.rate_bps) or in [1e3, 1e13] b/s, got 5",
        );
        rejects(
            &["tcp.snd_buf_bytes = 100000000000"],
            "tcp.snd_buf_bytes: must be in [1400, 1e10] bytes, got 100000000000",
        );
        rejects(
            &["tcp.initial_cwnd_segments = 4000000"],
            "tcp.initial_cwnd_segments: must be in [1, 1e6], got 4000000",
        );
        rejects(
            &["trace.max_events = 100000000"],
            "trace.max_events: must be in [0, 1e7] events, got 100000000",
        );
        // Below a microsecond, even when the samples are few.
        rejects(
            &["duration_s = 1e-5", "trace.interval_s = 1e-7"],
            "trace.interval_s: must be in [1e-6, 1e6] s, got 1e-7",
        );
        rejects(
            &["trace.interval_s = nan"],
            "trace.interval_s: must be in (0, 1e6] s, got NaN",
        );
    }

    #[test]
    fn the_sampled_rows_are_capped_before_anything_is_allocated() {
        // 1e-6 s over 60 s: 6e7 samples of a flow, two queues and CUBIC's 7 variables.
        let e = dumbbell(&["trace.interval_s = 1e-6"]).unwrap_err();
        assert_eq!(
            e,
            "trace.interval_s: 1e-6 s gives 6e7 samples x 10 rows = 6e8 trace rows over duration_s = 60, \
             more than the 5e6 allowed: use a longer interval (at least 1.2e-4 s)"
        );
        // 1e-9 s used to abort the core on its allocation: 6e10 samples, refused with the count.
        let e = dumbbell(&["trace.interval_s = 1e-9"]).unwrap_err();
        assert!(
            e.starts_with(
                "trace.interval_s: 1e-9 s gives 6e10 samples x 10 rows = 6e11 trace rows"
            ),
            "{e}"
        );
        assert!(dumbbell(&["trace.interval_s = 0.00012"]).is_ok());
        assert!(dumbbell(&["trace.interval_s = 0.00011"]).is_err());
    }

    #[test]
    fn flows_are_capped() {
        let flows = "[[flows]]\n".repeat(MAX_FLOWS + 1);
        let e = err(&format!("duration_s = 1\n{flows}"));
        assert_eq!(
            e,
            format!("flows: at most {MAX_FLOWS} flows, got {}", MAX_FLOWS + 1)
        );
    }

    #[test]
    fn exactly_one_buffer_limit() {
        rejects(
            &["path.buffer_packets = 100"],
            "path.buffer_packets: set path.buffer_bytes (2500000) or path.buffer_packets (100), not both: set the other to 0",
        );
        rejects(
            &["path.buffer_bytes = 0"],
            "path.buffer_bytes: set path.buffer_bytes or path.buffer_packets (both are 0)",
        );
        let c = dumbbell(&["path.buffer_bytes = 0", "path.buffer_packets = 100"]).unwrap();
        assert_eq!((c.path.buffer_bytes, c.path.buffer_packets), (0, 100));
    }

    #[test]
    fn a_flow_must_start_before_the_run_ends() {
        rejects(
            &["flows.0.start_s = 60"],
            "flows[0].start_s: must be before the end of the run (duration_s = 60), got 60: the flow would send nothing",
        );
        assert!(dumbbell(&["flows.0.start_s = 59.9"]).is_ok());
        // Stopping after the end is fine: the run ends first.
        assert!(dumbbell(&["flows.0.stop_s = 100"]).is_ok());
    }

    #[test]
    fn serde_messages_use_plain_words_and_one_key_path_style() {
        let json = |text: &str| Config::from_json(text).unwrap_err().to_string();
        assert_eq!(
            json(r#"{"path": 5, "flows": [{}]}"#),
            "path: invalid type: integer `5`, expected a table"
        );
        assert_eq!(
            json(r#"{"flows": [{"cc": 5}]}"#),
            "flows[0].cc: invalid type: integer `5`, expected a table"
        );
        assert_eq!(
            json(r#"{"flows": [{"ue": -1}]}"#),
            "flows[0].ue: invalid value: integer `-1`, expected a whole number from 0 to 4294967295"
        );
        assert_eq!(
            json(r#"{"duration_s": "x", "flows": [{}]}"#),
            "duration_s: invalid type: string \"x\", expected a number"
        );
        assert_eq!(
            json(r#"{"flows": {}}"#),
            "flows: invalid type: table, expected a list"
        );
        let radio = r#"{"radio": {"ues": [{"position": [0, 0, 1.5], "legs": [{"at_s": 0, "velocity": [1, 0]}]}]}, "flows": [{}]}"#;
        assert_eq!(
            json(radio),
            "radio.ues[0].legs[0].velocity: invalid length 2, expected an array of length 3"
        );
        let toml = err("[[flows]]\ncc = 5\n");
        assert_eq!(
            toml,
            "flows[0].cc: invalid type: integer `5`, expected a table"
        );
        // A key with a newline (found by the fuzzer) stays on one line.
        assert_eq!(json("{\"flows\": [{}], \"a\\nb\": 1}").lines().count(), 1);
        assert_eq!(json("{\"flows\": [{\"x\\n\": {}}]}").lines().count(), 1);
    }
}
