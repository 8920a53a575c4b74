//! Propagation profiles and the per-(gNB, UE) channel state.
//!
//! * `ns3-mmwave` ([`Ns3MmwaveParams`]): the source papers' ns-3 mmWave module as
//!   docs/model.md ("The `ns3-mmwave` profile's numbers") summarises it: LoS path loss
//!   61.4 + 20 log10(d) at 28 GHz (`BuildingsObstaclePropagationLossModel::mmWaveLosLoss`,
//!   ns3-mmwave `src/mmwave/model/buildings-obstacle-propagation-loss-model.cc`), blocked
//!   links get the measured blockage ramp of the same file (`g_blockage_down` /
//!   `g_blockage_up`, driven by `MmWaveLosTracker`), and a beamforming + fading gain
//!   redrawn every 100 ms, either wideband with the distribution of that table
//!   (`channel = "wideband"`) or the module's frequency-selective 20-path gain
//!   (`channel = "multipath"`, `multipath.rs`).
//! * `3gpp` ([`ThreeGppParams`]): 3GPP TR 38.901 V16/V17 Table 7.4.1-1 UMi street canyon
//!   / UMa path loss, log-normal shadowing with Table 7.5-6 decorrelation distances,
//!   per-obstacle-class blockage losses.
//!
//! [`Channel::update`] is called about every 1 ms per pair: it does not allocate and
//! calls at most a few transcendental functions (one `log10` per update; `exp`/`ln`
//! only while a ramp runs or when shadowing is advanced).

use super::geometry::{LosTest, ObstacleClass, Point};
use super::mcs::{
    McsTable, NR_DEFAULT_DATA_SYMBOLS, NrMcsTable, Numerology, nr_prbs, thermal_noise_dbm,
};
use super::multipath::{Multipath, draw_amplitudes, relative_speed};
use crate::engine::{Rng, RngExt};

// ---------------------------------------------------------------------------------------
// ns-3 mmWave profile
// ---------------------------------------------------------------------------------------

/// The `ns3-mmwave` profile; defaults = docs/model.md's "`ns3-mmwave` profile's numbers".
#[derive(Clone, Debug, PartialEq, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Ns3MmwaveParams {
    /// Carrier (Hz). The module's LoS model knows 28 GHz (61.4 dB intercept) and 73 GHz
    /// (69.8 dB); nothing else is accepted.
    pub carrier_hz: f64,
    /// Bandwidth (Hz): 1 GHz = 72 chunks x 13.889 MHz.
    pub bandwidth_hz: f64,
    /// Transmit power of the gNB.
    pub gnb_tx_power_dbm: f64,
    /// Transmit power of the UE (its ACKs).
    pub ue_tx_power_dbm: f64,
    /// Receiver noise figure; noise is counted over the whole bandwidth.
    pub noise_figure_db: f64,
    /// Steady extra loss while blocked (dB): the last sample used of the module's
    /// `g_blockage_down` trace (sample 340: -35.964785 dB).
    pub blockage_loss_db: f64,
    /// Duration of the drop and of the recovery ramp (s). The module advances one trace
    /// sample per channel evaluation over 340 samples; the reference network reads this as about
    /// 40 ms. 0 = instantaneous step.
    pub blockage_ramp_s: f64,
    /// Mean of the beamforming + fading gain (dB), drawn anew every `bf_redraw_s` from
    /// a distribution with this mean, percentiles and extremes (reference network: mean
    /// 28.2, 10-90% 24.6-30.7, extremes 20-32).
    pub bf_gain_mean_db: f64,
    /// 10th percentile of the beamforming + fading gain.
    pub bf_gain_p10_db: f64,
    /// 90th percentile of that gain.
    pub bf_gain_p90_db: f64,
    /// Smallest value of that gain.
    pub bf_gain_min_db: f64,
    /// Largest value of that gain.
    pub bf_gain_max_db: f64,
    /// Redraw period of that gain (s), independent of position (reference network: 100 ms).
    pub bf_redraw_s: f64,
    /// How the beamforming + fading gain is modelled: `wideband` (one gain per redraw
    /// from the distribution above) or `multipath` (the module's 20-path,
    /// 72-chunk frequency-selective gain with Doppler, see `multipath.rs`; the
    /// `bf_gain_*` keys are then unused).
    pub channel: Ns3Channel,
}

/// The ns3-mmwave profile's beamforming + fading gain model.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Default,
    serde::Deserialize,
    serde::Serialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Ns3Channel {
    /// One wideband gain per redraw; TBs see a flat channel.
    #[default]
    Wideband,
    /// Per-chunk gains; MCS choice and TB errors from the chunks' mutual information.
    Multipath,
}

impl Default for Ns3MmwaveParams {
    fn default() -> Self {
        Ns3MmwaveParams {
            carrier_hz: 28e9,
            bandwidth_hz: 1e9,
            gnb_tx_power_dbm: 30.0,
            ue_tx_power_dbm: 30.0,
            noise_figure_db: 5.0,
            blockage_loss_db: NS3_TRACE_STEADY_DB,
            blockage_ramp_s: 0.04,
            bf_gain_mean_db: 28.2,
            bf_gain_p10_db: 24.6,
            bf_gain_p90_db: 30.7,
            bf_gain_min_db: 20.0,
            bf_gain_max_db: 32.0,
            bf_redraw_s: 0.1,
            channel: Ns3Channel::Wideband,
        }
    }
}

/// The module's steady blocked value: `g_blockage_down[339]` = -35.964785 dB.
pub const NS3_TRACE_STEADY_DB: f64 = 35.964785;
/// Trace samples per ramp (`g_nlosSamplesTrace` in `mmwave-los-tracker.cc`).
pub const NS3_TRACE_SAMPLES: f64 = 340.0;

/// Excess loss (dB, positive) during the drop phase versus trace sample n (0..340):
/// a piecewise-linear fit through samples of the module's `g_blockage_down` trace
/// (negated). The first ~170 samples fluctuate within +-1.4 dB around 0 and are set to
/// 0; then a roughly linear fall to 30.7 dB at sample 307, an oscillation with peaks of
/// 40.8 and 44.2 dB, ending at the steady 35.96 dB at sample 340.
const NS3_DOWN_KNOTS: [(f64, f64); 19] = [
    (0.0, 0.0),
    (170.0, 0.0),
    (180.0, 1.80),
    (200.0, 5.35),
    (220.0, 9.94),
    (240.0, 12.53),
    (260.0, 16.35),
    (280.0, 19.98),
    (290.0, 22.37),
    (300.0, 25.35),
    (307.0, 30.72),
    (310.0, 29.05),
    (315.0, 40.79),
    (319.0, 31.59),
    (324.0, 44.18),
    (328.0, 31.62),
    (332.0, 42.50),
    (337.0, 29.03),
    (340.0, NS3_TRACE_STEADY_DB),
];

/// Excess loss (dB) during the recovery ("raise") phase versus trace position u:
/// piecewise-linear fit through samples of `g_blockage_up` (negated): starts at 44.6 dB,
/// oscillates 28-44 dB for ~35 samples, falls to ~25 dB by sample 48, then to 0 by
/// sample 141; 0 afterwards (the remaining samples fluctuate within +-1.4 dB).
const NS3_UP_KNOTS: [(f64, f64); 23] = [
    (0.0, 44.63),
    (2.0, 41.48),
    (5.0, 32.19),
    (9.0, 43.80),
    (14.0, 30.04),
    (19.0, 42.31),
    (23.0, 33.44),
    (26.0, 38.01),
    (31.0, 28.53),
    (35.0, 30.00),
    (40.0, 26.25),
    (43.0, 27.09),
    (48.0, 24.95),
    (58.0, 25.71),
    (60.0, 24.70),
    (70.0, 19.38),
    (80.0, 16.58),
    (90.0, 15.57),
    (100.0, 13.34),
    (110.0, 9.47),
    (120.0, 5.53),
    (130.0, 2.40),
    (141.0, 0.0),
];

/// Piecewise-linear interpolation; constant beyond the ends.
fn interp(knots: &[(f64, f64)], x: f64) -> f64 {
    let n = knots.partition_point(|k| k.0 <= x);
    if n == 0 {
        return knots[0].1;
    }
    if n == knots.len() {
        return knots[n - 1].1;
    }
    let (x0, y0) = knots[n - 1];
    let (x1, y1) = knots[n];
    y0 + (y1 - y0) * (x - x0) / (x1 - x0)
}

