//! The `[radio]` section's validation: the ranges and the rules the types cannot
//! express. The section's plain config types are the radio's own (`radio/config.rs`,
//! each profile's table in `radio/profile/`); the scenario re-exports them as part of
//! its schema. Without the section the path ends at the client (a wired scenario).
//! Defaults are the source papers' ns-3 mmWave settings (docs/model.md, "The
//! reference network").

use super::validate::{
    COORDINATE, Check, DB, MAX_COORDINATE_M, MAX_GNBS, MAX_SPEED_MPS, MAX_UES, PERIOD, RATE, Range,
    TIME, VELOCITY, at_most, bytes, check, count,
};
use super::{ConfigError, FlowConfig};
pub use crate::radio::{
    Forwarding, GnbConfig, GppScenario, HandoverConfig, LegConfig, LosTest, MAX_HARQ_RETX,
    NR_DEFAULT_DATA_SYMBOLS, NS3_TRACE_STEADY_DB, NrMcsTable, Ns3Channel, Ns3MmwaveParams,
    ObstacleClass, ObstacleConfig, ProfileName, RadioConfig, SchedulerKind, ThreeGppParams,
    UeConfig, WaypointConfig,
};

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
        let entry = crate::radio::entry(self.profile);
        (entry.params)(self)
            .validate()
            .map_err(|e| ConfigError::invalid(format!("radio.{}", entry.key), e))?;
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
            check(
                "radio.ns3_mmwave.reordering_timer_s",
                self.ns3_mmwave.reordering_timer_s,
                TIME,
            )?;
            check(
                "radio.ns3_mmwave.buffer_status_timer_s",
                self.ns3_mmwave.buffer_status_timer_s,
                TIME,
            )?;
        }
        Ok(())
    }

    /// The radio link's timing, HARQ, RLC and S1-U, and handover.
    fn validate_link(&self) -> Check {
        if let Some(period) = self.channel_update_s {
            check("radio.channel_update_s", period, PERIOD)?;
        }
        check(
            "radio.neighbour_remeasure_m",
            self.neighbour_remeasure_m,
            Range::closed(0.0, MAX_COORDINATE_M, "m"),
        )?;
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
        let e = Config::from_toml(
            "[radio]\nneighbour_remeasure_m = -0.1\n[[radio.ues]]\nposition = [0, 5, 1.5]\n[[flows]]\n",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "radio.neighbour_remeasure_m: must be in [0, 1e6] m, got -0.1"
        );
    }
}
