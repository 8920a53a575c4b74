//! What a run produces: columnar traces (per-flow, per-queue, per-algorithm state),
//! an event log and a summary. Columns are plain vectors so the Python binding can
//! hand them to numpy/pandas without reshaping.

mod recorder;
mod summary;

pub use recorder::{EventLog, FlowSampler, FlowState, Sampler};
pub use summary::{FlowSummary, QueueSummary, RttStats, Summary};

use serde::Serialize;

/// Per-flow time series, one row per flow per sampling interval.
#[derive(Debug, Default, Clone, Serialize, PartialEq)]
pub struct FlowTrace {
    /// End of the sampling interval, seconds.
    pub t_s: Vec<f64>,
    pub flow: Vec<u32>,
    /// Bytes delivered in order to the receiving application in the interval, as Mb/s.
    pub goodput_mbps: Vec<f64>,
    /// Congestion window in segments (NaN for UDP flows).
    pub cwnd_segments: Vec<f64>,
    /// Slow-start threshold in segments (infinite until the first loss).
    pub ssthresh_segments: Vec<f64>,
    pub inflight_bytes: Vec<f64>,
    pub srtt_ms: Vec<f64>,
    pub min_rtt_ms: Vec<f64>,
    /// RTT samples taken in the interval and their mean (NaN when none).
    pub rtt_samples: Vec<u32>,
    pub rtt_mean_ms: Vec<f64>,
    pub pacing_rate_mbps: Vec<f64>,
    /// Congestion state at the sampling instant: open, disorder, recovery, loss.
    pub ca_state: Vec<&'static str>,
    /// Segments retransmitted in the interval.
    pub retransmits: Vec<u32>,
}

/// Per-queue occupancy, one row per queue per sampling interval.
#[derive(Debug, Default, Clone, Serialize, PartialEq)]
pub struct QueueTrace {
    pub t_s: Vec<f64>,
    pub queue: Vec<String>,
    pub bytes: Vec<u64>,
    pub packets: Vec<u32>,
    /// Cumulative drops by cause.
    pub drops_overflow: Vec<u64>,
    pub drops_random: Vec<u64>,
}

/// The algorithms' internal state in long form: one row per variable per sample.
#[derive(Debug, Default, Clone, Serialize, PartialEq)]
pub struct CcTrace {
    pub t_s: Vec<f64>,
    pub flow: Vec<u32>,
    pub var: Vec<&'static str>,
    pub value: Vec<f64>,
}

/// Discrete events: losses (with cause), RTOs, recovery entry/exit, spurious
/// retransmissions.
#[derive(Debug, Default, Clone, Serialize, PartialEq)]
pub struct EventTrace {
    pub t_s: Vec<f64>,
    pub flow: Vec<u32>,
    pub kind: Vec<&'static str>,
    /// Cause or state detail, e.g. "overflow", "random", "recovery".
    pub detail: Vec<&'static str>,
    /// Sequence number (bytes) the event concerns, -1 when none.
    pub seq: Vec<i64>,
}

/// Everything a run returns.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RunOutput {
    pub summary: Summary,
    pub flows: FlowTrace,
    pub queues: QueueTrace,
    pub cc: CcTrace,
    pub events: EventTrace,
}
