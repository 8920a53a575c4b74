//! FB-TCP as the kernel runs it: `bpf/fbtcp.h` and the hooks of
//! `bpf/wavecc_fbtcp.bpf.c`, with the simulator's defaults and the sender-side rate.
//!
//! CSI and CAD are compared with their per-mille band edges exactly, by
//! cross-multiplication; targetCwnd is an integer division; maxCwnd is Q16 segments,
//! from the segments delivered (`tcp_sock.delivered`) over the last completed window
//! of at least 100 ms; the window is whole segments, so multiplicative rows floor.

use super::arith::{self, PM, Q16_ONE, Q16_SHIFT, Window};
use super::{KernelProgram, TCP_CA_OPEN, TcpSock};

const HOLD_CYCLES: u16 = 30;
const B_VARIANT_CYCLE: u16 = 3;
const STARTUP_CWND: u32 = 900;
const STARTUP_GAIN: u32 = 2;
const MIN_RTT_SAMPLES: u32 = 3;
const RHO_PM: u64 = 1050;
const RATE_WINDOW_US: u64 = 100_000;
const SSTHRESH_KEEP_PM: u64 = 750;
const CAD_PM: u64 = 950;
const HOLD_STEP_PM: i32 = 900;
/// CSI band edges (Tables 1, 3, 5), per mille.
const CSI_C1_PM: u64 = 980;
const CSI_C6_PM: u64 = 950;
const CSI_C8_PM: u64 = 700;
const CSI_C10_PM: u64 = 300;
const CSI_C11_PM: u64 = 50;
const CSI_D1_PM: u64 = 990;
const CSI_D2_PM: u64 = 700;
const CSI_D4_PM: u64 = 300;
const CSI_D5_PM: u64 = 50;

/// Trace codes of the rule that fired, x10 (C1 = 10, C10.5 = 105, D6.5 = 1065).
const RULE_NEWRENO: i16 = -10;
const RULE_STARTUP: i16 = -20;

/// How a row changes the window (`struct fbtcp_step`).
#[derive(Clone, Copy, Debug)]
enum Step {
    Add(i32),
    MulPm(i32),
    Div(u32),
}

impl Step {
    /// `fbtcp_apply`: the new window, at least one segment.
    fn apply(self, cwnd: u32) -> u32 {
        let w: i64 = match self {
            Step::Add(v) => i64::from(cwnd) + i64::from(v),
            Step::MulPm(pm) => arith::scale_pm(cwnd.into(), pm as u64) as i64,
            Step::Div(d) => (cwnd / d).into(),
        };
        if w < 1 { 1 } else { w as u32 }
    }
}

/// What a cycle's rule saw (`struct fbtcp_input`).
struct Input {
    base_us: u32,
    min_us: u32,
    cwnd: u32,
    /// floor(cwnd x baseRtt / minRtt).
    target: u64,
}

impl Input {
    /// CSI = base / min at least `edge_pm` per mille, exactly.
    fn csi_at_least(&self, edge_pm: u64) -> bool {
        u64::from(self.base_us) * PM >= edge_pm * u64::from(self.min_us)
    }

    fn cad_high(&self) -> bool {
        self.target * PM >= CAD_PM * u64::from(self.cwnd)
    }
}

/// `struct fbtcp_state`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct State {
    /// maxCwnd, Q16 segments; 0 until a rate window closes.
    max_cwnd_q16: u64,
    meter_start_us: u64,
    meter_start_delivered: u32,
    /// The last completed rate window: segments delivered over `rate_us` microseconds.
    rate_segments: u32,
    rate_us: u32,
    base_us: u32,
    cycle_min_us: u32,
    cycle_samples: u32,
    /// snd_nxt when the cycle began.
    cycle_end_seq: u32,
    frac_q16: u32,
    congestion: u16,
    hold: u16,
    rule: i16,
    enabled: bool,
    meter_started: bool,
}

#[derive(Default)]
pub struct FbTcp {
    s: State,
}

impl FbTcp {
    fn restart_cycle(&mut self, snd_nxt: u32) {
        self.s.cycle_end_seq = snd_nxt;
        self.s.cycle_min_us = 0;
        self.s.cycle_samples = 0;
    }

