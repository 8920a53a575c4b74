//! RTTV-CCA, the RTT-variation congestion control of the thesis (Abdulmajid, PhD thesis,
//! UPM 2025, chapter 4, Algorithm 4.1).
//!
//! Loss-based, with an increase that shrinks as the RTT rises towards its maximum. In
//! congestion avoidance, per acknowledged segment (Eq. 4.1-4.5):
//! `UR = RTTcur / RTTmax`, weight factor `1 / UR`, and as printed in Eq. 4.4
//! `F = sqrt((RTTmax + RTTbase) / RTTcur x cwnd)` with cwnd in segments, then
//! `cwnd += F / cwnd`: about `F` segments per RTT, `sqrt(2 cwnd)` on an idle path.
//! Eq. 4.4 is used, not `1 / UR` (which would drop RTTbase): the project's reading and both other
//! chapters' `TimeRatio` agree with it.
//!
//! Slow start is NewReno's. A loss detected by duplicate ACKs multiplies the window by
//! `beta`: the thesis names the factor but gives no value, so the project fixes Reno's 0.5
//! (a parameter). A timeout is standard: ssthresh as for a loss, the socket's loss
//! window of one segment, slow start.
//!
//! The RTT tracking, increase and the readings the thesis leaves open (which samples,
//! per segment or per ACK) are shared with MSS-CCA and MRVHS-CCA in
//! [`super::rtt_variation`], which documents them.

use super::rtt_variation::{
    Decrease, Growth, IncreasePer, RtoWindow, RttSamples, RttVariation, knobs_of,
};
use super::{CongestionControl, Range, SsthreshBasis, check_ranges, parse_params};
use serde::Deserialize;

pub const SUMMARY: &str = "RTTV-CCA (the thesis, ch. 4): +F/cwnd per segment, \
     F = sqrt((RTTmax + RTTbase) / RTTcur x cwnd); x beta on loss";

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// `true` runs the kernel program's integer arithmetic (the fixed-point twin,
    /// docs/kernel.md) instead of this floating-point version; with default
    /// parameters only. Default false.
    pub fixed_point: bool,
    /// Window kept on a loss, `ssthresh = beta x cwnd`: 0.5 (the project's decision; the thesis gives
    /// no value).
    pub beta: f64,
    /// `segment` (default, the project's reading, "per ACKed segment") or `ack` (the pseudo-code's
    /// per-ACK reading, ns-3).
    pub increase_per: IncreasePer,
    /// `avoidance` (default, Algorithm 4.1 line 8) or `every_ack`.
    pub rtt_samples: RttSamples,
    /// After a timeout: `loss_window` (default, "RTO standard") or `initial`.
    pub rto_window: RtoWindow,
    /// Window the loss reduces: `cwnd` (default, Linux) or `inflight` (ns-3).
    pub ssthresh_basis: SsthreshBasis,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            fixed_point: false,
            beta: 0.5,
            increase_per: IncreasePer::Segment,
            rtt_samples: RttSamples::Avoidance,
            rto_window: RtoWindow::LossWindow,
            ssthresh_basis: SsthreshBasis::Cwnd,
        }
    }
}

pub fn build(params: &serde_json::Value) -> Result<Box<dyn CongestionControl>, String> {
    if super::fixed::requested(params)? {
        return Ok(super::fixed::build("rttv"));
    }
    let p = parse_params::<Params>(params)?;
    check_ranges(&[("beta", p.beta, Range::OpenUnit)])?;
    Ok(Box::new(RttVariation::new(
        "rttv",
        Growth::Window,
        Decrease::Beta(p.beta),
        knobs_of!(p),
    )))
}

#[cfg(test)]
mod tests {
    use super::super::Socket;
    use super::super::rtt_variation::testing::*;
    use super::*;
    use serde_json::json;

    fn rttv(params: serde_json::Value) -> Box<dyn CongestionControl> {
        build(&params).unwrap()
    }

    #[test]
    fn f_by_hand() {
        // RTTbase 0.1, RTTmax 0.3, RTTcur 0.2: TimeRatio (0.3 + 0.1) / 0.2 = 2;
        // cwnd 50: F = sqrt(2 x 50) = 10, +10 / 50 = 0.2.
        let mut cc = rttv(json!({}));
        let mut s = primed(cc.as_mut(), 1400, 50.0, &[0.1, 0.3]);
        assert!(close(step(cc.as_mut(), &mut s, 0.2), 0.2, 1e-12));
        assert!(close(traced(cc.as_ref(), "f"), 10.0, 1e-12));
        // RTTcur back at RTTbase 0.1: TimeRatio 4; cwnd 100: F = 20, +0.2.
        s.cwnd = 100.0;
        assert!(close(step(cc.as_mut(), &mut s, 0.1), 0.2, 1e-12));
        assert!(close(traced(cc.as_ref(), "f"), 20.0, 1e-12));
        // RTTcur at RTTmax 0.3: TimeRatio 4/3; cwnd 75: F = 10, +10/75.
        s.cwnd = 75.0;
        assert!(close(step(cc.as_mut(), &mut s, 0.3), 10.0 / 75.0, 1e-12));
    }

