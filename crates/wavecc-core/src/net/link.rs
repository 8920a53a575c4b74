//! A unidirectional link: a drop-tail FIFO queue feeding a serialiser of fixed rate
//! (or the slots of a link trace), then a propagation delay, then (optionally) random
//! loss at the receiving end.
//!
//! No event is spent inside the link: a FIFO's departure time is known when a packet
//! arrives (`max(now, busy_until) + size / rate`, or the end of the slot that serves
//! its last byte), so the link keeps its packets in one deque ordered by far-end
//! arrival time and the world wakes it only for its head packet.

use super::{LossModel, Packet};
use crate::engine::{Ring, Serialiser, Time, fs_per_byte};
use std::sync::Arc;

/// Drop-tail limit on packets waiting for the serialiser (the packet being
/// serialised does not count, as in ns-3's queues).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueLimit {
    Bytes(u64),
    Packets(u32),
    Unlimited,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// Packets accepted into the queue.
    pub enqueued: u64,
    /// Packets that left the far end of the link (delivered or lost there).
    pub dequeued: u64,
    pub dropped_overflow: u64,
    pub dropped_random: u64,
    /// Largest queue occupancy seen, bytes.
    pub max_bytes: u64,
}

/// What happened to a packet offered to a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Queued; `was_idle` is true when the link held no packet before, so the
    /// caller must schedule a wake-up at [`Link::head_time`].
    Accepted { was_idle: bool },
    /// Tail-dropped: the queue was full.
    Overflow,
}

/// How the link serves its queue.
enum Service {
    /// A constant rate.
    Rate(Serialiser),
    /// The delivery opportunities of a link trace.
    Slots(Slots),
}

/// Delivery opportunities: `bytes[i]` may leave in slot i (of `slot` ns), looping over
/// the list, as the emulator serves a trace (`wavecc-emu`'s link). A packet leaves at
/// the end of the slot that serves its last byte, and may span slots; bytes of a
/// slot that no packet uses are lost (an idle radio wastes its opportunities). A
/// packet that finds the link idle may use its arrival slot's bytes in full.
struct Slots {
    slot: Time,
    bytes: Arc<[u64]>,
    /// The absolute slot serving the queue's tail (None before the first packet),
    /// and the bytes it has left.
    tail: Option<u64>,
    left: u64,
}

impl Slots {
    /// When `size` bytes arriving at `now`, behind the packets already queued, leave.
    /// Out of line, so that the constant rate's path inlined with it stays short.
    #[inline(never)]
    fn departure(&mut self, now: Time, size: u64) -> Time {
        let now_slot = now / self.slot;
        let mut slot = match self.tail {
            Some(tail) if tail >= now_slot => tail,
            _ => {
                self.left = self.bytes_of(now_slot);
                now_slot
            }
        };
        let mut remaining = size;
        loop {
            let take = remaining.min(self.left);
            remaining -= take;
            self.left -= take;
            if remaining == 0 {
                break;
            }
            slot += 1;
            self.left = self.bytes_of(slot);
        }
        self.tail = Some(slot);
        (slot + 1) * self.slot
    }

    fn bytes_of(&self, slot: u64) -> u64 {
        self.bytes[(slot % self.bytes.len() as u64) as usize]
    }
}

impl Service {
    /// When a packet of `size` bytes arriving at `now` finishes service, given that
    /// it starts at `start` (when the link is free). Always inlined into
    /// [`Link::enqueue`], where a constant rate is a cached lookup and an add: its
    /// call cost more than that.
    #[inline(always)]
    fn departure(&mut self, now: Time, start: Time, size: u64) -> Time {
        match self {
            Service::Rate(serialiser) => start + serialiser.time(size),
            Service::Slots(slots) => slots.departure(now, size),
        }
    }
}

