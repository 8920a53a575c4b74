//! TCP Westwood+ (Mascolo, Casetti, Gerla et al., Mobicom 2001; Grieco and Mascolo,
//! CCR 2004), behaving like Linux `tcp_westwood`.
//!
//! Westwood+ grows the window as Reno and sets ssthresh after a loss from an
//! end-to-end bandwidth estimate instead of halving: `ssthresh = BWE x RTTmin / MSS`
//! (at least 2 segments), the window the path carries with empty queues. A random
//! loss then costs little, while a congestion loss drains the queue it built.
//!
//! The estimate (the "+" of Westwood+): the bytes acknowledged (cumulatively or by
//! SACK, duplicate ACKs included) are summed over intervals of one RTT, but at least
//! 50 ms (Linux `TCP_WESTWOOD_RTT_MIN`: shorter samples are too noisy); an interval
//! ends on the first ACK after it has lasted longer than `max(RTT, 50 ms)`, RTT being
//! the latest sample. Each interval's rate `b_k = bytes / duration` goes through
//! Linux's two cascaded 7/8 low-pass filters: `bw_ns = (7 bw_ns + b_k) / 8`,
//! `BWE = (7 BWE + bw_ns) / 8`, both seeded with the first sample. RTTmin is the
//! socket's minimum RTT.
//!
//! Loss response, as Linux: the loss itself halves ssthresh as Reno
//! (`tcp_reno_ssthresh`), so fast recovery (PRR) works towards half the window; when
//! recovery completes the window and ssthresh are both set to `BWE x RTTmin`
//! (`CA_EVENT_COMPLETE_CWR`), and after a timeout ssthresh is set to it
//! (`CA_EVENT_LOSS`). ns-3 `TcpWestwoodPlus` and the paper set ssthresh to the
//! estimate at the loss itself: `loss_response = "immediate"`.
//!
//! ns-3's sampling (`sampling = "ns3"`): the first ACK with an RTT `R` starts a timer
//! of `R`; when it fires, the bytes counted since the last firing, divided by `R`
//! (not by the time they took), are the sample. An interval that began in an idle gap
//! between slow-start bursts thus holds more than `R` worth of ACKs, and the sample
//! overstates the rate.
//!
//! What an ACK adds to the interval's bytes (`count`): Linux counts each segment once,
//! whether a cumulative ACK, a SACK or a duplicate ACK reported it. ns-3 3.37 adds
//! the `segmentsAcked` its socket passes to `PktsAcked`: 1 per duplicate ACK and per
//! partial ACK in recovery, but the whole cumulative advance on the ACK that ends
//! recovery, which counts again the segments the duplicate ACKs already counted
//! (`count = "ns3"`). Each recovery thus inflates ns-3's estimate by about the
//! segments SACKed above the hole, close to a window.
//!
//! Written in floating point (bytes per second, seconds) from the papers and the
//! behaviour of Linux `tcp_westwood.c`; Linux's jiffy clock and integer rates are not
//! reproduced.

use super::newreno::{IncreasePer, reno_grow};
use super::{CaState, CongestionControl, CwndEvent, RateSample, Socket, parse_params};
use crate::engine::{Time, from_secs};
use serde::Deserialize;

pub const SUMMARY: &str =
    "Westwood+ (Mascolo et al., Linux tcp_westwood): Reno growth, ssthresh = BWE x RTTmin on loss";

/// How the per-interval rate samples are smoothed.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Filter {
    /// Linux: two cascaded EWMAs of weight 7/8, seeded with the first sample.
    Linux,
    /// ns-3 `TcpWestwoodPlus` (`FilterType = Tustin`): `BWE = 0.9 BWE + 0.1 (b_k +
    /// b_{k-1}) / 2`, starting from 0.
    Tustin,
}

/// When ssthresh takes the bandwidth estimate.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LossResponse {
    /// Linux: Reno's half at the loss, the estimate when recovery completes (window
    /// too) or right after a timeout.
    Linux,
    /// ns-3 and the paper: the estimate at the loss itself (recovery then ends at it).
    Immediate,
}

