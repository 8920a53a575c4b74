//! The `3gpp` profile ([`ThreeGppParams`]): 3GPP TR 38.901 V16/V17 Table 7.4.1-1 UMi
//! street canyon / UMa path loss, log-normal shadowing with Table 7.5-6 decorrelation
//! distances, per-obstacle-class blockage losses, NR numerology and the TS 38.214 MCS
//! tables. Noise is counted over the occupied PRBs.

use super::{ChannelModel, Gain, Profile, Update, finite, link_budget, non_negative, positive};
use crate::engine::Rng;
use crate::radio::geometry::{LosTest, ObstacleClass, Point};
use crate::radio::mcs::{
    McsTable, NR_DEFAULT_DATA_SYMBOLS, NrMcsTable, Numerology, nr_prbs, thermal_noise_dbm,
};
use crate::radio::propagation::std_normal;

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
}

/// Occupied bandwidth N_PRB x 12 x SCS (Hz), over which noise is counted.
fn occupied_bandwidth_hz(p: &ThreeGppParams) -> f64 {
    f64::from(nr_prbs(p.bandwidth_hz, p.mu) * 12) * 15e3 * f64::from(1u32 << p.mu)
}

/// Speed of light as 38.901 uses it (Table 7.4.1-1 note 1: c = 3.0 x 10^8 m/s).
const C_38901: f64 = 3.0e8;

/// A quantity with its base-10 logarithm, taken once: the path loss reads the
/// carrier's at every channel update, and the 3D distance's in both the LoS and the
/// NLoS formula (each `log10` costs about a hundred instructions).
#[derive(Clone, Copy, Debug)]
struct Logged {
    value: f64,
    log10: f64,
}

impl Logged {
    fn new(value: f64) -> Self {
        Logged {
            value,
            log10: value.log10(),
        }
    }
}

/// 38.901 Table 7.4.1-1 LoS path loss (dB) for the given distances (m), antenna heights
/// (m) and carrier (GHz), with the breakpoint distance of note 1,
/// `d'_BP = 4 h'_BS h'_UT f_c / c`, `h' = h - h_E`, `h_E = 1 m` (UMi always; UMa for
/// h_UT < 13 m, where C(d_2D, h_UT) = 0 in Table 7.4.1-1 note 1).
/// * UMi: PL1 = 32.4 + 21 log10(d_3D) + 20 log10(f_c) for d_2D <= d'_BP,
///   PL2 = 32.4 + 40 log10(d_3D) + 20 log10(f_c) - 9.5 log10(d'_BP^2 + (h_BS - h_UT)^2).
/// * UMa: PL1 = 28.0 + 22 log10(d_3D) + 20 log10(f_c),
///   PL2 = 28.0 + 40 log10(d_3D) + 20 log10(f_c) - 9 log10(d'_BP^2 + (h_BS - h_UT)^2).
///
/// Inputs are taken as given; the channel clamps d_2D to >= 10 m first.
fn pl_38901_los_db(
    scn: GppScenario,
    d2d: f64,
    d3d: Logged,
    h_bs: f64,
    h_ut: f64,
    fc_ghz: Logged,
) -> f64 {
    let d_bp = 4.0 * (h_bs - 1.0).max(0.0) * (h_ut - 1.0).max(0.0) * fc_ghz.value * 1e9 / C_38901;
    let fc_term = 20.0 * fc_ghz.log10;
    let (a, b, k) = match scn {
        GppScenario::Umi => (32.4, 21.0, 9.5),
        GppScenario::Uma => (28.0, 22.0, 9.0),
    };
    if d2d <= d_bp {
        a + b * d3d.log10 + fc_term
    } else {
        let dh = h_bs - h_ut;
        a + 40.0 * d3d.log10 + fc_term - k * (d_bp * d_bp + dh * dh).log10()
    }
}

/// 38.901 Table 7.4.1-1 NLoS path loss (dB): `max(PL_LOS, PL'_NLOS)` with
/// * UMi: PL'_NLOS = 35.3 log10(d_3D) + 22.4 + 21.3 log10(f_c) - 0.3 (h_UT - 1.5);
/// * UMa: PL'_NLOS = 13.54 + 39.08 log10(d_3D) + 20 log10(f_c) - 0.6 (h_UT - 1.5).
fn pl_38901_nlos_db(
    scn: GppScenario,
    d2d: f64,
    d3d: Logged,
    h_bs: f64,
    h_ut: f64,
    fc_ghz: Logged,
) -> f64 {
    let los = pl_38901_los_db(scn, d2d, d3d, h_bs, h_ut, fc_ghz);
    let nlos = match scn {
        GppScenario::Umi => 35.3 * d3d.log10 + 22.4 + 21.3 * fc_ghz.log10 - 0.3 * (h_ut - 1.5),
        GppScenario::Uma => 13.54 + 39.08 * d3d.log10 + 20.0 * fc_ghz.log10 - 0.6 * (h_ut - 1.5),
    };
    los.max(nlos)
}

