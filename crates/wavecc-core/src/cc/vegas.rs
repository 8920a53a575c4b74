//! TCP Vegas (Brakmo and Peterson, IEEE JSAC 1995), behaving like Linux `tcp_vegas`.
//!
//! Vegas keeps a few segments queued at the bottleneck, no more. Once per RTT it
//! compares the window with the one the path would need without queueing,
//! `target = cwnd x baseRTT / RTT`, where `baseRTT` is the smallest RTT ever seen and
//! `RTT` the smallest sample of the round just ended (the minimum filters out delayed
//! ACKs). `diff = cwnd - target = cwnd (RTT - baseRTT) / RTT` estimates the segments
//! sitting in queues. In congestion avoidance the window grows by one segment when
//! `diff < alpha`, shrinks by one when `diff > beta` and holds otherwise; slow start
//! ends as soon as `diff > gamma`, with the window cut to `target + 1` (Linux's
//! "set the cwnd to achieve the right rate when we exit slow start"). Losses are
//! handled as Reno (`ssthresh = max(cwnd / 2, 2)`, Linux `tcp_reno_ssthresh`).
//!
//! A round ends when `snd_una` passes the `snd_nxt` recorded at its start (Linux
//! `beg_snd_nxt`). Between round ends, cwnd only moves in slow start (Reno's slow
//! start, one segment per acknowledged segment). A round with fewer than
//! `min_rtt_samples` RTT samples (3) is likely made of delayed ACKs only: the round's
//! end then applies Reno's rule instead (Linux, ns-3). Outside the Open state
//! (disorder, recovery, loss) Vegas is off and Reno rules apply; it restarts with a
//! fresh round when the connection is Open again, and from scratch (`baseRTT`
//! forgotten) when the sender restarts after an idle period (Linux
//! `CA_EVENT_TX_START`).
//!
//! Written in floating point from the paper and the behaviour of Linux `tcp_vegas.c`
//! and ns-3 `TcpVegas`. Both compute in whole segments (`target` and `diff` rounded
//! down), which `integer_windows = true` reproduces; by default they are exact.
//! Linux's RTTs in whole microseconds plus one are not reproduced. Where Linux, ns-3
//! and the paper differ, [`Params`] documents the default and offers the other reading.

use super::{
    CaState, CongestionControl, CwndEvent, RateSample, Socket, additive_increase,
    floor_non_negative, parse_params, slow_start,
};
use serde::Deserialize;

pub const SUMMARY: &str =
    "Vegas (Brakmo & Peterson 1995, Linux tcp_vegas): once per RTT +1 if diff < 2, -1 if diff > 4";

/// What the queue estimate `diff` is normalised by.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DiffBasis {
    /// `diff = cwnd (RTT - baseRTT) / RTT = (Expected - Actual) x baseRTT`: the paper's
    /// definition and ns-3 `TcpVegas` (`cwnd - floor(cwnd baseRTT / minRtt)`).
    Rtt,
    /// `diff = cwnd (RTT - baseRTT) / baseRTT = (Expected - Actual) x RTT`: Linux
    /// `tcp_vegas_cong_avoid`, larger by a factor `RTT / baseRTT`.
    BaseRtt,
}