    /// The rate meter: a window closes at the first ACK at least 100 ms after it opened.
    fn meter(&mut self, now_us: u64, delivered: u32) {
        let s = &mut self.s;
        if !s.meter_started {
            s.meter_started = true;
        } else if now_us.wrapping_sub(s.meter_start_us) >= RATE_WINDOW_US {
            s.rate_segments = delivered.wrapping_sub(s.meter_start_delivered);
            s.rate_us = now_us
                .wrapping_sub(s.meter_start_us)
                .min(u64::from(u32::MAX)) as u32;
        } else {
            return;
        }
        s.meter_start_us = now_us;
        s.meter_start_delivered = delivered;
    }

    /// maxCwnd candidate, Q16: delivered x baseRtt / window length x rho.
    fn max_cwnd_candidate(&self) -> u64 {
        let s = &self.s;
        let q = arith::ratio_q16(
            u64::from(s.rate_segments) * u64::from(s.base_us),
            s.rate_us.into(),
        );
        arith::scale_pm(q, RHO_PM)
    }

    /// An increase row: both counters reset.
    fn increase(&mut self, cwnd: &mut u32, rule: i16, segments: u32) {
        *cwnd = cwnd.wrapping_add(segments);
        self.s.rule = rule;
        self.s.congestion = 0;
        self.s.hold = 0;
    }

    /// A hold row: the 31st cycle multiplies cwnd and maxCwnd by 0.9.
    fn hold(&mut self, cwnd: &mut u32, rule: i16) {
        let s = &mut self.s;
        s.congestion = 0;
        s.hold += 1;
        if s.hold <= HOLD_CYCLES {
            s.rule = rule;
            return;
        }
        *cwnd = Step::MulPm(HOLD_STEP_PM).apply(*cwnd);
        s.max_cwnd_q16 = arith::scale_pm(s.max_cwnd_q16, HOLD_STEP_PM as u64);
        s.hold = 0;
        s.rule = rule + 5;
    }

    /// A decrease row: `a` while the counter is below 3, `b` on the third. Returns
    /// true: decrease rows lower ssthresh.
    fn decrease(&mut self, cwnd: &mut u32, rule: i16, a: Step, b: Step) -> bool {
        let s = &mut self.s;
        s.hold = 0;
        s.congestion += 1;
        if s.congestion < B_VARIANT_CYCLE {
            *cwnd = a.apply(*cwnd);
            s.rule = rule;
        } else {
            *cwnd = b.apply(*cwnd);
            s.congestion = 0;
            s.rule = rule + 5;
        }
        true
    }

    /// Tables 1-4, first matching row.
    fn convergence(&mut self, x: &Input, cwnd: &mut u32) -> bool {
        let cad_high = x.cad_high();
        let diff = u64::from(x.cwnd).wrapping_sub(x.target);
        if x.csi_at_least(CSI_C1_PM) {
            let (rule, add) = match diff {
                0..=10 => (10, 120),
                11..=15 => (20, 100),
                16..=20 => (30, 70),
                21..=30 => (40, 60),
                _ => (50, 50),
            };
            self.increase(cwnd, rule, add);
            return false;
        }
        if x.csi_at_least(CSI_C6_PM) {
            let (rule, add) = if cad_high { (60, 40) } else { (70, 30) };
            self.increase(cwnd, rule, add);
            return false;
        }
        if x.csi_at_least(CSI_C8_PM) {
            let (rule, add) = if cad_high { (80, 25) } else { (90, 20) };
            self.increase(cwnd, rule, add);
            return false;
        }
        if x.csi_at_least(CSI_C10_PM) {
            self.hold(cwnd, 100);
            return false;
        }
        if x.csi_at_least(CSI_C11_PM) {
            return if cad_high {
                self.decrease(cwnd, 110, Step::Add(-10), Step::Add(-20))
            } else {
                self.decrease(cwnd, 120, Step::Add(-25), Step::Add(-50))
            };
        }
        if cad_high {
            self.decrease(cwnd, 130, Step::MulPm(750), Step::Div(2))
        } else {
            self.decrease(cwnd, 140, Step::MulPm(400), Step::Div(3))
        }
    }

