//! UE mobility: piecewise-constant velocity schedules (the source papers' ns-3
//! `ConstantVelocityMobilityModel` with `SetVelocity` events at given times) and the
//! blocked-interval scan used by tests, docs and the scenario map.

use super::geometry::{LosTest, Obstacle, Point, is_blocked};

/// From `at_s` on the UE moves at `velocity` (m/s) until the next leg; v = 0 is a pause.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Leg {
    pub at_s: f64,
    pub velocity: [f64; 3],
}

/// Waypoint sugar: go in a straight line to `to` at `speed_mps`, then pause `pause_s`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Waypoint {
    pub to: Point,
    pub speed_mps: f64,
    pub pause_s: f64,
}

/// A UE's path: stationary at `start` until the first leg, then piecewise-linear.
#[derive(Clone, Debug, PartialEq)]
pub struct Trajectory {
    start: Point,
    legs: Vec<Leg>,
    /// Position at `legs[i].at_s` (precomputed so `position` is one search + one
    /// multiply-add).
    at_leg: Vec<Point>,
}

fn advance(p: Point, v: [f64; 3], dt: f64) -> Point {
    Point::new(p.x + v[0] * dt, p.y + v[1] * dt, p.z + v[2] * dt)
}

impl Trajectory {
    /// Errors (naming the leg index and what is wrong) for non-increasing times,
    /// negative times, non-finite values.
    pub fn new(start: Point, legs: Vec<Leg>) -> Result<Self, String> {
        if !start.is_finite() {
            return Err(format!("start {start:?}: coordinates must be finite"));
        }
        let mut at_leg = Vec::with_capacity(legs.len());
        let mut pos = start;
        for (i, leg) in legs.iter().enumerate() {
            if !leg.at_s.is_finite() || leg.at_s < 0.0 {
                return Err(format!(
                    "legs[{i}].at_s = {}: must be a finite time >= 0 s",
                    leg.at_s
                ));
            }
            if leg.velocity.iter().any(|v| !v.is_finite()) {
                return Err(format!(
                    "legs[{i}].velocity = {:?}: must be finite (m/s)",
                    leg.velocity
                ));
            }
            if i > 0 {
                let prev = &legs[i - 1];
                if leg.at_s <= prev.at_s {
                    return Err(format!(
                        "legs[{i}].at_s = {}: must be greater than legs[{}].at_s = {}",
                        leg.at_s,
                        i - 1,
                        prev.at_s
                    ));
                }
                pos = advance(pos, prev.velocity, leg.at_s - prev.at_s);
            }
            at_leg.push(pos);
        }
        Ok(Trajectory {
            start,
            legs,
            at_leg,
        })
    }

    /// A stationary UE.
    pub fn fixed(at: Point) -> Self {
        Trajectory {
            start: at,
            legs: Vec::new(),
            at_leg: Vec::new(),
        }
    }

