//! RTTV-CCA, MSS-CCA and MRVHS-CCA as the kernel runs them: `bpf/rtt_variation.h`
//! and the hooks of `bpf/rtt_variation_ops.h`, with the simulator's defaults
//! (growth per acknowledged segment, RTT triple from avoidance ACKs, ssthresh from
//! cwnd). RTTs in microseconds; TimeRatio and F in Q16, F from the integer square
//! root of a Q32 product; b(w) in hundredths.

use super::arith::{self, Q16_ONE, Q16_SHIFT, Window};
use super::{KernelProgram, TcpSock};
use crate::cc::highspeed;

/// TimeRatio before any sample: `(r + r) / r`.
const NEUTRAL_TIME_RATIO_Q16: u64 = 2 * Q16_ONE;
/// TimeRatio is capped at 256 so that F's product stays in 64 bits.
const MAX_TIME_RATIO_Q16: u64 = 256 * Q16_ONE;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Growth {
    /// RTTV-CCA: `F = sqrt(TimeRatio x cwnd)`.
    Window,
    /// MSS-CCA, MRVHS-CCA: `F = sqrt(TimeRatio x MSS)`, MSS in bytes.
    Mss,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decrease {
    /// `w <- beta w`, beta per mille.
    Beta(u64),
    /// `w <- (1 - b(w)) w` (RFC 3649, ns-3's table).
    HighSpeed,
}

/// The three programs' `struct rttv_config`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub growth: Growth,
    pub decrease: Decrease,
    /// A timeout restarts from the initial window, not the kernel's.
    pub rto_initial: bool,
}

pub const RTTV: Config = Config {
    growth: Growth::Window,
    decrease: Decrease::Beta(500),
    rto_initial: false,
};
pub const MSS: Config = Config {
    growth: Growth::Mss,
    decrease: Decrease::Beta(500),
    rto_initial: true,
};
pub const MRVHS: Config = Config {
    growth: Growth::Mss,
    decrease: Decrease::HighSpeed,
    rto_initial: false,
};

/// `struct rttv_state`; RTTs are 0 before any sample.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct State {
    base_us: u32,
    cur_us: u32,
    max_us: u32,
    /// The latest sample of any ACK (ns-3's `m_lastRtt`).
    last_us: u32,
    frac_q16: u32,
    init_cwnd: u32,
    f_q16: u32,
    time_ratio_q16: u32,
}

pub struct RttVariation {
    config: Config,
    s: State,
}

impl RttVariation {
    pub fn new(config: Config) -> Self {
        Self {
            config,
            s: State::default(),
        }
    }

    /// Algorithm 4.1 lines 8-15 (`rttv_observe`).
    fn observe(&mut self, rtt_us: u32) {
        if rtt_us == 0 {
            return;
        }
        let s = &mut self.s;
        s.cur_us = rtt_us;
        s.base_us = if s.base_us == 0 {
            rtt_us
        } else {
            s.base_us.min(rtt_us)
        };
        s.max_us = s.max_us.max(rtt_us);
    }

    /// `(RTTmax + RTTbase) / RTTcur` in Q16, 2 before any sample, at most 256.
    fn time_ratio_q16(&self) -> u64 {
        let s = &self.s;
        if s.cur_us == 0 {
            return NEUTRAL_TIME_RATIO_Q16;
        }
        arith::ratio_q16(u64::from(s.max_us) + u64::from(s.base_us), s.cur_us.into())
            .min(MAX_TIME_RATIO_Q16)
    }

    /// F in Q16: the square root of the Q32 product `scale x TimeRatio`.
    fn f_q16(&self, time_ratio_q16: u64, cwnd: u32, mss: u32) -> u64 {
        let scale = match self.config.growth {
            Growth::Window => cwnd,
            Growth::Mss => mss,
        };
        let scale = u64::from(scale.min(arith::MAX_WINDOW));
        arith::isqrt((scale * time_ratio_q16) << Q16_SHIFT)
    }

