//! YeAH-TCP (Baiocchi, Castellani and Vacirca, PFLDnet 2007), behaving like Linux
//! `tcp_yeah`.
//!
//! YeAH switches between a **fast mode**, Scalable TCP's aggressive increase (one
//! segment per `min(cwnd, 100)` acknowledged segments, i.e. about 1% per RTT on large
//! windows; Linux `tcp_cong_avoid_ai(tp, min(cwnd, TCP_SCALABLE_AI_CNT), acked)`),
//! and a **slow mode** with Reno's increase (one segment per RTT), using a Vegas-style
//! queue estimate taken once per RTT (same rounds as Vegas, and the same fallback:
//! a round with fewer than 3 RTT samples is skipped):
//!
//! - `Q = cwnd (RTT - baseRTT) / RTT`: segments queued at the bottleneck, with `RTT`
//!   the round's minimum and `baseRTT` the minimum ever;
//! - `L = (RTT - baseRTT) / baseRTT`: the congestion level.
//!
//! When `Q > alpha` (80) or `L > 1/phy` (1/8) the round runs in slow mode, otherwise in
//! fast mode. In slow mode with `Q > alpha`, and cwnd above `reno_count`, the
//! **precautionary decongestion** removes the queue it caused: cwnd drops by
//! `min(Q / gamma, cwnd / 2^epsilon)` (at most half the window), not below
//! `reno_count`, and ssthresh follows it.
//!
//! `reno_count` estimates the window share of competing Reno flows: the first slow
//! round sets it to `cwnd / 2`, each further one adds 1; after more than `zeta` (50)
//! consecutive fast rounds it falls back to 2. `doing_reno_now` counts consecutive slow
//! rounds: a loss after fewer than `rho` (16) of them is taken for a random loss or a
//! loss without Reno competition and reduces by the queue only, `reduction =
//! clamp(Q, cwnd / 2^delta, max(cwnd / 2, 2))` (1/8 to 1/2 of the window); after `rho`
//! of them YeAH competes with Reno flows and halves (Linux `tcp_yeah_ssthresh`). Each
//! loss also halves `reno_count` (at least 2) and zeroes the fast-round count.
//!
//! Written in floating point from the paper and the behaviour of Linux `tcp_yeah.c`
//! (the RTT rounds are Vegas', shared with `vegas.rs` as in Linux). Linux's integer
//! truncations (`Q`, shifts) are not reproduced. ns-3 `TcpYeah` readings are
//! parameters where they change results.

use super::newreno::{IncreasePer, reno_increase};
use super::vegas::RttRounds;
use super::{
    CaState, CongestionControl, CwndEvent, RateSample, SlowStartPer, Socket, SsthreshBasis,
    additive_increase, parse_params,
};
use serde::Deserialize;

