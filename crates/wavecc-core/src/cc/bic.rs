//! BIC TCP, Binary Increase Congestion control (Xu, Harfoush and Rhee, INFOCOM 2004),
//! as Linux `tcp_bic`.
//!
//! After a loss at window `W_max` the window drops to `beta W_max` (beta = 0.8) and
//! then *binary searches* for the largest window the path takes: each RTT it moves a
//! fraction of the way towards `W_max` (`(W_max - cwnd) / B`), at most `max_increment`
//! segments (the paper's `Smax`, additive increase while far away) and, once within
//! `B` segments, only `B / smooth_part` per RTT (the paper's `Smin` region). Above
//! `W_max` it *probes for a new maximum*: slowly first, then `(cwnd - W_max) / (B - 1)`
//! per RTT (exponential), then `max_increment` per RTT (linear). Fast convergence: a
//! loss below the previous `W_max` lowers `W_max` to `(1 + beta) / 2` of the window,
//! releasing bandwidth to newer flows. Up to `low_window` (14) segments the flow is
//! Reno: +1 per RTT, halved on loss. After a timeout everything learnt is forgotten.
//!
//! Linux versus the paper, both with defaults (Linux is followed, each constant is a
//! parameter): the paper searches to the midpoint (B = 2) with `Smax` = 32 and `Smin`
//! = 0.01; Linux uses B = 4, `max_increment` = 16 and a linear last stretch of
//! `smooth_part` = 20 RTTs (derived from `Smin`: `ln(B / (B Smin)) / ln(B / (B - 1)) + B`).
//! Linux then divides its ACK count by the measured segments per ACK (`delayed_ack`,
//! kept from the days when the count was of ACKs) although `tcp_cong_avoid_ai` now
//! counts segments, so with the usual delayed ACKs (2 segments each) the growth per
//! RTT doubles: half the distance, at most 32 segments (the paper's B = 2 and `Smax`),
//! 0.4 per RTT near `W_max`. `ack_ratio_scaling = false` gives the design rates
//! (a quarter of the distance, at most 16) at any ACK ratio, as ns-3 `TcpBic` does.
//!
//! Written in floating point from the paper and the behaviour of Linux `tcp_bic.c`
//! and ns-3 `tcp-bic.cc`. Linux's integer division in the search distance is kept
//! (`integer_distance`): it doubles the slow stretch below `W_max` (from B to 2B
//! segments) and so changes results; its other fixed-point artefacts (integer `cnt`,
//! 819/1024 for 0.8, at most one update per jiffy) are not reproduced.

use super::{
    CaState, CongestionControl, CwndEvent, Range, RateSample, Socket, check_ranges, parse_params,
    slow_start,
};
use serde::Deserialize;

