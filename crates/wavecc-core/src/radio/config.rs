//! The `[radio]` section's plain config types, and the radio's parts built from
//! them: points, obstacle boxes, UE trajectories and the LoS test. The scenario
//! re-exports the types as part of its schema and validates them (`scenario/radio.rs`),
//! so building cannot fail for a valid config. Each profile's parameter table is in
//! its own file (`profile/`).

use super::geometry::{LosTest, Obstacle, ObstacleClass, Point};
use super::mobility::{Leg, Trajectory, Waypoint};
use super::profile::{self, Ns3MmwaveParams, ThreeGppParams};
use super::rlc::MAX_HARQ_ATTEMPTS;
use super::scheduler::SchedulerKind;
use serde::{Deserialize, Serialize};

/// The most HARQ retransmissions `harq_max_retx` may ask for: the radio keeps a
/// transport block's SINR for at most 8 attempts (`radio::MAX_HARQ_ATTEMPTS`).
pub const MAX_HARQ_RETX: u8 = 7;

// The config's limit on retransmissions fits the attempts HARQ keeps.
const _: () = assert!(MAX_HARQ_RETX as usize + 1 == MAX_HARQ_ATTEMPTS);

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
    /// How often positions, path loss, SINR and MCS are recomputed, seconds; absent:
    /// the profile's own (125 us for ns3-mmwave, 1 ms for 3gpp).
    pub channel_update_s: Option<f64>,
    /// Under a profile whose channels follow the geometry alone (3gpp), a UE's links
    /// to the gNBs other than its serving one are measured again once it has moved
    /// this far (m) since they last were; its serving link at every channel update.
    /// 0 measures every link at every update.
    pub neighbour_remeasure_m: f64,
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
    /// From HARQ giving up to the RLC retransmission: the papers' 4 ms poll-retransmit
    /// timer. Under `ns3-mmwave` it is that timer itself, which acts only when the
    /// sender runs out of data; the receiver's reordering timer
    /// (`radio.ns3_mmwave.reordering_timer_s`) acts first while data flows.
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
            channel_update_s: None,
            neighbour_remeasure_m: 0.1,
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

/// A config position (x, y, z) in metres as a point.
pub fn point(p: [f64; 3]) -> Point {
    Point::new(p[0], p[1], p[2])
}

/// A config obstacle as a box.
pub fn obstacle(o: &ObstacleConfig) -> Obstacle {
    Obstacle {
        min: Point::new(o.x[0], o.y[0], o.z[0]),
        max: Point::new(o.x[1], o.y[1], o.z[1]),
        class: o.class,
    }
}

/// A UE's path, from its waypoints if it has any, else from its legs (a valid config
/// has not both).
pub fn trajectory(ue: &UeConfig) -> Result<Trajectory, String> {
    let start = point(ue.position);
    if !ue.waypoints.is_empty() {
        let wps: Vec<Waypoint> = ue
            .waypoints
            .iter()
            .map(|w| Waypoint {
                to: point(w.to),
                speed_mps: w.speed_mps,
                pause_s: w.pause_s,
            })
            .collect();
        return Trajectory::from_waypoints(start, ue.start_s, &wps);
    }
    Trajectory::new(
        start,
        ue.legs
            .iter()
            .map(|l| Leg {
                at_s: l.at_s,
                velocity: l.velocity,
            })
            .collect(),
    )
}

/// The channel update period (s): `radio.channel_update_s`, else the profile's own.
pub fn channel_update_s(cfg: &RadioConfig) -> f64 {
    cfg.channel_update_s
        .unwrap_or_else(|| profile::of(cfg).default_channel_update_s())
}

/// The LoS test: `radio.los_test`, else the profile's own.
pub fn los_test(cfg: &RadioConfig) -> LosTest {
    cfg.los_test
        .unwrap_or_else(|| profile::of(cfg).default_los_test())
}
