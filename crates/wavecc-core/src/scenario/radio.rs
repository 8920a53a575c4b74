//! The `[radio]` section: a 5G mmWave access network between the wired path and
//! the UEs. Without it the path ends at the client (a wired scenario). Defaults are
//! the seeds' ns-3 mmWave settings (`shared/spec/network-model.md`).

use super::validate::{at_least, non_negative, positive, Check};
use super::{ConfigError, FlowConfig};
use crate::radio::{
    Leg, LosTest, Ns3MmwaveParams, Obstacle, ObstacleClass, Point, Profile, SchedulerKind, ThreeGppParams, Trajectory, Waypoint,
    MAX_HARQ_ATTEMPTS,
};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RadioConfig {
    /// Propagation and link-adaptation profile: "ns3-mmwave" or "3gpp".
    pub profile: ProfileName,
    /// Parameters of the `ns3-mmwave` profile.
    pub ns3_mmwave: Ns3MmwaveParams,
    /// Parameters of the `3gpp` profile.
    #[serde(rename = "3gpp")]
    pub threegpp: ThreeGppParams,
    /// LoS test: "ns3-2d" (the seeds' ns-3 test, heights ignored) or "exact-3d";
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
    pub harq_processes: u32,
    /// RLC AM transmission buffer limit on new data, bytes (module default 1 MiB).
    pub rlc_buffer_bytes: u64,
    /// From HARQ giving up to the RLC retransmission: the status report after the
    /// seeds' 4 ms poll-retransmit timer.
    pub rlc_retx_delay_s: f64,
    /// Scheduling request and grant before the UE may send (ACKs): 0.3-0.7 ms.
    pub uplink_grant_delay_s: f64,
    /// How a slot's symbols are shared among UEs: "rr" or "pf".
    pub scheduler: SchedulerKind,
    /// The S1-U link from the PGW to the gNBs.
    pub s1u_rate_bps: f64,
    pub s1u_delay_s: f64,
    /// Other gNBs interfere with a UE's serving link while they transmit, through
    /// their channel gain minus this (their beams point at their own UEs; the
    /// default removes the 28.2 dB mean beamforming gain).
    pub interferer_beam_loss_db: f64,
    pub handover: HandoverConfig,
    pub gnbs: Vec<GnbConfig>,
    pub ues: Vec<UeConfig>,
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
            gnbs: vec![GnbConfig { position: [0.0, 0.0, 15.0] }],
            ues: Vec::new(),
            obstacles: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub enum ProfileName {
    #[serde(rename = "ns3-mmwave")]
    Ns3Mmwave,
    #[serde(rename = "3gpp")]
    ThreeGpp,
}

/// SINR-based handover between gNBs.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct HandoverConfig {
    /// A neighbour must be better than the serving cell by this much (received power, dB)...
    pub hysteresis_db: f64,
    /// ...for this long (seed 004: a fixed 200 us time-to-trigger).
    pub time_to_trigger_s: f64,
    /// Time constant of the exponential filter on the gains handover compares (the
    /// layer-3 filtering of TS 38.331 5.5.3.2); 0 compares raw measurements. Without
    /// it the ns3-mmwave profile's beamforming draws, redrawn every 100 ms, beat the
    /// hysteresis at random wherever two cells are close (dozens of ping-pongs per
    /// minute on seed 004's street).
    pub filter_s: f64,
    /// No radio transmission for the UE during the handover.
    pub interruption_s: f64,
    /// "lossless": the RLC buffer moves to the new cell and HARQ blocks in flight
    /// are retransmitted from there; "drop": everything undelivered is lost.
    pub forwarding: Forwarding,
}