    /// Tables 5-6.
    fn divergence(&mut self, x: &Input, cwnd: &mut u32) -> bool {
        if x.csi_at_least(CSI_D1_PM) {
            self.increase(cwnd, 1010, 1);
            return false;
        }
        if x.csi_at_least(CSI_D2_PM) {
            if x.cad_high() {
                self.increase(cwnd, 1020, 1);
            } else {
                self.hold(cwnd, 1030);
            }
            return false;
        }
        if x.csi_at_least(CSI_D4_PM) {
            self.hold(cwnd, 1040);
            return false;
        }
        if x.csi_at_least(CSI_D5_PM) {
            return self.decrease(cwnd, 1050, Step::MulPm(750), Step::Div(2));
        }
        self.decrease(cwnd, 1060, Step::Div(2), Step::Div(4))
    }

    /// A cycle with enough samples: start-up or a fuzzy rule, then the ssthresh keep.
    fn cycle(&mut self, w: &mut Window, min_us: u32) {
        let mut cwnd = w.cwnd;
        let mut lower = false;
        if cwnd < STARTUP_CWND {
            cwnd *= STARTUP_GAIN;
            self.s.rule = RULE_STARTUP;
        } else {
            let base_us = self.s.base_us;
            let target = u64::from(cwnd) * u64::from(base_us) / u64::from(min_us);
            let x = Input {
                base_us,
                min_us,
                cwnd,
                target,
            };
            self.s.max_cwnd_q16 = self.s.max_cwnd_q16.max(self.max_cwnd_candidate());
            lower = if (u64::from(cwnd) << Q16_SHIFT) <= self.s.max_cwnd_q16 {
                self.convergence(&x, &mut cwnd)
            } else {
                self.divergence(&x, &mut cwnd)
            };
        }
        w.cwnd = cwnd;
        if lower {
            w.ssthresh = lowered_ssthresh(w.ssthresh, cwnd);
        }
        w.ssthresh = w
            .ssthresh
            .max(arith::scale_pm(cwnd.into(), SSTHRESH_KEEP_PM) as u32);
    }

    /// `fbtcp_cong_avoid`; `ack` is the new snd_una.
    fn step(&mut self, w: &mut Window, ack: u32, snd_nxt: u32, acked: u32) {
        let (min_us, samples) = (self.s.cycle_min_us, self.s.cycle_samples);
        if !self.s.enabled {
            return arith::reno_step(w, &mut self.s.frac_q16, acked);
        }
        if !arith::seq_after(ack, self.s.cycle_end_seq) {
            return;
        }
        self.restart_cycle(snd_nxt);
        if samples < MIN_RTT_SAMPLES || min_us == 0 || self.s.base_us == 0 {
            self.s.rule = RULE_NEWRENO;
            return arith::reno_step(w, &mut self.s.frac_q16, acked);
        }
        self.cycle(w, min_us);
    }
}

/// A loss (and a decrease row): `max(min(ssthresh, cwnd - 1), 2)`.
fn lowered_ssthresh(ssthresh: u32, cwnd: u32) -> u32 {
    ssthresh.min(cwnd.wrapping_sub(1)).max(arith::MIN_SSTHRESH)
}

impl KernelProgram for FbTcp {
    fn init(&mut self, tp: &mut TcpSock) {
        self.s = State {
            enabled: tp.ca_state == TCP_CA_OPEN,
            ..State::default()
        };
        self.restart_cycle(tp.snd_nxt);
    }

    fn pkts_acked(&mut self, tp: &TcpSock, rtt_us: i32) {
        if rtt_us > 0 {
            let (r, s) = (rtt_us as u32, &mut self.s);
            s.base_us = if s.base_us == 0 { r } else { s.base_us.min(r) };
            s.cycle_min_us = if s.cycle_min_us == 0 {
                r
            } else {
                s.cycle_min_us.min(r)
            };
            s.cycle_samples = s.cycle_samples.wrapping_add(1);
        }
        self.meter(tp.tcp_mstamp, tp.delivered);
    }

