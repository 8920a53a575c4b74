//! Run summaries: per-flow averages, RTT distribution, loss and recovery counters,
//! per-queue totals.

use hdrhistogram::Histogram;
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
    /// Transport blocks HARQ gave up on (recovered by RLC).
    pub harq_failures: u64,
    /// SDUs the downlink RLC buffer refused, and the uplink's.
    pub rlc_drops: u64,
    pub uplink_rlc_drops: u64,
    /// Downlink transport-block transmissions (HARQ retransmissions included), and
    /// those that failed to decode (one before each HARQ retransmission, one at the
    /// end of each block HARQ gave up on): ns3-mmwave's TB error rate is their ratio.
    pub dl_tb_transmissions: u64,
    pub dl_tb_errors: u64,
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

/// RTT distribution of one flow, kept as an HDR histogram of microseconds (3
/// significant digits, 1 us to 1000 s) so that percentiles cost constant memory
/// however long the run; the mean is exact.
#[derive(Debug, Clone)]
pub struct RttStats {
    hist: Histogram<u64>,
    sum_ns: u128,
}

impl Default for RttStats {
    fn default() -> Self {
        let hist = Histogram::new_with_bounds(1, 1_000_000_000, 3).expect("valid bounds");
        Self { hist, sum_ns: 0 }
    }
}

impl RttStats {
    pub fn record(&mut self, rtt_ns: u64) {
        self.hist.saturating_record((rtt_ns / 1000).max(1));
        self.sum_ns += rtt_ns as u128;
    }

    /// Heap bytes of the histogram's counters (the same for every instance).
    pub fn heap_bytes(&self) -> usize {
        self.hist.distinct_values() * std::mem::size_of::<u64>()
    }

    pub fn count(&self) -> u64 {
        self.hist.len()
    }

    /// Mean in ms (exact, not from the buckets); NaN without samples.
    pub fn mean_ms(&self) -> f64 {
        if self.count() == 0 {
            f64::NAN
        } else {
            self.sum_ns as f64 / self.count() as f64 / 1e6
        }
    }

    /// Quantile `q` in [0, 1] in ms; NaN without samples.
    pub fn quantile_ms(&self, q: f64) -> f64 {
        if self.count() == 0 {
            f64::NAN
        } else {
            self.hist.value_at_quantile(q) as f64 / 1e3
        }
    }

    pub fn min_ms(&self) -> f64 {
        if self.count() == 0 {
            f64::NAN
        } else {
            self.hist.min() as f64 / 1e3
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rtt_quantiles_within_histogram_precision() {
        let mut s = RttStats::default();
        for ms in 1..=100u64 {
            s.record(ms * 1_000_000);
        }
        assert_eq!(s.count(), 100);
        assert!((s.mean_ms() - 50.5).abs() < 1e-9);
        assert!((s.quantile_ms(0.5) - 50.0).abs() < 0.1);
        assert!((s.quantile_ms(0.95) - 95.0).abs() < 0.1);
        assert!((s.min_ms() - 1.0).abs() < 0.01);
    }

    #[test]
    fn empty_stats_are_nan() {
        let s = RttStats::default();
        assert!(s.mean_ms().is_nan() && s.quantile_ms(0.95).is_nan());
    }
}