pub struct Link {
    pub name: String,
    service: Service,
    delay: Time,
    limit: QueueLimit,
    /// When the serialiser finishes the last accepted packet.
    busy_until: Time,
    /// Accepted packets with the time each reaches the far end, in FIFO order.
    pipe: Ring<(Time, Packet)>,
    /// Index in `pipe` of the first packet not yet being serialised: the waiting
    /// packets are the pipe's tail, so no second queue is needed.
    first_waiting: usize,
    /// When the first waiting packet starts: the departure of the packet before it
    /// (meaningless while none waits). Kept so that [`Self::advance`] finds the
    /// packet it stops at without reading it.
    next_start: Time,
    waiting_bytes: u64,
    loss: Option<LossModel>,
    /// Only packets for which this returns true are exposed to `loss`.
    loss_applies: fn(&Packet) -> bool,
    /// The link that takes every packet leaving this one, set by the world when
    /// the two form a tandem: a packet that finds this link idle goes on into that
    /// one at once, ahead of its arrival there ([`Self::pass`]).
    pub feeds: Option<u32>,
    /// When the packets queued by [`Self::enqueue_ahead`] reach this link, for
    /// those that may not have yet: they are the pipe's tail, and the queue's
    /// state (`first_waiting`, `waiting_bytes`) is that of the last of them.
    ahead: Ring<Time>,
    /// (entry, the largest occupancy before it) for each packet queued ahead that
    /// raised `stats.max_bytes`, so that the statistics of an instant before its
    /// entry leave it out ([`Self::stats_at`]). A ring, as [`Self::settle`] drops
    /// its front at every packet queued ahead: while a queue fills, each packet
    /// raises the maximum, and a `Vec` drained at the front moved all the rest
    /// (in `city-100ue`'s first second, 33 M instructions of `memmove`).
    raised: Ring<(Time, u64)>,
    /// The length of `ahead` at which [`Self::settle_now_and_then`] next settles.
    settle_at: usize,
    pub stats: LinkStats,
}

impl Link {
    pub fn new(name: impl Into<String>, rate_bps: f64, delay: Time, limit: QueueLimit) -> Self {
        Self::with_service(
            name,
            Service::Rate(Serialiser::new(fs_per_byte(rate_bps))),
            delay,
            limit,
        )
    }

    /// A link served by a trace's slots: `bytes[i]` bytes may leave in slot i of
    /// `slot` ns, looping (see [`Slots`]). At least one slot must offer bytes.
    pub fn with_slots(
        name: impl Into<String>,
        slot: Time,
        bytes: Arc<[u64]>,
        delay: Time,
        limit: QueueLimit,
    ) -> Self {
        assert!(
            slot > 0 && bytes.iter().any(|&b| b > 0),
            "a trace offers bytes"
        );
        let slots = Slots {
            slot,
            bytes,
            tail: None,
            left: 0,
        };
        Self::with_service(name, Service::Slots(slots), delay, limit)
    }

    fn with_service(
        name: impl Into<String>,
        service: Service,
        delay: Time,
        limit: QueueLimit,
    ) -> Self {
        Self {
            name: name.into(),
            service,
            delay,
            limit,
            busy_until: 0,
            pipe: Ring::default(),
            first_waiting: 0,
            next_start: 0,
            waiting_bytes: 0,
            loss: None,
            loss_applies: |_| true,
            feeds: None,
            ahead: Ring::default(),
            raised: Ring::default(),
            settle_at: 0,
            stats: LinkStats::default(),
        }
    }

    /// Random loss at the receiving end for packets selected by `applies`.
    pub fn with_loss(mut self, loss: LossModel, applies: fn(&Packet) -> bool) -> Self {
        if loss.is_active() {
            self.loss = Some(loss);
            self.loss_applies = applies;
        }
        self
    }

    /// Releases waiting packets whose transmission has started by `now`. A waiting
    /// packet starts the moment the packet before it is serialised, which is that
    /// packet's far-end arrival less the delay; with that packet gone from the far
    /// end, it has started. (Read off the pipe, not recomputed from its size.)
    fn advance(&mut self, now: Time) {
        while self.first_waiting < self.pipe.len() && self.next_start <= now {
            let (arrival, pkt) = self.pipe[self.first_waiting];
            self.next_start = arrival - self.delay;
            self.first_waiting += 1;
            self.waiting_bytes -= pkt.size as u64;
        }
    }

    fn waiting_packets(&self) -> u32 {
        (self.pipe.len() - self.first_waiting) as u32
    }

    /// Offers `pkt` to the queue at `now`. Always inlined, so that a packet built
    /// by its sender is written straight into the queue's slot: copied from a
    /// packet just written field by field, it stalls on store forwarding.
    #[inline(always)]
    pub fn enqueue(&mut self, now: Time, pkt: Packet) -> Verdict {
        match self.admit(now, pkt) {
            Some(was_idle) => Verdict::Accepted { was_idle },
            None => {
                self.stats.dropped_overflow += 1;
                Verdict::Overflow
            }
        }
    }

