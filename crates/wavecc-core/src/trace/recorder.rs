//! Recording while the simulation runs: the event log, per-flow interval
//! accumulators, and the sampler that appends one row per flow and per queue at
//! every sampling instant.

use super::{CcTrace, EventTrace, FlowTrace, QueueTrace};
use crate::engine::{Time, to_secs};

/// The event log, bounded so that a pathological run cannot exhaust memory.
#[derive(Debug, Default)]
pub struct EventLog {
    enabled: bool,
    max: u64,
    pub trace: EventTrace,
    /// Events not logged because the bound was reached.
    pub truncated: u64,
}

impl EventLog {
    pub fn new(enabled: bool, max: u64) -> Self {
        Self {
            enabled,
            max,
            ..Default::default()
        }
    }

    pub fn log(
        &mut self,
        now: Time,
        flow: u32,
        kind: &'static str,
        detail: &'static str,
        seq: Option<u64>,
    ) {
        if !self.enabled {
            return;
        }
        if self.trace.t_s.len() as u64 >= self.max {
            self.truncated += 1;
            return;
        }
        let t = &mut self.trace;
        t.t_s.push(to_secs(now));
        t.flow.push(flow);
        t.kind.push(kind);
        t.detail.push(detail);
        t.seq.push(seq.map_or(-1, |s| s as i64));
    }
}

/// What a flow accumulates between two samples.
#[derive(Debug, Default, Clone)]
pub struct FlowSampler {
    rtt_sum_ns: u128,
    rtt_samples: u32,
    retransmits: u32,
    /// Application bytes delivered at the previous sample.
    bytes_at_last_sample: u64,
}

impl FlowSampler {
    pub fn record_rtt(&mut self, rtt_ns: Time) {
        self.rtt_sum_ns += rtt_ns as u128;
        self.rtt_samples += 1;
    }

    pub fn record_retransmit(&mut self) {
        self.retransmits += 1;
    }
}

/// One flow's state at a sampling instant.
#[derive(Debug, Clone, Copy)]
pub struct FlowState {
    pub cwnd_segments: f64,
    pub ssthresh_segments: f64,
    pub inflight_bytes: f64,
    pub srtt_s: f64,
    pub min_rtt_s: f64,
    pub pacing_rate_bps: f64,
    pub ca_state: &'static str,
}

impl FlowState {
    /// A flow without congestion control (UDP): every window column is NaN.
    pub const NONE: FlowState = FlowState {
        cwnd_segments: f64::NAN,
        ssthresh_segments: f64::NAN,
        inflight_bytes: f64::NAN,
        srtt_s: f64::NAN,
        min_rtt_s: f64::NAN,
        pacing_rate_bps: f64::NAN,
        ca_state: "",
    };
}

/// Appends rows to the time series.
#[derive(Debug)]
pub struct Sampler {
    pub interval: Time,
    pub flows: FlowTrace,
    pub queues: QueueTrace,
    pub cc: CcTrace,
    pub scratch: Vec<(&'static str, f64)>,
}

impl Sampler {
    pub fn new(interval: Time) -> Self {
        Self {
            interval,
            flows: Default::default(),
            queues: Default::default(),
            cc: Default::default(),
            scratch: Vec::new(),
        }
    }

    /// Appends one flow row for the interval of length `dt` ending at `now` and
    /// resets the flow's interval accumulators.
    pub fn flow_row(
        &mut self,
        now: Time,
        dt: Time,
        flow: u32,
        delivered_bytes: u64,
        acc: &mut FlowSampler,
        st: FlowState,
    ) {
        let f = &mut self.flows;
        let bytes = delivered_bytes - acc.bytes_at_last_sample;
        f.t_s.push(to_secs(now));
        f.flow.push(flow);
        f.goodput_mbps.push(bytes as f64 * 8.0 / to_secs(dt) / 1e6);
        f.cwnd_segments.push(st.cwnd_segments);
        f.ssthresh_segments.push(st.ssthresh_segments);
        f.inflight_bytes.push(st.inflight_bytes);
        f.srtt_ms.push(st.srtt_s * 1e3);
        f.min_rtt_ms.push(st.min_rtt_s * 1e3);
        f.rtt_samples.push(acc.rtt_samples);
        f.rtt_mean_ms.push(if acc.rtt_samples == 0 {
            f64::NAN
        } else {
            acc.rtt_sum_ns as f64 / acc.rtt_samples as f64 / 1e6
        });
        f.pacing_rate_mbps.push(st.pacing_rate_bps / 1e6);
        f.ca_state.push(st.ca_state);
        f.retransmits.push(acc.retransmits);
        *acc = FlowSampler {
            bytes_at_last_sample: delivered_bytes,
            ..Default::default()
        };
    }

    /// Appends the algorithm's exported variables (left in `scratch` by the caller).
    pub fn cc_rows(&mut self, now: Time, flow: u32) {
        for (var, value) in self.scratch.drain(..) {
            self.cc.t_s.push(to_secs(now));
            self.cc.flow.push(flow);
            self.cc.var.push(var);
            self.cc.value.push(value);
        }
    }

    pub fn queue_row(
        &mut self,
        now: Time,
        name: &str,
        (bytes, packets): (u64, u32),
        drops: (u64, u64),
    ) {
        let q = &mut self.queues;
        q.t_s.push(to_secs(now));
        q.queue.push(name.to_string());
        q.bytes.push(bytes);
        q.packets.push(packets);
        q.drops_overflow.push(drops.0);
        q.drops_random.push(drops.1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goodput_is_bytes_in_the_interval() {
        let mut s = Sampler::new(100_000_000);
        let mut acc = FlowSampler::default();
        acc.record_rtt(20_000_000);
        acc.record_rtt(30_000_000);
        s.flow_row(
            100_000_000,
            100_000_000,
            0,
            12_500_000,
            &mut acc,
            FlowState::NONE,
        );
        s.flow_row(
            200_000_000,
            100_000_000,
            0,
            12_500_000,
            &mut acc,
            FlowState::NONE,
        );
        // A final, shorter interval is rated over its own length.
        s.flow_row(
            210_000_000,
            10_000_000,
            0,
            13_750_000,
            &mut acc,
            FlowState::NONE,
        );
        assert_eq!(s.flows.goodput_mbps, vec![1000.0, 0.0, 1000.0]);
        assert_eq!(s.flows.rtt_samples, vec![2, 0, 0]);
        assert_eq!(s.flows.rtt_mean_ms[0], 25.0);
        assert!(s.flows.rtt_mean_ms[1].is_nan());
    }

    #[test]
    fn event_log_is_bounded() {
        let mut log = EventLog::new(true, 2);
        for i in 0..5 {
            log.log(i, 0, "loss", "random", Some(i));
        }
        assert_eq!(log.trace.t_s.len(), 2);
        assert_eq!(log.truncated, 3);
        let mut off = EventLog::new(false, 10);
        off.log(0, 0, "rto", "", None);
        assert!(off.trace.t_s.is_empty());
    }
}
