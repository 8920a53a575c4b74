//! MSS-CCA of the thesis (Abdulmajid, PhD thesis, UPM 2025, chapter 5, Algorithm 5.1).
//!
//! RTTV-CCA's structure with an increase set by the segment size: in congestion
//! avoidance, per acknowledged segment (Eq. 5.3-5.6),
//! `TimeRatio = (RTTmax + RTTbase) / RTTcur`, `F = sqrt(MSS x TimeRatio)`,
//! `cwnd += F / cwnd`: about `F` segments per RTT whatever the window.
//!
//! MSS is **in bytes** by default (the project's decision): Eq. 5.2 defines it as
//! "segments size / number of segments", bytes per segment, and the thesis' gains
//! over NewReno (up to +1487 %) need an increase far above one segment per RTT; with
//! 1400-byte segments and a steady RTT, `F = sqrt(2800)`, about 53 segments per RTT.
//! `mss_unit = "segments"` gives `F = sqrt(TimeRatio)`, about 1.4 segments per RTT.
//!
//! Slow start is NewReno's; a loss detected by duplicate ACKs multiplies the window by
//! `beta` (0.5, the project's decision: the thesis gives no value); a timeout "resets its cwnd to the
//! initial value and triggers a slow start stage again" (section 5.3): the socket's
//! loss window is raised to the initial window (`rto_window = "initial"`; ssthresh as
//! for a loss).
//!
//! The RTT tracking, increase and the readings the thesis leaves open are shared with
//! RTTV-CCA and MRVHS-CCA in [`super::rtt_variation`], which documents them.

use super::rtt_variation::{
    Decrease, Growth, IncreasePer, MssUnit, RtoWindow, RttSamples, RttVariation, knobs_of,
};
use super::{CongestionControl, Range, SsthreshBasis, check_ranges, parse_params};
use serde::Deserialize;

pub const SUMMARY: &str = "MSS-CCA (the thesis, ch. 5): +F/cwnd per segment, \
     F = sqrt(MSS x (RTTmax + RTTbase) / RTTcur), MSS in bytes; x beta on loss";

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// `true` runs the kernel program's integer arithmetic (the fixed-point twin,
    /// docs/kernel.md) instead of this floating-point version; with default
    /// parameters only. Default false.
    pub fixed_point: bool,
    /// Unit of MSS in `F`: `bytes` (default, the project's decision) or `segments`.
    pub mss_unit: MssUnit,
    /// Window kept on a loss, `ssthresh = beta x cwnd`: 0.5 (the project's decision; the thesis gives
    /// no value).
    pub beta: f64,
    /// After a timeout: `initial` (default, section 5.3) or `loss_window`.
    pub rto_window: RtoWindow,
    /// `segment` (default, the project's reading, "per ACKed segment") or `ack` (the pseudo-code's
    /// per-ACK reading, ns-3).
    pub increase_per: IncreasePer,
    /// `avoidance` (default, Algorithm 5.1 line 8) or `every_ack`.
    pub rtt_samples: RttSamples,
    /// Window the loss reduces: `cwnd` (default, Linux) or `inflight` (ns-3).
    pub ssthresh_basis: SsthreshBasis,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            fixed_point: false,
            mss_unit: MssUnit::Bytes,
            beta: 0.5,
            rto_window: RtoWindow::Initial,
            increase_per: IncreasePer::Segment,
            rtt_samples: RttSamples::Avoidance,
            ssthresh_basis: SsthreshBasis::Cwnd,
        }
    }
}