pub const SUMMARY: &str = "YeAH (Baiocchi et al. 2007, Linux tcp_yeah): Scalable fast mode / Reno slow mode by queue delay";

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// Largest queue (segments) fast mode tolerates; more triggers decongestion (80).
    pub alpha: f64,
    /// Fraction `1/gamma` of the queue removed per decongestion (1).
    pub gamma: f64,
    /// Least fraction `1/2^delta` of the window removed on a loss (3: 1/8).
    pub delta: u32,
    /// Largest fraction `1/2^epsilon` of the window removed per decongestion (1: 1/2).
    pub epsilon: u32,
    /// Slow mode once the queueing delay exceeds `baseRTT / phy` (8).
    pub phy: f64,
    /// Consecutive slow rounds after which a loss is taken as Reno competition (16).
    pub rho: u32,
    /// Consecutive fast rounds after which `reno_count` is reset (50).
    pub zeta: u32,
    /// Fast mode adds one segment per `min(cwnd, stcp_ai_cnt)` acknowledged segments
    /// (Linux `TCP_SCALABLE_AI_CNT`, ns-3 `StcpAiFactor`: 100).
    pub stcp_ai_cnt: f64,
    /// RTT samples a round needs to be evaluated (Linux and ns-3: 3).
    pub min_rtt_samples: u32,
    /// Default `cwnd` as Linux; `inflight` reproduces ns-3.
    pub ssthresh_basis: SsthreshBasis,
    /// ns-3 compares `L > 1 / m_phy` in integer arithmetic, i.e. `L > 0` for phy >= 2:
    /// any queueing delay selects slow mode. Off (Linux's `L > 1/phy`); on reproduces
    /// ns-3's `TcpYeah`.
    pub phy_integer_division: bool,
    /// Forget `baseRTT` and start a fresh round when the sender restarts with nothing
    /// in flight (Linux `CA_EVENT_TX_START` via `tcp_vegas_cwnd_event`). On as Linux;
    /// ns-3 has no such event.
    pub restart_on_idle: bool,
    /// Slow start per acknowledged segment (`segment`, Linux) or one segment per ACK
    /// (`ack`): ns-3's `TcpYeah::IncreaseWindow` calls `TcpNewReno::SlowStart` and
    /// drops what it leaves over, so an ACK in slow start grows nothing else.
    pub slow_start_per: SlowStartPer,
    /// Slow mode's Reno increase: per acknowledged segment (`segment`, Linux
    /// `tcp_cong_avoid_ai`), per ACK (`ack`), or per ACK in whole bytes (`ack_bytes`,
    /// ns-3: `TcpNewReno::CongestionAvoidance`, `max(1, MSS^2 / cwnd)` bytes per ACK),
    /// where delayed ACKs halve the growth to half a segment per RTT.
    pub reno_increase_per: IncreasePer,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            alpha: 80.0,
            gamma: 1.0,
            delta: 3,
            epsilon: 1,
            phy: 8.0,
            rho: 16,
            zeta: 50,
            stcp_ai_cnt: 100.0,
            min_rtt_samples: 3,
            ssthresh_basis: SsthreshBasis::Cwnd,
            phy_integer_division: false,
            restart_on_idle: true,
            slow_start_per: SlowStartPer::Segment,
            reno_increase_per: IncreasePer::Segment,
        }
    }
}

impl Params {
    /// Rejects values that make the algorithm meaningless, naming the key and range.
    fn validate(&self) -> Result<(), String> {
        let positive = [
            ("gamma", self.gamma),
            ("phy", self.phy),
            ("stcp_ai_cnt", self.stcp_ai_cnt),
        ];
        if let Some((key, v)) = positive.iter().find(|(_, v)| !(*v > 0.0 && v.is_finite())) {
            return Err(format!("{key} = {v}: must be > 0 and finite"));
        }
        if !(self.alpha >= 0.0 && self.alpha.is_finite()) {
            return Err(format!("alpha = {}: must be >= 0 and finite", self.alpha));
        }
        for (key, v) in [("delta", self.delta), ("epsilon", self.epsilon)] {
            if v > 30 {
                return Err(format!("{key} = {v}: must be in [0, 30] (cwnd / 2^{key})"));
            }
        }
        if self.min_rtt_samples == 0 {
            return Err("min_rtt_samples = 0: must be >= 1".into());
        }
        Ok(())
    }
}

/// Smallest ssthresh, and the floor of `reno_count` (Linux: 2 segments).
const MIN_WINDOW: f64 = 2.0;

pub struct Yeah {
    p: Params,
    rtt: RttRounds,
    /// Queue estimate of the last evaluated round, segments (Linux `lastQ`).
    last_q: f64,
    /// Consecutive slow rounds; 0 means fast mode (Linux `doing_reno_now`).
    doing_reno_now: u32,
    /// Estimated window share of competing Reno flows, segments (Linux `reno_count`).
    reno_count: f64,
    /// Consecutive fast rounds since the last reset (Linux `fast_count`).
    fast_count: u32,
    /// For the traces: the last round's minimum RTT and the decongestions so far.
    last_min_rtt: f64,
    decongestions: u32,
}

pub fn build(params: &serde_json::Value) -> Result<Box<dyn CongestionControl>, String> {
    let p = parse_params::<Params>(params)?;
    p.validate()?;
    Ok(Box::new(Yeah::new(p)))
}

impl Yeah {
    fn new(p: Params) -> Self {
        Self {
            p,
            rtt: RttRounds::new(0),
            last_q: 0.0,
            doing_reno_now: 0,
            reno_count: MIN_WINDOW,
            fast_count: 0,
            last_min_rtt: 0.0,
            decongestions: 0,
        }
    }