impl Profile for ThreeGppParams {
    fn validate(&self) -> Result<(), String> {
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

    /// The exact 3D segment test.
    fn default_los_test(&self) -> LosTest {
        LosTest::Exact3d
    }

    /// 1 ms: the city's channels follow the geometry, which moves little in that time,
    /// and a hundred UEs towards ten gNBs make per-update work the run's largest cost.
    fn default_channel_update_s(&self) -> f64 {
        1e-3
    }

    /// Over the occupied N_PRB x 12 x SCS (400 MHz carrier: 380.16 MHz, -83.2 dBm).
    fn noise_dbm(&self) -> f64 {
        thermal_noise_dbm(occupied_bandwidth_hz(self), self.noise_figure_db)
    }

    fn tx_power_dbm(&self, downlink: bool) -> f64 {
        if downlink {
            self.gnb_tx_power_dbm
        } else {
            self.ue_tx_power_dbm
        }
    }

    fn numerology(&self) -> Numerology {
        Numerology::nr(self.mu, self.data_symbols)
    }

    fn mcs_table(&self) -> McsTable {
        McsTable::nr(self.mcs_table, self.bandwidth_hz, self.mu)
    }

    /// Path loss, blockage and shadowing follow the UE's position only (shadowing is
    /// advanced by distance travelled), so an update in place changes nothing.
    fn channel_is_geometric(&self) -> bool {
        true
    }

    /// Draws the two shadowing processes' starting values.
    fn channel(&self, rng: &mut Rng) -> Box<dyn ChannelModel> {
        Box::new(GppModel::new(self, rng))
    }
}

/// The 3gpp channel state: the two shadowing processes and the UE's travel since
/// shadowing was last advanced.
#[derive(Debug)]
struct GppModel {
    scenario: GppScenario,
    fc_ghz: Logged,
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

impl GppModel {
    fn new(p: &ThreeGppParams, rng: &mut Rng) -> Self {
        let (sigma_los_db, sigma_nlos_db) = p.shadowing_sigmas_db();
        let (dcorr_los_m, dcorr_nlos_m) = p.decorrelation_m();
        let mut class_loss_db = [0.0; 5];
        for c in ObstacleClass::ALL {
            class_loss_db[class_index(c)] = p.class_loss_db(c);
        }
        let mut spare = None;
        let z_los = std_normal(rng, &mut spare);
        let z_nlos = std_normal(rng, &mut spare);
        GppModel {
            scenario: p.scenario,
            fc_ghz: Logged::new(p.carrier_hz / 1e9),
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
        }
    }
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

impl ChannelModel for GppModel {
    fn update(&mut self, rng: &mut Rng, at: &Update) -> Gain {
        let Update {
            first,
            gnb,
            ue,
            blockers,
            ..
        } = *at;
        let blocked = !blockers.is_empty();
        let s = self;
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
        let d3d = Logged::new((d2d * d2d + dh * dh).sqrt());
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
        Gain {
            gain_db: s.antenna_gain_db - pl - sf - excess,
            path_loss_db: pl,
            shadowing_db: sf,
            excess_db: excess,
            nlos: blocked,
            uplink_offset_db: None,
        }
    }

