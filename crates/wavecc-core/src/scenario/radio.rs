//! The `[radio]` section: a 5G mmWave access network between the wired path and
//! the UEs. Without it the path ends at the client (a wired scenario). Defaults are
//! the source papers' ns-3 mmWave settings (docs/model.md, "The reference network").

use super::validate::{
    COORDINATE, Check, DB, MAX_GNBS, MAX_SPEED_MPS, MAX_UES, PERIOD, RATE, Range, TIME, VELOCITY,
    at_most, bytes, check, count,
};
use super::{ConfigError, FlowConfig};
use crate::radio::{
    Leg, LosTest, MAX_HARQ_ATTEMPTS, Ns3MmwaveParams, Obstacle, ObstacleClass, Point, Profile,
    SchedulerKind, ThreeGppParams, Trajectory, Waypoint,
};
use serde::{Deserialize, Serialize};

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

impl UeConfig {
    /// The UE's path, from legs or waypoints.
    pub fn trajectory(&self) -> Result<Trajectory, String> {
        let start = point(self.position);
        if !self.waypoints.is_empty() {
            if !self.legs.is_empty() {
                return Err("give legs or waypoints, not both".into());
            }
            let wps: Vec<Waypoint> = self
                .waypoints
                .iter()
                .map(|w| Waypoint {
                    to: point(w.to),
                    speed_mps: w.speed_mps,
                    pause_s: w.pause_s,
                })
                .collect();
            return Trajectory::from_waypoints(start, self.start_s, &wps);
        }
        Trajectory::new(
            start,
            self.legs
                .iter()
                .map(|l| Leg {
                    at_s: l.at_s,
                    velocity: l.velocity,
                })
                .collect(),
        )
    }
}

pub fn point(p: [f64; 3]) -> Point {
    Point::new(p[0], p[1], p[2])
}

impl ObstacleConfig {
    pub fn obstacle(&self) -> Obstacle {
        Obstacle {
            min: Point::new(self.x[0], self.y[0], self.z[0]),
            max: Point::new(self.x[1], self.y[1], self.z[1]),
            class: self.class,
        }
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
        self.los_test
            .unwrap_or_else(|| self.profile().default_los_test())
    }

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
        let section = match self.profile {
            ProfileName::Ns3Mmwave => "radio.ns3_mmwave",
            ProfileName::ThreeGpp => "radio.3gpp",
        };
        self.profile()
            .validate()
            .map_err(|e| ConfigError::invalid(section, e))?;
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
            Range::closed(0.0, (MAX_HARQ_ATTEMPTS - 1) as f64, "retransmissions"),
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
        let trajectory = u.trajectory().map_err(|e| ConfigError::invalid(&key, e))?;
        let p = trajectory.position(0.0);
        self.outside_buildings(&format!("{key}.position"), [p.x, p.y, p.z])
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

#[cfg(test)]
mod tests {
    use crate::Config;

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
