//! Round-trip time estimation and the retransmission timeout (RFC 6298).

use crate::engine::{Time, from_secs};
use serde::{Deserialize, Serialize};

/// The RTT a congestion-control algorithm is given on each ACK (`tcp.cc_rtt`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum CcRtt {
    /// The ACK's own sample, when it yields one (Linux's `pkts_acked` RTT).
    #[default]
    Sample,
    /// The smoothed RTT on every ACK, duplicates included, once a sample exists:
    /// ns-3 3.37 passes `m_lastRtt`, which `TcpSocketBase::EstimateRtt` sets to the
    /// RTT estimator's smoothed value, to `PktsAcked` on every ACK it processes.
    Smoothed,
}

/// Which ACKs give the RTT estimator a sample (`tcp.rtt_samples`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RttSamples {
    /// Every ACK that newly delivers a segment never retransmitted, cumulatively or
    /// by SACK: the oldest such segment's send time, else the timestamp echo (Linux
    /// `tcp_clean_rtx_queue` and `tcp_sacktag_write_queue`). During a recovery the
    /// SACKs of segments that waited behind the hole keep feeding the estimator.
    #[default]
    Linux,
    /// ns-3's `RttHistory` (`TcpSocketBase::EstimateRtt`): one entry per segment sent
    /// as new data, marked when retransmitted and all dropped at a timeout. Only an
    /// ACK that cumulatively covers the oldest entry gives a sample, and only if that
    /// segment was never retransmitted: the timestamp echo's age, or without
    /// timestamps the entry's send time. SACKs and duplicate ACKs give none, so the
    /// estimator keeps its value through a recovery, and after a timeout nothing sent
    /// before it ever yields a sample.
    Ns3,
}

/// Nanoseconds to microseconds.
const US: Time = 1_000;

/// The RTT from `sent` to `now` read on a clock that ticks every `granularity` ns
/// (0: exact). ns-3 3.37 measures RTT from the timestamp echo, both ends read as
/// whole milliseconds truncated (`TcpOptionTS::NowToTsValue`), so a sample is
/// `floor(now) - floor(sent)` ticks, and a zero difference becomes 1 us
/// (`TcpSocketBase::EstimateRtt`).
pub fn clock_rtt(sent: Time, now: Time, granularity: Time) -> Time {
    if granularity == 0 {
        return now.saturating_sub(sent);
    }
    let ticks = (now / granularity).saturating_sub(sent / granularity);
    if ticks == 0 { US } else { ticks * granularity }
}

#[derive(Debug, Clone)]
pub struct RttEstimator {
    /// Smoothed RTT and its variation, in ns (fractional, as RFC 6298 averages).
    srtt: Option<f64>,
    rttvar: f64,
    rto: Time,
    min_rto: Time,
    max_rto: Time,
    /// Doublings applied since the last valid sample (RFC 6298 5.5).
    backoff: u32,
    /// Smallest sample seen on the connection, ns.
    pub min_rtt: Option<Time>,
}

/// Clock granularity G of RFC 6298 in ns: 1 ms, as ns-3's default.
const GRANULARITY: f64 = 1e6;

impl RttEstimator {
    pub fn new(initial_rto_s: f64, min_rto_s: f64, max_rto_s: f64) -> Self {
        Self {
            srtt: None,
            rttvar: 0.0,
            rto: from_secs(initial_rto_s),
            min_rto: from_secs(min_rto_s),
            max_rto: from_secs(max_rto_s),
            backoff: 0,
            min_rtt: None,
        }
    }

