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
///
/// The module's axes are uniform in linear SINR from `first_lin` in steps of
/// `step_lin` (0.013 + 0.004 k, 0.063 + 0.01 k, 0.25 + 0.21 k), and `Mib` reads a
/// chunk's MI at index `floor((g - first_lin) / step_lin + 1)`: the axis point above
/// the chunk's SINR, not the one at or below it. Every chunk is read up to one step
/// optimistic; see [`MiTable::mi`].
#[derive(Clone, Copy, Debug)]
struct MiCurve {
    w: f64,
    a1: f64,
    b1: f64,
    a2: f64,
    b2: f64,
    end_lin: f64,
    first_lin: f64,
    step_lin: f64,
}

const CURVES: [MiCurve; MODULATIONS] = [
    MiCurve {
        w: 0.19260,
        a1: 1.33821,
        b1: 0.96394,
        a2: 0.55510,
        b2: 1.00762,
        end_lin: 3.197,
        first_lin: 0.013,
        step_lin: 0.004,
    },
    MiCurve {
        w: 0.22706,
        a1: 0.75154,
        b1: 0.97659,
        a2: 0.14730,
        b2: 0.90840,
        end_lin: 9.993,
        first_lin: 0.063,
        step_lin: 0.01,
    },
    MiCurve {
        w: 0.24422,
        a1: 0.35347,
        b1: 1.03465,
        a2: 0.07456,
        b2: 0.78456,
        end_lin: 157.96,
        first_lin: 0.25,
        step_lin: 0.21,
    },
];

impl MiCurve {
    /// The fitted curve without the end-of-table step.
    fn smooth(&self, g: f64) -> f64 {
        self.w * (1.0 - (-self.a1 * g.powf(self.b1)).exp())
            + (1.0 - self.w) * (1.0 - (-self.a2 * g.powf(self.b2)).exp())
    }
}

/// Range and step of the inverse table (uniform in dB).
const INVERSE_MIN_DB: f64 = -40.0;
const INVERSE_MAX_DB: f64 = 40.0;
const INVERSE_STEP_DB: f64 = 0.01;

/// Precomputed curves: a chunk's MI on the module's axis, read without a logarithm
/// (the per-update cost is 72 chunks x 3 curves), the inverse by bisection in dB.
struct MiTable {
    first_lin: f64,
    step_lin: f64,
    end_lin: f64,
    /// The curve at each of the module's axis points, `first_lin` to `end_lin`.
    forward: Vec<f64>,
    inverse: Vec<f64>,
}

impl MiTable {
    fn new(c: &MiCurve) -> Self {
        let points = ((c.end_lin - c.first_lin) / c.step_lin).round() as usize + 1;
        let forward = (0..points)
            .map(|k| c.smooth(c.first_lin + k as f64 * c.step_lin))
            .collect();
        let n = ((INVERSE_MAX_DB - INVERSE_MIN_DB) / INVERSE_STEP_DB).round() as usize;
        let inverse = (0..=n)
            .map(|k| c.smooth(10f64.powf((INVERSE_MIN_DB + k as f64 * INVERSE_STEP_DB) / 10.0)))
            .collect();
        MiTable {
            first_lin: c.first_lin,
            step_lin: c.step_lin,
            end_lin: c.end_lin,
            forward,
            inverse,
        }
    }