/// How the per-interval rate samples are taken.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Sampling {
    /// Linux: an interval closes on the first ACK after `max(RTT, min_interval_ms)`,
    /// and its bytes are divided by the time it lasted.
    Linux,
    /// ns-3 `TcpWestwood` (WestwoodPlus): a timer of one RTT, started by the first ACK
    /// after the last sample; its bytes are divided by that RTT.
    Ns3,
}

/// What an ACK adds to the bandwidth sample.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Count {
    /// Linux: the segments it newly delivered, cumulatively or by SACK, each once.
    Delivered,
    /// ns-3 3.37's `PktsAcked` counts (see [`Ns3Count`]).
    Ns3,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// Smoothing of the bandwidth samples. Default `linux`; `tustin` reproduces ns-3.
    pub filter: Filter,
    /// Default `linux`; `ns3` reproduces ns-3's RTT timer.
    pub sampling: Sampling,
    /// Shortest sampling interval in ms (Linux 50), for `sampling = "linux"`.
    pub min_interval_ms: f64,
    /// Default `linux`; `immediate` reproduces ns-3 and the paper.
    pub loss_response: LossResponse,
    /// Default `delivered` (Linux); `ns3` reproduces ns-3's double count at the end of
    /// recovery.
    pub count: Count,
    /// Reno's growth per acknowledged segment (`segment`, Linux), per ACK (`ack`), or
    /// per ACK in whole bytes (`ack_bytes`: ns-3's `TcpWestwood` inherits
    /// `TcpNewReno::IncreaseWindow`).
    pub increase_per: IncreasePer,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            filter: Filter::Linux,
            sampling: Sampling::Linux,
            min_interval_ms: 50.0,
            loss_response: LossResponse::Linux,
            count: Count::Delivered,
            increase_per: IncreasePer::Segment,
        }
    }
}

/// The segments ns-3 3.37's `TcpSocketBase::ProcessAck` passes to `PktsAcked` for one
/// ACK, by the congestion state the ACK arrives in: an ACK that does not advance
/// `snd_una` counts 1; an advance counts its segments in Open, less the duplicate
/// ACKs already counted in Disorder, 1 when partial in Recovery and all of them when
/// it ends Recovery; after a timeout, all of them up to the recovery point and those
/// past it when it ends Loss.
#[derive(Clone, Debug, Default)]
pub struct Ns3Count {
    /// `snd_una` at the previous ACK, bytes.
    snd_una: u64,
    /// Duplicate ACKs since `snd_una` last advanced (ns-3 `m_dupAckCount`).
    dupacks: u64,
    /// `snd_nxt` when Recovery or Loss began (ns-3 `m_recover`), bytes.
    recover: u64,
}

impl Ns3Count {
    /// The count for an ACK that left the socket at `sock` (`ca_state` still the
    /// state it arrived in).
    fn on_ack(&mut self, sock: &Socket) -> u64 {
        let mss = u64::from(sock.mss);
        let (old, new) = (self.snd_una, sock.snd_una);
        self.snd_una = new;
        if new <= old {
            self.dupacks += 1;
            return u64::from(sock.snd_nxt > new);
        }
        let advance = (new - old) / mss;
        let dupacks = std::mem::take(&mut self.dupacks);
        match sock.ca_state {
            CaState::Open => advance,
            CaState::Disorder => advance.saturating_sub(dupacks),
            CaState::Recovery if new < self.recover => 1,
            CaState::Recovery => advance,
            CaState::Loss if new <= self.recover => advance,
            CaState::Loss => (new - self.recover.max(old)) / mss,
        }
    }

    fn set_state(&mut self, sock: &Socket, new: CaState) {
        if matches!(new, CaState::Recovery | CaState::Loss) {
            self.recover = sock.snd_nxt;
        }
    }
}

impl Params {
    fn validate(&self) -> Result<(), String> {
        if !(self.min_interval_ms >= 0.0 && self.min_interval_ms.is_finite()) {
            return Err(format!(
                "min_interval_ms = {}: must be >= 0 and finite",
                self.min_interval_ms
            ));
        }
        Ok(())
    }
}