    fn cong_avoid(&mut self, tp: &mut TcpSock, ack: u32, acked: u32) {
        if !super::cwnd_limited(tp) {
            return;
        }
        let mut w = super::load_window(tp);
        self.step(&mut w, ack, tp.snd_nxt, acked);
        super::store_window(tp, w);
    }

    fn ssthresh(&mut self, tp: &TcpSock) -> u32 {
        lowered_ssthresh(tp.snd_ssthresh, tp.snd_cwnd)
    }

    /// Rules run in Open only; entering it starts a fresh cycle.
    fn set_state(&mut self, tp: &mut TcpSock, new_state: u8) {
        self.s.enabled = new_state == TCP_CA_OPEN;
        if self.s.enabled {
            self.restart_cycle(tp.snd_nxt);
        }
    }

    fn private_state(&self) -> Vec<u64> {
        let s = &self.s;
        vec![
            s.max_cwnd_q16,
            s.meter_start_us,
            s.meter_start_delivered.into(),
            s.rate_segments.into(),
            s.rate_us.into(),
            s.base_us.into(),
            s.cycle_min_us.into(),
            s.cycle_samples.into(),
            s.cycle_end_seq.into(),
            s.frac_q16.into(),
            s.congestion.into(),
            s.hold.into(),
            i64::from(s.rule) as u64,
            s.enabled.into(),
            s.meter_started.into(),
        ]
    }

