//! Mutual-information effective SINR (MIESM) of a transport block sent over many
//! frequency chunks: the ns3-mmwave error model's view of a frequency-selective channel.
//!
//! ns3-mmwave (`mmwave-mi-error-model.cc`, `Mib`) maps each chunk's SINR to the mutual
//! information per bit of the TB's modulation, averages it over the chunks, and reads
//! the TB error from that mean (`mmwave-amc.cc` picks the MCS the same way). Here the
//! mean is turned back into the SINR a flat channel would need for the same mutual
//! information, so the MCS table's thresholds and error curve (built for a flat
//! channel) apply unchanged: `SINR_eff = I_m^-1(mean_k I_m(SINR_k))`. A flat channel
//! gives `SINR_eff = SINR`; any spread across chunks gives less (I_m is concave where
//! it matters), more so at low SINR.

use std::sync::OnceLock;

/// Modulations with their own mutual-information curve: QPSK, 16QAM, 64QAM (the
/// module's MCS 0-9, 10-16, 17-28; higher orders use the 64QAM curve).
pub const MODULATIONS: usize = 3;

/// Effective SINR (dB) per modulation, indexed by [`modulation_slot`].
pub type EffectiveSinr = [f64; MODULATIONS];

/// The same SINR for every modulation: a flat channel.
pub fn flat(sinr_db: f64) -> EffectiveSinr {
    [sinr_db; MODULATIONS]
}

/// Which curve a modulation order (bits per symbol) uses.
pub fn modulation_slot(order: u8) -> usize {
    match order {
        0..=2 => 0,
        3..=4 => 1,
        _ => 2,
    }
}

/// Mutual information per coded bit versus linear SINR `g`:
/// `w (1 - exp(-a1 g^b1)) + (1 - w)(1 - exp(-a2 g^b2))`, valid up to `end_lin`.
/// Beyond `end_lin` the module's tables end and it counts a chunk as carrying full
/// information (MI = 1); this model does the same, so a chunk above 5.05 dB (QPSK),
/// 10.0 dB (16QAM) or 21.99 dB (64QAM) counts in full.
///
/// Derivation: least-squares fits of this form to the module's `MI_map_qpsk`,
/// `MI_map_16qam` and `MI_map_64qam` curves (`mmwave-mi-error-model.h`; 797, 994 and
/// 752 points); largest MI error 0.0006 / 0.0015 / 0.0020, largest SINR error where
/// MI >= 0.1: 0.03 / 0.03 / 0.49 dB (the 64QAM fit is looser only below 0 dB, where a
/// 64QAM chunk carries almost nothing). `end_lin` is each curve's last axis value.
#[derive(Clone, Copy, Debug)]
struct MiCurve {
    w: f64,
    a1: f64,
    b1: f64,
    a2: f64,
    b2: f64,
    end_lin: f64,
}

const CURVES: [MiCurve; MODULATIONS] = [
    MiCurve {
        w: 0.19260,
        a1: 1.33821,
        b1: 0.96394,
        a2: 0.55510,
        b2: 1.00762,
        end_lin: 3.197,
    },
    MiCurve {
        w: 0.22706,
        a1: 0.75154,
        b1: 0.97659,
        a2: 0.14730,
        b2: 0.90840,
        end_lin: 9.993,
    },
    MiCurve {
        w: 0.24422,
        a1: 0.35347,
        b1: 1.03465,
        a2: 0.07456,
        b2: 0.78456,
        end_lin: 157.96,
    },
];

impl MiCurve {
    /// The fitted curve without the end-of-table step.
    fn smooth(&self, g: f64) -> f64 {
        self.w * (1.0 - (-self.a1 * g.powf(self.b1)).exp())
            + (1.0 - self.w) * (1.0 - (-self.a2 * g.powf(self.b2)).exp())
    }
}

/// Points of the forward table (uniform in linear SINR from 0 to `end_lin`, as the
/// module's own tables are) and range/step of the inverse table (uniform in dB).
const FORWARD_POINTS: usize = 2048;
const INVERSE_MIN_DB: f64 = -40.0;
const INVERSE_MAX_DB: f64 = 40.0;
const INVERSE_STEP_DB: f64 = 0.01;