/// Smallest slow-start threshold (RFC 5681, Linux: 2 segments).
const MIN_SSTHRESH: f64 = 2.0;

fn secs(t: Time) -> f64 {
    t as f64 * 1e-9
}

pub struct Westwood {
    p: Params,
    /// Start of the current sampling interval.
    interval_start: Time,
    /// ns-3's sampling timer: when it fires and the RTT it divides by.
    timer: Option<(Time, f64)>,
    /// Bytes acknowledged in the current interval (Linux `bk`).
    acked_bytes: f64,
    /// Latest RTT sample, seconds (Linux `w->rtt`); None before the first.
    rtt: Option<f64>,
    /// Last interval's rate, bytes/s (for the traces and the Tustin filter).
    last_sample: f64,
    /// First filter stage (Linux `bw_ns_est`), bytes/s; unused by the Tustin filter.
    bw_ns_est: f64,
    /// Bandwidth estimate BWE (Linux `bw_est`), bytes/s.
    bw_est: f64,
    /// The socket's minimum RTT at the last ACK, seconds, and its MSS, for the traces.
    rtt_min: f64,
    mss: u32,
    ns3_count: Ns3Count,
}

pub fn build(params: &serde_json::Value) -> Result<Box<dyn CongestionControl>, String> {
    let p = parse_params::<Params>(params)?;
    p.validate()?;
    Ok(Box::new(Westwood::new(p)))
}

impl Westwood {
    fn new(p: Params) -> Self {
        Self {
            p,
            interval_start: 0,
            timer: None,
            acked_bytes: 0.0,
            rtt: None,
            last_sample: 0.0,
            bw_ns_est: 0.0,
            bw_est: 0.0,
            rtt_min: f64::INFINITY,
            mss: 1,
            ns3_count: Ns3Count::default(),
        }
    }

    /// Feeds one interval's rate (bytes/s) to the filter (Linux `westwood_filter`).
    fn filter(&mut self, sample: f64) {
        match self.p.filter {
            Filter::Linux if self.bw_ns_est == 0.0 && self.bw_est == 0.0 => {
                self.bw_ns_est = sample;
                self.bw_est = sample;
            }
            Filter::Linux => {
                self.bw_ns_est = (7.0 * self.bw_ns_est + sample) / 8.0;
                self.bw_est = (7.0 * self.bw_est + self.bw_ns_est) / 8.0;
            }
            Filter::Tustin => {
                self.bw_est = 0.9 * self.bw_est + 0.1 * (sample + self.last_sample) / 2.0;
            }
        }
        self.last_sample = sample;
    }

    /// Closes the sampling interval once it has lasted longer than
    /// `max(RTT, min_interval)` (Linux `westwood_update_window`).
    fn update_interval(&mut self, now: Time) {
        let Some(rtt) = self.rtt else { return };
        let elapsed = secs(now.saturating_sub(self.interval_start));
        if elapsed > rtt.max(self.p.min_interval_ms * 1e-3) {
            self.filter(self.acked_bytes / elapsed);
            self.acked_bytes = 0.0;
            self.interval_start = now;
        }
    }

    /// ns-3's timer: once it has fired, the bytes counted until then over its RTT.
    fn fire_timer(&mut self, now: Time) {
        if let Some((_, rtt)) = self.timer.filter(|&(at, _)| now >= at) {
            self.filter(self.acked_bytes / rtt);
            self.acked_bytes = 0.0;
            self.timer = None;
        }
    }

    /// `BWE x RTTmin` in segments, at least 2 (Linux `tcp_westwood_bw_rttmin`).
    fn bw_rttmin(&self) -> f64 {
        let w = self.bw_est * self.rtt_min / self.mss as f64;
        if w.is_finite() {
            w.max(MIN_SSTHRESH)
        } else {
            MIN_SSTHRESH
        }
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        "westwood"
    }

    fn init(&mut self, sock: &mut Socket) {
        *self = Self::new(self.p.clone());
        self.interval_start = sock.now;
        self.mss = sock.mss;
        self.rtt_min = sock.min_rtt_s;
    }

