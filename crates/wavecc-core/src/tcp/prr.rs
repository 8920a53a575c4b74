//! Proportional Rate Reduction (RFC 6937): how much fast recovery may send per ACK,
//! as Linux runs it and, as an option, as ns-3 3.37 does.

use serde::{Deserialize, Serialize};

/// Which PRR the sender runs (`tcp.prr`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrrReading {
    /// Linux `tcp_cwnd_reduction`: while the pipe is above ssthresh, send
    /// `ssthresh / RecoverFS` of what is delivered; below it, catch up by what was
    /// delivered and not yet sent, plus one segment only on an ACK that advanced
    /// `snd_una` without new losses.
    #[default]
    Linux,
    /// ns-3 3.37 `TcpPrrRecovery` (its default SSRB bound): the catch-up always adds
    /// one segment, and the proportional part multiplies two `uint32_t` byte counts,
    /// `prr_delivered x ssthresh`, which wraps past 4 GB, i.e. after a segment or
    /// two at a 1 Gb/s window: above ssthresh it then sends next to nothing, and
    /// refills the pipe to ssthresh at once when it falls below. Later ns-3 versions
    /// compute the product in 64 bits.
    Ns3,
}

/// PRR state of one recovery episode, in packets as Linux keeps it.
#[derive(Debug, Clone, Default)]
pub struct Prr {
    pub delivered: u64,
    pub out: u64,
    /// cwnd when recovery started (RFC 6937's RecoverFS, Linux's `prior_cwnd`).
    pub prior_cwnd: u64,
}

impl Prr {
    pub fn start(prior_cwnd: f64) -> Self {
        Self { delivered: 0, out: 0, prior_cwnd: (prior_cwnd as u64).max(1) }
    }

    /// Segments the sender may send on an ACK that delivered `newly_delivered`, with
    /// `in_flight` segments in the pipe; `safe_ack` is an ACK that advanced
    /// `snd_una` and marked nothing lost.
    pub fn sndcnt(&mut self, reading: PrrReading, in_flight: i64, ssthresh: f64, newly_delivered: u32, safe_ack: bool, mss: u32) -> i64 {
        self.delivered += u64::from(newly_delivered);
        let delta = ssthresh as i64 - in_flight;
        let sndcnt = if delta < 0 {
            match reading {
                PrrReading::Linux => (ssthresh as u64 * self.delivered).div_ceil(self.prior_cwnd) as i64 - self.out as i64,
                PrrReading::Ns3 => self.ns3_proportional(ssthresh, u64::from(mss)),
            }
        } else {
            let mut n = (self.delivered as i64 - self.out as i64).max(i64::from(newly_delivered));
            if safe_ack || reading == PrrReading::Ns3 {
                n += 1;
            }
            n.min(delta)
        };
        // Force the fast retransmission on entering recovery.
        if self.out == 0 { sndcnt.max(1) } else { sndcnt }
    }

    /// ns-3 3.37's `ceil(prr_delivered x ssthresh / RecoverFS) - prr_out` in bytes,
    /// the product in 32 bits, in whole segments (ns-3 sends no partial segment).
    fn ns3_proportional(&self, ssthresh: f64, mss: u64) -> i64 {
        let product = ((self.delivered * mss) as u32).wrapping_mul((ssthresh * mss as f64) as u32);
        let bytes = u64::from(product).div_ceil(self.prior_cwnd * mss) as i64 - (self.out * mss) as i64;
        bytes.div_euclid(mss as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1400;

    #[test]
    fn above_ssthresh_linux_sends_in_proportion_and_ns3_3_37_wraps() {
        // RecoverFS 3000, ssthresh 1500, one segment sent, 3 delivered now: Linux
        // ceil(1500 x 3 / 3000) - 1 = 1. ns-3: 4200 B x 2.1 MB = 8.82e9 wraps to
        // 230,065,408; / 4.2 MB = 55 B, less the 1400 B sent: nothing.
        for (reading, expected) in [(PrrReading::Linux, 1), (PrrReading::Ns3, -1)] {
            let mut prr = Prr::start(3000.0);
            prr.out = 1;
            assert_eq!(prr.sndcnt(reading, 2900, 1500.0, 3, false, MSS), expected, "{reading:?}");
        }
        // Small windows do not wrap: ns-3 is then RFC 6937's PRR. RecoverFS 20,
        // ssthresh 10, 4 delivered, 1 sent: ceil(10 x 4 / 20) - 1 = 1 both ways.
        for reading in [PrrReading::Linux, PrrReading::Ns3] {
            let mut prr = Prr::start(20.0);
            prr.out = 1;
            assert_eq!(prr.sndcnt(reading, 15, 10.0, 4, false, MSS), 1, "{reading:?}");
        }
    }

    #[test]
    fn below_ssthresh_ns3_always_adds_the_slow_start_segment() {
        // Pipe 50 under ssthresh 100; 30 delivered and 20 sent before, 2 delivered
        // now: the catch-up is max(32 - 20, 2) = 12, plus 1 for Linux only on a safe
        // ACK, always for ns-3; at most ssthresh - pipe (here 50).
        for (reading, safe, expected) in [
            (PrrReading::Linux, false, 12),
            (PrrReading::Linux, true, 13),
            (PrrReading::Ns3, false, 13),
        ] {
            let mut prr = Prr::start(200.0);
            (prr.delivered, prr.out) = (30, 20);
            assert_eq!(prr.sndcnt(reading, 50, 100.0, 2, safe, MSS), expected, "{reading:?} {safe}");
        }
        let mut prr = Prr::start(200.0);
        (prr.delivered, prr.out) = (30, 20);
        assert_eq!(prr.sndcnt(PrrReading::Ns3, 95, 100.0, 2, false, MSS), 5, "capped at the gap");
    }

    #[test]
    fn the_first_ack_of_recovery_always_retransmits() {
        let mut prr = Prr::start(3000.0);
        assert_eq!(prr.sndcnt(PrrReading::Ns3, 2999, 1500.0, 1, false, MSS), 1);
    }
}