pub const SUMMARY: &str = "BIC TCP (Xu et al. 2004, Linux tcp_bic): binary search towards the last \
     maximum, max probing above it, x0.8 on loss, Reno up to 14 segments";

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// Window kept on a loss above `low_window`: Linux 819/1024, ns-3 0.8.
    pub beta: f64,
    /// Largest increase per RTT (segments) while far from `W_max` and when probing
    /// far above it: Linux `max_increment` 16, ns-3 `MaxIncr` 16 (paper `Smax` 32,
    /// which the default reaches with delayed ACKs, see the module doc).
    pub max_increment: f64,
    /// Binary-search divisor B: each RTT covers `1/B` of the distance to `W_max`.
    /// Linux `BICTCP_B` 4, ns-3 `BinarySearchCoefficient` 4 (paper: 2, the midpoint).
    pub search_divisor: f64,
    /// RTTs spent on the last B segments below `W_max` and the first B above it (an
    /// increase of `B / smooth_part` per RTT): Linux 20 (from `Smin` = 0.01); ns-3's
    /// `SmoothPart` default is 5.
    pub smooth_part: f64,
    /// Up to this window (segments) BIC is Reno: Linux and ns-3 14.
    pub low_window: f64,
    /// Fast convergence on, as Linux and ns-3.
    pub fast_convergence: bool,
    /// `W_max` after a loss below the previous one, as a fraction of cwnd. Default
    /// (none) `(1 + beta) / 2` as Linux; ns-3 uses `beta`.
    pub fast_convergence_factor: Option<f64>,
    /// Least growth per RTT as a fraction of cwnd while no loss has set `W_max`
    /// (Linux caps `cnt` at 20: 5%), before the ACK-ratio scaling.
    pub no_loss_growth: f64,
    /// Linux's delayed-ACK compensation: divide the segments needed per increment by
    /// the measured segments per ACK (EWMA, weight 1/16, from 2, over every ACK in
    /// the Open state of the segments it acknowledges cumulatively, 0 for a duplicate
    /// ACK, as Linux `bictcp_acked`). On as Linux; off for ns-3 and the design rates.
    pub ack_ratio_scaling: bool,
    /// Search distance `(W_max - cwnd) / B` in whole segments, rounded down from
    /// integer windows, as Linux's u32 arithmetic (ns-3 computes it in floating point
    /// from integer windows).
    pub integer_distance: bool,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            beta: 0.8,
            max_increment: 16.0,
            search_divisor: 4.0,
            smooth_part: 20.0,
            low_window: 14.0,
            fast_convergence: true,
            fast_convergence_factor: None,
            no_loss_growth: 0.05,
            ack_ratio_scaling: true,
            integer_distance: true,
        }
    }
}

impl Params {
    /// Rejects values that make the algorithm meaningless, naming the key and range.
    fn validate(&self) -> Result<(), String> {
        use Range::*;
        check_ranges(&[
            ("beta", self.beta, OpenUnit),
            ("max_increment", self.max_increment, Positive),
            ("search_divisor", self.search_divisor, AboveOne),
            ("smooth_part", self.smooth_part, Positive),
            ("low_window", self.low_window, NonNegative),
            ("no_loss_growth", self.no_loss_growth, NonNegative),
        ])?;
        if let Some(f) = self
            .fast_convergence_factor
            .filter(|f| !(*f > 0.0 && *f <= 1.0))
        {
            return Err(format!("fast_convergence_factor = {f}: must be in (0, 1]"));
        }
        Ok(())
    }
}

/// Smallest slow-start threshold after a loss (Linux: 2 segments).
const MIN_SSTHRESH: f64 = 2.0;
/// Initial segments per ACK (Linux `delayed_ack` = 2 << 4) and the EWMA weight.
const INITIAL_ACK_RATIO: f64 = 2.0;
const ACK_RATIO_GAIN: f64 = 1.0 / 16.0;

pub struct Bic {
    p: Params,
    /// Window of the last loss, lowered by fast convergence; None until a loss and
    /// again after an RTO (Linux `last_max_cwnd` = 0).
    w_max: Option<f64>,
    /// Segments per ACK in the Open state (Linux `delayed_ack / 16`).
    ack_ratio: f64,
    /// `snd_una` at the previous ACK, to count the segments an ACK acknowledges
    /// cumulatively (Linux's `pkts_acked`; SACKed segments do not count).
    prev_una: u64,
    /// Segments acknowledged per segment of growth at the last avoidance ACK (Linux
    /// `cnt`), and the growth per RTT it means (`cwnd / cnt`); 0 before any.
    cnt: f64,
    increase_per_rtt: f64,
}

pub fn build(params: &serde_json::Value) -> Result<Box<dyn CongestionControl>, String> {
    let p = parse_params::<Params>(params)?;
    p.validate()?;
    Ok(Box::new(Bic::new(p)))
}

impl Bic {
    fn new(p: Params) -> Self {
        Self {
            p,
            w_max: None,
            ack_ratio: INITIAL_ACK_RATIO,
            prev_una: 0,
            cnt: 0.0,
            increase_per_rtt: 0.0,
        }
    }

    /// Linux `bictcp_reset`: at init and on RTO.
    fn reset(&mut self) {
        self.w_max = None;
        self.ack_ratio = INITIAL_ACK_RATIO;
    }

