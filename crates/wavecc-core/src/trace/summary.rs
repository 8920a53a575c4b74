//! Run summaries: per-flow averages, RTT distribution, loss and recovery counters,
//! per-queue totals.

use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Summary {
    pub name: String,
    pub seed: u64,
    pub sim_time_s: f64,
    pub wall_time_s: f64,
    /// Engine events processed.
    pub events: u64,
    pub flows: Vec<FlowSummary>,
    pub queues: Vec<QueueSummary>,
    /// Per UE and per gNB, in scenarios with a radio (empty otherwise).
    pub ues: Vec<UeSummary>,
    pub cells: Vec<CellSummary>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FlowSummary {
    pub flow: u32,
    /// Algorithm name, or "udp" for a UDP flow.
    pub cca: String,
    pub app: String,
    pub transport: &'static str,
    /// Bytes delivered in order to the receiving application over the whole run, as Mb/s.
    pub goodput_mbps: f64,
    pub bytes_delivered: u64,
    pub mean_rtt_ms: f64,
    pub p50_rtt_ms: f64,
    pub p95_rtt_ms: f64,
    pub min_rtt_ms: f64,
    pub rtt_samples: u64,
    pub segments_sent: u64,
    pub retransmitted_segments: u64,
    pub rto_events: u64,
    pub fast_recovery_episodes: u64,
    /// Retransmissions the receiver reported as duplicates (D-SACK).
    pub spurious_retransmissions: u64,
    /// Packets of this flow dropped in the network, by cause.
    pub losses: BTreeMap<&'static str, u64>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct QueueSummary {
    pub queue: String,
    pub enqueued: u64,
    pub dequeued: u64,
    pub dropped_overflow: u64,
    pub dropped_random: u64,
    pub max_bytes: u64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct UeSummary {
    pub ue: u32,
    /// Mean downlink SINR over the channel updates, dB.
    pub mean_sinr_db: f64,
    /// Stretches [start, end] (seconds) when obstacles blocked the serving cell.
    pub nlos_intervals_s: Vec<[f64; 2]>,
    pub handovers: u32,
    /// Serving cell at the end of the run.
    pub cell: u32,
    pub harq_retransmissions: u64,
    /// Transport blocks HARQ gave up on (recovered by RLC), both ways, and the
    /// uplink's share: a lost uplink block is what a misread status report leaves
    /// unrepaired (`misread_status_reports`).
    pub harq_failures: u64,
    pub ul_harq_failures: u64,
    /// SDUs the downlink RLC buffer refused, and the uplink's.
    pub rlc_drops: u64,
    pub uplink_rlc_drops: u64,
    /// Downlink transport-block transmissions (HARQ retransmissions included), and
    /// those that failed to decode (one before each HARQ retransmission, one at the
    /// end of each block HARQ gave up on): ns3-mmwave's TB error rate is their ratio.
    pub dl_tb_transmissions: u64,
    pub dl_tb_errors: u64,
    /// The same for the uplink: its errors decide how often a status report is
    /// overtaken by a later one (`misread_status_reports`).
    pub ul_tb_transmissions: u64,
    pub ul_tb_errors: u64,
    /// Status reports the gNB's downlink sender and the UE's uplink one misread as
    /// acknowledging everything they had sent (an overtaken report, under the
    /// `ns3-mmwave` profile's RLC).
    pub misread_status_reports: u64,
    /// RLC retransmissions sent as segments of a PDU, each way, and decoded ones the
    /// receiver discarded (under the `ns3-mmwave` profile's PDU retransmissions and
    /// its placing of segments).
    pub dl_rlc_segments: u64,
    pub ul_rlc_segments: u64,
    pub refused_retransmissions: u64,
    /// Mean time a downlink SDU took from entering the gNB's RLC to leaving the UE's,
    /// and an uplink one the other way, ms (null before any was delivered).
    pub dl_rlc_delay_ms: f64,
    pub ul_rlc_delay_ms: f64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CellSummary {
    pub cell: u32,
    /// Downlink transport blocks sent, HARQ retransmissions included, and their bytes.
    pub transport_blocks: u64,
    pub bytes_transmitted: u64,
}
