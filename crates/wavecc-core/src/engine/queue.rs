//! A binary-heap event queue ordered by (time, insertion order), so that events at
//! the same instant run in the order they were scheduled: deterministic by design.
//!
//! The heap stays small: components schedule one wake-up each (a link its head
//! packet, a sender its next timer), not one entry per packet in flight.

use super::Time;

/// The heap's entries are compared by (time, seq) only; `seq` is unique, so the
/// order is total and any correct heap pops the same sequence.
#[derive(Clone, Copy)]
struct Entry<E> {
    time: Time,
    seq: u64,
    event: E,
}

impl<E> Entry<E> {
    fn before(&self, other: &Self) -> bool {
        (self.time, self.seq) < (other.time, other.seq)
    }
}

/// A binary min-heap of its own rather than `std::collections::BinaryHeap`: std's
/// push writes the new entry and then reads it back to sift it up, and with a
/// small enum as the event that read straddles two narrower stores and stalls on
/// store forwarding (a quarter of `Sender::send` in the mmWave profile). Here the
/// new entry is sifted up from registers and written once, where it lands.
///
/// In front of the heap sits one slot for an entry earlier than all of the heap's:
/// a wake-up scheduled ahead of everything else (an application writing every
/// 11.2 us, a pacer) goes in and out of it without a sift either way. Entries still
/// come out in (time, seq) order, so the slot changes nothing but the cost.
pub struct EventQueue<E> {
    front: Option<Entry<E>>,
    heap: Vec<Entry<E>>,
    /// Time of the earliest entry (`Time::MAX` when empty), read once per event.
    next_time: Time,
    next_seq: u64,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self {
            front: None,
            heap: Vec::new(),
            next_time: Time::MAX,
            next_seq: 0,
            popped: 0,
        }
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn push(&mut self, time: Time, event: E) {
        let entry = Entry {
            time,
            seq: self.next_seq,
            event,
        };
        self.next_seq += 1;
        self.next_time = self.next_time.min(time);
        match self.front {
            None if self.heap.first().is_none_or(|top| entry.before(top)) => {
                self.front = Some(entry)
            }
            Some(front) if entry.before(&front) => {
                self.heap_push(front);
                self.front = Some(entry);
            }
            _ => self.heap_push(entry),
        }
    }

    fn heap_push(&mut self, entry: Entry<E>) {
        let mut pos = self.heap.len();
        self.heap.push(entry);
        while pos > 0 {
            let parent = (pos - 1) / 2;
            if !entry.before(&self.heap[parent]) {
                break;
            }
            self.heap[pos] = self.heap[parent];
            pos = parent;
        }
        self.heap[pos] = entry;
    }

