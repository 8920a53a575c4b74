//! What a run produces: columnar traces (per-flow, per-queue, per-algorithm state),
//! an event log and a summary. Columns are plain vectors so the Python binding can
//! hand them to numpy/pandas without reshaping.

#[macro_use]
mod columns;
mod estimate;
mod recorder;
mod rtt_stats;
mod summary;

pub use columns::{Column, ColumnType, Dtype, row_bytes};
pub use estimate::{CC_ROW_BYTES, EVENT_ROW_BYTES, FLOW_ROW_BYTES, QUEUE_ROW_BYTES, UE_ROW_BYTES};
pub use recorder::{EventLog, FlowSampler, FlowState, Sampler};
pub use rtt_stats::RttStats;
pub use summary::{CellSummary, FlowSummary, QueueSummary, Summary, UeSummary};

use serde::Serialize;

trace_table! {
    /// Per-flow time series, one row per flow per sampling interval.
    pub struct FlowTrace {
        /// End of the sampling interval.
        t_s: f64 = "s",
        /// The flow's index in the config.
        flow: u32 = "",
        /// Bytes delivered in order to the receiving application in the interval, as Mb/s.
        goodput_mbps: f64 = "Mb/s",
        /// Congestion window in segments (NaN for UDP flows).
        cwnd_segments: f64 = "segments",
        /// Slow-start threshold in segments (infinite until the first loss).
        ssthresh_segments: f64 = "segments",
        /// Bytes sent and not yet acknowledged or marked lost.
        inflight_bytes: f64 = "bytes",
        /// Smoothed RTT.
        srtt_ms: f64 = "ms",
        /// Smallest RTT seen so far.
        min_rtt_ms: f64 = "ms",
        /// RTT samples taken in the interval.
        rtt_samples: u32 = "",
        /// Mean of the interval's RTT samples (NaN when none).
        rtt_mean_ms: f64 = "ms",
        /// Pacing rate at the sampling instant.
        pacing_rate_mbps: f64 = "Mb/s",
        /// Congestion state at the sampling instant: open, disorder, recovery, loss.
        ca_state: &'static str = "",
        /// Segments retransmitted in the interval.
        retransmits: u32 = "",
    }
}

trace_table! {
    /// Per-queue occupancy, one row per queue per sampling interval.
    pub struct QueueTrace {
        /// Sampling instant.
        t_s: f64 = "s",
        /// The link's name.
        queue: String = "",
        /// Bytes queued or in flight on the link.
        bytes: u64 = "bytes",
        /// Packets queued or in flight on the link.
        packets: u32 = "",
        /// Cumulative drops of a full queue.
        drops_overflow: u64 = "",
        /// Cumulative drops by the link's random loss.
        drops_random: u64 = "",
    }
}

trace_table! {
    /// The algorithms' internal state in long form: one row per variable per sample.
    pub struct CcTrace {
        /// Sampling instant.
        t_s: f64 = "s",
        /// The flow's index in the config.
        flow: u32 = "",
        /// The variable's name, as the algorithm exports it (its unit in the name).
        var: &'static str = "",
        /// The variable's value.
        value: f64 = "",
    }
}

trace_table! {
    /// Discrete events: losses (with cause), RTOs, recovery entry/exit, spurious
    /// retransmissions.
    pub struct EventTrace {
        /// When it happened.
        t_s: f64 = "s",
        /// The flow's index in the config.
        flow: u32 = "",
        /// What happened, e.g. "drop", "rto", "recovery".
        kind: &'static str = "",
        /// Cause or state detail, e.g. "overflow", "random", "recovery".
        detail: &'static str = "",
        /// Sequence number (bytes) the event concerns, -1 when none.
        seq: i64 = "bytes",
    }
}

trace_table! {
    /// Per-UE radio state, one row per UE per sampling interval.
    pub struct UeTrace, row UeRow {
        /// Sampling instant.
        t_s: f64 = "s",
        /// The UE's index.
        ue: u32 = "",
        /// Position, east.
        x_m: f64 = "m",
        /// Position, north.
        y_m: f64 = "m",
        /// Serving gNB.
        cell: u32 = "",
        /// SINR of the serving link.
        sinr_db: f64 = "dB",
        /// Downlink MCS index link adaptation chose at the last channel update: where
        /// the scheduler holds CQI reports (`ns3-mmwave`), the one the SINR then
        /// supported, which TBs get once its report arrives; elsewhere the one of
        /// the update before.
        mcs: u8 = "",
        /// Line of sight to the serving gNB.
        los: bool = "",
        /// Downlink RLC buffer: bytes held.
        rlc_bytes: u64 = "bytes",
        /// Downlink RLC buffer: SDUs held.
        rlc_packets: u32 = "",
        /// Downlink RLC buffer: cumulative tail drops.
        rlc_drops: u64 = "",
        /// Cumulative downlink HARQ retransmissions.
        harq_retx: u64 = "",
        /// Downlink TBs sent in the interval, HARQ retransmissions included.
        dl_tbs: u64 = "",
        /// Mean SINR of the serving link over those TBs (NaN without any): the
        /// traffic-weighted SINR a receiver's per-TB trace averages.
        dl_tb_sinr_db: f64 = "dB",
    }
}

trace_table! {
    /// Radio events: handovers and the start and end of blockage of the serving cell.
    pub struct RadioEventTrace {
        /// When it happened.
        t_s: f64 = "s",
        /// The UE's index.
        ue: u32 = "",
        /// "handover", "nlos_start" or "nlos_end".
        kind: &'static str = "",
        /// The cell concerned (the new one for a handover).
        cell: u32 = "",
        /// The cell left, for a handover (-1 otherwise).
        from_cell: i64 = "",
    }
}

/// Every trace's columns by the name `RunOutput` gives the trace.
pub const TRACE_COLUMNS: &[(&str, &[Column])] = &[
    ("flows", FlowTrace::COLUMNS),
    ("queues", QueueTrace::COLUMNS),
    ("cc", CcTrace::COLUMNS),
    ("events", EventTrace::COLUMNS),
    ("ues", UeTrace::COLUMNS),
    ("radio_events", RadioEventTrace::COLUMNS),
];

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
