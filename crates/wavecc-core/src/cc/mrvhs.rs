//! MRVHS-CCA of the thesis (Abdulmajid, PhD thesis, UPM 2025, chapter 6, Algorithm 6.1):
//! MSS-CCA's increase on HighSpeed TCP's decrease.
//!
//! In congestion avoidance, per acknowledged segment (Eq. 6.3-6.6):
//! `TimeRatio = (RTTmax + RTTbase) / RTTcur`, `F = sqrt(TimeRatio x MSS)`,
//! `cwnd += F / cwnd`, MSS in bytes by default as in MSS-CCA (`mss_unit`). Slow start
//! `+1` per acknowledged segment (NewReno).
//!
//! On a loss detected by duplicate ACKs the thesis writes HighSpeed's decrease as
//! `cwnd = cwnd - beta / cwnd` (Eq. 6.2, Algorithm 6.1 line 21), with `beta` "a
//! parameter ... to decrease the congestion window in HighSpeed". Taken literally that
//! removes a fraction of a segment; the chapter builds on HighSpeed TCP (RFC 3649),
//! whose decrease is `w <- (1 - b(w)) w`, and an ns-3 port of MRVHS inherits
//! `TcpHighSpeed`'s `GetSsThresh`. So by default (the project's decision) the window is
//! reduced to `(1 - b(w)) w` with RFC 3649's `b(w)` as tabulated by ns-3
//! (`highspeed::decrease_fraction`, at the window being reduced): 0.5 up to 38
//! segments, 0.33 at 1000, 0.09 from 89054 on. `decrease = "literal"` applies Eq. 6.2
//! as printed, `w - b(w) / w`. A timeout is standard: ssthresh as for a loss, the loss
//! window of one segment, slow start.
//!
//! The RTT tracking, increase and the readings the thesis leaves open are shared with
//! RTTV-CCA and MSS-CCA in [`super::rtt_variation`], which documents them.

use super::rtt_variation::{
    Decrease, Growth, IncreasePer, MssUnit, RtoWindow, RttSamples, RttVariation, knobs_of,
};
use super::{CongestionControl, SsthreshBasis, parse_params};
use serde::Deserialize;

pub const SUMMARY: &str = "MRVHS-CCA (the thesis, ch. 6): MSS-CCA's +F/cwnd per segment, \
     HighSpeed's w <- (1 - b(w)) w on loss (RFC 3649)";

/// How a loss detected by duplicate ACKs reduces the window.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DecreaseRule {
    /// RFC 3649: `w <- (1 - b(w)) w`.
    Highspeed,
    /// Eq. 6.2 as printed: `w <- w - b(w) / w`.
    Literal,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// `true` runs the kernel program's integer arithmetic (the fixed-point twin,
    /// docs/kernel.md) instead of this floating-point version; with default
    /// parameters only. Default false.
    pub fixed_point: bool,
    /// Unit of MSS in `F`: `bytes` (default, as MSS-CCA) or `segments`.
    pub mss_unit: MssUnit,
    /// `highspeed` (default, RFC 3649's meaning) or `literal` (Eq. 6.2 as printed).
    pub decrease: DecreaseRule,
    /// Window `b(w)` is looked up at and reduced: `cwnd` (default, Linux) or
    /// `inflight` (ns-3's `TcpHighSpeed`).
    pub ssthresh_basis: SsthreshBasis,
    /// After a timeout: `loss_window` (default, "RTO standard") or `initial`.
    pub rto_window: RtoWindow,
    /// `segment` (default, the project's reading, "per ACKed segment") or `ack` (the pseudo-code's
    /// per-ACK reading; the ns-3 port).
    pub increase_per: IncreasePer,
    /// `avoidance` (default, Algorithm 6.1 line 8, the ns-3 port) or `every_ack`.
    pub rtt_samples: RttSamples,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            fixed_point: false,
            mss_unit: MssUnit::Bytes,
            decrease: DecreaseRule::Highspeed,
            ssthresh_basis: SsthreshBasis::Cwnd,
            rto_window: RtoWindow::LossWindow,
            increase_per: IncreasePer::Segment,
            rtt_samples: RttSamples::Avoidance,
        }
    }
}