    fn fast_mode(&self) -> bool {
        self.doing_reno_now == 0
    }

    /// The once-per-RTT evaluation with the round's minimum RTT `rtt` (seconds).
    fn end_of_round(&mut self, sock: &mut Socket, rtt: f64) {
        let p = &self.p;
        let base = self.rtt.base_rtt;
        let queue = sock.cwnd * (rtt - base) / rtt;
        let level_limit = if p.phy_integer_division {
            (1.0 / p.phy).floor()
        } else {
            1.0 / p.phy
        };
        if queue > p.alpha || (rtt - base) / base > level_limit {
            if queue > p.alpha && sock.cwnd > self.reno_count {
                let reduction = (queue / p.gamma).min(sock.cwnd / 2f64.powi(p.epsilon as i32));
                sock.cwnd = (sock.cwnd - reduction).max(self.reno_count);
                sock.ssthresh = sock.cwnd;
                self.decongestions += 1;
            }
            self.reno_count = if self.reno_count <= MIN_WINDOW {
                (sock.cwnd / 2.0).max(MIN_WINDOW)
            } else {
                self.reno_count + 1.0
            };
            self.doing_reno_now = self.doing_reno_now.saturating_add(1);
        } else {
            self.fast_count += 1;
            if self.fast_count > p.zeta {
                self.reno_count = MIN_WINDOW;
                self.fast_count = 0;
            }
            self.doing_reno_now = 0;
        }
        self.last_q = queue;
        self.last_min_rtt = rtt;
    }
}