/// How Vegas lowers ssthresh, on a loss and when it slows down by itself.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshRule {
    /// Linux: a loss halves (`tcp_reno_ssthresh`, `max(cwnd / 2, 2)`); leaving slow
    /// start and the `-1` step set `ssthresh = min(ssthresh, cwnd)`.
    Linux,
    /// ns-3 `TcpVegas::GetSsThresh` for both: `max(min(ssthresh, cwnd - 1), 2)`, so a
    /// loss while ssthresh is still infinite takes only **one segment** off.
    Ns3,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// Grow while fewer than `alpha` segments are queued (segments; 2 in the paper,
    /// Linux and ns-3).
    pub alpha: f64,
    /// Shrink while more than `beta` segments are queued (segments; 4).
    pub beta: f64,
    /// Leave slow start once more than `gamma` segments are queued (segments; 1).
    pub gamma: f64,
    /// Normalisation of `diff`. Default `rtt`: the paper and ns-3, as the project's
    /// "per-RTT diff rule" asks; `base_rtt` is Linux's reading.
    pub diff_basis: DiffBasis,
    /// RTT samples a round needs for the Vegas rule; fewer means Reno for that round.
    /// Linux and ns-3: 3 (`cntRTT <= 2` falls back to Reno).
    pub min_rtt_samples: u32,
    /// ssthresh on a loss and on Vegas' own reductions. Default `linux`; `ns3`
    /// reproduces ns-3's `TcpVegas`, which the seeds ran.
    pub ssthresh_rule: SsthreshRule,
    /// Forget `baseRTT` and start a fresh round when the sender restarts with nothing
    /// in flight (Linux `CA_EVENT_TX_START` re-runs `tcp_vegas_init`). On as Linux;
    /// ns-3 has no such event (off).
    pub restart_on_idle: bool,
    /// Take the window in whole segments and round `target` and `diff` down, as
    /// Linux and ns-3 both do (`diff = cwnd - floor(cwnd baseRTT / RTT)` is then at
    /// least 1 as soon as RTT exceeds baseRTT at all). Off by default: exact values.
    pub integer_windows: bool,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            alpha: 2.0,
            beta: 4.0,
            gamma: 1.0,
            diff_basis: DiffBasis::Rtt,
            min_rtt_samples: 3,
            ssthresh_rule: SsthreshRule::Linux,
            restart_on_idle: true,
            integer_windows: false,
        }
    }
}

impl Params {
    /// Rejects values that make the algorithm meaningless, naming the key and range.
    fn validate(&self) -> Result<(), String> {
        for (key, value) in [
            ("alpha", self.alpha),
            ("beta", self.beta),
            ("gamma", self.gamma),
        ] {
            if !(value >= 0.0 && value.is_finite()) {
                return Err(format!("{key} = {value}: must be >= 0 and finite"));
            }
        }
        if self.alpha > self.beta {
            return Err(format!(
                "alpha = {} > beta = {}: the hold band [alpha, beta] needs alpha <= beta",
                self.alpha, self.beta
            ));
        }
        if self.min_rtt_samples == 0 {
            return Err("min_rtt_samples = 0: must be >= 1".into());
        }
        Ok(())
    }
}

/// Smallest slow-start threshold (RFC 5681, Linux: 2 segments), and the smallest
/// window Vegas leaves after its own adjustment (Linux clamps cwnd at 2).
const MIN_WINDOW: f64 = 2.0;

/// What a finished round measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct RoundSample {
    /// Smallest RTT sample of the round, seconds (infinite without samples).
    pub min_rtt: f64,
    pub samples: u32,
}

/// Linux `struct vegas`'s RTT bookkeeping, shared with YeAH (`yeah.rs`), which is
/// built on it in Linux as well: `baseRTT` (minimum RTT since the last reset), and
/// per round (about one RTT, ending when `snd_una` passes the `snd_nxt` recorded at
/// its start) the minimum and the number of RTT samples.
#[derive(Clone, Debug)]
pub(super) struct RttRounds {
    /// Smallest RTT sample since the last reset, seconds (infinite before any).
    pub base_rtt: f64,
    /// `snd_nxt` at the round's start (Linux `beg_snd_nxt`).
    end_seq: u64,
    round_min: f64,
    samples: u32,
}

impl RttRounds {
    pub fn new(snd_nxt: u64) -> Self {
        Self {
            base_rtt: f64::INFINITY,
            end_seq: snd_nxt,
            round_min: f64::INFINITY,
            samples: 0,
        }
    }

    /// Forgets everything, `baseRTT` included (Linux `tcp_vegas_init`).
    pub fn reset(&mut self, snd_nxt: u64) {
        *self = Self::new(snd_nxt);
    }

    /// Starts a fresh round at `snd_nxt`, keeping `baseRTT` (Linux `vegas_enable`).
    pub fn restart_round(&mut self, snd_nxt: u64) {
        self.end_seq = snd_nxt;
        self.round_min = f64::INFINITY;
        self.samples = 0;
    }

