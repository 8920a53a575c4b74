//! D-TCP as the kernel runs it: `bpf/dtcp.h` and the hooks of
//! `bpf/wavecc_dtcp.bpf.c`, with the simulator's defaults (Tustin filter, Eq. 12,
//! BW_C = B_i, epochs of one smoothed RTT, N <= W).
//!
//! Bandwidths are integer bytes per second (B_i from `tcp_sock.delivered` segments x
//! MSS over `tcp_mstamp` microseconds), SINR and its average integer milli-dB from the
//! `dtcp_sinr` map, `(BW_E - BW_C) / BW_E` Q24 saturated at +-256, N Q16 segments per
//! RTT (Eq. 12 in its `N_i` form), ssthresh `floor(cwnd (1 - y))`.

use super::arith::{self, PM, Q16_ONE, Q16_SHIFT, Window};
use super::{CA_EVENT_LOSS, KernelProgram, SinrHint, TcpSock};

const K_PM: u64 = 900;
const G_PM: i64 = 500;
const ALPHA_PM: i64 = 200;
const ETA: u64 = 2;
const SINR_WEIGHT_PM: i64 = 100;
const INITIAL_WINDOW_FACTOR: u32 = 2;
const RTO_WINDOW_FACTOR: u32 = 2;
const MAX_N_WINDOW_FACTOR: u64 = 1;
const Q24_SHIFT: u32 = 24;
/// |(BW_E - BW_C) / BW_E| is saturated at 256 so that `/ alpha x N` stays in 64 bits.
const MAX_EXCESS_Q24: i64 = 256 << Q24_SHIFT;
/// One dB in milli-dB: the floor of |SINR_avg| in s.
const MDB_PER_DB: i64 = 1000;
/// Hints are clamped to +-100 dB.
const SINR_LIMIT_MDB: i64 = 100_000;

/// `struct dtcp_state`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct State {
    epoch_start_us: u64,
    /// B_i, B_I, BW_E in bytes/s.
    sample_bps: u64,
    filtered_bps: u64,
    estimate_bps: i64,
    /// N, Q16 segments per RTT.
    n_q16: u64,
    epoch_delivered: u32,
    sinr_avg_mdb: i32,
    frac_q16: u32,
    init_cwnd: u32,
    epoch_started: bool,
    /// An epoch has ended since the last reset.
    seeded: bool,
    sinr_seen: bool,
}

#[derive(Default)]
pub struct DTcp {
    s: State,
}

impl DTcp {
    /// Algorithm 1's D-TCP_reset: N = 1, the estimator cleared.
    fn reset(&mut self) {
        self.s = State {
            n_q16: Q16_ONE,
            init_cwnd: self.s.init_cwnd,
            ..State::default()
        };
    }

    /// Step 3's s, and the SINR average's update; 0 without a hint.
    fn sinr_term(&mut self, hint: SinrHint) -> i64 {
        if hint.valid == 0 {
            return 0;
        }
        let s = &mut self.s;
        let sinr = i64::from(hint.sinr_mdb).clamp(-SINR_LIMIT_MDB, SINR_LIMIT_MDB);
        let avg = if s.sinr_seen {
            i64::from(s.sinr_avg_mdb)
        } else {
            sinr
        };
        let scale = avg.abs().max(MDB_PER_DB);
        s.sinr_avg_mdb = arith::sdiv(
            (PM as i64 - SINR_WEIGHT_PM) * avg + SINR_WEIGHT_PM * sinr,
            PM as i64,
        ) as i32;
        s.sinr_seen = true;
        arith::sdiv((s.filtered_bps as i64).wrapping_mul(sinr - avg), scale)
    }

