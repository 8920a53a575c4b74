//! The TCP transport: sender and receiver state machines, SACK scoreboard, loss
//! recovery, RTT/RTO, delayed ACKs, pacing and delivery-rate sampling. It knows no
//! particular congestion-control algorithm: those sit behind [`crate::cc`].

mod handshake;
mod pacing;
mod rate;
mod receiver;
mod rtt;
mod scoreboard;
mod sender;

pub use rate::{RateSampler, RateSamples, TxState};
pub use receiver::{AckPolicy, AppSink, ReceiveWindow, Receiver, ReceiverConfig};
pub use rtt::{CcRtt, RttEstimator, RttSamples, clock_rtt};
pub use scoreboard::{Scoreboard, SegInfo};
pub use sender::{
    FlowCounters, PartialAckRto, Pipe, Recovery, RecoverySends, RtoSsthresh, Sender, SenderConfig,
};

use crate::engine::{EventQueue, Time};
use crate::net::Packet;
use crate::trace::EventLog;

/// The timers of a flow's endpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlowTimer {
    /// The sender's retransmission timeout.
    Rto,
    /// The sender's pacer releases the next burst.
    Pace,
    /// The application writes again (TCP sender or UDP endpoint).
    AppWake,
    /// The receiver's delayed ACK is due.
    DelayedAck,
}

/// A flow's timer as it sits in the event queue: which flow, which timer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowEvent {
    pub flow: u32,
    pub timer: FlowTimer,
}

/// The event type of the queue an endpoint's timers go into: anything a
/// [`FlowEvent`] converts into. The transport does not know the world's event type;
/// the world wraps a `FlowEvent` in its own, and tests use `FlowEvent` itself.
pub trait TimerEvent: From<FlowEvent> + Copy {}

impl<E: From<FlowEvent> + Copy> TimerEvent for E {}

/// What an endpoint may touch while it handles an event: the clock, the event
/// queue for its timers, an outbox for the packets it sends, and the event log.
pub struct Io<'a, O: Outbox = Vec<Packet>, E: TimerEvent = FlowEvent> {
    pub now: Time,
    pub queue: &'a mut EventQueue<E>,
    pub out: &'a mut O,
    pub log: &'a mut EventLog,
}

/// Where an endpoint's packets go. The world's outbox hands each packet straight to
/// the first hop of its route (a generic, so that the call inlines and the packet
/// is written once, where the link keeps it); tests collect packets in a `Vec`.
pub trait Outbox {
    /// Sends `pkt` at `now`.
    fn send(&mut self, now: Time, pkt: Packet);

    /// Offers the sender's next application wake-up at `t`, with `queue_next` the
    /// queue's earliest entry: true when the outbox's owner will run it itself (it
    /// goes before everything else), so that no timer is set.
    fn hold_wake(&mut self, _t: Time, _queue_next: Time) -> bool {
        false
    }
}

impl Outbox for Vec<Packet> {
    fn send(&mut self, _now: Time, pkt: Packet) {
        self.push(pkt);
    }
}
