//! NewReno: RFC 5681 window growth with RFC 6582 recovery, as Linux `tcp_reno`;
//! and its ancestors Reno (RFC 5681 recovery) and Tahoe (no fast recovery), which
//! share its window rules and differ only in the [`LossResponse`] the socket applies.
//!
//! Slow start adds one segment per acknowledged segment up to ssthresh, congestion
//! avoidance one segment per RTT, and a loss halves the window. The socket runs the
//! recovery itself (NewReno partial ACKs or SACK with PRR), so this file only sets
//! the threshold it recovers to. Two parameters select ns-3's `TcpNewReno` readings,
//! which differ from Linux and matter when validating against the papers' ns-3 runs.

use super::{
    CongestionControl, LossResponse, SlowStartPer, Socket, SsthreshBasis, additive_increase,
    floor_non_negative, parse_params, slow_start,
};
use serde::Deserialize;

pub const SUMMARY: &str =
    "NewReno (RFC 5681 + RFC 6582, Linux tcp_reno): +1 segment per RTT, halve on loss";
pub const RENO_SUMMARY: &str =
    "Reno (RFC 5681): NewReno's window rules; fast recovery ends at the first partial ACK";
pub const TAHOE_SUMMARY: &str =
    "Tahoe (Jacobson 1988): NewReno's window rules; every loss restarts slow start from 1";

/// What the window grows per: acknowledged segments or ACKs.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum IncreasePer {
    /// Per acknowledged segment (Linux, RFC 3465 byte counting): a stretch or delayed
    /// ACK for n segments grows the window as n ACKs would.
    Segment,
    /// Per ACK, whatever it acknowledges (ns-3 `TcpNewReno`: +1 segment per ACK in
    /// slow start, +1/cwnd per ACK in congestion avoidance), so delayed ACKs halve
    /// the growth rate.
    Ack,
    /// Per ACK and in whole bytes, as ns-3 `TcpNewReno::CongestionAvoidance` keeps
    /// cwnd: each ACK adds `(uint32_t) max(1, MSS^2 / cwnd)` bytes, so the fraction is
    /// lost (at 1400-byte segments: 2 bytes instead of 2.15 at 650 segments, 1 byte
    /// instead of just under 2 above 700, about half the per-ACK growth there).
    #[serde(rename = "ack_bytes")]
    AckBytes,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// Window a loss halves. Default `cwnd` as Linux; `inflight` reproduces ns-3's
    /// `TcpNewReno`, which the seeds ran, for validation against ns-3.
    pub ssthresh_basis: SsthreshBasis,
    /// Growth unit. Default `segment` as Linux; `ack` reproduces ns-3's `TcpNewReno`
    /// (see [`IncreasePer::Ack`]), for the same validation.
    pub increase_per: IncreasePer,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            ssthresh_basis: SsthreshBasis::Cwnd,
            increase_per: IncreasePer::Segment,
        }
    }
}

/// Smallest slow-start threshold after a loss (RFC 5681: 2 segments).
const MIN_SSTHRESH: f64 = 2.0;

pub struct NewReno {
    params: Params,
    name: &'static str,
    response: LossResponse,
}

fn build_variant(
    params: &serde_json::Value,
    name: &'static str,
    response: LossResponse,
) -> Result<Box<dyn CongestionControl>, String> {
    let params = parse_params::<Params>(params)?;
    Ok(Box::new(NewReno {
        params,
        name,
        response,
    }))
}

pub fn build(params: &serde_json::Value) -> Result<Box<dyn CongestionControl>, String> {
    build_variant(params, "newreno", LossResponse::FastRecovery)
}

pub fn build_reno(params: &serde_json::Value) -> Result<Box<dyn CongestionControl>, String> {
    build_variant(params, "reno", LossResponse::RenoRecovery)
}

pub fn build_tahoe(params: &serde_json::Value) -> Result<Box<dyn CongestionControl>, String> {
    build_variant(params, "tahoe", LossResponse::SlowStart)
}

/// Reno's window growth for an ACK of `acked` segments, per segment (Linux) or per
/// ACK (ns-3); Westwood+, which grows as Reno, shares it.
pub(super) fn reno_grow(sock: &mut Socket, acked: u32, per: IncreasePer) {
    match per {
        IncreasePer::Segment => NewReno::grow_per_segment(sock, acked),
        IncreasePer::Ack => NewReno::grow_per_ack(sock, acked, false),
        IncreasePer::AckBytes => NewReno::grow_per_ack(sock, acked, true),
    }
}