    /// `rttv_cong_avoid`: slow start, then `F x acked / cwnd`.
    fn grow(&mut self, w: &mut Window, mut acked: u32, mss: u32) {
        if arith::in_slow_start(w) {
            acked = arith::slow_start(w, acked);
        }
        if acked == 0 || arith::in_slow_start(w) {
            return;
        }
        self.observe(self.s.last_us);
        let ratio = self.time_ratio_q16();
        self.s.time_ratio_q16 = ratio as u32;
        let f = self.f_q16(ratio, w.cwnd, mss);
        self.s.f_q16 = f.min(u64::from(u32::MAX)) as u32;
        arith::grow_per_rtt(w, &mut self.s.frac_q16, f, acked);
    }

    /// `rttv_ssthresh`: the reduced window, at least 2 segments.
    fn reduced(&self, cwnd: u32) -> u32 {
        let kept = match self.config.decrease {
            Decrease::HighSpeed => u64::from(cwnd) * u64::from(100 - b_percent(cwnd)) / 100,
            Decrease::Beta(pm) => arith::scale_pm(cwnd.into(), pm),
        };
        (kept as u32).max(arith::MIN_SSTHRESH)
    }
}

/// HighSpeed's b(w) in hundredths, from the simulator's ns-3 table (two decimals).
fn b_percent(w: u32) -> u32 {
    (highspeed::decrease_fraction(f64::from(w)) * 100.0).round() as u32
}

impl KernelProgram for RttVariation {
    fn init(&mut self, tp: &mut TcpSock) {
        self.s = State {
            init_cwnd: tp.snd_cwnd,
            time_ratio_q16: NEUTRAL_TIME_RATIO_Q16 as u32,
            ..State::default()
        };
    }

    fn pkts_acked(&mut self, _tp: &TcpSock, rtt_us: i32) {
        if rtt_us > 0 {
            self.s.last_us = rtt_us as u32;
        }
    }

    fn cong_avoid(&mut self, tp: &mut TcpSock, _ack: u32, acked: u32) {
        if !super::cwnd_limited(tp) {
            return;
        }
        let mut w = super::load_window(tp);
        self.grow(&mut w, acked, tp.mss_cache);
        super::store_window(tp, w);
    }

    fn ssthresh(&mut self, tp: &TcpSock) -> u32 {
        self.reduced(tp.snd_cwnd)
    }

    fn set_state(&mut self, tp: &mut TcpSock, new_state: u8) {
        super::enter_loss(self, tp, new_state);
    }

    fn loss_window(&self, kernel_cwnd: u32) -> u32 {
        if self.config.rto_initial {
            self.s.init_cwnd
        } else {
            kernel_cwnd
        }
    }

