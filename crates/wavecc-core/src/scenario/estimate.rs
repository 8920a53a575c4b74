//! What a run will hold in memory, from its config alone: the rows each trace gets
//! and the bytes they take as the trace structs hold them, plus the per-flow state
//! that grows with the flow count. Validation caps the sampled rows with it, and the
//! binding exposes the bytes so that a caller can refuse a run before it starts.

use super::{AppKind, Config};
use crate::tcp::SegInfo;
use crate::trace::{
    CC_ROW_BYTES, EVENT_ROW_BYTES, FLOW_ROW_BYTES, QUEUE_ROW_BYTES, RttStats, UE_ROW_BYTES,
};
use std::mem::size_of;

/// Rows each trace gets over a whole run. Floats, so that an absurd config counts
/// without overflowing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TraceRows {
    /// Sampling instants: one every `trace.interval_s`, and one at the end.
    pub samples: f64,
    pub flows: f64,
    pub queues: f64,
    /// The algorithms' variables as they export them at the start (DTCP adds its two
    /// SINR variables once the radio reports one: not counted).
    pub cc: f64,
    pub ues: f64,
    /// The event log's bound, `trace.max_events` (0 with the log off): a run logs as
    /// many as its losses and recoveries, which only running it tells.
    pub events: f64,
}

impl TraceRows {
    pub fn of(cfg: &Config) -> Self {
        let samples = (cfg.duration_s / cfg.trace.interval_s).ceil();
        let per_sample = SeriesPerSample::of(cfg);
        TraceRows {
            samples,
            flows: samples * per_sample.flows as f64,
            queues: samples * per_sample.queues as f64,
            cc: samples * per_sample.cc_vars as f64,
            ues: samples * per_sample.ues as f64,
            events: if cfg.trace.events {
                cfg.trace.max_events as f64
            } else {
                0.0
            },
        }
    }

    /// Rows of the sampled time series, the ones `trace.interval_s` multiplies.
    pub fn sampled(&self) -> f64 {
        self.flows + self.queues + self.cc + self.ues
    }

    pub fn bytes(&self) -> f64 {
        self.flows * FLOW_ROW_BYTES as f64
            + self.queues * QUEUE_ROW_BYTES as f64
            + self.cc * CC_ROW_BYTES as f64
            + self.ues * UE_ROW_BYTES as f64
            + self.events * EVENT_ROW_BYTES as f64
    }
}

/// Rows appended at each sampling instant.
struct SeriesPerSample {
    flows: usize,
    /// Every link: the path's two, the radio's two S1-U links, two per access link.
    queues: usize,
    cc_vars: usize,
    ues: usize,
}

impl SeriesPerSample {
    fn of(cfg: &Config) -> Self {
        let access_links = cfg
            .flows
            .iter()
            .filter(|f| f.access_delay_s > 0.0 || f.access_rate_bps.is_some())
            .count();
        let radio_links = if cfg.radio.is_some() { 2 } else { 0 };
        SeriesPerSample {
            flows: cfg.flows.len(),
            queues: 2 + radio_links + 2 * access_links,
            cc_vars: cfg
                .flows
                .iter()
                .filter(|f| f.app != AppKind::Udp)
                .map(|f| exported_variables(&f.cca, f.cc.as_ref()))
                .sum(),
            ues: cfg.radio.as_ref().map_or(0, |r| r.ues.len()),
        }
    }
}

/// How many variables an algorithm exports per sample (0 for an unknown one).
fn exported_variables(cca: &str, params: Option<&serde_json::Value>) -> usize {
    let mut vars = Vec::new();
    if let Ok(cc) = crate::cc::build(cca, params.unwrap_or(&serde_json::Value::Null)) {
        cc.state(&mut vars);
    }
    vars.len()
}

/// Per TCP flow, what grows with the flow count: its RTT histogram, and its
/// scoreboard at the most segments the send buffer lets it have in flight.
fn tcp_flow_state_bytes(cfg: &Config) -> f64 {
    let segments = cfg.tcp.snd_buf_bytes as f64 / cfg.tcp.mss_bytes.max(1) as f64;
    RttStats::max_heap_bytes() as f64 + segments * size_of::<SegInfo>() as f64
}

