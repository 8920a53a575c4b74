//! What the thesis's three algorithms share (Abdulmajid, PhD thesis, UPM 2025, chapters
//! 4-6): RTTV-CCA ([`super::rttv`]), MSS-CCA ([`super::mss`]) and MRVHS-CCA
//! ([`super::mrvhs`]). All three track three RTTs, grow the window in congestion
//! avoidance by `F / cwnd` per acknowledged segment, and differ only in `F` and in the
//! decrease, so the algorithm lives here once ([`RttVariation`]) and each file chooses
//! its [`Growth`], [`Decrease`] and defaults.
//!
//! The thesis' Algorithms 4.1, 5.1 and 6.1 (identical but for F and line 21):
//! - `RTTbase` is the smallest RTT seen, `RTTmax` the largest, `RTTcur` the latest
//!   sample ("Acktime - Sendtime" of the last ACK);
//! - slow start `cwnd = cwnd + 1` per ACK below ssthresh;
//! - in congestion avoidance `TimeRatio = (RTTmax + RTTbase) / RTTcur`, an `F` from it,
//!   and `cwnd = cwnd + F / cwnd` per non-duplicate ACK, so about `F` segments per RTT;
//! - on three duplicate ACKs a multiplicative decrease; on a timeout the standard
//!   response (MSS-CCA's chapter 5 text: back to the initial window, slow start).
//!
//! Readings where the thesis is silent or differs from today's stacks, each a
//! parameter of all three algorithms:
//! - [`IncreasePer`]: per acknowledged segment by default (the project's reading, "per ACKed
//!   segment", as Linux's byte counting); `ack` is the pseudo-code's "+1 per ACK" in
//!   slow start and one `F / cwnd` per ACK in avoidance, which is also what an ns-3
//!   port of MRVHS does (it ignores `segmentsAcked`).
//! - [`RttSamples`]: the pseudo-code takes `rttcur` (and so updates `RTTbase`,
//!   `RTTmax`) only on ACKs processed in congestion avoidance (line 8 is in the `else`
//!   of the slow-start test), as the ns-3 port does; that is the default, `every_ack`
//!   tracks every sample as a Linux `pkts_acked` hook would (then `RTTmax` includes the
//!   queue built by slow start). An ACK without a sample reuses the last one, as ns-3's
//!   `m_lastRtt` does.
//! - Before any sample `TimeRatio` is taken as 2, the value when the three RTTs are
//!   equal (the ns-3 port skips the increase instead; after slow start a sample always
//!   exists, so this only matters for a connection that starts with a finite ssthresh).
//! - [`RtoWindow`]: the window a timeout leaves. The socket always applies the loss
//!   window of one segment; `initial` raises it to the initial window.
//! - The triple survives losses and timeouts: the thesis never resets it.

use super::{CongestionControl, RateSample, Socket, SsthreshBasis, highspeed, slow_start};
use serde::Deserialize;

/// Smallest slow-start threshold after a loss (RFC 5681: 2 segments).
const MIN_SSTHRESH: f64 = 2.0;

/// `TimeRatio` before any RTT sample: `(r + r) / r` for three equal RTTs.
const NEUTRAL_TIME_RATIO: f64 = 2.0;

/// What the window grows per, in slow start and congestion avoidance.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum IncreasePer {
    /// +1 per acknowledged segment in slow start (Reno, Linux), `F / cwnd` per
    /// acknowledged segment in avoidance: delayed ACKs grow as fast as per-segment ones.
    Segment,
    /// +1 per ACK in slow start and `F / cwnd` per ACK in avoidance, whatever the ACK
    /// covers (the pseudo-code literally, and ns-3): delayed ACKs halve the growth.
    Ack,
}

/// Which RTT samples update `RTTbase`, `RTTcur`, `RTTmax`.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RttSamples {
    /// Only ACKs that reach the congestion-avoidance increase (the thesis' pseudo-code).
    Avoidance,
    /// Every ACK carrying a sample, in every state.
    EveryAck,
}

/// The window after a retransmission timeout.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RtoWindow {
    /// The socket's loss window of one segment (RFC 5681, Linux, ns-3): "RTO standard".
    LossWindow,
    /// The initial window (`tcp.initial_cwnd_segments`), then slow start: MSS-CCA's
    /// "resets its cwnd to the initial value and triggers a slow start stage again".
    Initial,
}

