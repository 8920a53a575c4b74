//! A paced writer's next wake-up kept out of the event queue when it comes before
//! everything else. Most of `urban`'s events are the 1 Gb/s writer's wake-ups,
//! three in four straight after another; each cost a push, a pop, the loop's scan
//! of the link heads and dispatch, and the timer's test. While the world runs a
//! writer's wake-up it opens the hold up to the radio's next instant and the run's
//! end; a wake-up set during it that goes strictly before those, the queue's
//! earliest entry and every link head (all of which win a tie: they were scheduled
//! first, or are links) is held instead, and the world runs it next, at its own time.

use crate::engine::Time;

pub(super) struct WakeHold {
    /// Wake-ups strictly before this may be held; 0 while no wake-up runs.
    before: Time,
    /// The wake-up held, if any.
    held: Option<Time>,
    /// Wake-ups held and run, counted with the run's events.
    pub(super) taken: u64,
}

impl WakeHold {
    pub(super) fn new() -> Self {
        Self {
            before: 0,
            held: None,
            taken: 0,
        }
    }

    /// Opens the hold while a writer's wake-up runs: nothing at or after `before`
    /// (the radio's next instant, the run's end) may be passed.
    #[inline]
    pub(super) fn open(&mut self, before: Time) {
        self.before = before;
    }

    /// Holds a wake-up at `t` if it goes before `queue_next`, every one of
    /// `link_heads` and the bound of [`Self::open`], with no packet `pending` for
    /// after the event (the radio's first hops, refusals: handling them may
    /// schedule what goes first). False, with nothing held, otherwise.
    #[inline]
    pub(super) fn offer(
        &mut self,
        t: Time,
        queue_next: Time,
        link_heads: &[Time],
        pending: bool,
    ) -> bool {
        let first = t < self.before.min(queue_next) && link_heads.iter().all(|&h| t < h);
        if first && !pending && self.held.is_none() {
            self.held = Some(t);
            return true;
        }
        false
    }

    /// Closes the hold once the wake-up has run and takes the wake-up it held.
    #[inline]
    pub(super) fn take(&mut self) -> Option<Time> {
        self.before = 0;
        let held = self.held.take();
        self.taken += u64::from(held.is_some());
        held
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only a wake-up strictly before all else is held: at a tie the link, the
    /// queue's entry or the radio (scheduled earlier) goes first.
    #[test]
    fn holds_only_what_goes_strictly_first() {
        let mut h = WakeHold::new();
        let heads = [30, Time::MAX];
        // Closed: nothing is held.
        assert!(!h.offer(10, 20, &heads, false));
        h.open(100);
        // (t, the queue's earliest): a link's head, then the queue's entry, come first.
        for (t, queue_next) in [(30, 40), (31, 40), (20, 20), (21, 20)] {
            assert!(!h.offer(t, queue_next, &heads, false), "{t}");
        }
        assert!(!h.offer(10, 20, &heads, true), "a packet is pending");
        // The bound of `open` (the radio's next instant) comes first.
        h.open(25);
        assert!(!h.offer(25, 40, &heads, false));
        assert!(h.offer(24, 25, &heads, false));
        assert!(!h.offer(11, 25, &heads, false), "one held at a time");
        assert_eq!((h.take(), h.taken), (Some(24), 1));
        // Taking closes the hold.
        assert!(!h.offer(10, 20, &heads, false));
        assert_eq!((h.take(), h.taken), (None, 1));
    }
}