    fn private_state(&self) -> Vec<u64> {
        let s = &self.s;
        [
            s.base_us,
            s.cur_us,
            s.max_us,
            s.last_us,
            s.frac_q16,
            s.init_cwnd,
            s.f_q16,
            s.time_ratio_q16,
        ]
        .map(u64::from)
        .to_vec()
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        let q16 = |x: u32| f64::from(x) / Q16_ONE as f64;
        let secs = |us: u32| f64::from(us) * 1e-6;
        out.extend([
            ("f", q16(self.s.f_q16)),
            ("time_ratio", q16(self.s.time_ratio_q16)),
            ("rtt_base_s", secs(self.s.base_us)),
            ("rtt_cur_s", secs(self.s.cur_us)),
            ("rtt_max_s", secs(self.s.max_us)),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::fixed::TCP_CA_LOSS;

    /// A program in avoidance that has seen RTTbase 0.1 s and RTTmax 0.3 s, with the
    /// next sample 0.2 s (TimeRatio 2).
    fn primed(config: Config) -> RttVariation {
        let mut p = RttVariation::new(config);
        p.init(&mut TcpSock {
            snd_cwnd: 10,
            ..TcpSock::default()
        });
        p.observe(100_000);
        p.observe(300_000);
        p.pkts_acked(&TcpSock::default(), 200_000);
        p
    }

    fn avoidance(cwnd: u32, mss: u32) -> TcpSock {
        TcpSock {
            snd_cwnd: cwnd,
            snd_ssthresh: 2,
            snd_cwnd_clamp: u32::MAX,
            is_cwnd_limited: true,
            mss_cache: mss,
            ..TcpSock::default()
        }
    }

    #[test]
    fn mss_f_is_exact_and_the_half_segment_waits_in_the_fraction() {
        // MSS 1250, TimeRatio 2: F = sqrt(2500) = 50; +50 / 100 = half a segment.
        let mut p = primed(MSS);
        let mut tp = avoidance(100, 1250);
        p.cong_avoid(&mut tp, 0, 1);
        assert_eq!(
            (p.s.f_q16, tp.snd_cwnd, p.s.frac_q16),
            (50 << 16, 100, 1 << 15)
        );
        p.pkts_acked(&tp, 200_000);
        p.cong_avoid(&mut tp, 0, 1);
        assert_eq!((tp.snd_cwnd, p.s.frac_q16), (101, 0));
    }

    #[test]
    fn rttv_f_follows_the_window_and_is_floored_in_q16() {
        // cwnd 50: F = sqrt(100) = 10; cwnd 3: sqrt(6) = 2.449489..., floor in Q16.
        let mut p = primed(RTTV);
        p.cong_avoid(&mut avoidance(50, 1400), 0, 1);
        assert_eq!(p.s.f_q16, 10 << 16);
        p.cong_avoid(&mut avoidance(3, 1400), 0, 1);
        assert_eq!(p.s.f_q16, (6f64.sqrt() * 65536.0).floor() as u32);
    }

    #[test]
    fn samples_enter_the_triple_only_on_avoidance_increases() {
        let mut p = RttVariation::new(RTTV);
        p.init(&mut TcpSock {
            snd_cwnd: 10,
            ..TcpSock::default()
        });
        p.pkts_acked(&TcpSock::default(), 500_000);
        let mut tp = TcpSock {
            snd_ssthresh: 20,
            ..avoidance(10, 1400)
        };
        p.cong_avoid(&mut tp, 0, 1); // slow start
        assert_eq!((tp.snd_cwnd, p.s.max_us), (11, 0));
        p.pkts_acked(&tp, 100_000);
        p.cong_avoid(&mut avoidance(50, 1400), 0, 1);
        assert_eq!(
            (p.s.base_us, p.s.cur_us, p.s.max_us),
            (100_000, 100_000, 100_000)
        );
        assert_eq!(p.s.time_ratio_q16, 2 << 16);
    }

    #[test]
    fn time_ratio_is_capped_at_256() {
        let mut p = RttVariation::new(RTTV);
        p.observe(1_000_000);
        p.observe(1);
        assert_eq!(p.time_ratio_q16(), MAX_TIME_RATIO_Q16);
    }

    #[test]
    fn decreases_floor_to_whole_segments() {
        let p = RttVariation::new(MSS);
        assert_eq!((p.reduced(90), p.reduced(91), p.reduced(3)), (45, 45, 2));
        // MRVHS: b(1000) = 0.33, b(5000) = 0.25, b(30) = 0.5, b = 0.09 above the table.
        let p = RttVariation::new(MRVHS);
        let got: Vec<u32> = [1000, 5000, 30, 3, 1_000_000]
            .map(|w| p.reduced(w))
            .to_vec();
        assert_eq!(got, [670, 3750, 15, 2, 910_000]);
    }

    #[test]
    fn a_timeout_restarts_mss_from_the_initial_window_only() {
        for (config, after) in [(MSS, 10), (RTTV, 1), (MRVHS, 1)] {
            let mut p = primed(config);
            let mut tp = avoidance(1, 1400);
            p.set_state(&mut tp, TCP_CA_LOSS);
            assert_eq!(tp.snd_cwnd, after, "{config:?}");
            assert_eq!(p.loss_window(1), after);
        }
    }

    #[test]
    fn no_growth_unless_cwnd_limited() {
        let mut p = primed(MSS);
        let mut tp = TcpSock {
            is_cwnd_limited: false,
            ..avoidance(100, 1250)
        };
        p.cong_avoid(&mut tp, 0, 1);
        assert_eq!((tp.snd_cwnd, p.s.frac_q16), (100, 0));
    }
}