    /// Where the current round ends (for tests of the algorithms built on this).
    #[cfg(test)]
    pub fn end_seq(&self) -> u64 {
        self.end_seq
    }

    /// One RTT sample (Linux `tcp_vegas_pkts_acked`). Non-positive samples are
    /// ignored (Linux adds 1 us to avoid zero).
    pub fn sample(&mut self, rtt: f64) {
        if rtt > 0.0 {
            self.base_rtt = self.base_rtt.min(rtt);
            self.round_min = self.round_min.min(rtt);
            self.samples += 1;
        }
    }

    /// On an ACK that advanced `snd_una`: when the round is over, starts the next one
    /// at `snd_nxt` and returns what the finished one measured.
    pub fn end_round(&mut self, snd_una: u64, snd_nxt: u64) -> Option<RoundSample> {
        if snd_una <= self.end_seq {
            return None;
        }
        let done = RoundSample {
            min_rtt: self.round_min,
            samples: self.samples,
        };
        self.restart_round(snd_nxt);
        Some(done)
    }
}

/// Reno's growth (Linux `tcp_reno_cong_avoid`), Vegas' fallback.
fn reno_cong_avoid(sock: &mut Socket, acked: u32) {
    let acked = if sock.in_slow_start() {
        slow_start(sock, acked)
    } else {
        acked
    };
    if acked > 0 {
        additive_increase(sock, sock.cwnd, acked);
    }
}

pub struct Vegas {
    p: Params,
    rtt: RttRounds,
    /// Vegas runs only in the Open state (Linux `doing_vegas_now`).
    enabled: bool,
    /// Values of the last Vegas adjustment, for the traces (0 before the first).
    diff: f64,
    target: f64,
    last_min_rtt: f64,
}

pub fn build(params: &serde_json::Value) -> Result<Box<dyn CongestionControl>, String> {
    let p = parse_params::<Params>(params)?;
    p.validate()?;
    Ok(Box::new(Vegas::new(p)))
}

impl Vegas {
    fn new(p: Params) -> Self {
        Self {
            p,
            rtt: RttRounds::new(0),
            enabled: true,
            diff: 0.0,
            target: 0.0,
            last_min_rtt: 0.0,
        }
    }

    /// Linux `tcp_vegas_init`: fresh path knowledge and a fresh round.
    fn reset(&mut self, sock: &Socket) {
        self.rtt.reset(sock.snd_nxt);
        self.enabled = true;
    }

    /// The threshold Vegas lowers ssthresh to when it slows down or loses.
    fn lowered_ssthresh(&self, sock: &Socket) -> f64 {
        match self.p.ssthresh_rule {
            SsthreshRule::Linux => sock.ssthresh.min(sock.cwnd),
            SsthreshRule::Ns3 => sock.ssthresh.min(sock.cwnd - 1.0).max(MIN_WINDOW),
        }
    }