    /// The gNB's and the UE's array gains.
    fn beamforming_gain_db(&self) -> f64 {
        self.antenna_gain_db
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::radio::propagation::Channel;
    use rand::SeedableRng;

    fn rng(seed: u64) -> Rng {
        Rng::seed_from_u64(seed)
    }

    /// The path losses for a UE at 1.5 m on a 28 GHz carrier.
    fn los(scn: GppScenario, d2d: f64, d3d: f64, h_bs: f64) -> f64 {
        pl_38901_los_db(scn, d2d, Logged::new(d3d), h_bs, 1.5, Logged::new(28.0))
    }

    fn nlos(scn: GppScenario, d2d: f64, d3d: f64, h_bs: f64) -> f64 {
        pl_38901_nlos_db(scn, d2d, Logged::new(d3d), h_bs, 1.5, Logged::new(28.0))
    }

    const GNB: Point = Point::new(0.0, 0.0, 15.0);
    const B: [ObstacleClass; 1] = [ObstacleClass::Building];

    #[test]
    fn gpp_38901_path_loss_formulas() {
        use GppScenario::*;
        // UMi LoS, hBS 10, hUT 1.5, 28 GHz: d'BP = 4 x 9 x 0.5 x 28e9 / 3e8 = 1680 m.
        // d2D = 100: d3D = sqrt(10000 + 72.25) = 100.3606; 32.4 + 21 x 2.001563 +
        // 20 x 1.447158 = 32.4 + 42.03282 + 28.94316 = 103.37598.
        let d3 = (100f64 * 100.0 + 8.5 * 8.5).sqrt();
        assert!((los(Umi, 100.0, d3, 10.0) - 103.3760).abs() < 1e-3);
        // Beyond the breakpoint, d2D = 2000: d3D = 2000.0181; 32.4 + 40 x 3.3010339 +
        // 28.94316 - 9.5 x log10(1680^2 + 72.25) (= 6.4506467 -> 61.281) = 132.1035.
        let d3 = (2000f64 * 2000.0 + 72.25).sqrt();
        assert!((los(Umi, 2000.0, d3, 10.0) - 132.1035).abs() < 1e-3);
        // Continuity at the breakpoint (the two slopes meet, by construction of PL2).
        let d3 = (1680f64 * 1680.0 + 72.25).sqrt();
        let below = los(Umi, 1680.0, d3, 10.0);
        let above = los(Umi, 1680.0 + 1e-9, d3, 10.0);
        assert!((below - above).abs() < 0.05, "{below} {above}");
        // UMi NLoS at d2D 100: 35.3 x 2.001563 + 22.4 + 21.3 x 1.447158 = 70.65517 +
        // 22.4 + 30.82447 = 123.8796 (> LoS 103.38).
        let d3 = (100f64 * 100.0 + 72.25).sqrt();
        assert!((nlos(Umi, 100.0, d3, 10.0) - 123.8796).abs() < 1e-3);
        // UMa LoS, hBS 25: d'BP = 4 x 24 x 0.5 x 93.333 = 4480 m. d2D 200: d3D =
        // sqrt(40000 + 552.25) = 201.3758; 28 + 22 x 2.304005 + 28.94316 = 107.6313.
        let d3 = (200f64 * 200.0 + 23.5 * 23.5).sqrt();
        assert!((los(Uma, 200.0, d3, 25.0) - 107.6313).abs() < 1e-3);
        // UMa NLoS: 13.54 + 39.08 x 2.3040075 + 28.94316 = 132.5238.
        assert!((nlos(Uma, 200.0, d3, 25.0) - 132.5238).abs() < 1e-3);
        // UMa beyond the breakpoint, d2D 5000: d3D = 5000.0552; 28 + 40 x 3.6989748 +
        // 28.94316 - 9 x log10(4480^2 + 552.25) (= 7.302568 -> 65.72311) = 139.1790.
        let d3 = (5000f64 * 5000.0 + 552.25).sqrt();
        assert!((los(Uma, 5000.0, d3, 25.0) - 139.1790).abs() < 1e-3);
        // NLoS is never below LoS (the max() of Table 7.4.1-1): near the gNB.
        let d3 = (10f64 * 10.0 + 72.25).sqrt();
        assert!(nlos(Umi, 10.0, d3, 10.0) >= los(Umi, 10.0, d3, 10.0));
    }

    fn gpp(shadowing: bool) -> ThreeGppParams {
        ThreeGppParams {
            shadowing,
            ..Default::default()
        }
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
        let params = &p;
        let mut ch = Channel::new(&p, rng(5));
        let ue = Point::new(100.0, 0.0, 1.5);
        let bf = 10.0 * 1024f64.log10(); // 64 x 16 elements: 30.103 dB
        // gNB at 15 m: d'BP = 4 x 14 x 0.5 x 93.333 = 2613 m -> PL1.
        let d3 = (100f64 * 100.0 + 13.5 * 13.5).sqrt();
        let pl_los = los(GppScenario::Umi, 100.0, d3, 15.0);
        let pl_nlos = nlos(GppScenario::Umi, 100.0, d3, 15.0);
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
        assert!((ch.path_loss_db() - los(GppScenario::Umi, 10.0, d3, 15.0)).abs() < 1e-9);
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
        assert_eq!(q.mcs_table().highest_mcs(), 27);
        assert!(serde_json::from_str::<ThreeGppParams>(r#"{"scenario": "rma"}"#).is_err());
    }

    /// The radio skips a 3gpp channel's updates while its UE stands still
    /// (`channel_is_geometric`): a channel updated in place many times must then go on
    /// exactly as one that was not, shadowing and blockage included.
    #[test]
    fn updates_in_place_change_nothing() {
        let p = gpp(true);
        assert!(p.channel_is_geometric());
        let (here, there) = (Point::new(60.0, 5.0, 1.5), Point::new(60.7, 5.2, 1.5));
        let blockers = [ObstacleClass::Tree, ObstacleClass::Building];
        let mut skipped = Channel::new(&p, rng(9));
        let mut updated = Channel::new(&p, rng(9));
        let first = skipped.update(0.0, GNB, here, &blockers);
        assert_eq!(updated.update(0.0, GNB, here, &blockers), first);
        for k in 1..500 {
            let again = updated.update(f64::from(k) * 1e-3, GNB, here, &blockers);
            assert_eq!(again.to_bits(), first.to_bits());
        }
        for (k, ue) in [there, here, there].into_iter().enumerate() {
            let t = 1.0 + k as f64;
            let a = skipped.update(t, GNB, ue, &[]);
            let b = updated.update(t, GNB, ue, &[]);
            assert_eq!(a.to_bits(), b.to_bits(), "after move {k}");
        }
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