impl Default for HandoverConfig {
    fn default() -> Self {
        Self { hysteresis_db: 3.0, time_to_trigger_s: 0.0002, filter_s: 0.2, interruption_s: 0.02, forwarding: Forwarding::Lossless }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Forwarding {
    Lossless,
    Drop,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GnbConfig {
    /// Position (x, y, z) in metres.
    pub position: [f64; 3],
}

/// A UE: where it starts and how it moves, as velocity legs or waypoints (not both).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct UeConfig {
    /// Start position (x, y, z) in metres; the seeds' UEs are at 1.5 m.
    pub position: [f64; 3],
    /// From `at_s` on, move at `velocity` (m/s; [0, 0, 0] pauses).
    #[serde(default)]
    pub legs: Vec<LegConfig>,
    /// Or: from `start_s`, go to each point at its speed, pausing there.
    #[serde(default)]
    pub waypoints: Vec<WaypointConfig>,
    #[serde(default)]
    pub start_s: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LegConfig {
    pub at_s: f64,
    pub velocity: [f64; 3],
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WaypointConfig {
    pub to: [f64; 3],
    pub speed_mps: f64,
    #[serde(default)]
    pub pause_s: f64,
}

/// An axis-aligned box: x, y and z ranges [min, max] in metres.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ObstacleConfig {
    pub class: ObstacleClass,
    pub x: [f64; 2],
    pub y: [f64; 2],
    pub z: [f64; 2],
}

impl UeConfig {
    /// The UE's path, from legs or waypoints.
    pub fn trajectory(&self) -> Result<Trajectory, String> {
        let start = point(self.position);
        if !self.waypoints.is_empty() {
            if !self.legs.is_empty() {
                return Err("give legs or waypoints, not both".into());
            }
            let wps: Vec<Waypoint> =
                self.waypoints.iter().map(|w| Waypoint { to: point(w.to), speed_mps: w.speed_mps, pause_s: w.pause_s }).collect();
            return Trajectory::from_waypoints(start, self.start_s, &wps);
        }
        Trajectory::new(start, self.legs.iter().map(|l| Leg { at_s: l.at_s, velocity: l.velocity }).collect())
    }
}

pub fn point(p: [f64; 3]) -> Point {
    Point::new(p[0], p[1], p[2])
}

impl ObstacleConfig {
    pub fn obstacle(&self) -> Obstacle {
        Obstacle { min: Point::new(self.x[0], self.y[0], self.z[0]), max: Point::new(self.x[1], self.y[1], self.z[1]), class: self.class }
    }
}

impl RadioConfig {
    pub fn profile(&self) -> Profile {
        match self.profile {
            ProfileName::Ns3Mmwave => Profile::Ns3Mmwave(self.ns3_mmwave.clone()),
            ProfileName::ThreeGpp => Profile::ThreeGpp(self.threegpp.clone()),
        }
    }

    pub fn los_test(&self) -> LosTest {
        self.los_test.unwrap_or_else(|| self.profile().default_los_test())
    }

    pub(super) fn validate(&self, flows: &[FlowConfig]) -> Check {
        let section = match self.profile {
            ProfileName::Ns3Mmwave => "radio.ns3_mmwave",
            ProfileName::ThreeGpp => "radio.3gpp",
        };
        self.profile().validate().map_err(|e| ConfigError::invalid(section, e))?;
        positive("radio.channel_update_s", self.channel_update_s)?;
        if !(self.target_bler > 0.0 && self.target_bler < 1.0) {
            return Err(ConfigError::invalid("radio.target_bler", format!("must be in (0, 1), got {}", self.target_bler)));
        }
        if usize::from(self.harq_max_retx) >= MAX_HARQ_ATTEMPTS {
            return Err(ConfigError::invalid("radio.harq_max_retx", format!("must be < {MAX_HARQ_ATTEMPTS}, got {}", self.harq_max_retx)));
        }
        non_negative("radio.harq_rtt_s", self.harq_rtt_s)?;
        at_least("radio.harq_processes", u64::from(self.harq_processes), 1)?;
        at_least("radio.rlc_buffer_bytes", self.rlc_buffer_bytes, 1)?;
        non_negative("radio.rlc_retx_delay_s", self.rlc_retx_delay_s)?;
        non_negative("radio.uplink_grant_delay_s", self.uplink_grant_delay_s)?;
        positive("radio.s1u_rate_bps", self.s1u_rate_bps)?;
        non_negative("radio.s1u_delay_s", self.s1u_delay_s)?;
        non_negative("radio.interferer_beam_loss_db", self.interferer_beam_loss_db)?;
        let h = &self.handover;
        non_negative("radio.handover.hysteresis_db", h.hysteresis_db)?;
        non_negative("radio.handover.time_to_trigger_s", h.time_to_trigger_s)?;
        non_negative("radio.handover.filter_s", h.filter_s)?;
        non_negative("radio.handover.interruption_s", h.interruption_s)?;
        if self.gnbs.is_empty() {
            return Err(ConfigError::invalid("radio.gnbs", "at least one [[radio.gnbs]] entry is required"));
        }
        for (i, g) in self.gnbs.iter().enumerate() {
            finite_point(&format!("radio.gnbs[{i}].position"), g.position)?;
        }
        if self.ues.is_empty() {
            return Err(ConfigError::invalid("radio.ues", "at least one [[radio.ues]] entry is required"));
        }
        for (i, u) in self.ues.iter().enumerate() {
            finite_point(&format!("radio.ues[{i}].position"), u.position)?;
            u.trajectory().map_err(|e| ConfigError::invalid(format!("radio.ues[{i}]"), e))?;
        }
        for (i, o) in self.obstacles.iter().enumerate() {
            for (axis, r) in [("x", o.x), ("y", o.y), ("z", o.z)] {
                if !(r[0].is_finite() && r[1].is_finite() && r[0] < r[1]) {
                    return Err(ConfigError::invalid(format!("radio.obstacles[{i}].{axis}"), format!("must be [min, max] with min < max, got {r:?}")));
                }
            }
        }
        for (i, g) in self.gnbs.iter().enumerate() {
            let [x, y, z] = g.position;
            let inside = |o: &&ObstacleConfig| {
                o.class == ObstacleClass::Building && (o.x[0]..=o.x[1]).contains(&x) && (o.y[0]..=o.y[1]).contains(&y) && (o.z[0]..=o.z[1]).contains(&z)
            };
            if let Some(j) = self.obstacles.iter().position(|o| inside(&o)) {
                return Err(ConfigError::invalid(format!("radio.gnbs[{i}].position"), format!("{:?} is inside a building (radio.obstacles[{j}])", g.position)));
            }
        }
        if let Some(i) = flows.iter().position(|f| f.ue as usize >= self.ues.len()) {
            return Err(ConfigError::invalid(format!("flows[{i}].ue"), format!("must name one of the {} UEs (0..{}), got {}", self.ues.len(), self.ues.len() - 1, flows[i].ue)));
        }
        Ok(())
    }
}

fn finite_point(path: &str, p: [f64; 3]) -> Check {
    if p.iter().all(|v| v.is_finite()) { Ok(()) } else { Err(ConfigError::invalid(path, format!("must be finite, got {p:?}"))) }
}