    /// The once-per-RTT rule with the round's minimum RTT `rtt` (seconds).
    fn adjust(&mut self, sock: &mut Socket, rtt: f64, acked: u32) {
        let (p, base) = (&self.p, self.rtt.base_rtt);
        let whole = |x: f64| {
            if p.integer_windows {
                floor_non_negative(x)
            } else {
                x
            }
        };
        let cwnd = whole(sock.cwnd);
        self.target = whole(cwnd * base / rtt);
        self.diff = match p.diff_basis {
            // ns-3: `segCwnd - targetCwnd`, which rounds diff up.
            DiffBasis::Rtt if p.integer_windows => cwnd - self.target,
            DiffBasis::Rtt => cwnd * (rtt - base) / rtt,
            DiffBasis::BaseRtt => whole(cwnd * (rtt - base) / base),
        };
        self.last_min_rtt = rtt;
        if sock.in_slow_start() {
            if self.diff > p.gamma {
                // Going too fast: match the actual rate and leave slow start.
                sock.cwnd = cwnd.min(self.target + 1.0);
                sock.ssthresh = self.lowered_ssthresh(sock);
            } else {
                slow_start(sock, acked);
            }
        } else if self.diff > p.beta {
            sock.cwnd = cwnd - 1.0;
            sock.ssthresh = self.lowered_ssthresh(sock);
        } else if self.diff < p.alpha {
            sock.cwnd = cwnd + 1.0;
        }
        sock.cwnd = sock.cwnd.max(MIN_WINDOW);
        // Linux `tcp_current_ssthresh` (ns-3 the same): keep ssthresh at least 3/4 of
        // the window, so a later loss does not fall below what Vegas found.
        sock.ssthresh = sock.ssthresh.max(0.75 * sock.cwnd);
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn init(&mut self, sock: &mut Socket) {
        self.reset(sock);
    }

    fn ssthresh(&mut self, sock: &Socket) -> f64 {
        match self.p.ssthresh_rule {
            SsthreshRule::Linux => (sock.cwnd / 2.0).max(MIN_WINDOW),
            SsthreshRule::Ns3 => self.lowered_ssthresh(sock),
        }
    }

    fn cong_avoid(&mut self, sock: &mut Socket, acked: u32) {
        if !self.enabled {
            reno_cong_avoid(sock, acked);
            return;
        }
        match self.rtt.end_round(sock.snd_una, sock.snd_nxt) {
            None if sock.in_slow_start() => {
                slow_start(sock, acked);
            }
            None => {}
            Some(round) if round.samples < self.p.min_rtt_samples => reno_cong_avoid(sock, acked),
            Some(round) => self.adjust(sock, round.min_rtt, acked),
        }
    }

    fn on_ack(&mut self, _sock: &mut Socket, rs: &RateSample) {
        if let Some(rtt) = rs.rtt_s {
            self.rtt.sample(rtt);
        }
    }

    /// Linux `tcp_vegas_state`: on in Open (with a fresh round), off elsewhere.
    fn set_state(&mut self, sock: &mut Socket, new: CaState) {
        self.enabled = new == CaState::Open;
        if self.enabled {
            self.rtt.restart_round(sock.snd_nxt);
        }
    }

    fn cwnd_event(&mut self, sock: &mut Socket, event: CwndEvent) {
        if event == CwndEvent::TxStart && self.p.restart_on_idle {
            self.reset(sock);
        }
    }

    /// RTTs in ms; `diff`, `target_cwnd` and `min_rtt_ms` are those of the last Vegas
    /// adjustment, `base_rtt_ms` is 0 before the first sample.
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        let base = self.rtt.base_rtt;
        out.extend([
            ("diff", self.diff),
            ("target_cwnd", self.target),
            (
                "base_rtt_ms",
                if base.is_finite() { base * 1e3 } else { 0.0 },
            ),
            ("min_rtt_ms", self.last_min_rtt * 1e3),
            ("rtt_samples", f64::from(self.rtt.samples)),
            ("vegas_on", f64::from(u8::from(self.enabled))),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const MSS: u32 = 1000;
    const SEG: u64 = MSS as u64;

    fn vegas(params: serde_json::Value) -> Vegas {
        let p = parse_params::<Params>(&params).unwrap();
        p.validate().unwrap();
        Vegas::new(p)
    }

    /// A connection at `cwnd`/`ssthresh` with 100 segments sent, Vegas initialised
    /// (the first round ends when the ACK passes segment 100), baseRTT 100 ms from an
    /// earlier sample.
    fn setup(params: serde_json::Value, cwnd: f64, ssthresh: f64) -> (Vegas, Socket) {
        let mut cc = vegas(params);
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

    /// Ends the current round: RTT samples `rtts`, then an ACK of `acked` segments
    /// that passes the round's end; the sender has sent 100 more segments meanwhile.
    fn round(cc: &mut Vegas, s: &mut Socket, rtts: &[f64], acked: u32) {
        for &r in rtts {
            cc.on_ack(s, &rtt(r));
        }
        s.snd_una = cc.rtt.end_seq + SEG;
        s.snd_nxt = s.snd_una + 100 * SEG;
        cc.cong_avoid(s, acked);
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn avoidance_grows_one_segment_when_fewer_than_alpha_are_queued() {
        // cwnd 20, RTT 105 ms over a base of 100: diff = 20 x 5 / 105 = 0.95 < 2.
        let (mut cc, mut s) = setup(json!({}), 20.0, 10.0);
        round(&mut cc, &mut s, &[0.105, 0.11, 0.12], 2);
        assert_eq!(s.cwnd, 21.0);
        assert!(close(cc.diff, 100.0 / 105.0), "{}", cc.diff);
        // ssthresh is kept at 3/4 of the window at least: max(10, 0.75 x 21).
        assert_eq!(s.ssthresh, 15.75);
    }

    #[test]
    fn avoidance_holds_between_alpha_and_beta() {
        // RTT 115 ms: diff = 20 x 15 / 115 = 2.61, in [2, 4].
        let (mut cc, mut s) = setup(json!({}), 20.0, 10.0);
        round(&mut cc, &mut s, &[0.115; 3], 2);
        assert_eq!(s.cwnd, 20.0);
        assert!(close(cc.diff, 300.0 / 115.0));
    }

    #[test]
    fn avoidance_shrinks_one_segment_when_more_than_beta_are_queued() {
        // RTT 130 ms: diff = 20 x 30 / 130 = 4.62 > 4. ssthresh min(19.5, 19) = 19,
        // then max(19, 0.75 x 19 = 14.25) = 19.
        let (mut cc, mut s) = setup(json!({}), 20.0, 19.5);
        round(&mut cc, &mut s, &[0.13; 3], 2);
        assert_eq!((s.cwnd, s.ssthresh), (19.0, 19.0));
        // ns-3's rule: max(min(19.5, 19 - 1), 2) = 18.
        let (mut cc, mut s) = setup(json!({ "ssthresh_rule": "ns3" }), 20.0, 19.5);
        round(&mut cc, &mut s, &[0.13; 3], 2);
        assert_eq!((s.cwnd, s.ssthresh), (19.0, 18.0));
    }

    #[test]
    fn linux_diff_basis_divides_by_the_base_rtt() {
        // RTT 110.5 ms, cwnd 20: the paper's diff is 20 x 10.5 / 110.5 = 1.90 < 2
        // (grow), Linux's 20 x 10.5 / 100 = 2.1 (hold).
        let (mut cc, mut s) = setup(json!({}), 20.0, 10.0);
        round(&mut cc, &mut s, &[0.1105; 3], 1);
        assert_eq!(s.cwnd, 21.0);
        let (mut cc, mut s) = setup(json!({ "diff_basis": "base_rtt" }), 20.0, 10.0);
        round(&mut cc, &mut s, &[0.1105; 3], 1);
        assert_eq!(s.cwnd, 20.0);
        assert!(close(cc.diff, 2.1));
    }

    #[test]
    fn whole_segments_round_target_and_diff_down() {
        // cwnd 20.6, RTT 105 ms over 100: exactly, diff = 20.6 x 5 / 105 = 0.98 < 2:
        // grow to 21.6. In whole segments (Linux, ns-3): target = floor(20 x 100 / 105)
        // = 19, diff = 20 - 19 = 1 < 2: grow to 21.
        let (mut cc, mut s) = setup(json!({}), 20.6, 10.0);
        round(&mut cc, &mut s, &[0.105; 3], 2);
        assert!(close(s.cwnd, 21.6), "{}", s.cwnd);
        let (mut cc, mut s) = setup(json!({ "integer_windows": true }), 20.6, 10.0);
        round(&mut cc, &mut s, &[0.105; 3], 2);
        assert_eq!((s.cwnd, cc.target, cc.diff), (21.0, 19.0, 1.0));
        // RTT 111 ms, cwnd 20: exact diff 1.98 grows; whole segments: target
        // floor(18.02) = 18, diff 2: hold.
        let (mut cc, mut s) = setup(json!({ "integer_windows": true }), 20.0, 10.0);
        round(&mut cc, &mut s, &[0.111; 3], 2);
        assert_eq!((s.cwnd, cc.diff), (20.0, 2.0));
        // Slow start ends once diff > gamma = 1: RTT 101 ms at cwnd 40 gives exact
        // diff 0.40 (continue) but floor(39.6) = 39, diff 1 (continue); at 103 ms,
        // diff 40 - floor(38.83) = 2 > 1: cwnd = target + 1 = 39.
        let (mut cc, mut s) = setup(json!({ "integer_windows": true }), 40.0, f64::INFINITY);
        round(&mut cc, &mut s, &[0.103; 3], 2);
        assert_eq!((s.cwnd, s.ssthresh), (39.0, 39.0));
    }

    #[test]
    fn slow_start_ends_at_the_target_plus_one_when_diff_exceeds_gamma() {
        // cwnd 40, RTT 110 ms: diff = 40 x 10 / 110 = 3.64 > 1; target = 40 x 100 / 110
        // = 36.36, cwnd = 37.36, ssthresh = min(inf, 37.36), then no longer slow start.
        let (mut cc, mut s) = setup(json!({}), 40.0, f64::INFINITY);
        round(&mut cc, &mut s, &[0.11; 3], 2);
        let expected = 4000.0 / 110.0 + 1.0;
        assert!(
            close(s.cwnd, expected) && close(s.ssthresh, expected),
            "{} {}",
            s.cwnd,
            s.ssthresh
        );
        assert!(close(cc.target, 4000.0 / 110.0));
        assert!(!s.in_slow_start());
    }

    #[test]
    fn slow_start_continues_while_diff_is_at_most_gamma() {
        // RTT 101 ms: diff = 40 / 101 = 0.4 <= 1: Reno slow start, +2 for 2 segments.
        let (mut cc, mut s) = setup(json!({}), 40.0, f64::INFINITY);
        round(&mut cc, &mut s, &[0.101; 3], 2);
        assert_eq!(s.cwnd, 42.0);
        assert_eq!(s.ssthresh, f64::INFINITY);
    }

    #[test]
    fn between_round_ends_only_slow_start_moves_the_window() {
        let (mut cc, mut s) = setup(json!({}), 20.0, f64::INFINITY);
        s.snd_una = 50 * SEG; // inside the first round
        cc.cong_avoid(&mut s, 2);
        assert_eq!(s.cwnd, 22.0);
        s.ssthresh = 10.0;
        cc.cong_avoid(&mut s, 2);
        assert_eq!(s.cwnd, 22.0); // no per-ACK growth in congestion avoidance
    }

    #[test]
    fn a_round_ends_only_when_the_ack_passes_its_end() {
        // The round started with snd_nxt at segment 100: an ACK up to exactly that
        // byte does not end it (Linux `after(ack, beg_snd_nxt)`), one byte more does.
        let (mut cc, mut s) = setup(json!({}), 20.0, 10.0);
        for r in [0.105; 3] {
            cc.on_ack(&mut s, &rtt(r));
        }
        s.snd_una = 100 * SEG;
        cc.cong_avoid(&mut s, 1);
        assert_eq!(s.cwnd, 20.0);
        s.snd_una = 100 * SEG + 1;
        cc.cong_avoid(&mut s, 1);
        assert_eq!(s.cwnd, 21.0); // diff = 20 x 5 / 105 < 2
    }

    #[test]
    fn too_few_rtt_samples_fall_back_to_reno() {
        // 2 samples < 3: Reno adds 2/20 for 2 segments instead of Vegas' +1 (RTT
        // 105 ms would give diff 0.95 < 2).
        let (mut cc, mut s) = setup(json!({}), 20.0, 10.0);
        round(&mut cc, &mut s, &[0.105, 0.105], 2);
        assert!(close(s.cwnd, 20.1), "{}", s.cwnd);
        assert_eq!(cc.diff, 0.0); // no Vegas adjustment ran
        // The round was still consumed: the next one starts afresh.
        assert_eq!(cc.rtt.samples, 0);
    }

    #[test]
    fn base_rtt_is_the_minimum_ever_and_the_round_minimum_is_per_round() {
        let (mut cc, mut s) = setup(json!({}), 20.0, 10.0);
        round(&mut cc, &mut s, &[0.12, 0.09, 0.15], 1); // base 90 ms, round min 90 ms
        assert_eq!((cc.rtt.base_rtt, cc.last_min_rtt), (0.09, 0.09));
        round(&mut cc, &mut s, &[0.12, 0.13, 0.11], 1); // base stays, round min 110 ms
        assert_eq!((cc.rtt.base_rtt, cc.last_min_rtt), (0.09, 0.11));
        let mut state = Vec::new();
        cc.state(&mut state);
        assert!(
            state.contains(&("base_rtt_ms", 90.0)) && state.contains(&("min_rtt_ms", 110.0)),
            "{state:?}"
        );
        // diff = 21 x 20 / 110 (cwnd grew to 21 in the first round).
        assert!(
            state
                .iter()
                .any(|&(k, v)| k == "diff" && close(v, 420.0 / 110.0)),
            "{state:?}"
        );
    }

    #[test]
    fn vegas_is_off_outside_open_and_restarts_with_a_fresh_round() {
        let (mut cc, mut s) = setup(json!({}), 20.0, 10.0);
        cc.set_state(&mut s, CaState::Disorder);
        round(&mut cc, &mut s, &[0.105; 3], 2);
        assert!(close(s.cwnd, 20.1), "{}", s.cwnd); // Reno: +2/20, not Vegas' +1
        s.snd_nxt = 500 * SEG;
        cc.set_state(&mut s, CaState::Open);
        assert_eq!((cc.rtt.end_seq, cc.rtt.samples), (500 * SEG, 0));
        assert_eq!(cc.rtt.base_rtt, 0.1); // baseRTT survives
    }

    #[test]
    fn the_window_never_drops_below_two() {
        // beta 0.5: cwnd 2.5 at RTT 200 ms has diff 2.5 x 100 / 200 = 1.25 > 0.5.
        let (mut cc, mut s) = setup(json!({ "alpha": 0.1, "beta": 0.5 }), 2.5, 2.0);
        round(&mut cc, &mut s, &[0.2; 3], 1);
        assert_eq!(s.cwnd, 2.0);
    }

    #[test]
    fn loss_halves_as_reno_or_takes_one_segment_in_ns3_reading() {
        let (mut cc, mut s) = setup(json!({}), 30.0, f64::INFINITY);
        assert_eq!(cc.ssthresh(&s), 15.0);
        s.cwnd = 3.0;
        assert_eq!(cc.ssthresh(&s), 2.0);
        let (mut cc, mut s) = setup(json!({ "ssthresh_rule": "ns3" }), 30.0, f64::INFINITY);
        assert_eq!(cc.ssthresh(&s), 29.0); // max(min(inf, 29), 2)
        s.ssthresh = 12.0;
        assert_eq!(cc.ssthresh(&s), 12.0);
        s.cwnd = 2.5;
        assert_eq!(cc.ssthresh(&s), 2.0);
    }

    #[test]
    fn an_idle_restart_forgets_the_base_rtt_unless_disabled() {
        let (mut cc, mut s) = setup(json!({}), 20.0, 10.0);
        cc.cwnd_event(&mut s, CwndEvent::TxStart);
        assert_eq!(cc.rtt.base_rtt, f64::INFINITY);
        let (mut cc, mut s) = setup(json!({ "restart_on_idle": false }), 20.0, 10.0);
        cc.cwnd_event(&mut s, CwndEvent::TxStart);
        assert_eq!(cc.rtt.base_rtt, 0.1);
    }

    #[test]
    fn impossible_parameters_are_rejected_with_the_key_and_range() {
        for (params, needle) in [
            (json!({ "alpha": -1.0 }), "alpha = -1: must be >= 0"),
            (json!({ "alpha": 5.0 }), "alpha = 5 > beta = 4"),
            (json!({ "gamma": -0.5 }), "gamma = -0.5"),
            (json!({ "min_rtt_samples": 0 }), "min_rtt_samples = 0"),
            (json!({ "diff_basis": "srtt" }), "base_rtt"),
            (json!({ "ssthresh_rule": "bsd" }), "ns3"),
            (json!({ "delta": 1 }), "delta"),
        ] {
            let err = build(&params).err().expect("an error");
            assert!(err.contains(needle), "{params}: {err}");
        }
    }
}