/// The unit of MSS in MSS-CCA's and MRVHS-CCA's `F = sqrt(MSS x TimeRatio)`.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum MssUnit {
    /// Bytes (the project's decision): `F` is about `sqrt(2 x 1400) = 53` segments per RTT.
    Bytes,
    /// Segments (MSS = 1): `F = sqrt(TimeRatio)`, about 1.4 segments per RTT.
    Segments,
}

/// How `F`, the segments added per RTT in congestion avoidance, is computed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Growth {
    /// RTTV-CCA, Eq. 4.4: `F = sqrt(TimeRatio x cwnd)`, cwnd in segments.
    Window,
    /// MSS-CCA Eq. 5.4, MRVHS-CCA Eq. 6.5: `F = sqrt(MSS x TimeRatio)`.
    Mss(MssUnit),
}

impl Growth {
    fn f(self, time_ratio: f64, sock: &Socket) -> f64 {
        let scale = match self {
            Growth::Window => sock.cwnd,
            Growth::Mss(MssUnit::Bytes) => f64::from(sock.mss),
            Growth::Mss(MssUnit::Segments) => 1.0,
        };
        (scale * time_ratio).sqrt()
    }
}

/// The reduction on a loss detected by duplicate ACKs (and on a timeout's ssthresh).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Decrease {
    /// `w <- beta w` (RTTV-CCA, MSS-CCA: "multiplicative decrease").
    Beta(f64),
    /// `w <- (1 - b(w)) w`, RFC 3649's `b(w)` from [`highspeed::decrease_fraction`].
    HighSpeed,
    /// `w <- w - b(w) / w`, Eq. 6.2 as printed: a negligible decrease.
    HighSpeedLiteral,
}

impl Decrease {
    /// The reduced window (before the floor) and the fraction of `w` it takes off.
    fn apply(self, w: f64) -> (f64, f64) {
        let reduced = match self {
            Decrease::Beta(beta) => beta * w,
            Decrease::HighSpeed => (1.0 - highspeed::decrease_fraction(w)) * w,
            Decrease::HighSpeedLiteral => w - highspeed::decrease_fraction(w) / w.max(1.0),
        };
        (reduced, if w > 0.0 { 1.0 - reduced / w } else { 0.0 })
    }
}

/// The readings all three algorithms expose as parameters (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Knobs {
    pub increase_per: IncreasePer,
    pub rtt_samples: RttSamples,
    pub rto_window: RtoWindow,
    pub ssthresh_basis: SsthreshBasis,
}

/// The [`Knobs`] of an algorithm's `Params`, which all have these four fields.
macro_rules! knobs_of {
    ($p:expr) => {
        $crate::cc::rtt_variation::Knobs {
            increase_per: $p.increase_per,
            rtt_samples: $p.rtt_samples,
            rto_window: $p.rto_window,
            ssthresh_basis: $p.ssthresh_basis,
        }
    };
}
pub(super) use knobs_of;

/// `RTTbase` (minimum), `RTTcur` (latest) and `RTTmax` (maximum), in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct RttTriple {
    pub base: f64,
    pub cur: f64,
    pub max: f64,
}

impl Default for RttTriple {
    fn default() -> Self {
        Self {
            base: f64::INFINITY,
            cur: 0.0,
            max: 0.0,
        }
    }
}

impl RttTriple {
    /// Algorithm 4.1 lines 8-15. Non-positive samples are ignored.
    pub fn observe(&mut self, rtt: f64) {
        if rtt > 0.0 {
            self.cur = rtt;
            self.base = self.base.min(rtt);
            self.max = self.max.max(rtt);
        }
    }

    /// `(RTTmax + RTTbase) / RTTcur` (Eq. 5.3; RTTV's weight factor times 1).
    pub fn time_ratio(&self) -> f64 {
        if self.cur > 0.0 {
            (self.max + self.base) / self.cur
        } else {
            NEUTRAL_TIME_RATIO
        }
    }
}