pub fn build(params: &serde_json::Value) -> Result<Box<dyn CongestionControl>, String> {
    if super::fixed::requested(params)? {
        return Ok(super::fixed::build("mss"));
    }
    let p = parse_params::<Params>(params)?;
    check_ranges(&[("beta", p.beta, Range::OpenUnit)])?;
    let growth = Growth::Mss(p.mss_unit);
    Ok(Box::new(RttVariation::new(
        "mss",
        growth,
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

    fn mss(params: serde_json::Value) -> Box<dyn CongestionControl> {
        build(&params).unwrap()
    }

    #[test]
    fn f_in_bytes_by_hand() {
        // MSS 1250 bytes, TimeRatio (0.3 + 0.1) / 0.2 = 2: F = sqrt(2500) = 50;
        // cwnd 100: +50 / 100 = 0.5, whatever the window's size in F.
        let mut cc = mss(json!({}));
        let mut s = primed(cc.as_mut(), 1250, 100.0, &[0.1, 0.3]);
        assert!(close(step(cc.as_mut(), &mut s, 0.2), 0.5, 1e-12));
        assert!(close(traced(cc.as_ref(), "f"), 50.0, 1e-12));
        // cwnd 400: same F, +50 / 400.
        s.cwnd = 400.0;
        assert!(close(step(cc.as_mut(), &mut s, 0.2), 0.125, 1e-12));
        // 1400 bytes, steady RTT (TimeRatio 2): F = sqrt(2800) = 52.9150262.
        let mut cc = mss(json!({}));
        let mut s = primed(cc.as_mut(), 1400, 100.0, &[0.1]);
        assert!(close(step(cc.as_mut(), &mut s, 0.1), 0.529150262, 1e-9));
    }

    #[test]
    fn mss_unit_segments_drops_the_segment_size() {
        // TimeRatio 4 (RTTcur = RTTbase 0.1, RTTmax 0.3): F = sqrt(1 x 4) = 2;
        // cwnd 20: +0.1. In bytes it would be sqrt(1250 x 4) / 20 = 3.5355.
        let mut cc = mss(json!({ "mss_unit": "segments" }));
        let mut s = primed(cc.as_mut(), 1250, 20.0, &[0.3]);
        assert!(close(step(cc.as_mut(), &mut s, 0.1), 0.1, 1e-12));
        let mut cc = mss(json!({}));
        let mut s = primed(cc.as_mut(), 1250, 20.0, &[0.3]);
        assert!(close(
            step(cc.as_mut(), &mut s, 0.1),
            5000f64.sqrt() / 20.0,
            1e-12
        ));
    }

    #[test]
    fn loss_halves() {
        let mut cc = mss(json!({}));
        assert_eq!(cc.ssthresh(&Socket::new(1400, 90.0, 2.0)), 45.0);
        let mut cc = mss(json!({ "beta": 0.6 }));
        assert_eq!(cc.ssthresh(&Socket::new(1400, 90.0, 2.0)), 54.0);
    }

    #[test]
    fn timeout_restarts_from_the_initial_window() {
        // Initial window 10 (Socket::new's cwnd): after the timeout cwnd 10, not 1,
        // ssthresh 80 / 2 = 40, and slow start continues from there.
        let mut cc = mss(json!({}));
        let mut s = Socket::new(1400, 10.0, 2.0);
        s.cwnd = 80.0;
        timeout(cc.as_mut(), &mut s);
        assert_eq!((s.cwnd, s.ssthresh), (10.0, 40.0));
        cc.cong_avoid(&mut s, 2);
        assert_eq!(s.cwnd, 12.0);
        let mut cc = mss(json!({ "rto_window": "loss_window" }));
        let mut s = Socket::new(1400, 80.0, 2.0);
        timeout(cc.as_mut(), &mut s);
        assert_eq!(s.cwnd, 1.0);
    }

    #[test]
    fn bad_parameters_are_rejected_with_the_key() {
        for (params, needle) in [
            (json!({ "mss_unit": "bits" }), "segments"),
            (json!({ "beta": 1.5 }), "beta = 1.5: must be in (0, 1)"),
            (json!({ "decrease": "highspeed" }), "decrease"),
        ] {
            let err = build(&params).err().expect("an error");
            assert!(err.contains(needle), "{params}: {err}");
        }
        assert_eq!(mss(json!({})).name(), "mss");
    }
}