/// Precomputed curves: a chunk's MI by linear interpolation without a logarithm (the
/// per-update cost is 72 chunks x 3 curves), the inverse by bisection in dB.
struct MiTable {
    step_lin: f64,
    end_lin: f64,
    forward: Vec<f64>,
    inverse: Vec<f64>,
}

impl MiTable {
    fn new(c: &MiCurve) -> Self {
        let step_lin = c.end_lin / FORWARD_POINTS as f64;
        let forward = (0..=FORWARD_POINTS)
            .map(|k| c.smooth(k as f64 * step_lin))
            .collect();
        let n = ((INVERSE_MAX_DB - INVERSE_MIN_DB) / INVERSE_STEP_DB).round() as usize;
        let inverse = (0..=n)
            .map(|k| c.smooth(10f64.powf((INVERSE_MIN_DB + k as f64 * INVERSE_STEP_DB) / 10.0)))
            .collect();
        MiTable {
            step_lin,
            end_lin: c.end_lin,
            forward,
            inverse,
        }
    }

    fn mi(&self, g: f64) -> f64 {
        if g > self.end_lin {
            return 1.0;
        }
        let x = g.max(0.0) / self.step_lin;
        let k = (x as usize).min(FORWARD_POINTS - 1);
        let f = x - k as f64;
        self.forward[k] + f * (self.forward[k + 1] - self.forward[k])
    }

    /// SINR (dB) at which the smooth curve reaches `mi`; +inf at full information.
    fn sinr_db(&self, mi: f64) -> f64 {
        let inv = &self.inverse;
        if mi >= 1.0 {
            return f64::INFINITY;
        }
        if mi <= inv[0] {
            return INVERSE_MIN_DB;
        }
        let n = inv.partition_point(|&v| v < mi);
        if n >= inv.len() {
            return INVERSE_MAX_DB;
        }
        let (lo, hi) = (inv[n - 1], inv[n]);
        let f = if hi > lo { (mi - lo) / (hi - lo) } else { 0.0 };
        INVERSE_MIN_DB + ((n - 1) as f64 + f) * INVERSE_STEP_DB
    }
}

fn tables() -> &'static [MiTable; MODULATIONS] {
    static TABLES: OnceLock<[MiTable; MODULATIONS]> = OnceLock::new();
    TABLES.get_or_init(|| CURVES.map(|c| MiTable::new(&c)))
}

/// Mutual information per bit of one chunk at linear SINR `g` for modulation `slot`.
#[cfg(test)]
fn chunk_mi(slot: usize, g: f64) -> f64 {
    tables()[slot].mi(g)
}

