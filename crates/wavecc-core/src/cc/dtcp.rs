//! D-TCP / NexGen D-TCP (the D-TCP paper: Kanagarathinam et al., "NexGen D-TCP: Next
//! Generation Dynamic TCP Congestion Control Algorithm", IEEE Access 2020).
//!
//! Adaptive increase, adaptive decrease around a bandwidth estimate. Every update
//! epoch (one smoothed RTT by default, `update_epoch_s`; Algorithm 1's `N_update`):
//! 1. the delivered bandwidth `B_i = d_i / (t_i - t_{i-1})` (Eq. 1), `d_i` the data
//!    delivered (cumulatively or selectively acknowledged) since the epoch started;
//! 2. the Tustin low-pass (Eq. 4), `B_I = k B_I' + (1 - k) (B_i + B_{i-1}) / 2` with
//!    `k = 0.9`. The paper writes `B_{i-1}` for both the first and the second term;
//!    its own derivation (Eq. 2, the Tustin discretisation of a first-order low-pass
//!    with time constant tau) makes the first one the previous *output* `B_I'`, as in
//!    Westwood's filter, and that is what is implemented. Eq. 5 simplifies Eq. 4 to
//!    `0.9 B_{i-1} + 0.1 B_i`, which is not the same filter: `filter = "ewma"` gives
//!    `k B_I' + (1 - k) B_i`. The filter is seeded with the first epoch's sample
//!    (starting from 0 would make every early estimate far below the delivered rate);
//! 3. the normalised estimate (Eq. 6-7), `norm = (B_i - B_I) + s(SINR_i - SINR_avg)`,
//!    `BW_E = B_I + g norm`, `g = 0.5`. The paper adds a dB difference to a bandwidth;
//!    the project's decision maps it to bandwidth as
//!    `s = B_I (SINR_i - SINR_avg) / max(|SINR_avg|, 1)`, `SINR_i` the link hint
//!    (`sock.link.sinr_db`) at the epoch's end and `SINR_avg` an EWMA of the previous
//!    epochs' values (weight `sinr_weight` = 0.1 for the new value, seeded with the
//!    first), so the first hinted epoch adds nothing. Without hints `s = 0`;
//! 4. the congestion control factor by Eq. 12 as derived,
//!    `N <- max(1, N + 1 - (BW_E - BW_C) / (alpha BW_E) x N)`, `alpha = 0.2`, `BW_C`
//!    the current delivered bandwidth (`B_i` by default; the latest delivery-rate
//!    sample with `current_bw = "rate_sample"`). The paper prints Eq. 12 with `W_i`
//!    (cwnd in segments) where this has `N_i`, but derives it "by combining (10) and
//!    (11)", which gives `N_i` (`Q_i / (alpha W_i) x N_i = (BW_E - BW_C) / (alpha
//!    BW_E) x N_i`), and Eq. 13's steady state `E[N] = alpha E[BW_E] / delta B` is the
//!    fixed point of the `N_i` form only: so `N_i` is the default (`n_update =
//!    "eq10"`, CLTCP's rule) and the printed form is `n_update = "eq12-printed"`.
//!    The paper's Algorithm 1 contradicts both (N only grows: doubled when
//!    `BW_C < BW_E`, +1 when above: `n_update = "algorithm1"`).
//!    An epoch with `BW_E <= 0` (nothing delivered) leaves N unchanged.
//!    The paper bounds N only from below. Every rule then lets it run away: the
//!    printed Eq. 12's steps scale with `W`, so on a 1 Gb/s path N reaches 1e5-1e7
//!    segments per RTT, and Algorithm 1's doubling overflows to infinity within a minute, after which
//!    the window becomes NaN. So N is kept at most `max_n_window_factor` (1) times
//!    the window `W` it was computed with: `cwnd += N` per RTT then never grows
//!    faster than slow start's doubling, and stays finite.
//!
//! Window (Eq. 14-16): slow start is NewReno's while cwnd < ssthresh; in congestion
//! avoidance `cwnd += N` per RTT (`N / cwnd` per acknowledged segment). A loss sets
//! `ssthresh = cwnd (1 - y)`, `y = eta / ((2 eta - 1) N + 1)`, `eta = 2`, so
//! `y = 2 / (3N + 1)` and `N = 1` is Reno's halving; the socket's recovery (PRR) then
//! brings cwnd to it, as Algorithm 1's `CWND <- CWND (1 - y); ssthresh <- CWND`.
//! A timeout (Algorithm 1 `Timeout`): ssthresh as for a loss (the socket asks, as Linux
//! `tcp_enter_loss`), `N = 1`, the estimator restarts at the next ACK, and the window is
//! `2 x` the initial window (`rto_window_factor`) instead of the loss window.
//! Algorithm 1 also starts the connection at `2 x` the initial window
//! (`initial_window_factor`); its 65535-byte initial ssthresh is not applied (the
//! project's common initial ssthresh is infinite, as the seeds configure it).
//!
//! Bandwidths are in bit/s inside (traced in Mb/s). Written in floating point from the
//! paper; no Linux or ns-3 implementation exists.