    /// A chunk's MI as the module's `Mib` reads it: the axis point above `g` (index
    /// `floor((g - first) / step) + 1`, at least 0), full information past the end.
    /// At 0 dB this reads QPSK 0.0005 and 16QAM 0.001 above the curve at `g`, 64QAM
    /// 0.01; at the edge of a BLER curve that is a tenth of a TB's error rate or more.
    fn mi(&self, g: f64) -> f64 {
        if g > self.end_lin {
            return 1.0;
        }
        let above = ((g - self.first_lin) / self.step_lin + 1.0).max(0.0) as usize;
        self.forward[above.min(self.forward.len() - 1)]
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

/// The chunks' mean mutual information per bit behind an effective SINR of
/// [`effective_sinr_db`] for modulation `slot`: the smooth curve that SINR was read
/// from (+inf dB: every chunk past the table's end, full information). A mean just
/// below 1 maps to an effective SINR past the table's end, so the end-of-table step
/// does not apply here.
pub fn mutual_information(slot: usize, sinr_db: f64) -> f64 {
    if sinr_db == f64::INFINITY {
        return 1.0;
    }
    CURVES[slot].smooth(10f64.powf(sinr_db / 10.0))
}

// ---------------------------------------------------------------------------------------
// The module's transport-block error (`MmWaveMiErrorModel::GetTbDecodificationStats`)
// ---------------------------------------------------------------------------------------

/// One code block's error curve in mutual information: `P(MI) = Q((MI - b) / c)` (the
/// module's `MappingMiBler`: `0.5 (1 - erf((MI - b) / (sqrt 2 c)))`, IEEE 802.16m EMD's
/// form), `b` the MI at 50% and `c` the waterfall's width.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CbCurve {
    pub b: f64,
    pub c: f64,
}

/// The code-block sizes (bits) at which the module tabulates its curves
/// (`cbMiSizeTable`): a block of K bits takes the curve of the largest size not above
/// K (the smallest for blocks under 40 bits).
const CB_CURVE_SIZES: [u32; 9] = [40, 104, 160, 256, 512, 1024, 2560, 4032, 6144];

/// The effective code rate of each curve row (`BlerCurvesEcrMap`), per modulation in
/// increasing rate: QPSK rows 0-12, 16QAM 13-22, 64QAM 23-37, each modulation's first
/// three the lower rates its HARQ retransmissions reach, the rest its MCS's rates.
#[rustfmt::skip]
const CURVE_ECRS: [f64; 38] = [
    0.01, 0.026, 0.04, 0.08, 0.1, 0.11, 0.15, 0.19, 0.24, 0.3, 0.37, 0.44, 0.51, 0.075, 0.1, 0.15, 0.3, 0.33, 0.37, 0.42, 0.48, 0.54, 0.6, 0.1075, 0.143, 0.215, 0.43, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.89, 0.92,
];

/// The first curve row of each modulation slot, and one past its last.
const SLOT_ROWS: [(usize, usize); MODULATIONS] = [(0, 13), (13, 23), (23, 38)];

/// The module's code-block curves (`bEcrTable`, `cEcrTable`): per size of
/// [`CB_CURVE_SIZES`] and row of [`CURVE_ECRS`]. A negative `b` or `c` is a size the
/// module has no curve for at that rate; the next larger size's applies
/// ([`curve_for`]).
#[rustfmt::skip]
#[allow(clippy::approx_constant)] // 0.3927 is a fitted curve's b, not pi / 8
const CB_CURVES: [[CbCurve; 38]; 9] = [
    // code blocks of 40 bits
    [
        cb(0.02472, 0.00543), cb(0.06352, 0.01337), cb(0.09516, 0.01969), cb(0.1777, 0.0342), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0),
        cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0),
        cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0),
    ],
    // code blocks of 104 bits
    [
        cb(0.0194, 0.00301), cb(0.0502, 0.00749), cb(0.07592, 0.01071), cb(0.1423, 0.0198), cb(0.1753, 0.0239), cb(0.1882, 0.0248), cb(0.2499, 0.032), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0),
        cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0),
        cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0),
    ],
    // code blocks of 160 bits
    [
        cb(0.0182, 0.00245), cb(0.04688, 0.00589), cb(0.07082, 0.00843), cb(0.1354, 0.0157), cb(0.1655, 0.019), cb(0.1812, 0.0204), cb(0.2351, 0.0252), cb(0.2873, 0.031), cb(0.3462, 0.0348), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0),
        cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0),
        cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0),
    ],
    // code blocks of 256 bits
    [
        cb(0.01728, 0.00187), cb(0.04488, 0.00453), cb(0.06786, 0.00699), cb(0.1304, 0.0123), cb(0.1584, 0.0149), cb(0.1735, 0.0163), cb(0.2265, 0.0212), cb(0.2782, 0.0252), cb(0.334, 0.0298), cb(0.3927, 0.0304), cb(0.4785, 0.0341), cb(0.5566, 0.0382), cb(-1.0, -1.0),
        cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0),
        cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0),
    ],
    // code blocks of 512 bits
    [
        cb(0.01658, 0.00135), cb(0.04332, 0.00319), cb(0.0655, 0.00469), cb(0.1257, 0.0085), cb(0.1528, 0.0106), cb(0.1667, 0.0109), cb(0.2188, 0.014), cb(0.268, 0.0178), cb(0.3229, 0.0217), cb(0.3818, 0.0219), cb(0.4607, 0.0249), cb(0.5373, 0.027), cb(0.6081, 0.0292),
        cb(0.15004, 0.01027), cb(0.18266, 0.01197), cb(0.24084, 0.01485), cb(0.3783, 0.0202), cb(0.4049, 0.0206), cb(0.4472, 0.022), cb(0.4975, 0.0235), cb(0.5556, 0.0236), cb(-1.0, -1.0), cb(-1.0, -1.0),
        cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0),
    ],
    // code blocks of 1024 bits
    [
        cb(0.01622, 0.00093), cb(0.04216, 0.00239), cb(0.06402, 0.00327), cb(0.1224, 0.0061), cb(0.1497, 0.0074), cb(0.1638, 0.0078), cb(0.2139, 0.0102), cb(0.2636, 0.0121), cb(0.3195, 0.0138), cb(0.3768, 0.0163), cb(0.452, 0.0178), cb(0.5269, 0.0207), cb(0.5963, 0.0198),
        cb(0.14846, 0.00725), cb(0.18102, 0.00879), cb(0.23788, 0.01015), cb(0.3754, 0.0141), cb(0.3979, 0.0137), cb(0.4399, 0.0154), cb(0.4894, 0.0164), cb(0.5464, 0.0175), cb(0.6034, 0.0188), cb(0.6619, 0.0188),
        cb(0.13938, 0.00705), cb(0.19212, 0.01111), cb(0.2889, 0.01359), cb(0.50662, 0.01661), cb(0.52226, 0.01655), cb(0.5627, 0.0157), cb(0.6089, 0.0169), cb(0.6577, 0.0185), cb(0.7049, 0.0189), cb(0.7508, 0.02), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0), cb(-1.0, -1.0),
    ],
    // code blocks of 2560 bits
    [
        cb(0.016, 0.00059), cb(0.04164, 0.00145), cb(0.0632, 0.00209), cb(0.1211, 0.004), cb(0.148, 0.0047), cb(0.1615, 0.005), cb(0.2119, 0.0063), cb(0.2611, 0.0079), cb(0.3157, 0.0091), cb(0.3735, 0.0101), cb(0.4458, 0.0117), cb(0.5205, 0.0123), cb(0.5902, 0.0129),
        cb(0.14484, 0.00419), cb(0.1777, 0.00515), cb(0.23558, 0.00649), cb(0.3729, 0.0083), cb(0.3939, 0.0091), cb(0.4351, 0.0095), cb(0.4851, 0.0102), cb(0.5416, 0.0112), cb(0.5976, 0.0114), cb(0.6554, 0.0119),
        cb(0.1377, 0.00451), cb(0.18336, 0.00597), cb(0.276, 0.00791), cb(0.50028, 0.00951), cb(0.51888, 0.00943), cb(0.5619, 0.0096), cb(0.6056, 0.0104), cb(0.6521, 0.0109), cb(0.6982, 0.0108), cb(0.7441, 0.0118), cb(0.7874, 0.0122), cb(0.8315, 0.0117), cb(0.8735, 0.011), cb(0.9089, 0.0097), cb(0.9369, 0.0085),
    ],
    // code blocks of 4032 bits
    [
        cb(0.01598, 0.00045), cb(0.04164, 0.00111), cb(0.063, 0.00173), cb(0.1208, 0.0032), cb(0.1477, 0.0038), cb(0.1612, 0.0039), cb(0.2112, 0.0051), cb(0.2606, 0.0063), cb(0.3153, 0.0072), cb(0.3728, 0.0079), cb(0.4441, 0.0084), cb(0.5185, 0.01), cb(0.5882, 0.0106),
        cb(0.16928, 0.00577), cb(0.19982, 0.00615), cb(0.2552, 0.00723), cb(0.3864, 0.0092), cb(0.3921, 0.0074), cb(0.4338, 0.0078), cb(0.4871, 0.009), cb(0.5386, 0.0084), cb(0.594, 0.0089), cb(0.6527, 0.0092),
        cb(0.13754, 0.00369), cb(0.18956, 0.00565), cb(0.28408, 0.00737), cb(0.50316, 0.00795), cb(0.51872, 0.008), cb(0.5591, 0.008), cb(0.6027, 0.0081), cb(0.6512, 0.009), cb(0.6981, 0.0091), cb(0.7437, 0.0095), cb(0.7873, 0.0096), cb(0.8301, 0.0094), cb(0.8702, 0.0086), cb(0.9082, 0.0078), cb(0.9339, 0.0071),
    ],
    // code blocks of 6144 bits
    [
        cb(0.01598, 0.00037), cb(0.04154, 0.00093), cb(0.06288, 0.00141), cb(0.1207, 0.0025), cb(0.1474, 0.0032), cb(0.1612, 0.0032), cb(0.2111, 0.0042), cb(0.2605, 0.0054), cb(0.3153, 0.0059), cb(0.3726, 0.0064), cb(0.4439, 0.0073), cb(0.5193, 0.0081), cb(0.5882, 0.0076),
        cb(0.1449, 0.00273), cb(0.17742, 0.00351), cb(0.23514, 0.00417), cb(0.3724, 0.0056), cb(0.3921, 0.0058), cb(0.4339, 0.0064), cb(0.4833, 0.007), cb(0.5407, 0.0068), cb(0.5952, 0.0074), cb(0.6528, 0.008),
        cb(0.13752, 0.00303), cb(0.18244, 0.00377), cb(0.27578, 0.00507), cb(0.4978, 0.006), cb(0.51606, 0.00609), cb(0.56, 0.0061), cb(0.6027, 0.0066), cb(0.6494, 0.0069), cb(0.6948, 0.008), cb(0.7407, 0.0081), cb(0.7842, 0.008), cb(0.8284, 0.0077), cb(0.8692, 0.0068), cb(0.9058, 0.0066), cb(0.9325, 0.0058),
    ],
];