impl NewReno {
    /// Linux `tcp_reno_cong_avoid`: slow start up to ssthresh, and the acknowledged
    /// segments left over grow the window linearly.
    fn grow_per_segment(sock: &mut Socket, acked: u32) {
        let acked = if sock.in_slow_start() {
            slow_start(sock, acked)
        } else {
            acked
        };
        reno_increase(sock, acked, IncreasePer::Segment);
    }

    /// ns-3 `TcpNewReno::IncreaseWindow`: one segment for the ACK in slow start
    /// (not capped at ssthresh); if that reaches ssthresh and the ACK covered more
    /// segments, one congestion-avoidance step as well, rounded down to whole bytes
    /// with `whole_bytes`.
    fn grow_per_ack(sock: &mut Socket, acked: u32, whole_bytes: bool) {
        let left = if sock.in_slow_start() {
            SlowStartPer::Ack.grow(sock, acked)
        } else {
            acked
        };
        if sock.in_slow_start() {
            return;
        }
        reno_increase(
            sock,
            left,
            if whole_bytes {
                IncreasePer::AckBytes
            } else {
                IncreasePer::Ack
            },
        );
    }
}

/// Reno's congestion-avoidance step for an ACK of `acked` segments (none for 0):
/// `acked / cwnd` segments per segment, `1 / cwnd` per ACK, or per ACK in whole bytes
/// (ns-3 `TcpNewReno::CongestionAvoidance`, which YeAH's slow mode also calls).
pub(super) fn reno_increase(sock: &mut Socket, acked: u32, per: IncreasePer) {
    if acked == 0 {
        return;
    }
    match per {
        IncreasePer::Segment => additive_increase(sock, sock.cwnd, acked),
        IncreasePer::Ack => additive_increase(sock, sock.cwnd, 1),
        IncreasePer::AckBytes => {
            let mss = f64::from(sock.mss);
            sock.cwnd += floor_non_negative((mss / sock.cwnd).max(1.0)) / mss;
        }
    }
}

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        self.name
    }

    fn loss_response(&self) -> LossResponse {
        self.response
    }

    fn ssthresh(&mut self, sock: &Socket) -> f64 {
        let window = self.params.ssthresh_basis.window(sock);
        (window / 2.0).max(MIN_SSTHRESH)
    }

    fn cong_avoid(&mut self, sock: &mut Socket, acked: u32) {
        reno_grow(sock, acked, self.params.increase_per);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn newreno(params: serde_json::Value) -> Box<dyn CongestionControl> {
        build(&params).unwrap()
    }

    /// Feeds `n` ACKs of `acked` segments each.
    fn feed(cc: &mut dyn CongestionControl, sock: &mut Socket, n: usize, acked: u32) {
        for _ in 0..n {
            cc.cong_avoid(sock, acked);
        }
    }

    #[test]
    fn slow_start_adds_one_segment_per_acked_segment() {
        let mut cc = newreno(json!({}));
        let mut s = Socket::new(1400, 10.0, f64::INFINITY);
        feed(cc.as_mut(), &mut s, 5, 2);
        assert_eq!(s.cwnd, 20.0);
    }

    #[test]
    fn slow_start_leftover_goes_to_congestion_avoidance() {
        let mut cc = newreno(json!({}));
        let mut s = Socket::new(1400, 10.0, 12.0);
        cc.cong_avoid(&mut s, 4); // 2 segments reach ssthresh 12, 2 more add 2/12
        assert!((s.cwnd - (12.0 + 2.0 / 12.0)).abs() < 1e-12, "{}", s.cwnd);
    }

    #[test]
    fn congestion_avoidance_adds_one_segment_per_window() {
        for w in [10.0, 100.0] {
            let mut cc = newreno(json!({}));
            let mut s = Socket::new(1400, w, 2.0);
            feed(cc.as_mut(), &mut s, w as usize, 1);
            // 1/cwnd per ACK with cwnd growing meanwhile: 1 - 1/(2w) to first order.
            let expected = w + 1.0 - 1.0 / (2.0 * w);
            assert!(
                (s.cwnd - expected).abs() < 0.1 / w,
                "w {w}: cwnd {}",
                s.cwnd
            );
        }
    }

    #[test]
    fn delayed_acks_grow_as_fast_as_per_segment_acks() {
        let mut cc = newreno(json!({}));
        let mut s = Socket::new(1400, 100.0, 2.0);
        feed(cc.as_mut(), &mut s, 50, 2);
        assert!((s.cwnd - 101.0).abs() < 0.01, "{}", s.cwnd);
    }

    #[test]
    fn loss_halves_cwnd_with_a_floor_of_two() {
        let mut cc = newreno(json!({}));
        let mut s = Socket::new(1400, 30.0, f64::INFINITY);
        s.in_flight = 8; // ignored with the default basis
        assert_eq!(cc.ssthresh(&s), 15.0);
        s.cwnd = 3.0;
        assert_eq!(cc.ssthresh(&s), 2.0);
    }

    #[test]
    fn inflight_basis_halves_the_flight_size() {
        let mut cc = newreno(json!({ "ssthresh_basis": "inflight" }));
        let mut s = Socket::new(1400, 30.0, f64::INFINITY);
        s.in_flight = 20;
        assert_eq!(cc.ssthresh(&s), 10.0);
        s.in_flight = 3;
        assert_eq!(cc.ssthresh(&s), 2.0);
    }

    #[test]
    fn per_ack_growth_ignores_how_much_an_ack_covers() {
        let mut cc = newreno(json!({ "increase_per": "ack" }));
        let mut s = Socket::new(1400, 10.0, 20.0);
        feed(cc.as_mut(), &mut s, 5, 2); // slow start: +1 per ACK, not per segment
        assert_eq!(s.cwnd, 15.0);
        s.ssthresh = 10.0;
        cc.cong_avoid(&mut s, 2); // congestion avoidance: +1/cwnd per ACK
        assert!((s.cwnd - (15.0 + 1.0 / 15.0)).abs() < 1e-12, "{}", s.cwnd);
    }

    #[test]
    fn per_ack_growth_steps_into_avoidance_with_the_rest_of_an_ack() {
        let mut cc = newreno(json!({ "increase_per": "ack" }));
        let mut s = Socket::new(1400, 14.0, 15.0);
        cc.cong_avoid(&mut s, 3);
        assert!((s.cwnd - (15.0 + 1.0 / 15.0)).abs() < 1e-12, "{}", s.cwnd);
    }

    #[test]
    fn whole_byte_growth_drops_the_fraction_of_a_byte() {
        // One ACK in avoidance, 1400-byte segments: at 900 segments 1400 / 900 = 1.56
        // bytes, 1 kept; at 15, 93.3 -> 93 bytes; per ACK without whole bytes, 1/cwnd.
        for (per, cwnd, step) in [
            ("ack_bytes", 900.0, 1.0 / 1400.0),
            ("ack_bytes", 15.0, 93.0 / 1400.0),
            ("ack", 900.0, 1.0 / 900.0),
        ] {
            let mut cc = newreno(json!({ "increase_per": per }));
            let mut s = Socket::new(1400, cwnd, 10.0);
            cc.cong_avoid(&mut s, 2);
            assert!(
                (s.cwnd - (cwnd + step)).abs() < 1e-12,
                "{per} at {cwnd}: {}",
                s.cwnd
            );
        }
        // Slow start stays one segment per ACK.
        let mut cc = newreno(json!({ "increase_per": "ack_bytes" }));
        let mut s = Socket::new(1400, 10.0, 20.0);
        feed(cc.as_mut(), &mut s, 3, 2);
        assert_eq!(s.cwnd, 13.0);
    }

    #[test]
    fn unknown_parameters_and_values_are_rejected() {
        let err = build(&json!({ "beta": 0.5 })).err().unwrap();
        assert!(err.contains("beta"), "{err}");
        let err = build(&json!({ "ssthresh_basis": "flight" })).err().unwrap();
        assert!(
            err.contains("ssthresh_basis") && err.contains("cwnd") && err.contains("inflight"),
            "{err}"
        );
        let err = build(&json!({ "increase_per": "byte" })).err().unwrap();
        assert!(
            err.contains("increase_per") && err.contains("segment") && err.contains("ack"),
            "{err}"
        );
    }
}
