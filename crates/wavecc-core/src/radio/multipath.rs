//! The ns3-mmwave profile's frequency-selective beamforming and fading gain (the
//! `multipath` channel): 20 paths with the module's fixed delays and Doppler factors,
//! evaluated on its 72 frequency chunks.
//!
//! ns3-mmwave (`MmWaveBeamforming::GetChannelGainVector`) gives chunk `k` at time `t`
//! the gain `|sum_p a_p exp(-j 2 pi f_k tau_p) exp(j 2 pi t f_d D_p)|^2`, where `a_p`
//! is path p's beamformed amplitude (beam gain x sqrt(2) x power fraction) of one of
//! its stored channel instances, redrawn every 100 ms, `f_k = f_c - B/2 + k x 13.889 MHz`,
//! `f_d = v f_c / c` with `v` the signed sum of the velocity components of receiver
//! minus transmitter, and `t` the absolute simulation time. This model evaluates the
//! same formula; only the amplitudes are drawn from a distribution instead of the
//! module's stored instances (see [`draw_amplitudes`]). The uplink's receiver is the
//! gNB, so its `v` is the downlink's negated: a moving UE's two directions fade apart.
//!
//! Cost per evaluation: 20 phase rotations and, per direction, a 72 x 17 complex sum
//! (paths with equal delay are summed first); a motionless UE is evaluated once per
//! draw, one direction for both.

use super::geometry::Point;
use super::miesm::normal_cdf;
use crate::engine::{Rng, RngExt};

/// Paths per channel instance (`m_pathNum`).
pub const PATHS: usize = 20;
/// Frequency chunks of the band (`ChunkPerRB` 72 x `ResourceBlockNum` 1 in the scripts).
pub const CHUNKS: usize = 72;
/// Chunk width (Hz): the module's `ChunkWidth` default, 13.889 MHz.
pub const CHUNK_WIDTH_HZ: f64 = 13.889e6;
/// Speed of light as the module uses it for the Doppler shift.
const LIGHT_SPEED: f64 = 3e8;

/// Path delays (ns): the module's `DelaySpread[]`.
const PATH_DELAY_NS: [u32; PATHS] = [
    0, 3, 4, 5, 5, 6, 7, 7, 7, 17, 18, 20, 23, 24, 26, 38, 40, 42, 45, 50,
];
/// Per-path Doppler factors: the module's `DopplerShift[]`.
const PATH_DOPPLER: [f64; PATHS] = [
    0.73, 0.78, 0.68, 0.71, 0.79, 0.69, 0.66, 0.70, 0.69, 0.44, 0.48, 0.43, 0.42, 0.47, 0.50, 0.53,
    0.52, 0.49, 0.55, 0.52,
];
/// Distinct delays (taps) and each path's tap.
const TAPS: usize = 17;
const TAP_DELAY_NS: [u32; TAPS] = [0, 3, 4, 5, 6, 7, 17, 18, 20, 23, 24, 26, 38, 40, 42, 45, 50];
const PATH_TAP: [usize; PATHS] = [
    0, 1, 2, 3, 3, 4, 5, 5, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
];

/// Statistics of the module's path amplitudes, measured over its instances 0-98 (the
/// ones `int(Uniform(0, 99))` can pick) as `|a_p|^2` in dB. Paths fall in three groups
/// of similar statistics (0-4, 5-9, 10-19); per group, the quantiles at
/// [`POWER_PROBABILITIES`] of `|a_p|^2` (dB) over instances and paths.
const POWER_PROBABILITIES: [f64; 7] = [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0];
const GROUP_POWER_DB: [[f64; 7]; 3] = [
    [-41.18, -2.26, 10.33, 15.91, 17.48, 19.93, 23.04],
    [-67.32, -17.27, 1.24, 14.34, 16.76, 18.45, 21.48],
    [-88.12, -36.78, -15.90, 5.25, 15.56, 16.78, 17.25],
];
fn power_group(path: usize) -> usize {
    match path {
        0..=4 => 0,
        5..=9 => 1,
        _ => 2,
    }
}
/// The module's instances split their paths into contiguous clusters that share a
/// power fraction (`SmallScaleFading.txt`: 1 to 5 clusters per instance), and the paths
/// of a cluster leave at similar angles, so the beam favours or misses them together:
/// their powers rise and fall together. Four blocks of paths
/// ([`PATH_BLOCK`]) carry that structure, with the rank (Spearman) correlation of
/// `|a_p|^2` over the module's instances 0-98 averaged within and between blocks. It
/// matters for how fast the channel moves within an instance: the wideband gain of a
/// walking UE (1.5 m/s) changes by more than 0.080 dB in 1 ms one time in ten in the
/// module, 0.066 dB with independent path powers, 0.082 dB with these correlations; a
/// CQI report goes stale that much faster, and more blocks fail.
const PATH_BLOCK: [usize; PATHS] = [0, 0, 0, 0, 0, 1, 1, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3];
const BLOCK_RANK_CORRELATION: [[f64; 4]; 4] = [
    [0.59, 0.34, 0.00, -0.31],
    [0.34, 0.66, 0.24, -0.15],
    [0.00, 0.24, 0.67, 0.36],
    [-0.31, -0.15, 0.36, 0.81],
];