impl Ns3MmwaveParams {
    /// LoS intercept (dB) of `alpha + 20 log10(d)`: `mmWaveLosLoss` in
    /// `buildings-obstacle-propagation-loss-model.cc` (28 GHz: 61.4, 73 GHz: 69.8; both
    /// are free-space loss at 1 m, 20 log10(4 pi / lambda)).
    pub fn los_intercept_db(&self) -> Option<f64> {
        if self.carrier_hz == 28e9 {
            Some(61.4)
        } else if self.carrier_hz == 73e9 {
            Some(69.8)
        } else {
            None
        }
    }

    /// Median of the beamforming-gain distribution, chosen so that the piecewise-linear
    /// quantile function through (0, min), (0.1, p10), (0.5, median), (0.9, p90),
    /// (1, max) has the requested mean: mean = 0.05 min + 0.25 p10 + 0.4 median +
    /// 0.25 p90 + 0.05 max. Defaults: (28.2 - 1 - 6.15 - 7.675 - 1.6) / 0.4 = 29.4375 dB
    /// (left-skewed, as a gain capped by the array size should be).
    pub fn bf_gain_median_db(&self) -> f64 {
        (self.bf_gain_mean_db
            - 0.05 * self.bf_gain_min_db
            - 0.25 * self.bf_gain_p10_db
            - 0.25 * self.bf_gain_p90_db
            - 0.05 * self.bf_gain_max_db)
            / 0.4
    }

    fn bf_quantile_knots(&self) -> [(f64, f64); 5] {
        [
            (0.0, self.bf_gain_min_db),
            (0.1, self.bf_gain_p10_db),
            (0.5, self.bf_gain_median_db()),
            (0.9, self.bf_gain_p90_db),
            (1.0, self.bf_gain_max_db),
        ]
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.los_intercept_db().is_none() {
            return Err(format!(
                "carrier_hz = {}: must be 28e9 or 73e9 (the mmWave module's LoS model knows only these)",
                self.carrier_hz
            ));
        }
        link_budget(
            self.bandwidth_hz,
            self.gnb_tx_power_dbm,
            self.ue_tx_power_dbm,
            self.noise_figure_db,
        )?;
        non_negative("blockage_loss_db", self.blockage_loss_db)?;
        non_negative("blockage_ramp_s", self.blockage_ramp_s)?;
        positive("bf_redraw_s", self.bf_redraw_s)?;
        for (k, v) in [
            ("bf_gain_mean_db", self.bf_gain_mean_db),
            ("bf_gain_p10_db", self.bf_gain_p10_db),
            ("bf_gain_p90_db", self.bf_gain_p90_db),
            ("bf_gain_min_db", self.bf_gain_min_db),
            ("bf_gain_max_db", self.bf_gain_max_db),
        ] {
            finite(k, v)?;
        }
        let m = self.bf_gain_median_db();
        if !(self.bf_gain_min_db <= self.bf_gain_p10_db
            && self.bf_gain_p10_db <= m
            && m <= self.bf_gain_p90_db
            && self.bf_gain_p90_db <= self.bf_gain_max_db)
        {
            return Err(format!(
                "bf_gain_mean_db = {}: with min {} / p10 {} / p90 {} / max {} it needs a median of {m:.2} dB, \
                 which must lie between p10 and p90 (and min <= p10 <= p90 <= max)",
                self.bf_gain_mean_db,
                self.bf_gain_min_db,
                self.bf_gain_p10_db,
                self.bf_gain_p90_db,
                self.bf_gain_max_db
            ));
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// 3GPP profile
// ---------------------------------------------------------------------------------------

/// 38.901 scenario of Table 7.4.1-1.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum GppScenario {
    /// UMi - street canyon.
    Umi,
    /// UMa.
    Uma,
}

/// The `3gpp` profile (TR 38.901 UMi street canyon / UMa, NR numerology, 38.214 MCS).
#[derive(Clone, Debug, PartialEq, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ThreeGppParams {
    pub scenario: GppScenario,
    /// Carrier (Hz); 38.901 path loss is valid 0.5-100 GHz.
    pub carrier_hz: f64,
    /// Channel bandwidth (Hz). Default 400 MHz, the largest single NR carrier at
    /// 120 kHz (TS 38.101-2 Table 5.3.2-1: 264 PRBs); 1e9 gives the ns-3 profile's band
    /// (660 PRBs by the 95% rule, as carrier aggregation would).
    pub bandwidth_hz: f64,
    /// NR numerology (TS 38.211 4.2); default 3 (120 kHz, 125 us slots).
    pub mu: u8,
    /// Data symbols per 14-symbol slot (default 11, see `mcs::NR_DEFAULT_DATA_SYMBOLS`).
    pub data_symbols: u32,
    /// TS 38.214 PDSCH MCS table: "qam64" (Table 5.1.3.1-1, the default table) or
    /// "qam256" (Table 5.1.3.1-2).
    pub mcs_table: NrMcsTable,
    /// Transmit power of the gNB: 30 dBm like the ns-3 profile, so the two profiles
    /// differ only in propagation.
    pub gnb_tx_power_dbm: f64,
    /// Transmit power of the UE (its ACKs).
    pub ue_tx_power_dbm: f64,
    /// Receiver noise figure; noise is counted over the occupied band.
    pub noise_figure_db: f64,
    /// Beamforming (array) gains (dB): 10 log10 of the element count with ideal beam
    /// alignment, same arrays as the ns-3 profile (64 gNB -> 18.06 dB, 16 UE -> 12.04 dB).
    pub gnb_antenna_gain_db: f64,
    /// Array gain of the UE (16 elements: 12.04 dB).
    pub ue_antenna_gain_db: f64,
    /// Log-normal shadowing on/off.
    pub shadowing: bool,
    /// Shadowing sigmas (dB); absent = 38.901 Table 7.4.1-1 (UMi 4 / 7.82, UMa 4 / 6).
    pub shadowing_sigma_los_db: Option<f64>,
    /// Shadowing sigma in NLoS; absent: 38.901's (UMi 7.82, UMa 6).
    pub shadowing_sigma_nlos_db: Option<f64>,
    /// Shadowing decorrelation distances (m); absent = 38.901 Table 7.5-6 Part-1
    /// (UMi 10 LoS / 13 NLoS, UMa 37 / 50).
    pub decorrelation_los_m: Option<f64>,
    /// Shadowing decorrelation distance in NLoS; absent: 38.901's (UMi 13, UMa 50).
    pub decorrelation_nlos_m: Option<f64>,
    /// Extra loss (dB) of one tree crown on the LoS path: ITU-R P.833 (attenuation in
    /// vegetation) gives a loss growing with the path length in foliage and saturating;
    /// at 28 GHz a single in-leaf crown measures about 10-20 dB. 15 dB, mid-range.
    pub tree_loss_db: f64,
    /// Extra loss (dB) of a human body: 38.901 7.6.4.1 blockage model A, 20 dB per
    /// non-self-blocking blocker (30 dB is its self-blocking value).
    pub human_loss_db: f64,
    /// Extra loss (dB) of a vehicle: 38.901 7.4.3.2 car penetration loss is 9 dB
    /// (mu, sigma 5) through windows and 20 dB with metal-coated windows; a whole car
    /// body on the path is at least the latter: 20 dB.
    pub vehicle_loss_db: f64,
    /// Extra loss (dB) of a lamppost: a 0.2-0.3 m metal pole a few metres from the UE
    /// covers about one first-Fresnel-zone width at 28 GHz; knife-edge diffraction round
    /// both sides (38.901 7.6.4.2 model B's formula) gives about 8-12 dB. 10 dB.
    pub lamppost_loss_db: f64,
}

impl Default for ThreeGppParams {
    fn default() -> Self {
        ThreeGppParams {
            scenario: GppScenario::Umi,
            carrier_hz: 28e9,
            bandwidth_hz: 400e6,
            mu: 3,
            data_symbols: NR_DEFAULT_DATA_SYMBOLS,
            mcs_table: NrMcsTable::Qam64,
            gnb_tx_power_dbm: 30.0,
            ue_tx_power_dbm: 30.0,
            noise_figure_db: 5.0,
            gnb_antenna_gain_db: 10.0 * 64f64.log10(),
            ue_antenna_gain_db: 10.0 * 16f64.log10(),
            shadowing: true,
            shadowing_sigma_los_db: None,
            shadowing_sigma_nlos_db: None,
            decorrelation_los_m: None,
            decorrelation_nlos_m: None,
            tree_loss_db: 15.0,
            human_loss_db: 20.0,
            vehicle_loss_db: 20.0,
            lamppost_loss_db: 10.0,
        }
    }
}

impl ThreeGppParams {
    /// (sigma LoS, sigma NLoS) in dB: 38.901 Table 7.4.1-1 unless overridden.
    pub fn shadowing_sigmas_db(&self) -> (f64, f64) {
        let (l, n) = match self.scenario {
            GppScenario::Umi => (4.0, 7.82),
            GppScenario::Uma => (4.0, 6.0),
        };
        (
            self.shadowing_sigma_los_db.unwrap_or(l),
            self.shadowing_sigma_nlos_db.unwrap_or(n),
        )
    }

