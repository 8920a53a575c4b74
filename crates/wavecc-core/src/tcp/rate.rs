//! Delivery-rate sampling (draft-cheng-iccrg-delivery-rate-estimation, Linux
//! `tcp_rate.c`): every segment remembers how much had been delivered when it was
//! sent; when it is delivered, delivered-now minus delivered-then over the elapsed
//! time is a rate sample that queueing before the bottleneck cannot inflate.

use crate::engine::Time;
use serde::{Deserialize, Serialize};

/// How each ACK's sample is formed (`tcp.rate_samples`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RateSamples {
    /// Linux `tcp_rate.c`: a fresh sample per ACK, from the most recently sent
    /// segment that ACK delivered.
    #[default]
    Linux,
    /// ns-3 3.37 `TcpRateLinux`: one sample kept across ACKs. A delivered segment
    /// replaces its reference only if sent with a higher `delivered` count, so an
    /// ACK of older segments reuses the previous reference and intervals; the ACK
    /// interval is measured from the previous reference's time (from 0 after an
    /// invalid sample, which clears it); and once a sample is invalid (interval below
    /// the minimum RTT) every ACK is, until a newer segment is delivered.
    Ns3,
}

/// Per-segment snapshot taken at (re)transmission.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TxState {
    pub sent_time: Time,
    pub first_sent_time: Time,
    pub delivered_time: Time,
    pub delivered: u64,
    pub app_limited: bool,
}

/// Connection-wide delivery counters.
#[derive(Debug, Clone, Default)]
pub struct RateSampler {
    /// Segments delivered so far.
    pub delivered: u64,
    delivered_time: Time,
    first_sent_time: Time,
    /// `delivered` value until which samples are app-limited; 0 when not.
    app_limited_until: u64,
    reading: RateSamples,
    /// ns-3's sample kept across ACKs, and its reference time (`m_priorTime`, None
    /// when ns-3 holds 0: at the start and after an invalid sample).
    kept: PendingSample,
    kept_time: Option<Time>,
}

/// The sample being built while one ACK is processed.
#[derive(Debug, Clone, Copy, Default)]
pub struct PendingSample {
    prior: Option<TxState>,
    /// The intervals, set as segments are delivered for ns-3's kept sample, and
    /// from `prior` when Linux's sample is closed.
    send_elapsed: Time,
    ack_elapsed: Time,
}

impl PendingSample {
    /// The newest segment this ACK delivered (the one that defines the sample), if
    /// any, even when the sample turns out invalid.
    pub fn newest(&self) -> Option<&TxState> {
        self.prior.as_ref()
    }
}

/// A finished sample: `delivered` segments over `interval` ns (None: invalid).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    pub delivered: u64,
    pub interval: Time,
    pub prior_delivered: u64,
    pub app_limited: bool,
}

impl RateSampler {
    pub fn new(reading: RateSamples) -> Self {
        Self {
            reading,
            ..Self::default()
        }
    }