/// Lower-triangular Cholesky factor of the paths' normal-score correlation: a rank
/// correlation `rho` between uniforms is `2 sin(pi rho / 6)` between the normals they
/// come from (the Gaussian copula's relation), 1 on the diagonal.
fn path_correlation_factor() -> &'static [[f64; PATHS]; PATHS] {
    static FACTOR: std::sync::OnceLock<[[f64; PATHS]; PATHS]> = std::sync::OnceLock::new();
    FACTOR.get_or_init(|| {
        let mut c = [[0.0; PATHS]; PATHS];
        for (p, row) in c.iter_mut().enumerate() {
            for (q, x) in row.iter_mut().enumerate() {
                let rho = BLOCK_RANK_CORRELATION[PATH_BLOCK[p]][PATH_BLOCK[q]];
                *x = if p == q {
                    1.0
                } else {
                    2.0 * (std::f64::consts::PI * rho / 6.0).sin()
                };
            }
        }
        cholesky(&c)
    })
}

/// Cholesky factor `L` (`L L^T = c`) of a symmetric positive-definite matrix.
fn cholesky(c: &[[f64; PATHS]; PATHS]) -> [[f64; PATHS]; PATHS] {
    let mut l = [[0.0; PATHS]; PATHS];
    for i in 0..PATHS {
        for j in 0..=i {
            let dot: f64 = (0..j).map(|k| l[i][k] * l[j][k]).sum();
            l[i][j] = if i == j {
                (c[i][i] - dot).sqrt()
            } else {
                (c[i][j] - dot) / l[j][j]
            };
        }
    }
    l
}

/// Quantiles at [`POWER_PROBABILITIES`] of an instance's total path power
/// `sum |a_p|^2` (dB) over the module's instances 0-98. The total is bounded: the
/// power fractions `2 sigma_p^2` of an instance sum to one, so the total is their
/// weighted mean beam gain, at most the array gain (64 x 16 elements, 30.1 dB); the
/// module's lowest instance has 20.17 dB. Summed path powers drawn on their own reach
/// totals the module never has (the correlated draw this replaced went down to 0.6 dB,
/// 0.82% of its draws under 20.17 dB), each a deep fade lasting the instance's 100 ms.
const TOTAL_POWER_DB: [f64; 7] = [20.17, 24.52, 25.51, 26.93, 28.45, 29.31, 30.07];
/// Phase coherence with the strongest path, by path power: the module's paths within
/// about 15 dB of the array gain are nearly in phase with the strongest one (mean
/// cos of the phase difference 0.79 above 15 dB, 0.34 at 10-15 dB, about 0.1 below),
/// because the beams point at them. Modelled as a normal phase offset of standard
/// deviation sqrt(-2 ln(mean cos)) (0.687 and 1.469 rad); below 10 dB uniform.
const COHERENT_ABOVE_DB: f64 = 15.0;
const PARTLY_COHERENT_ABOVE_DB: f64 = 10.0;
const COHERENT_PHASE_SD: f64 = 0.6866;
const PARTLY_COHERENT_PHASE_SD: f64 = 1.4689;

/// `exp(-j 2 pi k w tau)` per tap and chunk k (w the chunk width), real and imaginary
/// parts apart so that the per-chunk sums run over contiguous arrays (vectorised): the
/// frequency part of the delay phase that does not depend on the carrier.
struct ChunkPhasors {
    re: [[f64; CHUNKS]; TAPS],
    im: [[f64; CHUNKS]; TAPS],
}

