//! What a run produces: columnar traces (per-flow, per-queue, per-algorithm state),
//! an event log and a summary. Columns are plain vectors so the Python binding can
//! hand them to numpy/pandas without reshaping.

mod estimate;
mod recorder;
mod summary;

pub use estimate::{TraceRows, estimate_memory};
pub use recorder::{EventLog, FlowSampler, FlowState, Sampler};
pub use summary::{CellSummary, FlowSummary, QueueSummary, RttStats, Summary, UeSummary};

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

/// Per-UE radio state, one row per UE per sampling interval.
#[derive(Debug, Default, Clone, Serialize, PartialEq)]
pub struct UeTrace {
    pub t_s: Vec<f64>,
    pub ue: Vec<u32>,
    pub x_m: Vec<f64>,
    pub y_m: Vec<f64>,
    /// Serving gNB.
    pub cell: Vec<u32>,
    pub sinr_db: Vec<f64>,
    pub mcs: Vec<u8>,
    /// Line of sight to the serving gNB.
    pub los: Vec<bool>,
    /// Downlink RLC buffer: bytes and SDUs held, cumulative tail drops.
    pub rlc_bytes: Vec<u64>,
    pub rlc_packets: Vec<u32>,
    pub rlc_drops: Vec<u64>,
    /// Cumulative downlink HARQ retransmissions.
    pub harq_retx: Vec<u64>,
}

/// Radio events: handovers and the start and end of blockage of the serving cell.
#[derive(Debug, Default, Clone, Serialize, PartialEq)]
pub struct RadioEventTrace {
    pub t_s: Vec<f64>,
    pub ue: Vec<u32>,
    /// "handover", "nlos_start" or "nlos_end".
    pub kind: Vec<&'static str>,
    /// The cell concerned (the new one for a handover).
    pub cell: Vec<u32>,
    /// The cell left, for a handover (-1 otherwise).
    pub from_cell: Vec<i64>,
}

/// Everything a run returns.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RunOutput {
    pub summary: Summary,
    pub flows: FlowTrace,
    pub queues: QueueTrace,
    pub cc: CcTrace,
    pub events: EventTrace,
    pub ues: UeTrace,
    pub radio_events: RadioEventTrace,
}