    /// Inlined, so that an entry out of the front slot (most of a paced writer's
    /// wake-ups) skips the call and the register saves of the heap's sift.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        if let Some(front) = self.front.take() {
            self.popped += 1;
            self.next_time = self.heap.first().map_or(Time::MAX, |e| e.time);
            return Some((front.time, front.event));
        }
        self.heap_pop()
    }

    #[inline(never)]
    fn heap_pop(&mut self) -> Option<(Time, E)> {
        let last = self.heap.pop()?;
        self.popped += 1;
        if self.heap.is_empty() {
            self.next_time = Time::MAX;
            return Some((last.time, last.event));
        }
        let top = self.heap[0];
        // Sift `last` down from the root: move the earlier child up until `last`
        // goes before both children.
        let n = self.heap.len();
        let mut pos = 0;
        loop {
            let mut child = 2 * pos + 1;
            if child >= n {
                break;
            }
            if child + 1 < n && self.heap[child + 1].before(&self.heap[child]) {
                child += 1;
            }
            if !self.heap[child].before(&last) {
                break;
            }
            self.heap[pos] = self.heap[child];
            pos = child;
        }
        self.heap[pos] = last;
        self.next_time = self.heap[0].time;
        Some((top.time, top.event))
    }

    /// Takes the insertion number of an entry its owner keeps outside the queue,
    /// so that it orders with the queue's entries (see [`Self::next_key`]) as if
    /// pushed now.
    pub fn stamp(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq - 1
    }

    /// The earliest entry's (time, insertion number), `(Time::MAX, u64::MAX)` when
    /// the queue is empty: an entry kept outside with a smaller key goes first.
    pub fn next_key(&self) -> (Time, u64) {
        self.front
            .as_ref()
            .or(self.heap.first())
            .map_or((Time::MAX, u64::MAX), |e| (e.time, e.seq))
    }

    pub fn peek_time(&self) -> Option<Time> {
        (!self.is_empty()).then_some(self.next_time)
    }

    /// The earliest entry's time, `Time::MAX` when the queue is empty.
    pub fn next_time(&self) -> Time {
        self.next_time
    }

    /// Events handed out so far (the `events` figure of a run summary).
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    pub fn len(&self) -> usize {
        self.heap.len() + usize::from(self.front.is_some())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A restartable timer that never removes entries from the heap.
///
/// TCP re-arms its retransmission timer on almost every ACK; pushing a heap entry
/// each time would flood the queue. Instead the timer remembers its `deadline` and
/// the time of the one heap entry it owns (`armed`). Moving the deadline later costs
/// nothing; when the entry fires early, [`Timer::fire`] re-arms it at the deadline.
#[derive(Debug, Default, Clone)]
pub struct Timer {
    deadline: Option<Time>,
    armed: Option<Time>,
}

impl Timer {
    pub fn deadline(&self) -> Option<Time> {
        self.deadline
    }

    pub fn is_set(&self) -> bool {
        self.deadline.is_some()
    }

    /// Neither set nor with an entry in the queue: a wake-up run without it
    /// (`Outbox::hold_wake`) leaves it as setting and firing it would.
    pub fn is_idle(&self) -> bool {
        self.deadline.is_none() && self.armed.is_none()
    }

    /// Sets the deadline, pushing a heap entry only when the current one would be late.
    #[inline]
    pub fn set<E: Copy>(&mut self, deadline: Time, queue: &mut EventQueue<E>, event: E) {
        self.deadline = Some(deadline);
        if self.armed.is_none_or(|a| a > deadline) {
            queue.push(deadline, event);
            self.armed = Some(deadline);
        }
    }

    pub fn cancel(&mut self) {
        self.deadline = None;
    }

    /// Called when a heap entry of this timer pops at `now`; true when the timer
    /// really expires now. Stale entries return false; an entry that fires before
    /// a deadline that moved later re-arms itself.
    #[inline]
    pub fn fire<E: Copy>(&mut self, now: Time, queue: &mut EventQueue<E>, event: E) -> bool {
        if self.armed != Some(now) {
            return false;
        }
        self.armed = None;
        match self.deadline {
            Some(d) if d > now => {
                queue.push(d, event);
                self.armed = Some(d);
                false
            }
            Some(_) => {
                self.deadline = None;
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_insertion_order() {
        let mut q = EventQueue::default();
        q.push(5, 'a');
        q.push(1, 'b');
        q.push(5, 'c');
        q.push(3, 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
        assert_eq!(q.events_processed(), 4);
    }

    proptest::proptest! {
        /// Pops in (time, insertion) order under any mix of pushes and pops, as a
        /// sorted reference list does.
        #[test]
        fn matches_a_sorted_list(ops in proptest::collection::vec(proptest::option::of(0u64..20), 0..300)) {
            let (mut q, mut reference) = (EventQueue::default(), Vec::new());
            for (i, op) in ops.into_iter().enumerate() {
                match op {
                    Some(t) => {
                        q.push(t, i);
                        reference.push((t, i));
                        reference.sort();
                    }
                    None => {
                        let expected = (!reference.is_empty()).then(|| reference.remove(0));
                        proptest::prop_assert_eq!(q.pop(), expected);
                    }
                }
                proptest::prop_assert_eq!(q.peek_time(), reference.first().map(|e| e.0));
                proptest::prop_assert_eq!(q.next_time(), reference.first().map_or(Time::MAX, |e| e.0));
                proptest::prop_assert_eq!(q.len(), reference.len());
            }
        }
    }

    /// Drives a timer through its queue, returning the times at which it expired.
    fn expiries(q: &mut EventQueue<()>, t: &mut Timer) -> Vec<Time> {
        let mut out = vec![];
        while let Some((now, ())) = q.pop() {
            if t.fire(now, q, ()) {
                out.push(now);
            }
        }
        out
    }

    #[test]
    fn timer_moved_later_fires_once_at_new_deadline() {
        let mut q = EventQueue::default();
        let mut t = Timer::default();
        t.set(10, &mut q, ());
        t.set(20, &mut q, ());
        t.set(30, &mut q, ());
        assert_eq!(q.len(), 1, "moving a deadline later must not push entries");
        assert_eq!(expiries(&mut q, &mut t), vec![30]);
    }

    #[test]
    fn timer_moved_earlier_fires_early_and_stale_entry_is_ignored() {
        let mut q = EventQueue::default();
        let mut t = Timer::default();
        t.set(30, &mut q, ());
        t.set(10, &mut q, ());
        assert_eq!(expiries(&mut q, &mut t), vec![10]);
    }

    #[test]
    fn cancelled_timer_never_fires() {
        let mut q = EventQueue::default();
        let mut t = Timer::default();
        t.set(10, &mut q, ());
        t.cancel();
        assert!(expiries(&mut q, &mut t).is_empty());
        assert!(!t.is_set());
    }
}
