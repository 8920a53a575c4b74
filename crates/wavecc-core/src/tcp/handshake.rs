//! The connection's opening, when a flow models it (`tcp.handshake`): the sender
//! sends a SYN along the data's route when the flow starts, and its first data segment
//! only once the receiver's SYN-ACK is back, as the ns-3 scripts' sockets do
//! (`TcpSocketBase::ProcessSynSent` sends the pending data with the handshake's ACK,
//! which is not modelled as a packet of its own). The exchange gives no RTT sample
//! (ns-3 takes none from it). A SYN or SYN-ACK lost on the way is repaired by the SYN
//! sent again after `tcp.syn_timeout_s`, the timeout doubling at each attempt, as
//! ns-3's `SendEmptyPacket` backs off its `ConnTimeout`; the receiver answers every
//! SYN.

use crate::engine::Time;
use crate::net::{Body, Packet, SYN_BYTES};

/// Flow `flow`'s SYN (`Body::Syn`) or SYN-ACK (`Body::SynAck`), as it leaves its end.
pub(super) fn packet(flow: u32, body: Body) -> Packet {
    debug_assert!(matches!(body, Body::Syn | Body::SynAck));
    Packet {
        flow,
        size: SYN_BYTES,
        hop: 0,
        body,
    }
}

/// The sender's side of an opening that has not completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opening {
    /// The first SYN's timeout.
    timeout: Time,
    /// SYNs sent so far.
    sent: u32,
}

impl Opening {
    pub fn new(timeout: Time) -> Self {
        Self { timeout, sent: 0 }
    }

    /// A SYN goes at `now`: when to send the next one if no SYN-ACK has come back
    /// (the timeout doubles with each SYN sent before).
    pub fn syn_sent(&mut self, now: Time) -> Time {
        let backoff = 1u64 << self.sent.min(16);
        self.sent += 1;
        now.saturating_add(self.timeout.saturating_mul(backoff))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_syn_waits_twice_as_long_as_the_one_before() {
        let mut o = Opening::new(3_000_000_000);
        assert_eq!(o.syn_sent(100), 100 + 3_000_000_000);
        assert_eq!(o.syn_sent(1_000), 1_000 + 6_000_000_000);
        assert_eq!(o.syn_sent(0), 12_000_000_000);
    }
}
