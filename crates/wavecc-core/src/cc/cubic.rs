//! CUBIC (RFC 9438) with HyStart, behaving like Linux `tcp_cubic`.
//!
//! After a loss the window follows `W_cubic(t) = C (t - K)^3 + W_max`: concave up to
//! the window of the last loss (`W_max`, reached at `t = K`), a plateau there, then
//! convex probing beyond it. Time `t` runs from the first ACK of congestion avoidance
//! (the epoch start); each ACK moves cwnd towards the curve one minimum RTT ahead,
//! never slower than the Reno-friendly estimate `W_est` and never faster than
//! `max_growth_factor` per RTT. HyStart ends the first slow start before it overshoots,
//! by ACK-train length or by RTT increase.
//!
//! Written in floating point from RFC 9438 and the behaviour of Linux `tcp_cubic.c`;
//! where the two differ, Linux wins (the project follows Linux) and the doc
//! comment says so. Linux's fixed-point artefacts (integer `cnt`, one update per
//! jiffy, the cube-root table) are not reproduced.

use super::{
    CaState, CongestionControl, CwndEvent, Range, RateSample, SlowStartPer, Socket, SsthreshBasis,
    check_ranges, parse_params,
};
use crate::engine::Time;
use serde::Deserialize;

pub const SUMMARY: &str =
    "CUBIC (RFC 9438, Linux tcp_cubic): cubic growth around W_max, Reno-friendly region, HyStart";

/// Which HyStart detectors run (Linux `hystart_detect` bits).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum HystartDetect {
    Both,
    AckTrain,
    Delay,
}

/// Which RTT samples of a round its minimum covers, for the delay detector.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum HystartRoundRtt {
    /// Every sample of the round (Linux since 5.8).
    All,
    /// Only the first `hystart_min_samples` (ns-3's `TcpCubic::HystartUpdate` through
    /// 3.40, and Linux before 5.8): later samples are compared, never taken in, so a
    /// round whose first samples met a queue keeps that minimum when the queue drains.
    FirstSamples,
}

impl HystartDetect {
    fn ack_train(self) -> bool {
        matches!(self, Self::Both | Self::AckTrain)
    }

    fn delay(self) -> bool {
        matches!(self, Self::Both | Self::Delay)
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// Cubic scaling constant C in segments/s^3. RFC 9438 section 5 and Linux
    /// (`bic_scale` 41/1024 x 10): 0.4.
    pub c: f64,
    /// Multiplicative decrease factor. RFC 9438 section 4.6: 0.7 (Linux 717/1024).
    pub beta: f64,
    /// Fast convergence (RFC 9438 section 4.7): a flow losing below its previous
    /// `W_max` lowers `W_max` further, releasing bandwidth to newer flows. On, as Linux.
    pub fast_convergence: bool,
    /// Reno-friendly region (RFC 9438 section 4.3): grow at least as fast as Reno with
    /// the same beta would (`alpha = 3(1-beta)/(1+beta)` segments per RTT). On, as
    /// Linux `tcp_friendliness`. Linux keeps that alpha for the whole epoch; RFC 9438's
    /// switch to alpha = 1 above the last `W_max` is not applied.
    pub tcp_friendliness: bool,
    /// Largest growth per RTT as a factor of cwnd. RFC 9438 section 4.2 caps the target
    /// at 1.5 cwnd; Linux's `cnt >= 2` (at most +1 per 2 segments acked) is the same.
    pub max_growth_factor: f64,
    /// Growth in segments per RTT while the curve is at or below cwnd (Linux:
    /// `cnt = 100 cwnd`, i.e. 0.01), so the window still creeps upwards on the plateau.
    pub plateau_increase: f64,
    /// Least growth per RTT as a fraction of cwnd while no loss has set `W_max`
    /// (Linux caps `cnt` at 20 then: 5%), so a flow that left slow start through
    /// HyStart keeps probing instead of sitting on a flat curve.
    pub no_loss_growth: f64,
    /// RTT samples are ignored for this long after an epoch starts (Linux: HZ, 1 s,
    /// "discard delay samples right after fast recovery"), in ms: queues built during
    /// recovery would otherwise pollute the minimum RTT.
    pub rtt_holdoff_ms: f64,
    /// HyStart (Ha and Rhee, "Taming the elephants"): leave slow start before the
    /// first loss. On, as Linux.
    pub hystart: bool,
    /// HyStart detectors to run; Linux default both.
    pub hystart_detect: HystartDetect,
    /// HyStart only runs from this window (segments) on; Linux 16.
    pub hystart_low_window: f64,
    /// ACKs closer than this (ms) belong to the same ACK train; Linux 2 ms
    /// (`hystart_ack_delta_us`).
    pub hystart_ack_delta_ms: f64,
    /// The ACK train detector fires when a round's train lasts longer than this
    /// fraction of the minimum RTT: Linux 1/2 without pacing (the window then covers
    /// half the path's BDP, and ACK compression makes this the safe point). Linux's
    /// TSO/GRO cushion is 0 here: the simulator has no segmentation offload.
    pub hystart_ack_train_ratio: f64,
    /// RTT samples a round needs before the delay detector looks at its minimum RTT;
    /// Linux 8 (`HYSTART_MIN_SAMPLES`): the check runs from the next sample on.
    pub hystart_min_samples: u32,
    /// The delay detector fires when a round's minimum RTT exceeds the connection's by
    /// this fraction of it, clamped to [`hystart_delay_min_ms`, `hystart_delay_max_ms`];
    /// Linux 1/8.
    pub hystart_delay_ratio: f64,
    /// Which of a round's RTT samples its minimum covers; Linux `all`.
    pub hystart_round_rtt: HystartRoundRtt,
    /// Lower clamp of the delay threshold in ms; Linux 4 ms (`HYSTART_DELAY_MIN`).
    pub hystart_delay_min_ms: f64,
    /// Upper clamp of the delay threshold in ms; Linux 16 ms (`HYSTART_DELAY_MAX`).
    pub hystart_delay_max_ms: f64,
    /// Slow start per acknowledged segment (Linux) or one segment per ACK (`ack`:
    /// ns-3 3.29's `TcpCubic::IncreaseWindow`), the rest of the ACK's segments going
    /// to congestion avoidance once cwnd reaches ssthresh.
    pub slow_start_per: SlowStartPer,
    /// The window beta reduces: `cwnd` (Linux, RFC 9438); `min` of cwnd and the
    /// packets in flight is ns3-mmwave's `TcpCubic::GetSsThresh` (ns-3 3.29). W_max is
    /// cwnd either way.
    pub ssthresh_basis: SsthreshBasis,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            tcp_friendliness: true,
            max_growth_factor: 1.5,
            plateau_increase: 0.01,
            no_loss_growth: 0.05,
            rtt_holdoff_ms: 1000.0,
            hystart: true,
            hystart_detect: HystartDetect::Both,
            hystart_low_window: 16.0,
            hystart_ack_delta_ms: 2.0,
            hystart_ack_train_ratio: 0.5,
            hystart_min_samples: 8,
            hystart_delay_ratio: 0.125,
            hystart_round_rtt: HystartRoundRtt::All,
            hystart_delay_min_ms: 4.0,
            hystart_delay_max_ms: 16.0,
            slow_start_per: SlowStartPer::Segment,
            ssthresh_basis: SsthreshBasis::Cwnd,
        }
    }
}