    /// [`Self::enqueue`] without counting a refusal: whether the link was empty,
    /// or None (and nothing queued) when the queue is full.
    #[inline(always)]
    fn admit(&mut self, now: Time, pkt: Packet) -> Option<bool> {
        self.advance(now);
        let full = self.full(pkt.size);
        // A packet that finds the serialiser idle starts at once and never waits.
        let start = now.max(self.busy_until);
        if full && start > now {
            return None;
        }
        self.busy_until = self.service.departure(now, start, pkt.size as u64);
        let was_idle = self.pipe.is_empty();
        self.pipe.push_back((self.busy_until + self.delay, pkt));
        if start > now {
            if self.first_waiting == self.pipe.len() - 1 {
                self.next_start = start;
            }
            self.waiting_bytes += pkt.size as u64;
            self.stats.max_bytes = self.stats.max_bytes.max(self.waiting_bytes);
        } else {
            // In service at once: it never waits (and nothing before it does).
            self.first_waiting = self.pipe.len();
        }
        self.stats.enqueued += 1;
        Some(was_idle)
    }

    /// Whether `size` more bytes would overflow the waiting queue.
    #[inline(always)]
    fn full(&self, size: u16) -> bool {
        match self.limit {
            QueueLimit::Bytes(b) => self.waiting_bytes + size as u64 > b,
            QueueLimit::Packets(p) => self.waiting_packets() >= p,
            QueueLimit::Unlimited => false,
        }
    }

    /// [`Self::enqueue`] for a packet that reaches this link at `entry`, later than
    /// the present: queued now, its far-end arrival and the queue's statistics
    /// are those of its entry, as no packet may enter between (the world queues
    /// ahead only into a link that one other feeds alone, in that link's order).
    /// Whether the link was empty, or None, with nothing queued or counted, when
    /// the queue would be full at `entry`: the caller keeps the packet until then.
    #[inline(always)]
    pub fn enqueue_ahead(&mut self, entry: Time, pkt: Packet) -> Option<bool> {
        let max = self.stats.max_bytes;
        let was_idle = self.admit(entry, pkt)?;
        if self.stats.max_bytes > max {
            self.raised.push_back((entry, max));
        }
        self.ahead.push_back(entry);
        Some(was_idle)
    }

    /// Forgets what [`Self::enqueue_ahead`] recorded of entries made by `now`.
    fn settle(&mut self, now: Time) {
        while self.ahead.front().is_some_and(|&t| t <= now) {
            self.ahead.drop_front(1);
        }
        if !self.raised.is_empty() {
            let entered = self.raised.partition_point(|&(t, _)| t <= now);
            self.raised.drop_front(entered);
        }
    }

    /// [`Self::settle`] once the record has doubled since it was last settled: the
    /// world calls it at each packet queued ahead, so that the record holds at
    /// most twice as many packets as were ever before their entry at once, and 64
    /// more. Settling at every packet cost `urban` about 25 instructions per
    /// delivered segment; what is left over is never read, as the readers settle
    /// first.
    #[inline(always)]
    pub fn settle_now_and_then(&mut self, now: Time) {
        if self.ahead.len() >= self.settle_at {
            self.settle(now);
            self.settle_at = 2 * self.ahead.len() + 64;
        }
    }

    /// Packets queued ahead that have not yet entered by `now`.
    pub fn ahead_of(&mut self, now: Time) -> u64 {
        self.settle(now);
        self.ahead.len() as u64
    }

    /// The statistics as of `now`, leaving out the packets queued ahead that have
    /// not yet entered (they still count as dequeued by the link that feeds this
    /// one, which the world corrects).
    pub fn stats_at(&mut self, now: Time) -> LinkStats {
        let mut stats = self.stats;
        stats.enqueued -= self.ahead_of(now);
        if let Some(&(_, max)) = self.raised.front() {
            stats.max_bytes = max;
        }
        stats
    }

    /// Whether a packet offered at `now` starts at once.
    #[inline(always)]
    pub fn idle_at(&self, now: Time) -> bool {
        self.busy_until <= now
    }

    /// When a packet of `size` bytes offered at `now` would reach the far end,
    /// served at once: for a constant-rate link idle at `now` with an empty pipe,
    /// before [`Self::pass`].
    #[inline(always)]
    pub fn arrival_at_once(&mut self, now: Time, size: u16) -> Time {
        let Service::Rate(serialiser) = &mut self.service else {
            unreachable!("only a constant-rate link passes packets on");
        };
        now + serialiser.time(size as u64) + self.delay
    }

    /// Serves a packet that arrives at the far end at `arrival` (from
    /// [`Self::arrival_at_once`]) without keeping it: the world has queued it
    /// ahead into the next link. It counts as enqueued and dequeued at once; it
    /// never waits, so the queue's occupancy is the same.
    #[inline(always)]
    pub fn pass(&mut self, arrival: Time) {
        self.busy_until = arrival - self.delay;
        self.stats.enqueued += 1;
        self.stats.dequeued += 1;
    }

