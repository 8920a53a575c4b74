//! Reno (RFC 5681): the textbook algorithm the seeds compare against.
//!
//! Window growth is NewReno's: slow start adds one segment per acknowledged segment
//! up to ssthresh ([`slow_start`]), congestion avoidance one segment per window of
//! acknowledged segments ([`additive_increase`], RFC 5681 section 3.1 with RFC 3465
//! byte counting, as Linux `tcp_reno_cong_avoid`). A loss sets
//! `ssthresh = max(cwnd / 2, 2)` (RFC 5681 eq. 4 with cwnd for FlightSize, as Linux
//! `tcp_reno_ssthresh`).
//!
//! Reno and NewReno differ only in fast recovery, which the socket runs, not the
//! algorithm: Reno (RFC 5681 section 3.2) leaves fast recovery on the **first** ACK
//! that advances `snd_una`, partial or not, deflating cwnd to ssthresh; the holes left
//! above it are repaired by a new fast retransmit (three more duplicate ACKs, which is
//! a new loss event and halves ssthresh again) or by the retransmission timeout.
//! NewReno (RFC 6582) stays in recovery until the recovery point is acknowledged and
//! retransmits the next hole on each partial ACK. This algorithm asks the socket for
//! Reno's recovery through [`CongestionControl::loss_response`]
//! ([`LossResponse::RenoRecovery`]); everything else is `newreno` with its default
//! parameters. RFC 5681 Reno knows nothing of SACK: with SACK on, the socket's
//! reading of "first partial ACK" decides how much SACK still helps.

use super::{CongestionControl, LossResponse, Socket, additive_increase, parse_params, slow_start};
use serde::Deserialize;

pub const SUMMARY: &str = "Reno (RFC 5681): +1 segment per RTT, halve on loss; fast recovery ends at the first partial ACK";

/// Reno has no parameters; the table exists so that unknown keys are rejected.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Params {}

/// Smallest slow-start threshold after a loss (RFC 5681: 2 segments).
const MIN_SSTHRESH: f64 = 2.0;

pub struct Reno;

pub fn build(params: &serde_json::Value) -> Result<Box<dyn CongestionControl>, String> {
    parse_params::<Params>(params)?;
    Ok(Box::new(Reno))
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    fn ssthresh(&mut self, sock: &Socket) -> f64 {
        (sock.cwnd / 2.0).max(MIN_SSTHRESH)
    }

    /// Reno's fast recovery: the socket leaves it at the first ACK that advances.
    fn loss_response(&self) -> LossResponse {
        LossResponse::RenoRecovery
    }

    fn cong_avoid(&mut self, sock: &mut Socket, acked: u32) {
        let acked = if sock.in_slow_start() { slow_start(sock, acked) } else { acked };
        if acked > 0 {
            additive_increase(sock, sock.cwnd, acked);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn reno() -> Box<dyn CongestionControl> {
        build(&json!({})).unwrap()
    }

    #[test]
    fn slow_start_adds_one_segment_per_acked_segment() {
        let mut cc = reno();
        let mut s = Socket::new(1400, 10.0, f64::INFINITY);
        for _ in 0..5 {
            cc.cong_avoid(&mut s, 2);
        }
        assert_eq!(s.cwnd, 20.0); // 10 + 5 x 2
    }

    #[test]
    fn slow_start_stops_at_ssthresh_and_the_rest_goes_to_avoidance() {
        let mut cc = reno();
        let mut s = Socket::new(1400, 10.0, 12.0);
        cc.cong_avoid(&mut s, 4); // 2 segments reach 12, the other 2 add 2/12
        assert!((s.cwnd - (12.0 + 2.0 / 12.0)).abs() < 1e-12, "{}", s.cwnd);
    }

    #[test]
    fn congestion_avoidance_adds_one_segment_per_window() {
        let mut cc = reno();
        let mut s = Socket::new(1400, 100.0, 2.0);
        for _ in 0..50 {
            cc.cong_avoid(&mut s, 2); // 100 segments acknowledged: one window
        }
        // sum of 2/w over 50 ACKs with w growing from 100: 1 - about 0.005.
        assert!((s.cwnd - 101.0).abs() < 0.01, "{}", s.cwnd);
    }

    #[test]
    fn loss_halves_cwnd_with_a_floor_of_two() {
        let mut cc = reno();
        let mut s = Socket::new(1400, 30.0, f64::INFINITY);
        s.in_flight = 8; // the basis is cwnd, not the flight size
        assert_eq!(cc.ssthresh(&s), 15.0);
        s.cwnd = 3.0;
        assert_eq!(cc.ssthresh(&s), 2.0);
    }

    #[test]
    fn unknown_parameters_are_rejected() {
        let err = build(&json!({ "beta": 0.5 })).err().unwrap();
        assert!(err.contains("beta"), "{err}");
    }

    #[test]
    fn asks_the_socket_for_reno_recovery() {
        let cc = reno();
        assert_eq!((cc.name(), cc.loss_response()), ("reno", LossResponse::RenoRecovery));
    }
}
