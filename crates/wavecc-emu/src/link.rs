//! One direction of the emulated path: what it does to each packet offered to it.
//!
//! The order is the simulator's (`wavecc-core`'s wire): a drop-tail buffer refuses a
//! packet that does not fit; an accepted packet is served by the capacity in FIFO
//! order, then crosses the one-way delay; random loss strikes after service (a lost
//! packet used its share of the capacity, as on a real link). Because the queue is
//! FIFO and the capacity is known in advance, a packet's delivery time is fixed the
//! moment it is accepted, so the forwarder only keeps a delay line.

use std::collections::VecDeque;

use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

/// How fast the link serves its queue.
#[derive(Clone, Debug, PartialEq)]
pub enum Capacity {
    /// No limit: a packet leaves the moment it arrives.
    Unlimited,
    /// A constant rate in bits per second (of IP packets).
    Rate { bps: f64 },
    /// Delivery opportunities: `bytes[i]` may leave in slot i (of `slot_ns`), looping
    /// over the list. A packet leaves at the end of the slot that serves its last byte;
    /// a slot's unused bytes are lost (an idle radio wastes its opportunities).
    Slots { slot_ns: u64, bytes: Vec<u64> },
}

/// I.i.d. random loss: per packet with `per_packet`, and per byte with `per_byte` (a
/// packet of L bytes is lost with 1 - (1 - p)^L, as the simulator's `path.loss.per_byte`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Loss {
    pub per_packet: f64,
    pub per_byte: f64,
}

impl Loss {
    /// The probability that a packet of `len` bytes is lost.
    pub fn probability(&self, len: usize) -> f64 {
        let kept = (1.0 - self.per_packet) * (1.0 - self.per_byte).powi(len as i32);
        1.0 - kept
    }
}

/// Everything one direction applies.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkParams {
    pub capacity: Capacity,
    pub delay_ns: u64,
    /// Drop-tail buffer in bytes (the packet in service included); None: unbounded.
    pub buffer_bytes: Option<u64>,
    pub loss: Loss,
}

/// What became of an offered packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Delivered to the far end at `at_ns` (the link's clock).
    Deliver { at_ns: u64 },
    /// Refused by the full buffer.
    Overflow,
    /// Served, then lost at random.
    Lost,
}

/// Counters of one direction, cumulative.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub offered: u64,
    pub delivered: u64,
    pub overflow: u64,
    pub lost: u64,
    /// The most bytes the buffer held.
    pub max_bytes: u64,
}

const NO_SLOT: u64 = u64::MAX;

pub struct Link {
    params: LinkParams,
    rng: Xoshiro256PlusPlus,
    /// (departure time, length) of the packets still in the buffer.
    queue: VecDeque<(u64, u64)>,
    queued_bytes: u64,
    /// Rate: when the last accepted packet finishes service, in (fractional) ns, so
    /// that rounding does not drift the rate.
    busy_until_ns: f64,
    /// Slots: the slot serving the queue's tail (`NO_SLOT` before the first packet)
    /// and the bytes it has left.
    slot: u64,
    slot_left: u64,
    /// Slots: when slot 0 begins (the trace's time 0), on the clock `offer` is given.
    epoch_ns: u64,
    pub counters: Counters,
}

impl Link {
    pub fn new(params: LinkParams, seed: u64) -> Link {
        Link {
            params,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            queue: VecDeque::new(),
            queued_bytes: 0,
            busy_until_ns: 0.0,
            slot: NO_SLOT,
            slot_left: 0,
            epoch_ns: 0,
            counters: Counters::default(),
        }
    }

    /// The link with its trace's slot 0 beginning at `epoch_ns` (default 0), so that
    /// a run replays the trace from its start as the simulator does, whatever the
    /// clock read when the run began.
    pub fn starting_at(mut self, epoch_ns: u64) -> Link {
        self.epoch_ns = epoch_ns;
        self
    }

    /// Offers a packet of `len` bytes arriving at `now_ns` (non-decreasing over calls).
    pub fn offer(&mut self, now_ns: u64, len: usize) -> Verdict {
        self.counters.offered += 1;
        self.release(now_ns);
        let len = len as u64;
        if self
            .params
            .buffer_bytes
            .is_some_and(|cap| self.queued_bytes + len > cap)
        {
            self.counters.overflow += 1;
            return Verdict::Overflow;
        }
        let departure = self.serve(now_ns, len);
        self.queue.push_back((departure, len));
        self.queued_bytes += len;
        self.counters.max_bytes = self.counters.max_bytes.max(self.queued_bytes);
        if self.uniform() < self.params.loss.probability(len as usize) {
            self.counters.lost += 1;
            return Verdict::Lost;
        }
        self.counters.delivered += 1;
        Verdict::Deliver {
            at_ns: departure + self.params.delay_ns,
        }
    }