    /// Whether the link has random loss (a tandem's first link must not: its loss
    /// is judged and logged at the far-end arrival, which a passed packet skips).
    pub fn has_loss(&self) -> bool {
        self.loss.is_some()
    }

    /// Whether the link is served at a constant rate (not by a trace's slots).
    pub fn constant_rate(&self) -> bool {
        matches!(self.service, Service::Rate(_))
    }

    pub fn delay(&self) -> Time {
        self.delay
    }

    /// The head packet and when it reaches the far end.
    pub fn head(&self) -> Option<&(Time, Packet)> {
        self.pipe.front()
    }

    /// Bytes of the packets that reach the far end by `t`, `extra` added to each.
    pub fn bytes_arriving_by(&self, t: Time, extra: u64) -> u64 {
        self.pipe
            .iter()
            .take_while(|&(arrival, _)| arrival <= t)
            .map(|(_, pkt)| u64::from(pkt.size) + extra)
            .sum()
    }

    /// At least [`Self::bytes_arriving_by`], from the link's rate without reading the
    /// pipe; None for a link without one (a trace's slots, an infinite rate). The
    /// packets that arrive from the head's arrival to `t` left the serialiser one
    /// after another, each taking at least its bytes' time at the rate, so all
    /// but the first fit into that span; the first is at most `u16::MAX` bytes,
    /// and each of at most `pipe.len()` packets adds `extra`.
    pub fn bytes_arriving_bound(&self, t: Time, extra: u64) -> Option<u64> {
        let Service::Rate(serialiser) = &self.service else {
            return None;
        };
        let fs_per_byte = serialiser.fs_per_byte();
        if fs_per_byte == 0 {
            return None;
        }
        let Some(head) = self.head_time().filter(|&h| h <= t) else {
            return Some(0);
        };
        let behind_first = (t - head).saturating_mul(1_000_000) / fs_per_byte;
        let packets = self.pipe.len() as u64;
        Some(
            behind_first
                .saturating_add(u64::from(u16::MAX))
                .saturating_add(packets.saturating_mul(extra)),
        )
    }

    /// When the head packet reaches the far end.
    pub fn head_time(&self) -> Option<Time> {
        self.pipe.front().map(|&(t, _)| t)
    }

    /// Takes the head packet if it has arrived by `now`, with true when it was lost
    /// at the receiving end: [`Self::arrived_head`], then [`Self::take_head`], as the
    /// world does.
    #[cfg(test)]
    fn pop_arrived(&mut self, now: Time) -> Option<(Packet, bool)> {
        let lost = self.arrived_head(now)?;
        Some((self.take_head(), lost))
    }

    /// Whether the head packet has arrived by `now` (None if not, or if there is
    /// none), with true when it was lost at the receiving end; asked once per
    /// packet, as the loss model draws at each call. Judged in the queue's slot: a
    /// loss model reads it by reference, and a copy made for that call was copied
    /// again.
    #[inline(always)]
    pub fn arrived_head(&mut self, now: Time) -> Option<bool> {
        let (arrival, head) = self.pipe.front()?;
        if *arrival > now {
            return None;
        }
        let lost = self
            .loss
            .as_mut()
            .is_some_and(|loss| (self.loss_applies)(head) && loss.drops(head.size as u32));
        self.stats.dropped_random += u64::from(lost);
        Some(lost)
    }

    /// Takes the head packet, which [`Self::arrived_head`] found arrived. Apart from
    /// the judgement and always inlined, so that the world's arrival handler copies
    /// the packet once out of its slot: returned with its flag, or popped out by
    /// `pop_front`, it went through the stack once or twice more.
    #[inline(always)]
    pub fn take_head(&mut self) -> Packet {
        let &(arrival, pkt) = self.pipe.front().expect("a head arrived");
        self.pipe.drop_front(1);
        // The head has arrived, so it has been serialised: if `advance` had not yet
        // released it, release it now.
        match self.first_waiting {
            0 => {
                self.waiting_bytes -= pkt.size as u64;
                self.next_start = arrival - self.delay;
            }
            _ => self.first_waiting -= 1,
        }
        self.stats.dequeued += 1;
        pkt
    }

    /// The packet `i` places behind the head and when it reaches the far end.
    pub fn in_flight(&self, i: usize) -> &(Time, Packet) {
        &self.pipe[i]
    }

    /// The packet `i` places behind the head, if it has reached the far end by
    /// `now`. For a link without loss, whose arrived packets the world reads in
    /// place and then drops together ([`Self::drop_arrived`]).
    #[inline(always)]
    pub fn arrived(&self, i: usize, now: Time) -> Option<&(Time, Packet)> {
        self.pipe.get(i).filter(|&&(arrival, _)| arrival <= now)
    }