fn chunk_phasors() -> &'static ChunkPhasors {
    static TABLE: std::sync::OnceLock<ChunkPhasors> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = ChunkPhasors {
            re: [[0.0; CHUNKS]; TAPS],
            im: [[0.0; CHUNKS]; TAPS],
        };
        for (n, &delay_ns) in TAP_DELAY_NS.iter().enumerate() {
            for k in 0..CHUNKS {
                let phase =
                    -std::f64::consts::TAU * k as f64 * CHUNK_WIDTH_HZ * f64::from(delay_ns) * 1e-9;
                t.re[n][k] = phase.cos();
                t.im[n][k] = phase.sin();
            }
        }
        t
    })
}

/// Piecewise-linear quantile function through ([`POWER_PROBABILITIES`], `knots`).
fn quantile(knots: &[f64; 7], u: f64) -> f64 {
    let p = &POWER_PROBABILITIES;
    let i = p.partition_point(|&x| x <= u).clamp(1, p.len() - 1);
    knots[i - 1] + (knots[i] - knots[i - 1]) * (u - p[i - 1]) / (p[i] - p[i - 1])
}

/// One channel instance's path amplitudes (linear, complex), before the carrier's delay
/// phase: the instance's total power from [`TOTAL_POWER_DB`], shared among the paths in
/// proportion to powers drawn from their groups' [`GROUP_POWER_DB`], correlated as
/// [`BLOCK_RANK_CORRELATION`] says (a Gaussian copula); phases relative to the
/// strongest path by the coherence tiers.
pub fn draw_amplitudes(
    rng: &mut Rng,
    normal: &mut dyn FnMut(&mut Rng) -> f64,
) -> [(f64, f64); PATHS] {
    let mut power_db = path_powers_db(rng, normal);
    let drawn_total_db = 10.0
        * power_db
            .iter()
            .map(|db| 10f64.powf(db / 10.0))
            .sum::<f64>()
            .log10();
    let shift_db = quantile(&TOTAL_POWER_DB, rng.random::<f64>()) - drawn_total_db;
    for db in &mut power_db {
        *db += shift_db;
    }
    let strongest = (0..PATHS).fold(0, |b, p| if power_db[p] > power_db[b] { p } else { b });
    let mut amp = [(0.0, 0.0); PATHS];
    for p in 0..PATHS {
        let phase = if p == strongest {
            0.0
        } else if power_db[p] >= COHERENT_ABOVE_DB {
            COHERENT_PHASE_SD * normal(rng)
        } else if power_db[p] >= PARTLY_COHERENT_ABOVE_DB {
            PARTLY_COHERENT_PHASE_SD * normal(rng)
        } else {
            std::f64::consts::TAU * rng.random::<f64>()
        };
        let m = 10f64.powf(power_db[p] / 20.0);
        amp[p] = (m * phase.cos(), m * phase.sin());
    }
    amp
}

/// Path powers (dB) before the rescale to the instance's total: each from its group's
/// [`GROUP_POWER_DB`], ranks correlated as [`BLOCK_RANK_CORRELATION`] says (a Gaussian
/// copula). The rescale shifts them all by one amount drawn apart, which lowers the
/// correlations of the strong paths by 0.04-0.1 (the module's are of its final
/// powers); the channel's motion, which they are here for, stays the module's (see
/// the test `correlated_paths_move_the_gain_as_the_module_does`).
fn path_powers_db(rng: &mut Rng, normal: &mut dyn FnMut(&mut Rng) -> f64) -> [f64; PATHS] {
    let mut independent = [0.0; PATHS];
    for z in &mut independent {
        *z = normal(rng);
    }
    let factor = path_correlation_factor();
    let mut power_db = [0.0; PATHS];
    for (p, db) in power_db.iter_mut().enumerate() {
        let z: f64 = (0..=p).map(|q| factor[p][q] * independent[q]).sum();
        *db = quantile(&GROUP_POWER_DB[power_group(p)], normal_cdf(z));
    }
    power_db
}