    /// Snapshot for a segment sent at `now`. A send that starts from an empty pipe
    /// restarts the send and ACK clocks, so idle time never dilutes a sample.
    pub fn on_send(&mut self, now: Time, pipe_was_empty: bool) -> TxState {
        if pipe_was_empty {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        TxState {
            sent_time: now,
            first_sent_time: self.first_sent_time,
            delivered_time: self.delivered_time,
            delivered: self.delivered,
            app_limited: self.app_limited_until != 0,
        }
    }

    /// A segment was delivered (cumulatively or selectively acknowledged) at `now`.
    /// The most recently sent delivered segment defines the sample. Under Linux's
    /// reading it is only kept here: an ACK often delivers two segments, and what
    /// the kept one gives (its intervals, the send clock's new start) is worked out
    /// once, by [`Self::finish`], rather than for each segment that replaces another.
    pub fn on_delivered(&mut self, tx: &TxState, now: Time, pending: &mut PendingSample) {
        self.delivered += 1;
        self.delivered_time = now;
        if self.reading == RateSamples::Ns3 {
            // `TcpRateLinux::SkbDelivered`.
            if self
                .kept
                .prior
                .is_none_or(|p| p.delivered == 0 || tx.delivered > p.delivered)
            {
                self.kept.ack_elapsed = now - self.kept_time.unwrap_or(0);
                self.kept.prior = Some(*tx);
                self.kept.send_elapsed = tx.sent_time - tx.first_sent_time;
                self.kept_time = Some(tx.delivered_time).filter(|&t| t > 0);
                self.first_sent_time = tx.sent_time;
            }
            pending.prior = self.kept.prior;
            return;
        }
        if pending
            .prior
            .is_none_or(|p| tx.delivered >= p.delivered && tx.sent_time >= p.sent_time)
        {
            pending.prior = Some(*tx);
        }
    }

    /// Closes the sample of the ACK processed at `now`. Intervals shorter than the
    /// minimum RTT are discarded, as Linux does, because they come from ACK
    /// compression.
    pub fn finish(
        &mut self,
        pending: &PendingSample,
        now: Time,
        min_rtt: Option<Time>,
    ) -> Option<Sample> {
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        if self.reading == RateSamples::Ns3 {
            return self.finish_ns3(min_rtt);
        }
        let tx = pending.prior?;
        self.first_sent_time = tx.sent_time;
        let kept = PendingSample {
            prior: Some(tx),
            send_elapsed: tx.sent_time - tx.first_sent_time,
            ack_elapsed: now - tx.delivered_time,
        };
        Self::sample(&kept, self.delivered, min_rtt)
    }

    /// The sample a closed pending sample gives: none without a delivered segment to
    /// measure from or over an interval too short to trust.
    fn sample(pending: &PendingSample, delivered: u64, min_rtt: Option<Time>) -> Option<Sample> {
        let prior = pending.prior?;
        let interval = pending.send_elapsed.max(pending.ack_elapsed);
        if interval == 0 || min_rtt.is_some_and(|m| interval < m) {
            return None;
        }
        Some(Sample {
            delivered: delivered - prior.delivered,
            interval,
            prior_delivered: prior.delivered,
            app_limited: prior.app_limited,
        })
    }

    /// `TcpRateLinux::GenerateSample` on the kept sample.
    fn finish_ns3(&mut self, min_rtt: Option<Time>) -> Option<Sample> {
        self.kept_time?;
        let sample = Self::sample(&self.kept, self.delivered, min_rtt);
        if sample.is_none() && self.kept.prior.is_some() {
            self.kept_time = None; // an invalid sample clears the reference time
        }
        sample
    }

    /// The application ran out of data with `in_flight` segments outstanding: mark
    /// samples app-limited until those are delivered.
    pub fn on_app_limited(&mut self, in_flight: u64) {
        self.app_limited_until = (self.delivered + in_flight).max(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    #[test]
    fn steady_flow_measures_its_rate() {
        // 10 segments sent 1 ms apart, each delivered 20 ms after it was sent.
        let mut r = RateSampler::default();
        let tx: Vec<TxState> = (0..10).map(|i| r.on_send(i * MS, i == 0)).collect();
        let mut last = None;
        for (i, t) in tx.iter().enumerate() {
            let mut p = PendingSample::default();
            r.on_delivered(t, i as u64 * MS + 20 * MS, &mut p);
            last = r.finish(&p, i as u64 * MS + 20 * MS, Some(20 * MS));
        }
        // The last sample: 10 delivered since the first send... over max(9 ms, 29 ms).
        let s = last.unwrap();
        assert_eq!(s.delivered, 10);
        assert_eq!(s.interval, 29 * MS);
    }

    #[test]
    fn intervals_below_min_rtt_are_invalid() {
        let mut r = RateSampler::default();
        let a = r.on_send(0, true);
        let mut p = PendingSample::default();
        r.on_delivered(&a, 5 * MS, &mut p);
        assert!(r.finish(&p, 5 * MS, Some(10 * MS)).is_none());
        assert_eq!(r.delivered, 1);
    }

    #[test]
    fn app_limited_marks_samples_until_the_pipe_drains() {
        let mut r = RateSampler::default();
        r.on_app_limited(2);
        let a = r.on_send(0, true);
        assert!(a.app_limited);
        for t in [10 * MS, 11 * MS, 12 * MS] {
            let mut p = PendingSample::default();
            r.on_delivered(&a, t, &mut p);
            r.finish(&p, t, None);
        }
        let b = r.on_send(12 * MS, true);
        assert!(
            !b.app_limited,
            "cleared once more than the marked amount was delivered"
        );
    }

    /// Segments a and b sent at 100 and 101 ms; a delivered at 120 ms; c sent then
    /// and delivered at 121 ms (an original whose re-send c stands for); then b
    /// at 122 ms, older than c. Returns the samples of c's and b's ACKs.
    fn resend_pattern(
        reading: RateSamples,
        min_rtt: Time,
    ) -> (Option<Sample>, Option<Sample>, RateSampler) {
        let t0 = 100 * MS;
        let mut r = RateSampler::new(reading);
        let a = r.on_send(t0, true);
        let b = r.on_send(t0 + MS, false);
        let deliver = |r: &mut RateSampler, tx: &TxState, at: Time| {
            let mut p = PendingSample::default();
            r.on_delivered(tx, at, &mut p);
            r.finish(&p, at, Some(min_rtt))
        };
        deliver(&mut r, &a, t0 + 20 * MS);
        let c = r.on_send(t0 + 20 * MS, false);
        assert_eq!(c.delivered, 1);
        let on_c = deliver(&mut r, &c, t0 + 21 * MS);
        let on_b = deliver(&mut r, &b, t0 + 22 * MS);
        (on_c, on_b, r)
    }

    #[test]
    fn under_ns3_an_ack_of_older_segments_reuses_the_kept_reference() {
        // Linux: b's own sample, 3 delivered since b was sent over 22 ms (since the
        // delivery time b was sent with). ns-3 keeps c's reference and intervals:
        // 2 delivered since c over c's 21 ms.
        let sample = |d, i, p| {
            Some(Sample {
                delivered: d,
                interval: i * MS,
                prior_delivered: p,
                app_limited: false,
            })
        };
        assert_eq!(
            resend_pattern(RateSamples::Linux, 20 * MS).1,
            sample(3, 22, 0)
        );
        let (on_c, on_b, _) = resend_pattern(RateSamples::Ns3, 20 * MS);
        assert_eq!((on_c, on_b), (sample(1, 21, 1), sample(2, 21, 1)));
    }

    #[test]
    fn under_ns3_an_invalid_sample_stays_invalid_until_a_newer_segment_then_times_from_zero() {
        // Minimum RTT 21.5 ms: c's 21 ms is too short for both. Linux takes b's own
        // 22 ms; ns-3 has cleared its reference time and stays invalid.
        let min_rtt = 43 * MS / 2;
        let (on_c, on_b, _) = resend_pattern(RateSamples::Linux, min_rtt);
        assert!(on_c.is_none() && on_b.is_some());
        let (on_c, on_b, mut r) = resend_pattern(RateSamples::Ns3, min_rtt);
        assert_eq!((on_c, on_b), (None, None));
        // The next newer segment restarts ns-3's sample, its ACK interval measured
        // from time 0 (`m_priorTime` was cleared): over the whole run so far.
        let d = r.on_send(122 * MS, false);
        let mut p = PendingSample::default();
        r.on_delivered(&d, 150 * MS, &mut p);
        let s = r.finish(&p, 150 * MS, Some(min_rtt)).unwrap();
        assert_eq!(
            (s.delivered, s.interval, s.prior_delivered),
            (1, 150 * MS, 3)
        );
    }

    #[test]
    fn no_delivery_gives_no_sample() {
        let mut r = RateSampler::default();
        assert!(r.finish(&PendingSample::default(), 0, None).is_none());
    }
}