    /// (LoS, NLoS) shadowing decorrelation distances (m): 38.901 Table 7.5-6 Part-1
    /// unless overridden.
    pub fn decorrelation_m(&self) -> (f64, f64) {
        let (l, n) = match self.scenario {
            GppScenario::Umi => (10.0, 13.0),
            GppScenario::Uma => (37.0, 50.0),
        };
        (
            self.decorrelation_los_m.unwrap_or(l),
            self.decorrelation_nlos_m.unwrap_or(n),
        )
    }

    /// Extra loss (dB) of one obstacle of `class` on the path; buildings switch the path
    /// loss to the NLoS formula instead (0 here). Several obstacles add up in dB (each
    /// blocker entry counts once), on top of LoS or, if a building blocks, NLoS loss.
    pub fn class_loss_db(&self, class: ObstacleClass) -> f64 {
        match class {
            ObstacleClass::Building => 0.0,
            ObstacleClass::Tree => self.tree_loss_db,
            ObstacleClass::Human => self.human_loss_db,
            ObstacleClass::Vehicle => self.vehicle_loss_db,
            ObstacleClass::Lamppost => self.lamppost_loss_db,
        }
    }

    /// Occupied bandwidth N_PRB x 12 x SCS (Hz), over which noise is counted.
    pub fn occupied_bandwidth_hz(&self) -> f64 {
        f64::from(nr_prbs(self.bandwidth_hz, self.mu) * 12) * 15e3 * f64::from(1u32 << self.mu)
    }

    pub fn validate(&self) -> Result<(), String> {
        if !(0.5e9..=100e9).contains(&self.carrier_hz) {
            return Err(format!(
                "carrier_hz = {}: must be within 0.5e9..=100e9 (38.901's range)",
                self.carrier_hz
            ));
        }
        if self.mu > 4 {
            return Err(format!(
                "mu = {}: must be 0..=4 (TS 38.211 numerologies)",
                self.mu
            ));
        }
        if !(1..=14).contains(&self.data_symbols) {
            return Err(format!(
                "data_symbols = {}: must be 1..=14",
                self.data_symbols
            ));
        }
        link_budget(
            self.bandwidth_hz,
            self.gnb_tx_power_dbm,
            self.ue_tx_power_dbm,
            self.noise_figure_db,
        )?;
        finite("gnb_antenna_gain_db", self.gnb_antenna_gain_db)?;
        finite("ue_antenna_gain_db", self.ue_antenna_gain_db)?;
        for (k, v) in [
            ("shadowing_sigma_los_db", self.shadowing_sigma_los_db),
            ("shadowing_sigma_nlos_db", self.shadowing_sigma_nlos_db),
        ] {
            if let Some(v) = v {
                non_negative(k, v)?;
            }
        }
        for (k, v) in [
            ("decorrelation_los_m", self.decorrelation_los_m),
            ("decorrelation_nlos_m", self.decorrelation_nlos_m),
        ] {
            if let Some(v) = v {
                positive(k, v)?;
            }
        }
        non_negative("tree_loss_db", self.tree_loss_db)?;
        non_negative("human_loss_db", self.human_loss_db)?;
        non_negative("vehicle_loss_db", self.vehicle_loss_db)?;
        non_negative("lamppost_loss_db", self.lamppost_loss_db)?;
        Ok(())
    }
}

/// Speed of light as 38.901 uses it (Table 7.4.1-1 note 1: c = 3.0 x 10^8 m/s).
const C_38901: f64 = 3.0e8;

/// 38.901 Table 7.4.1-1 LoS path loss (dB) for the given distances (m), antenna heights
/// (m) and carrier (GHz), with the breakpoint distance of note 1,
/// `d'_BP = 4 h'_BS h'_UT f_c / c`, `h' = h - h_E`, `h_E = 1 m` (UMi always; UMa for
/// h_UT < 13 m, where C(d_2D, h_UT) = 0 in Table 7.4.1-1 note 1).
/// * UMi: PL1 = 32.4 + 21 log10(d_3D) + 20 log10(f_c) for d_2D <= d'_BP,
///   PL2 = 32.4 + 40 log10(d_3D) + 20 log10(f_c) - 9.5 log10(d'_BP^2 + (h_BS - h_UT)^2).
/// * UMa: PL1 = 28.0 + 22 log10(d_3D) + 20 log10(f_c),
///   PL2 = 28.0 + 40 log10(d_3D) + 20 log10(f_c) - 9 log10(d'_BP^2 + (h_BS - h_UT)^2).
///
/// Inputs are taken as given; [`Channel`] clamps d_2D to >= 10 m first.
pub fn pl_38901_los_db(
    scn: GppScenario,
    d2d: f64,
    d3d: f64,
    h_bs: f64,
    h_ut: f64,
    fc_ghz: f64,
) -> f64 {
    let d_bp = 4.0 * (h_bs - 1.0).max(0.0) * (h_ut - 1.0).max(0.0) * fc_ghz * 1e9 / C_38901;
    let fc_term = 20.0 * fc_ghz.log10();
    let (a, b, k) = match scn {
        GppScenario::Umi => (32.4, 21.0, 9.5),
        GppScenario::Uma => (28.0, 22.0, 9.0),
    };
    if d2d <= d_bp {
        a + b * d3d.log10() + fc_term
    } else {
        let dh = h_bs - h_ut;
        a + 40.0 * d3d.log10() + fc_term - k * (d_bp * d_bp + dh * dh).log10()
    }
}

/// 38.901 Table 7.4.1-1 NLoS path loss (dB): `max(PL_LOS, PL'_NLOS)` with
/// * UMi: PL'_NLOS = 35.3 log10(d_3D) + 22.4 + 21.3 log10(f_c) - 0.3 (h_UT - 1.5);
/// * UMa: PL'_NLOS = 13.54 + 39.08 log10(d_3D) + 20 log10(f_c) - 0.6 (h_UT - 1.5).
pub fn pl_38901_nlos_db(
    scn: GppScenario,
    d2d: f64,
    d3d: f64,
    h_bs: f64,
    h_ut: f64,
    fc_ghz: f64,
) -> f64 {
    let los = pl_38901_los_db(scn, d2d, d3d, h_bs, h_ut, fc_ghz);
    let nlos = match scn {
        GppScenario::Umi => 35.3 * d3d.log10() + 22.4 + 21.3 * fc_ghz.log10() - 0.3 * (h_ut - 1.5),
        GppScenario::Uma => {
            13.54 + 39.08 * d3d.log10() + 20.0 * fc_ghz.log10() - 0.6 * (h_ut - 1.5)
        }
    };
    los.max(nlos)
}

// ---------------------------------------------------------------------------------------
// Profile
// ---------------------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
pub enum Profile {
    Ns3Mmwave(Ns3MmwaveParams),
    ThreeGpp(ThreeGppParams),
}

impl Default for Profile {
    fn default() -> Self {
        Profile::Ns3Mmwave(Ns3MmwaveParams::default())
    }
}

fn finite(key: &str, v: f64) -> Result<(), String> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(format!("{key} = {v}: must be a finite number"))
    }
}

/// The checks both profiles make on the band, the powers and the noise figure.
fn link_budget(
    bandwidth_hz: f64,
    gnb_dbm: f64,
    ue_dbm: f64,
    noise_figure_db: f64,
) -> Result<(), String> {
    positive("bandwidth_hz", bandwidth_hz)?;
    finite("gnb_tx_power_dbm", gnb_dbm)?;
    finite("ue_tx_power_dbm", ue_dbm)?;
    non_negative("noise_figure_db", noise_figure_db)
}

fn positive(key: &str, v: f64) -> Result<(), String> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(format!("{key} = {v}: must be > 0"))
    }
}

fn non_negative(key: &str, v: f64) -> Result<(), String> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(format!("{key} = {v}: must be >= 0"))
    }
}