    /// Drops the first `n` packets, which have reached the far end and which the
    /// world has read in place ([`Self::arrived`]): [`Self::take_head`] `n` times.
    pub fn drop_arrived(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        if n <= self.first_waiting {
            self.first_waiting -= n;
        } else {
            // Those not yet released by `advance` have been serialised: release them.
            for i in self.first_waiting..n {
                self.waiting_bytes -= self.pipe[i].1.size as u64;
            }
            self.next_start = self.pipe[n - 1].0 - self.delay;
            self.first_waiting = 0;
        }
        self.pipe.drop_front(n);
        self.stats.dequeued += n as u64;
    }

    /// Drops the first `n` packets, which the world has handed on to the next link
    /// ahead of their arrival: [`Self::take_head`] `n` times, at once, for a link
    /// idle at `now`. All its packets have left the queue then, so none waits (and
    /// `next_start` is not read before a packet waits again).
    pub fn drop_handed_on(&mut self, now: Time, n: usize) {
        debug_assert!(self.idle_at(now));
        self.pipe.drop_front(n);
        self.first_waiting = self.pipe.len();
        self.waiting_bytes = 0;
        self.stats.dequeued += n as u64;
    }

    /// Queue occupancy at `now`: (bytes, packets) waiting for the serialiser.
    pub fn occupancy(&mut self, now: Time) -> (u64, u32) {
        if self.ahead_of(now) == 0 {
            self.advance(now);
            return (self.waiting_bytes, self.waiting_packets());
        }
        // The queue's state is ahead of `now`: count the entered packets that wait,
        // those whose predecessor is still being serialised (it departs its far-end
        // arrival less the delay). Departures grow along the pipe, so they are the
        // entered packets' tail.
        let entered = self.pipe.len() - self.ahead.len();
        let (mut bytes, mut packets) = (0, 0);
        for i in (1..entered).rev() {
            if self.pipe[i - 1].0 - self.delay <= now {
                break;
            }
            bytes += self.pipe[i].1.size as u64;
            packets += 1;
        }
        (bytes, packets)
    }

    /// Packets accepted but not yet out of the far end (queue + serialiser + wire).
    pub fn in_transit(&self) -> usize {
        self.pipe.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Body, Segment};

    fn pkt(size: u16) -> Packet {
        Packet {
            flow: 0,
            size,
            hop: 0,
            body: Body::Data(Segment {
                seq: 0,
                len: size as u32,
                ts_val: 0,
                retransmission: false,
            }),
        }
    }

    #[test]
    fn departure_is_serialisation_plus_delay_and_fifo() {
        let mut l = Link::new("l", 1e9, 10_000_000, QueueLimit::Unlimited);
        assert_eq!(
            l.enqueue(0, pkt(1500)),
            Verdict::Accepted { was_idle: true }
        );
        assert_eq!(
            l.enqueue(0, pkt(1500)),
            Verdict::Accepted { was_idle: false }
        );
        // 12 us each at 1 Gb/s; the second waits for the first.
        assert_eq!(l.head_time(), Some(12_000 + 10_000_000));
        assert!(l.pop_arrived(10_011_999).is_none());
        assert!(!l.pop_arrived(10_012_000).unwrap().1);
        assert_eq!(l.head_time(), Some(24_000 + 10_000_000));
    }

    #[test]
    fn idle_link_starts_at_arrival_not_at_old_busy_time() {
        let mut l = Link::new("l", 1e9, 0, QueueLimit::Unlimited);
        l.enqueue(0, pkt(1500));
        l.enqueue(1_000_000, pkt(1500));
        l.pop_arrived(12_000);
        assert_eq!(l.head_time(), Some(1_012_000));
    }

    #[test]
    fn drop_tail_in_bytes_excludes_the_packet_in_service() {
        let mut l = Link::new("l", 1e6, 0, QueueLimit::Bytes(3000));
        assert!(matches!(l.enqueue(0, pkt(1500)), Verdict::Accepted { .. })); // in service
        assert!(matches!(l.enqueue(0, pkt(1500)), Verdict::Accepted { .. })); // waiting 1500
        assert!(matches!(l.enqueue(0, pkt(1500)), Verdict::Accepted { .. })); // waiting 3000
        assert_eq!(l.enqueue(0, pkt(1500)), Verdict::Overflow);
        assert_eq!(l.occupancy(0), (3000, 2));
        // After the first finishes (12 ms at 1 Mb/s) the second is in service: room again.
        assert_eq!(l.occupancy(12_000_000), (1500, 1));
        assert!(matches!(
            l.enqueue(12_000_000, pkt(1500)),
            Verdict::Accepted { .. }
        ));
        assert_eq!(l.stats.dropped_overflow, 1);
        assert_eq!(l.stats.max_bytes, 3000);
    }

