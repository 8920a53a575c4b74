//! Scalable TCP (Kelly 2003), as Linux `tcp_scalable`.
//!
//! Multiplicative increase, multiplicative decrease: in congestion avoidance each
//! acknowledged segment adds a fixed 0.01 segment, so the window grows 1% per RTT
//! whatever its size, and a loss takes 1/8 off (`ssthresh = 0.875 cwnd`). Recovery
//! time after a loss is then about 13 RTTs at any window, where Reno's grows with
//! the window. Slow start is Reno's.
//!
//! Linux (`tcp_cong_avoid_ai(tp, min(cwnd, 100), acked)`) adds one segment per
//! `min(cwnd, 100)` acknowledged segments: exactly 0.01 per segment from 100 segments
//! on, but `1 / cwnd` below, i.e. Reno's one segment per RTT, where the strict 0.01
//! per ACK would grow more slowly than Reno. That is the default; `increase =
//! "strict"` applies 0.01 at every window. ns-3 `TcpScalable` counts as Linux with
//! `AIFactor` 50 (Linux's value before 4.x, "50 instead of 100 to account for delayed
//! ack"): set `ai_cnt = 50` for it.
//!
//! Written in floating point from Kelly's paper and the behaviour of Linux
//! `tcp_scalable.c` and ns-3 `tcp-scalable.cc`; Linux's integer `cwnd - cwnd >> 3` is
//! taken as the exact 0.875.

use super::{
    CongestionControl, Range, SlowStartPer, Socket, SsthreshBasis, check_ranges, parse_params,
};
use serde::Deserialize;

pub const SUMMARY: &str = "Scalable TCP (Kelly 2003, Linux tcp_scalable): +0.01 segment per ACKed segment, x0.875 on loss";

/// The congestion-avoidance increase rule.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Increase {
    /// `1 / min(cwnd, ai_cnt)` per acknowledged segment (Linux, ns-3).
    Linux,
    /// `1 / ai_cnt` per acknowledged segment at every window (Kelly's 0.01 taken
    /// literally, slower than Reno below `ai_cnt` segments).
    Strict,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// Acknowledged segments per segment of growth at large windows: the increase is
    /// `1 / ai_cnt` per segment. Linux `TCP_SCALABLE_AI_CNT` 100 (Kelly's a = 0.01);
    /// ns-3's `AIFactor` and Linux before 4.x: 50.
    pub ai_cnt: f64,
    /// `linux` (default) or `strict`; see [`Increase`].
    pub increase: Increase,
    /// Fraction of the window a loss takes off: Kelly's b = 0.125 (Linux
    /// `TCP_SCALABLE_MD_SCALE` 3, ns-3 `MDFactor`).
    pub md: f64,
    /// Window a loss reduces. Default `cwnd` as Linux; `inflight` reproduces ns-3.
    pub ssthresh_basis: SsthreshBasis,
    /// Slow start per acknowledged segment (Linux) or per ACK (`ack`: ns-3's
    /// `TcpScalable` inherits `TcpNewReno::SlowStart`).
    pub slow_start_per: SlowStartPer,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            ai_cnt: 100.0,
            increase: Increase::Linux,
            md: 0.125,
            ssthresh_basis: SsthreshBasis::Cwnd,
            slow_start_per: SlowStartPer::Segment,
        }
    }
}

impl Params {
    fn validate(&self) -> Result<(), String> {
        check_ranges(&[
            ("ai_cnt", self.ai_cnt, Range::AtLeastOne),
            ("md", self.md, Range::OpenUnit),
        ])
    }
}

/// Smallest slow-start threshold after a loss (Linux: 2 segments).
const MIN_SSTHRESH: f64 = 2.0;

pub struct Scalable {
    p: Params,
    /// Segments acknowledged per segment of growth at the last avoidance ACK, 0 before.
    ai_window: f64,
}