    /// Bytes and packets in the buffer at `now_ns`.
    pub fn backlog(&mut self, now_ns: u64) -> (u64, u64) {
        self.release(now_ns);
        (self.queued_bytes, self.queue.len() as u64)
    }

    /// Forgets the packets that have left the buffer by `now_ns`.
    fn release(&mut self, now_ns: u64) {
        while let Some(&(departure, len)) = self.queue.front() {
            if departure > now_ns {
                break;
            }
            self.queue.pop_front();
            self.queued_bytes -= len;
        }
    }

    /// The departure time of `len` bytes accepted at `now_ns`, after those queued.
    fn serve(&mut self, now_ns: u64, len: u64) -> u64 {
        match &self.params.capacity {
            Capacity::Unlimited => now_ns,
            Capacity::Rate { bps } => {
                let start = self.busy_until_ns.max(now_ns as f64);
                self.busy_until_ns = start + len as f64 * 8e9 / bps;
                self.busy_until_ns.ceil() as u64
            }
            Capacity::Slots { slot_ns, bytes } => {
                let (slot_ns, bytes) = (*slot_ns, bytes);
                let now_slot = now_ns.saturating_sub(self.epoch_ns) / slot_ns;
                if self.slot == NO_SLOT || self.slot < now_slot {
                    self.slot = now_slot;
                    self.slot_left = bytes[(now_slot % bytes.len() as u64) as usize];
                }
                let mut remaining = len;
                loop {
                    let take = remaining.min(self.slot_left);
                    remaining -= take;
                    self.slot_left -= take;
                    if remaining == 0 {
                        break;
                    }
                    self.slot += 1;
                    self.slot_left = bytes[(self.slot % bytes.len() as u64) as usize];
                }
                self.epoch_ns + (self.slot + 1) * slot_ns
            }
        }
    }

