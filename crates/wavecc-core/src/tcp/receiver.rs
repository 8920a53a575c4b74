//! The TCP receiver: in-order delivery to the application, out-of-order buffering,
//! SACK and D-SACK generation, delayed ACKs, timestamp echo and the receive window.

use super::{FlowEvent, FlowTimer, Io, Outbox, TimerEvent};
use crate::engine::{RangeSet, Time, Timer};
use crate::net::{Ack, Body, MAX_SACK_BLOCKS, Packet, SackBlock, Segment};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone)]
pub struct ReceiverConfig {
    pub sack: bool,
    pub delayed_ack: bool,
    pub ack_every: u32,
    pub rcv_buf: u64,
    /// The first this many in-order data segments are acknowledged at once, whatever
    /// `ack_every` says (see `tcp.quickack_segments`).
    pub quickack: u32,
    pub window: ReceiveWindow,
    /// How long a delayed ACK waits at most.
    pub delayed_ack_timeout: Time,
}

/// What the advertised receive window leaves out of the buffer (`tcp.receive_window`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ReceiveWindow {
    /// The free buffer: out-of-order data held for a hole takes its room, so the
    /// window shrinks during loss recovery (Linux's `tcp_select_window`).
    #[default]
    Linux,
    /// The whole buffer beyond rcv_nxt: ns-3 3.37's `TcpRxBuffer::MaxRxSequence`
    /// counts from the first byte held only when that byte is in order, and the
    /// application reads in-order data at once, so out-of-order data never narrows
    /// the window. A sender whose send buffer matches the receive buffer then keeps
    /// sending during recovery where Linux's would stall.
    Ns3,
}

/// The receiving application: reads everything delivered at once, counts it, and
/// checks the order it arrives in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AppSink {
    /// Bytes delivered to the application so far.
    pub bytes: u64,
    /// Stream offset just past the last delivery.
    next: u64,
    /// Deliveries out of order: for a byte stream any gap or overlap, for
    /// datagrams (which may be lost) anything going backwards. Must stay 0.
    pub order_violations: u64,
}

impl AppSink {
    /// A chunk of a reliable byte stream: must start where the last one ended.
    pub fn deliver(&mut self, offset: u64, len: u64) {
        if offset != self.next {
            self.order_violations += 1;
        }
        self.bytes += len;
        self.next = offset + len;
    }

    /// A datagram: losses leave gaps, but nothing may come twice or go backwards.
    pub fn deliver_datagram(&mut self, offset: u64, len: u64) {
        if offset < self.next {
            self.order_violations += 1;
        }
        self.bytes += len;
        self.next = offset + len;
    }
}

#[derive(Debug)]
pub struct Receiver {
    /// The flow this receiver belongs to (its ACKs and timer carry it).
    flow: u32,
    cfg: ReceiverConfig,
    /// The delayed-ACK timer.
    delayed_ack: Timer,
    /// Next byte expected.
    pub rcv_nxt: u64,
    ooo: RangeSet,
    /// Starts of recently changed out-of-order ranges, most recent first: the order
    /// of SACK blocks (RFC 2018 section 4). Only the blocks an ACK can carry are
    /// kept, so heavy loss (hundreds of holes) costs nothing per segment.
    recent: Vec<u64>,
    dsack: Option<SackBlock>,
    /// Full segments received since the last ACK.
    unacked: u32,
    /// In-order segments still to be acknowledged at once.
    quickacks_left: u32,
    ts_recent: Time,
    last_ack_sent: u64,
    window_shift: u32,
    pub sink: AppSink,
}

/// What the receiver wants after a segment arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckPolicy {
    Now,
    Delay,
}

impl Receiver {
    pub fn new(flow: u32, cfg: ReceiverConfig) -> Self {
        // Smallest window-scale shift that fits the buffer in 16 bits (RFC 7323).
        let window_shift = (0..=14).find(|s| cfg.rcv_buf >> s <= 0xFFFF).unwrap_or(14);
        let quickacks_left = cfg.quickack;
        Self {
            flow,
            cfg,
            delayed_ack: Timer::default(),
            rcv_nxt: 0,
            ooo: RangeSet::default(),
            recent: Vec::new(),
            dsack: None,
            unacked: 0,
            quickacks_left,
            ts_recent: 0,
            last_ack_sent: 0,
            window_shift,
            sink: AppSink::default(),
        }
    }