impl Params {
    /// Rejects values that make the algorithm meaningless, naming the key and range.
    fn validate(&self) -> Result<(), String> {
        use Range::*;
        check_ranges(&[
            ("c", self.c, Positive),
            ("beta", self.beta, OpenUnit),
            ("max_growth_factor", self.max_growth_factor, AboveOne),
            ("plateau_increase", self.plateau_increase, NonNegative),
            ("no_loss_growth", self.no_loss_growth, NonNegative),
            ("rtt_holdoff_ms", self.rtt_holdoff_ms, NonNegative),
            ("hystart_low_window", self.hystart_low_window, NonNegative),
            (
                "hystart_ack_delta_ms",
                self.hystart_ack_delta_ms,
                NonNegative,
            ),
            (
                "hystart_ack_train_ratio",
                self.hystart_ack_train_ratio,
                Positive,
            ),
            ("hystart_delay_ratio", self.hystart_delay_ratio, Positive),
            (
                "hystart_delay_min_ms",
                self.hystart_delay_min_ms,
                NonNegative,
            ),
        ])?;
        if self.hystart_delay_min_ms > self.hystart_delay_max_ms {
            return Err(format!(
                "hystart_delay_min_ms = {} > hystart_delay_max_ms = {}: the clamp needs min <= max",
                self.hystart_delay_min_ms, self.hystart_delay_max_ms
            ));
        }
        Ok(())
    }
}

/// Smallest slow-start threshold after a loss (Linux and RFC 5681: 2 segments).
const MIN_SSTHRESH: f64 = 2.0;

fn secs(t: Time) -> f64 {
    t as f64 * 1e-9
}

fn ms_to_time(ms: f64) -> Time {
    crate::engine::from_secs(ms * 1e-3)
}

/// One congestion-avoidance epoch: the cubic curve fixed at its first ACK.
#[derive(Clone, Debug)]
struct Epoch {
    start: Time,
    /// Time from the epoch start to the curve's inflection point, seconds.
    k_s: f64,
    /// The curve's value at `K`: `W_max`, or cwnd at the epoch start when that was
    /// already at or above `W_max` (then `K = 0` and the curve only probes upwards).
    origin: f64,
    /// Reno-friendly estimate `W_est` (RFC 9438 section 4.3), segments.
    w_est: f64,
    /// Epoch age and cubic target at the last update, for the traces.
    age_s: f64,
    target: f64,
}

impl Epoch {
    /// RFC 9438 section 4.2 and Linux: `K = cbrt((W_max - cwnd_epoch) / C)`. With a
    /// reduction to exactly `beta W_max` this is `cbrt(W_max (1 - beta) / C)`.
    fn begin(now: Time, cwnd: f64, w_max: Option<f64>, c: f64) -> Self {
        let (k_s, origin) = match w_max {
            Some(w) if w > cwnd => (((w - cwnd) / c).cbrt(), w),
            _ => (0.0, cwnd),
        };
        Self {
            start: now,
            k_s,
            origin,
            w_est: cwnd,
            age_s: 0.0,
            target: cwnd,
        }
    }