    /// Segments to acknowledge per segment of growth at window `cwnd` (Linux
    /// `bictcp_update`): the growth per RTT is `cwnd / cnt`.
    fn cnt(&self, cwnd: f64) -> f64 {
        let p = &self.p;
        if cwnd <= p.low_window {
            return cwnd; // Reno; Linux returns before the cap and the ACK-ratio scaling
        }
        let b = p.search_divisor;
        let max = self.w_max.unwrap_or(0.0);
        let mut cnt = if cwnd < max {
            // Binary search: 1/B of the distance per RTT, at most max_increment, and
            // B / smooth_part per RTT within B segments (one distance unit) of W_max.
            let dist = if p.integer_distance {
                ((max.floor() - cwnd.floor()) / b).floor()
            } else {
                (max - cwnd) / b
            };
            if dist > p.max_increment {
                cwnd / p.max_increment
            } else if dist <= 1.0 {
                cwnd * p.smooth_part / b
            } else {
                cwnd / dist
            }
        } else if cwnd < max + b {
            // Max probing, just above W_max: as slowly as just below it.
            cwnd * p.smooth_part / b
        } else if cwnd < max + p.max_increment * (b - 1.0) {
            // Then (cwnd - W_max) / (B - 1) per RTT: exponential growth...
            cwnd * (b - 1.0) / (cwnd - max)
        } else {
            // ...until that reaches max_increment: linear.
            cwnd / p.max_increment
        };
        if self.w_max.is_none() && p.no_loss_growth > 0.0 {
            cnt = cnt.min(1.0 / p.no_loss_growth);
        }
        if p.ack_ratio_scaling {
            cnt /= self.ack_ratio;
        }
        cnt.max(1.0)
    }
}