/// The effective SINR per modulation of a TB spread evenly over chunks whose SINRs are
/// `mean_lin x ratio_k` (`ratios` average to 1): the reported wideband SINR times each
/// chunk's share of the gain.
pub fn effective_sinr_db(mean_lin: f64, ratios: &[f64], out: &mut EffectiveSinr) {
    let t = tables();
    let n = ratios.len().max(1) as f64;
    // Every chunk beyond a table's end carries full information: no sum needed (in LoS
    // the common case for QPSK and 16QAM).
    let weakest = mean_lin * ratios.iter().fold(f64::INFINITY, |m, &r| m.min(r));
    for (slot, table) in t.iter().enumerate() {
        if weakest > table.end_lin {
            out[slot] = f64::INFINITY;
            continue;
        }
        let sum: f64 = ratios.iter().map(|&r| table.mi(mean_lin * r)).sum();
        out[slot] = table.sinr_db(sum / n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db(x: f64) -> f64 {
        10.0 * x.log10()
    }

    #[test]
    fn a_flat_channel_keeps_its_sinr() {
        // Below each curve's end the round trip I^-1(I(g)) returns g within 0.03 dB
        // (table steps: 0.01 dB inverse, end/2048 forward, coarsest for 64QAM near 0).
        let mut out = flat(0.0);
        for (slot, top_db) in [(0, 5.0), (1, 9.9), (2, 21.9)] {
            let mut s = -10.0;
            while s < top_db {
                effective_sinr_db(10f64.powf(s / 10.0), &[1.0; 72], &mut out);
                assert!(
                    (out[slot] - s).abs() < 0.03,
                    "slot {slot} at {s} dB: {}",
                    out[slot]
                );
                s += 0.37;
            }
        }
    }

    #[test]
    fn curves_follow_the_module_and_end_in_full_information() {
        // Spot values of the module's tables (QPSK MI 0.5 at 0.19 dB, 16QAM MI 0.5 at
        // 5.54 dB, 64QAM MI 0.5 at 9.68 dB and 0.9 at 18.26 dB), within the fit error.
        let at = |slot, d: f64| chunk_mi(slot, 10f64.powf(d / 10.0));
        assert!((at(0, 0.19) - 0.5).abs() < 0.005);
        assert!((at(1, 5.54) - 0.5).abs() < 0.005);
        assert!((at(2, 9.68) - 0.5).abs() < 0.01);
        assert!((at(2, 18.26) - 0.9).abs() < 0.01);
        // The tables' last points: QPSK 0.862 at 3.197, 16QAM 0.765 at 9.993; just
        // above, a chunk counts as full information, as in the module.
        assert!((chunk_mi(0, 3.197) - 0.862).abs() < 0.002);
        assert!((chunk_mi(1, 9.993) - 0.765).abs() < 0.002);
        assert_eq!(chunk_mi(0, 3.2), 1.0);
        assert_eq!(chunk_mi(1, 10.0), 1.0);
        assert_eq!(chunk_mi(2, 158.0), 1.0);
        // Monotone.
        for slot in 0..MODULATIONS {
            let mut prev = -1.0;
            for k in 0..2000 {
                let m = chunk_mi(slot, k as f64 * 0.08);
                assert!(m >= prev);
                prev = m;
            }
        }
    }

    #[test]
    fn spread_across_chunks_lowers_the_effective_sinr() {
        // Half the chunks 3 dB above the mean, half nearly nothing: same mean-linear
        // SINR, less information. 16QAM at a mean of 3 dB: chunks at 6 dB (MI 0.597,
        // from the fit) and ~0 -> mean MI ~0.30 -> about 1.8 dB, i.e. 1.2 dB below 3 dB.
        let mut ratios = [0.0; 72];
        for (k, r) in ratios.iter_mut().enumerate() {
            *r = if k % 2 == 0 { 2.0 - 1e-9 } else { 1e-9 };
        }
        let mean = 10f64.powf(0.3);
        let mut out = flat(0.0);
        effective_sinr_db(mean, &ratios, &mut out);
        let want = tables()[1]
            .sinr_db(0.5 * chunk_mi(1, (2.0 - 1e-9) * mean) + 0.5 * chunk_mi(1, 1e-9 * mean));
        assert!((out[1] - want).abs() < 1e-9);
        assert!(out[1] < db(mean) - 1.0, "{}", out[1]);
        // Every modulation loses, and a flat vector with the same mean does not.
        let mut flat_out = flat(0.0);
        effective_sinr_db(mean, &[1.0; 72], &mut flat_out);
        for slot in 0..MODULATIONS {
            assert!(out[slot] < flat_out[slot] - 0.5);
        }
        // All chunks beyond the table's end: full information, infinite effective SINR.
        effective_sinr_db(1e3, &[1.0; 72], &mut out);
        assert_eq!(out, [f64::INFINITY; 3]);
        // One chunk below QPSK's end keeps its information finite: 71 chunks at MI 1
        // and one at 0 dB (MI 0.49) -> mean 0.9929, a finite effective SINR.
        let mut r = [1.0; 72];
        r[5] = 1.0 / 20.0; // 20 x 1/20 = 1 (0 dB); the rest at 13 dB
        effective_sinr_db(20.0, &r, &mut out);
        let want = tables()[0].sinr_db((71.0 + chunk_mi(0, 1.0)) / 72.0);
        assert!(
            out[0].is_finite() && (out[0] - want).abs() < 1e-12,
            "{}",
            out[0]
        );
        assert!(out[1].is_finite() && out[2].is_finite());
    }

    #[test]
    fn modulation_slots() {
        assert_eq!([2, 4, 6, 8].map(modulation_slot), [0, 1, 2, 2]);
    }
}