    /// Starts moving at `start_s` through `waypoints` in order; after the last one the UE
    /// stays there. Errors for speed <= 0, negative pause, non-finite values, negative
    /// `start_s`. A waypoint equal to the current position only pauses.
    pub fn from_waypoints(
        start: Point,
        start_s: f64,
        waypoints: &[Waypoint],
    ) -> Result<Self, String> {
        if !start_s.is_finite() || start_s < 0.0 {
            return Err(format!("start_s = {start_s}: must be a finite time >= 0 s"));
        }
        let mut legs: Vec<Leg> = Vec::with_capacity(2 * waypoints.len() + 1);
        // Push a leg, replacing the previous one if rounding left no time between them.
        fn push(legs: &mut Vec<Leg>, leg: Leg) {
            match legs.last_mut() {
                Some(last) if leg.at_s <= last.at_s => *last = leg,
                _ => legs.push(leg),
            }
        }
        let mut t = start_s;
        let mut cur = start;
        for (i, w) in waypoints.iter().enumerate() {
            if !w.to.is_finite() {
                return Err(format!("waypoints[{i}].to = {:?}: must be finite", w.to));
            }
            if !w.speed_mps.is_finite() || w.speed_mps <= 0.0 {
                return Err(format!(
                    "waypoints[{i}].speed_mps = {}: must be a finite speed > 0 m/s",
                    w.speed_mps
                ));
            }
            if !w.pause_s.is_finite() || w.pause_s < 0.0 {
                return Err(format!(
                    "waypoints[{i}].pause_s = {}: must be a finite time >= 0 s",
                    w.pause_s
                ));
            }
            let d = cur.distance(w.to);
            if d > 0.0 {
                let k = w.speed_mps / d;
                let v = [
                    (w.to.x - cur.x) * k,
                    (w.to.y - cur.y) * k,
                    (w.to.z - cur.z) * k,
                ];
                push(
                    &mut legs,
                    Leg {
                        at_s: t,
                        velocity: v,
                    },
                );
                t += d / w.speed_mps;
            }
            if w.pause_s > 0.0 || i + 1 == waypoints.len() {
                push(
                    &mut legs,
                    Leg {
                        at_s: t,
                        velocity: [0.0; 3],
                    },
                );
            }
            t += w.pause_s;
            cur = w.to;
        }
        let mut tr = Trajectory::new(start, legs)?;
        // Snap the stored leg-start positions onto the waypoints (no rounding drift).
        let mut cur = start;
        let mut li = 0;
        let mut t = start_s;
        for w in waypoints {
            let d = cur.distance(w.to);
            if d > 0.0 {
                t += d / w.speed_mps;
            }
            // The leg starting at the arrival time (if any) starts exactly at `w.to`.
            while li < tr.legs.len() && tr.legs[li].at_s < t {
                li += 1;
            }
            if li < tr.legs.len() && tr.legs[li].at_s == t {
                tr.at_leg[li] = w.to;
            }
            t += w.pause_s;
            cur = w.to;
        }
        Ok(tr)
    }

    pub fn start(&self) -> Point {
        self.start
    }

    pub fn legs(&self) -> &[Leg] {
        &self.legs
    }

    /// Position at `t_s` (O(log legs)); before the first leg the UE is at `start`.
    pub fn position(&self, t_s: f64) -> Point {
        // Index of the last leg with at_s <= t_s.
        let n = self.legs.partition_point(|l| l.at_s <= t_s);
        if n == 0 {
            return self.start;
        }
        let i = n - 1;
        advance(
            self.at_leg[i],
            self.legs[i].velocity,
            t_s - self.legs[i].at_s,
        )
    }

    /// Velocity (m/s) at `t_s`.
    pub fn velocity(&self, t_s: f64) -> [f64; 3] {
        let n = self.legs.partition_point(|l| l.at_s <= t_s);
        if n == 0 {
            [0.0; 3]
        } else {
            self.legs[n - 1].velocity
        }
    }
}