    #[test]
    fn a_packet_popped_before_any_occupancy_check_leaves_the_queue_count() {
        // Two packets wait behind a third; all arrive and are popped without any
        // enqueue or occupancy call in between: the queue must read empty after.
        let mut l = Link::new("l", 1e6, 0, QueueLimit::Bytes(10_000));
        for _ in 0..3 {
            l.enqueue(0, pkt(1000));
        }
        while l.pop_arrived(1_000_000_000).is_some() {}
        assert_eq!(l.occupancy(1_000_000_000), (0, 0));
        assert!(matches!(
            l.enqueue(1_000_000_000, pkt(1000)),
            Verdict::Accepted { was_idle: true }
        ));
    }

    #[test]
    fn dropping_arrived_packets_together_takes_them_one_by_one() {
        // 1 Mb/s, 5 ms: four packets offered at once, the last three waiting, with
        // no occupancy check before they arrive; and with one or all released.
        for released_at in [None, Some(9_000_000), Some(21_000_000)] {
            let queued = || {
                let mut l = Link::new("l", 1e6, 5_000_000, QueueLimit::Bytes(10_000));
                for size in [1000, 500, 1000, 700] {
                    l.enqueue(0, pkt(size));
                }
                if let Some(t) = released_at {
                    l.occupancy(t);
                }
                l
            };
            // By 25 ms the first three have reached the far end (13, 17, 25 ms).
            let now = 25_000_000;
            let (mut one_by_one, mut together) = (queued(), queued());
            let mut n = 0;
            while one_by_one.arrived(0, now).is_some() {
                assert_eq!(together.arrived(n, now), one_by_one.head());
                one_by_one.take_head();
                n += 1;
            }
            assert_eq!((n, together.arrived(n, now)), (3, None));
            together.drop_arrived(n);
            assert_eq!(together.stats, one_by_one.stats);
            assert_eq!(together.head(), one_by_one.head());
            for t in [now, 29_599_999, 29_600_000] {
                assert_eq!(together.occupancy(t), one_by_one.occupancy(t));
            }
            let next = |l: &mut Link| (l.enqueue(now, pkt(300)), l.in_flight(1).0);
            assert_eq!(next(&mut together), next(&mut one_by_one));
        }
    }

    #[test]
    fn a_waiting_packet_starts_when_the_one_before_it_is_serialised() {
        // 1 Mb/s and 5 ms of delay: 1000 bytes take 8 ms, 500 bytes 4 ms.
        let mut l = Link::new("l", 1e6, 5_000_000, QueueLimit::Unlimited);
        l.enqueue(0, pkt(1000)); // serialised 0-8 ms
        l.enqueue(0, pkt(500)); // waits, then 8-12 ms
        l.enqueue(0, pkt(1000)); // waits, then 12-20 ms
        assert_eq!(l.occupancy(7_999_999), (1500, 2));
        assert_eq!(l.occupancy(8_000_000), (1000, 1));
        assert_eq!(l.occupancy(11_999_999), (1000, 1));
        assert_eq!(l.occupancy(12_000_000), (0, 0));
    }

    #[test]
    fn a_packet_whose_predecessor_left_the_far_end_has_started() {
        let mut l = Link::new("l", 1e6, 5_000_000, QueueLimit::Unlimited);
        for size in [1000, 500, 1000] {
            l.enqueue(0, pkt(size));
        }
        // The first reaches the far end at 13 ms, with no occupancy check before:
        // the second (started at 8 ms) and the third (at 12 ms) no longer wait.
        assert!(l.pop_arrived(13_000_000).is_some());
        assert_eq!(l.occupancy(13_000_000), (0, 0));
    }

    /// A trace link of 1 ms slots offering `bytes` in turn, with `delay`.
    fn slots(bytes: &[u64], delay: Time, limit: QueueLimit) -> Link {
        Link::with_slots("t", 1_000_000, bytes.into(), delay, limit)
    }

    fn arrivals(l: &mut Link, now: Time) -> Vec<Time> {
        let mut times = Vec::new();
        while let Some(t) = l.head_time() {
            l.pop_arrived(t.max(now)).unwrap();
            times.push(t);
        }
        times
    }