    /// Bytes held out of order (counted against the receive buffer).
    pub fn ooo_bytes(&self) -> u64 {
        self.ooo.total_len()
    }

    /// Takes one arriving segment and acknowledges it at once, or arms the delayed-ACK
    /// timer if it is not already running.
    pub fn receive(&mut self, seg: &Segment, io: &mut Io<impl Outbox, impl TimerEvent>) {
        match self.on_segment(seg) {
            AckPolicy::Now => self.send_ack(io),
            AckPolicy::Delay if !self.delayed_ack.is_set() => {
                let due = io.now + self.cfg.delayed_ack_timeout;
                self.delayed_ack
                    .set(due, io.queue, self.timer_event().into());
            }
            AckPolicy::Delay => {}
        }
    }

    /// The delayed-ACK timer's queue entry popped: the ACK goes if it is really due.
    pub fn on_delayed_ack_timer(&mut self, io: &mut Io<impl Outbox, impl TimerEvent>) {
        if self
            .delayed_ack
            .fire(io.now, io.queue, self.timer_event().into())
        {
            self.send_ack(io);
        }
    }

    fn timer_event(&self) -> FlowEvent {
        FlowEvent {
            flow: self.flow,
            timer: FlowTimer::DelayedAck,
        }
    }

    /// A SYN (`tcp.handshake`): answered at once with a SYN-ACK, every time, so that
    /// a SYN sent again after a lost SYN-ACK opens the connection too.
    pub fn on_syn(&mut self, io: &mut Io<impl Outbox, impl TimerEvent>) {
        io.out
            .send(io.now, super::handshake::packet(self.flow, Body::SynAck));
    }

    /// Sends an ACK now, which makes any pending delayed ACK unnecessary. Always
    /// inlined, as the in-order segment that most often calls it is (see
    /// [`Self::on_segment`]): its call cost about 16 instructions per ACK.
    #[inline(always)]
    fn send_ack(&mut self, io: &mut Io<impl Outbox, impl TimerEvent>) {
        self.delayed_ack.cancel();
        let ack = self.make_ack();
        io.out.send(
            io.now,
            Packet {
                flow: self.flow,
                size: ack.wire_size(),
                hop: 0,
                body: Body::Ack(ack),
            },
        );
    }

    /// Takes one arriving segment and says whether to acknowledge it at once.
    ///
    /// The next expected segment with nothing held out of order, almost every
    /// segment of a flow, is taken here, inlined into the caller; it needs none of
    /// the out-of-order bookkeeping of [`Self::on_other_segment`], and out of line
    /// its call cost about 17 instructions per segment in saving registers alone.
    #[inline(always)]
    pub fn on_segment(&mut self, seg: &Segment) -> AckPolicy {
        let (start, end) = (seg.seq, seg.seq + seg.len as u64);
        if start != self.rcv_nxt || end == start || !self.ooo.is_empty() {
            return self.on_other_segment(seg);
        }
        // As below, with `end > start`.
        if start <= self.last_ack_sent && self.last_ack_sent < end {
            self.ts_recent = seg.ts_val;
        }
        self.sink.deliver(start, end - start);
        self.rcv_nxt = end;
        if !self.recent.is_empty() {
            self.recent.retain(|&s| s > end);
        }
        self.ack_policy(false)
    }

    /// [`Self::on_segment`] for any segment: a duplicate, one above a hole, one
    /// that fills a hole, or an empty one.
    fn on_other_segment(&mut self, seg: &Segment) -> AckPolicy {
        let (start, end) = (seg.seq, seg.seq + seg.len as u64);
        // RFC 7323: remember the timestamp of the segment that holds the next byte
        // we will acknowledge, so delayed and duplicate ACKs echo the older one.
        if start <= self.last_ack_sent && self.last_ack_sent < end.max(start + 1) {
            self.ts_recent = seg.ts_val;
        }
        if end <= self.rcv_nxt || self.ooo.covers(start, end) {
            self.dsack = Some(SackBlock { start, end });
            return AckPolicy::Now;
        }
        if start > self.rcv_nxt {
            self.ooo.insert(start, end);
            let block = self.ooo.containing(start).expect("just inserted").0;
            let ooo = &self.ooo;
            self.recent
                .retain(|&s| s != block && ooo.containing(s).is_some_and(|r| r.0 == s));
            self.recent.insert(0, block);
            self.recent.truncate(MAX_SACK_BLOCKS);
            return AckPolicy::Now;
        }
        let had_holes = !self.ooo.is_empty();
        let mut new_nxt = end.max(self.rcv_nxt);
        if let Some((_, e)) = self.ooo.remove_below(new_nxt) {
            new_nxt = new_nxt.max(e);
        }
        self.sink.deliver(self.rcv_nxt, new_nxt - self.rcv_nxt);
        self.rcv_nxt = new_nxt;
        if !self.recent.is_empty() {
            self.recent.retain(|&s| s > new_nxt);
        }
        self.ack_policy(had_holes)
    }

