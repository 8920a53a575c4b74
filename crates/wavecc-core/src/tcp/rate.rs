//! Delivery-rate sampling (draft-cheng-iccrg-delivery-rate-estimation, Linux
//! `tcp_rate.c`): every segment remembers how much had been delivered when it was
//! sent; when it is delivered, delivered-now minus delivered-then over the elapsed
//! time is a rate sample that queueing before the bottleneck cannot inflate.

use crate::engine::Time;

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
}

/// The sample being built while one ACK is processed.
#[derive(Debug, Clone, Copy, Default)]
pub struct PendingSample {
    prior: Option<TxState>,
    send_elapsed: Time,
    ack_elapsed: Time,
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
    /// The most recently sent delivered segment defines the sample.
    pub fn on_delivered(&mut self, tx: &TxState, now: Time, pending: &mut PendingSample) {
        self.delivered += 1;
        self.delivered_time = now;
        if pending.prior.is_none_or(|p| tx.delivered >= p.delivered && tx.sent_time >= p.sent_time) {
            pending.prior = Some(*tx);
            pending.send_elapsed = tx.sent_time - tx.first_sent_time;
            pending.ack_elapsed = now - tx.delivered_time;
            self.first_sent_time = tx.sent_time;
        }
    }

    /// Closes the sample of one ACK. Intervals shorter than the minimum RTT are
    /// discarded, as Linux does, because they come from ACK compression.
    pub fn finish(&mut self, pending: &PendingSample, min_rtt: Option<Time>) -> Option<Sample> {
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        let prior = pending.prior?;
        let interval = pending.send_elapsed.max(pending.ack_elapsed);
        if interval == 0 || min_rtt.is_some_and(|m| interval < m) {
            return None;
        }
        Some(Sample {
            delivered: self.delivered - prior.delivered,
            interval,
            prior_delivered: prior.delivered,
            app_limited: prior.app_limited,
        })
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
            last = r.finish(&p, Some(20 * MS));
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
        assert!(r.finish(&p, Some(10 * MS)).is_none());
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
            r.finish(&p, None);
        }
        let b = r.on_send(12 * MS, true);
        assert!(!b.app_limited, "cleared once more than the marked amount was delivered");
    }

    #[test]
    fn no_delivery_gives_no_sample() {
        let mut r = RateSampler::default();
        assert!(r.finish(&PendingSample::default(), None).is_none());
    }
}
