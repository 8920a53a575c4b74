//! Moving packets: the packet format, links (rate or trace slots, delay, drop-tail
//! queue), the random loss models and the link trace file.

mod link;
mod loss;
mod packet;
mod trace_file;

pub use link::{Link, LinkStats, QueueLimit, Verdict};
pub use loss::{GilbertElliottParams, LossModel};
pub use packet::{
    Ack, Body, HEADER_BYTES, MAX_SACK_BLOCKS, Packet, SYN_BYTES, SackBlock, Segment,
    UDP_HEADER_BYTES,
};
pub use trace_file::{LinkTrace, MAGIC as TRACE_MAGIC};