    fn ssthresh(&mut self, sock: &Socket) -> f64 {
        self.rtt_min = sock.min_rtt_s;
        match self.p.loss_response {
            LossResponse::Linux => (sock.cwnd / 2.0).max(MIN_SSTHRESH),
            LossResponse::Immediate => self.bw_rttmin(),
        }
    }

    fn cong_avoid(&mut self, sock: &mut Socket, acked: u32) {
        reno_grow(sock, acked, self.p.increase_per);
    }

    /// Linux's order: `in_ack_event` (close the interval, count the bytes) before
    /// `pkts_acked` (take the RTT sample), so the ACK that closes an interval counts
    /// in the next one and the interval length uses the previous RTT sample.
    fn on_ack(&mut self, sock: &mut Socket, rs: &RateSample) {
        self.mss = sock.mss;
        self.rtt_min = sock.min_rtt_s;
        match self.p.sampling {
            Sampling::Linux => self.update_interval(sock.now),
            Sampling::Ns3 => self.fire_timer(sock.now),
        }
        let segments = match self.p.count {
            Count::Delivered => u64::from(rs.acked_sacked),
            Count::Ns3 => self.ns3_count.on_ack(sock),
        };
        self.acked_bytes += segments as f64 * sock.mss as f64;
        if let Some(rtt) = rs.rtt_s.filter(|&r| r > 0.0) {
            self.rtt = Some(rtt);
            if self.p.sampling == Sampling::Ns3 && self.timer.is_none() {
                self.timer = Some((sock.now + from_secs(rtt), rtt));
            }
        }
    }

    fn set_state(&mut self, sock: &mut Socket, new: CaState) {
        self.ns3_count.set_state(sock, new);
    }

    fn cwnd_event(&mut self, sock: &mut Socket, event: CwndEvent) {
        if self.p.loss_response != LossResponse::Linux {
            return;
        }
        self.rtt_min = sock.min_rtt_s;
        match event {
            CwndEvent::CompleteRecovery => {
                sock.ssthresh = self.bw_rttmin();
                sock.cwnd = sock.ssthresh;
            }
            CwndEvent::Loss => sock.ssthresh = self.bw_rttmin(),
            CwndEvent::TxStart => {}
        }
    }