/// The effective code rate of each MCS 0-28 (the module's `McsEcrTable`).
#[rustfmt::skip]
const MCS_ECR: [f64; 29] = [
    0.08, 0.1, 0.11, 0.15, 0.19, 0.24, 0.3, 0.37, 0.44, 0.51, 0.3, 0.33, 0.37, 0.42, 0.48, 0.54, 0.6, 0.43, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.89, 0.92,
];

/// The curve row of each MCS's first transmission (`McsEcrBlerTableMapping`).
#[rustfmt::skip]
const MCS_ROW: [usize; 29] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16, 17, 18, 19, 20, 21, 22, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37];

/// The effective code rate of `mcs` (0-28; higher ones are 28's).
pub fn mcs_ecr(mcs: u8) -> f64 {
    MCS_ECR[usize::from(mcs.min(28))]
}

const fn cb(b: f64, c: f64) -> CbCurve {
    CbCurve { b, c }
}

/// Modulation slot of an MCS of the module's LTE-style table (QPSK 0-9, 16QAM 10-16,
/// 64QAM 17-28).
fn module_slot(mcs: u8) -> usize {
    match mcs {
        0..=9 => 0,
        10..=16 => 1,
        _ => 2,
    }
}

/// The row of [`CB_CURVES`] a TB at `mcs` uses after `attempts` HARQ attempts (the
/// module's rule): the first its MCS's own; later ones, since every attempt sends as
/// many code bits, the effective code rate is the MCS's over the attempts, and the
/// curve is the modulation's of the highest rate at or below it, else its lowest.
fn curve_row(mcs: u8, attempts: usize) -> usize {
    let mcs = mcs.min(28);
    if attempts <= 1 {
        return MCS_ROW[usize::from(mcs)];
    }
    let (first, end) = SLOT_ROWS[module_slot(mcs)];
    let reff = MCS_ECR[usize::from(mcs)] / attempts as f64;
    // Within a modulation the rows go up in code rate.
    (first..end)
        .rev()
        .find(|&r| CURVE_ECRS[r] <= reff + 1e-12)
        .unwrap_or(first)
}