    /// `W_cubic(t)` (RFC 9438 eq. 1) with `t` seconds since the epoch start.
    fn w_cubic(&self, c: f64, t: f64) -> f64 {
        self.origin + c * (t - self.k_s).powi(3)
    }
}

/// One HyStart round, about one RTT: it ends when `snd_una` passes the `snd_nxt`
/// recorded at its start (Linux `bictcp_hystart_reset`).
#[derive(Clone, Debug)]
struct Round {
    start: Time,
    end_seq: u64,
    /// Time of the last ACK of the ACK train that started with the round.
    last_ack: Time,
    /// Minimum RTT sample of the round, seconds.
    min_rtt: f64,
    samples: u32,
}

impl Round {
    fn begin(now: Time, snd_nxt: u64) -> Self {
        Self {
            start: now,
            end_seq: snd_nxt,
            last_ack: now,
            min_rtt: f64::INFINITY,
            samples: 0,
        }
    }

    /// ACK-train detector: ACKs that keep arriving back to back belong to the train
    /// the window sent in one burst; once the train outlasts a fraction of the
    /// minimum RTT the window fills that fraction of the pipe.
    fn ack_train_full(&mut self, now: Time, delay_min: f64, p: &Params) -> bool {
        if now.saturating_sub(self.last_ack) > ms_to_time(p.hystart_ack_delta_ms) {
            return false;
        }
        self.last_ack = now;
        secs(now - self.start) > p.hystart_ack_train_ratio * delay_min
    }

    /// Delay-increase detector: once the round has enough samples, its minimum RTT
    /// above the connection's minimum by more than the threshold means a queue is
    /// building.
    fn delay_increased(&mut self, rtt: f64, delay_min: f64, p: &Params) -> bool {
        let counting = self.samples < p.hystart_min_samples;
        if counting || p.hystart_round_rtt == HystartRoundRtt::All {
            self.min_rtt = self.min_rtt.min(rtt);
        }
        if counting {
            self.samples += 1;
            return false;
        }
        let threshold = (delay_min * p.hystart_delay_ratio)
            .clamp(p.hystart_delay_min_ms * 1e-3, p.hystart_delay_max_ms * 1e-3);
        self.min_rtt > delay_min + threshold
    }
}

#[derive(Clone, Debug)]
struct Hystart {
    /// An exit point was found; HyStart stays off until an RTO resets it.
    found: bool,
    round: Round,
}

impl Hystart {
    fn new(now: Time, snd_nxt: u64) -> Self {
        Self {
            found: false,
            round: Round::begin(now, snd_nxt),
        }
    }
}

pub struct Cubic {
    p: Params,
    /// Reno-friendly increase per RTT, `3 (1 - beta) / (1 + beta)` (RFC 9438 section 4.3).
    alpha: f64,
    /// `rtt_holdoff_ms` as a time, converted once: every ACK reads it.
    rtt_holdoff: Time,
    /// Window before the last reduction, lowered by fast convergence; None until a
    /// loss and again after an RTO (Linux `last_max_cwnd` = 0).
    w_max: Option<f64>,
    /// None between a reduction and the first ACK of congestion avoidance after it.
    epoch: Option<Epoch>,
    /// Minimum RTT sample in seconds (Linux `delay_min`), forgotten on RTO.
    delay_min: Option<f64>,
    hystart: Hystart,
}

pub fn build(params: &serde_json::Value) -> Result<Box<dyn CongestionControl>, String> {
    let p = parse_params::<Params>(params)?;
    p.validate()?;
    Ok(Box::new(Cubic::new(p)))
}

impl Cubic {
    fn new(p: Params) -> Self {
        let alpha = 3.0 * (1.0 - p.beta) / (1.0 + p.beta);
        let rtt_holdoff = ms_to_time(p.rtt_holdoff_ms);
        Self {
            p,
            alpha,
            rtt_holdoff,
            w_max: None,
            epoch: None,
            delay_min: None,
            hystart: Hystart::new(0, 0),
        }
    }

    /// Forgets everything learnt about the path (Linux `bictcp_reset` and
    /// `bictcp_hystart_reset`): at init and after an RTO, which Linux treats as a
    /// fresh start, HyStart included.
    fn reset(&mut self, sock: &Socket) {
        self.w_max = None;
        self.epoch = None;
        self.delay_min = None;
        self.hystart = Hystart::new(sock.now, sock.snd_nxt);
    }

    fn in_rtt_holdoff(&self, now: Time) -> bool {
        self.epoch
            .as_ref()
            .is_some_and(|e| now.saturating_sub(e.start) < self.rtt_holdoff)
    }

    fn hystart_active(&self, sock: &Socket) -> bool {
        self.p.hystart
            && !self.hystart.found
            && sock.in_slow_start()
            && sock.cwnd >= self.p.hystart_low_window
    }