    /// Rates in Mb/s, RTTs in ms; `bw_rttmin` is the window (segments) a loss leads to.
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        let mbps = |bytes_per_s: f64| bytes_per_s * 8e-6;
        out.extend([
            ("bwe_mbps", mbps(self.bw_est)),
            ("bw_sample_mbps", mbps(self.last_sample)),
            (
                "rtt_min_ms",
                if self.rtt_min.is_finite() {
                    self.rtt_min * 1e3
                } else {
                    0.0
                },
            ),
            ("bw_rttmin", self.bw_rttmin()),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const MSS: u32 = 1000;

    fn westwood(params: serde_json::Value) -> (Westwood, Socket) {
        let p = parse_params::<Params>(&params).unwrap();
        p.validate().unwrap();
        let mut cc = Westwood::new(p);
        let mut s = Socket::new(MSS, 10.0, f64::INFINITY);
        cc.init(&mut s);
        (cc, s)
    }

    fn at_ms(ms: f64) -> Time {
        (ms * 1e6).round() as Time
    }

    /// An ACK at `ms` for `segments` segments with an RTT sample `rtt_s`.
    fn ack(cc: &mut Westwood, s: &mut Socket, ms: f64, segments: u32, rtt_s: f64) {
        s.now = at_ms(ms);
        s.min_rtt_s = s.min_rtt_s.min(rtt_s);
        cc.on_ack(
            s,
            &RateSample {
                acked_sacked: segments,
                rtt_s: Some(rtt_s),
                ..RateSample::default()
            },
        );
    }

    /// Ten ACKs of `segments` each, 10 ms apart from `start_ms`, with RTT samples of
    /// 99 ms: an interval started at `start_ms` closes on the ACK at `start_ms + 100`,
    /// after exactly 100 ms, and that ACK counts in the next interval.
    fn interval(cc: &mut Westwood, s: &mut Socket, start_ms: f64, segments: u32) {
        for i in 0..10 {
            ack(cc, s, start_ms + 10.0 * i as f64, segments, 0.099);
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn an_interval_lasts_at_least_50_ms_even_when_the_rtt_is_shorter() {
        // RTT 20 ms, ACKs of one segment every 10 ms from 10 ms: the interval started
        // at 0 closes on the first ACK after 50 ms (at 60 ms) with the 5 segments of
        // the ACKs at 10-50 ms: 5000 bytes / 0.06 s.
        let (mut cc, mut s) = westwood(json!({}));
        for i in 1..=5 {
            ack(&mut cc, &mut s, 10.0 * i as f64, 1, 0.02);
        }
        assert_eq!(cc.bw_est, 0.0);
        ack(&mut cc, &mut s, 60.0, 1, 0.02);
        assert!(close(cc.bw_est, 5000.0 / 0.06), "{}", cc.bw_est);
        assert_eq!(cc.acked_bytes, 1000.0); // the closing ACK counts in the next one
    }

    #[test]
    fn an_interval_lasts_one_rtt_when_the_rtt_is_longer() {
        // RTT 99 ms: nothing closes at 60 ms, the ACK at 100.5 ms closes [0, 100.5].
        let (mut cc, mut s) = westwood(json!({}));
        interval(&mut cc, &mut s, 0.5, 2); // ACKs at 0.5 .. 90.5 ms, 2 segments each
        assert_eq!(cc.bw_est, 0.0);
        ack(&mut cc, &mut s, 100.5, 2, 0.1);
        assert!(close(cc.bw_est, 20_000.0 / 0.1005), "{}", cc.bw_est);
    }

    #[test]
    fn the_first_sample_seeds_both_filter_stages_then_two_7_8_ewmas_follow() {
        // Interval 1 (from 0.5 ms): 10 ACKs x 10 segments in 100 ms = 1e6 B/s. Interval 2 at twice the
        // rate: bw_ns = (7 x 1e6 + 2e6) / 8 = 1.125e6, BWE = (7 x 1e6 + 1.125e6) / 8 = 1.015625e6.
        let (mut cc, mut s) = westwood(json!({}));
        cc.interval_start = at_ms(0.5);
        interval(&mut cc, &mut s, 0.5, 10);
        interval(&mut cc, &mut s, 100.5, 20);
        assert!(
            close(cc.bw_est, 1e6) && close(cc.bw_ns_est, 1e6),
            "{} {}",
            cc.bw_est,
            cc.bw_ns_est
        );
        ack(&mut cc, &mut s, 200.5, 1, 0.1);
        assert!(close(cc.bw_ns_est, 1.125e6), "{}", cc.bw_ns_est);
        assert!(close(cc.bw_est, 1.015625e6), "{}", cc.bw_est);
        let mut state = Vec::new();
        cc.state(&mut state);
        assert!(
            state
                .iter()
                .any(|&(k, v)| k == "bwe_mbps" && close(v, 8.125)),
            "{state:?}"
        );
        assert!(
            state
                .iter()
                .any(|&(k, v)| k == "rtt_min_ms" && close(v, 99.0)),
            "{state:?}"
        );
    }

    #[test]
    fn tustin_filter_averages_the_last_two_samples_with_weight_one_tenth() {
        // From 0: 0.9 x 0 + 0.1 x (1e6 + 0) / 2 = 5e4, then 0.9 x 5e4 + 0.1 x 3e6 / 2 = 1.95e5.
        let (mut cc, mut s) = westwood(json!({ "filter": "tustin" }));
        cc.interval_start = at_ms(0.5);
        interval(&mut cc, &mut s, 0.5, 10);
        interval(&mut cc, &mut s, 100.5, 20);
        assert!(close(cc.bw_est, 5e4), "{}", cc.bw_est);
        ack(&mut cc, &mut s, 200.5, 1, 0.1);
        assert!(close(cc.bw_est, 1.95e5), "{}", cc.bw_est);
    }

    /// BWE 1e6 B/s (8 Mb/s) with RTTmin 50 ms: BWE x RTTmin / MSS = 50 segments.
    fn estimated(params: serde_json::Value) -> (Westwood, Socket) {
        let (mut cc, mut s) = westwood(params);
        cc.bw_est = 1e6;
        s.min_rtt_s = 0.05;
        s.cwnd = 80.0;
        (cc, s)
    }

    #[test]
    fn linux_loss_halves_then_recovery_ends_at_bwe_times_rtt_min() {
        let (mut cc, mut s) = estimated(json!({}));
        s.ssthresh = cc.ssthresh(&s);
        assert_eq!(s.ssthresh, 40.0); // Reno's half during recovery
        s.cwnd = s.ssthresh; // the socket leaves recovery at ssthresh...
        cc.cwnd_event(&mut s, CwndEvent::CompleteRecovery);
        assert!(
            close(s.cwnd, 50.0) && close(s.ssthresh, 50.0),
            "{} {}",
            s.cwnd,
            s.ssthresh
        );
    }

    #[test]
    fn linux_timeout_sets_ssthresh_to_bwe_times_rtt_min() {
        let (mut cc, mut s) = estimated(json!({}));
        s.ssthresh = cc.ssthresh(&s);
        cc.cwnd_event(&mut s, CwndEvent::Loss);
        assert!(close(s.ssthresh, 50.0), "{}", s.ssthresh);
        assert_eq!(s.cwnd, 80.0); // the socket, not the algorithm, sets the loss window
    }

    #[test]
    fn immediate_response_sets_ssthresh_to_bwe_times_rtt_min_at_the_loss() {
        let (mut cc, mut s) = estimated(json!({ "loss_response": "immediate" }));
        assert!(close(cc.ssthresh(&s), 50.0));
        s.ssthresh = 50.0;
        s.cwnd = 50.0;
        cc.cwnd_event(&mut s, CwndEvent::CompleteRecovery);
        cc.cwnd_event(&mut s, CwndEvent::Loss);
        assert_eq!((s.cwnd, s.ssthresh), (50.0, 50.0)); // events change nothing
    }

    #[test]
    fn without_an_estimate_the_loss_window_is_two_segments() {
        let (mut cc, s) = westwood(json!({ "loss_response": "immediate" }));
        assert_eq!(cc.ssthresh(&s), 2.0); // no RTT, no bandwidth yet
        let (mut cc, mut s) = estimated(json!({ "loss_response": "immediate" }));
        cc.bw_est = 10_000.0; // 1e4 x 0.05 / 1000 = 0.5 segment
        s.min_rtt_s = 0.05;
        assert_eq!(cc.ssthresh(&s), 2.0);
    }

    #[test]
    fn growth_is_reno() {
        let (mut cc, mut s) = westwood(json!({}));
        cc.cong_avoid(&mut s, 2);
        assert_eq!(s.cwnd, 12.0); // slow start: +1 per segment
        s.ssthresh = 10.0;
        cc.cong_avoid(&mut s, 2);
        assert!(close(s.cwnd, 12.0 + 2.0 / 12.0), "{}", s.cwnd);
        // ns-3: per ACK, whatever it covers.
        let (mut cc, mut s) = westwood(json!({ "increase_per": "ack" }));
        cc.cong_avoid(&mut s, 2);
        assert_eq!(s.cwnd, 11.0);
        s.ssthresh = 10.0;
        cc.cong_avoid(&mut s, 2);
        assert!(close(s.cwnd, 11.0 + 1.0 / 11.0), "{}", s.cwnd);
    }

    #[test]
    fn ns3_sampling_divides_an_rtt_timers_bytes_by_that_rtt() {
        // RTT 100 ms. The first ACK (at 10 ms) starts a timer to 110 ms; ACKs of 10
        // segments at 10, 20, ..., 100 ms count; the one at 110 ms sees it fired:
        // 100 segments / 0.1 s = 1e6 B/s, although they took 90 ms from the first.
        // Linux's sampling (no minimum) divides the same 100 segments by the 110 ms
        // the interval lasted since the connection began.
        let (mut cc, mut s) = westwood(json!({ "sampling": "ns3", "filter": "tustin" }));
        for i in 1..=11 {
            ack(&mut cc, &mut s, 10.0 * i as f64, 10, 0.1);
        }
        assert!(close(cc.last_sample, 1e6), "{}", cc.last_sample);
        assert_eq!(cc.acked_bytes, 10_000.0); // the ACK at 110 ms starts the next one
        let (mut cc, mut s) = westwood(json!({ "min_interval_ms": 0.0, "filter": "tustin" }));
        for i in 1..=11 {
            ack(&mut cc, &mut s, 10.0 * i as f64, 10, 0.1);
        }
        assert!(
            close(cc.last_sample, 100_000.0 / 0.11),
            "{}",
            cc.last_sample
        );
    }

    /// One ACK up to `una` (segments) arriving in `state`, after 100 segments were sent;
    /// returns the segments ns-3 counts for it.
    fn ns3_ack(count: &mut Ns3Count, state: CaState, una: u64) -> u64 {
        let mut s = Socket::new(MSS, 10.0, f64::INFINITY);
        (s.snd_una, s.snd_nxt, s.ca_state) = (una * u64::from(MSS), 100 * u64::from(MSS), state);
        count.on_ack(&s)
    }

    #[test]
    fn ns3_counts_a_recovered_window_twice() {
        // Segment 10 is lost; 20 segments above it come back as 20 duplicate ACKs
        // (3 in Disorder, then Recovery, entered with snd_nxt at 31): 1 each. The
        // retransmission's ACK, up to 31, ends recovery and counts 21 more: 41 for 21
        // segments delivered. A partial ACK would have counted 1.
        let mut c = Ns3Count::default();
        assert_eq!(ns3_ack(&mut c, CaState::Open, 10), 10);
        let mut counted = 0;
        for i in 0..20 {
            let state = if i < 3 {
                CaState::Disorder
            } else {
                CaState::Recovery
            };
            if i == 3 {
                let mut s = Socket::new(MSS, 10.0, f64::INFINITY);
                s.snd_nxt = 31 * u64::from(MSS);
                c.set_state(&s, CaState::Recovery);
            }
            counted += ns3_ack(&mut c, state, 10);
        }
        assert_eq!(counted, 20);
        let mut partial = c.clone();
        partial.recover = 200 * u64::from(MSS);
        assert_eq!(ns3_ack(&mut partial, CaState::Recovery, 31), 1);
        assert_eq!(ns3_ack(&mut c, CaState::Recovery, 31), 21);
        // In Disorder the duplicate ACKs are not counted twice.
        let mut c = Ns3Count::default();
        assert_eq!(ns3_ack(&mut c, CaState::Open, 10), 10);
        assert_eq!(ns3_ack(&mut c, CaState::Disorder, 10), 1);
        assert_eq!(ns3_ack(&mut c, CaState::Disorder, 13), 2);
    }

    #[test]
    fn the_count_reading_drives_the_estimate() {
        // A duplicate ACK reporting 2 SACKed segments: Linux counts 2, ns-3 1.
        for (count, bytes) in [("delivered", 2000.0), ("ns3", 1000.0)] {
            let (mut cc, mut s) = westwood(json!({ "count": count }));
            s.snd_nxt = 50 * u64::from(MSS);
            ack(&mut cc, &mut s, 1.0, 2, 0.05);
            assert_eq!(cc.acked_bytes, bytes, "{count}");
        }
    }

    #[test]
    fn impossible_parameters_are_rejected_with_the_key_and_range() {
        for (params, needle) in [
            (json!({ "count": "acks" }), "ns3"),
            (json!({ "sampling": "timer" }), "ns3"),
            (
                json!({ "min_interval_ms": -1.0 }),
                "min_interval_ms = -1: must be >= 0",
            ),
            (json!({ "filter": "kalman" }), "tustin"),
            (json!({ "loss_response": "later" }), "immediate"),
            (json!({ "alpha": 0.9 }), "alpha"),
        ] {
            let err = build(&params).err().expect("an error");
            assert!(err.contains(needle), "{params}: {err}");
        }
    }
}
