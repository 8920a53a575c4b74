//! The channel states an end's transport blocks meet, by the TBs' air time.
//!
//! Under a profile whose scheduler decides each subframe ahead of its air time
//! (`Profile::downlink_lead`), the radio evaluates the channel for the air time of the
//! subframes it decides next: a state found at `now` holds from `now + lead` on. A
//! downlink TB is built at its subframe's decision and meets the newest state. An
//! uplink TB is built later, when the UE fills its grant a subframe before the air,
//! and by then the radio may have found a state for later subframes: the TB meets the
//! newest state begun by its own air time, which these few states keep.

use crate::engine::Time;

/// States kept: enough for every state begun within a subframe's fill lead (a channel
/// update and a clearing in one slot, the update before them).
const KEPT: usize = 4;

/// The last few states of a channel, each with the air time it holds from.
#[derive(Debug, Clone, Copy)]
pub struct AirStates<T> {
    /// A ring of (from, state), the newest at `newest`.
    states: [(Time, T); KEPT],
    newest: usize,
    len: usize,
}

impl<T: Copy> AirStates<T> {
    /// `initial` holds from time 0.
    pub fn new(initial: T) -> Self {
        AirStates {
            states: [(0, initial); KEPT],
            newest: 0,
            len: 1,
        }
    }

    /// `state` holds for TBs on the air from `from`, no earlier than the newest state
    /// began; one beginning at the same instant replaces it.
    pub fn begin(&mut self, from: Time, state: T) {
        let newest = &mut self.states[self.newest];
        debug_assert!(from >= newest.0, "states begin in time order");
        if from == newest.0 {
            newest.1 = state;
            return;
        }
        self.newest = (self.newest + 1) % KEPT;
        self.states[self.newest] = (from, state);
        self.len = (self.len + 1).min(KEPT);
    }

    /// The state begun last.
    pub fn newest(&self) -> T {
        self.states[self.newest].1
    }

    /// The state a TB on the air at `air` meets: the newest begun by then (the oldest
    /// kept when none had).
    pub fn at(&self, air: Time) -> T {
        let mut k = self.newest;
        for _ in 1..self.len {
            if self.states[k].0 <= air {
                return self.states[k].1;
            }
            k = (k + KEPT - 1) % KEPT;
        }
        self.states[k].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tb_meets_the_newest_state_begun_by_its_air_time() {
        let mut states = AirStates::new('a');
        states.begin(125, 'b');
        states.begin(250, 'c');
        assert_eq!(states.newest(), 'c');
        assert_eq!(
            [0, 124, 125, 249, 250, 10_000].map(|air| states.at(air)),
            ['a', 'a', 'b', 'b', 'c', 'c']
        );
    }

    #[test]
    fn a_state_begun_at_the_same_instant_replaces_the_newest() {
        let mut states = AirStates::new(0);
        states.begin(200, 1);
        states.begin(200, 2);
        assert_eq!((states.at(199), states.at(200)), (0, 2));
    }

    #[test]
    fn past_the_kept_states_the_oldest_answers() {
        let mut states = AirStates::new(0);
        for k in 1..=6 {
            states.begin(k * 100, k);
        }
        // States 3..=6 are kept; air times before 300 get the oldest of them.
        assert_eq!(
            [0, 299, 300, 450, 600].map(|air| states.at(air)),
            [3, 3, 3, 4, 6]
        );
    }
}