    /// `rule` is the trace code / 10 (C1 = 1, C10.5 = 10.5, D1 = 101, NewReno -1,
    /// start-up -2).
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        let s = &self.s;
        out.extend([
            ("rule", f64::from(s.rule) / 10.0),
            ("max_cwnd", s.max_cwnd_q16 as f64 / Q16_ONE as f64),
            ("base_rtt_ms", f64::from(s.base_us) * 1e-3),
            ("congestion_counter", f64::from(s.congestion)),
            ("hold_counter", f64::from(s.hold)),
            ("fbtcp_on", f64::from(u8::from(s.enabled))),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::fixed::TCP_CA_LOSS;

    fn open(cwnd: u32) -> TcpSock {
        TcpSock {
            snd_cwnd: cwnd,
            snd_ssthresh: arith::INFINITE_SSTHRESH,
            snd_cwnd_clamp: u32::MAX,
            is_cwnd_limited: true,
            snd_nxt: 5000,
            ..TcpSock::default()
        }
    }

    /// A program whose cycle ends at the next ACK past sequence 0, after three samples.
    fn cycle_of(samples: &[i32]) -> FbTcp {
        let mut p = FbTcp::default();
        p.init(&mut TcpSock::default());
        for &r in samples {
            p.pkts_acked(&TcpSock::default(), r);
        }
        p
    }

    #[test]
    fn c1_adds_120_and_ssthresh_stays_infinite() {
        // cwnd 1000, CSI 1, maxCwnd 2000: C1 (+120), ssthresh max(inf, 0.75 x 1120).
        let mut p = cycle_of(&[10_000; 3]);
        p.s.max_cwnd_q16 = 2000 << 16;
        let mut tp = open(1000);
        p.cong_avoid(&mut tp, 1, 1);
        assert_eq!(
            (p.s.rule, tp.snd_cwnd, tp.snd_ssthresh),
            (10, 1120, arith::INFINITE_SSTHRESH)
        );
        assert_eq!(p.s.cycle_end_seq, 5000);
    }

    #[test]
    fn d6_halves_and_lowers_ssthresh() {
        // CSI 0.02 (minRtt 50 x baseRtt) in divergence (maxCwnd 0): D6, /2, ssthresh
        // min(inf, 499), then max with 0.75 x 500.
        let mut p = cycle_of(&[10_000]);
        p.restart_cycle(0);
        for _ in 0..3 {
            p.pkts_acked(&TcpSock::default(), 500_000);
        }
        let mut tp = open(1000);
        p.cong_avoid(&mut tp, 1, 1);
        assert_eq!((p.s.rule, tp.snd_cwnd, tp.snd_ssthresh), (1060, 500, 499));
    }

    #[test]
    fn csi_edges_are_exact() {
        // CSI 98/100 is on C1-C5's edge (diff 20: C3, +70); 97.9/100 falls to C6
        // (CAD 0.979, high: +40).
        for (base, rule, cwnd) in [(98_000, 30, 1070), (97_900, 60, 1040)] {
            let mut p = cycle_of(&[100_000; 3]);
            p.s.base_us = base;
            p.s.max_cwnd_q16 = 2000 << 16;
            let mut tp = open(1000);
            p.cong_avoid(&mut tp, 1, 1);
            assert_eq!((p.s.rule, tp.snd_cwnd), (rule, cwnd), "base {base}");
        }
    }

    #[test]
    fn multiplicative_rows_floor_to_whole_segments() {
        assert_eq!(Step::MulPm(750).apply(1001), 750);
        assert_eq!(Step::Div(3).apply(1000), 333);
        assert_eq!(Step::Add(-50).apply(30), 1);
    }

    #[test]
    fn the_31st_hold_cycle_takes_a_tenth_off() {
        let mut p = FbTcp::default();
        p.s.max_cwnd_q16 = 2001 << 16;
        let mut cwnd = 1000;
        for _ in 0..30 {
            p.hold(&mut cwnd, 100);
        }
        assert_eq!((cwnd, p.s.rule), (1000, 100));
        p.hold(&mut cwnd, 100);
        assert_eq!((cwnd, p.s.rule, p.s.hold), (900, 105, 0));
        assert_eq!(p.s.max_cwnd_q16, (2001 << 16) * 9 / 10);
    }

    #[test]
    fn start_up_doubles_below_900_and_few_samples_fall_back_to_newreno() {
        let mut p = cycle_of(&[10_000; 3]);
        let mut tp = open(400);
        p.cong_avoid(&mut tp, 1, 1);
        assert_eq!(
            (p.s.rule, tp.snd_cwnd, tp.snd_ssthresh),
            (RULE_STARTUP, 800, arith::INFINITE_SSTHRESH)
        );
        let mut p = cycle_of(&[10_000; 2]);
        let mut tp = open(400);
        p.cong_avoid(&mut tp, 1, 1);
        assert_eq!((p.s.rule, tp.snd_cwnd), (RULE_NEWRENO, 401));
        // The cycle has not ended (ack not after the cycle's snd_nxt): nothing.
        p.cong_avoid(&mut tp, 5000, 1);
        assert_eq!(tp.snd_cwnd, 401);
    }

    #[test]
    fn the_rate_meter_closes_windows_of_at_least_100_ms() {
        let mut p = FbTcp::default();
        let at = |us, delivered| TcpSock {
            tcp_mstamp: us,
            delivered,
            ..TcpSock::default()
        };
        p.pkts_acked(&at(1_000, 0), -1);
        p.pkts_acked(&at(100_999, 50), -1);
        assert_eq!(p.s.rate_us, 0);
        p.pkts_acked(&at(101_000, 60), -1);
        assert_eq!((p.s.rate_segments, p.s.rate_us), (60, 100_000));
        // maxCwnd candidate: 60 segments x 20 ms / 100 ms x 1.05 = 12.6 segments.
        p.s.base_us = 20_000;
        assert_eq!(p.max_cwnd_candidate(), (12.6 * 65536.0f64).floor() as u64);
    }

    #[test]
    fn a_loss_takes_one_segment_off_and_rules_run_in_open_only() {
        let mut p = FbTcp::default();
        assert_eq!(p.ssthresh(&open(800)), 799);
        assert_eq!(
            p.ssthresh(&TcpSock {
                snd_ssthresh: 300,
                ..open(800)
            }),
            300
        );
        assert_eq!(p.ssthresh(&open(2)), 2);
        p.set_state(&mut open(800), TCP_CA_LOSS);
        let mut tp = TcpSock {
            snd_ssthresh: 2,
            ..open(10)
        };
        p.cong_avoid(&mut tp, 1, 1); // NewReno's +1/10
        assert_eq!((tp.snd_cwnd, p.s.frac_q16), (10, 6553));
    }
}