/// One connection of RTTV-CCA, MSS-CCA or MRVHS-CCA.
pub(super) struct RttVariation {
    name: &'static str,
    growth: Growth,
    decrease: Decrease,
    knobs: Knobs,
    rtt: RttTriple,
    /// The latest RTT sample (ns-3 `m_lastRtt`), None before any.
    last_sample: Option<f64>,
    /// `TimeRatio` and `F` of the last congestion-avoidance increase (traces).
    time_ratio: f64,
    f: f64,
    /// Fraction of the window the last loss took off, 0 before any (traces).
    loss_fraction: f64,
}

impl RttVariation {
    pub fn new(name: &'static str, growth: Growth, decrease: Decrease, knobs: Knobs) -> Self {
        Self {
            name,
            growth,
            decrease,
            knobs,
            rtt: RttTriple::default(),
            last_sample: None,
            time_ratio: NEUTRAL_TIME_RATIO,
            f: 0.0,
            loss_fraction: 0.0,
        }
    }

    /// Eq. 4.5 / 5.6 / 6.6 for `n` increments: `cwnd += n F / cwnd`, F at the window
    /// before this ACK.
    fn grow(&mut self, sock: &mut Socket, n: u32) {
        if self.knobs.rtt_samples == RttSamples::Avoidance
            && let Some(r) = self.last_sample
        {
            self.rtt.observe(r);
        }
        self.time_ratio = self.rtt.time_ratio();
        self.f = self.growth.f(self.time_ratio, sock);
        sock.cwnd += self.f * f64::from(n) / sock.cwnd.max(1.0);
    }
}

impl CongestionControl for RttVariation {
    fn name(&self) -> &'static str {
        self.name
    }

    fn on_ack(&mut self, _sock: &mut Socket, rs: &RateSample) {
        if let Some(r) = rs.rtt_s {
            self.last_sample = Some(r);
            if self.knobs.rtt_samples == RttSamples::EveryAck {
                self.rtt.observe(r);
            }
        }
    }

    fn ssthresh(&mut self, sock: &Socket) -> f64 {
        let (reduced, fraction) = self.decrease.apply(self.knobs.ssthresh_basis.window(sock));
        self.loss_fraction = fraction;
        reduced.max(MIN_SSTHRESH)
    }

    fn cong_avoid(&mut self, sock: &mut Socket, acked: u32) {
        let left = match self.knobs.increase_per {
            IncreasePer::Segment if sock.in_slow_start() => slow_start(sock, acked),
            IncreasePer::Segment => acked,
            IncreasePer::Ack if sock.in_slow_start() && acked > 0 => {
                sock.cwnd += 1.0;
                u32::from(acked > 1)
            }
            IncreasePer::Ack => acked.min(1),
        };
        if left > 0 && !sock.in_slow_start() {
            self.grow(sock, left);
        }
    }

    /// A timeout restarts from the loss window, or from the initial window with
    /// `rto_window = "initial"`.
    fn loss_window(&self, sock: &Socket) -> f64 {
        match self.knobs.rto_window {
            RtoWindow::Initial => sock.initial_cwnd,
            RtoWindow::LossWindow => 1.0,
        }
    }

    /// `f` and `time_ratio` of the last avoidance increase, the RTT triple in seconds
    /// (`rtt_base_s` 0 before any sample), and `loss_decrease`, the fraction of the
    /// window the last loss took off (MRVHS: `b(w)`; 0 before any loss).
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        let base = if self.rtt.base.is_finite() {
            self.rtt.base
        } else {
            0.0
        };
        out.extend([
            ("f", self.f),
            ("time_ratio", self.time_ratio),
            ("rtt_base_s", base),
            ("rtt_cur_s", self.rtt.cur),
            ("rtt_max_s", self.rtt.max),
            ("loss_decrease", self.loss_fraction),
        ]);
    }
}

/// Helpers for the three algorithms' tests.
#[cfg(test)]
pub(super) mod testing {
    use super::*;
    use crate::cc::CaState;

    pub fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// An ACK carrying only an RTT sample.
    pub fn rtt_ack(rtt: f64) -> RateSample {
        RateSample {
            acked_sacked: 1,
            rtt_s: Some(rtt),
            ..RateSample::default()
        }
    }

