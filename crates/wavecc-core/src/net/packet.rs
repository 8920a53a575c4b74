//! Packets as the simulator moves them: only the fields TCP and the network read.

use crate::engine::Time;

/// IPv4 (20) + TCP (20) + the timestamps option padded to 12 bytes: the overhead of
/// every TCP segment, so an MSS of 1400 gives 1452-byte packets.
pub const HEADER_BYTES: u32 = 52;
/// IPv4 (20) + UDP (8).
pub const UDP_HEADER_BYTES: u32 = 28;
/// With timestamps, 40 bytes of TCP option space leave room for three SACK blocks.
pub const MAX_SACK_BLOCKS: usize = 3;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Packet {
    pub flow: u32,
    /// Bytes on the wire (headers included): what links serialise and loss models see.
    pub size: u32,
    /// Index of the next hop on the packet's route.
    pub hop: u8,
    pub body: Body,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Body {
    Data(Segment),
    Ack(Ack),
    /// A UDP datagram: payload offset and length in the flow's byte stream.
    Datagram { seq: u64, len: u32 },
}

impl Packet {
    /// Data-direction packets (TCP data and UDP) travel the forward route.
    pub fn is_forward(&self) -> bool {
        !matches!(self.body, Body::Ack(_))
    }
}

/// A TCP data segment covering bytes [seq, seq + len).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Segment {
    pub seq: u64,
    pub len: u32,
    /// Timestamp value (RFC 7323): the sender's clock when sent.
    pub ts_val: Time,
    pub retransmission: bool,
}

/// A SACK block [start, end) of received bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SackBlock {
    pub start: u64,
    pub end: u64,
}

/// A pure ACK.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ack {
    /// Next byte expected (cumulative acknowledgement).
    pub ack: u64,
    /// SACK blocks, most recent first (RFC 2018); a D-SACK (RFC 2883) comes first
    /// and is flagged by `dsack`.
    pub sack: [SackBlock; MAX_SACK_BLOCKS],
    pub n_sack: u8,
    pub dsack: bool,
    /// Echoed timestamp (TSecr).
    pub ts_ecr: Time,
    /// Advertised receive window in bytes (already scaled).
    pub rwnd: u64,
}

impl Ack {
    pub fn blocks(&self) -> &[SackBlock] {
        &self.sack[..self.n_sack as usize]
    }

    /// Bytes on the wire: headers plus the SACK option (2 bytes + 8 per block,
    /// padded to 4 with two NOPs).
    pub fn wire_size(&self) -> u32 {
        HEADER_BYTES + if self.n_sack > 0 { 4 + 8 * self.n_sack as u32 } else { 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ack_size_grows_with_sack_blocks() {
        let mut a = Ack { ack: 0, sack: Default::default(), n_sack: 0, dsack: false, ts_ecr: 0, rwnd: 0 };
        assert_eq!(a.wire_size(), 52);
        a.n_sack = 3;
        assert_eq!(a.wire_size(), 52 + 28, "3 blocks fill the 40-byte option space with timestamps");
    }
}