/// The curve for a code block of `k` bits on `row`: its size's, or where the module
/// has none at that rate, the next larger size's (`b` and `c` each on its own, as
/// `MappingMiBler` looks them up).
fn curve_for(row: usize, k: u32) -> CbCurve {
    let col = CB_CURVE_SIZES.iter().rposition(|&s| s <= k).unwrap_or(0);
    let first_tabulated = |value: fn(&CbCurve) -> f64| {
        CB_CURVES[col..]
            .iter()
            .map(|curves| value(&curves[row]))
            .find(|&v| v >= 0.0)
            .expect("every rate has a curve at 6,144 bits")
    };
    CbCurve {
        b: first_tabulated(|cv| cv.b),
        c: first_tabulated(|cv| cv.c),
    }
}

/// The code blocks of a transport block of `tb_bits` (TS 36.212 5.1.2, as the module
/// segments): `[(count, K+), (count, K-)]`. Up to 6,144 bits one block; beyond, C =
/// ceil(B / 6,120) blocks each with a 24-bit CRC, K+ the smallest size of Table 5.1.3-3
/// with C K+ >= B + 24 C, and C- blocks of the next size down take up the slack.
pub fn code_blocks(tb_bits: u64) -> [(u32, u32); 2] {
    const Z: u64 = 6144;
    let (c, b1) = if tb_bits <= Z {
        (1, tb_bits)
    } else {
        let c = tb_bits.div_ceil(Z - 24);
        (c, tb_bits + 24 * c)
    };
    let k_plus = turbo_size_at_least(b1.div_ceil(c));
    if c == 1 {
        return [(1, k_plus as u32), (0, 0)];
    }
    let k_minus = turbo_size_below(k_plus);
    let c_minus = (c * k_plus - b1) / (k_plus - k_minus);
    [
        ((c - c_minus) as u32, k_plus as u32),
        (c_minus as u32, k_minus as u32),
    ]
}