    #[test]
    fn f_grows_with_the_window_not_the_mss() {
        // Same RTTs, cwnd 200: F = sqrt(2 x 200) = 20 whatever the MSS.
        for mss in [536, 1400, 9000] {
            let mut cc = rttv(json!({}));
            let mut s = primed(cc.as_mut(), mss, 200.0, &[0.1, 0.3]);
            assert!(
                close(step(cc.as_mut(), &mut s, 0.2), 0.1, 1e-12),
                "mss {mss}"
            );
        }
    }

    #[test]
    fn one_rtt_adds_about_f_segments() {
        // Constant RTT: TimeRatio 2, F = sqrt(2 cwnd) = 14.1 at cwnd 100, each ACK adds
        // sqrt(2 / cwnd). Over 100 ACKs, dc/dk = sqrt(2 / c) integrates to
        // c^1.5 = 100^1.5 + 1.5 sqrt(2) x 100 = 1212.13, c = 113.70: about F.
        let mut cc = rttv(json!({}));
        let mut s = primed(cc.as_mut(), 1400, 100.0, &[0.1]);
        for _ in 0..100 {
            step(cc.as_mut(), &mut s, 0.1);
        }
        assert!(close(s.cwnd, 113.70, 0.02), "{}", s.cwnd);
    }

    #[test]
    fn slow_start_is_newreno() {
        let mut cc = rttv(json!({}));
        let mut s = Socket::new(1400, 10.0, f64::INFINITY);
        cc.cong_avoid(&mut s, 2);
        assert_eq!(s.cwnd, 12.0);
    }

    #[test]
    fn loss_multiplies_by_beta() {
        let mut cc = rttv(json!({}));
        let s = Socket::new(1400, 30.0, 2.0);
        assert_eq!(cc.ssthresh(&s), 15.0);
        assert_eq!(traced(cc.as_ref(), "loss_decrease"), 0.5);
        assert_eq!(cc.ssthresh(&Socket::new(1400, 3.0, 2.0)), 2.0);
        let mut cc = rttv(json!({ "beta": 0.8 }));
        assert_eq!(cc.ssthresh(&s), 24.0);
    }

    #[test]
    fn timeout_is_standard() {
        let mut cc = rttv(json!({}));
        let mut s = primed(cc.as_mut(), 1400, 40.0, &[0.1]);
        timeout(cc.as_mut(), &mut s);
        assert_eq!((s.cwnd, s.ssthresh), (1.0, 20.0));
    }

    #[test]
    fn state_traces_f_and_the_rtt_triple() {
        let mut cc = rttv(json!({}));
        assert_eq!(traced(cc.as_ref(), "rtt_base_s"), 0.0);
        let mut s = primed(cc.as_mut(), 1400, 50.0, &[0.1, 0.3]);
        step(cc.as_mut(), &mut s, 0.2);
        for (k, v) in [
            ("rtt_base_s", 0.1),
            ("rtt_cur_s", 0.2),
            ("rtt_max_s", 0.3),
            ("time_ratio", 2.0),
        ] {
            assert!(close(traced(cc.as_ref(), k), v, 1e-12), "{k}");
        }
    }

    #[test]
    fn bad_parameters_are_rejected_with_the_key() {
        for (params, needle) in [
            (json!({ "beta": 1.0 }), "beta = 1: must be in (0, 1)"),
            (json!({ "beta": 0.0 }), "beta = 0: must be in (0, 1)"),
            (json!({ "mss_unit": "bytes" }), "mss_unit"),
            (json!({ "increase_per": "byte" }), "segment"),
            (json!({ "rtt_samples": "all" }), "every_ack"),
            (json!({ "rto_window": "one" }), "loss_window"),
            (json!({ "ssthresh_basis": "flight" }), "inflight"),
        ] {
            let err = build(&params).err().expect("an error");
            assert!(err.contains(needle), "{params}: {err}");
        }
        assert_eq!(rttv(json!({})).name(), "rttv");
    }
}