    /// A socket in congestion avoidance at `cwnd` (MSS `mss`) whose algorithm has seen
    /// the RTT samples `rtts` on avoidance ACKs, the last one being RTTcur; the window
    /// is reset to `cwnd` afterwards, so the next ACK's growth can be checked by hand.
    pub fn primed(cc: &mut dyn CongestionControl, mss: u32, cwnd: f64, rtts: &[f64]) -> Socket {
        let mut s = Socket::new(mss, cwnd, 2.0);
        for &r in rtts {
            cc.on_ack(&mut s, &rtt_ack(r));
            cc.cong_avoid(&mut s, 1);
        }
        s.cwnd = cwnd;
        s
    }

    /// The window growth of one more single-segment avoidance ACK with RTT `rtt`.
    pub fn step(cc: &mut dyn CongestionControl, s: &mut Socket, rtt: f64) -> f64 {
        let before = s.cwnd;
        cc.on_ack(s, &rtt_ack(rtt));
        cc.cong_avoid(s, 1);
        s.cwnd - before
    }

    /// The named variable of `cc.state()`.
    pub fn traced(cc: &dyn CongestionControl, name: &str) -> f64 {
        let mut out = Vec::new();
        cc.state(&mut out);
        out.iter()
            .find(|(k, _)| *k == name)
            .unwrap_or_else(|| panic!("{name}: {out:?}"))
            .1
    }