/// TS 36.212 Table 5.1.3-3's turbo interleaver sizes K as (first, last, step): 40-512
/// by 8, to 1,024 by 16, to 2,048 by 32, to 6,144 by 64 (188 sizes). Each range's
/// first size is a multiple of its step, so a size is found by rounding, not by a
/// walk through the table (a CQI report judges every MCS on one block).
const TURBO_SIZE_RANGES: [(u64, u64, u64); 4] = [
    (40, 512, 8),
    (528, 1024, 16),
    (1056, 2048, 32),
    (2112, 6144, 64),
];

/// The smallest turbo size `K >= x`; 6,144 when none is.
fn turbo_size_at_least(x: u64) -> u64 {
    for (first, last, step) in TURBO_SIZE_RANGES {
        if x <= last {
            return first.max(x.div_ceil(step) * step);
        }
    }
    6144
}

/// The largest turbo size `K < k`; 40 when none is.
fn turbo_size_below(k: u64) -> u64 {
    for &(first, last, step) in TURBO_SIZE_RANGES.iter().rev() {
        if k > first {
            return last.min((k - 1) / step * step);
        }
    }
    40
}

/// `Q(x) = P(N(0,1) > x) = erfc(x / sqrt 2) / 2`.
fn gaussian_tail(x: f64) -> f64 {
    0.5 * erfc(x / std::f64::consts::SQRT_2)
}

/// `P(N(0,1) <= x)`, as the tail of `-x` (no cancellation for large `x`).
pub fn normal_cdf(x: f64) -> f64 {
    gaussian_tail(-x)
}

/// Complementary error function, fractional error below 1.2e-7 everywhere (Chebyshev
/// fit of Press et al., Numerical Recipes, 2nd ed., 6.2, `erfcc`): the code-block
/// errors that matter here are 1e-3 to 1e-5.
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