impl Profile {
    /// "ns3-mmwave" or "3gpp".
    pub fn name(&self) -> &'static str {
        match self {
            Profile::Ns3Mmwave(_) => "ns3-mmwave",
            Profile::ThreeGpp(_) => "3gpp",
        }
    }

    /// Errors read "key = value: must be ...".
    pub fn validate(&self) -> Result<(), String> {
        match self {
            Profile::Ns3Mmwave(p) => p.validate(),
            Profile::ThreeGpp(p) => p.validate(),
        }
    }

    /// ns3-2d for ns3-mmwave, exact-3d for 3gpp.
    pub fn default_los_test(&self) -> LosTest {
        match self {
            Profile::Ns3Mmwave(_) => LosTest::Ns32d,
            Profile::ThreeGpp(_) => LosTest::Exact3d,
        }
    }

    /// Thermal noise over the band + NF (dBm): ns3 over the whole 1 GHz (-79 dBm, the reference network's);
    /// 3gpp over the occupied N_PRB x 12 x SCS (400 MHz carrier: 380.16 MHz, -83.2 dBm).
    pub fn noise_dbm(&self) -> f64 {
        match self {
            Profile::Ns3Mmwave(p) => thermal_noise_dbm(p.bandwidth_hz, p.noise_figure_db),
            Profile::ThreeGpp(p) => thermal_noise_dbm(p.occupied_bandwidth_hz(), p.noise_figure_db),
        }
    }

    pub fn tx_power_dbm(&self, downlink: bool) -> f64 {
        let (g, u) = match self {
            Profile::Ns3Mmwave(p) => (p.gnb_tx_power_dbm, p.ue_tx_power_dbm),
            Profile::ThreeGpp(p) => (p.gnb_tx_power_dbm, p.ue_tx_power_dbm),
        };
        if downlink { g } else { u }
    }

    pub fn numerology(&self) -> Numerology {
        match self {
            Profile::Ns3Mmwave(_) => Numerology::NS3_MMWAVE,
            Profile::ThreeGpp(p) => Numerology::nr(p.mu, p.data_symbols),
        }
    }

    pub fn mcs_table(&self) -> McsTable {
        match self {
            Profile::Ns3Mmwave(p) => match p.channel {
                Ns3Channel::Wideband => McsTable::ns3_mmwave(),
                Ns3Channel::Multipath => McsTable::ns3_mmwave_mi(),
            },
            Profile::ThreeGpp(p) => McsTable::nr(p.mcs_table, p.bandwidth_hz, p.mu),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Channel
// ---------------------------------------------------------------------------------------

/// ns-3 profile state: the `MmWaveLosTracker` counters in trace samples (continuous:
/// advanced by elapsed time x 340 / ramp) and the current beamforming gain.
#[derive(Clone, Debug)]
struct Ns3State {
    los_intercept_db: f64,
    /// blockage_loss_db / 35.964785: scales the measured trace to the configured steady
    /// value.
    ramp_scale: f64,
    /// Trace samples per second (340 / ramp_s); infinite for an instant step.
    samples_per_s: f64,
    steady_db: f64,
    bf_knots: [(f64, f64); 5],
    bf_redraw_s: f64,
    bf_gain_db: f64,
    /// Index of the redraw period the current draw belongs to.
    bf_epoch: f64,
    /// The frequency-selective gain (`channel = "multipath"`) and the UE's position at
    /// the last update (for its velocity).
    multipath: Option<Box<Multipath>>,
    last_ue: Point,
    /// `nlosSamples`: progress of the drop phase (0..=340).
    n_down: f64,
    /// `losSamples`: progress of the recovery phase (0..340).
    n_up: f64,
}

#[derive(Clone, Debug)]
struct GppState {
    scenario: GppScenario,
    fc_ghz: f64,
    antenna_gain_db: f64,
    sigma_los_db: f64,
    sigma_nlos_db: f64,
    dcorr_los_m: f64,
    dcorr_nlos_m: f64,
    /// Shadowing is advanced whenever the UE has moved this far (m) since the last
    /// advance: min decorrelation distance / 50.
    step_m: f64,
    shadowing: bool,
    class_loss_db: [f64; 5],
    /// Unit-variance AR(1) shadowing processes for the LoS and NLoS states.
    z_los: f64,
    z_nlos: f64,
    last_ue: Point,
    travelled_m: f64,
    spare_normal: Option<f64>,
}

#[derive(Clone, Debug)]
enum Model {
    Ns3(Ns3State),
    Gpp(GppState),
}

/// The channel between one gNB and one UE (reciprocal: same gain both directions).
#[derive(Clone, Debug)]
pub struct Channel {
    rng: Rng,
    model: Model,
    started: bool,
    last_t_s: f64,
    prev_blocked: bool,
    nlos: bool,
    excess_db: f64,
    shadowing_db: f64,
    path_loss_db: f64,
    gain_db: f64,
}

fn class_index(c: ObstacleClass) -> usize {
    match c {
        ObstacleClass::Tree => 0,
        ObstacleClass::Building => 1,
        ObstacleClass::Vehicle => 2,
        ObstacleClass::Human => 3,
        ObstacleClass::Lamppost => 4,
    }
}

/// One standard normal by Box-Muller (the pair's second value is kept for the next call).
fn std_normal(rng: &mut Rng, spare: &mut Option<f64>) -> f64 {
    if let Some(z) = spare.take() {
        return z;
    }
    // u1 in (0, 1] so ln(u1) is finite.
    let u1 = 1.0 - rng.random::<f64>();
    let u2: f64 = rng.random::<f64>();
    let r = (-2.0 * u1.ln()).sqrt();
    let (s, c) = (std::f64::consts::TAU * u2).sin_cos();
    *spare = Some(r * s);
    r * c
}

impl Channel {
    /// A fresh channel; all its randomness comes from `rng` (one stream per pair).
    /// The profile is assumed valid ([`Profile::validate`]).
    pub fn new(profile: &Profile, mut rng: Rng) -> Self {
        let model = match profile {
            Profile::Ns3Mmwave(p) => Model::Ns3(Ns3State {
                los_intercept_db: p.los_intercept_db().unwrap_or(61.4),
                ramp_scale: p.blockage_loss_db / NS3_TRACE_STEADY_DB,
                samples_per_s: if p.blockage_ramp_s > 0.0 {
                    NS3_TRACE_SAMPLES / p.blockage_ramp_s
                } else {
                    f64::INFINITY
                },
                steady_db: p.blockage_loss_db,
                bf_knots: p.bf_quantile_knots(),
                bf_redraw_s: p.bf_redraw_s,
                bf_gain_db: p.bf_gain_mean_db,
                bf_epoch: f64::NEG_INFINITY,
                multipath: match p.channel {
                    Ns3Channel::Wideband => None,
                    Ns3Channel::Multipath => Some(Box::new(Multipath::new(p.carrier_hz))),
                },
                last_ue: Point::default(),
                n_down: 0.0,
                n_up: 0.0,
            }),
            Profile::ThreeGpp(p) => {
                let (sigma_los_db, sigma_nlos_db) = p.shadowing_sigmas_db();
                let (dcorr_los_m, dcorr_nlos_m) = p.decorrelation_m();
                let mut class_loss_db = [0.0; 5];
                for c in ObstacleClass::ALL {
                    class_loss_db[class_index(c)] = p.class_loss_db(c);
                }
                let mut spare = None;
                let z_los = std_normal(&mut rng, &mut spare);
                let z_nlos = std_normal(&mut rng, &mut spare);
                Model::Gpp(GppState {
                    scenario: p.scenario,
                    fc_ghz: p.carrier_hz / 1e9,
                    antenna_gain_db: p.gnb_antenna_gain_db + p.ue_antenna_gain_db,
                    sigma_los_db,
                    sigma_nlos_db,
                    dcorr_los_m,
                    dcorr_nlos_m,
                    step_m: dcorr_los_m.min(dcorr_nlos_m) / 50.0,
                    shadowing: p.shadowing,
                    class_loss_db,
                    z_los,
                    z_nlos,
                    last_ue: Point::default(),
                    travelled_m: 0.0,
                    spare_normal: spare,
                })
            }
        };
        Channel {
            rng,
            model,
            started: false,
            last_t_s: 0.0,
            prev_blocked: false,
            nlos: false,
            excess_db: 0.0,
            shadowing_db: 0.0,
            path_loss_db: 0.0,
            gain_db: 0.0,
        }
    }

    /// Advances the channel's processes (blockage ramps, beamforming redraws, correlated
    /// shadowing) to `t_s` (increasing times, typically every 1 ms) and returns the
    /// channel gain in dB: antenna/beamforming gains minus path loss, shadowing and
    /// blockage loss (ns3, LoS: about 28.2 - 61.4 - 20 log10(d)). `blockers` are the
    /// classes of the obstacles on the path ([`super::geometry::blockers`]); empty = LoS.
    pub fn update(&mut self, t_s: f64, gnb: Point, ue: Point, blockers: &[ObstacleClass]) -> f64 {
        let first = !self.started;
        let dt = if first {
            0.0
        } else {
            (t_s - self.last_t_s).max(0.0)
        };
        let blocked = !blockers.is_empty();
        let prev_blocked = self.prev_blocked;
        let Channel { rng, model, .. } = self;
        let gain = match model {
            Model::Ns3(s) => {
                // Beamforming + fading gain: i.i.d. draws on the grid k x bf_redraw_s,
                // inverse-CDF of the piecewise-linear quantile function (reference network: mean
                // 28.2 dB, 10-90% 24.6-30.7 dB, 20-32 dB, every 100 ms, independent of
                // position).
                // The epoch index gets a 1e-9 relative tolerance so that t = k x period
                // computed from integer nanoseconds lands in epoch k.
                let epoch = (t_s / s.bf_redraw_s + 1e-9).floor();
                let redraw = first || epoch > s.bf_epoch;
                if redraw {
                    s.bf_epoch = epoch;
                }
                if let Some(mp) = s.multipath.as_deref_mut() {
                    // The module's instance redraw, then its gain formula at this time
                    // and the UE's velocity (the gNB does not move).
                    if redraw {
                        let mut spare = None;
                        mp.set_instance(draw_amplitudes(rng, &mut |r| std_normal(r, &mut spare)));
                    }
                    let speed = if first {
                        0.0
                    } else {
                        relative_speed(s.last_ue, ue, dt)
                    };
                    mp.evaluate(t_s, speed);
                    s.bf_gain_db = mp.wideband_gain_db();
                    s.last_ue = ue;
                } else if redraw {
                    let u: f64 = rng.random::<f64>();
                    s.bf_gain_db = interp(&s.bf_knots, u);
                }
                // LoS path loss: 61.4 + 20 log10(d), d = 3D distance (docs/model.md's table;
                // `mmWaveLosLoss`), d floored at 1 m.
                let d = gnb.distance(ue).max(1.0);
                let pl = s.los_intercept_db + 20.0 * d.log10();
                // Blockage: the `MmWaveLosTracker` state machine (see `ns3_excess`).
                let ds = dt * s.samples_per_s;
                let excess = if s.samples_per_s.is_infinite() {
                    s.n_up = 0.0;
                    s.n_down = if blocked { NS3_TRACE_SAMPLES } else { 0.0 };
                    if blocked { s.steady_db } else { 0.0 }
                } else {
                    ns3_excess(s, blocked, prev_blocked, first && t_s <= 0.0, ds)
                };
                self.nlos = blocked || s.n_down > 0.0;
                self.excess_db = excess;
                self.shadowing_db = 0.0;
                self.path_loss_db = pl;
                s.bf_gain_db - pl - excess
            }
            Model::Gpp(s) => {
                let building = blockers.contains(&ObstacleClass::Building);
                let mut excess = 0.0;
                for &c in blockers {
                    excess += s.class_loss_db[class_index(c)];
                }
                // 38.901 Table 7.4.1-1 validity: d_2D >= 10 m; h_UT 1.5-22.5 m.
                let h_bs = gnb.z;
                let h_ut = ue.z.clamp(1.5, 22.5);
                let d2d = gnb.distance_2d(ue).max(10.0);
                let dh = h_bs - h_ut;
                let d3d = (d2d * d2d + dh * dh).sqrt();
                let pl = if building {
                    pl_38901_nlos_db(s.scenario, d2d, d3d, h_bs, h_ut, s.fc_ghz)
                } else {
                    pl_38901_los_db(s.scenario, d2d, d3d, h_bs, h_ut, s.fc_ghz)
                };
                // Shadowing: AR(1) in travelled distance, rho = exp(-dd / d_corr)
                // (38.901 7.5 step 1 / 7.6.3.1 exponential spatial correlation,
                // Gudmundson 1991), advanced every step_m of UE travel (exact for a
                // Markov process sampled at those points).
                let sf = if s.shadowing {
                    if first {
                        s.last_ue = ue;
                    } else {
                        s.travelled_m += ue.distance(s.last_ue);
                        s.last_ue = ue;
                        if s.travelled_m >= s.step_m {
                            let dd = s.travelled_m;
                            s.travelled_m = 0.0;
                            let rl = (-dd / s.dcorr_los_m).exp();
                            let rn = (-dd / s.dcorr_nlos_m).exp();
                            let nl = std_normal(rng, &mut s.spare_normal);
                            let nn = std_normal(rng, &mut s.spare_normal);
                            s.z_los = rl * s.z_los + (1.0 - rl * rl).sqrt() * nl;
                            s.z_nlos = rn * s.z_nlos + (1.0 - rn * rn).sqrt() * nn;
                        }
                    }
                    if building {
                        s.sigma_nlos_db * s.z_nlos
                    } else {
                        s.sigma_los_db * s.z_los
                    }
                } else {
                    0.0
                };
                self.nlos = blocked;
                self.excess_db = excess;
                self.shadowing_db = sf;
                self.path_loss_db = pl;
                s.antenna_gain_db - pl - sf - excess
            }
        };
        self.started = true;
        self.last_t_s = t_s;
        self.prev_blocked = blocked;
        self.gain_db = gain;
        gain
    }

    /// True while the channel counts as NLoS: blocked now (ns3: including the drop
    /// ramp) or, ns3 only, in the recovery ramp after a blockage.
    pub fn is_nlos(&self) -> bool {
        self.nlos
    }

    /// The last gain returned by [`Channel::update`] (dB).
    pub fn gain_db(&self) -> f64 {
        self.gain_db
    }

    /// Blockage loss in the last gain (dB): ns3 ramp/steady value, 3gpp per-class sum.
    pub fn excess_loss_db(&self) -> f64 {
        self.excess_db
    }

    /// Shadowing in the last gain (dB, 3gpp; 0 for ns3).
    pub fn shadowing_db(&self) -> f64 {
        self.shadowing_db
    }

    /// Path loss in the last gain (dB).
    pub fn path_loss_db(&self) -> f64 {
        self.path_loss_db
    }

    /// Per-chunk gain over the wideband gain (`multipath` channel), else none (flat).
    pub fn chunk_gain_ratios(&self) -> Option<&[f64]> {
        match &self.model {
            Model::Ns3(s) => s.multipath.as_deref().map(|m| &m.chunk_ratios()[..]),
            Model::Gpp(_) => None,
        }
    }

    /// Current beamforming gain (dB): the ns3 draw (multipath: its wideband mean), or
    /// the 3gpp array gains.
    pub fn beamforming_gain_db(&self) -> f64 {
        match &self.model {
            Model::Ns3(s) => s.bf_gain_db,
            Model::Gpp(s) => s.antenna_gain_db,
        }
    }
}

/// The `MmWaveLosTracker::UpdateLosNlosState` + `GetLoss` state machine with counters in
/// (fractional) trace samples. Returns the excess loss (dB).
/// * blocked, drop not finished: `n_down` advances (a link blocked at its first update at
///   t = 0 starts in the steady phase, as the module does at simulation time 0);
///   excess = down-trace(n_down);
/// * blocked, drop finished: steady `blockage_loss_db`;
/// * LoS after a blockage (`n_down > 0`): recovery; `n_up` advances; excess =
///   up-trace(u) with u = n_up after a full drop, u = 340 - n_down + n_up after a partial
///   one (the module skips the part of the recovery matching the missing drop); when
///   `n_up` reaches 340 both counters reset. A blockage during the recovery resumes the
///   drop where `n_down` stands (steady if it had finished) and keeps `n_up`, as the
///   module does.
///
/// A phase entered at this update starts at its current counter (no advance), so the
/// first recovery value is the trace's 44.6 dB.
fn ns3_excess(s: &mut Ns3State, blocked: bool, prev_blocked: bool, at_start: bool, ds: f64) -> f64 {
    let full = NS3_TRACE_SAMPLES;
    if blocked {
        if s.n_down < full {
            if at_start {
                s.n_down = full;
            } else if prev_blocked {
                s.n_down = (s.n_down + ds).min(full);
            }
        }
        if s.n_down >= full {
            s.steady_db
        } else {
            s.ramp_scale * interp(&NS3_DOWN_KNOTS, s.n_down)
        }
    } else if s.n_down > 0.0 {
        if !prev_blocked {
            s.n_up += ds;
        }
        if s.n_up >= full {
            s.n_up = 0.0;
            s.n_down = 0.0;
            return 0.0;
        }
        let u = if s.n_down < full {
            full - s.n_down + s.n_up
        } else {
            s.n_up
        };
        if u >= NS3_UP_KNOTS[NS3_UP_KNOTS.len() - 1].0 {
            0.0
        } else {
            s.ramp_scale * interp(&NS3_UP_KNOTS, u)
        }
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn rng(seed: u64) -> Rng {
        Rng::seed_from_u64(seed)
    }

    const GNB: Point = Point::new(0.0, 0.0, 15.0);
    const B: [ObstacleClass; 1] = [ObstacleClass::Building];

    fn ns3() -> Profile {
        Profile::Ns3Mmwave(Ns3MmwaveParams::default())
    }

    #[test]
    fn ns3_profile_basics() {
        let p = ns3();
        p.validate().unwrap();
        assert!((p.noise_dbm() - (-79.0)).abs() < 1e-12); // -174 + 90 + 5
        assert_eq!(p.tx_power_dbm(true), 30.0);
        assert_eq!(p.default_los_test(), LosTest::Ns32d);
        assert_eq!(p.numerology(), Numerology::NS3_MMWAVE);
        assert_eq!(p.mcs_table().highest_mcs(), 28);
        let mut bad = Ns3MmwaveParams {
            carrier_hz: 60e9,
            ..Default::default()
        };
        assert!(
            Profile::Ns3Mmwave(bad.clone())
                .validate()
                .unwrap_err()
                .starts_with("carrier_hz = ")
        );
        bad.carrier_hz = 28e9;
        bad.bf_gain_mean_db = 31.5;
        assert!(
            bad.validate()
                .unwrap_err()
                .starts_with("bf_gain_mean_db = 31.5")
        );
        // serde: defaults fill in, unknown keys rejected.
        let q: Ns3MmwaveParams = serde_json::from_str(r#"{"blockage_ramp_s": 0.02}"#).unwrap();
        assert_eq!(q.blockage_ramp_s, 0.02);
        assert_eq!(q.blockage_loss_db, 35.964785);
        assert!(serde_json::from_str::<Ns3MmwaveParams>(r#"{"nope": 1}"#).is_err());
    }

    #[test]
    fn ns3_los_path_loss_and_snr() {
        let mut ch = Channel::new(&ns3(), rng(1));
        // UE at 100 m horizontal, 13.5 m lower: d = sqrt(10000 + 182.25) = 100.907 m,
        // PL = 61.4 + 20 log10(100.907) = 61.4 + 40.0784 = 101.4784 dB.
        let ue = Point::new(100.0, 0.0, 1.5);
        let g = ch.update(0.0, GNB, ue, &[]);
        assert!((ch.path_loss_db() - 101.4784).abs() < 1e-3);
        assert!((g - (ch.beamforming_gain_db() - 101.4784)).abs() < 1e-3);
        assert!(!ch.is_nlos());
        // Pure formula check at d = 10 m: 61.4 + 20 = 81.4 dB.
        ch.update(0.001, GNB, Point::new(0.0, 0.0, 5.0), &[]);
        assert!((ch.path_loss_db() - 81.4).abs() < 1e-12);
    }

    #[test]
    fn beamforming_gain_distribution_and_redraw_period() {
        let mut ch = Channel::new(&ns3(), rng(7));
        let ue = Point::new(50.0, 0.0, 1.5);
        let mut draws = Vec::new();
        let mut last = f64::NAN;
        let mut changes_off_grid = 0;
        // 2000 s at 1 ms: 20,000 redraw periods.
        for k in 0..2_000_000u64 {
            let t = k as f64 * 1e-3;
            ch.update(t, GNB, ue, &[]);
            let g = ch.beamforming_gain_db();
            if g != last {
                if k % 100 != 0 {
                    changes_off_grid += 1;
                }
                last = g;
            }
            if k % 100 == 0 {
                draws.push(g);
            }
        }
        // Constant within each 100 ms, redrawn on the 100 ms grid.
        assert_eq!(changes_off_grid, 0);
        let n = draws.len() as f64;
        let mean = draws.iter().sum::<f64>() / n;
        draws.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let q = |p: f64| draws[(p * (n - 1.0)) as usize];
        assert!((mean - 28.2).abs() < 0.05, "mean {mean}");
        assert!((q(0.1) - 24.6).abs() < 0.15, "p10 {}", q(0.1));
        assert!((q(0.9) - 30.7).abs() < 0.1, "p90 {}", q(0.9));
        assert!(draws[0] >= 20.0 && draws[draws.len() - 1] <= 32.0);
        // Consecutive draws change (it is redrawn, not frozen): > 99% differ.
        assert!(draws.windows(2).filter(|w| w[0] != w[1]).count() as f64 > 0.99 * (n - 1.0));
    }

    /// Excess loss over time with 1 ms updates: blocked from `on` to `off` seconds.
    fn excess_trace(p: &Profile, on: f64, off: f64, until: f64) -> Vec<(f64, f64, bool)> {
        let mut ch = Channel::new(p, rng(3));
        let ue = Point::new(0.0, 68.0, 1.5);
        let mut out = Vec::new();
        let mut k = 0u64;
        loop {
            let t = k as f64 * 1e-3;
            if t > until + 1e-9 {
                break;
            }
            let blk: &[ObstacleClass] = if t >= on - 1e-9 && t < off - 1e-9 {
                &B
            } else {
                &[]
            };
            ch.update(t, GNB, ue, blk);
            out.push((t, ch.excess_loss_db(), ch.is_nlos()));
            k += 1;
        }
        out
    }

    fn at(tr: &[(f64, f64, bool)], t: f64) -> (f64, bool) {
        let i = (t * 1000.0).round() as usize;
        (tr[i].1, tr[i].2)
    }

    #[test]
    fn blockage_ramp_shape() {
        // Blocked from 1.0 s to 2.0 s, 0.04 s ramps (340 samples = 40 ms, 8.5 per ms).
        let tr = excess_trace(&ns3(), 1.0, 2.0, 2.2);
        assert_eq!(at(&tr, 0.999), (0.0, false));
        // First 20 ms of the drop: the measured trace is still ~0 (sample 170 at 20 ms).
        assert!(at(&tr, 1.0).1 && at(&tr, 1.0).0 == 0.0);
        assert!(at(&tr, 1.015).0 < 0.5);
        // Sample 255 at 30 ms: between 12.53 (240) and 16.35 (260) -> 15.40 dB.
        assert!(
            (at(&tr, 1.030).0 - 15.395).abs() < 0.01,
            "{:?}",
            at(&tr, 1.030)
        );
        // Overshoot: the fitted curve peaks at 44.18 dB (sample 324, 38.1 ms); 1 ms
        // updates see sample 323 (31.59 + 0.8 x 12.59 = 41.66 dB).
        let curve_peak = (0..=3400)
            .map(|i| interp(&NS3_DOWN_KNOTS, i as f64 * 0.1))
            .fold(0.0, f64::max);
        assert!((curve_peak - 44.18).abs() < 1e-9);
        let peak = tr
            .iter()
            .filter(|x| x.0 > 1.0 && x.0 < 1.05)
            .map(|x| x.1)
            .fold(0.0, f64::max);
        assert!((peak - 41.662).abs() < 1e-6, "peak {peak}");
        // Steady 35.96 from 40 ms on.
        for t in [1.040, 1.1, 1.5, 1.999] {
            assert!(
                (at(&tr, t).0 - 35.964785).abs() < 1e-9,
                "{t}: {:?}",
                at(&tr, t)
            );
        }
        // Recovery: first LoS update at 44.63 dB, still NLoS; ~0 after 141 samples
        // (16.6 ms); the recovery phase ends after 40 ms.
        assert!((at(&tr, 2.0).0 - 44.63).abs() < 1e-9 && at(&tr, 2.0).1);
        let (e10, _) = at(&tr, 2.010); // sample 85: between 16.58 (80) and 15.57 (90)
        assert!((e10 - 16.075).abs() < 0.01, "{e10}");
        assert_eq!(at(&tr, 2.017).0, 0.0);
        assert!(at(&tr, 2.039).1);
        assert_eq!(at(&tr, 2.041), (0.0, false));
        // Over the whole recovery the loss never exceeds 44.63 dB.
        assert!(tr.iter().filter(|x| x.0 >= 2.0).all(|x| x.1 <= 44.63));
    }

    #[test]
    fn short_blockage_skips_part_of_the_recovery() {
        // Blocked for 10 ms (85 samples, excess still 0): recovery starts at
        // u = 340 - 85 = 255 > 141, i.e. no extra loss, yet the recovery phase runs 40 ms.
        let tr = excess_trace(&ns3(), 1.0, 1.010, 1.1);
        assert!(tr.iter().all(|x| x.1 == 0.0));
        assert!(at(&tr, 1.030).1 && !at(&tr, 1.060).1);
        // Blocked for 35 ms: the drop advances on the 34 updates after the first,
        // n = 289 samples -> 19.98 + 0.9 x (22.37 - 19.98) = 22.131 dB; the recovery
        // starts at u = 340 - 289 = 51 -> 24.95 + 0.3 x (25.71 - 24.95) = 25.178 dB.
        let tr = excess_trace(&ns3(), 1.0, 1.035, 1.1);
        let before = at(&tr, 1.034).0;
        let after = at(&tr, 1.035).0;
        assert!(
            (before - 22.131).abs() < 0.01 && (after - 25.178).abs() < 0.01,
            "{before} {after}"
        );
    }

    #[test]
    fn blocked_at_start_is_steady_and_ramp_zero_is_a_step() {
        let tr = excess_trace(&ns3(), 0.0, 0.5, 0.6);
        assert!((at(&tr, 0.0).0 - 35.964785).abs() < 1e-9);
        let p = Profile::Ns3Mmwave(Ns3MmwaveParams {
            blockage_ramp_s: 0.0,
            blockage_loss_db: 30.0,
            ..Default::default()
        });
        let tr = excess_trace(&p, 1.0, 1.5, 1.6);
        assert_eq!(at(&tr, 1.0).0, 30.0);
        assert_eq!(at(&tr, 1.5), (0.0, false));
        // A scaled steady value scales the whole ramp: overshoot 44.18 x 40/35.96.
        let p = Profile::Ns3Mmwave(Ns3MmwaveParams {
            blockage_loss_db: 40.0,
            ..Default::default()
        });
        let tr = excess_trace(&p, 1.0, 2.0, 2.1);
        assert!((at(&tr, 1.5).0 - 40.0).abs() < 1e-9);
        assert!((at(&tr, 2.0).0 - 44.63 * 40.0 / 35.964785).abs() < 1e-9);
    }

    #[test]
    fn gpp_38901_path_loss_formulas() {
        use GppScenario::*;
        // UMi LoS, hBS 10, hUT 1.5, 28 GHz: d'BP = 4 x 9 x 0.5 x 28e9 / 3e8 = 1680 m.
        // d2D = 100: d3D = sqrt(10000 + 72.25) = 100.3606; 32.4 + 21 x 2.001563 +
        // 20 x 1.447158 = 32.4 + 42.03282 + 28.94316 = 103.37598.
        let d3 = (100f64 * 100.0 + 8.5 * 8.5).sqrt();
        assert!((pl_38901_los_db(Umi, 100.0, d3, 10.0, 1.5, 28.0) - 103.3760).abs() < 1e-3);
        // Beyond the breakpoint, d2D = 2000: d3D = 2000.0181; 32.4 + 40 x 3.3010339 +
        // 28.94316 - 9.5 x log10(1680^2 + 72.25) (= 6.4506467 -> 61.281) = 132.1035.
        let d3 = (2000f64 * 2000.0 + 72.25).sqrt();
        assert!((pl_38901_los_db(Umi, 2000.0, d3, 10.0, 1.5, 28.0) - 132.1035).abs() < 1e-3);
        // Continuity at the breakpoint (the two slopes meet, by construction of PL2).
        let d3 = (1680f64 * 1680.0 + 72.25).sqrt();
        let below = pl_38901_los_db(Umi, 1680.0, d3, 10.0, 1.5, 28.0);
        let above = pl_38901_los_db(Umi, 1680.0 + 1e-9, d3, 10.0, 1.5, 28.0);
        assert!((below - above).abs() < 0.05, "{below} {above}");
        // UMi NLoS at d2D 100: 35.3 x 2.001563 + 22.4 + 21.3 x 1.447158 = 70.65517 +
        // 22.4 + 30.82447 = 123.8796 (> LoS 103.38).
        let d3 = (100f64 * 100.0 + 72.25).sqrt();
        assert!((pl_38901_nlos_db(Umi, 100.0, d3, 10.0, 1.5, 28.0) - 123.8796).abs() < 1e-3);
        // UMa LoS, hBS 25: d'BP = 4 x 24 x 0.5 x 93.333 = 4480 m. d2D 200: d3D =
        // sqrt(40000 + 552.25) = 201.3758; 28 + 22 x 2.304005 + 28.94316 = 107.6313.
        let d3 = (200f64 * 200.0 + 23.5 * 23.5).sqrt();
        assert!((pl_38901_los_db(Uma, 200.0, d3, 25.0, 1.5, 28.0) - 107.6313).abs() < 1e-3);
        // UMa NLoS: 13.54 + 39.08 x 2.3040075 + 28.94316 = 132.5238.
        assert!((pl_38901_nlos_db(Uma, 200.0, d3, 25.0, 1.5, 28.0) - 132.5238).abs() < 1e-3);
        // UMa beyond the breakpoint, d2D 5000: d3D = 5000.0552; 28 + 40 x 3.6989748 +
        // 28.94316 - 9 x log10(4480^2 + 552.25) (= 7.302568 -> 65.72311) = 139.1790.
        let d3 = (5000f64 * 5000.0 + 552.25).sqrt();
        assert!((pl_38901_los_db(Uma, 5000.0, d3, 25.0, 1.5, 28.0) - 139.1790).abs() < 1e-3);
        // NLoS is never below LoS (the max() of Table 7.4.1-1): near the gNB.
        let d3 = (10f64 * 10.0 + 72.25).sqrt();
        assert!(
            pl_38901_nlos_db(Umi, 10.0, d3, 10.0, 1.5, 28.0)
                >= pl_38901_los_db(Umi, 10.0, d3, 10.0, 1.5, 28.0)
        );
    }

    fn gpp(shadowing: bool) -> Profile {
        Profile::ThreeGpp(ThreeGppParams {
            shadowing,
            ..Default::default()
        })
    }

    #[test]
    fn gpp_profile_basics_and_classes() {
        let p = gpp(false);
        p.validate().unwrap();
        assert_eq!(p.default_los_test(), LosTest::Exact3d);
        assert_eq!(
            p.numerology(),
            Numerology {
                slot: 125_000,
                data_symbols: 11
            }
        );
        // 264 PRB x 12 x 120 kHz = 380.16 MHz: -174 + 85.7996 + 5 = -83.2004 dBm.
        assert!((p.noise_dbm() - (-83.2004)).abs() < 1e-3);
        assert_eq!(p.mcs_table().highest_mcs(), 28);
        let Profile::ThreeGpp(params) = &p else {
            unreachable!()
        };
        let mut ch = Channel::new(&p, rng(5));
        let ue = Point::new(100.0, 0.0, 1.5);
        let bf = 10.0 * 1024f64.log10(); // 64 x 16 elements: 30.103 dB
        // gNB at 15 m: d'BP = 4 x 14 x 0.5 x 93.333 = 2613 m -> PL1.
        let d3 = (100f64 * 100.0 + 13.5 * 13.5).sqrt();
        let pl_los = pl_38901_los_db(GppScenario::Umi, 100.0, d3, 15.0, 1.5, 28.0);
        let pl_nlos = pl_38901_nlos_db(GppScenario::Umi, 100.0, d3, 15.0, 1.5, 28.0);
        let g = ch.update(0.0, GNB, ue, &[]);
        assert!((g - (bf - pl_los)).abs() < 1e-9 && !ch.is_nlos());
        let g = ch.update(0.001, GNB, ue, &[ObstacleClass::Building]);
        assert!((g - (bf - pl_nlos)).abs() < 1e-9 && ch.is_nlos());
        let g = ch.update(0.002, GNB, ue, &[ObstacleClass::Tree, ObstacleClass::Human]);
        assert!((g - (bf - pl_los - params.tree_loss_db - params.human_loss_db)).abs() < 1e-9);
        let g = ch.update(
            0.003,
            GNB,
            ue,
            &[ObstacleClass::Vehicle, ObstacleClass::Building],
        );
        assert!((g - (bf - pl_nlos - 20.0)).abs() < 1e-9);
        let g = ch.update(0.004, GNB, ue, &[ObstacleClass::Lamppost]);
        assert!((g - (bf - pl_los - 10.0)).abs() < 1e-9);
        // d2D below 10 m is clamped to 10 m.
        ch.update(0.005, GNB, Point::new(1.0, 0.0, 1.5), &[]);
        let d3 = (100.0 + 13.5f64 * 13.5).sqrt();
        assert!(
            (ch.path_loss_db() - pl_38901_los_db(GppScenario::Umi, 10.0, d3, 15.0, 1.5, 28.0))
                .abs()
                < 1e-9
        );
        // Validation and serde.
        let bad = ThreeGppParams {
            shadowing_sigma_los_db: Some(-1.0),
            ..Default::default()
        };
        assert!(
            bad.validate()
                .unwrap_err()
                .starts_with("shadowing_sigma_los_db = -1")
        );
        let q: ThreeGppParams =
            serde_json::from_str(r#"{"scenario": "uma", "mcs_table": "qam256"}"#).unwrap();
        assert_eq!(q.shadowing_sigmas_db(), (4.0, 6.0));
        assert_eq!(q.decorrelation_m(), (37.0, 50.0));
        assert_eq!(Profile::ThreeGpp(q).mcs_table().highest_mcs(), 27);
        assert!(serde_json::from_str::<ThreeGppParams>(r#"{"scenario": "rma"}"#).is_err());
    }

    #[test]
    fn shadowing_statistics_and_correlation_vs_distance() {
        // UE walking a straight line at 1.5 m/s sampled every 0.2 m; UMi LoS: sigma 4 dB,
        // d_corr 10 m -> corr(dx) = exp(-dx/10): 0.819 at 2 m, 0.368 at 10 m, 0.135 at 20 m.
        let mut ch = Channel::new(&gpp(true), rng(11));
        let step = 0.2;
        let n = 200_000; // 40 km
        let mut sf = Vec::with_capacity(n);
        for k in 0..n {
            let ue = Point::new(50.0 + k as f64 * step, 0.0, 1.5);
            ch.update(k as f64 * step / 1.5, GNB, ue, &[]);
            sf.push(ch.shadowing_db());
        }
        let mean = sf.iter().sum::<f64>() / n as f64;
        let var = sf.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
        assert!((var.sqrt() - 4.0).abs() < 0.3, "sigma {}", var.sqrt());
        let corr = |lag_m: f64| {
            let l = (lag_m / step).round() as usize;
            let c = (0..n - l)
                .map(|i| (sf[i] - mean) * (sf[i + l] - mean))
                .sum::<f64>()
                / (n - l) as f64;
            c / var
        };
        for (lag, want) in [
            (2.0, (-0.2f64).exp()),
            (10.0, (-1.0f64).exp()),
            (20.0, (-2.0f64).exp()),
        ] {
            let got = corr(lag);
            assert!((got - want).abs() < 0.07, "lag {lag}: {got} vs {want}");
        }
        assert!(corr(60.0).abs() < 0.1);
        // A stationary UE keeps its shadowing (the first update below still accounts for
        // the last 0.2 m step).
        let ue = Point::new(50.0 + n as f64 * step, 0.0, 1.5);
        ch.update(1e6, GNB, ue, &[]);
        let s = ch.shadowing_db();
        for k in 1..1000 {
            ch.update(1e6 + k as f64, GNB, ue, &[]);
            assert_eq!(ch.shadowing_db(), s);
        }
    }

    #[test]
    fn nlos_shadowing_uses_its_own_sigma_and_distance() {
        // Behind a building (UMi NLoS): sigma 7.82 dB, d_corr 13 m -> corr(13 m) = 0.368.
        let mut ch = Channel::new(&gpp(true), rng(12));
        let step = 0.26; // 13 m / 50
        let n = 150_000;
        let mut sf = Vec::with_capacity(n);
        for k in 0..n {
            let ue = Point::new(50.0 + k as f64 * step, 0.0, 1.5);
            ch.update(k as f64, GNB, ue, &B);
            assert!(ch.is_nlos());
            sf.push(ch.shadowing_db());
        }
        let mean = sf.iter().sum::<f64>() / n as f64;
        let var = sf.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
        assert!((var.sqrt() - 7.82).abs() < 0.5, "sigma {}", var.sqrt());
        let l = 50; // 13 m
        let c = (0..n - l)
            .map(|i| (sf[i] - mean) * (sf[i + l] - mean))
            .sum::<f64>()
            / (n - l) as f64;
        assert!((c / var - (-1.0f64).exp()).abs() < 0.07, "corr {}", c / var);
    }

    fn multipath() -> Profile {
        Profile::Ns3Mmwave(Ns3MmwaveParams {
            channel: Ns3Channel::Multipath,
            ..Default::default()
        })
    }

    #[test]
    fn multipath_instances_are_redrawn_every_100_ms() {
        // A motionless UE: the chunk gains change exactly on the 100 ms grid.
        let mut ch = Channel::new(&multipath(), rng(21));
        let ue = Point::new(0.0, 68.0, 1.5);
        let mut last: Vec<f64> = Vec::new();
        let mut changes = Vec::new();
        for k in 0..1000u64 {
            ch.update(k as f64 * 1e-3, GNB, ue, &[]);
            let r = ch.chunk_gain_ratios().unwrap().to_vec();
            assert_eq!(r.len(), 72);
            if r != last {
                changes.push(k);
                last = r;
            }
        }
        assert_eq!(changes, (0..10).map(|i| i * 100).collect::<Vec<_>>());
        // The reported gain is the chunks' mean: beamforming gain minus path loss.
        let d = GNB.distance(ue);
        assert!((ch.gain_db() - (ch.beamforming_gain_db() - 61.4 - 20.0 * d.log10())).abs() < 1e-9);
        let mean = last.iter().sum::<f64>() / 72.0;
        assert!((mean - 1.0).abs() < 1e-12);
        // The wideband channel has no chunks.
        let mut flat = Channel::new(&ns3(), rng(21));
        flat.update(0.0, GNB, ue, &[]);
        assert!(flat.chunk_gain_ratios().is_none());
    }

    #[test]
    fn multipath_gain_moves_with_the_ue_between_redraws() {
        // Walking at 1.5 m/s along x (relative speed +1.5): the gains change from one
        // 1 ms update to the next inside a redraw period; the same walk along -x gives
        // another pattern (the module's speed is a signed component sum).
        let walk = |vx: f64| {
            let mut ch = Channel::new(&multipath(), rng(22));
            let mut out = Vec::new();
            for k in 0..50u64 {
                let t = 1.0 + k as f64 * 1e-3;
                ch.update(t, GNB, Point::new(vx * t, 68.0, 1.5), &[]);
                out.push(ch.gain_db());
            }
            out
        };
        let east = walk(1.5);
        assert!(east.windows(2).skip(1).all(|w| w[0] != w[1]));
        assert_ne!(east[10..], walk(-1.5)[10..]);
        // Blockage adds the same steady loss to every chunk (ratios unchanged).
        let mut a = Channel::new(&multipath(), rng(23));
        let mut b = Channel::new(&multipath(), rng(23));
        let ue = Point::new(0.0, 68.0, 1.5);
        let ga = a.update(0.0, GNB, ue, &[]);
        let gb = b.update(0.0, GNB, ue, &B);
        assert!((ga - gb - NS3_TRACE_STEADY_DB).abs() < 1e-9);
        assert_eq!(a.chunk_gain_ratios(), b.chunk_gain_ratios());
        // serde: "multipath" / "wideband", anything else refused.
        let q: Ns3MmwaveParams = serde_json::from_str(r#"{"channel": "multipath"}"#).unwrap();
        assert_eq!(q.channel, Ns3Channel::Multipath);
        assert_eq!(Ns3MmwaveParams::default().channel, Ns3Channel::Wideband);
        assert!(serde_json::from_str::<Ns3MmwaveParams>(r#"{"channel": "flat"}"#).is_err());
    }

    #[test]
    fn channels_are_deterministic_per_seed() {
        let run = |seed| {
            let mut ch = Channel::new(&gpp(true), rng(seed));
            let mut acc = 0.0;
            for k in 0..1000 {
                acc += ch.update(
                    k as f64 * 1e-3,
                    GNB,
                    Point::new(50.0 + k as f64 * 0.03, 0.0, 1.5),
                    &[],
                );
            }
            acc
        };
        assert_eq!(run(1), run(1));
        assert_ne!(run(1), run(2));
    }
}
