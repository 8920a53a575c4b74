//! Moving packets: the packet format, links (rate, delay, drop-tail queue) and the
//! random loss models.

mod link;
mod loss;
mod packet;

pub use link::{Link, LinkStats, QueueLimit, Verdict};
pub use loss::{GilbertElliottParams, LossModel};
pub use packet::{
    Ack, Body, HEADER_BYTES, MAX_SACK_BLOCKS, Packet, SackBlock, Segment, UDP_HEADER_BYTES,
};