impl CongestionControl for Yeah {
    fn name(&self) -> &'static str {
        "yeah"
    }

    fn init(&mut self, sock: &mut Socket) {
        *self = Self::new(self.p.clone());
        self.rtt.reset(sock.snd_nxt);
    }

    fn ssthresh(&mut self, sock: &Socket) -> f64 {
        let w = self.p.ssthresh_basis.window(sock);
        let half = (w / 2.0).max(MIN_WINDOW);
        let reduction = if self.doing_reno_now < self.p.rho {
            // Linux: min(Q, half), then at least w / 2^delta (ns-3 applies the two
            // bounds in the other order; as w / 2^delta < half they agree).
            self.last_q
                .min(half)
                .max(w / 2f64.powi(self.p.delta as i32))
        } else {
            half
        };
        self.fast_count = 0;
        self.reno_count = (self.reno_count / 2.0).max(MIN_WINDOW);
        (w - reduction).max(MIN_WINDOW)
    }

    /// Linux `tcp_yeah_cong_avoid`: slow start, then the mode's increase with what is
    /// left of the ACK; the round evaluation runs on every call, slow start included.
    fn cong_avoid(&mut self, sock: &mut Socket, acked: u32) {
        let acked = if sock.in_slow_start() {
            let left = self.p.slow_start_per.grow(sock, acked);
            // ns-3's YeAH drops what its per-ACK slow start leaves over.
            if self.p.slow_start_per == SlowStartPer::Ack {
                0
            } else {
                left
            }
        } else {
            acked
        };
        if self.fast_mode() {
            if acked > 0 {
                additive_increase(sock, sock.cwnd.min(self.p.stcp_ai_cnt), acked);
            }
        } else {
            reno_increase(sock, acked, self.p.reno_increase_per);
        }
        if let Some(round) = self.rtt.end_round(sock.snd_una, sock.snd_nxt)
            && round.samples >= self.p.min_rtt_samples
        {
            self.end_of_round(sock, round.min_rtt);
        }
    }

    fn on_ack(&mut self, _sock: &mut Socket, rs: &RateSample) {
        if let Some(rtt) = rs.rtt_s {
            self.rtt.sample(rtt);
        }
    }

    /// Linux `tcp_vegas_state`: a fresh round whenever the connection is Open again.
    fn set_state(&mut self, sock: &mut Socket, new: CaState) {
        if new == CaState::Open {
            self.rtt.restart_round(sock.snd_nxt);
        }
    }

    fn cwnd_event(&mut self, sock: &mut Socket, event: CwndEvent) {
        if event == CwndEvent::TxStart && self.p.restart_on_idle {
            self.rtt.reset(sock.snd_nxt);
        }
    }

    /// `mode` 1 = fast (Scalable), 0 = slow (Reno); `queue` in segments; RTTs in ms.
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        let base = self.rtt.base_rtt;
        out.extend([
            ("mode", f64::from(u8::from(self.fast_mode()))),
            ("queue", self.last_q),
            ("reno_count", self.reno_count),
            ("doing_reno_now", f64::from(self.doing_reno_now)),
            ("fast_count", f64::from(self.fast_count)),
            ("decongestions", f64::from(self.decongestions)),
            (
                "base_rtt_ms",
                if base.is_finite() { base * 1e3 } else { 0.0 },
            ),
            ("min_rtt_ms", self.last_min_rtt * 1e3),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const MSS: u32 = 1000;
    const SEG: u64 = MSS as u64;

    fn yeah(params: serde_json::Value) -> Yeah {
        let p = parse_params::<Params>(&params).unwrap();
        p.validate().unwrap();
        Yeah::new(p)
    }

    /// A connection at `cwnd`/`ssthresh` with 100 segments sent, YeAH initialised
    /// (the first round ends when the ACK passes segment 100), baseRTT 100 ms from an
    /// earlier sample.
    fn setup(params: serde_json::Value, cwnd: f64, ssthresh: f64) -> (Yeah, Socket) {
        let mut cc = yeah(params);
        let mut s = Socket::new(MSS, cwnd, ssthresh);
        s.snd_nxt = 100 * SEG;
        cc.init(&mut s);
        cc.on_ack(&mut s, &rtt(0.1));
        cc.rtt.restart_round(s.snd_nxt); // the base sample stays out of the first round
        (cc, s)
    }

    fn rtt(rtt_s: f64) -> RateSample {
        RateSample {
            acked_sacked: 1,
            rtt_s: Some(rtt_s),
            ..RateSample::default()
        }
    }

    /// Ends the current round with three RTT samples of `rtt_s` and an ACK of
    /// `acked` segments passing the round's end.
    fn round(cc: &mut Yeah, s: &mut Socket, rtt_s: f64, acked: u32) {
        for _ in 0..3 {
            cc.on_ack(s, &rtt(rtt_s));
        }
        s.snd_una = cc.rtt.end_seq() + SEG;
        s.snd_nxt = s.snd_una + 100 * SEG;
        cc.cong_avoid(s, acked);
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn fast_mode_adds_one_segment_per_hundred_acked_on_large_windows() {
        let (mut cc, mut s) = setup(json!({}), 500.0, 100.0);
        s.snd_una = 10 * SEG; // inside the round: growth only
        cc.cong_avoid(&mut s, 2);
        assert!(close(s.cwnd, 500.02), "{}", s.cwnd); // 2 / min(500, 100)
        // Below 100 segments, one per window: 2 / 50.
        let (mut cc, mut s) = setup(json!({}), 50.0, 10.0);
        s.snd_una = 10 * SEG;
        cc.cong_avoid(&mut s, 2);
        assert!(close(s.cwnd, 50.04), "{}", s.cwnd);
    }

    #[test]
    fn slow_mode_adds_one_segment_per_window() {
        let (mut cc, mut s) = setup(json!({}), 500.0, 100.0);
        cc.doing_reno_now = 1;
        s.snd_una = 10 * SEG;
        cc.cong_avoid(&mut s, 2);
        assert!(close(s.cwnd, 500.004), "{}", s.cwnd); // 2 / 500
    }

    #[test]
    fn slow_start_then_the_rest_in_the_current_mode() {
        let (mut cc, mut s) = setup(json!({}), 50.0, 51.0);
        s.snd_una = 10 * SEG;
        cc.cong_avoid(&mut s, 3); // 1 segment to reach 51, 2 more at 2/51
        assert!(close(s.cwnd, 51.0 + 2.0 / 51.0), "{}", s.cwnd);
    }

    #[test]
    fn ns3_slow_mode_grows_per_ack_in_whole_bytes() {
        // ns-3's TcpNewReno::CongestionAvoidance: an ACK for 2 segments at cwnd 300
        // (1000-byte segments) adds (uint32_t) max(1, 1000 / 300) = 3 bytes, not 2 / 300
        // of a segment; half the per-segment growth with delayed ACKs.
        let params = json!({ "reno_increase_per": "ack_bytes" });
        let (mut cc, mut s) = setup(params.clone(), 300.0, 100.0);
        cc.doing_reno_now = 1;
        s.snd_una = 10 * SEG;
        cc.cong_avoid(&mut s, 2);
        assert!(close(s.cwnd, 300.003), "{}", s.cwnd);
        // Per ACK without the truncation: 1 / 300.
        let (mut cc, mut s) = setup(json!({ "reno_increase_per": "ack" }), 300.0, 100.0);
        cc.doing_reno_now = 1;
        s.snd_una = 10 * SEG;
        cc.cong_avoid(&mut s, 2);
        assert!(close(s.cwnd, 300.0 + 1.0 / 300.0), "{}", s.cwnd);
        // Fast mode keeps Scalable's per-segment increase: 2 / min(300, 100).
        let (mut cc, mut s) = setup(params, 300.0, 100.0);
        s.snd_una = 10 * SEG;
        cc.cong_avoid(&mut s, 2);
        assert!(close(s.cwnd, 300.02), "{}", s.cwnd);
    }

    #[test]
    fn ns3_slow_start_adds_one_segment_per_ack_and_nothing_more() {
        // ns-3's TcpYeah::IncreaseWindow: TcpNewReno::SlowStart's +1 segment for the
        // ACK, and what the ACK leaves over is dropped even once cwnd reaches ssthresh.
        let (mut cc, mut s) = setup(json!({ "slow_start_per": "ack" }), 50.0, 51.0);
        s.snd_una = 10 * SEG;
        cc.cong_avoid(&mut s, 3);
        assert_eq!(s.cwnd, 51.0);
        let (mut cc, mut s) = setup(json!({ "slow_start_per": "ack" }), 20.0, 100.0);
        s.snd_una = 10 * SEG;
        cc.cong_avoid(&mut s, 2);
        assert_eq!(s.cwnd, 21.0);
    }

    #[test]
    fn small_queueing_delay_keeps_fast_mode() {
        // cwnd 50, RTT 110 ms: Q = 50 x 10 / 110 = 4.5 <= 80, L = 0.1 <= 1/8.
        let (mut cc, mut s) = setup(json!({}), 50.0, 10.0);
        round(&mut cc, &mut s, 0.11, 0);
        assert!(cc.fast_mode() && cc.fast_count == 1);
        assert!(close(cc.last_q, 500.0 / 110.0), "{}", cc.last_q);
    }

    #[test]
    fn a_queueing_delay_above_base_over_phy_selects_slow_mode() {
        // RTT 113 ms: L = 0.13 > 1/8 while Q = 50 x 13 / 113 = 5.75 <= 80: slow mode
        // without decongestion; the first slow round sets reno_count = 50 / 2.
        let (mut cc, mut s) = setup(json!({}), 50.0, 10.0);
        round(&mut cc, &mut s, 0.113, 0);
        assert!(!cc.fast_mode() && cc.doing_reno_now == 1);
        assert_eq!((s.cwnd, cc.reno_count), (50.0, 25.0));
        // The next slow round adds one to reno_count.
        round(&mut cc, &mut s, 0.113, 0);
        assert_eq!((cc.doing_reno_now, cc.reno_count), (2, 26.0));
        // A round back at the base RTT returns to fast mode.
        round(&mut cc, &mut s, 0.1, 0);
        assert!(cc.fast_mode());
    }

    #[test]
    fn ns3_integer_phy_makes_any_queueing_delay_slow() {
        // RTT 101 ms: L = 0.01, above 0 = 1 / 8 in integers, below 1/8.
        let (mut cc, mut s) = setup(json!({}), 50.0, 10.0);
        round(&mut cc, &mut s, 0.101, 0);
        assert!(cc.fast_mode());
        let (mut cc, mut s) = setup(json!({ "phy_integer_division": true }), 50.0, 10.0);
        round(&mut cc, &mut s, 0.101, 0);
        assert!(!cc.fast_mode());
    }

    #[test]
    fn precautionary_decongestion_removes_the_queue() {
        // cwnd 1000, RTT 110 ms: Q = 1000 x 10 / 110 = 90.9 > 80; cwnd 1000 > reno_count
        // 2; reduction min(90.9, 1000 / 2) = 90.9: cwnd = ssthresh = 909.1. reno_count
        // then becomes 909.1 / 2.
        let (mut cc, mut s) = setup(json!({}), 1000.0, 500.0);
        round(&mut cc, &mut s, 0.11, 0);
        let expected = 1000.0 - 10_000.0 / 110.0;
        assert!(
            close(s.cwnd, expected) && close(s.ssthresh, expected),
            "{} {}",
            s.cwnd,
            s.ssthresh
        );
        assert!(close(cc.reno_count, expected / 2.0));
        assert_eq!((cc.doing_reno_now, cc.decongestions), (1, 1));
    }

    #[test]
    fn decongestion_removes_at_most_cwnd_over_two_to_the_epsilon_and_stops_at_reno_count() {
        // cwnd 200, RTT 200 ms: Q = 100 > 80 and L = 1: reduction min(100, 200 / 2^2) = 50.
        let (mut cc, mut s) = setup(json!({ "epsilon": 2 }), 200.0, 100.0);
        round(&mut cc, &mut s, 0.2, 0);
        assert_eq!(s.cwnd, 150.0);
        // reno_count 180 < cwnd 200: the cut stops at 180 instead of 100.
        let (mut cc, mut s) = setup(json!({}), 200.0, 100.0);
        cc.reno_count = 180.0;
        round(&mut cc, &mut s, 0.2, 0);
        assert_eq!((s.cwnd, s.ssthresh), (180.0, 180.0));
        assert_eq!(cc.reno_count, 181.0);
        // cwnd not above reno_count: no decongestion at all.
        let (mut cc, mut s) = setup(json!({}), 200.0, 100.0);
        cc.reno_count = 200.0;
        round(&mut cc, &mut s, 0.2, 0);
        assert_eq!((s.cwnd, cc.decongestions), (200.0, 0));
    }

    #[test]
    fn decongestion_in_slow_start_ends_slow_start() {
        // Q = 200 x 100 / 200 = 100 > 80: cwnd = ssthresh = 100.
        let (mut cc, mut s) = setup(json!({}), 200.0, f64::INFINITY);
        round(&mut cc, &mut s, 0.2, 0);
        assert_eq!((s.cwnd, s.ssthresh), (100.0, 100.0));
    }

    #[test]
    fn more_than_zeta_fast_rounds_reset_reno_count() {
        let (mut cc, mut s) = setup(json!({ "zeta": 2 }), 50.0, 10.0);
        cc.reno_count = 30.0;
        for _ in 0..2 {
            round(&mut cc, &mut s, 0.1, 0);
        }
        assert_eq!((cc.fast_count, cc.reno_count), (2, 30.0));
        round(&mut cc, &mut s, 0.1, 0); // the third: 3 > 2
        assert_eq!((cc.fast_count, cc.reno_count), (0, 2.0));
    }

    #[test]
    fn rounds_with_too_few_rtt_samples_are_skipped() {
        let (mut cc, mut s) = setup(json!({}), 50.0, 10.0);
        cc.on_ack(&mut s, &rtt(0.2)); // 2 samples < 3
        cc.on_ack(&mut s, &rtt(0.2));
        s.snd_una = 101 * SEG;
        s.snd_nxt = 200 * SEG;
        cc.cong_avoid(&mut s, 0);
        assert!(cc.fast_mode() && cc.fast_count == 0 && cc.last_q == 0.0);
        assert_eq!(cc.rtt.end_seq(), 200 * SEG); // but a new round started
    }

    #[test]
    fn loss_without_reno_competition_removes_the_queue_between_an_eighth_and_a_half() {
        let (mut cc, mut s) = setup(json!({}), 100.0, f64::INFINITY);
        cc.reno_count = 20.0;
        cc.fast_count = 7;
        cc.last_q = 30.0; // within [100 / 8, 50]: ssthresh 100 - 30
        assert_eq!(cc.ssthresh(&s), 70.0);
        assert_eq!((cc.reno_count, cc.fast_count), (10.0, 0));
        cc.last_q = 5.0; // below 100 / 8: 100 - 12.5
        assert_eq!(cc.ssthresh(&s), 87.5);
        cc.last_q = 80.0; // above half: 100 - 50
        assert_eq!(cc.ssthresh(&s), 50.0);
        assert_eq!(cc.reno_count, 2.5); // halved at each loss: 20, 10, 5, 2.5
        s.cwnd = 3.0; // reduction max(min(80, 2), 0.375) = 2: 1, floored at 2
        assert_eq!(cc.ssthresh(&s), 2.0);
        assert_eq!(cc.reno_count, 2.0); // 1.25, floored at 2
    }

    #[test]
    fn loss_after_rho_slow_rounds_halves() {
        let (mut cc, s) = setup(json!({}), 100.0, f64::INFINITY);
        cc.last_q = 10.0;
        cc.doing_reno_now = 15;
        assert_eq!(cc.ssthresh(&s), 87.5); // 15 < 16: max(min(10, 50), 12.5)
        cc.doing_reno_now = 16;
        assert_eq!(cc.ssthresh(&s), 50.0);
    }

    #[test]
    fn inflight_basis_reduces_the_flight_size() {
        let (mut cc, mut s) = setup(
            json!({ "ssthresh_basis": "inflight" }),
            100.0,
            f64::INFINITY,
        );
        s.in_flight = 80;
        cc.last_q = 30.0;
        assert_eq!(cc.ssthresh(&s), 50.0); // 80 - clamp(30, 10, 40)
    }

    #[test]
    fn open_state_restarts_the_round_and_idle_restart_forgets_the_base_rtt() {
        let (mut cc, mut s) = setup(json!({}), 50.0, 10.0);
        s.snd_nxt = 700 * SEG;
        cc.set_state(&mut s, CaState::Recovery);
        assert_eq!(cc.rtt.end_seq(), 100 * SEG);
        cc.set_state(&mut s, CaState::Open);
        assert_eq!((cc.rtt.end_seq(), cc.rtt.base_rtt), (700 * SEG, 0.1));
        cc.cwnd_event(&mut s, CwndEvent::TxStart);
        assert_eq!(cc.rtt.base_rtt, f64::INFINITY);
        let (mut cc, mut s) = setup(json!({ "restart_on_idle": false }), 50.0, 10.0);
        cc.cwnd_event(&mut s, CwndEvent::TxStart);
        assert_eq!(cc.rtt.base_rtt, 0.1);
    }

    #[test]
    fn state_exports_mode_queue_and_reno_count() {
        let (mut cc, mut s) = setup(json!({}), 50.0, 10.0);
        round(&mut cc, &mut s, 0.125, 0); // L = 0.25 > 1/8: slow, Q = 50 x 25 / 125 = 10
        let mut state = Vec::new();
        cc.state(&mut state);
        for (k, v) in [
            ("mode", 0.0),
            ("queue", 10.0),
            ("reno_count", 25.0),
            ("base_rtt_ms", 100.0),
        ] {
            assert!(
                state.iter().any(|&(key, val)| key == k && close(val, v)),
                "{k}: {state:?}"
            );
        }
    }

    #[test]
    fn impossible_parameters_are_rejected_with_the_key_and_range() {
        for (params, needle) in [
            (json!({ "gamma": 0.0 }), "gamma = 0: must be > 0"),
            (json!({ "phy": -1.0 }), "phy = -1: must be > 0"),
            (json!({ "alpha": -1.0 }), "alpha = -1: must be >= 0"),
            (json!({ "delta": 31 }), "delta = 31: must be in [0, 30]"),
            (json!({ "epsilon": 40 }), "epsilon = 40"),
            (json!({ "min_rtt_samples": 0 }), "min_rtt_samples = 0"),
            (json!({ "ssthresh_basis": "bytes" }), "inflight"),
            (json!({ "beta": 4 }), "beta"),
        ] {
            let err = build(&params).err().expect("an error");
            assert!(err.contains(needle), "{params}: {err}");
        }
    }
}