    /// Feeds one RTT sample (ns). The first sets SRTT = R, RTTVAR = R/2; later ones
    /// use alpha = 1/8, beta = 1/4. A valid sample also clears the back-off.
    pub fn sample(&mut self, rtt: Time) {
        let r = rtt as f64;
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2.0;
            }
            Some(s) => {
                self.rttvar = 0.75 * self.rttvar + 0.25 * (s - r).abs();
                self.srtt = Some(0.875 * s + 0.125 * r);
            }
        }
        let rto = self.srtt.unwrap() + (4.0 * self.rttvar).max(GRANULARITY);
        // Through i64: positive and far below 2^63, so the same value, without the
        // branches of a float-to-u64 conversion on every ACK.
        self.rto = (rto as i64 as Time).clamp(self.min_rto, self.max_rto);
        self.backoff = 0;
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
    }

    /// The timeout to arm now: the base RTO doubled per back-off, capped at max.
    pub fn rto(&self) -> Time {
        self.rto
            .saturating_mul(1u64 << self.backoff.min(32))
            .min(self.max_rto)
    }

    /// Doubles the timeout after it expired (RFC 6298 5.5).
    pub fn back_off(&mut self) {
        self.backoff += 1;
    }

    pub fn srtt_s(&self) -> f64 {
        self.srtt.map_or(0.0, |s| s / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    #[test]
    fn first_sample_sets_srtt_and_half_variance() {
        let mut e = RttEstimator::new(1.0, 0.2, 60.0);
        assert_eq!(e.rto(), 1_000 * MS, "initial RTO before any sample");
        e.sample(100 * MS);
        assert!((e.srtt_s() - 0.1).abs() < 1e-12);
        // RTO = 0.1 + 4 * 0.05 = 0.3 s.
        assert_eq!(e.rto(), 300 * MS);
    }

    #[test]
    fn later_samples_use_the_rfc_gains() {
        let mut e = RttEstimator::new(1.0, 0.0001, 60.0);
        e.sample(100 * MS);
        e.sample(200 * MS);
        // RTTVAR = 3/4 * 0.05 + 1/4 * |0.1 - 0.2| = 0.0625; SRTT = 0.1125.
        assert!((e.srtt_s() - 0.1125).abs() < 1e-12);
        assert_eq!(e.rto(), from_secs(0.1125 + 4.0 * 0.0625));
    }

    #[test]
    fn variance_term_is_at_least_the_clock_granularity() {
        let mut e = RttEstimator::new(1.0, 0.0001, 60.0);
        for _ in 0..50 {
            e.sample(100 * MS);
        }
        // RTTVAR decays towards 0; the RTO keeps G = 1 ms above SRTT.
        assert_eq!(e.rto(), 101 * MS);
    }

    #[test]
    fn min_rto_clamps_and_backoff_doubles_up_to_max() {
        let mut e = RttEstimator::new(1.0, 1.0, 4.0);
        e.sample(20 * MS);
        assert_eq!(e.rto(), 1_000 * MS, "the source papers' 1 s minimum RTO");
        e.back_off();
        assert_eq!(e.rto(), 2_000 * MS);
        e.back_off();
        e.back_off();
        assert_eq!(e.rto(), 4_000 * MS, "capped at max_rto");
        e.sample(20 * MS);
        assert_eq!(e.rto(), 1_000 * MS, "a new sample clears the back-off");
    }

    #[test]
    fn a_granular_clock_truncates_both_ends_and_never_reads_zero() {
        // Exact without granularity.
        assert_eq!(
            clock_rtt(3 * MS + 400_000, 23 * MS + 410_000, 0),
            20 * MS + 10_000
        );
        // 1 ms ticks: sent at 3.4 ms, acked at 23.41 ms: 23 - 3 = 20 ms.
        assert_eq!(clock_rtt(3 * MS + 400_000, 23 * MS + 410_000, MS), 20 * MS);
        // The same 20.01 ms across one more tick boundary: 24 - 3 = 21 ms.
        assert_eq!(clock_rtt(3 * MS + 995_000, 24 * MS + 5_000, MS), 21 * MS);
        // Within one tick: 1 us, as ns-3 (a zero RTT is no sample there).
        assert_eq!(clock_rtt(5 * MS + 100, 5 * MS + 900_000, MS), 1_000);
    }

    #[test]
    fn min_rtt_tracks_the_smallest_sample() {
        let mut e = RttEstimator::new(1.0, 0.2, 60.0);
        e.sample(30 * MS);
        e.sample(20 * MS);
        e.sample(25 * MS);
        assert_eq!(e.min_rtt, Some(20 * MS));
    }
}
