//! The radio's parts built from the scenario's plain config types (`scenario::RadioConfig`):
//! points, obstacle boxes, UE trajectories and the LoS test. The
//! scenario has validated the config, so building cannot fail for a valid one.

use super::geometry::{LosTest, Obstacle, Point};
use super::mobility::{Leg, Trajectory, Waypoint};
use super::profile;
use super::rlc::MAX_HARQ_ATTEMPTS;
use crate::scenario::{MAX_HARQ_RETX, ObstacleConfig, RadioConfig, UeConfig};

// The config's limit on retransmissions fits the attempts HARQ keeps.
const _: () = assert!(MAX_HARQ_RETX as usize + 1 == MAX_HARQ_ATTEMPTS);

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

/// The LoS test: `radio.los_test`, else the profile's own.
pub fn los_test(cfg: &RadioConfig) -> LosTest {
    cfg.los_test
        .unwrap_or_else(|| profile::of(cfg).default_los_test())
}
