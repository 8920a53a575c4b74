//! The gNB's slot scheduler: how a slot's data symbols are shared among the UEs
//! that have something to send. The mmWave module uses a flexible TTI: a UE gets a
//! variable number of symbols of a slot, and several UEs share one slot.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SchedulerKind {
    /// Equal shares among backlogged UEs (water-filling: what one UE does not need
    /// goes to the others), the remainder rotating from slot to slot.
    Rr,
    /// Proportional fair: UEs in decreasing order of instantaneous rate over
    /// average served rate, each given what it needs until the symbols run out.
    Pf,
}

/// Time constant of the proportional-fair average, in slots (the usual 100).
pub const PF_WINDOW_SLOTS: f64 = 100.0;

/// One UE's request for a slot.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Demand {
    pub symbols: u32,
    /// Bits one symbol carries for this UE now (its MCS), for proportional fair.
    pub bits_per_symbol: u32,
    /// Average served rate (bits per slot), for proportional fair.
    pub average_bits: f64,
}

/// Shares `total` symbols among `demands`, writing each UE's share to `out`.
/// `rotation` (the slot number) decides who gets the round-robin remainder. `order`
/// is room for proportional fair's ordering of the UEs, kept by the caller so that
/// a slot allocates nothing.
pub fn share(
    kind: SchedulerKind,
    total: u32,
    demands: &[Demand],
    rotation: usize,
    out: &mut [u32],
    order: &mut Vec<usize>,
) {
    // One UE (`urban`'s every slot) gets what it asks for, as far as the symbols go,
    // under either kind: the general paths cost that about 100 instructions a slot.
    if let ([d], [s]) = (demands, &mut *out) {
        *s = d.symbols.min(total);
        return;
    }
    out.iter_mut().for_each(|s| *s = 0);
    match kind {
        SchedulerKind::Rr => round_robin(total, demands, rotation, out),
        SchedulerKind::Pf => proportional_fair(total, demands, out, order),
    }
}

fn round_robin(mut left: u32, demands: &[Demand], rotation: usize, out: &mut [u32]) {
    let n = demands.len();
    // UEs in this slot's order, from `rotation` on (no allocation: this runs per slot).
    let order = || (0..n).map(move |k| (k + rotation) % n);
    loop {
        let hungry = order().filter(|&i| out[i] < demands[i].symbols).count() as u32;
        if hungry == 0 || left == 0 {
            return;
        }
        let each = left / hungry;
        let mut extra = left % hungry;
        for i in order() {
            if out[i] >= demands[i].symbols {
                continue;
            }
            let offer = each + u32::from(extra > 0);
            extra = extra.saturating_sub(1);
            let give = offer.min(demands[i].symbols - out[i]);
            out[i] += give;
            left -= give;
        }
    }
}

fn proportional_fair(mut left: u32, demands: &[Demand], out: &mut [u32], order: &mut Vec<usize>) {
    let metric = |d: &Demand| f64::from(d.bits_per_symbol) / d.average_bits.max(1.0);
    order.clear();
    order.extend((0..demands.len()).filter(|&i| demands[i].symbols > 0));
    // Stable sort: equal metrics keep UE order, so runs stay deterministic.
    order.sort_by(|&a, &b| metric(&demands[b]).total_cmp(&metric(&demands[a])));
    for &i in order.iter() {
        let give = demands[i].symbols.min(left);
        out[i] = give;
        left -= give;
    }
}

/// The round robin's `rotation` for [`share`] among some of a cell's UEs only (those
/// with data), given their places (increasing) among all `members` UEs the robin
/// turns over: the robin starts at place `rotation % members` and passes over the
/// UEs without data, so among those with data it starts at the first placed there or
/// after, and the shares come out as over all the members.
pub fn rotation_among(
    places: impl Iterator<Item = usize>,
    members: usize,
    rotation: usize,
) -> usize {
    let start = rotation % members;
    places.take_while(|&p| p < start).count()
}

/// The proportional-fair average after a slot in which the UE got `bits`.
pub fn pf_average(average_bits: f64, bits: f64) -> f64 {
    average_bits + (bits - average_bits) / PF_WINDOW_SLOTS
}