/// The core's estimate, in bytes, of the peak memory a run of `cfg` takes: the
/// traces (the event log at its bound) and the per-flow state. It counts what the
/// core holds, not the copies a caller makes of the output (JSON text, DataFrames).
pub fn estimate_memory(cfg: &Config) -> u64 {
    let tcp_flows = cfg.flows.iter().filter(|f| f.app != AppKind::Udp).count() as f64;
    let bytes = TraceRows::of(cfg).bytes() + tcp_flows * tcp_flow_state_bytes(cfg);
    bytes as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::builtin;

    fn config(id: &str, duration_s: f64, interval_s: f64) -> Config {
        let mut c = Config::from_toml(builtin::get(id).unwrap()).unwrap();
        c.duration_s = duration_s;
        c.trace.interval_s = interval_s;
        c
    }

    /// The row counts are exact for the sampled series, and the bytes the run's
    /// traces hold (their capacity, up to twice their length) are within a factor 2
    /// of the estimate.
    fn check(cfg: &Config) {
        let rows = TraceRows::of(cfg);
        let out = crate::run(cfg);
        assert_eq!(rows.flows, out.flows.t_s.len() as f64);
        assert_eq!(rows.queues, out.queues.t_s.len() as f64);
        assert_eq!(rows.cc, out.cc.t_s.len() as f64);
        assert_eq!(rows.ues, out.ues.t_s.len() as f64);
        assert!(out.events.t_s.len() as f64 <= rows.events);
        let held = out.flows.heap_bytes()
            + out.queues.heap_bytes()
            + out.cc.heap_bytes()
            + out.ues.heap_bytes();
        let estimated = rows.bytes() - rows.events * EVENT_ROW_BYTES as f64;
        let ratio = held as f64 / estimated;
        assert!(
            (0.9..=2.0).contains(&ratio),
            "held {held} bytes, estimated {estimated}: ratio {ratio}"
        );
        let per_row = out.flows.heap_bytes() as f64 / out.flows.t_s.len() as f64;
        assert!(
            per_row >= FLOW_ROW_BYTES as f64,
            "a flow row holds {per_row} bytes, counted {FLOW_ROW_BYTES}"
        );
        assert!(estimate_memory(cfg) as f64 >= estimated + rows.events * EVENT_ROW_BYTES as f64);
    }

    #[test]
    fn estimate_matches_a_wired_run_with_access_links() {
        // TCP and UDP flows, two behind their own access links; 0.35 s leaves a last,
        // shorter sample.
        let text = "duration_s = 0.35\ntrace.interval_s = 0.01\n\
            [[flows]]\ncca = \"cubic\"\n\
            [[flows]]\ncca = \"bbr\"\naccess_delay_s = 0.005\n\
            [[flows]]\napp = \"udp\"\nrate_bps = 1e8\naccess_rate_bps = 1e9\n";
        check(&Config::from_toml(text).unwrap());
    }

    #[test]
    fn estimate_matches_a_radio_run() {
        check(&config("fbtcp-1", 0.2, 0.001));
    }

    #[test]
    fn estimate_grows_with_flows_duration_and_the_event_bound() {
        let base = config("dumbbell-1g", 10.0, 0.1);
        let longer = config("dumbbell-1g", 20.0, 0.1);
        let mut no_events = base.clone();
        no_events.trace.events = false;
        let sampled = |c: &Config| TraceRows::of(c).sampled();
        assert_eq!(sampled(&longer), 2.0 * sampled(&base));
        let events = (base.trace.max_events as usize * EVENT_ROW_BYTES) as u64;
        assert_eq!(estimate_memory(&base) - estimate_memory(&no_events), events);
        // A flow costs at least its RTT histogram (20 buckets of 1024 counters).
        let mut two = base.clone();
        two.flows.push(two.flows[0].clone());
        assert!(estimate_memory(&two) - estimate_memory(&base) > 20 * 1024 * 8);
    }
}