    #[test]
    fn a_slot_serves_its_bytes_at_its_end_and_the_rest_spills_over() {
        // 3000 bytes per slot: two 1500-byte packets leave at the end of slot 0, the
        // third at the end of slot 1; the delay comes on top.
        let mut l = slots(&[3000, 3000], 5_000_000, QueueLimit::Unlimited);
        for _ in 0..3 {
            l.enqueue(200_000, pkt(1500));
        }
        assert_eq!(arrivals(&mut l, 0), vec![6_000_000, 6_000_000, 7_000_000]);
    }

    #[test]
    fn a_packet_spans_slots_and_empty_slots_serve_nothing() {
        // 1000 + 0 + 1000 bytes: a 1500-byte packet needs slots 0 and 2.
        let mut l = slots(&[1000, 0, 1000], 0, QueueLimit::Unlimited);
        l.enqueue(0, pkt(1500));
        l.enqueue(0, pkt(500));
        assert_eq!(arrivals(&mut l, 0), vec![3_000_000, 3_000_000]);
    }

    #[test]
    fn the_slots_loop_after_the_last() {
        // Slots 0, 1, 2 offer 1500, 0, 0 bytes: the trace repeats every 3 ms, so the
        // packets leave at the end of slots 0, 3 and 6.
        let mut l = slots(&[1500, 0, 0], 0, QueueLimit::Unlimited);
        for _ in 0..3 {
            l.enqueue(0, pkt(1500));
        }
        assert_eq!(arrivals(&mut l, 0), vec![1_000_000, 4_000_000, 7_000_000]);
        // Slot 9 (9 ms into the run) is slot 0 of the fourth period.
        l.enqueue(9_500_000, pkt(1500));
        assert_eq!(l.head_time(), Some(10_000_000));
    }

    #[test]
    fn an_idle_link_loses_its_slots_and_serves_from_the_arrival_slot() {
        let mut l = slots(&[3000], 0, QueueLimit::Unlimited);
        l.enqueue(0, pkt(1000));
        assert_eq!(arrivals(&mut l, 0), vec![1_000_000]);
        // Slots 1 to 4 went unused; a packet at 5.9 ms gets slot 5's bytes in full.
        l.enqueue(5_900_000, pkt(1500));
        l.enqueue(5_900_000, pkt(1500));
        assert_eq!(arrivals(&mut l, 0), vec![6_000_000, 6_000_000]);
    }

    #[test]
    fn a_trace_link_drops_the_tail_of_a_full_buffer() {
        // 1500 bytes per slot and room for 3000 waiting bytes: the first packet is in
        // service, two wait, the fourth is refused until the first leaves.
        let mut l = slots(&[1500], 0, QueueLimit::Bytes(3000));
        for _ in 0..3 {
            assert!(matches!(l.enqueue(0, pkt(1500)), Verdict::Accepted { .. }));
        }
        assert_eq!(l.enqueue(0, pkt(1500)), Verdict::Overflow);
        assert_eq!(l.occupancy(999_999), (3000, 2));
        assert_eq!(l.occupancy(1_000_000), (1500, 1));
        assert!(matches!(
            l.enqueue(1_000_000, pkt(1500)),
            Verdict::Accepted { .. }
        ));
        assert_eq!(
            arrivals(&mut l, 0),
            vec![1_000_000, 2_000_000, 3_000_000, 4_000_000]
        );
    }

    #[test]
    fn a_packet_queued_ahead_is_the_packet_queued_at_its_entry() {
        // A burst queues at a 1 Mb/s, 5 ms link with room for 3000 waiting bytes:
        // queued ahead at 0, or each at its entry, the far-end arrivals, occupancy
        // and statistics agree at every instant (except the packets not yet entered).
        let entries = [
            (1_000_000, 1000),
            (1_000_000, 500),
            (2_000_000, 1000),
            (9_000_000, 1000),
            (30_000_000, 1500),
        ];
        let link = || Link::new("l", 1e6, 5_000_000, QueueLimit::Bytes(3000));
        let mut ahead = link();
        for &(t, size) in &entries {
            assert!(ahead.enqueue_ahead(t, pkt(size)).is_some());
        }
        let mut one_by_one = link();
        let mut next = entries.iter().peekable();
        for now in (0..50_000_000).step_by(250_000) {
            while let Some(&&(t, size)) = next.peek().filter(|e| e.0 <= now) {
                one_by_one.enqueue(t, pkt(size));
                next.next();
            }
            assert_eq!(ahead.occupancy(now), one_by_one.occupancy(now), "{now}");
            let not_yet = ahead.ahead_of(now);
            assert_eq!(not_yet, next.len() as u64, "{now}");
            assert_eq!(ahead.stats_at(now), one_by_one.stats_at(now), "{now}");
            while one_by_one.head_time().is_some_and(|t| t <= now) {
                assert_eq!(ahead.head_time(), one_by_one.head_time());
                assert_eq!(ahead.pop_arrived(now), one_by_one.pop_arrived(now));
            }
        }
        assert_eq!(one_by_one.stats.max_bytes, 2000);
    }