    /// A uniform draw in [0, 1).
    fn uniform(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn link(capacity: Capacity, delay_ns: u64, buffer_bytes: Option<u64>, loss: Loss) -> Link {
        Link::new(
            LinkParams {
                capacity,
                delay_ns,
                buffer_bytes,
                loss,
            },
            7,
        )
    }

    fn at(verdict: Verdict) -> u64 {
        match verdict {
            Verdict::Deliver { at_ns } => at_ns,
            other => panic!("expected a delivery, got {other:?}"),
        }
    }

    #[test]
    fn a_rate_serves_packets_back_to_back_then_adds_the_delay() {
        // 1500 bytes at 12 Mb/s take 1 ms.
        let mut l = link(Capacity::Rate { bps: 12e6 }, 10 * MS, None, Loss::default());
        assert_eq!(at(l.offer(0, 1500)), 11 * MS);
        assert_eq!(at(l.offer(0, 1500)), 12 * MS);
        assert_eq!(at(l.offer(MS / 2, 1500)), 13 * MS);
        // After an idle stretch service starts at the arrival, not where it stopped.
        assert_eq!(at(l.offer(20 * MS, 750)), 20 * MS + MS / 2 + 10 * MS);
    }

    #[test]
    fn a_rate_does_not_drift_over_many_packets() {
        // 100 Mb/s: 1500 bytes take 120 us; a million packets take exactly 120 s.
        let mut l = link(Capacity::Rate { bps: 1e8 }, 0, None, Loss::default());
        let mut last = 0;
        for _ in 0..1_000_000 {
            last = at(l.offer(0, 1500));
        }
        assert_eq!(last, 120_000 * MS);
    }

    #[test]
    fn the_buffer_drops_the_tail_and_frees_space_as_packets_leave() {
        let mut l = link(Capacity::Rate { bps: 12e6 }, 0, Some(3000), Loss::default());
        assert_eq!(at(l.offer(0, 1500)), MS);
        assert_eq!(at(l.offer(0, 1500)), 2 * MS);
        assert_eq!(l.offer(0, 1500), Verdict::Overflow);
        assert_eq!(
            l.offer(MS - 1, 1),
            Verdict::Overflow,
            "3000 bytes still queued"
        );
        assert_eq!(l.backlog(MS), (1500, 1));
        assert_eq!(at(l.offer(MS, 1500)), 3 * MS);
        assert_eq!(
            l.counters,
            Counters {
                offered: 5,
                delivered: 3,
                overflow: 2,
                lost: 0,
                max_bytes: 3000
            }
        );
    }

    #[test]
    fn slots_deliver_at_the_end_of_the_slot_that_serves_the_last_byte() {
        let slots = Capacity::Slots {
            slot_ns: MS,
            bytes: vec![3000, 0, 1500],
        };
        let mut l = link(slots, 5 * MS, None, Loss::default());
        assert_eq!(at(l.offer(0, 1500)), MS + 5 * MS);
        assert_eq!(
            at(l.offer(MS / 2, 1500)),
            MS + 5 * MS,
            "the slot's bytes serve a late arrival"
        );
        assert_eq!(
            at(l.offer(MS / 2, 1500)),
            3 * MS + 5 * MS,
            "slot 1 offers nothing"
        );
        assert_eq!(
            at(l.offer(MS / 2, 1000)),
            4 * MS + 5 * MS,
            "the trace loops"
        );
        // A packet spanning slots leaves with the slot of its last byte.
        assert_eq!(at(l.offer(MS / 2, 3000)), 6 * MS + 5 * MS);
    }

    #[test]
    fn a_trace_starts_at_its_links_epoch() {
        let slots = Capacity::Slots {
            slot_ns: MS,
            bytes: vec![1500, 0, 0, 0],
        };
        let epoch = 1_000 * MS + MS / 2;
        let mut l = link(slots, 0, None, Loss::default()).starting_at(epoch);
        // Slot 0 begins at the epoch: a packet then leaves at its end, the next one
        // waits for slot 0 of the next period.
        assert_eq!(at(l.offer(epoch, 1500)), epoch + MS);
        assert_eq!(at(l.offer(epoch, 1500)), epoch + 5 * MS);
    }

    #[test]
    fn slots_left_idle_are_not_carried_over() {
        let slots = Capacity::Slots {
            slot_ns: MS,
            bytes: vec![1500, 1500],
        };
        let mut l = link(slots, 0, None, Loss::default());
        assert_eq!(at(l.offer(0, 1500)), MS);
        // Slots 1 to 9 went unused: at 10.5 ms only slot 10's bytes are there.
        assert_eq!(at(l.offer(10 * MS + MS / 2, 1500)), 11 * MS);
        assert_eq!(at(l.offer(10 * MS + MS / 2, 1500)), 12 * MS);
    }

    #[test]
    fn per_packet_loss_strikes_at_its_probability_after_service() {
        let mut l = link(
            Capacity::Rate { bps: 12e6 },
            0,
            None,
            Loss {
                per_packet: 0.1,
                per_byte: 0.0,
            },
        );
        let n = 200_000;
        let lost = (0..n).filter(|_| l.offer(0, 1500) == Verdict::Lost).count();
        let rate = lost as f64 / n as f64;
        assert!((rate - 0.1).abs() < 0.003, "lost {rate}");
        // Lost packets were served: the next one waits behind all n of them.
        assert_eq!(
            l.offer(0, 1500),
            Verdict::Deliver {
                at_ns: (n as u64 + 1) * MS
            }
        );
    }

    #[test]
    fn per_byte_loss_grows_with_the_packet_length() {
        let loss = Loss {
            per_packet: 0.0,
            per_byte: 1e-4,
        };
        assert!((loss.probability(1500) - (1.0 - 0.9999f64.powi(1500))).abs() < 1e-12);
        let mut l = link(Capacity::Unlimited, 0, None, loss);
        let n = 100_000;
        let big = (0..n).filter(|_| l.offer(0, 1500) == Verdict::Lost).count() as f64 / n as f64;
        let small = (0..n).filter(|_| l.offer(0, 60) == Verdict::Lost).count() as f64 / n as f64;
        assert!((big - 0.1393).abs() < 0.005, "1500 bytes lost {big}");
        assert!((small - 0.006).abs() < 0.0015, "60 bytes lost {small}");
    }

    #[test]
    fn an_unlimited_link_only_delays() {
        let mut l = link(Capacity::Unlimited, 3 * MS, None, Loss::default());
        assert_eq!(at(l.offer(0, 1500)), 3 * MS);
        assert_eq!(at(l.offer(0, 1500)), 3 * MS);
    }
}
