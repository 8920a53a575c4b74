//! The `[radio]` section: a 5G mmWave access network between the wired path and
//! the UEs. Without it the path ends at the client (a wired scenario). Defaults are
//! the source papers' ns-3 mmWave settings (docs/model.md, "The reference network").
//!
//! Plain config types and their validation only: the radio module builds its
//! geometry, trajectories, profiles and channels from them, and nothing here
//! imports it (a test checks).

use super::validate::{
    COORDINATE, Check, DB, MAX_GNBS, MAX_SPEED_MPS, MAX_UES, PERIOD, RATE, Range, TIME, VELOCITY,
    at_most, bytes, check, count,
};
use super::{ConfigError, FlowConfig};
use serde::{Deserialize, Serialize};

/// The most HARQ retransmissions `harq_max_retx` may ask for: the radio keeps a
/// transport block's SINR for at most 8 attempts (`radio::MAX_HARQ_ATTEMPTS`).
pub const MAX_HARQ_RETX: u8 = 7;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RadioConfig {
    /// Propagation and link-adaptation profile: "ns3-mmwave" or "3gpp".
    pub profile: ProfileName,
    /// Parameters of the `ns3-mmwave` profile.
    pub ns3_mmwave: Ns3MmwaveParams,
    /// Parameters of the `3gpp` profile.
    #[serde(rename = "3gpp")]
    pub threegpp: ThreeGppParams,
    /// LoS test: "ns3-2d" (the papers' ns-3 test, heights ignored) or "exact-3d";
    /// absent: the profile's own (ns3-2d for ns3-mmwave, exact-3d for 3gpp).
    pub los_test: Option<LosTest>,
    /// How often positions, path loss, SINR and MCS are recomputed, seconds.
    pub channel_update_s: f64,
    /// Link adaptation picks the highest MCS whose TB error rate is at most this
    /// (the module's 10%), from the SINR of the previous channel update (CQI delay).
    pub target_bler: f64,
    /// HARQ retransmissions of a transport block before RLC recovers it (module: 3).
    pub harq_max_retx: u8,
    /// HARQ round trip: a TB's retransmission follows its transmission by this (0.3-0.5 ms).
    pub harq_rtt_s: f64,
    /// HARQ processes per UE: at most this many transport blocks await a retransmission at once.
    pub harq_processes: u32,
    /// RLC AM transmission buffer limit on new data, bytes (module default 1 MiB).
    pub rlc_buffer_bytes: u64,
    /// From HARQ giving up to the RLC retransmission: the status report after the
    /// papers' 4 ms poll-retransmit timer.
    pub rlc_retx_delay_s: f64,
    /// Scheduling request and grant before the UE may send (ACKs): 0.3-0.7 ms.
    pub uplink_grant_delay_s: f64,
    /// How a slot's symbols are shared among UEs: "rr" or "pf".
    pub scheduler: SchedulerKind,
    /// The S1-U link from the PGW to the gNBs.
    pub s1u_rate_bps: f64,
    /// One-way delay of the S1-U link.
    pub s1u_delay_s: f64,
    /// Other gNBs interfere with a UE's serving link while they transmit, through
    /// their channel gain minus this (their beams point at their own UEs; the
    /// default removes the 28.2 dB mean beamforming gain).
    pub interferer_beam_loss_db: f64,
    pub handover: HandoverConfig,
    /// The gNBs (cells); a UE attaches to the best one.
    pub gnbs: Vec<GnbConfig>,
    /// The UEs; each flow's receiver runs on one (`flows[].ue`).
    pub ues: Vec<UeConfig>,
    /// The obstacles that block line of sight.
    pub obstacles: Vec<ObstacleConfig>,
}