use super::{CongestionControl, RateSample, Socket, check_ranges, parse_params, slow_start};
use crate::engine::Time;
use serde::Deserialize;

pub const SUMMARY: &str = "D-TCP (the D-TCP paper, Kanagarathinam et al. 2020): Tustin-filtered, \
     SINR-normalised bandwidth estimate, cwnd += N per RTT, x (1 - y) on loss";

/// Smallest slow-start threshold after a loss (RFC 5681: 2 segments).
const MIN_SSTHRESH: f64 = 2.0;

/// The low-pass filter of step 2.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Filter {
    /// Eq. 4: `B_I = k B_I' + (1 - k) (B_i + B_{i-1}) / 2` (Tustin).
    Tustin,
    /// Eq. 5's form: `B_I = k B_I' + (1 - k) B_i`.
    Ewma,
}

/// The congestion control factor update of step 4.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NUpdate {
    /// Eq. 10 with Eq. 11, Eq. 12 as derived: `max(1, N + 1 - (BW_E - BW_C) / (alpha BW_E) x N)`.
    Eq10,
    /// Eq. 12 as printed: `max(1, N + 1 - (BW_E - BW_C) / (alpha BW_E) x W)`.
    #[serde(rename = "eq12-printed")]
    Eq12Printed,
    /// Algorithm 1 `N_update`: `N += max(1, N)` when `BW_C < BW_E`, `N += 1` when
    /// `BW_C > BW_E`.
    Algorithm1,
}

/// What `BW_C`, the current bandwidth, is.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CurrentBw {
    /// The epoch's delivered bandwidth `B_i`.
    Epoch,
    /// The latest delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation),
    /// `B_i` until there is one.
    RateSample,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// `true` runs the kernel program's integer arithmetic (the fixed-point twin,
    /// docs/kernel.md) instead of this floating-point version; with default
    /// parameters only. Default false.
    pub fixed_point: bool,
    /// Tustin constant `k` (Eq. 3-5): 0.9, the paper's value.
    pub k: f64,
    /// `tustin` (default, Eq. 4) or `ewma` (Eq. 5).
    pub filter: Filter,
    /// Gain `g` of the normalisation (Eq. 7, "clock granularity"): 0.5.
    pub g: f64,
    /// Fairness factor `alpha` (Eq. 8-12, Algorithm 1): 0.2.
    pub alpha: f64,
    /// Convergence factor `eta` (Eq. 16): 2. At least 0.5, so `y` stays in (0, 1].
    pub eta: f64,
    /// Update epoch in seconds; 0 (default) = one smoothed RTT (the project's decision).
    pub update_epoch_s: f64,
    /// Weight of the new value in the SINR average: 0.1 (the project's decision).
    pub sinr_weight: f64,
    /// `eq10` (default, Eq. 12 as derived: `N_i`), `eq12-printed` (`W_i`) or `algorithm1`.
    pub n_update: NUpdate,
    /// `BW_C`: `epoch` (default) or `rate_sample`.
    pub current_bw: CurrentBw,
    /// Initial window as a multiple of `tcp.initial_cwnd_segments`: 2 (Algorithm 1).
    pub initial_window_factor: f64,
    /// Upper bound of N as a multiple of the window `W` at the update: 1 (not in the
    /// paper, which only floors N at 1; without a bound N overflows).
    pub max_n_window_factor: f64,
    /// Window after a timeout as a multiple of the initial window: 2 (Algorithm 1).
    pub rto_window_factor: f64,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            fixed_point: false,
            k: 0.9,
            filter: Filter::Tustin,
            g: 0.5,
            alpha: 0.2,
            eta: 2.0,
            update_epoch_s: 0.0,
            sinr_weight: 0.1,
            n_update: NUpdate::Eq10,
            current_bw: CurrentBw::Epoch,
            initial_window_factor: 2.0,
            max_n_window_factor: 1.0,
            rto_window_factor: 2.0,
        }
    }
}