impl CongestionControl for Bic {
    fn name(&self) -> &'static str {
        "bic"
    }

    fn init(&mut self, sock: &mut Socket) {
        self.reset();
        self.prev_una = sock.snd_una;
    }

    /// Records `W_max` (with fast convergence), then `beta cwnd`, or half of it up to
    /// `low_window` (Linux `bictcp_recalc_ssthresh`).
    fn ssthresh(&mut self, sock: &Socket) -> f64 {
        let cwnd = sock.cwnd;
        let converging = self.p.fast_convergence && self.w_max.is_some_and(|w| cwnd < w);
        let factor = self
            .p
            .fast_convergence_factor
            .unwrap_or((1.0 + self.p.beta) / 2.0);
        self.w_max = Some(if converging { cwnd * factor } else { cwnd });
        let kept = if cwnd <= self.p.low_window {
            0.5
        } else {
            self.p.beta
        };
        (cwnd * kept).max(MIN_SSTHRESH)
    }

    fn cong_avoid(&mut self, sock: &mut Socket, acked: u32) {
        let acked = if sock.in_slow_start() {
            slow_start(sock, acked)
        } else {
            acked
        };
        if acked == 0 {
            return;
        }
        self.cnt = self.cnt(sock.cwnd);
        self.increase_per_rtt = sock.cwnd / self.cnt;
        sock.cwnd += f64::from(acked) / self.cnt;
    }

    /// Tracks segments per ACK in the Open state (Linux `bictcp_acked`, which sees
    /// every ACK, duplicates included, before the state machine runs on it).
    fn on_ack(&mut self, sock: &mut Socket, _rs: &RateSample) {
        let acked_bytes = sock.snd_una.saturating_sub(self.prev_una);
        self.prev_una = sock.snd_una;
        if sock.ca_state == CaState::Open {
            let segments = (acked_bytes as f64 / f64::from(sock.mss.max(1))).ceil();
            self.ack_ratio += (segments - self.ack_ratio) * ACK_RATIO_GAIN;
        }
    }

    fn set_state(&mut self, _sock: &mut Socket, new: CaState) {
        if new == CaState::Loss {
            self.reset();
        }
    }

    /// An RTO resets as entering the Loss state does (Linux calls `set_state` on
    /// every timeout, also when already in Loss).
    fn cwnd_event(&mut self, _sock: &mut Socket, event: CwndEvent) {
        if event == CwndEvent::Loss {
            self.reset();
        }
    }

    /// `w_max` is 0 before the first loss and after an RTO.
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.extend([
            ("w_max", self.w_max.unwrap_or(0.0)),
            ("cnt", self.cnt),
            ("increase_per_rtt", self.increase_per_rtt),
            ("ack_ratio", self.ack_ratio),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bic(params: serde_json::Value) -> Bic {
        let p = parse_params::<Params>(&params).unwrap();
        p.validate().unwrap();
        Bic::new(p)
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// A connection that lost at `w_max` (no earlier loss) and is now in congestion
    /// avoidance at `cwnd`.
    fn after_loss(cc: &mut Bic, w_max: f64, cwnd: f64) -> Socket {
        let mut s = Socket::new(1400, w_max, f64::INFINITY);
        s.ssthresh = cc.ssthresh(&s);
        s.cwnd = cwnd;
        s
    }

    /// Growth per RTT at window `cwnd` after a loss at `w_max`: one ACK of one segment
    /// adds `1 / cnt`, a window of them `cwnd / cnt`.
    fn per_rtt(params: serde_json::Value, w_max: f64, cwnd: f64) -> f64 {
        let mut cc = bic(params);
        let mut s = after_loss(&mut cc, w_max, cwnd);
        cc.cong_avoid(&mut s, 1);
        let per_ack = s.cwnd - cwnd;
        assert!(close(cc.increase_per_rtt, per_ack * cwnd, 1e-9));
        per_ack * cwnd
    }

    const DESIGN: fn() -> serde_json::Value = || json!({ "ack_ratio_scaling": false });

    #[test]
    fn binary_search_moves_half_the_distance_capped_at_32_with_delayed_acks() {
        // Loss at 1000. cwnd 960: distance 40, Linux B = 4 gives 10 per RTT, doubled
        // by the ACK-ratio scaling at 2 segments per ACK: 20, half the distance.
        assert!(close(per_rtt(json!({}), 1000.0, 960.0), 20.0, 1e-9));
        // cwnd 800: distance 200 -> 50 > 16: max_increment, doubled: 32 (Smax).
        assert!(close(per_rtt(json!({}), 1000.0, 800.0), 32.0, 1e-9));
        // cwnd 900: 100 / 4 = 25, just above the cap: 32 again, not 50.
        assert!(close(per_rtt(json!({}), 1000.0, 900.0), 32.0, 1e-9));
        // cwnd 936: 64 / 4 = 16, at the cap: the search step itself, 32.
        assert!(close(per_rtt(json!({}), 1000.0, 936.0), 32.0, 1e-9));
    }

    #[test]
    fn design_rates_are_a_quarter_of_the_distance_capped_at_16() {
        assert!(close(per_rtt(DESIGN(), 1000.0, 960.0), 10.0, 1e-9));
        assert!(close(per_rtt(DESIGN(), 1000.0, 800.0), 16.0, 1e-9));
        assert!(close(per_rtt(DESIGN(), 1000.0, 900.0), 16.0, 1e-9));
        // Paper constants: B = 2, Smax = 32: the midpoint, 20, and 32.
        let paper =
            json!({ "ack_ratio_scaling": false, "search_divisor": 2.0, "max_increment": 32.0 });
        assert!(close(per_rtt(paper.clone(), 1000.0, 960.0), 20.0, 1e-9));
        assert!(close(per_rtt(paper, 1000.0, 800.0), 32.0, 1e-9));
    }

    #[test]
    fn near_w_max_growth_is_b_over_smooth_part() {
        // Within one distance unit of 1000: 4 / 20 = 0.2 per RTT (0.4 with the scaling).
        assert!(close(per_rtt(DESIGN(), 1000.0, 996.0), 0.2, 1e-9));
        assert!(close(per_rtt(json!({}), 1000.0, 996.0), 0.4, 1e-9));
        // Linux's integer distance: 7 / 4 rounds down to 1, still the slow stretch;
        // in floating point 1.75 per RTT.
        assert!(close(per_rtt(DESIGN(), 1000.0, 993.0), 0.2, 1e-9));
        let float = json!({ "ack_ratio_scaling": false, "integer_distance": false });
        assert!(close(per_rtt(float, 1000.0, 993.0), 1.75, 1e-9));
        // Integer windows: 991.9 counts as 991, (1000 - 991) / 4 = 2.25 rounds down to
        // 2 per RTT; 999.5 counts as 999, distance 0.25 -> 0, the slow stretch.
        assert!(close(per_rtt(DESIGN(), 1000.0, 991.9), 2.0, 1e-9));
        assert!(close(per_rtt(DESIGN(), 1000.0, 999.5), 0.2, 1e-9));
        // ns-3's smooth_part 5: 0.8 per RTT.
        let ns3 = json!({ "ack_ratio_scaling": false, "smooth_part": 5.0 });
        assert!(close(per_rtt(ns3, 1000.0, 996.0), 0.8, 1e-9));
    }

    #[test]
    fn max_probing_above_w_max_starts_slow_then_exponential_then_linear() {
        // [1000, 1004): 0.2 per RTT; [1004, 1048): (cwnd - 1000) / 3; then 16.
        assert!(close(per_rtt(DESIGN(), 1000.0, 1000.0), 0.2, 1e-9));
        assert!(close(per_rtt(DESIGN(), 1000.0, 1003.0), 0.2, 1e-9));
        assert!(close(per_rtt(DESIGN(), 1000.0, 1006.0), 2.0, 1e-9));
        assert!(close(per_rtt(DESIGN(), 1000.0, 1030.0), 10.0, 1e-9));
        assert!(close(per_rtt(DESIGN(), 1000.0, 1048.0), 16.0, 1e-9));
        assert!(close(per_rtt(DESIGN(), 1000.0, 1500.0), 16.0, 1e-9));
        // Doubled with delayed ACKs: 20 at 1030, 32 at 1500.
        assert!(close(per_rtt(json!({}), 1000.0, 1030.0), 20.0, 1e-9));
        assert!(close(per_rtt(json!({}), 1000.0, 1500.0), 32.0, 1e-9));
    }

    #[test]
    fn growth_never_exceeds_one_segment_per_acked_segment() {
        // A tiny smooth_part near W_max gives cnt = 999 x 0.001 / 4 / 2 = 0.125,
        // raised to 1: an ACK of 3 segments adds 3, not 24.
        let mut cc = bic(json!({ "smooth_part": 0.001 }));
        let mut s = after_loss(&mut cc, 1000.0, 999.0);
        cc.cong_avoid(&mut s, 3);
        assert!(close(s.cwnd, 1002.0, 1e-9), "{}", s.cwnd);
    }

    #[test]
    fn low_window_region_is_reno() {
        // cwnd 10 <= 14: 1/10 per segment whatever the ACK ratio (Linux returns
        // before the scaling), halved on loss.
        let mut cc = bic(json!({}));
        let mut s = Socket::new(1400, 10.0, 5.0);
        cc.cong_avoid(&mut s, 1);
        assert!(close(s.cwnd, 10.1, 1e-12), "{}", s.cwnd);
        s.cwnd = 14.0;
        assert_eq!(cc.ssthresh(&s), 7.0);
        s.cwnd = 3.0;
        assert_eq!(cc.ssthresh(&s), 2.0);
        // Just above: beta.
        s.cwnd = 15.0;
        assert!(close(cc.ssthresh(&s), 12.0, 1e-12));
    }

    #[test]
    fn loss_keeps_beta_of_the_window() {
        let mut cc = bic(json!({}));
        let s = Socket::new(1400, 1000.0, f64::INFINITY);
        assert!(close(cc.ssthresh(&s), 800.0, 1e-9));
        assert_eq!(cc.w_max, Some(1000.0));
    }

    #[test]
    fn fast_convergence_lowers_w_max_on_a_loss_below_the_last_one() {
        let losses = |params, windows: &[f64]| {
            let mut cc = bic(params);
            let mut s = Socket::new(1400, 1.0, f64::INFINITY);
            windows
                .iter()
                .map(|&w| {
                    s.cwnd = w;
                    cc.ssthresh(&s);
                    cc.w_max.unwrap()
                })
                .collect::<Vec<_>>()
        };
        // 1000; 900 < 1000: 900 x (1 + 0.8) / 2 = 810; 850 > 810: plain 850.
        let w = losses(json!({}), &[1000.0, 900.0, 850.0]);
        assert!(
            w[0] == 1000.0 && close(w[1], 810.0, 1e-9) && w[2] == 850.0,
            "{w:?}"
        );
        assert_eq!(
            losses(json!({ "fast_convergence": false }), &[1000.0, 900.0]),
            [1000.0, 900.0]
        );
        // ns-3: beta x cwnd = 720.
        let w = losses(json!({ "fast_convergence_factor": 0.8 }), &[1000.0, 900.0]);
        assert!(close(w[1], 720.0, 1e-9), "{w:?}");
    }

    #[test]
    fn without_a_loss_growth_is_at_least_five_percent_per_rtt() {
        // No W_max: above 48 segments probing would give 16 per RTT; at 1000 the cap
        // cnt <= 20 gives 50 (5%), doubled by the scaling to 100.
        let mut cc = bic(json!({ "ack_ratio_scaling": false }));
        let mut s = Socket::new(1400, 1000.0, 1000.0);
        cc.cong_avoid(&mut s, 1);
        assert!(close(s.cwnd, 1000.05, 1e-9), "{}", s.cwnd);
        let mut cc = bic(json!({}));
        let mut s = Socket::new(1400, 1000.0, 1000.0);
        cc.cong_avoid(&mut s, 1);
        assert!(close(s.cwnd, 1000.1, 1e-9), "{}", s.cwnd);
        // At 30 (< 48): (30 - 0) / 3 = 10 per RTT, above 5%: unchanged by the cap.
        let mut cc = bic(json!({ "ack_ratio_scaling": false }));
        let mut s = Socket::new(1400, 30.0, 30.0);
        cc.cong_avoid(&mut s, 1);
        assert!(close(s.cwnd, 30.0 + 10.0 / 30.0, 1e-9), "{}", s.cwnd);
    }

    #[test]
    fn ack_ratio_follows_segments_per_ack_in_the_open_state_only() {
        let mut cc = bic(json!({}));
        let mut s = after_loss(&mut cc, 1000.0, 960.0);
        // An ACK advancing snd_una by `segments` (SACKed segments in the sample do
        // not count: Linux's pkts_acked is cumulative).
        let ack = |cc: &mut Bic, s: &mut Socket, segments: u64| {
            s.snd_una += segments * u64::from(s.mss);
            cc.on_ack(
                s,
                &RateSample {
                    acked_sacked: 3,
                    ..RateSample::default()
                },
            );
        };
        ack(&mut cc, &mut s, 4); // 2 + (4 - 2) / 16
        assert!(close(cc.ack_ratio, 2.125, 1e-12));
        s.ca_state = CaState::Recovery;
        ack(&mut cc, &mut s, 1);
        assert!(close(cc.ack_ratio, 2.125, 1e-12));
        // Per-segment ACKs bring it to 1: the step falls back to a quarter (10).
        s.ca_state = CaState::Open;
        for _ in 0..400 {
            ack(&mut cc, &mut s, 1);
        }
        assert!(close(cc.ack_ratio, 1.0, 1e-9), "{}", cc.ack_ratio);
        cc.cong_avoid(&mut s, 1);
        assert!(
            close(cc.increase_per_rtt, 10.0, 1e-6),
            "{}",
            cc.increase_per_rtt
        );
        // A duplicate ACK still in the Open state is a sample of 0: 1 - 1/16.
        ack(&mut cc, &mut s, 0);
        assert!(close(cc.ack_ratio, 0.9375, 1e-9), "{}", cc.ack_ratio);
        // A partial last segment counts as one.
        s.snd_una += 100;
        cc.on_ack(&mut s, &RateSample::default());
        assert!(
            close(cc.ack_ratio, 0.9375 + 0.0625 / 16.0, 1e-9),
            "{}",
            cc.ack_ratio
        );
    }

    #[test]
    fn ack_counting_starts_from_snd_una_at_init() {
        let mut cc = bic(json!({}));
        let mut s = Socket::new(1400, 100.0, f64::INFINITY);
        s.snd_una = 1_400_000;
        cc.init(&mut s);
        s.snd_una += 2 * 1400; // a delayed ACK of 2 segments: 2 + (2 - 2) / 16
        cc.on_ack(&mut s, &RateSample::default());
        assert_eq!(cc.ack_ratio, 2.0);
    }

    #[test]
    fn slow_start_then_leftover_to_avoidance() {
        let mut cc = bic(json!({ "ack_ratio_scaling": false }));
        let mut s = Socket::new(1400, 10.0, f64::INFINITY);
        cc.cong_avoid(&mut s, 2);
        assert_eq!(s.cwnd, 12.0);
        // 12 -> 13 = ssthresh, then one segment at Reno's 1/13.
        s.ssthresh = 13.0;
        cc.cong_avoid(&mut s, 2);
        assert!(close(s.cwnd, 13.0 + 1.0 / 13.0, 1e-12), "{}", s.cwnd);
    }

    #[test]
    fn rto_forgets_w_max_and_the_ack_ratio() {
        let rtos: [fn(&mut Bic, &mut Socket); 2] = [
            |cc, s| cc.set_state(s, CaState::Loss),
            |cc, s| cc.cwnd_event(s, CwndEvent::Loss),
        ];
        for rto in rtos {
            let mut cc = bic(json!({}));
            let mut s = after_loss(&mut cc, 1000.0, 960.0);
            cc.ack_ratio = 1.0;
            rto(&mut cc, &mut s);
            assert_eq!(cc.w_max, None);
            assert_eq!(cc.ack_ratio, 2.0);
        }
        // Recovery does not reset.
        let mut cc = bic(json!({}));
        let mut s = after_loss(&mut cc, 1000.0, 960.0);
        cc.set_state(&mut s, CaState::Recovery);
        assert_eq!(cc.w_max, Some(1000.0));
    }

    #[test]
    fn state_exports_the_search_variables() {
        let mut cc = bic(json!({}));
        let mut s = after_loss(&mut cc, 1000.0, 960.0);
        cc.cong_avoid(&mut s, 1);
        let mut state = Vec::new();
        cc.state(&mut state);
        // cnt = 960 / 10 / 2 = 48, 20 per RTT.
        assert_eq!(
            state,
            [
                ("w_max", 1000.0),
                ("cnt", 48.0),
                ("increase_per_rtt", 20.0),
                ("ack_ratio", 2.0)
            ]
        );
    }

    #[test]
    fn impossible_parameters_are_rejected_with_the_key_and_range() {
        for (params, needle) in [
            (json!({ "beta": 1.0 }), "beta = 1: must be in (0, 1)"),
            (json!({ "beta": 0.0 }), "beta = 0: must be in (0, 1)"),
            (
                json!({ "max_increment": 0.0 }),
                "max_increment = 0: must be > 0",
            ),
            (
                json!({ "search_divisor": 1.0 }),
                "search_divisor = 1: must be > 1",
            ),
            (
                json!({ "smooth_part": -1.0 }),
                "smooth_part = -1: must be > 0",
            ),
            (
                json!({ "low_window": -1.0 }),
                "low_window = -1: must be >= 0",
            ),
            (
                json!({ "no_loss_growth": -0.1 }),
                "no_loss_growth = -0.1: must be >= 0",
            ),
            (
                json!({ "fast_convergence_factor": 1.5 }),
                "fast_convergence_factor = 1.5: must be in (0, 1]",
            ),
            (json!({ "fast_convergence": 1 }), "fast_convergence"),
            (json!({ "smax": 32 }), "smax"),
        ] {
            let err = build(&params).err().expect("an error");
            assert!(err.contains(needle), "{params}: {err}");
        }
    }
}