impl Default for RadioConfig {
    fn default() -> Self {
        Self {
            profile: ProfileName::Ns3Mmwave,
            ns3_mmwave: Ns3MmwaveParams::default(),
            threegpp: ThreeGppParams::default(),
            los_test: None,
            channel_update_s: 0.001,
            target_bler: 0.1,
            harq_max_retx: 3,
            harq_rtt_s: 0.0004,
            harq_processes: 20,
            rlc_buffer_bytes: 1 << 20,
            rlc_retx_delay_s: 0.004,
            uplink_grant_delay_s: 0.0005,
            scheduler: SchedulerKind::Rr,
            s1u_rate_bps: 10e9,
            s1u_delay_s: 0.001,
            interferer_beam_loss_db: 28.2,
            handover: HandoverConfig::default(),
            gnbs: vec![GnbConfig {
                position: [0.0, 0.0, 15.0],
            }],
            ues: Vec::new(),
            obstacles: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
pub enum ProfileName {
    #[serde(rename = "ns3-mmwave")]
    Ns3Mmwave,
    #[serde(rename = "3gpp")]
    ThreeGpp,
}

impl ProfileName {
    /// Every profile, in the order the config's schema lists them.
    pub const ALL: [ProfileName; 2] = [ProfileName::Ns3Mmwave, ProfileName::ThreeGpp];
}

/// SINR-based handover between gNBs.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct HandoverConfig {
    /// A neighbour must be better than the serving cell by this much (received power, dB)...
    pub hysteresis_db: f64,
    /// ...for this long (the Mateo study: a fixed 200 us time-to-trigger).
    pub time_to_trigger_s: f64,
    /// Time constant of the exponential filter on the gains handover compares (the
    /// layer-3 filtering of TS 38.331 5.5.3.2); 0 compares raw measurements. Without
    /// it the ns3-mmwave profile's beamforming draws, redrawn every 100 ms, beat the
    /// hysteresis at random wherever two cells are close (dozens of ping-pongs per
    /// minute on the Mateo study's street).
    pub filter_s: f64,
    /// No radio transmission for the UE during the handover.
    pub interruption_s: f64,
    /// "lossless": the RLC buffer moves to the new cell and HARQ blocks in flight
    /// are retransmitted from there; "drop": everything undelivered is lost.
    pub forwarding: Forwarding,
}

impl Default for HandoverConfig {
    fn default() -> Self {
        Self {
            hysteresis_db: 3.0,
            time_to_trigger_s: 0.0002,
            filter_s: 0.2,
            interruption_s: 0.02,
            forwarding: Forwarding::Lossless,
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Forwarding {
    Lossless,
    Drop,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GnbConfig {
    /// Position (x, y, z) in metres.
    pub position: [f64; 3],
}

/// A UE: where it starts and how it moves, as velocity legs or waypoints (not both).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UeConfig {
    /// Start position (x, y, z) in metres; the papers' UEs are at 1.5 m.
    pub position: [f64; 3],
    /// From `at_s` on, move at `velocity` (m/s; [0, 0, 0] pauses).
    #[serde(default)]
    pub legs: Vec<LegConfig>,
    /// Or: from `start_s`, go to each point at its speed, pausing there.
    #[serde(default)]
    pub waypoints: Vec<WaypointConfig>,
    /// With waypoints, when the UE sets off for the first one.
    #[serde(default)]
    pub start_s: f64,
}

impl UeConfig {
    /// What the ranges leave to check of the UE's movement: legs or waypoints, not
    /// both, and legs in increasing time (the radio's `Trajectory` can then be built).
    fn check_schedule(&self) -> Result<(), String> {
        if !self.waypoints.is_empty() && !self.legs.is_empty() {
            return Err("give legs or waypoints, not both".into());
        }
        for (i, pair) in self.legs.windows(2).enumerate() {
            if pair[1].at_s <= pair[0].at_s {
                return Err(format!(
                    "legs[{}].at_s = {}: must be greater than legs[{i}].at_s = {}",
                    i + 1,
                    pair[1].at_s,
                    pair[0].at_s
                ));
            }
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LegConfig {
    /// When this leg starts, seconds into the run.
    pub at_s: f64,
    /// Velocity (x, y, z) in m/s from `at_s` on; [0, 0, 0] pauses.
    pub velocity: [f64; 3],
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaypointConfig {
    /// The point (x, y, z) to go to, metres.
    pub to: [f64; 3],
    /// Speed on the way there.
    pub speed_mps: f64,
    /// How long the UE stays at the point before it sets off for the next.
    #[serde(default)]
    pub pause_s: f64,
}

/// An axis-aligned box: x, y and z ranges [min, max] in metres.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ObstacleConfig {
    pub class: ObstacleClass,
    /// Range of x [min, max], metres.
    pub x: [f64; 2],
    /// Range of y [min, max], metres.
    pub y: [f64; 2],
    /// Range of z [min, max], metres (heights matter only to the `exact-3d` LoS test).
    pub z: [f64; 2],
}

impl RadioConfig {
    pub(super) fn validate(&self, flows: &[FlowConfig]) -> Check {
        self.validate_profile()?;
        self.validate_link()?;
        if self.gnbs.is_empty() {
            return Err(ConfigError::invalid(
                "radio.gnbs",
                "at least one [[radio.gnbs]] entry is required",
            ));
        }
        at_most("radio.gnbs", self.gnbs.len(), MAX_GNBS, "gNBs")?;
        if self.ues.is_empty() {
            return Err(ConfigError::invalid(
                "radio.ues",
                "at least one [[radio.ues]] entry is required",
            ));
        }
        at_most("radio.ues", self.ues.len(), MAX_UES, "UEs")?;
        for (i, o) in self.obstacles.iter().enumerate() {
            validate_obstacle(i, o)?;
        }
        for (i, g) in self.gnbs.iter().enumerate() {
            let path = format!("radio.gnbs[{i}].position");
            check_point(&path, g.position)?;
            self.outside_buildings(&path, g.position)?;
        }
        for (i, u) in self.ues.iter().enumerate() {
            self.validate_ue(i, u)?;
        }
        if let Some(i) = flows.iter().position(|f| f.ue as usize >= self.ues.len()) {
            return Err(ConfigError::invalid(
                format!("flows[{i}].ue"),
                format!(
                    "must name one of the {} UEs (0..{}), got {}",
                    self.ues.len(),
                    self.ues.len() - 1,
                    flows[i].ue
                ),
            ));
        }
        Ok(())
    }

    fn validate_profile(&self) -> Check {
        let (section, valid) = match self.profile {
            ProfileName::Ns3Mmwave => ("radio.ns3_mmwave", self.ns3_mmwave.validate()),
            ProfileName::ThreeGpp => ("radio.3gpp", self.threegpp.validate()),
        };
        valid.map_err(|e| ConfigError::invalid(section, e))?;
        if self.profile == ProfileName::Ns3Mmwave {
            check(
                "radio.ns3_mmwave.blockage_ramp_s",
                self.ns3_mmwave.blockage_ramp_s,
                TIME,
            )?;
            check(
                "radio.ns3_mmwave.bf_redraw_s",
                self.ns3_mmwave.bf_redraw_s,
                PERIOD,
            )?;
            check(
                "radio.ns3_mmwave.status_prohibit_s",
                self.ns3_mmwave.status_prohibit_s,
                TIME,
            )?;
        }
        Ok(())
    }

    /// The radio link's timing, HARQ, RLC and S1-U, and handover.
    fn validate_link(&self) -> Check {
        check("radio.channel_update_s", self.channel_update_s, PERIOD)?;
        check(
            "radio.target_bler",
            self.target_bler,
            Range::open(0.0, 1.0, ""),
        )?;
        check(
            "radio.harq_max_retx",
            self.harq_max_retx,
            Range::closed(0.0, MAX_HARQ_RETX.into(), "retransmissions"),
        )?;
        check("radio.harq_rtt_s", self.harq_rtt_s, TIME)?;
        check("radio.harq_processes", self.harq_processes, count(1))?;
        check("radio.rlc_buffer_bytes", self.rlc_buffer_bytes, bytes(1))?;
        check("radio.rlc_retx_delay_s", self.rlc_retx_delay_s, TIME)?;
        check(
            "radio.uplink_grant_delay_s",
            self.uplink_grant_delay_s,
            TIME,
        )?;
        check("radio.s1u_rate_bps", self.s1u_rate_bps, RATE)?;
        check("radio.s1u_delay_s", self.s1u_delay_s, TIME)?;
        check(
            "radio.interferer_beam_loss_db",
            self.interferer_beam_loss_db,
            DB,
        )?;
        let h = &self.handover;
        check("radio.handover.hysteresis_db", h.hysteresis_db, DB)?;
        check(
            "radio.handover.time_to_trigger_s",
            h.time_to_trigger_s,
            TIME,
        )?;
        check("radio.handover.filter_s", h.filter_s, TIME)?;
        check("radio.handover.interruption_s", h.interruption_s, TIME)
    }

    /// Its start, legs or waypoints within range, and its place at t = 0 outside
    /// every building. A path may cross buildings later: the UE stays outdoor, as in
    /// the reference simulator, which classifies a UE once at setup (fbtcp-2's UE
    /// walks through building footprints).
    fn validate_ue(&self, i: usize, u: &UeConfig) -> Check {
        let key = format!("radio.ues[{i}]");
        check_point(&format!("{key}.position"), u.position)?;
        check(&format!("{key}.start_s"), u.start_s, TIME)?;
        for (j, l) in u.legs.iter().enumerate() {
            check(&format!("{key}.legs[{j}].at_s"), l.at_s, TIME)?;
            for (axis, v) in l.velocity.into_iter().enumerate() {
                check(&format!("{key}.legs[{j}].velocity[{axis}]"), v, VELOCITY)?;
            }
        }
        for (j, w) in u.waypoints.iter().enumerate() {
            check_point(&format!("{key}.waypoints[{j}].to"), w.to)?;
            check(
                &format!("{key}.waypoints[{j}].speed_mps"),
                w.speed_mps,
                Range::above(0.0, MAX_SPEED_MPS, "m/s"),
            )?;
            check(&format!("{key}.waypoints[{j}].pause_s"), w.pause_s, TIME)?;
        }
        u.check_schedule()
            .map_err(|e| ConfigError::invalid(&key, e))?;
        // Legs and waypoints start at t >= 0, so at t = 0 the UE is at its start.
        self.outside_buildings(&format!("{key}.position"), u.position)
    }

    /// Nothing of the radio stands inside a building.
    fn outside_buildings(&self, path: &str, [x, y, z]: [f64; 3]) -> Check {
        let inside = |o: &ObstacleConfig| {
            o.class == ObstacleClass::Building
                && (o.x[0]..=o.x[1]).contains(&x)
                && (o.y[0]..=o.y[1]).contains(&y)
                && (o.z[0]..=o.z[1]).contains(&z)
        };
        match self.obstacles.iter().position(inside) {
            Some(j) => Err(ConfigError::invalid(
                path,
                format!("[{x}, {y}, {z}] is inside a building (radio.obstacles[{j}])"),
            )),
            None => Ok(()),
        }
    }
}

fn validate_obstacle(i: usize, o: &ObstacleConfig) -> Check {
    for (axis, r) in [("x", o.x), ("y", o.y), ("z", o.z)] {
        let path = format!("radio.obstacles[{i}].{axis}");
        check(&format!("{path}[0]"), r[0], COORDINATE)?;
        check(&format!("{path}[1]"), r[1], COORDINATE)?;
        // `check` has rejected NaN, so `>=` is the complete negation of `<`.
        if r[0] >= r[1] {
            return Err(ConfigError::invalid(
                path,
                format!(
                    "must be [min, max] with min < max, got [{}, {}]",
                    r[0], r[1]
                ),
            ));
        }
    }
    Ok(())
}

/// Each coordinate of a point (x, y, z) within [`COORDINATE`].
fn check_point(path: &str, p: [f64; 3]) -> Check {
    for (axis, v) in p.into_iter().enumerate() {
        check(&format!("{path}[{axis}]"), v, COORDINATE)?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Geometry, scheduling and link-adaptation choices
// ---------------------------------------------------------------------------------------

/// What an obstacle is made of; the `3gpp` profile gives each class its own loss
/// (see `ThreeGppParams`), the `ns3-mmwave` profile treats every class as
/// an ns-3 `Building` (the source papers modelled trees as buildings too).
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    serde::Deserialize,
    serde::Serialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ObstacleClass {
    Tree,
    Building,
    Vehicle,
    Human,
    Lamppost,
}

impl ObstacleClass {
    pub const ALL: [ObstacleClass; 5] = [
        ObstacleClass::Tree,
        ObstacleClass::Building,
        ObstacleClass::Vehicle,
        ObstacleClass::Human,
        ObstacleClass::Lamppost,
    ];

    /// The config spelling (same as serde).
    pub fn as_str(self) -> &'static str {
        match self {
            ObstacleClass::Tree => "tree",
            ObstacleClass::Building => "building",
            ObstacleClass::Vehicle => "vehicle",
            ObstacleClass::Human => "human",
            ObstacleClass::Lamppost => "lamppost",
        }
    }
}

/// Which line-of-sight test decides blockage.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize, schemars::JsonSchema,
)]
pub enum LosTest {
    /// The papers' ns-3 2D angular test, heights ignored (the mmWave module's
    /// `MmWaveLosTracker` rule, see the module docs).
    #[serde(rename = "ns3-2d")]
    Ns32d,
    /// Segment-box intersection in 3D ([`segment_intersects_box`]).
    #[serde(rename = "exact-3d")]
    Exact3d,
}

impl LosTest {
    pub fn as_str(self) -> &'static str {
        match self {
            LosTest::Ns32d => "ns3-2d",
            LosTest::Exact3d => "exact-3d",
        }
    }
}

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

/// Default NR data symbols per 14-symbol slot: 14 - 1 PDCCH symbol (CORESET, TS 38.213
/// 10.1) - 1 UL control symbol (PUCCH, the DL/UL-shared slot of ns-3 5G-LENA and the
/// mmWave module) - 1 front-loaded DMRS symbol (TS 38.211 7.4.1.1.2, type A, no
/// additional positions) = 11. Counted per slot, not per allocation.
pub const NR_DEFAULT_DATA_SYMBOLS: u32 = 11;

/// Which 38.214 PDSCH MCS table.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum NrMcsTable {
    /// TS 38.214 Table 5.1.3.1-1 (up to 64QAM, MCS 0-28), the default when `mcs-Table`
    /// is not configured.
    Qam64,
    /// TS 38.214 Table 5.1.3.1-2 (up to 256QAM, MCS 0-27).
    Qam256,
}

// ---------------------------------------------------------------------------------------
// The `ns3-mmwave` profile's parameters (its model: radio/profile/ns3_mmwave.rs)
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
    /// Subframes the scheduler keeps a downlink CQI report
    /// (`MmWaveFlexTtiMacScheduler::CqiTimerThreshold`; 100 = 10 ms). The UE reports
    /// on each downlink TB, so after a longer downlink silence the next TBs go at
    /// MCS 0 until the report on the first of them arrives, 3 subframes later.
    /// 0 keeps no report: every TB at MCS 0, as in the module.
    pub cqi_timer_subframes: u32,
    /// RLC AM status-prohibit timer (s), `LteRlcAm::StatusProhibitTimer`: a status
    /// report requested while it runs takes the next data transmission opportunity of
    /// the opposite direction alone. 1 ms as in the module's TCP examples and the
    /// FB-TCP scripts (the attribute's own default is 10 ms); 0 = never.
    pub status_prohibit_s: f64,
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
            cqi_timer_subframes: 100,
            status_prohibit_s: 0.001,
        }
    }
}

/// The module's steady blocked value: `g_blockage_down[339]` = -35.964785 dB.
pub const NS3_TRACE_STEADY_DB: f64 = 35.964785;

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
// The `3gpp` profile's parameters (its model: radio/profile/threegpp.rs)
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

// ---------------------------------------------------------------------------------------
// The checks the profiles' `validate` share
// ---------------------------------------------------------------------------------------

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

#[cfg(test)]
mod tests {
    use crate::Config;

    #[test]
    fn the_scenario_does_not_import_the_radio() {
        let radio = concat!("crate::", "radio");
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/scenario");
        let mut read = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(!text.contains(radio), "{} uses {radio}", path.display());
            read += 1;
        }
        assert!(read >= 7, "read {read} files of {dir}");
    }

    /// A gNB at the origin, one UE, a building over x 40-60, y 0-10; `ue` is the
    /// UE's table body.
    fn street(ue: &str) -> Result<Config, String> {
        let text = format!(
            "duration_s = 1\n[radio]\n[[radio.gnbs]]\nposition = [0, 0, 15]\n\
             [[radio.obstacles]]\nclass = \"building\"\nx = [40, 60]\ny = [0, 10]\nz = [0, 20]\n\
             [[radio.ues]]\n{ue}\n[[flows]]\n"
        );
        Config::from_toml(&text).map_err(|e| e.to_string())
    }

    #[test]
    fn a_ue_inside_a_building_is_rejected_like_a_gnb() {
        let e = street("position = [50, 5, 1.5]").unwrap_err();
        assert_eq!(
            e,
            "radio.ues[0].position: [50, 5, 1.5] is inside a building (radio.obstacles[0])"
        );
        // Whether it stands still, moves by legs or by waypoints: its place at t = 0.
        let e = street("position = [50, 5, 1.5]\nlegs = [{ at_s = 0, velocity = [10, 0, 0] }]")
            .unwrap_err();
        assert!(
            e.starts_with("radio.ues[0].position: [50, 5, 1.5] is inside"),
            "{e}"
        );
        let e =
            street("position = [50, 5, 1.5]\nwaypoints = [{ to = [100, 5, 1.5], speed_mps = 10 }]")
                .unwrap_err();
        assert!(
            e.starts_with("radio.ues[0].position: [50, 5, 1.5] is inside"),
            "{e}"
        );
        let e = street("position = [0, 5, 1.5]").map(|_| ()).and_then(|_| {
            let text = "duration_s = 1\n[radio]\n[[radio.gnbs]]\nposition = [50, 5, 15]\n\
                        [[radio.obstacles]]\nclass = \"building\"\nx = [40, 60]\ny = [0, 10]\nz = [0, 20]\n\
                        [[radio.ues]]\nposition = [0, 5, 1.5]\n[[flows]]\n";
            Config::from_toml(text).map(|_| ()).map_err(|e| e.to_string())
        });
        assert_eq!(
            e.unwrap_err(),
            "radio.gnbs[0].position: [50, 5, 15] is inside a building (radio.obstacles[0])"
        );
    }

    #[test]
    fn a_path_through_a_building_is_accepted() {
        // The UE stays outdoor, as the reference simulator classifies it once at
        // setup; fbtcp-2's UE walks through building footprints.
        assert!(
            street("position = [30, 5, 1.5]\nlegs = [{ at_s = 0, velocity = [10, 0, 0] }]").is_ok()
        );
        assert!(
            street("position = [30, 5, 1.5]\nwaypoints = [{ to = [70, 5, 1.5], speed_mps = 10 }]")
                .is_ok()
        );
        // Above the roof is outside.
        assert!(street("position = [50, 5, 25]").is_ok());
    }

    #[test]
    fn positions_speeds_and_counts_have_ranges() {
        let e = street("position = [1e7, 0, 1.5]").unwrap_err();
        assert_eq!(
            e,
            "radio.ues[0].position[0]: must be in [-1e6, 1e6] m, got 1e7"
        );
        let e = street("position = [0, 0, 1.5]\nlegs = [{ at_s = 0, velocity = [1e300, 0, 0] }]")
            .unwrap_err();
        assert_eq!(
            e,
            "radio.ues[0].legs[0].velocity[0]: must be in [-1e3, 1e3] m/s, got 1e300"
        );
        let e = street("position = [0, 0, 1.5]\nlegs = [{ at_s = 2e6, velocity = [1, 0, 0] }]")
            .unwrap_err();
        assert_eq!(
            e,
            "radio.ues[0].legs[0].at_s: must be in [0, 1e6] s, got 2e6"
        );
        let e = street("position = [0, 0, 1.5]\nwaypoints = [{ to = [5, 0, 1.5], speed_mps = 0 }]")
            .unwrap_err();
        assert_eq!(
            e,
            "radio.ues[0].waypoints[0].speed_mps: must be in (0, 1e3] m/s, got 0"
        );
        let ues = "[[radio.ues]]\nposition = [0, 5, 1.5]\n".repeat(super::MAX_UES + 1);
        let e = Config::from_toml(&format!("[radio]\n{ues}[[flows]]\n"))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            format!(
                "radio.ues: at most {} UEs, got {}",
                super::MAX_UES,
                super::MAX_UES + 1
            )
        );
        let e = Config::from_toml(
            "[radio]\nchannel_update_s = 1e-9\n[[radio.ues]]\nposition = [0, 5, 1.5]\n[[flows]]\n",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "radio.channel_update_s: must be in [1e-6, 1e6] s, got 1e-9"
        );
    }
}