    proptest::proptest! {
        /// A link settled now and then reads as one settled at every packet queued
        /// ahead, and its record stays within twice the most packets ever before
        /// their entry at once (plus 64).
        #[test]
        fn settling_now_and_then_reads_as_settling_always(
            offers in proptest::collection::vec((0u64..200_000, 40u16..1500, 0u64..20_000_000), 1..600),
            probe_every in 1usize..50,
        ) {
            let link = || Link::new("l", 1e8, 10_000_000, QueueLimit::Bytes(100_000));
            let (mut lazy, mut eager) = (link(), link());
            let (mut now, mut entries, mut most) = (0, Vec::<Time>::new(), 0);
            for (i, (gap, size, lead)) in offers.into_iter().enumerate() {
                now += gap;
                lazy.settle_now_and_then(now);
                eager.settle(now);
                let entry = entries.last().map_or(now, |&e| e.max(now + lead));
                let queued = lazy.enqueue_ahead(entry, pkt(size));
                proptest::prop_assert_eq!(queued, eager.enqueue_ahead(entry, pkt(size)));
                if queued.is_some() {
                    entries.push(entry);
                }
                most = most.max(entries.iter().filter(|&&e| e > now).count());
                proptest::prop_assert!(lazy.ahead.len() <= 2 * most + 64);
                proptest::prop_assert!(lazy.raised.len() <= lazy.ahead.len());
                if i % probe_every == 0 {
                    let probe = now + gap / 2;
                    proptest::prop_assert_eq!(lazy.stats_at(probe), eager.stats_at(probe));
                }
            }
        }
    }

    #[test]
    fn a_link_refuses_ahead_what_its_queue_would_drop() {
        let mut l = Link::new("l", 1e6, 0, QueueLimit::Bytes(1000));
        assert_eq!(l.enqueue_ahead(1_000_000, pkt(1000)), Some(true)); // served 1-9 ms
        assert_eq!(l.enqueue_ahead(2_000_000, pkt(1000)), Some(false)); // waits
        assert_eq!(l.enqueue_ahead(3_000_000, pkt(1000)), None);
        // Once the first is serialised the second is, and room is made.
        assert_eq!(l.enqueue_ahead(9_000_000, pkt(1000)), Some(false));
        assert_eq!((l.stats.enqueued, l.stats.dropped_overflow), (3, 0));
    }

    proptest::proptest! {
        /// The bound from the rate is never below the bytes the pipe holds for any
        /// instant, whatever the sizes, the offer times and the rate.
        #[test]
        fn the_rate_bounds_the_bytes_arriving(
            offers in proptest::collection::vec((0u64..50_000, 40u16..=u16::MAX), 1..60),
            rate in 1e6f64..1e11,
            extra in 0u64..100,
        ) {
            let mut l = Link::new("l", rate, 1_000_000, QueueLimit::Unlimited);
            let mut now = 0;
            for (gap, size) in offers {
                now += gap;
                l.enqueue(now, pkt(size));
            }
            let head = l.head_time().unwrap();
            for t in [0, head - 1, head, head + 1, head + 10_000, head + 1_000_000, now + 2_000_000] {
                let bound = l.bytes_arriving_bound(t, extra).unwrap();
                proptest::prop_assert!(bound >= l.bytes_arriving_by(t, extra), "{t}");
            }
        }
    }

    #[test]
    fn drop_tail_in_packets() {
        let mut l = Link::new("l", 1e6, 0, QueueLimit::Packets(1));
        l.enqueue(0, pkt(100));
        l.enqueue(0, pkt(100));
        assert_eq!(l.enqueue(0, pkt(100)), Verdict::Overflow);
    }

    #[test]
    fn random_loss_happens_at_the_far_end_and_only_for_selected_packets() {
        let always = LossModel::new(
            0.0,
            1.0,
            None,
            crate::engine::RngStreams::new(1).stream("x"),
        );
        let mut l =
            Link::new("l", 1e9, 0, QueueLimit::Unlimited).with_loss(always, |p| p.size > 100);
        l.enqueue(0, pkt(1500));
        l.enqueue(0, pkt(50));
        assert!(l.pop_arrived(1_000_000).unwrap().1);
        assert!(!l.pop_arrived(1_000_000).unwrap().1);
        assert_eq!(l.stats.dropped_random, 1);
        assert_eq!(l.stats.dequeued, 2);
    }
}