/// The proportional-fair average after `slots` slots in which the UE got nothing:
/// [`pf_average`] applied that many times (a closed form would round differently),
/// stopping early once a step no longer changes it (zero, or a value too small for
/// the step to move).
pub fn pf_idle_decay(mut average_bits: f64, slots: u64) -> f64 {
    for _ in 0..slots {
        let next = pf_average(average_bits, 0.0);
        if next == average_bits {
            break;
        }
        average_bits = next;
    }
    average_bits
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(symbols: u32, bits_per_symbol: u32, average_bits: f64) -> Demand {
        Demand {
            symbols,
            bits_per_symbol,
            average_bits,
        }
    }

    proptest::proptest! {
        /// `share`'s shortcut for one UE gives what either kind's general path gives.
        #[test]
        fn one_ue_gets_what_the_general_paths_give(
            symbols in 0u32..300,
            total in 0u32..300,
            bits_per_symbol in 1u32..1000,
            average_bits in 0.0f64..1e6,
            rotation in 0usize..10,
        ) {
            let ds = [d(symbols, bits_per_symbol, average_bits)];
            let (mut rr, mut pf) = ([0], [0]);
            round_robin(total, &ds, rotation, &mut rr);
            proportional_fair(total, &ds, &mut pf, &mut Vec::new());
            for (kind, general) in [(SchedulerKind::Rr, rr), (SchedulerKind::Pf, pf)] {
                let mut out = [7];
                share(kind, total, &ds, rotation, &mut out, &mut Vec::new());
                proptest::prop_assert_eq!(out, general);
            }
        }
    }

    #[test]
    fn round_robin_splits_equally_and_rotates_the_remainder() {
        let ds = [d(100, 1, 1.0), d(100, 1, 1.0), d(100, 1, 1.0)];
        let mut out = [0; 3];
        share(SchedulerKind::Rr, 22, &ds, 0, &mut out, &mut Vec::new());
        assert_eq!(out, [8, 7, 7]);
        share(SchedulerKind::Rr, 22, &ds, 1, &mut out, &mut Vec::new());
        assert_eq!(out, [7, 8, 7]);
    }

    #[test]
    fn round_robin_gives_what_one_ue_leaves_to_the_others() {
        let ds = [d(2, 1, 1.0), d(100, 1, 1.0), d(0, 1, 1.0)];
        let mut out = [0; 3];
        share(SchedulerKind::Rr, 22, &ds, 0, &mut out, &mut Vec::new());
        assert_eq!(out, [2, 20, 0]);
        // Less demand than symbols: everyone is served in full.
        share(
            SchedulerKind::Rr,
            22,
            &[d(3, 1, 1.0), d(4, 1, 1.0)],
            0,
            &mut out[..2],
            &mut Vec::new(),
        );
        assert_eq!(out[..2], [3, 4]);
    }

    #[test]
    fn proportional_fair_serves_the_best_rate_over_average_first() {
        // Metrics: 10/100 = 0.1, 5/10 = 0.5, 8/40 = 0.2 -> order 1, 2, 0.
        let ds = [d(10, 10, 100.0), d(15, 5, 10.0), d(10, 8, 40.0)];
        let mut out = [0; 3];
        // The caller's room for the order may hold an earlier slot's.
        let mut order = vec![2, 0, 1, 5];
        share(SchedulerKind::Pf, 22, &ds, 0, &mut out, &mut order);
        assert_eq!(out, [0, 15, 7]);
    }

    /// Sharing among the UEs with data, rotated by `rotation_among`, gives each the
    /// share it gets when the robin turns over every member.
    #[test]
    fn round_robin_among_the_busy_matches_all_members() {
        let mut state = 12_345u64;
        let mut next = |m: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            (state >> 33) % m
        };
        for _ in 0..5_000 {
            let n = 1 + next(12) as usize;
            let demands: Vec<Demand> = (0..n)
                .map(|_| {
                    let symbols = if next(3) == 0 { 0 } else { next(30) as u32 };
                    d(symbols, 1, 1.0)
                })
                .collect();
            let (total, rotation) = (next(60) as u32, next(1_000) as usize);
            let mut all = vec![0; n];
            share(
                SchedulerKind::Rr,
                total,
                &demands,
                rotation,
                &mut all,
                &mut Vec::new(),
            );
            // Some UEs without data stay in the list: the rule must not depend on it.
            let places: Vec<usize> = (0..n)
                .filter(|&i| demands[i].symbols > 0 || next(2) == 0)
                .collect();
            let busy: Vec<Demand> = places.iter().map(|&i| demands[i]).collect();
            let mut some = vec![0; busy.len()];
            let r = rotation_among(places.iter().copied(), n, rotation);
            share(
                SchedulerKind::Rr,
                total,
                &busy,
                r,
                &mut some,
                &mut Vec::new(),
            );
            for (k, &i) in places.iter().enumerate() {
                assert_eq!(some[k], all[i], "{demands:?} {total} {rotation} {places:?}");
            }
            let given: u32 = places.iter().map(|&i| all[i]).sum();
            assert_eq!(given, all.iter().sum::<u32>(), "UEs left out got nothing");
        }
    }

    #[test]
    fn idle_decay_is_the_per_slot_decay_to_the_bit() {
        for start in [0.0, 1e-300, 3.7, 8_448.0, 1.234_567e6] {
            let mut each = start;
            for slots in 0..200_000u64 {
                if slots < 100 || slots % 997 == 0 {
                    assert_eq!(pf_idle_decay(start, slots).to_bits(), each.to_bits());
                }
                if slots % 9_973 == 0 {
                    // From a partly decayed value too, as a later catch-up starts.
                    let half = pf_idle_decay(start, slots / 2);
                    assert_eq!(
                        pf_idle_decay(half, slots - slots / 2).to_bits(),
                        each.to_bits()
                    );
                }
                each = pf_average(each, 0.0);
            }
        }
    }

    #[test]
    fn the_pf_average_is_an_ewma_over_100_slots() {
        assert_eq!(pf_average(100.0, 200.0), 101.0);
        assert_eq!(pf_average(100.0, 100.0), 100.0);
    }
}
