//! Random loss models applied where a link delivers a packet.

use crate::engine::{Rng, RngExt as _};

#[derive(Debug, Clone)]
pub struct LossModel {
    per_byte: f64,
    per_packet: f64,
    gilbert_elliott: Option<GilbertElliott>,
    rng: Rng,
    /// Cache of the last (size, probability) pair: packets of one flow share a size.
    cached: (u32, f64),
}

/// A two-state Markov (Gilbert-Elliott) channel: per packet, it moves good -> bad
/// with `p_good_to_bad` and bad -> good with `p_bad_to_good`, and drops with
/// `loss_good` / `loss_bad` in each state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GilbertElliottParams {
    pub p_good_to_bad: f64,
    pub p_bad_to_good: f64,
    pub loss_good: f64,
    pub loss_bad: f64,
}

#[derive(Debug, Clone)]
struct GilbertElliott {
    params: GilbertElliottParams,
    bad: bool,
}

impl LossModel {
    pub fn new(per_byte: f64, per_packet: f64, ge: Option<GilbertElliottParams>, rng: Rng) -> Self {
        let gilbert_elliott = ge.map(|params| GilbertElliott { params, bad: false });
        Self {
            per_byte,
            per_packet,
            gilbert_elliott,
            rng,
            cached: (0, 0.0),
        }
    }

    /// True when any of the configured models is active.
    pub fn is_active(&self) -> bool {
        self.per_byte > 0.0 || self.per_packet > 0.0 || self.gilbert_elliott.is_some()
    }

    /// Probability that a packet of `size` bytes is lost under the per-byte model:
    /// 1 - (1 - p)^L, computed without cancellation for tiny p (ns-3 `RateErrorModel`
    /// with unit byte).
    pub fn per_byte_probability(per_byte: f64, size: u32) -> f64 {
        -(size as f64 * (-per_byte).ln_1p()).exp_m1()
    }

    /// Draws whether this packet is lost. The Gilbert-Elliott chain steps once per
    /// packet, before the packet's fate is drawn in the state it lands in.
    pub fn drops(&mut self, size: u32) -> bool {
        let mut lost = false;
        if self.per_byte > 0.0 {
            if self.cached.0 != size {
                self.cached = (size, Self::per_byte_probability(self.per_byte, size));
            }
            lost |= self.rng.random::<f64>() < self.cached.1;
        }
        if self.per_packet > 0.0 {
            lost |= self.rng.random::<f64>() < self.per_packet;
        }
        if let Some(ge) = &mut self.gilbert_elliott {
            let g = ge.params;
            let flip = if ge.bad {
                g.p_bad_to_good
            } else {
                g.p_good_to_bad
            };
            if self.rng.random::<f64>() < flip {
                ge.bad = !ge.bad;
            }
            let p = if ge.bad { g.loss_bad } else { g.loss_good };
            lost |= self.rng.random::<f64>() < p;
        }
        lost
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RngStreams;

    fn rng() -> Rng {
        RngStreams::new(42).stream("loss-test")
    }

    #[test]
    fn per_byte_probability_matches_the_closed_form() {
        // The papers' "PER" 1e-7 per byte on a 1452-byte packet.
        let p = LossModel::per_byte_probability(1e-7, 1452);
        let direct = 1.0 - (1.0f64 - 1e-7).powi(1452);
        assert!((p - direct).abs() < 1e-12, "{p} vs {direct}");
        assert!((p - 1.45189e-4).abs() < 1e-8, "{p}");
        assert_eq!(LossModel::per_byte_probability(0.0, 1500), 0.0);
        assert_eq!(LossModel::per_byte_probability(1.0, 1), 1.0);
    }

    #[test]
    fn per_byte_loss_rate_is_what_the_formula_says() {
        let mut m = LossModel::new(1e-5, 0.0, None, rng());
        let n = 400_000;
        let lost = (0..n).filter(|_| m.drops(1000)).count() as f64 / n as f64;
        let p = LossModel::per_byte_probability(1e-5, 1000); // ~0.00995
        assert!(
            (lost - p).abs() < 4.0 * (p / n as f64).sqrt(),
            "{lost} vs {p}"
        );
    }

    #[test]
    fn per_packet_loss_ignores_size() {
        let mut m = LossModel::new(0.0, 0.1, None, rng());
        let n = 100_000;
        let small = (0..n).filter(|_| m.drops(40)).count() as f64 / n as f64;
        let big = (0..n).filter(|_| m.drops(9000)).count() as f64 / n as f64;
        assert!(
            (small - 0.1).abs() < 0.005 && (big - 0.1).abs() < 0.005,
            "{small} {big}"
        );
    }

    #[test]
    fn gilbert_elliott_gives_the_stationary_loss_rate_in_bursts() {
        let ge = GilbertElliottParams {
            p_good_to_bad: 0.01,
            p_bad_to_good: 0.1,
            loss_good: 0.0,
            loss_bad: 1.0,
        };
        let mut m = LossModel::new(0.0, 0.0, Some(ge), rng());
        let n = 1_000_000;
        let outcome: Vec<bool> = (0..n).map(|_| m.drops(1500)).collect();
        let rate = outcome.iter().filter(|&&l| l).count() as f64 / n as f64;
        // Stationary P(bad) = 0.01 / (0.01 + 0.1).
        assert!((rate - 0.01 / 0.11).abs() < 0.01, "{rate}");
        // Mean burst length 1 / p_bad_to_good = 10.
        let bursts = outcome.windows(2).filter(|w| !w[0] && w[1]).count() as f64;
        let mean_burst = rate * n as f64 / bursts;
        assert!((mean_burst - 10.0).abs() < 1.0, "{mean_burst}");
    }

    #[test]
    fn no_model_never_drops() {
        let mut m = LossModel::new(0.0, 0.0, None, rng());
        assert!(!m.is_active());
        assert!((0..1000).all(|_| !m.drops(1500)));
    }
}