pub fn build(params: &serde_json::Value) -> Result<Box<dyn CongestionControl>, String> {
    if super::fixed::requested(params)? {
        return Ok(super::fixed::build("mrvhs"));
    }
    let p = parse_params::<Params>(params)?;
    let decrease = match p.decrease {
        DecreaseRule::Highspeed => Decrease::HighSpeed,
        DecreaseRule::Literal => Decrease::HighSpeedLiteral,
    };
    Ok(Box::new(RttVariation::new(
        "mrvhs",
        Growth::Mss(p.mss_unit),
        decrease,
        knobs_of!(p),
    )))
}

#[cfg(test)]
mod tests {
    use super::super::Socket;
    use super::super::rtt_variation::testing::*;
    use super::*;
    use serde_json::json;

    fn mrvhs(params: serde_json::Value) -> Box<dyn CongestionControl> {
        build(&params).unwrap()
    }

    #[test]
    fn f_is_mss_ccas() {
        // MSS 1250, RTTbase 0.1, RTTmax 0.4, RTTcur 0.25: TimeRatio 2, F = 50;
        // cwnd 1000: +0.05 (HighSpeed's a(1000) = 8 would give +0.008).
        let mut cc = mrvhs(json!({}));
        let mut s = primed(cc.as_mut(), 1250, 1000.0, &[0.1, 0.4]);
        assert!(close(step(cc.as_mut(), &mut s, 0.25), 0.05, 1e-12));
        // In segments: F = sqrt(2), +sqrt(2) / 1000.
        let mut cc = mrvhs(json!({ "mss_unit": "segments" }));
        let mut s = primed(cc.as_mut(), 1250, 1000.0, &[0.1, 0.4]);
        assert!(close(
            step(cc.as_mut(), &mut s, 0.25),
            2f64.sqrt() / 1000.0,
            1e-12
        ));
    }

    #[test]
    fn loss_takes_highspeed_b_w_off() {
        let mut cc = mrvhs(json!({}));
        // b(1000) = 0.33: 670; b(5000) = 0.25: 3750; b(30) = 0.5: 15; floor 2.
        for (w, expected, b) in [
            (1000.0, 670.0, 0.33),
            (5000.0, 3750.0, 0.25),
            (30.0, 15.0, 0.5),
        ] {
            assert!(
                close(cc.ssthresh(&Socket::new(1400, w, 2.0)), expected, 1e-9),
                "w {w}"
            );
            assert!(
                close(traced(cc.as_ref(), "loss_decrease"), b, 1e-12),
                "w {w}"
            );
        }
        assert_eq!(cc.ssthresh(&Socket::new(1400, 3.0, 2.0)), 2.0);
    }

    #[test]
    fn inflight_basis_looks_b_up_at_the_flight_size() {
        let mut cc = mrvhs(json!({ "ssthresh_basis": "inflight" }));
        let mut s = Socket::new(1400, 5000.0, 2.0);
        s.in_flight = 1000; // b(1000) = 0.33, not b(5000)
        assert!(close(cc.ssthresh(&s), 670.0, 1e-9));
    }

    #[test]
    fn literal_decrease_is_eq_6_2_as_printed() {
        let mut cc = mrvhs(json!({ "decrease": "literal" }));
        // 1000 - 0.33 / 1000 = 999.99967.
        assert!(close(
            cc.ssthresh(&Socket::new(1400, 1000.0, 2.0)),
            999.99967,
            1e-9
        ));
    }

    #[test]
    fn timeout_is_standard() {
        let mut cc = mrvhs(json!({}));
        let mut s = Socket::new(1400, 1000.0, 2.0);
        timeout(cc.as_mut(), &mut s);
        assert!(close(s.ssthresh, 670.0, 1e-9));
        assert_eq!(s.cwnd, 1.0);
    }

    #[test]
    fn bad_parameters_are_rejected_with_the_key() {
        for (params, needle) in [
            (json!({ "decrease": "beta" }), "literal"),
            (json!({ "beta": 0.5 }), "beta"),
            (json!({ "mss_unit": 1400 }), "mss_unit"),
        ] {
            let err = build(&params).err().expect("an error");
            assert!(err.contains(needle), "{params}: {err}");
        }
        assert_eq!(mrvhs(json!({})).name(), "mrvhs");
    }
}