/// Error probability of a transport block of `tb_bits` at `mcs` (the module's LTE-style
/// MCS) after the attempts whose mean chunk MI (of the MCS's modulation) is `mi`, one
/// per attempt; the module's rule:
/// * HARQ incremental redundancy: every attempt sends as many code bits, so the
///   combined MI is the attempts' mean, against the curve of [`curve_row`].
/// * Each code block fails with `Q((MI - b) / c)` for its size's curve, independently;
///   the TB fails if any does.
pub fn tb_error(mcs: u8, mi: &[f64], tb_bits: u64) -> f64 {
    tb_error_of_blocks(mcs, mi, &code_blocks(tb_bits))
}

/// [`tb_error`] of a block already segmented ([`code_blocks`]).
pub fn tb_error_of_blocks(mcs: u8, mi: &[f64], blocks: &[(u32, u32); 2]) -> f64 {
    let n = mi.len().max(1);
    let mean_mi = mi.iter().sum::<f64>() / n as f64;
    let row = curve_row(mcs, n);
    let ok: f64 = blocks
        .iter()
        .filter(|&&(count, _)| count > 0)
        .map(|&(count, k)| {
            let cv = curve_for(row, k);
            (1.0 - gaussian_tail((mean_mi - cv.b) / cv.c)).powi(count as i32)
        })
        .product();
    1.0 - ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db(x: f64) -> f64 {
        10.0 * x.log10()
    }

    /// The module's axis point above `g` as `Mib` indexes it, in dB.
    fn axis_above_db(slot: usize, g: f64) -> f64 {
        let c = CURVES[slot];
        let k = ((g - c.first_lin) / c.step_lin + 1.0).floor().max(0.0);
        db(c.first_lin + k * c.step_lin)
    }

    #[test]
    fn a_flat_channel_meets_the_axis_point_above_its_sinr() {
        // Every chunk reads the MI of the next axis point up, so a flat channel's
        // effective SINR is that point's, within the inverse table's 0.01 dB.
        let mut out = flat(0.0);
        for (slot, top_db) in [(0, 5.0), (1, 9.9), (2, 21.9)] {
            let mut s = -10.0;
            while s < top_db {
                let g = 10f64.powf(s / 10.0);
                effective_sinr_db(g, &[1.0; 72], &mut out);
                let want = axis_above_db(slot, g);
                assert!(
                    (out[slot] - want).abs() < 0.01 && out[slot] > s,
                    "slot {slot} at {s} dB: {} (axis point above {want})",
                    out[slot]
                );
                s += 0.37;
            }
        }
    }

    #[test]
    fn a_chunk_reads_the_mi_of_the_axis_point_above_it() {
        // QPSK's axis is 0.013 + 0.004 k: a chunk between points 10 and 11 (0.053 and
        // 0.057) reads point 11, one below the first reads the first.
        let reads = |slot: usize, g: f64, point: f64| {
            let want = CURVES[slot].smooth(point);
            assert!((chunk_mi(slot, g) - want).abs() < 1e-12, "{slot} at {g}");
        };
        reads(0, 0.055, 0.057);
        reads(0, 0.011, 0.013);
        reads(0, 0.0, 0.013);
        // 64QAM's steps are 0.21 wide: at 0 dB (1.0) a chunk reads 1.09, 0.009 of MI
        // above the curve at 1.0 (0.136 against 0.127).
        reads(2, 1.0, 1.09);
        assert!(chunk_mi(2, 1.0) - CURVES[2].smooth(1.0) > 0.009);
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

    /// Table 5.1.3-3 listed size by size.
    fn turbo_block_sizes() -> impl Iterator<Item = u64> {
        (40..=512)
            .step_by(8)
            .chain((528..=1024).step_by(16))
            .chain((1056..=2048).step_by(32))
            .chain((2112..=6144).step_by(64))
    }

    /// Rounding finds the sizes the table lists.
    #[test]
    fn turbo_sizes_by_rounding_are_the_tables() {
        assert_eq!(turbo_block_sizes().count(), 188);
        for x in 0..6300 {
            let want = turbo_block_sizes().find(|&k| k >= x).unwrap_or(6144);
            assert_eq!(turbo_size_at_least(x), want, "{x}");
            let below = turbo_block_sizes()
                .take_while(|&k| k < x)
                .last()
                .unwrap_or(40);
            assert_eq!(turbo_size_below(x), below, "{x}");
        }
    }

    #[test]
    fn transport_blocks_are_segmented_as_ts_36_212_says() {
        assert_eq!(code_blocks(6144), [(1, 6144), (0, 0)]);
        assert_eq!(code_blocks(1000), [(1, 1008), (0, 0)]);
        // 6,145 bits: C = 2, B' = 6,193; K+ = 3,136 (2 x 3,136 >= 6,193), K- = 3,072,
        // C- = floor((6,272 - 6,193) / 64) = 1.
        assert_eq!(code_blocks(6145), [(1, 3136), (1, 3072)]);
        // MCS 28 over 8 symbols, 114,000 bits: C = 19, B' = 114,456, K+ = 6,080,
        // C- = floor((115,520 - 114,456) / 64) = 16 blocks of 6,016.
        assert_eq!(code_blocks(114_000), [(3, 6080), (16, 6016)]);
        // Always enough room, and never a whole block of slack.
        for bits in (6145..400_000).step_by(997) {
            let [(cp, kp), (cm, km)] = code_blocks(bits);
            let c = u64::from(cp + cm);
            let room = u64::from(cp) * u64::from(kp) + u64::from(cm) * u64::from(km);
            let b1 = bits + 24 * c;
            assert!(
                room >= b1 && room - b1 < u64::from(kp - km).max(1) + u64::from(kp),
                "{bits}"
            );
            assert_eq!(c, bits.div_ceil(6120));
        }
    }

    #[test]
    fn erfc_is_accurate_in_the_tails_that_matter() {
        for (x, want) in [
            (0.0, 1.0),
            (1.0, 0.157_299_207_050_285_1),
            (2.0, 0.004_677_734_981_047_266),
            (3.0, 2.209_049_699_858_544e-5),
            (-1.0, 1.842_700_792_949_715),
        ] {
            assert!(((erfc(x) - want) / want).abs() < 2e-7, "erfc({x})");
        }
        assert!((gaussian_tail(1.0) - 0.158_655_253_931_457).abs() < 1e-7);
    }

    #[test]
    fn tb_error_is_the_modules_erf_per_code_block() {
        // One code block of 4,032-6,143 bits at MCS 28: P = Q((MI - 0.9339) / 0.0071).
        let one = 4500;
        assert_eq!(code_blocks(one), [(1, 4544), (0, 0)]);
        assert!((tb_error(28, &[0.9339], one) - 0.5).abs() < 1e-7);
        assert!((tb_error(28, &[0.9339 + 0.0071], one) - gaussian_tail(1.0)).abs() < 1e-7);
        // Exactly 6,144 bits: the 6,144-bit curve (b 0.9325, c 0.0058); 2,600 the
        // 2,560-bit one (b 0.9369).
        assert!((tb_error(28, &[0.9325], 6144) - 0.5).abs() < 1e-7);
        assert!((tb_error(28, &[0.9369], 2600) - 0.5).abs() < 1e-7);
        // Many blocks: the TB fails if any does. 19 blocks at MCS 28, MI 0.95.
        let p_plus = gaussian_tail((0.95 - 0.9339) / 0.0071);
        let want = 1.0 - (1.0 - p_plus).powi(19);
        assert!((tb_error(28, &[0.95], 114_000) - want).abs() < 1e-12);
        // An odd MCS has a rate of its own between its neighbours' (the uplink's);
        // a lower MCS needs less MI.
        let at = |mcs: u8| tb_error(mcs, &[0.9], one);
        assert!(
            at(26) < at(27) && at(27) < at(28),
            "{} {} {}",
            at(26),
            at(27),
            at(28)
        );
        assert!(tb_error(10, &[0.39], 50_000) < tb_error(12, &[0.39], 50_000));
        // Full information never fails.
        assert!(tb_error(28, &[1.0], 300_000) < 1e-12);
    }

    /// Blocks under 2,560 bits take the curves of their own sizes (the uplink's blocks
    /// of one symbol, a few hundred bytes), and a size the module has no curve for at
    /// a rate takes the next larger size's.
    #[test]
    fn small_blocks_take_their_own_sizes_curves() {
        // 2,000 bits at MCS 6 (rate 0.3): the 1,024-bit curve, not the 2,560-bit one.
        let row = curve_row(6, 1);
        assert_eq!(curve_for(row, 2000), CB_CURVES[5][row]);
        assert_ne!(curve_for(row, 2000), curve_for(row, 2560));
        // MCS 28's rate has no curve for the smallest sizes.
        let top = curve_row(28, 1);
        let first = (0..9).find(|&c| CB_CURVES[c][top].b >= 0.0).unwrap();
        assert!(first > 0);
        assert_eq!(curve_for(top, 40), CB_CURVES[first][top]);
        // Every rate has a curve at every size from 6,144 bits down to its first.
        for row in 0..CURVE_ECRS.len() {
            let cv = curve_for(row, 40);
            assert!(cv.b > 0.0 && cv.c > 0.0, "row {row}");
        }
    }

    #[test]
    fn harq_averages_the_mi_and_divides_the_code_rate() {
        let ecr = |mcs: u8, n: usize| CURVE_ECRS[curve_row(mcs, n)];
        // First attempts: the MCS's own rate.
        for mcs in 0..=28 {
            assert_eq!(ecr(mcs, 1), MCS_ECR[usize::from(mcs)], "mcs {mcs}");
        }
        // MCS 28 (rate 0.92) twice is 0.46: the 0.45 curve (b 0.5187), so an MI at
        // which the first attempt fails half the time decodes.
        assert_eq!(ecr(28, 2), 0.45);
        assert!((tb_error(28, &[0.9339], 4500) - 0.5).abs() < 1e-7);
        assert!(tb_error(28, &[0.9339, 0.9339], 4500) < 1e-12);
        // The MI averaged: MI 0.7 then 0.3 is 0.5 against b 0.51872, c 0.0080.
        let want = gaussian_tail((0.5 - 0.51872) / 0.0080);
        assert!((tb_error(28, &[0.7, 0.3], 4500) - want).abs() < 1e-9);
        // The retransmission rates: MCS 26 twice (0.425) -> 0.215; MCS 14 twice
        // (0.24) -> 0.15; MCS 6 twice (0.15) -> QPSK's 0.15; MCS 0 twice, three and
        // four times -> 0.04, 0.026, 0.01, and below that still 0.01.
        assert_eq!(ecr(26, 2), 0.215);
        assert_eq!(ecr(14, 2), 0.15);
        assert_eq!(ecr(6, 2), 0.15);
        assert_eq!([2, 3, 4, 8].map(|n| ecr(0, n)), [0.04, 0.026, 0.01, 0.01]);
        assert_eq!(curve_row(0, 4), 0);
        assert_eq!(curve_row(10, 8), SLOT_ROWS[1].0, "16QAM's lowest");
        // So a deep fade at MCS 0 (MI 0.05, far below its b of 0.12) decodes on the
        // second attempt (0.04 curve, b 0.063: no) or the third (0.026, b 0.0416: yes).
        assert!(tb_error(0, &[0.05], 20_000) > 0.999_999);
        assert!(tb_error(0, &[0.05, 0.05], 20_000) > 0.999_999);
        assert!(tb_error(0, &[0.05, 0.05, 0.05], 20_000) < 1e-6);
    }

    #[test]
    fn mutual_information_inverts_the_effective_sinr() {
        let mut out = flat(0.0);
        let mut r = [1.0; 72];
        r[3] = 0.02;
        r[40] = 1.98;
        effective_sinr_db(10f64.powf(0.8), &r, &mut out);
        for (slot, &eff) in out.iter().enumerate() {
            let want: f64 = r
                .iter()
                .map(|&x| chunk_mi(slot, x * 10f64.powf(0.8)))
                .sum::<f64>()
                / 72.0;
            assert!(
                (mutual_information(slot, eff) - want).abs() < 5e-4,
                "{slot}"
            );
        }
        assert_eq!(mutual_information(2, f64::INFINITY), 1.0);
    }

    #[test]
    fn modulation_slots() {
        assert_eq!([2, 4, 6, 8].map(modulation_slot), [0, 1, 2, 2]);
    }
}