pub fn build(params: &serde_json::Value) -> Result<Box<dyn CongestionControl>, String> {
    let p = parse_params::<Params>(params)?;
    p.validate()?;
    Ok(Box::new(Scalable { p, ai_window: 0.0 }))
}

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }

    fn ssthresh(&mut self, sock: &Socket) -> f64 {
        let w = self.p.ssthresh_basis.window(sock);
        (w * (1.0 - self.p.md)).max(MIN_SSTHRESH)
    }

    fn cong_avoid(&mut self, sock: &mut Socket, acked: u32) {
        let acked = if sock.in_slow_start() {
            self.p.slow_start_per.grow(sock, acked)
        } else {
            acked
        };
        if acked == 0 || sock.in_slow_start() {
            return;
        }
        self.ai_window = match self.p.increase {
            Increase::Linux => sock.cwnd.min(self.p.ai_cnt).max(1.0),
            Increase::Strict => self.p.ai_cnt,
        };
        sock.cwnd += f64::from(acked) / self.ai_window;
    }

    /// `ai_window`: segments acknowledged per segment of growth at the last
    /// congestion-avoidance ACK (`min(cwnd, 100)` by default), 0 before any.
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("ai_window", self.ai_window));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scalable(params: serde_json::Value) -> Box<dyn CongestionControl> {
        build(&params).unwrap()
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn large_windows_grow_a_hundredth_per_acked_segment() {
        let mut cc = scalable(json!({}));
        let mut s = Socket::new(1400, 1000.0, 2.0);
        cc.cong_avoid(&mut s, 1);
        assert!(close(s.cwnd, 1000.01, 1e-9), "{}", s.cwnd);
        cc.cong_avoid(&mut s, 2); // delayed ACK: 0.02
        assert!(close(s.cwnd, 1000.03, 1e-9), "{}", s.cwnd);
        // One RTT (1000 segments) adds 10: 1% per RTT.
        let mut s = Socket::new(1400, 1000.0, 2.0);
        for _ in 0..1000 {
            cc.cong_avoid(&mut s, 1);
        }
        assert!(close(s.cwnd, 1010.0, 1e-6), "{}", s.cwnd);
        let mut state = Vec::new();
        cc.state(&mut state);
        assert_eq!(state, [("ai_window", 100.0)]);
    }

    #[test]
    fn below_ai_cnt_linux_grows_like_reno() {
        let mut cc = scalable(json!({}));
        let mut s = Socket::new(1400, 50.0, 2.0);
        cc.cong_avoid(&mut s, 1); // 1/50, not 1/100
        assert!(close(s.cwnd, 50.02, 1e-12), "{}", s.cwnd);
    }

    #[test]
    fn strict_reading_is_a_hundredth_at_every_window() {
        let mut cc = scalable(json!({ "increase": "strict" }));
        let mut s = Socket::new(1400, 50.0, 2.0);
        cc.cong_avoid(&mut s, 1);
        assert!(close(s.cwnd, 50.01, 1e-12), "{}", s.cwnd);
    }

    #[test]
    fn ns3_ai_factor_of_50() {
        let mut cc = scalable(json!({ "ai_cnt": 50.0 }));
        let mut s = Socket::new(1400, 1000.0, 2.0);
        cc.cong_avoid(&mut s, 1);
        assert!(close(s.cwnd, 1000.02, 1e-9), "{}", s.cwnd);
    }

    #[test]
    fn ns3_slow_start_grows_per_ack() {
        // Crossing ssthresh 12 from 11.5: +1 for the ACK, then its other segment
        // grows the window by 1 / min(cwnd, ai_cnt) in avoidance.
        let mut cc = scalable(json!({ "slow_start_per": "ack", "ai_cnt": 50 }));
        let mut s = Socket::new(1400, 11.5, 12.0);
        cc.cong_avoid(&mut s, 2);
        assert!(close(s.cwnd, 12.5 + 1.0 / 12.5, 1e-12), "{}", s.cwnd);
        // Well below ssthresh an ACK of 3 segments adds one, not three.
        let mut s = Socket::new(1400, 10.0, f64::INFINITY);
        cc.cong_avoid(&mut s, 3);
        assert_eq!(s.cwnd, 11.0);
    }

    #[test]
    fn slow_start_then_leftover_to_avoidance() {
        let mut cc = scalable(json!({}));
        let mut s = Socket::new(1400, 10.0, f64::INFINITY);
        cc.cong_avoid(&mut s, 2);
        assert_eq!(s.cwnd, 12.0);
        // 198 -> 200 = ssthresh with 2 segments; 2 more at 1/100 each.
        let mut s = Socket::new(1400, 198.0, 200.0);
        cc.cong_avoid(&mut s, 4);
        assert!(close(s.cwnd, 200.02, 1e-12), "{}", s.cwnd);
    }

    #[test]
    fn loss_keeps_seven_eighths_with_a_floor_of_two() {
        let mut cc = scalable(json!({}));
        let mut s = Socket::new(1400, 1000.0, f64::INFINITY);
        s.in_flight = 400; // ignored with the default basis
        assert_eq!(cc.ssthresh(&s), 875.0);
        s.cwnd = 2.0;
        assert_eq!(cc.ssthresh(&s), 2.0);
        let mut cc = scalable(json!({ "ssthresh_basis": "inflight", "md": 0.5 }));
        s.cwnd = 1000.0;
        assert_eq!(cc.ssthresh(&s), 200.0);
    }

    #[test]
    fn impossible_parameters_are_rejected_with_the_key_and_range() {
        for (params, needle) in [
            (json!({ "ai_cnt": 0.5 }), "ai_cnt = 0.5: must be >= 1"),
            (json!({ "md": 1.0 }), "md = 1: must be in (0, 1)"),
            (json!({ "md": 0.0 }), "md = 0: must be in (0, 1)"),
            (json!({ "increase": "kelly" }), "strict"),
            (json!({ "ssthresh_basis": "flight" }), "inflight"),
            (json!({ "beta": 0.5 }), "beta"),
        ] {
            let err = build(&params).err().expect("an error");
            assert!(err.contains(needle), "{params}: {err}");
        }
    }
}
