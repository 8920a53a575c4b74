//! The radio's pending slot, landings and channel update, kept beside the event
//! queue rather than in it: a slot every 125 us and the landings inside it were
//! about a fifth of the heap's entries, and each one cost a sift in and out and
//! pushed the paced writer's wake-ups out of the queue's front slot; so did the
//! channel update, every 125 us under `ns3-mmwave`. Each still carries an insertion
//! number of the queue ([`EventQueue::stamp`]), so events at one instant keep their
//! order.

use crate::engine::{EventQueue, Time};

/// (time, insertion number): the order the queue gives its entries.
type Key = (Time, u64);

const NONE: Key = (Time::MAX, u64::MAX);

/// What the radio does at its next instant.
pub(super) enum RadioTick {
    Slot,
    Landing,
    ChannelUpdate,
}

pub(super) struct RadioTimes {
    /// The pending slot, or `NONE`.
    slot: Key,
    /// The pending channel update, or `NONE`.
    update: Key,
    /// The pending landings, latest first (taken from the back).
    landings: Vec<Key>,
    /// The earliest of the slot, the update and the landings, or `NONE`.
    next: Key,
    /// Ticks handed out, counted with the run's events.
    pub(super) ticks: u64,
}

impl RadioTimes {
    pub(super) fn new() -> Self {
        Self {
            slot: NONE,
            update: NONE,
            landings: Vec::new(),
            next: NONE,
            ticks: 0,
        }
    }

    /// When the radio next acts, `Time::MAX` if it has nothing pending.
    #[inline]
    pub(super) fn next_time(&self) -> Time {
        self.next.0
    }

    /// Whether the radio's next instant goes before the queue's earliest entry, at
    /// the same time as or later than it.
    #[inline]
    pub(super) fn goes_before<E: Copy>(&self, queue: &EventQueue<E>) -> bool {
        self.next < queue.next_key()
    }

    /// Schedules the next slot at `t` (none may be pending).
    pub(super) fn set_slot<E: Copy>(&mut self, t: Time, queue: &mut EventQueue<E>) {
        debug_assert_eq!(self.slot, NONE, "one slot pending at a time");
        self.slot = (t, queue.stamp());
        self.next = self.next.min(self.slot);
    }

    /// Schedules the next channel update at `t` (none may be pending).
    pub(super) fn set_update<E: Copy>(&mut self, t: Time, queue: &mut EventQueue<E>) {
        debug_assert_eq!(self.update, NONE, "one update pending at a time");
        self.update = (t, queue.stamp());
        self.next = self.next.min(self.update);
    }

    /// Schedules landings at `times`, ascending and distinct, in that order.
    pub(super) fn add_landings<E: Copy>(&mut self, times: &[Time], queue: &mut EventQueue<E>) {
        if times.is_empty() {
            return;
        }
        // Landings left from an earlier slot are all earlier, except after a slot
        // scheduled again at the same instant: then they are merged by key.
        let merge = self.landings.first().is_some_and(|&k| k.0 > times[0]);
        let old = self.landings.len();
        self.landings
            .extend(times.iter().map(|&t| (t, queue.stamp())));
        self.landings[old..].reverse();
        if merge {
            self.landings.sort_unstable_by(|a, b| b.cmp(a));
        } else if old > 0 {
            self.landings.rotate_right(times.len());
        }
        self.next = self.next.min(*self.landings.last().expect("just added"));
    }

    /// Takes the radio's next instant, which has come.
    pub(super) fn take(&mut self) -> RadioTick {
        self.ticks += 1;
        let tick = if self.slot == self.next {
            self.slot = NONE;
            RadioTick::Slot
        } else if self.update == self.next {
            self.update = NONE;
            RadioTick::ChannelUpdate
        } else {
            self.landings.pop();
            RadioTick::Landing
        };
        let landing = self.landings.last().copied().unwrap_or(NONE);
        self.next = self.slot.min(self.update).min(landing);
        tick
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The queue's order over its own entries and the radio's, as one queue gives.
    #[test]
    fn ties_keep_the_order_of_scheduling() {
        let mut q = EventQueue::<char>::default();
        let mut r = RadioTimes::new();
        q.push(10, 'a');
        r.set_slot(10, &mut q);
        r.set_update(5, &mut q);
        q.push(10, 'b');
        r.add_landings(&[5, 10], &mut q);
        // A second batch at the same instants goes after the first.
        r.add_landings(&[5], &mut q);
        let mut order = String::new();
        while r.next_time() < Time::MAX || !q.is_empty() {
            if r.next_time() < Time::MAX && r.goes_before(&q) {
                order.push(match r.take() {
                    RadioTick::Slot => 'S',
                    RadioTick::Landing => 'L',
                    RadioTick::ChannelUpdate => 'U',
                });
            } else {
                order.push(q.pop().expect("not empty").1);
            }
        }
        assert_eq!(order, "ULLaSbL");
        assert_eq!(r.ticks, 5);
    }
}