    /// The socket's timeout sequence: ssthresh, CA_EVENT_LOSS, loss window, Loss state.
    pub fn timeout(cc: &mut dyn CongestionControl, s: &mut Socket) {
        s.ssthresh = cc.ssthresh(s).max(2.0);
        cc.cwnd_event(s, super::super::CwndEvent::Loss);
        s.cwnd = cc.loss_window(s);
        cc.set_state(s, CaState::Loss);
        s.ca_state = CaState::Loss;
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;

    fn engine(knobs: Knobs) -> RttVariation {
        RttVariation::new("test", Growth::Window, Decrease::Beta(0.5), knobs)
    }

    const DEFAULT: Knobs = Knobs {
        increase_per: IncreasePer::Segment,
        rtt_samples: RttSamples::Avoidance,
        rto_window: RtoWindow::LossWindow,
        ssthresh_basis: SsthreshBasis::Cwnd,
    };

    #[test]
    fn triple_tracks_min_latest_and_max() {
        let mut t = RttTriple::default();
        assert_eq!(t.time_ratio(), 2.0); // no sample yet: neutral
        for r in [0.2, 0.1, 0.4, 0.25, 0.0, -1.0] {
            t.observe(r);
        }
        assert_eq!(
            t,
            RttTriple {
                base: 0.1,
                cur: 0.25,
                max: 0.4
            }
        );
        // (0.4 + 0.1) / 0.25 = 2.
        assert!(close(t.time_ratio(), 2.0, 1e-12));
    }

    #[test]
    fn avoidance_sampling_ignores_slow_start_rtts() {
        // A 0.5 s sample in slow start, then 0.1 s in avoidance: the pseudo-code's
        // triple is (0.1, 0.1, 0.1), TimeRatio 2; tracking every ACK gives RTTmax 0.5,
        // TimeRatio (0.5 + 0.1) / 0.1 = 6.
        for (samples, ratio) in [(RttSamples::Avoidance, 2.0), (RttSamples::EveryAck, 6.0)] {
            let mut cc = engine(Knobs {
                rtt_samples: samples,
                ..DEFAULT
            });
            let mut s = Socket::new(1400, 10.0, 20.0);
            cc.on_ack(&mut s, &rtt_ack(0.5));
            cc.cong_avoid(&mut s, 1);
            assert_eq!(s.cwnd, 11.0, "slow start");
            s.ssthresh = 2.0;
            cc.on_ack(&mut s, &rtt_ack(0.1));
            cc.cong_avoid(&mut s, 1);
            assert!(
                close(traced(&cc, "time_ratio"), ratio, 1e-12),
                "{samples:?}"
            );
        }
    }

    #[test]
    fn an_ack_without_sample_reuses_the_last_one() {
        let mut cc = engine(DEFAULT);
        let mut s = primed(&mut cc, 1400, 50.0, &[0.1, 0.3]);
        cc.on_ack(&mut s, &RateSample::default());
        cc.cong_avoid(&mut s, 1);
        // RTTcur stays 0.3: (0.3 + 0.1) / 0.3.
        assert!(close(traced(&cc, "time_ratio"), 4.0 / 3.0, 1e-12));
    }

    #[test]
    fn per_segment_growth_counts_every_acknowledged_segment() {
        // TimeRatio 2 (one sample), cwnd 50: F = sqrt(2 x 50) = 10; 2 segments add
        // 2 x 10 / 50 = 0.4. Slow start adds 1 per segment and the rest goes to F.
        let mut cc = engine(DEFAULT);
        let mut s = primed(&mut cc, 1400, 50.0, &[0.1]);
        cc.cong_avoid(&mut s, 2);
        assert!(close(s.cwnd, 50.4, 1e-12), "{}", s.cwnd);
        let mut s = Socket::new(1400, 48.0, 50.0);
        cc.cong_avoid(&mut s, 4); // 48 -> 50, then 2 x sqrt(100) / 50
        assert!(close(s.cwnd, 50.4, 1e-12), "{}", s.cwnd);
    }

    #[test]
    fn per_ack_growth_ignores_what_the_ack_covers() {
        let mut cc = engine(Knobs {
            increase_per: IncreasePer::Ack,
            ..DEFAULT
        });
        let mut s = primed(&mut cc, 1400, 50.0, &[0.1]);
        cc.cong_avoid(&mut s, 2); // one F / cwnd = 10 / 50
        assert!(close(s.cwnd, 50.2, 1e-12), "{}", s.cwnd);
        let mut s = Socket::new(1400, 10.0, 20.0);
        cc.cong_avoid(&mut s, 2); // slow start: +1 per ACK
        assert_eq!(s.cwnd, 11.0);
        // Crossing ssthresh: +1, then one avoidance step: F = sqrt(2 x 50) = 10 at 50.
        let mut s = Socket::new(1400, 49.0, 50.0);
        cc.cong_avoid(&mut s, 3);
        assert!(close(s.cwnd, 50.2, 1e-12), "{}", s.cwnd);
    }

    #[test]
    fn timeout_leaves_the_loss_window_or_the_initial_window() {
        for (rto_window, cwnd) in [(RtoWindow::LossWindow, 1.0), (RtoWindow::Initial, 10.0)] {
            let mut cc = engine(Knobs {
                rto_window,
                ..DEFAULT
            });
            let mut s = primed(&mut cc, 1400, 60.0, &[0.1, 0.2]);
            s.initial_cwnd = 10.0;
            timeout(&mut cc, &mut s);
            assert_eq!((s.cwnd, s.ssthresh), (cwnd, 30.0), "{rto_window:?}");
            // The triple survives the timeout: (0.2 + 0.1) / 0.2.
            cc.cong_avoid(&mut Socket::new(1400, 40.0, 2.0), 1);
            assert!(close(traced(&cc, "time_ratio"), 1.5, 1e-12));
        }
    }

    #[test]
    fn decreases_by_hand() {
        assert_eq!(Decrease::Beta(0.5).apply(30.0), (15.0, 0.5));
        assert_eq!(Decrease::Beta(0.7).apply(100.0).0, 70.0);
        // b(1000) = 0.33 (ns-3 table): 670; b(30) = 0.5.
        let (w, b) = Decrease::HighSpeed.apply(1000.0);
        assert!(close(w, 670.0, 1e-9) && close(b, 0.33, 1e-12), "{w} {b}");
        assert_eq!(Decrease::HighSpeed.apply(30.0), (15.0, 0.5));
        // Eq. 6.2 as printed: 1000 - 0.33 / 1000.
        assert!(close(
            Decrease::HighSpeedLiteral.apply(1000.0).0,
            999.99967,
            1e-9
        ));
    }

    #[test]
    fn inflight_basis_reduces_the_flight_size() {
        let mut cc = engine(Knobs {
            ssthresh_basis: SsthreshBasis::Inflight,
            ..DEFAULT
        });
        let mut s = Socket::new(1400, 60.0, 2.0);
        s.in_flight = 40;
        assert_eq!(cc.ssthresh(&s), 20.0);
        s.in_flight = 3;
        assert_eq!(cc.ssthresh(&s), 2.0); // floor
    }
}