impl Params {
    fn validate(&self) -> Result<(), String> {
        use super::Range::*;
        check_ranges(&[
            ("k", self.k, OpenUnit),
            ("g", self.g, NonNegative),
            ("alpha", self.alpha, Positive),
            ("update_epoch_s", self.update_epoch_s, NonNegative),
            ("sinr_weight", self.sinr_weight, OpenUnit),
            (
                "initial_window_factor",
                self.initial_window_factor,
                Positive,
            ),
            ("max_n_window_factor", self.max_n_window_factor, Positive),
            ("rto_window_factor", self.rto_window_factor, Positive),
        ])?;
        if self.eta.is_nan() || self.eta < 0.5 {
            return Err(format!("eta = {}: must be >= 0.5", self.eta));
        }
        Ok(())
    }
}

/// Step 2: the filtered bandwidth from the previous output, this sample and the last.
fn low_pass(filter: Filter, k: f64, filtered: f64, sample: f64, prev_sample: f64) -> f64 {
    match filter {
        Filter::Tustin => k * filtered + (1.0 - k) * (sample + prev_sample) / 2.0,
        Filter::Ewma => k * filtered + (1.0 - k) * sample,
    }
}

/// Step 4: the next `N` (`bw_e > 0`).
fn next_n(rule: NUpdate, n: f64, bw_e: f64, bw_c: f64, alpha: f64, w: f64) -> f64 {
    let excess = (bw_e - bw_c) / (alpha * bw_e);
    match rule {
        NUpdate::Eq12Printed => (n + 1.0 - excess * w).max(1.0),
        NUpdate::Eq10 => (n + 1.0 - excess * n).max(1.0),
        NUpdate::Algorithm1 if bw_c < bw_e => n + n.max(1.0),
        NUpdate::Algorithm1 if bw_c > bw_e => n + 1.0,
        NUpdate::Algorithm1 => n,
    }
}

/// Eq. 16: the fraction of the window a loss takes off.
fn decrease_fraction(eta: f64, n: f64) -> f64 {
    eta / ((2.0 * eta - 1.0) * n + 1.0)
}

/// The bandwidth estimator, reset by a timeout.
#[derive(Clone, Debug, Default)]
struct Estimator {
    /// Start of the current epoch and `sock.delivered` then; None until the first ACK.
    epoch: Option<(Time, u64)>,
    /// `B_i`, `B_I`, `BW_E`, `BW_C` of the last epoch (bit/s); 0 before any.
    sample: f64,
    filtered: f64,
    estimate: f64,
    current: f64,
    /// At least one epoch has ended.
    seeded: bool,
    /// The SINR (dB) at the last epoch's end, and the average of those before it.
    sinr: Option<f64>,
    sinr_avg: Option<f64>,
}

pub struct DTcp {
    p: Params,
    est: Estimator,
    n: f64,
    /// The latest delivery-rate sample (bit/s), for `current_bw = "rate_sample"`.
    rate_sample: Option<f64>,
    /// `y` of the last loss, 0 before any.
    last_y: f64,
}

pub fn build(params: &serde_json::Value) -> Result<Box<dyn CongestionControl>, String> {
    if super::fixed::requested(params)? {
        return Ok(super::fixed::build("dtcp"));
    }
    let p = parse_params::<Params>(params)?;
    p.validate()?;
    Ok(Box::new(DTcp::new(p)))
}

impl DTcp {
    fn new(p: Params) -> Self {
        Self {
            p,
            est: Estimator::default(),
            n: 1.0,
            rate_sample: None,
            last_y: 0.0,
        }
    }