    /// Runs the enabled detectors on one RTT sample (Linux `hystart_update`); both
    /// see every sample, so each keeps its own round state current.
    fn hystart_update(&mut self, sock: &mut Socket, rtt: f64, delay_min: f64) {
        let p = &self.p;
        let round = &mut self.hystart.round;
        if sock.snd_una > round.end_seq {
            *round = Round::begin(sock.now, sock.snd_nxt);
        }
        let train = p.hystart_detect.ack_train() && round.ack_train_full(sock.now, delay_min, p);
        let delay = p.hystart_detect.delay() && round.delay_increased(rtt, delay_min, p);
        if train || delay {
            self.hystart.found = true;
            sock.ssthresh = sock.cwnd.max(MIN_SSTHRESH);
        }
    }

    /// Linux `CA_EVENT_TX_START`: after an application-limited idle period, shift
    /// the epoch by the idle time so the curve resumes where it stopped instead of
    /// jumping ahead. Idle time runs from the last transmission, as in Linux.
    fn resume_after_idle(&mut self, sock: &Socket) {
        if let Some(e) = &mut self.epoch {
            e.start = (e.start + sock.now.saturating_sub(sock.last_send)).min(sock.now);
        }
    }

    /// Window increase per acknowledged segment in congestion avoidance (the
    /// reciprocal of Linux `bictcp_update`'s `cnt`): towards the curve one minimum RTT
    /// ahead, at least the Reno-friendly and no-loss rates, at most the growth cap.
    fn ca_increase(&mut self, sock: &Socket, acked: u32) -> f64 {
        let (p, cwnd) = (&self.p, sock.cwnd);
        let epoch = self
            .epoch
            .get_or_insert_with(|| Epoch::begin(sock.now, cwnd, self.w_max, p.c));
        epoch.age_s = secs(sock.now.saturating_sub(epoch.start));
        epoch.target = epoch.w_cubic(p.c, epoch.age_s + self.delay_min.unwrap_or(0.0));
        epoch.w_est += self.alpha * acked as f64 / cwnd;

        let mut inc = if epoch.target > cwnd {
            (epoch.target - cwnd) / cwnd
        } else {
            p.plateau_increase / cwnd
        };
        if self.w_max.is_none() {
            inc = inc.max(p.no_loss_growth);
        }
        if p.tcp_friendliness && epoch.w_est > cwnd {
            inc = inc.max((epoch.w_est - cwnd) / cwnd);
        }
        inc.min(p.max_growth_factor - 1.0)
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn init(&mut self, sock: &mut Socket) {
        self.reset(sock);
    }

    /// Ends the epoch, records `W_max` (with fast convergence) and reduces by beta.
    fn ssthresh(&mut self, sock: &Socket) -> f64 {
        let cwnd = sock.cwnd;
        let converging = self.p.fast_convergence && self.w_max.is_some_and(|w| cwnd < w);
        self.w_max = Some(if converging {
            cwnd * (1.0 + self.p.beta) / 2.0
        } else {
            cwnd
        });
        self.epoch = None;
        (self.p.ssthresh_basis.window(sock) * self.p.beta).max(MIN_SSTHRESH)
    }

    fn cong_avoid(&mut self, sock: &mut Socket, acked: u32) {
        let acked = if sock.in_slow_start() {
            self.p.slow_start_per.grow(sock, acked)
        } else {
            acked
        };
        // Per ACK, slow start leaves segments over even below ssthresh: they go to
        // the curve only once cwnd has reached it (ns-3's `m_cWnd >= m_ssThresh`).
        if acked > 0 && !sock.in_slow_start() {
            sock.cwnd += self.ca_increase(sock, acked) * acked as f64;
        }
    }

    /// Tracks the minimum RTT and runs HyStart (Linux `cubictcp_acked`).
    fn on_ack(&mut self, sock: &mut Socket, rs: &RateSample) {
        let Some(rtt) = rs.rtt_s else { return };
        if self.in_rtt_holdoff(sock.now) {
            return;
        }
        let delay_min = self.delay_min.map_or(rtt, |d| d.min(rtt));
        self.delay_min = Some(delay_min);
        if self.hystart_active(sock) {
            self.hystart_update(sock, rtt, delay_min);
        }
    }

    fn set_state(&mut self, sock: &mut Socket, new: CaState) {
        if new == CaState::Loss {
            self.reset(sock);
        }
    }

    /// An RTO resets as entering the Loss state does, in case the socket reports a
    /// repeated timeout without a state change.
    fn cwnd_event(&mut self, sock: &mut Socket, event: CwndEvent) {
        match event {
            CwndEvent::TxStart => self.resume_after_idle(sock),
            CwndEvent::Loss => self.reset(sock),
            CwndEvent::CompleteRecovery => {}
        }
    }

    /// Epoch values are 0 outside an epoch, `w_max` is 0 before the first loss.
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        let epoch = |f: fn(&Epoch) -> f64| self.epoch.as_ref().map_or(0.0, f);
        out.extend([
            ("w_max", self.w_max.unwrap_or(0.0)),
            ("k_s", epoch(|e| e.k_s)),
            ("w_cubic_target", epoch(|e| e.target)),
            ("w_est", epoch(|e| e.w_est)),
            ("epoch_age_s", epoch(|e| e.age_s)),
            ("delay_min_s", self.delay_min.unwrap_or(0.0)),
            ("hystart_found", f64::from(u8::from(self.hystart.found))),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const MSS: u32 = 1000;
    /// K after a loss at cwnd 100 reduced to 70: cbrt((100 - 70) / 0.4) = cbrt(75).
    const K_100: f64 = 4.217_163_326_508_746;

    fn cubic(params: serde_json::Value) -> Cubic {
        let p = parse_params::<Params>(&params).unwrap();
        p.validate().unwrap();
        Cubic::new(p)
    }

    fn at(seconds: f64) -> Time {
        (seconds * 1e9).round() as Time
    }

    fn rtt_sample(rtt_s: f64) -> RateSample {
        RateSample {
            acked_sacked: 1,
            rtt_s: Some(rtt_s),
            ..RateSample::default()
        }
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// A connection with minimum RTT `rtt_s` that lost at cwnd `w` and has recovered
    /// to the new ssthresh, at time 0.
    fn after_loss(cc: &mut Cubic, w: f64, rtt_s: f64) -> Socket {
        let mut s = Socket::new(MSS, w, f64::INFINITY);
        cc.on_ack(&mut s, &rtt_sample(rtt_s));
        s.ssthresh = cc.ssthresh(&s);
        s.cwnd = s.ssthresh;
        s
    }

    /// ACK-clocked congestion avoidance until `until_s`: ACKs of one segment each,
    /// `floor(cwnd)` of them per RTT, evenly spaced, each with an RTT sample `rtt_s`.
    fn run_until(cc: &mut Cubic, s: &mut Socket, rtt_s: f64, until_s: f64) {
        while secs(s.now) < until_s {
            s.now += at(rtt_s / s.cwnd.floor());
            cc.on_ack(s, &rtt_sample(rtt_s));
            cc.cong_avoid(s, 1);
        }
    }

    fn epoch(cc: &Cubic) -> &Epoch {
        cc.epoch.as_ref().expect("an epoch")
    }

    #[test]
    fn k_is_the_time_from_the_reduced_window_back_to_w_max() {
        let mut cc = cubic(json!({}));
        let mut s = after_loss(&mut cc, 100.0, 0.1);
        cc.cong_avoid(&mut s, 1);
        assert!(close(epoch(&cc).k_s, K_100, 1e-12), "{}", epoch(&cc).k_s);
        // A second loss at 80 < 100: fast convergence sets W_max = 80 x 1.7 / 2 = 68,
        // the window drops to 56 and K = cbrt((68 - 56) / 0.4) = cbrt(30).
        s.cwnd = 80.0;
        s.ssthresh = cc.ssthresh(&s);
        s.cwnd = s.ssthresh;
        cc.cong_avoid(&mut s, 1);
        assert!(
            close(epoch(&cc).k_s, 30f64.cbrt(), 1e-12),
            "{}",
            epoch(&cc).k_s
        );
        let mut state = Vec::new();
        cc.state(&mut state);
        assert!(
            state.contains(&("w_max", 68.0)) && state.contains(&("k_s", 30f64.cbrt())),
            "{state:?}"
        );
    }

    /// cwnd at t = K/2, K, 3K/2 and 2K into the epoch after a loss at cwnd 100, RTT
    /// 100 ms, with only the cubic curve driving growth.
    fn curve_samples() -> [f64; 4] {
        let mut cc = cubic(json!({ "tcp_friendliness": false, "hystart": false }));
        let mut s = after_loss(&mut cc, 100.0, 0.1);
        cc.cong_avoid(&mut s, 1); // the epoch starts at time 0
        let e = epoch(&cc);
        // t = 0: the curve starts at the reduced window, W(0) = 100 - 0.4 K^3 = 70.
        assert!(close(e.w_cubic(0.4, 0.0), 70.0, 1e-9) && e.origin == 100.0);
        let start = secs(e.start);
        [1.0, 2.0, 3.0, 4.0].map(|i| {
            run_until(&mut cc, &mut s, 0.1, start + i * K_100 / 2.0);
            s.cwnd
        })
    }

    #[test]
    fn cwnd_follows_the_cubic_curve() {
        // W(t) = 100 + 0.4 (t - K)^3: W(K/2) = 100 - 30/8, W(K) = 100, W(3K/2) = 100 + 30/8,
        // W(2K) = 130. cwnd tracks W(t + RTT) with about one RTT of lag, so W(t); aiming
        // at W(t) instead would lag by RTT x W'(t), 0.5 segment at K/2 and 2 at 2K.
        let expected = [96.25, 100.0, 103.75, 130.0];
        let got = curve_samples();
        for (g, e) in got.iter().zip(expected) {
            assert!(close(*g, e, 0.2), "got {got:?}, expected {expected:?}");
        }
    }

    #[test]
    fn growth_is_concave_below_w_max_and_convex_above() {
        let [half, k, three_halves, two_k] = curve_samples();
        let (first_half, second_half) = (half - 70.0, k - half); // 26.25 then 3.75
        let (third_half, fourth_half) = (three_halves - k, two_k - three_halves); // 3.75 then 26.25
        assert!(
            first_half > 5.0 * second_half,
            "concave: {first_half} then {second_half}"
        );
        assert!(
            fourth_half > 5.0 * third_half,
            "convex: {third_half} then {fourth_half}"
        );
    }

    #[test]
    fn on_the_plateau_cwnd_creeps_a_hundredth_of_a_segment_per_rtt() {
        let mut cc = cubic(json!({ "tcp_friendliness": false }));
        let mut s = after_loss(&mut cc, 100.0, 0.1);
        cc.cong_avoid(&mut s, 1);
        s.cwnd = 95.0; // above the curve, which is near 72 early in the epoch
        cc.cong_avoid(&mut s, 1);
        assert!(close(s.cwnd, 95.0 + 0.01 / 95.0, 1e-12), "{}", s.cwnd);
    }

    #[test]
    fn growth_is_capped_at_one_and_a_half_per_rtt() {
        let mut cc = cubic(json!({}));
        let mut s = after_loss(&mut cc, 1000.0, 0.1);
        (s.cwnd, s.ssthresh) = (10.0, 10.0); // W(0.1 s) = 1000 - 0.4 (13.5 - 0.1)^3, about 33
        cc.cong_avoid(&mut s, 1);
        assert!(close(s.cwnd, 10.5, 1e-12), "{}", s.cwnd);
    }

    #[test]
    fn without_a_loss_congestion_avoidance_grows_five_percent_per_rtt() {
        let mut cc = cubic(json!({}));
        let mut s = Socket::new(MSS, 100.0, 100.0); // e.g. after a HyStart exit
        cc.cong_avoid(&mut s, 1);
        assert!(close(s.cwnd, 100.0 + 0.05, 1e-12), "{}", s.cwnd);
    }

    #[test]
    fn loss_reduces_to_seven_tenths_with_a_floor_of_two() {
        let mut cc = cubic(json!({}));
        let mut s = Socket::new(MSS, 100.0, f64::INFINITY);
        assert!(close(cc.ssthresh(&s), 70.0, 1e-12));
        s.cwnd = 2.0;
        assert_eq!(cc.ssthresh(&s), 2.0);
    }

    #[test]
    fn the_min_basis_reduces_the_smaller_of_cwnd_and_the_flight() {
        // ns3-mmwave's TcpCubic: beta 0.8 of min(cwnd, in flight); W_max stays cwnd.
        let mut s = Socket::new(MSS, 100.0, f64::INFINITY);
        s.in_flight = 60;
        let mut cc = cubic(json!({ "beta": 0.8, "ssthresh_basis": "min" }));
        assert!(close(cc.ssthresh(&s), 48.0, 1e-12));
        assert_eq!(cc.w_max, Some(100.0));
        s.in_flight = 150;
        assert!(close(cc.ssthresh(&s), 80.0, 1e-12));
        // The default reduces cwnd whatever is in flight.
        s.in_flight = 60;
        assert!(close(
            cubic(json!({ "beta": 0.8 })).ssthresh(&s),
            80.0,
            1e-12
        ));
    }

    #[test]
    fn slow_start_per_ack_adds_one_segment_whatever_the_ack_covers() {
        let grow = |params, cwnd, ssthresh, acked| {
            let mut cc = cubic(params);
            let mut s = Socket::new(MSS, cwnd, ssthresh);
            cc.on_ack(&mut s, &rtt_sample(0.1));
            cc.cong_avoid(&mut s, acked);
            s.cwnd
        };
        assert_eq!(grow(json!({}), 10.0, f64::INFINITY, 2), 12.0);
        assert_eq!(
            grow(json!({ "slow_start_per": "ack" }), 10.0, f64::INFINITY, 2),
            11.0
        );
        // Reaching ssthresh, the ACK's other two segments go to congestion avoidance.
        let w = grow(json!({ "slow_start_per": "ack" }), 10.0, 11.0, 3);
        assert!(w > 11.0 && w <= 12.0, "{w}");
    }

    #[test]
    fn fast_convergence_lowers_w_max_on_a_loss_below_the_last_one() {
        let losses = |params, windows: &[f64]| {
            let mut cc = cubic(params);
            let mut s = Socket::new(MSS, 1.0, f64::INFINITY);
            windows
                .iter()
                .map(|&w| {
                    s.cwnd = w;
                    cc.ssthresh(&s);
                    cc.w_max.unwrap()
                })
                .collect::<Vec<_>>()
        };
        // 100: first W_max; 80 < 100: 80 x (1 + 0.7) / 2 = 68; 90 > 68: plain 90.
        let w = losses(json!({}), &[100.0, 80.0, 90.0]);
        assert!(
            w[0] == 100.0 && close(w[1], 68.0, 1e-12) && w[2] == 90.0,
            "{w:?}"
        );
        assert_eq!(
            losses(json!({ "fast_convergence": false }), &[100.0, 80.0]),
            [100.0, 80.0]
        );
    }

    #[test]
    fn reno_friendly_region_dominates_at_small_window_and_short_rtt() {
        // Loss at 20 -> 14, K = cbrt(6 / 0.4) = 2.47 s, RTT 10 ms. After 0.5 s the curve
        // is at 20 - 0.4 (2.47 - 0.51)^3 = 17.0, while Reno with alpha = 0.9 / 1.7 = 0.53
        // per RTT reaches 14 + 50 x 0.53 = 40.5, less about one RTT's growth of lag.
        let cwnd_after = |params| {
            let mut cc = cubic(params);
            let mut s = after_loss(&mut cc, 20.0, 0.01);
            run_until(&mut cc, &mut s, 0.01, 0.5);
            s.cwnd
        };
        let cubic_only = cwnd_after(json!({ "tcp_friendliness": false }));
        let friendly = cwnd_after(json!({}));
        assert!(close(cubic_only, 17.0, 0.3), "{cubic_only}");
        assert!(close(friendly, 40.5 - 0.53, 1.0), "{friendly}");
    }

    #[test]
    fn rto_resets_the_epoch_w_max_and_hystart() {
        let rtos: [fn(&mut Cubic, &mut Socket); 2] = [
            |cc, s| cc.set_state(s, CaState::Loss),
            |cc, s| cc.cwnd_event(s, CwndEvent::Loss),
        ];
        for rto in rtos {
            let mut cc = cubic(json!({}));
            let mut s = after_loss(&mut cc, 100.0, 0.1);
            run_until(&mut cc, &mut s, 0.1, 0.5);
            cc.hystart.found = true;
            assert!(epoch(&cc).k_s > 4.0);
            rto(&mut cc, &mut s);
            assert!(cc.epoch.is_none() && cc.w_max.is_none() && cc.delay_min.is_none());
            assert!(!cc.hystart.found);
            // The next epoch starts from the current window (K = 0), not towards 100.
            cc.cong_avoid(&mut s, 1);
            assert_eq!(epoch(&cc).k_s, 0.0);
        }
    }

    #[test]
    fn idle_time_shifts_the_epoch() {
        let mut cc = cubic(json!({}));
        let mut s = after_loss(&mut cc, 100.0, 0.1);
        for t in [1.0, 2.0] {
            s.now = at(t);
            cc.on_ack(&mut s, &RateSample::default());
            cc.cong_avoid(&mut s, 1);
        }
        s.last_send = at(2.0);
        s.now = at(7.0); // idle for 5 s since the last transmission
        cc.cwnd_event(&mut s, CwndEvent::TxStart);
        assert_eq!(epoch(&cc).start, at(6.0));
    }

    #[test]
    fn rtt_samples_right_after_an_epoch_start_are_ignored() {
        let mut cc = cubic(json!({}));
        let mut s = after_loss(&mut cc, 100.0, 0.1);
        s.now = at(1.0);
        cc.cong_avoid(&mut s, 1);
        s.now = at(1.9);
        cc.on_ack(&mut s, &rtt_sample(0.05));
        assert_eq!(cc.delay_min, Some(0.1));
        s.now = at(2.1);
        cc.on_ack(&mut s, &rtt_sample(0.05));
        assert_eq!(cc.delay_min, Some(0.05));
    }

    /// A connection in its first slow start at window `cwnd`, just initialised.
    fn slow_start(cwnd: f64, params: serde_json::Value) -> (Cubic, Socket) {
        let mut cc = cubic(params);
        let mut s = Socket::new(MSS, cwnd, f64::INFINITY);
        s.snd_nxt = cwnd as u64 * MSS as u64;
        cc.init(&mut s);
        (cc, s)
    }

    /// One ACK of one segment `gap_ms` after the previous, with RTT sample `rtt_s`;
    /// the sender keeps `cwnd` segments in flight. The window does not grow (no
    /// `cong_avoid`), so rounds have a fixed length: with cwnd 16, ACKs 1-16 are round
    /// 1 and ACKs 17-33 round 2.
    fn ack(cc: &mut Cubic, s: &mut Socket, gap_ms: f64, rtt_s: f64) {
        s.now += at(gap_ms * 1e-3);
        s.snd_una += MSS as u64;
        s.snd_nxt = s.snd_una + s.cwnd as u64 * MSS as u64;
        cc.on_ack(s, &rtt_sample(rtt_s));
    }

    /// Round 1 at RTT `rtt1_s`, then `round2_acks` ACKs at `rtt2_s`, 5 ms apart (no
    /// ACK train); returns whether HyStart found an exit.
    fn delay_rounds(cc: &mut Cubic, s: &mut Socket, rtts: (f64, f64), round2_acks: usize) -> bool {
        let round1 = s.cwnd as usize;
        for n in 0..round1 + round2_acks {
            ack(cc, s, 5.0, if n < round1 { rtts.0 } else { rtts.1 });
        }
        cc.hystart.found
    }

    #[test]
    fn hystart_delay_detector_exits_slow_start_on_an_rtt_increase() {
        // delay_min 100 ms: threshold clamp(100 / 8, 4, 16) = 12.5 ms. Round 2 at 120 ms:
        // its first 8 samples are only counted, the 9th is checked.
        let (mut cc, mut s) = slow_start(16.0, json!({ "hystart_detect": "delay" }));
        assert!(!delay_rounds(&mut cc, &mut s, (0.1, 0.12), 8));
        ack(&mut cc, &mut s, 5.0, 0.12);
        assert!(cc.hystart.found);
        // The exit takes effect on the next growth step: ssthresh = cwnd, then
        // congestion avoidance (5% per RTT before any loss) instead of +1.
        cc.cong_avoid(&mut s, 1);
        assert_eq!(s.ssthresh, 16.0);
        assert!(close(s.cwnd, 16.05, 1e-12), "{}", s.cwnd);
    }

    #[test]
    fn hystart_round_minimum_keeps_falling_after_the_eighth_sample() {
        // Linux lowers the round's minimum on every sample (since 5.8; before, only on
        // the first 8, so that a later drop in RTT still left a stale high minimum and
        // a spurious exit). Round 2: 8 samples at 120 ms, then one at 100 ms.
        let (mut cc, mut s) = slow_start(16.0, json!({ "hystart_detect": "delay" }));
        assert!(!delay_rounds(&mut cc, &mut s, (0.1, 0.12), 8));
        ack(&mut cc, &mut s, 5.0, 0.1);
        assert!(!cc.hystart.found);
    }

    #[test]
    fn hystart_round_minimum_of_the_first_samples_ignores_a_later_drop() {
        // ns-3 (through 3.40): the round's minimum is that of its first 8 samples, so
        // the 9th sample at 100 ms is compared with 120 ms > 100 + 12.5 and exits.
        let params = json!({ "hystart_detect": "delay", "hystart_round_rtt": "first_samples" });
        let (mut cc, mut s) = slow_start(16.0, params);
        assert!(!delay_rounds(&mut cc, &mut s, (0.1, 0.12), 8));
        ack(&mut cc, &mut s, 5.0, 0.1);
        assert!(cc.hystart.found);
    }

    #[test]
    fn hystart_delay_detector_ignores_increases_below_the_threshold() {
        let (mut cc, mut s) = slow_start(16.0, json!({ "hystart_detect": "delay" }));
        assert!(!delay_rounds(&mut cc, &mut s, (0.1, 0.112), 40)); // 12 ms < 12.5 ms
    }

    #[test]
    fn hystart_delay_threshold_is_clamped_between_4_and_16_ms() {
        // delay_min 200 ms: 200 / 8 = 25 ms, clamped to 16; 10 ms: 1.25 ms, clamped to 4.
        for (rtts, found) in [
            ((0.2, 0.217), true),
            ((0.2, 0.215), false),
            ((0.01, 0.0145), true),
            ((0.01, 0.0135), false),
        ] {
            let (mut cc, mut s) = slow_start(16.0, json!({ "hystart_detect": "delay" }));
            assert_eq!(delay_rounds(&mut cc, &mut s, rtts, 16), found, "{rtts:?}");
        }
    }

    #[test]
    fn hystart_waits_for_the_low_window() {
        let (mut cc, mut s) = slow_start(15.0, json!({}));
        assert!(!delay_rounds(&mut cc, &mut s, (0.1, 0.12), 40));
    }

    #[test]
    fn hystart_ack_train_detector_fires_when_the_train_outlasts_half_the_min_rtt() {
        // RTT 101 ms: threshold 50.5 ms. ACKs 1 ms apart form one train from the round
        // start at 0: ACK 50 arrives at 50 ms, ACK 51 at 51 ms.
        let (mut cc, mut s) = slow_start(64.0, json!({ "hystart_detect": "ack_train" }));
        for _ in 0..50 {
            ack(&mut cc, &mut s, 1.0, 0.101);
        }
        assert!(!cc.hystart.found);
        ack(&mut cc, &mut s, 1.0, 0.101);
        assert!(cc.hystart.found);
    }

    #[test]
    fn hystart_ack_train_breaks_on_gaps_above_the_ack_delta() {
        let (mut cc, mut s) = slow_start(64.0, json!({ "hystart_detect": "ack_train" }));
        for _ in 0..64 {
            ack(&mut cc, &mut s, 3.0, 0.101);
        }
        assert!(!cc.hystart.found);
    }

    #[test]
    fn a_loss_after_a_hystart_exit_sets_the_threshold() {
        let (mut cc, mut s) = slow_start(16.0, json!({}));
        assert!(delay_rounds(&mut cc, &mut s, (0.1, 0.12), 9));
        s.ssthresh = cc.ssthresh(&s);
        cc.cong_avoid(&mut s, 1);
        assert!(close(s.ssthresh, 11.2, 1e-12), "{}", s.ssthresh);
    }

    #[test]
    fn impossible_parameters_are_rejected_with_the_key_and_range() {
        for (params, needle) in [
            (json!({ "beta": 1.0 }), "beta = 1: must be in (0, 1)"),
            (json!({ "beta": 0.0 }), "beta = 0: must be in (0, 1)"),
            (json!({ "c": 0.0 }), "c = 0: must be > 0"),
            (json!({ "max_growth_factor": 1.0 }), "max_growth_factor"),
            (
                json!({ "hystart_delay_min_ms": 20.0 }),
                "hystart_delay_min_ms = 20",
            ),
            (json!({ "hystart_detect": "rtt" }), "both"),
            (json!({ "gamma": 1.0 }), "gamma"),
            (
                json!({ "ssthresh_basis": "flight" }),
                "ssthresh_basis: unknown variant `flight`, expected one of `cwnd`, `inflight`, `min`",
            ),
            (
                json!({ "slow_start_per": "byte" }),
                "slow_start_per: unknown variant `byte`, expected `segment` or `ack`",
            ),
        ] {
            let err = build(&params).err().expect("an error");
            assert!(err.contains(needle), "{params}: {err}");
        }
    }
}