/// Complex product.
fn mul(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

/// One direction's chunk gains: each chunk's gain over their mean, and the mean
/// (linear).
#[derive(Clone, Debug)]
struct ChunkGains {
    ratios: [f64; CHUNKS],
    mean: f64,
}

impl ChunkGains {
    /// The gains of the chunks from the taps' complex sums (paths of equal delay
    /// summed, Doppler applied).
    fn of_taps(taps: &[(f64, f64); TAPS]) -> Self {
        let phasors = chunk_phasors();
        let (mut re, mut im) = ([0.0; CHUNKS], [0.0; CHUNKS]);
        for (n, c) in taps.iter().enumerate() {
            let (pr, pi) = (&phasors.re[n], &phasors.im[n]);
            for k in 0..CHUNKS {
                re[k] += c.0 * pr[k] - c.1 * pi[k];
                im[k] += c.0 * pi[k] + c.1 * pr[k];
            }
        }
        let mut ratios = [0.0; CHUNKS];
        let mut sum = 0.0;
        for k in 0..CHUNKS {
            let g = re[k] * re[k] + im[k] * im[k];
            ratios[k] = g;
            sum += g;
        }
        let mean = sum / CHUNKS as f64;
        let inv = if mean > 0.0 { 1.0 / mean } else { 0.0 };
        for r in &mut ratios {
            *r *= inv;
        }
        ChunkGains { ratios, mean }
    }
}

/// The frequency-selective gain of one gNB-UE pair, each way.
///
/// The module computes the uplink's gain with the same formula and instance, but
/// its relative speed is receiver minus transmitter with the roles swapped, so the
/// uplink's Doppler turns every path the other way: for a still UE both directions
/// meet one gain, for a moving one their chunk gains differ (and fade apart).
#[derive(Clone, Debug)]
pub struct Multipath {
    carrier_hz: f64,
    /// Path amplitudes of the current instance times `exp(-j 2 pi f_0 tau_p)` (f_0 the
    /// first chunk's frequency).
    amp: [(f64, f64); PATHS],
    down: ChunkGains,
    up: ChunkGains,
    /// Doppler (Hz) of the last evaluation, downlink; NaN = nothing evaluated since the
    /// draw.
    last_fd_hz: f64,
}

impl Multipath {
    pub fn new(carrier_hz: f64) -> Self {
        let flat = ChunkGains {
            ratios: [1.0; CHUNKS],
            mean: 1.0,
        };
        Multipath {
            carrier_hz,
            amp: [(0.0, 0.0); PATHS],
            down: flat.clone(),
            up: flat,
            last_fd_hz: f64::NAN,
        }
    }

    /// Starts a new instance with amplitudes `amp` ([`draw_amplitudes`]).
    pub fn set_instance(&mut self, amp: [(f64, f64); PATHS]) {
        let f0 = self.carrier_hz - CHUNK_WIDTH_HZ * CHUNKS as f64 / 2.0;
        for p in 0..PATHS {
            let phase = -std::f64::consts::TAU * f0 * f64::from(PATH_DELAY_NS[p]) * 1e-9;
            self.amp[p] = mul(amp[p], (phase.cos(), phase.sin()));
        }
        self.last_fd_hz = f64::NAN;
    }

    /// Evaluates the chunk gains at absolute time `t_s` for the downlink's relative
    /// speed `speed_mps` (signed sum of velocity components, UE minus gNB); the
    /// uplink's is its opposite. Without motion the gains stay those of the last
    /// evaluation of this instance.
    pub fn evaluate(&mut self, t_s: f64, speed_mps: f64) {
        let fd = speed_mps * self.carrier_hz / LIGHT_SPEED;
        if fd == 0.0 && self.last_fd_hz == 0.0 {
            return;
        }
        self.last_fd_hz = fd;
        let (mut down, mut up) = ([(0.0, 0.0); TAPS], [(0.0, 0.0); TAPS]);
        for p in 0..PATHS {
            let (cos, sin) = if fd == 0.0 {
                (1.0, 0.0)
            } else {
                let phase = std::f64::consts::TAU * t_s * fd * PATH_DOPPLER[p];
                (phase.cos(), phase.sin())
            };
            let (d, u) = (mul(self.amp[p], (cos, sin)), mul(self.amp[p], (cos, -sin)));
            let n = PATH_TAP[p];
            (down[n].0, down[n].1) = (down[n].0 + d.0, down[n].1 + d.1);
            (up[n].0, up[n].1) = (up[n].0 + u.0, up[n].1 + u.1);
        }
        self.down = ChunkGains::of_taps(&down);
        self.up = if fd == 0.0 {
            self.down.clone()
        } else {
            ChunkGains::of_taps(&up)
        };
    }

    /// The reported (wideband) downlink gain: 10 log10 of the mean over chunks, as
    /// the module's SINR trace averages the chunks' linear SINR.
    pub fn wideband_gain_db(&self) -> f64 {
        10.0 * self.down.mean.log10()
    }

    /// Each chunk's downlink gain over the mean (they average to 1).
    pub fn chunk_ratios(&self) -> &[f64; CHUNKS] {
        &self.down.ratios
    }

    /// Both directions meet the same gains: the UE did not move at the last
    /// evaluation.
    pub fn is_reciprocal(&self) -> bool {
        self.last_fd_hz == 0.0 || self.last_fd_hz.is_nan()
    }

    /// The uplink's wideband gain over the downlink's (dB) where the UE moved at the
    /// last evaluation; `None`: both directions meet one gain.
    pub fn uplink_offset_db(&self) -> Option<f64> {
        (!self.is_reciprocal()).then(|| 10.0 * (self.up.mean / self.down.mean).log10())
    }

    /// Each chunk's uplink gain over the uplink's mean.
    pub fn uplink_chunk_ratios(&self) -> &[f64; CHUNKS] {
        &self.up.ratios
    }
}

/// The module's relative speed of a UE moving from `from` to `to` in `dt_s` towards a
/// fixed gNB: the signed sum of the velocity components (not the speed).
pub fn relative_speed(from: Point, to: Point, dt_s: f64) -> f64 {
    if dt_s <= 0.0 {
        return 0.0;
    }
    ((to.x - from.x) + (to.y - from.y) + (to.z - from.z)) / dt_s
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn normal(rng: &mut Rng) -> f64 {
        let u1 = 1.0 - rng.random::<f64>();
        let u2: f64 = rng.random::<f64>();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// The module's formula evaluated directly, chunk by chunk and path by path.
    fn direct(amp: &[(f64, f64); PATHS], fc: f64, t: f64, speed: f64) -> Vec<f64> {
        let f0 = fc - CHUNK_WIDTH_HZ * CHUNKS as f64 / 2.0;
        (0..CHUNKS)
            .map(|k| {
                let f = f0 + CHUNK_WIDTH_HZ * k as f64;
                let (mut re, mut im) = (0.0, 0.0);
                for p in 0..PATHS {
                    let d = -std::f64::consts::TAU * f * f64::from(PATH_DELAY_NS[p]) * 1e-9;
                    let dop = std::f64::consts::TAU * t * speed * fc / 3e8 * PATH_DOPPLER[p];
                    let z = mul(amp[p], (d.cos(), d.sin()));
                    let z = mul(z, (dop.cos(), dop.sin()));
                    re += z.0;
                    im += z.1;
                }
                re * re + im * im
            })
            .collect()
    }

    #[test]
    fn chunk_gains_follow_the_module_formula() {
        let mut rng = Rng::seed_from_u64(3);
        for (fc, t, speed) in [(28e9, 0.0, 0.0), (28e9, 1.2345, 1.5), (73e9, 7.5, -10.0)] {
            let amp = draw_amplitudes(&mut rng, &mut normal);
            let mut mp = Multipath::new(fc);
            mp.set_instance(amp);
            mp.evaluate(t, speed);
            let want = direct(&amp, fc, t, speed);
            let mean = want.iter().sum::<f64>() / CHUNKS as f64;
            assert!((mp.wideband_gain_db() - 10.0 * mean.log10()).abs() < 1e-9);
            for (k, (got, want)) in mp.chunk_ratios().iter().zip(&want).enumerate() {
                assert!((got - want / mean).abs() < 1e-6, "chunk {k}");
            }
            // Over 72 chunks of 13.889 MHz the cross terms of paths with different
            // integer-ns delays (nearly) cancel: the mean is the sum over taps of the
            // coherent tap power.
            let mut taps = [(0.0, 0.0); TAPS];
            for p in 0..PATHS {
                let dop = std::f64::consts::TAU * t * speed * fc / 3e8 * PATH_DOPPLER[p];
                let z = mul(amp[p], (dop.cos(), dop.sin()));
                taps[PATH_TAP[p]].0 += z.0;
                taps[PATH_TAP[p]].1 += z.1;
            }
            let tap_power: f64 = taps.iter().map(|c| c.0 * c.0 + c.1 * c.1).sum();
            assert!((10.0 * (tap_power / mean).log10()).abs() < 0.01);
        }
    }

    #[test]
    fn the_uplink_meets_the_opposite_doppler() {
        // The module's uplink: receiver (gNB) minus transmitter (UE) speed, the
        // downlink's negated, in the same formula with the same instance.
        let mut rng = Rng::seed_from_u64(5);
        let amp = draw_amplitudes(&mut rng, &mut normal);
        let mut mp = Multipath::new(28e9);
        mp.set_instance(amp);
        mp.evaluate(3.21, 1.5);
        assert!(!mp.is_reciprocal());
        let want = direct(&amp, 28e9, 3.21, -1.5);
        let mean = want.iter().sum::<f64>() / CHUNKS as f64;
        let offset = 10.0 * mean.log10() - mp.wideband_gain_db();
        assert!((mp.uplink_offset_db().unwrap() - offset).abs() < 1e-9);
        assert!(offset.abs() > 1e-3, "{offset}");
        for (k, (got, want)) in mp.uplink_chunk_ratios().iter().zip(&want).enumerate() {
            assert!((got - want / mean).abs() < 1e-6, "chunk {k}");
        }
        // Standing, both ways meet the downlink's gains.
        mp.evaluate(3.5, 0.0);
        assert!(mp.is_reciprocal());
        assert_eq!(mp.uplink_offset_db(), None);
        assert_eq!(mp.uplink_chunk_ratios(), mp.chunk_ratios());
    }

    #[test]
    fn doppler_moves_the_gains_and_a_still_ue_keeps_them() {
        let mut rng = Rng::seed_from_u64(4);
        let mut mp = Multipath::new(28e9);
        mp.set_instance(draw_amplitudes(&mut rng, &mut normal));
        mp.evaluate(1.0, 0.0);
        let still = *mp.chunk_ratios();
        mp.evaluate(1.05, 0.0);
        assert_eq!(*mp.chunk_ratios(), still);
        // At 1.5 m/s (f_d = 140 Hz) the taps turn by 2 pi 140 (D_p - D_q) per second:
        // 20 ms later the pattern has changed.
        mp.evaluate(1.0, 1.5);
        let a = *mp.chunk_ratios();
        mp.evaluate(1.02, 1.5);
        let b = *mp.chunk_ratios();
        let moved = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).sum::<f64>() / CHUNKS as f64;
        assert!(moved > 0.05, "{moved}");
        // The sign of the speed matters (e^{+j} vs e^{-j} rotations differ).
        mp.evaluate(1.02, -1.5);
        assert_ne!(*mp.chunk_ratios(), b);
    }

    #[test]
    fn relative_speed_is_the_signed_component_sum() {
        let a = Point::new(0.0, 68.0, 1.5);
        assert_eq!(relative_speed(a, Point::new(0.0015, 68.0, 1.5), 0.001), 1.5);
        assert!((relative_speed(a, Point::new(0.0, 67.9985, 1.5), 0.001) + 1.5).abs() < 1e-9);
        // Diagonal at 1 m/s per axis: 2 m/s, not sqrt(2).
        assert!((relative_speed(a, Point::new(0.001, 68.001, 1.5), 0.001) - 2.0).abs() < 1e-9);
        assert_eq!(relative_speed(a, a, 0.0), 0.0);
    }

    #[test]
    fn drawn_instances_have_the_module_statistics() {
        // Over many draws: the total path power stays inside the module's range
        // (20.17-30.07 dB) with its spread (2.14 dB); the wideband gain (dB) of a
        // motionless UE is 27.40 on average (module: 27.53), 10-90% 24.4-30.3 (module
        // 24.59-30.68).
        let mut rng = Rng::seed_from_u64(5);
        let mut mp = Multipath::new(28e9);
        let (mut wide, mut total) = (Vec::new(), Vec::new());
        for _ in 0..20_000 {
            let amp = draw_amplitudes(&mut rng, &mut normal);
            total.push(
                10.0 * amp
                    .iter()
                    .map(|a| a.0 * a.0 + a.1 * a.1)
                    .sum::<f64>()
                    .log10(),
            );
            mp.set_instance(amp);
            mp.evaluate(0.0, 0.0);
            wide.push(mp.wideband_gain_db());
        }
        let n = wide.len() as f64;
        let mean = wide.iter().sum::<f64>() / n;
        wide.sort_by(f64::total_cmp);
        let (p10, p90) = (wide[(0.1 * n) as usize], wide[(0.9 * n) as usize]);
        assert!((mean - 27.40).abs() < 0.15, "mean {mean}");
        assert!(
            (p10 - 24.4).abs() < 0.3 && (p90 - 30.3).abs() < 0.3,
            "{p10} {p90}"
        );
        let tm = total.iter().sum::<f64>() / n;
        let sd = (total.iter().map(|x| (x - tm) * (x - tm)).sum::<f64>() / n).sqrt();
        assert!((sd - 2.14).abs() < 0.1, "sd {sd}");
        assert!(
            total
                .iter()
                .all(|t| (20.17 - 1e-9..=30.07 + 1e-9).contains(t))
        );
    }

    /// The 1 ms change of a walking UE's wideband gain within an instance, 90% quantile
    /// over instances and times (dB).
    fn wideband_change_p90(draw: &mut dyn FnMut(&mut Rng) -> [(f64, f64); PATHS]) -> f64 {
        let mut rng = Rng::seed_from_u64(11);
        let mut mp = Multipath::new(28e9);
        let mut changes = Vec::new();
        for _ in 0..4000 {
            mp.set_instance(draw(&mut rng));
            for k in 0..5 {
                let t = 20.0 * rng.random::<f64>() + 0.02 * f64::from(k);
                mp.evaluate(t, 1.5);
                let before = mp.wideband_gain_db();
                mp.evaluate(t + 1e-3, 1.5);
                changes.push((mp.wideband_gain_db() - before).abs());
            }
        }
        changes.sort_by(f64::total_cmp);
        changes[changes.len() * 9 / 10]
    }

    /// Correlated path powers move the channel as fast as the module's instances do:
    /// 90% of 1 ms changes under 0.080 dB at 1.5 m/s there; 0.069 dB here with every
    /// odd path's amplitude taken from another draw (correlations broken, marginals
    /// kept; measured once, 2026-11-29).
    #[test]
    fn correlated_paths_move_the_gain_as_the_module_does() {
        let p90 = wideband_change_p90(&mut |r| draw_amplitudes(r, &mut normal));
        assert!((p90 - 0.080).abs() < 0.006, "{p90}");
    }

    /// Ranks of `xs` (0-based; ties do not occur in continuous draws).
    fn ranks(xs: &[f64]) -> Vec<f64> {
        let mut order: Vec<usize> = (0..xs.len()).collect();
        order.sort_by(|&a, &b| xs[a].total_cmp(&xs[b]));
        let mut r = vec![0.0; xs.len()];
        for (rank, &i) in order.iter().enumerate() {
            r[i] = rank as f64;
        }
        r
    }

    /// Spearman correlation of two samples.
    fn spearman(a: &[f64], b: &[f64]) -> f64 {
        let (ra, rb) = (ranks(a), ranks(b));
        let m = (a.len() - 1) as f64 / 2.0;
        let cov: f64 = ra.iter().zip(&rb).map(|(x, y)| (x - m) * (y - m)).sum();
        let var: f64 = ra.iter().map(|x| (x - m) * (x - m)).sum();
        cov / var
    }

    /// Path powers keep the blocks' rank correlations before the rescale.
    #[test]
    fn drawn_path_powers_keep_the_block_correlations() {
        let mut rng = Rng::seed_from_u64(3);
        let draws: Vec<_> = (0..20_000)
            .map(|_| path_powers_db(&mut rng, &mut normal))
            .collect();
        let power = |p: usize| -> Vec<f64> { draws.iter().map(|d| d[p]).collect() };
        for (p, q) in [(0, 1), (5, 6), (7, 9), (10, 19), (2, 8), (3, 15), (6, 12)] {
            let want = BLOCK_RANK_CORRELATION[PATH_BLOCK[p]][PATH_BLOCK[q]];
            let got = spearman(&power(p), &power(q));
            assert!(
                (got - want).abs() < 0.03,
                "paths {p}, {q}: {got} (want {want})"
            );
        }
    }

    #[test]
    fn quantiles_interpolate_between_knots() {
        let k = &GROUP_POWER_DB[0];
        assert_eq!(quantile(k, 0.5), 15.91);
        assert_eq!(quantile(k, 1.0), 23.04);
        assert!((quantile(k, 0.3) - (10.33 + 0.2 * (15.91 - 10.33))).abs() < 1e-12);
    }
}