    /// Steps 2-4 for the epoch just ended with delivered bandwidth `b` (bit/s).
    fn end_epoch(&mut self, b: f64, sock: &Socket) {
        let (p, e) = (&self.p, &mut self.est);
        let (filtered, prev) = if e.seeded {
            (e.filtered, e.sample)
        } else {
            (b, b)
        };
        e.filtered = low_pass(p.filter, p.k, filtered, b, prev);
        e.sample = b;
        e.seeded = true;
        let mut sinr_term = 0.0;
        e.sinr = sock.link.sinr_db;
        if let Some(sinr) = e.sinr {
            let avg = e.sinr_avg.unwrap_or(sinr);
            sinr_term = e.filtered * (sinr - avg) / avg.abs().max(1.0);
            e.sinr_avg = Some((1.0 - p.sinr_weight) * avg + p.sinr_weight * sinr);
        }
        e.estimate = e.filtered + p.g * ((b - e.filtered) + sinr_term);
        e.current = match p.current_bw {
            CurrentBw::Epoch => b,
            CurrentBw::RateSample => self.rate_sample.unwrap_or(b),
        };
        if e.estimate > 0.0 {
            let n = next_n(
                p.n_update, self.n, e.estimate, e.current, p.alpha, sock.cwnd,
            );
            self.n = n.min(p.max_n_window_factor * sock.cwnd).max(1.0);
        }
    }
}

