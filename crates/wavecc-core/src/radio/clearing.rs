//! Blocked paths that clear between two channel updates, for a profile whose
//! transmissions judge LoS at their own instant while its blockage counters move only
//! at the updates (`ChannelModel::loss_if_cleared_db`): at an update that finds a
//! moving UE's serving path blocked, the UE's trajectory says whether the path is clear
//! at the next update and, if so, when it clears.

use crate::engine::Time;

/// A clearing found at a channel update: the slots in [`from`, `until`) decide TBs
/// that go on the air between the instant UE `ue`'s serving path clears and the next
/// update of the blockage counters; on its serving link they meet a gain `rise_db`
/// higher than the update's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clearing {
    pub ue: usize,
    pub from: Time,
    pub until: Time,
    pub rise_db: f64,
    /// The UE's downlink and uplink SINRs before a slot of the clearing raised them.
    pub raised_from: Option<(f64, f64)>,
}

/// The first instant in (`from`, `to`] at which `blocked` is false, to the nanosecond,
/// for a path blocked at `from` and clear at `to` that changes state once in between
/// (an update interval is far shorter than any crossing of an obstacle's edge).
pub fn clearing_instant(from: Time, to: Time, mut blocked: impl FnMut(Time) -> bool) -> Time {
    let (mut last_blocked, mut first_clear) = (from, to);
    while first_clear - last_blocked > 1 {
        let mid = last_blocked + (first_clear - last_blocked) / 2;
        if blocked(mid) {
            last_blocked = mid;
        } else {
            first_clear = mid;
        }
    }
    first_clear
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clearing_instant_is_the_first_clear_nanosecond() {
        for edge in [1, 2, 7, 62_500, 124_999, 125_000] {
            let mut calls = 0;
            let at = clearing_instant(0, 125_000, |t| {
                calls += 1;
                t < edge
            });
            assert_eq!(at, edge);
            assert!(calls <= 17, "{calls} tests for 125 us");
        }
        assert_eq!(clearing_instant(1_000, 1_001, |_| unreachable!()), 1_001);
    }
}