    /// Steps 2-4 for an epoch that delivered at `b` bytes/s.
    fn end_epoch(&mut self, b: u64, cwnd: u32, hint: SinrHint) {
        let (filtered, prev) = if self.s.seeded {
            (self.s.filtered_bps, self.s.sample_bps)
        } else {
            (b, b)
        };
        self.s.filtered_bps = low_pass(filtered, b, prev);
        self.s.sample_bps = b;
        self.s.seeded = true;
        let sinr_term = self.sinr_term(hint);
        let s = &mut self.s;
        let filtered = s.filtered_bps as i64;
        s.estimate_bps = filtered
            + arith::sdiv(
                G_PM.wrapping_mul((b as i64) - filtered + sinr_term),
                PM as i64,
            );
        if s.estimate_bps > 0 {
            s.n_q16 = next_n(s.n_q16, s.estimate_bps, b, cwnd);
        }
    }

    /// Step 1: the epoch ends at the first ACK more than srtt after it began.
    fn on_ack(
        &mut self,
        now_us: u64,
        delivered: u32,
        srtt_us: u32,
        mss: u32,
        cwnd: u32,
        hint: SinrHint,
    ) {
        let s = &mut self.s;
        if !s.epoch_started {
            s.epoch_started = true;
            s.epoch_start_us = now_us;
            s.epoch_delivered = delivered;
            return;
        }
        let elapsed = now_us.wrapping_sub(s.epoch_start_us);
        if srtt_us == 0 || elapsed <= u64::from(srtt_us) {
            return;
        }
        let bytes = u64::from(delivered.wrapping_sub(s.epoch_delivered)) * u64::from(mss);
        s.epoch_start_us = now_us;
        s.epoch_delivered = delivered;
        self.end_epoch(bytes.wrapping_mul(1_000_000) / elapsed, cwnd, hint);
    }

    /// Eqs. 15-16: `floor(cwnd (1 - y))`, `y = eta / ((2 eta - 1) N + 1)`, at least 2.
    fn reduced(&self, cwnd: u32) -> u32 {
        let den = (2 * ETA - 1) * self.s.n_q16 + Q16_ONE;
        let num = den - ETA * Q16_ONE;
        let w = u64::from(cwnd.min(arith::MAX_WINDOW));
        ((w * num / den) as u32).max(arith::MIN_SSTHRESH)
    }
}

/// Eq. 4, the Tustin filter.
fn low_pass(filtered: u64, sample: u64, prev: u64) -> u64 {
    (2 * K_PM * filtered + (PM - K_PM) * (sample + prev)) / (2 * PM)
}

/// Eq. 12 in its `N_i` form (the float default, `n_update = "eq10"`),
/// `N + 1 - (BW_E - BW_C) / (alpha BW_E) x N`, bounded to `[1, W]` (Q16).
fn next_n(n_q16: u64, bw_e: i64, bw_c: u64, cwnd: u32) -> u64 {
    let excess = arith::sdiv((bw_e - bw_c as i64).wrapping_mul(1 << Q24_SHIFT), bw_e)
        .clamp(-MAX_EXCESS_Q24, MAX_EXCESS_Q24);
    let w = u64::from(cwnd.min(arith::MAX_WINDOW));
    // excess / alpha (Q24), times N's whole and fractional parts apart (Q24 x Q16 to Q16).
    let per_alpha = arith::sdiv(excess * PM as i64, ALPHA_PM);
    let step_q16 = arith::sdiv(
        per_alpha * (n_q16 >> Q16_SHIFT) as i64,
        1 << (Q24_SHIFT - Q16_SHIFT),
    ) + arith::sdiv(per_alpha * (n_q16 & (Q16_ONE - 1)) as i64, 1 << Q24_SHIFT);
    let next = (n_q16 as i64 + Q16_ONE as i64 - step_q16).max(Q16_ONE as i64) as u64;
    next.min((MAX_N_WINDOW_FACTOR * w) << Q16_SHIFT)
        .max(Q16_ONE)
}

impl KernelProgram for DTcp {
    /// Algorithm 1 Initialization: twice the initial window.
    fn init(&mut self, tp: &mut TcpSock) {
        let mut w = super::load_window(tp);
        self.s.init_cwnd = w.cwnd;
        self.reset();
        w.cwnd = (INITIAL_WINDOW_FACTOR * self.s.init_cwnd).max(1);
        super::store_window(tp, w);
    }