/// Intervals `[start, end)` (s) over `[0, duration_s]` when `gnb`->UE is blocked,
/// sampled every `step_s` and each edge refined by bisection to 0.1 ms. An interval
/// still open at `duration_s` ends there. Edges are the first sampled instant of the
/// new state (so `start` is blocked and `end` is not).
pub fn blocked_intervals(
    test: LosTest,
    gnb: Point,
    ue: &Trajectory,
    obstacles: &[Obstacle],
    duration_s: f64,
    step_s: f64,
) -> Vec<(f64, f64)> {
    const EDGE_S: f64 = 1e-4;
    let blocked = |t: f64| is_blocked(test, gnb, ue.position(t), obstacles);
    // First instant in (lo, hi] with state != `from`, given state(lo) == from.
    let refine = |mut lo: f64, mut hi: f64, from: bool| {
        while hi - lo > EDGE_S {
            let mid = 0.5 * (lo + hi);
            if blocked(mid) == from {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        hi
    };
    let mut out = Vec::new();
    if duration_s.is_nan() || duration_s < 0.0 || step_s.is_nan() || step_s <= 0.0 {
        return out;
    }
    let mut state = blocked(0.0);
    let mut open = if state { Some(0.0) } else { None };
    let n = (duration_s / step_s).ceil() as u64;
    let mut prev_t = 0.0;
    for k in 1..=n {
        let t = (k as f64 * step_s).min(duration_s);
        let s = blocked(t);
        if s != state {
            let edge = refine(prev_t, t, state);
            if s {
                open = Some(edge);
            } else if let Some(st) = open.take() {
                out.push((st, edge));
            }
            state = s;
        }
        prev_t = t;
    }
    if let Some(st) = open {
        out.push((st, duration_s));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::geometry::ObstacleClass::{Building, Tree};
    use super::*;

    fn close(a: Point, b: Point) -> bool {
        a.distance(b) < 1e-9
    }

    #[test]
    fn legs_give_positions() {
        // Still until 1 s, east 1.5 m/s until 4 s (x = 4.5), pause until 9 s, then north
        // 2 m/s: at 10 s (4.5, 2).
        let tr = Trajectory::new(
            Point::new(0.0, 68.0, 1.5),
            vec![
                Leg {
                    at_s: 1.0,
                    velocity: [1.5, 0.0, 0.0],
                },
                Leg {
                    at_s: 4.0,
                    velocity: [0.0; 3],
                },
                Leg {
                    at_s: 9.0,
                    velocity: [0.0, 2.0, 0.0],
                },
            ],
        )
        .unwrap();
        assert!(close(tr.position(0.0), Point::new(0.0, 68.0, 1.5)));
        assert!(close(tr.position(1.0), Point::new(0.0, 68.0, 1.5)));
        assert!(close(tr.position(2.0), Point::new(1.5, 68.0, 1.5)));
        assert!(close(tr.position(4.0), Point::new(4.5, 68.0, 1.5)));
        assert!(close(tr.position(8.0), Point::new(4.5, 68.0, 1.5)));
        assert!(close(tr.position(10.0), Point::new(4.5, 70.0, 1.5)));
        assert_eq!(tr.velocity(10.0), [0.0, 2.0, 0.0]);
        assert_eq!(tr.velocity(0.5), [0.0; 3]);
    }

    #[test]
    fn leg_errors_name_the_leg() {
        let p = Point::new(0.0, 0.0, 1.5);
        let e = Trajectory::new(
            p,
            vec![
                Leg {
                    at_s: 1.0,
                    velocity: [1.0, 0.0, 0.0],
                },
                Leg {
                    at_s: 1.0,
                    velocity: [0.0; 3],
                },
            ],
        )
        .unwrap_err();
        assert!(e.contains("legs[1].at_s"), "{e}");
        let e = Trajectory::new(
            p,
            vec![Leg {
                at_s: -1.0,
                velocity: [0.0; 3],
            }],
        )
        .unwrap_err();
        assert!(e.contains("legs[0].at_s"), "{e}");
        let e = Trajectory::new(
            p,
            vec![Leg {
                at_s: 0.0,
                velocity: [f64::NAN, 0.0, 0.0],
            }],
        )
        .unwrap_err();
        assert!(e.contains("legs[0].velocity"), "{e}");
    }

    #[test]
    fn waypoints_are_sugar_for_legs() {
        // From (0,0) at 2 s: to (3,4) at 1 m/s (5 s, arrive 7 s), pause 3 s, then to
        // (3,10) at 2 m/s (3 s, arrive 13 s), stay.
        let tr = Trajectory::from_waypoints(
            Point::new(0.0, 0.0, 1.5),
            2.0,
            &[
                Waypoint {
                    to: Point::new(3.0, 4.0, 1.5),
                    speed_mps: 1.0,
                    pause_s: 3.0,
                },
                Waypoint {
                    to: Point::new(3.0, 10.0, 1.5),
                    speed_mps: 2.0,
                    pause_s: 0.0,
                },
            ],
        )
        .unwrap();
        let ats: Vec<f64> = tr.legs().iter().map(|l| l.at_s).collect();
        assert_eq!(ats, vec![2.0, 7.0, 10.0, 13.0]);
        assert!(close(tr.position(1.0), Point::new(0.0, 0.0, 1.5)));
        assert!(close(tr.position(4.5), Point::new(1.5, 2.0, 1.5)));
        assert_eq!(tr.position(7.0), Point::new(3.0, 4.0, 1.5)); // snapped exactly
        assert!(close(tr.position(9.0), Point::new(3.0, 4.0, 1.5)));
        assert!(close(tr.position(11.5), Point::new(3.0, 7.0, 1.5)));
        assert!(close(tr.position(100.0), Point::new(3.0, 10.0, 1.5)));
        for (w, msg) in [
            (
                Waypoint {
                    to: Point::new(1.0, 0.0, 0.0),
                    speed_mps: 0.0,
                    pause_s: 0.0,
                },
                "speed",
            ),
            (
                Waypoint {
                    to: Point::new(1.0, 0.0, 0.0),
                    speed_mps: 1.0,
                    pause_s: -1.0,
                },
                "pause",
            ),
        ] {
            let e = Trajectory::from_waypoints(Point::default(), 0.0, &[w]).unwrap_err();
            assert!(e.contains("waypoints[0]") && e.contains(msg), "{e}");
        }
    }

    // ---- The source papers' walks (docs/model.md, "The source papers' walks as
    // geometry") with the ns-3 2D test; expected blocked periods from that section. ----

    const GNB: Point = Point::new(0.0, 0.0, 15.0);

    fn legs(v: &[(f64, f64, f64)]) -> Vec<Leg> {
        v.iter()
            .map(|&(t, vx, vy)| Leg {
                at_s: t,
                velocity: [vx, vy, 0.0],
            })
            .collect()
    }

    fn run(obs: &[Obstacle], tr: &Trajectory, dur: f64) -> Vec<(f64, f64)> {
        blocked_intervals(LosTest::Ns32d, GNB, tr, obs, dur, 0.01)
    }

    fn assert_match(got: &[(f64, f64)], want: &[(f64, f64)], tol: f64) {
        assert_eq!(got.len(), want.len(), "got {got:?}, want {want:?}");
        for (g, w) in got.iter().zip(want) {
            assert!(
                (g.0 - w.0).abs() <= tol && (g.1 - w.1).abs() <= tol,
                "got {got:?}, want {want:?}"
            );
        }
    }

    fn buildings(xs: &[(f64, f64)]) -> Vec<Obstacle> {
        xs.iter()
            .map(|&x| Obstacle::new(x, (67.0, 74.0), (0.0, 30.0), Building))
            .collect()
    }

    #[test]
    fn fbtcp1_ten_trees() {
        let obs: Vec<Obstacle> = (0..10)
            .map(|k| {
                let x0 = 1.5 + 2.0 * k as f64;
                Obstacle::new((x0, x0 + 0.5), (67.0, 67.5), (0.0, 10.0), Tree)
            })
            .collect();
        let tr = Trajectory::new(
            Point::new(0.0, 68.0, 1.5),
            legs(&[(1.0, 1.5, 0.0), (20.0, 0.0, 0.0)]),
        )
        .unwrap();
        let got = run(&obs, &tr, 20.0);
        // Tree k blocks while x/68 lies between (1.5+2k)/67.5 and (2+2k)/67, x = 1.5(t-1):
        // k=0 (2.007, 2.353), k=1 (3.351, 3.706), ..., k=9 (14.096, 14.533).
        assert_eq!(got.len(), 10, "{got:?}");
        for (k, &(s, e)) in got.iter().enumerate() {
            let x0 = 1.5 + 2.0 * k as f64;
            let (ws, we) = (
                1.0 + 68.0 * x0 / 67.5 / 1.5,
                1.0 + 68.0 * (x0 + 0.5) / 67.0 / 1.5,
            );
            assert!(
                (s - ws).abs() < 0.002 && (e - we).abs() < 0.002,
                "{k}: {got:?}"
            );
            assert!((0.34..=0.44).contains(&(e - s)), "{k}: {got:?}");
        }
        // docs/model.md's numbers: starts 2.01, 3.35, 4.69, ...; last ends 14.53.
        for (k, want) in [2.01, 3.35, 4.69].iter().enumerate() {
            assert!((got[k].0 - want).abs() < 0.05, "{got:?}");
        }
        assert!((got[9].1 - 14.53).abs() < 0.05, "{got:?}");
    }

    #[test]
    fn fbtcp2_three_buildings() {
        let obs = buildings(&[(2.0, 10.0), (15.0, 23.0), (28.0, 36.0)]);
        let tr = Trajectory::new(
            Point::new(0.0, 68.0, 1.5),
            legs(&[(1.0, 1.5, 0.0), (30.0, 0.0, 0.0)]),
        )
        .unwrap();
        assert_match(
            &run(&obs, &tr, 30.0),
            &[(2.33, 7.77), (11.0, 16.56), (19.67, 25.36)],
            0.05,
        );
    }

    #[test]
    fn fbtcp3_three_buildings_with_stops() {
        let obs = buildings(&[(2.0, 10.0), (18.0, 26.0), (34.0, 42.0)]);
        let tr = Trajectory::new(
            Point::new(0.0, 68.0, 1.5),
            legs(&[
                (1.0, 1.5, 0.0),
                (4.0, 0.0, 0.0),
                (9.0, 1.5, 0.0),
                (22.0, 0.0, 0.0),
                (27.0, 1.5, 0.0),
                (37.0, 0.0, 0.0),
                (42.0, 1.5, 0.0),
                (48.0, 0.0, 0.0),
            ]),
        )
        .unwrap();
        assert_match(
            &run(&obs, &tr, 50.0),
            &[(2.33, 12.77), (18.0, 28.59), (33.67, 44.42)],
            0.05,
        );
    }

    #[test]
    fn fbtcp4_ten_buildings() {
        let xs: Vec<(f64, f64)> = (0..10)
            .map(|k| (2.0 + 16.0 * k as f64, 10.0 + 16.0 * k as f64))
            .collect();
        let tr = Trajectory::new(
            Point::new(0.0, 68.0, 1.5),
            legs(&[
                (1.0, 1.5, 0.0),
                (54.0, 0.0, 0.0),
                (64.0, 1.5, 0.0),
                (120.0, 0.0, 0.0),
            ]),
        )
        .unwrap();
        let got = run(&buildings(&xs), &tr, 120.0);
        // docs/model.md: ten blockages of 5.4-6.9 s from 2.33 s to 115.2 s.
        assert_eq!(got.len(), 10, "{got:?}");
        assert!((got[0].0 - 2.33).abs() < 0.05, "{got:?}");
        assert!((got[9].1 - 115.2).abs() < 0.05, "{got:?}");
        for &(s, e) in &got {
            assert!(e - s >= 5.4 - 0.05 && e - s <= 6.9 + 0.05, "{got:?}");
        }
    }

    #[test]
    fn urban_trees_and_building() {
        let mut obs: Vec<Obstacle> = [
            (2.2, 2.7),
            (5.6, 6.1),
            (10.0, 10.5),
            (13.8, 14.3),
            (17.6, 18.1),
        ]
        .iter()
        .map(|&y| Obstacle::new((49.0, 49.5), y, (0.0, 10.0), Tree))
        .collect();
        obs.push(Obstacle::new(
            (34.0, 40.5),
            (17.8, 23.8),
            (0.0, 30.0),
            Building,
        ));
        let tr = Trajectory::new(
            Point::new(52.0, -0.2, 1.5),
            legs(&[
                (1.0, 0.0, 1.5),
                (5.3, 0.0, 0.0),
                (9.0, 0.0, 1.5),
                (19.0, -1.5, 0.0),
                (26.0, 0.0, 0.0),
                (30.0, -1.5, 0.0),
                (35.0, -30.0, 0.0),
                (60.0, 0.0, 0.0),
            ]),
        )
        .unwrap();
        assert_match(
            &run(&obs, &tr, 60.0),
            &[
                (2.68, 3.04),
                (5.06, 9.15),
                (11.84, 12.26),
                (14.50, 14.95),
                (17.16, 17.64),
                (21.43, 35.0),
            ],
            0.05,
        );
    }

    #[test]
    fn interval_edges_and_open_end() {
        // A building covering the whole path: blocked from 0 to the end.
        let obs = [Obstacle::new(
            (-100.0, 100.0),
            (10.0, 20.0),
            (0.0, 30.0),
            Building,
        )];
        let tr = Trajectory::fixed(Point::new(0.5, 50.0, 1.5));
        assert_eq!(
            blocked_intervals(LosTest::Exact3d, GNB, &tr, &obs, 5.0, 0.1),
            vec![(0.0, 5.0)]
        );
        assert!(blocked_intervals(LosTest::Exact3d, GNB, &tr, &[], 5.0, 0.1).is_empty());
    }
}
