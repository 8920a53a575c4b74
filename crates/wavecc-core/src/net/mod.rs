//! Moving packets: the packet format, links (rate, delay, drop-tail queue) and the
//! random loss models.

mod link;
mod loss;
mod packet;

pub use link::{Link, LinkStats, QueueLimit, Verdict};
pub use loss::LossModel;
pub use packet::{Ack, Body, Packet, SackBlock, Segment, HEADER_BYTES, MAX_SACK_BLOCKS, UDP_HEADER_BYTES};