    fn pkts_acked(&mut self, tp: &TcpSock, _rtt_us: i32) {
        self.on_ack(
            tp.tcp_mstamp,
            tp.delivered,
            tp.srtt_us >> 3,
            tp.mss_cache,
            tp.snd_cwnd,
            tp.sinr,
        );
    }

    /// Eq. 14: `cwnd += N` per RTT; slow start is NewReno's.
    fn cong_avoid(&mut self, tp: &mut TcpSock, _ack: u32, mut acked: u32) {
        if !super::cwnd_limited(tp) {
            return;
        }
        let mut w: Window = super::load_window(tp);
        if arith::in_slow_start(&w) {
            acked = arith::slow_start(&mut w, acked);
        }
        if acked > 0 {
            arith::grow_per_rtt(&mut w, &mut self.s.frac_q16, self.s.n_q16, acked);
        }
        super::store_window(tp, w);
    }

    fn ssthresh(&mut self, tp: &TcpSock) -> u32 {
        self.reduced(tp.snd_cwnd)
    }

    fn cwnd_event(&mut self, _tp: &mut TcpSock, event: u8) {
        if event == CA_EVENT_LOSS {
            self.reset();
        }
    }

    fn set_state(&mut self, tp: &mut TcpSock, new_state: u8) {
        super::enter_loss(self, tp, new_state);
    }

    /// Twice the initial window.
    fn loss_window(&self, _kernel_cwnd: u32) -> u32 {
        (RTO_WINDOW_FACTOR * self.s.init_cwnd).max(1)
    }