    /// Whether in-order data just delivered is acknowledged at once (`had_holes`: it
    /// filled one) or may wait for the next segment or the timer.
    #[inline(always)]
    fn ack_policy(&mut self, had_holes: bool) -> AckPolicy {
        self.unacked += 1;
        let quick = self.quickacks_left > 0;
        self.quickacks_left = self.quickacks_left.saturating_sub(1);
        if quick || had_holes || !self.cfg.delayed_ack || self.unacked >= self.cfg.ack_every {
            AckPolicy::Now
        } else {
            AckPolicy::Delay
        }
    }

    /// Builds the ACK to send now (inlined into the send, see [`Ack::push_block`]).
    #[inline(always)]
    pub fn make_ack(&mut self) -> Ack {
        let free = match self.cfg.window {
            ReceiveWindow::Linux => self.cfg.rcv_buf.saturating_sub(self.ooo_bytes()),
            ReceiveWindow::Ns3 => self.cfg.rcv_buf,
        };
        let rwnd = ((free >> self.window_shift) << self.window_shift).min(u32::MAX as u64) as u32;
        let mut ack = Ack::new(self.rcv_nxt, self.ts_recent, rwnd);
        if self.cfg.sack {
            if let Some(d) = self.dsack {
                ack.push_block(d);
                ack.dsack = true;
            }
            for &s in &self.recent {
                if ack.n_blocks() == MAX_SACK_BLOCKS {
                    break;
                }
                if let Some((start, end)) = self.ooo.containing(s) {
                    ack.push_block(SackBlock { start, end });
                }
            }
        }
        self.dsack = None;
        self.unacked = 0;
        self.last_ack_sent = self.rcv_nxt;
        ack
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EventQueue;
    use crate::net::SYN_BYTES;
    use crate::trace::EventLog;

    const MSS: u64 = 1000;

    fn rx() -> Receiver {
        rx_quick(0)
    }

    fn rx_quick(quickack: u32) -> Receiver {
        Receiver::new(
            0,
            ReceiverConfig {
                sack: true,
                delayed_ack: true,
                ack_every: 2,
                rcv_buf: 6_553_600,
                quickack,
                window: ReceiveWindow::Linux,
                delayed_ack_timeout: 40_000_000,
            },
        )
    }

    fn seg(i: u64, ts: Time) -> Segment {
        Segment {
            seq: i * MSS,
            len: MSS as u32,
            ts_val: ts,
            retransmission: false,
        }
    }

    #[test]
    fn a_syn_is_answered_at_once_with_a_syn_ack_on_the_reverse_route() {
        let mut r = rx();
        r.flow = 7;
        let (mut queue, mut out) = (EventQueue::<FlowEvent>::default(), Vec::new());
        let mut log = EventLog::new(false, 0);
        for now in [5, 9] {
            let mut io = Io {
                now,
                queue: &mut queue,
                out: &mut out,
                log: &mut log,
            };
            r.on_syn(&mut io);
        }
        assert_eq!(out.len(), 2, "every SYN is answered");
        for p in &out {
            assert_eq!((p.flow, p.size, p.body), (7, SYN_BYTES, Body::SynAck));
            assert!(!p.is_forward());
        }
        assert!(
            queue.is_empty(),
            "no timer: a lost SYN-ACK is the sender's to repair"
        );
    }

    #[test]
    fn in_order_segments_are_acked_every_second() {
        let mut r = rx();
        assert_eq!(r.on_segment(&seg(0, 1)), AckPolicy::Delay);
        assert_eq!(r.on_segment(&seg(1, 2)), AckPolicy::Now);
        let a = r.make_ack();
        assert_eq!(a.ack, 2 * MSS);
        assert_eq!(a.ts_ecr, 1, "the delayed ACK echoes the older timestamp");
        assert_eq!(r.sink.bytes, 2 * MSS);
    }

    #[test]
    fn the_first_quickack_segments_are_acked_at_once_then_every_second() {
        // ns-3 acknowledges the first data segment after the handshake at once: the
        // pairs that follow are shifted by one, so an odd window leaves its last
        // segment waiting for the next round.
        let mut r = rx_quick(1);
        assert_eq!(r.on_segment(&seg(0, 1)), AckPolicy::Now);
        assert_eq!(r.make_ack().ack, MSS);
        assert_eq!(r.on_segment(&seg(1, 2)), AckPolicy::Delay);
        assert_eq!(r.on_segment(&seg(2, 3)), AckPolicy::Now);
        assert_eq!(r.make_ack().ack, 3 * MSS);
        assert_eq!(r.on_segment(&seg(3, 4)), AckPolicy::Delay);
    }

    #[test]
    fn a_hole_triggers_immediate_acks_with_sack_blocks_most_recent_first() {
        let mut r = rx();
        r.on_segment(&seg(0, 0));
        r.make_ack();
        assert_eq!(r.on_segment(&seg(2, 0)), AckPolicy::Now);
        assert_eq!(r.on_segment(&seg(5, 0)), AckPolicy::Now);
        let a = r.make_ack();
        assert_eq!(a.ack, MSS);
        assert_eq!(
            a.blocks().collect::<Vec<_>>(),
            [
                SackBlock {
                    start: 5 * MSS,
                    end: 6 * MSS
                },
                SackBlock {
                    start: 2 * MSS,
                    end: 3 * MSS
                }
            ]
        );
        // Filling the first hole merges with the block above and acks at once.
        assert_eq!(r.on_segment(&seg(1, 0)), AckPolicy::Now);
        let a = r.make_ack();
        assert_eq!(a.ack, 3 * MSS);
        assert_eq!(
            a.blocks().collect::<Vec<_>>(),
            [SackBlock {
                start: 5 * MSS,
                end: 6 * MSS
            }]
        );
        assert_eq!((r.sink.bytes, r.sink.order_violations), (3 * MSS, 0));
    }

    #[test]
    fn a_duplicate_is_reported_as_dsack() {
        let mut r = rx();
        r.on_segment(&seg(0, 0));
        r.on_segment(&seg(1, 0));
        r.make_ack();
        assert_eq!(r.on_segment(&seg(0, 0)), AckPolicy::Now);
        let a = r.make_ack();
        assert!(a.dsack);
        assert_eq!(a.blocks().next(), Some(SackBlock { start: 0, end: MSS }));
        assert!(!r.make_ack().dsack, "reported once");
    }

    #[test]
    fn window_shrinks_by_out_of_order_bytes_and_is_scaled() {
        let mut r = rx();
        r.on_segment(&seg(3, 0));
        let a = r.make_ack();
        // 6,553,600 B needs shift 7; the window is a multiple of 128.
        assert_eq!(a.rwnd % 128, 0);
        assert!(a.rwnd as u64 <= 6_553_600 - MSS && a.rwnd as u64 > 6_553_600 - MSS - 128);
    }

    #[test]
    fn ns3_window_ignores_out_of_order_bytes() {
        let mut r = rx();
        r.cfg.window = ReceiveWindow::Ns3;
        r.on_segment(&seg(3, 0));
        assert_eq!(
            r.make_ack().rwnd,
            6_553_600,
            "a multiple of 128, so scaling loses nothing"
        );
    }

    #[test]
    fn sink_flags_gaps_in_a_stream_but_not_in_datagrams() {
        let mut s = AppSink::default();
        s.deliver(0, 10);
        s.deliver(20, 10);
        assert_eq!(s.order_violations, 1);
        let mut d = AppSink::default();
        d.deliver_datagram(0, 10);
        d.deliver_datagram(20, 10);
        assert_eq!((d.bytes, d.order_violations), (20, 0));
        d.deliver_datagram(5, 10);
        assert_eq!(d.order_violations, 1);
    }

    #[test]
    fn without_sack_no_blocks_are_sent() {
        let mut r = Receiver::new(
            0,
            ReceiverConfig {
                sack: false,
                delayed_ack: false,
                ack_every: 2,
                rcv_buf: 100_000,
                quickack: 0,
                window: ReceiveWindow::Linux,
                delayed_ack_timeout: 40_000_000,
            },
        );
        r.on_segment(&seg(2, 0));
        assert_eq!(r.make_ack().n_blocks(), 0);
    }
}