impl CongestionControl for DTcp {
    fn name(&self) -> &'static str {
        "dtcp"
    }

    /// Algorithm 1 `Initialization`: `CWND <- 2 x init_cwnd`.
    fn init(&mut self, sock: &mut Socket) {
        sock.cwnd = (self.p.initial_window_factor * sock.initial_cwnd).max(1.0);
    }

    /// Ends an epoch on the first ACK after it has lasted longer than the update epoch
    /// (Algorithm 1: `tcp_time_stamp() - epoch_start > update_epoch`).
    fn on_ack(&mut self, sock: &mut Socket, rs: &RateSample) {
        if let Some(r) = rs.delivery_rate_bps(sock.mss) {
            self.rate_sample = Some(r);
        }
        let Some((start, delivered)) = self.est.epoch else {
            self.est.epoch = Some((sock.now, sock.delivered));
            return;
        };
        let epoch = if self.p.update_epoch_s > 0.0 {
            self.p.update_epoch_s
        } else {
            sock.srtt_s
        };
        let elapsed = sock.now.saturating_sub(start) as f64 * 1e-9;
        if epoch <= 0.0 || elapsed <= epoch {
            return;
        }
        let bits = sock.delivered.saturating_sub(delivered) as f64 * f64::from(sock.mss) * 8.0;
        self.est.epoch = Some((sock.now, sock.delivered));
        self.end_epoch(bits / elapsed, sock);
    }

    /// Eq. 15-16: `cwnd (1 - y)`, `y = eta / ((2 eta - 1) N + 1)`.
    fn ssthresh(&mut self, sock: &Socket) -> f64 {
        self.last_y = decrease_fraction(self.p.eta, self.n);
        (sock.cwnd * (1.0 - self.last_y)).max(MIN_SSTHRESH)
    }

    /// Eq. 14: `cwnd += N` per RTT, `N / cwnd` per acknowledged segment.
    fn cong_avoid(&mut self, sock: &mut Socket, acked: u32) {
        let acked = if sock.in_slow_start() {
            slow_start(sock, acked)
        } else {
            acked
        };
        if acked > 0 {
            sock.cwnd += self.n * f64::from(acked) / sock.cwnd.max(1.0);
        }
    }

    /// Algorithm 1 `Timeout` / `D-TCP_reset()`: N = 1 and a new estimator.
    fn cwnd_event(&mut self, _sock: &mut Socket, event: super::CwndEvent) {
        if event == super::CwndEvent::Loss {
            self.n = 1.0;
            self.est = Estimator::default();
            self.rate_sample = None;
        }
    }

    /// Algorithm 1 restarts from `2 x init_cwnd` after a timeout.
    fn loss_window(&self, sock: &Socket) -> f64 {
        (self.p.rto_window_factor * sock.initial_cwnd).max(1.0)
    }

    /// `n`, `y` of the last loss, the last epoch's bandwidths in Mb/s (`bw_sample_mbps`
    /// B_i, `bw_filtered_mbps` B_I, `bw_est_mbps` BW_E, `bw_cur_mbps` BW_C), and, once a
    /// link hint has been seen, `sinr_db` and `sinr_avg_db`.
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        let e = &self.est;
        out.extend([
            ("n", self.n),
            ("y", self.last_y),
            ("bw_sample_mbps", e.sample * 1e-6),
            ("bw_filtered_mbps", e.filtered * 1e-6),
            ("bw_est_mbps", e.estimate * 1e-6),
            ("bw_cur_mbps", e.current * 1e-6),
        ]);
        if let (Some(sinr), Some(avg)) = (e.sinr, e.sinr_avg) {
            out.extend([("sinr_db", sinr), ("sinr_avg_db", avg)]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::from_secs;
    use serde_json::json;

    fn dtcp(params: serde_json::Value) -> DTcp {
        let p = parse_params::<Params>(&params).unwrap();
        p.validate().unwrap();
        DTcp::new(p)
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    fn traced(cc: &DTcp, name: &str) -> Option<f64> {
        let mut out = Vec::new();
        cc.state(&mut out);
        out.iter().find(|(k, _)| *k == name).map(|(_, v)| *v)
    }

    /// An ACK at `t` seconds with `delivered` segments delivered so far and SINR `sinr`.
    fn ack_at(cc: &mut DTcp, s: &mut Socket, t: f64, delivered: u64, sinr: Option<f64>) {
        s.now = from_secs(t);
        s.delivered = delivered;
        s.link.sinr_db = sinr;
        cc.on_ack(s, &RateSample::default());
    }

    /// Two epochs of 0.125 s on a 0.1 s smoothed RTT, MSS 1250 (1e4 bits), cwnd 10:
    /// 100 segments (8 Mb/s), then 120 (9.6 Mb/s).
    fn two_epochs(cc: &mut DTcp, sinr: [Option<f64>; 2]) -> Socket {
        let mut s = Socket::new(1250, 10.0, 2.0);
        s.srtt_s = 0.1;
        ack_at(cc, &mut s, 0.0, 0, None); // starts the first epoch
        ack_at(cc, &mut s, 0.1, 50, None); // 0.1 s is not longer than the epoch
        assert_eq!(cc.n, 1.0);
        ack_at(cc, &mut s, 0.125, 100, sinr[0]);
        ack_at(cc, &mut s, 0.25, 220, sinr[1]);
        s
    }

    #[test]
    fn low_pass_by_hand() {
        // k 0.9, B_I' 100, B_i 200, B_{i-1} 120: 90 + 0.1 x 160 = 106; Eq. 5: 90 + 20.
        assert!(close(
            low_pass(Filter::Tustin, 0.9, 100.0, 200.0, 120.0),
            106.0,
            1e-12
        ));
        assert!(close(
            low_pass(Filter::Ewma, 0.9, 100.0, 200.0, 120.0),
            110.0,
            1e-12
        ));
    }

    #[test]
    fn n_update_by_hand() {
        // N 3, alpha 0.2, BW_E 100, W 20. The default, N_i: BW_C 99: 4 - 0.05 x 3 = 3.85.
        assert_eq!(Params::default().n_update, NUpdate::Eq10);
        assert!(close(
            next_n(NUpdate::Eq10, 3.0, 100.0, 99.0, 0.2, 20.0),
            3.85,
            1e-12
        ));
        // BW_C 110: 4 + 0.5 x 3 = 5.5; BW_C 50: 4 - 2.5 x 3 = -3.5, floored at 1.
        assert!(close(
            next_n(NUpdate::Eq10, 3.0, 100.0, 110.0, 0.2, 20.0),
            5.5,
            1e-12
        ));
        assert_eq!(next_n(NUpdate::Eq10, 3.0, 100.0, 50.0, 0.2, 20.0), 1.0);
        // Eq. 13's steady state is N_i's fixed point: N = alpha BW_E / (BW_E - BW_C).
        assert!(close(
            next_n(NUpdate::Eq10, 4.0, 100.0, 95.0, 0.2, 20.0),
            4.0,
            1e-12
        ));
        // The printed Eq. 12, W in place of N: BW_C 99: 3 + 1 - (1 / 20) x 20 = 3.
        assert!(close(
            next_n(NUpdate::Eq12Printed, 3.0, 100.0, 99.0, 0.2, 20.0),
            3.0,
            1e-12
        ));
        // BW_C 110: 4 + (10 / 20) x 20 = 14.
        assert!(close(
            next_n(NUpdate::Eq12Printed, 3.0, 100.0, 110.0, 0.2, 20.0),
            14.0,
            1e-12
        ));
        // BW_C 90: 4 - 0.5 x 20 = -6, floored at 1.
        assert_eq!(
            next_n(NUpdate::Eq12Printed, 3.0, 100.0, 90.0, 0.2, 20.0),
            1.0
        );
        // Algorithm 1: doubled below the estimate, +1 above, unchanged at it.
        assert_eq!(
            next_n(NUpdate::Algorithm1, 3.0, 100.0, 99.0, 0.2, 20.0),
            6.0
        );
        assert_eq!(
            next_n(NUpdate::Algorithm1, 3.0, 100.0, 101.0, 0.2, 20.0),
            4.0
        );
        assert_eq!(
            next_n(NUpdate::Algorithm1, 3.0, 100.0, 100.0, 0.2, 20.0),
            3.0
        );
    }

    #[test]
    fn epochs_without_sinr_by_hand() {
        let mut cc = dtcp(json!({}));
        let s = two_epochs(&mut cc, [None, None]);
        // Epoch 2: B_2 = 120 x 1e4 / 0.125 = 9.6 Mb/s; B_I = 0.9 x 8 + 0.1 x (9.6 + 8)/2
        // = 8.08; BW_E = 8.08 + 0.5 x (9.6 - 8.08) = 8.84; BW_C = 9.6.
        // Epoch 1 (seeded, all 8 Mb/s): N = 1 + 1 = 2. Epoch 2: N = 2 + 1 -
        // (8.84 - 9.6) / (0.2 x 8.84) x N = 3 + 0.4298643 x 2 = 3.8597285.
        for (k, v) in [
            ("bw_sample_mbps", 9.6),
            ("bw_filtered_mbps", 8.08),
            ("bw_est_mbps", 8.84),
            ("bw_cur_mbps", 9.6),
            ("n", 3.8597285),
        ] {
            assert!(
                close(traced(&cc, k).unwrap(), v, 1e-6),
                "{k}: {:?}",
                traced(&cc, k)
            );
        }
        assert_eq!(traced(&cc, "sinr_db"), None, "no hints, no SINR trace");
        assert_eq!(s.cwnd, 10.0, "the estimator never touches the window");
        // The printed Eq. 12 steps by the window, 10, instead: 3 + 4.2986425.
        let mut cc = dtcp(json!({ "n_update": "eq12-printed" }));
        two_epochs(&mut cc, [None, None]);
        assert!(close(traced(&cc, "n").unwrap(), 7.2986425, 1e-6));
    }

    #[test]
    fn sinr_rise_raises_the_estimate() {
        // SINR 10 dB then 15: the first hinted epoch seeds the average (term 0), the
        // second adds s = B_I x (15 - 10) / 10 = 4.04 Mb/s: BW_E = 8.08 + 0.5 x (1.52 +
        // 4.04) = 10.86 > BW_C 9.6, so Eq. 12 lowers N: 3 - (1.26 / 2.172) x 2 = 1.839779.
        // Average 0.9 x 10 + 0.1 x 15 = 10.5.
        let mut cc = dtcp(json!({}));
        two_epochs(&mut cc, [Some(10.0), Some(15.0)]);
        assert!(close(traced(&cc, "bw_est_mbps").unwrap(), 10.86, 1e-9));
        assert!(close(traced(&cc, "n").unwrap(), 1.839779, 1e-6));
        assert_eq!(traced(&cc, "sinr_db"), Some(15.0));
        assert!(close(traced(&cc, "sinr_avg_db").unwrap(), 10.5, 1e-12));
        // A negative average is scaled by its magnitude: -4 then -2: +B_I x 2 / 4.
        let mut cc = dtcp(json!({ "g": 1.0 }));
        two_epochs(&mut cc, [Some(-4.0), Some(-2.0)]);
        // BW_E = B_I + (B_2 - B_I) + B_I / 2 = 9.6 + 4.04 = 13.64.
        assert!(close(traced(&cc, "bw_est_mbps").unwrap(), 13.64, 1e-9));
    }

    #[test]
    fn ewma_filter_and_fixed_epoch() {
        // Eq. 5 form: B_I = 0.9 x 8 + 0.1 x 9.6 = 8.16. A fixed 0.12 s epoch ends at
        // the same ACKs (0.125 s and 0.25 s, each 0.125 s long) as one 0.1 s srtt.
        let mut cc = dtcp(json!({ "filter": "ewma", "update_epoch_s": 0.12 }));
        let mut s = two_epochs(&mut cc, [None, None]);
        assert!(close(traced(&cc, "bw_filtered_mbps").unwrap(), 8.16, 1e-9));
        // A 0.2 s epoch has not ended at 0.15 s (N unchanged), it has at 0.25 s.
        let mut cc = dtcp(json!({ "update_epoch_s": 0.2 }));
        ack_at(&mut cc, &mut s, 0.0, 0, None);
        ack_at(&mut cc, &mut s, 0.15, 100, None);
        assert_eq!(cc.n, 1.0);
        ack_at(&mut cc, &mut s, 0.25, 100, None);
        assert_eq!(cc.n, 2.0);
    }

    #[test]
    fn rate_sample_as_current_bandwidth() {
        // BW_C = the latest delivery-rate sample, 12 Mb/s (120 segments in 0.1 s):
        // epoch 1: B = 8, BW_E = 8: N = 1 + 1 - (8 - 12) / (0.2 x 8) x 1 = 4.5.
        let mut s = Socket::new(1250, 10.0, 2.0);
        s.srtt_s = 0.1;
        let rs = RateSample {
            delivered: 120,
            interval_s: 0.1,
            ..RateSample::default()
        };
        let mut cc = dtcp(json!({ "current_bw": "rate_sample" }));
        cc.on_ack(&mut s, &rs);
        ack_at(&mut cc, &mut s, 0.125, 100, None);
        assert!(close(cc.n, 4.5, 1e-9), "{}", cc.n);
        // The printed Eq. 12 steps by W = 10: 2 + 2.5 x 10 = 27.
        let printed = json!({ "current_bw": "rate_sample", "max_n_window_factor": 3.0, "n_update": "eq12-printed" });
        let mut cc = dtcp(printed);
        let mut s = Socket::new(1250, 10.0, 2.0);
        s.srtt_s = 0.1;
        cc.on_ack(&mut s, &rs);
        ack_at(&mut cc, &mut s, 0.125, 100, None);
        assert!(close(cc.n, 27.0, 1e-9), "{}", cc.n);
        // With the default bound N is at most the window, 10.
        let mut cc = dtcp(json!({ "current_bw": "rate_sample", "n_update": "eq12-printed" }));
        cc.on_ack(&mut s, &rs);
        ack_at(&mut cc, &mut s, 0.25, 200, None);
        assert_eq!(cc.n, 10.0);
    }

    #[test]
    fn n_stays_finite_and_at_most_the_window() {
        // Algorithm 1 doubles N on every epoch below the estimate: unbounded, 2000
        // such epochs overflow f64 (N = inf, then the window NaN). Each epoch here
        // delivers less than the last (BW_C < BW_E), with cwnd 500.
        for rule in ["algorithm1", "eq12-printed", "eq10"] {
            let mut cc = dtcp(json!({ "n_update": rule }));
            let mut s = Socket::new(1250, 500.0, 2.0);
            s.srtt_s = 0.1;
            let (mut t, mut delivered, mut step) = (0.0, 0u64, 1_000_000u64);
            ack_at(&mut cc, &mut s, t, delivered, None);
            for _ in 0..2000 {
                t += 0.125;
                delivered += step;
                step = step * 9 / 10 + 1;
                ack_at(&mut cc, &mut s, t, delivered, None);
                assert!(
                    cc.n.is_finite() && (1.0..=500.0).contains(&cc.n),
                    "{rule}: {}",
                    cc.n
                );
                cc.cong_avoid(&mut s, 10);
                s.cwnd = 500.0;
            }
        }
        // The printed Eq. 12 with a rising rate: 2 + 2.5 W = 1252 at W 500, bounded to
        // 500, or to 1000 with max_n_window_factor 2.
        for (factor, n) in [(1.0, 500.0), (2.0, 1000.0)] {
            let params = json!({ "current_bw": "rate_sample", "max_n_window_factor": factor, "n_update": "eq12-printed" });
            let mut cc = dtcp(params);
            let mut s = Socket::new(1250, 500.0, 2.0);
            s.srtt_s = 0.1;
            let rs = RateSample {
                delivered: 120,
                interval_s: 0.1,
                ..RateSample::default()
            };
            cc.on_ack(&mut s, &rs);
            ack_at(&mut cc, &mut s, 0.125, 100, None);
            assert_eq!(cc.n, n);
        }
    }

    #[test]
    fn nothing_delivered_leaves_n_alone() {
        let mut cc = dtcp(json!({}));
        let mut s = Socket::new(1250, 10.0, 2.0);
        s.srtt_s = 0.1;
        ack_at(&mut cc, &mut s, 0.0, 0, None);
        ack_at(&mut cc, &mut s, 0.2, 0, None);
        assert_eq!(cc.n, 1.0);
    }

    #[test]
    fn window_grows_n_per_rtt() {
        let mut cc = dtcp(json!({}));
        cc.n = 3.0;
        let mut s = Socket::new(1400, 30.0, 2.0);
        cc.cong_avoid(&mut s, 2); // 2 x 3 / 30
        assert!(close(s.cwnd, 30.2, 1e-12), "{}", s.cwnd);
        let mut s = Socket::new(1400, 28.0, 30.0);
        cc.cong_avoid(&mut s, 4); // slow start to 30, then 2 x 3 / 30
        assert!(close(s.cwnd, 30.2, 1e-12), "{}", s.cwnd);
    }

    #[test]
    fn loss_takes_y_off() {
        // y = 2 / (3N + 1): N 1 -> 1/2, N 3 -> 1/5; eta 1, N 3: 1 / 4.
        assert_eq!(decrease_fraction(2.0, 1.0), 0.5);
        assert!(close(decrease_fraction(2.0, 3.0), 0.2, 1e-15));
        assert_eq!(decrease_fraction(1.0, 3.0), 0.25);
        let mut cc = dtcp(json!({}));
        let s = Socket::new(1400, 100.0, 2.0);
        assert_eq!(cc.ssthresh(&s), 50.0);
        cc.n = 3.0;
        assert!(close(cc.ssthresh(&s), 80.0, 1e-12));
        assert!(close(traced(&cc, "y").unwrap(), 0.2, 1e-15));
        cc.n = 1.0; // 3 x 1/2 = 1.5: floor of 2
        assert_eq!(cc.ssthresh(&Socket::new(1400, 3.0, 2.0)), 2.0);
    }

    #[test]
    fn init_and_timeout_use_twice_the_initial_window() {
        let mut cc = dtcp(json!({}));
        let mut s = Socket::new(1250, 10.0, f64::INFINITY);
        cc.init(&mut s);
        assert_eq!(s.cwnd, 20.0);
        s = two_epochs(&mut cc, [Some(10.0), Some(12.0)]);
        cc.n = 5.0;
        s.cwnd = 160.0;
        // Timeout: ssthresh 160 x (1 - 2/16) = 140 with the old N, then N = 1, the
        // estimator restarts, cwnd = 2 x 10.
        s.ssthresh = cc.ssthresh(&s);
        cc.cwnd_event(&mut s, super::super::CwndEvent::Loss);
        s.cwnd = cc.loss_window(&s);
        assert_eq!((s.cwnd, s.ssthresh, cc.n), (20.0, 140.0, 1.0));
        assert_eq!(traced(&cc, "bw_est_mbps"), Some(0.0));
        assert_eq!(traced(&cc, "sinr_db"), None);
        // The next ACK starts a new epoch rather than ending one.
        ack_at(&mut cc, &mut s, 1.0, 300, None);
        assert_eq!(cc.est.epoch, Some((from_secs(1.0), 300)));
        let mut cc = dtcp(json!({ "initial_window_factor": 1.0, "rto_window_factor": 3.0 }));
        cc.init(&mut s);
        assert_eq!(s.cwnd, 10.0);
        assert_eq!(cc.loss_window(&s), 30.0);
    }

    #[test]
    fn bad_parameters_are_rejected_with_the_key() {
        for (params, needle) in [
            (json!({ "k": 1.0 }), "k = 1: must be in (0, 1)"),
            (json!({ "g": -0.1 }), "g = -0.1: must be >= 0"),
            (json!({ "alpha": 0.0 }), "alpha = 0: must be > 0"),
            (json!({ "eta": 0.4 }), "eta = 0.4: must be >= 0.5"),
            (
                json!({ "update_epoch_s": -1.0 }),
                "update_epoch_s = -1: must be >= 0",
            ),
            (
                json!({ "sinr_weight": 1.0 }),
                "sinr_weight = 1: must be in (0, 1)",
            ),
            (
                json!({ "initial_window_factor": 0.0 }),
                "initial_window_factor = 0",
            ),
            (
                json!({ "rto_window_factor": -2.0 }),
                "rto_window_factor = -2",
            ),
            (
                json!({ "max_n_window_factor": 0.0 }),
                "max_n_window_factor = 0",
            ),
            (json!({ "n_update": "eq11" }), "algorithm1"),
            (json!({ "filter": "fir" }), "ewma"),
            (json!({ "current_bw": "max" }), "rate_sample"),
            (json!({ "beta": 0.5 }), "beta"),
        ] {
            let err = build(&params).err().expect("an error");
            assert!(err.contains(needle), "{params}: {err}");
        }
        assert_eq!(build(&json!({})).unwrap().name(), "dtcp");
    }
}