    fn private_state(&self) -> Vec<u64> {
        let s = &self.s;
        vec![
            s.epoch_start_us,
            s.sample_bps,
            s.filtered_bps,
            s.estimate_bps as u64,
            s.n_q16,
            s.epoch_delivered.into(),
            i64::from(s.sinr_avg_mdb) as u64,
            s.frac_q16.into(),
            s.init_cwnd.into(),
            s.epoch_started.into(),
            s.seeded.into(),
            s.sinr_seen.into(),
        ]
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        let s = &self.s;
        out.extend([
            ("n", s.n_q16 as f64 / Q16_ONE as f64),
            ("bw_sample_mbps", s.sample_bps as f64 * 8e-6),
            ("bw_filtered_mbps", s.filtered_bps as f64 * 8e-6),
            ("bw_est_mbps", s.estimate_bps as f64 * 8e-6),
        ]);
        if s.sinr_seen {
            out.push(("sinr_avg_db", f64::from(s.sinr_avg_mdb) * 1e-3));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::fixed::TCP_CA_LOSS;

    const NONE: SinrHint = SinrHint {
        sinr_mdb: 0,
        valid: 0,
    };

    /// D-TCP after init at an initial window of 10, and the first ACK at time 0.
    fn started() -> DTcp {
        let mut p = DTcp::default();
        let mut tp = TcpSock {
            snd_cwnd: 10,
            snd_cwnd_clamp: u32::MAX,
            ..TcpSock::default()
        };
        p.init(&mut tp);
        assert_eq!(tp.snd_cwnd, 20);
        p.on_ack(0, 0, 100_000, 1250, 10, NONE);
        p
    }

    #[test]
    fn epochs_without_a_hint() {
        // Epochs of 0.125 s on a 0.1 s srtt, MSS 1250, cwnd 10: 100 segments (1e6 B/s)
        // then 120 (1.2e6 B/s). N = 2 after the first; after the second B_I = 1.01e6,
        // BW_E = 1.105e6, N = 3 + (0.095 / 0.221) x 2 = 3.8597285.
        let mut p = started();
        p.on_ack(100_000, 50, 100_000, 1250, 10, NONE); // within the epoch
        p.on_ack(125_000, 100, 100_000, 1250, 10, NONE);
        assert_eq!(p.s.n_q16, 2 * Q16_ONE);
        p.on_ack(250_000, 220, 100_000, 1250, 10, NONE);
        assert_eq!((p.s.filtered_bps, p.s.estimate_bps), (1_010_000, 1_105_000));
        assert!(
            (p.s.n_q16 as f64 / Q16_ONE as f64 - 3.8597285).abs() < 2e-4,
            "{}",
            p.s.n_q16
        );
        p.s.n_q16 = Q16_ONE;
        assert_eq!(p.reduced(100), 50); // y = 2 / 4: Reno's halving
    }

    #[test]
    fn a_sinr_hint_enters_the_estimate_and_is_clamped() {
        // SINR 10 then 15 dB: s = B_I x 5 / 10, BW_E = 1.3575e6 above BW_C = 1.2e6, so
        // N = 3 - (0.1575 / 0.2715) x 2 = 1.839779; the average 0.9 x 10 + 0.1 x 15; a
        // 2e6 dB hint counts as 100 dB.
        let mut p = started();
        p.on_ack(
            125_000,
            100,
            100_000,
            1250,
            10,
            SinrHint {
                sinr_mdb: 10_000,
                valid: 1,
            },
        );
        p.on_ack(
            250_000,
            220,
            100_000,
            1250,
            10,
            SinrHint {
                sinr_mdb: 15_000,
                valid: 1,
            },
        );
        assert_eq!((p.s.estimate_bps, p.s.sinr_avg_mdb), (1_357_500, 10_500));
        assert!(
            (p.s.n_q16 as f64 / Q16_ONE as f64 - 1.839779).abs() < 2e-4,
            "{}",
            p.s.n_q16
        );
        p.on_ack(
            375_000,
            340,
            100_000,
            1250,
            10,
            SinrHint {
                sinr_mdb: 2_000_000_000,
                valid: 1,
            },
        );
        assert_eq!(p.s.sinr_avg_mdb, 19_450);
    }

    #[test]
    fn n_stays_within_one_and_the_window() {
        assert_eq!(next_n(5 * Q16_ONE, 1_000_000, 0, 10), Q16_ONE); // BW_E far above BW_C
        // The step scales with N, not W: excess 0.1 / 0.2 x N = 1.5 at N = 3, N = 2.5;
        // 0.1 floors to 1677721 / 2^24, so the step is 1 / 65536 short.
        assert_eq!(
            next_n(3 * Q16_ONE, 1_000_000, 900_000, 1000),
            5 * Q16_ONE / 2 + 1
        );
        assert_eq!(next_n(5 * Q16_ONE, 1_000, 1_000_000, 10), 10 * Q16_ONE); // far below: W
        // BW_E = BW_C: N + 1.
        assert_eq!(next_n(3 * Q16_ONE, 1_000, 1_000, 10), 4 * Q16_ONE);
    }

    #[test]
    fn a_timeout_resets_n_and_restarts_from_twice_the_initial_window() {
        let mut p = started();
        p.s.n_q16 = 9 * Q16_ONE;
        let mut tp = TcpSock {
            snd_cwnd: 3,
            snd_cwnd_clamp: u32::MAX,
            ..TcpSock::default()
        };
        p.cwnd_event(&mut tp, CA_EVENT_LOSS);
        assert_eq!((p.s.n_q16, p.s.epoch_started), (Q16_ONE, false));
        p.set_state(&mut tp, TCP_CA_LOSS);
        assert_eq!((tp.snd_cwnd, p.loss_window(1)), (20, 20));
    }

    #[test]
    fn avoidance_adds_n_per_window() {
        let mut p = started();
        p.s.n_q16 = 3 * Q16_ONE;
        let mut tp = TcpSock {
            snd_cwnd: 30,
            snd_ssthresh: 2,
            snd_cwnd_clamp: u32::MAX,
            is_cwnd_limited: true,
            ..TcpSock::default()
        };
        // 3 / 30 per ACK floors to 6553 / 65536: ten ACKs leave the window 6 / 65536
        // short of 31, the eleventh passes it.
        for _ in 0..10 {
            p.cong_avoid(&mut tp, 0, 1);
        }
        assert_eq!((tp.snd_cwnd, p.s.frac_q16), (30, 65_530));
        p.cong_avoid(&mut tp, 0, 1);
        assert_eq!((tp.snd_cwnd, p.s.frac_q16), (31, 6547));
    }
}
