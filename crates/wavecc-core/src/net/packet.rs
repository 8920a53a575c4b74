//! Packets as the simulator moves them: only the fields TCP and the network read.

use crate::engine::Time;

/// IPv4 (20) + TCP (20) + the timestamps option padded to 12 bytes: the overhead of
/// every TCP segment, so an MSS of 1400 gives 1452-byte packets.
pub const HEADER_BYTES: u32 = 52;
/// IPv4 (20) + UDP (8).
pub const UDP_HEADER_BYTES: u32 = 28;
/// A SYN or SYN-ACK: IPv4 (20) + TCP (20) + the MSS, SACK-permitted, timestamps and
/// window-scale options with their padding (20).
pub const SYN_BYTES: u16 = 60;
/// With timestamps, 40 bytes of TCP option space leave room for three SACK blocks.
pub const MAX_SACK_BLOCKS: usize = 3;

/// Kept to 64 bytes (one cache line): links hold thousands of packets in flight and
/// every hop moves them. `repr(C)` here and on [`Body`] gives a fixed layout of
/// whole 8-byte words: with Rust's layout the compiler copied the body as a 45-byte
/// blob in overlapping 16-byte pieces, and the next copy of the same packet stalled
/// on store forwarding, at every hop (a sixth of the run time on the 1 Gb/s dumbbell).
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Packet {
    pub flow: u32,
    /// Bytes on the wire (headers included): what links serialise and loss models see.
    pub size: u16,
    /// Index of the next hop on the packet's route.
    pub hop: u8,
    pub body: Body,
}

/// The forward kinds come first and the reverse ones last, so that
/// [`Packet::is_forward`], asked at every hop, is one comparison of the tag.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub enum Body {
    Data(Segment),
    /// A UDP datagram: payload offset and length in the flow's byte stream.
    Datagram {
        seq: u64,
        len: u32,
    },
    /// The sender's SYN, opening the connection (`tcp.handshake`).
    Syn,
    Ack(Ack),
    /// The receiver's answer to a SYN; it travels the reverse route, as ACKs do.
    SynAck,
}

impl Packet {
    /// Data-direction packets (TCP data, SYNs and UDP) travel the forward route.
    pub fn is_forward(&self) -> bool {
        !matches!(self.body, Body::Ack(_) | Body::SynAck)
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
    /// Echoed timestamp (TSecr).
    pub ts_ecr: Time,
    /// Advertised receive window in bytes (already scaled; at most 1 GiB by RFC 7323).
    pub rwnd: u32,
    /// SACK blocks as offsets from `ack` (a window is far below 2 GiB, and a D-SACK
    /// may lie below `ack`); read them through [`Ack::blocks`].
    sack: [(i32, i32); MAX_SACK_BLOCKS],
    n_sack: u8,
    /// The first block is a D-SACK (RFC 2883).
    pub dsack: bool,
}

impl Ack {
    pub fn new(ack: u64, ts_ecr: Time, rwnd: u32) -> Self {
        Self {
            ack,
            ts_ecr,
            rwnd,
            sack: [(0, 0); MAX_SACK_BLOCKS],
            n_sack: 0,
            dsack: false,
        }
    }

    /// Appends a block; the caller keeps to [`MAX_SACK_BLOCKS`].
    pub fn push_block(&mut self, b: SackBlock) {
        let off = |x: u64| (x as i64 - self.ack as i64) as i32;
        let block = (off(b.start), off(b.end));
        // Constant indices rather than `sack[n_sack]`: the compiler can then keep an
        // ACK being built in registers and write it once, into the link's queue (an
        // ACK in memory, copied whole, stalled on store forwarding).
        match self.n_sack {
            0 => self.sack[0] = block,
            1 => self.sack[1] = block,
            _ => self.sack[2] = block,
        }
        self.n_sack += 1;
    }

    pub fn n_blocks(&self) -> usize {
        self.n_sack as usize
    }

    /// SACK blocks, most recent first (RFC 2018), a D-SACK first when `dsack`.
    pub fn blocks(&self) -> impl Iterator<Item = SackBlock> + '_ {
        let abs = |o: i32| (self.ack as i64 + o as i64) as u64;
        self.sack[..self.n_sack as usize]
            .iter()
            .map(move |&(s, e)| SackBlock {
                start: abs(s),
                end: abs(e),
            })
    }

    /// Bytes on the wire: headers plus the SACK option (2 bytes + 8 per block,
    /// padded to 4 with two NOPs).
    pub fn wire_size(&self) -> u16 {
        (HEADER_BYTES
            + if self.n_sack > 0 {
                4 + 8 * self.n_sack as u32
            } else {
                0
            }) as u16
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ack_size_grows_with_sack_blocks() {
        let mut a = Ack::new(10_000, 0, 0);
        assert_eq!(a.wire_size(), 52);
        for i in 0..3 {
            a.push_block(SackBlock {
                start: 20_000 + i * 3000,
                end: 21_000 + i * 3000,
            });
        }
        assert_eq!(
            a.wire_size(),
            52 + 28,
            "3 blocks fill the 40-byte option space with timestamps"
        );
    }

    #[test]
    fn sack_blocks_round_trip_including_dsack_below_the_ack() {
        let mut a = Ack::new(1 << 40, 0, 0);
        let blocks = [
            SackBlock {
                start: (1 << 40) - 1400,
                end: 1 << 40,
            },
            SackBlock {
                start: (1 << 40) + 2800,
                end: (1 << 40) + 5600,
            },
        ];
        blocks.iter().for_each(|b| a.push_block(*b));
        assert_eq!(a.blocks().collect::<Vec<_>>(), blocks);
    }

    #[test]
    fn a_packet_fits_a_cache_line() {
        assert!(
            std::mem::size_of::<Packet>() <= 64,
            "{}",
            std::mem::size_of::<Packet>()
        );
    }
}
