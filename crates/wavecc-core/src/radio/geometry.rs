//! Geometry of the radio scene: points, axis-aligned obstacle boxes and the two
//! line-of-sight tests.
//!
//! * [`LosTest::Ns32d`] reproduces the LoS decision of the papers' ns-3 mmWave module
//!   (`MmWaveLosTracker::UpdateLosNlosState` / `BuildingsObstaclePropagationLossModel::GetLoss`
//!   in `src/mmwave/model/mmwave-los-tracker.cc` and
//!   `buildings-obstacle-propagation-loss-model.cc` of nyuwireless-unipd/ns3-mmwave): an
//!   angular test in the xy plane against two corners of every building footprint;
//!   heights are ignored. See `ns3_blocks` for the exact rule and its quirks.
//! * [`LosTest::Exact3d`] is a segment / axis-aligned-box intersection in 3D (slab method,
//!   Kay & Kajiya 1986), used by the `3gpp` profile.
//!
//! Both are allocation-free; [`blockers`] appends into a caller-owned buffer.

use std::f64::consts::FRAC_PI_2;

/// A point (or vector) in metres: x east, y north, z up.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

impl Point {
    pub const fn new(x: f64, y: f64, z: f64) -> Self {
        Point { x, y, z }
    }

    /// Euclidean 3D distance (m).
    #[inline]
    pub fn distance(self, o: Point) -> f64 {
        let (dx, dy, dz) = (self.x - o.x, self.y - o.y, self.z - o.z);
        (dx * dx + dy * dy + dz * dz).sqrt()
    }

    /// Distance in the xy plane (m), the 38.901 `d_2D`.
    #[inline]
    pub fn distance_2d(self, o: Point) -> f64 {
        let (dx, dy) = (self.x - o.x, self.y - o.y);
        (dx * dx + dy * dy).sqrt()
    }

    /// The same coordinates to the bit (signed zeros apart, which `atan2` and the
    /// LoS tests tell apart): what depends on the point alone is unchanged.
    #[inline]
    pub fn same_bits(self, o: Point) -> bool {
        (self.x.to_bits(), self.y.to_bits(), self.z.to_bits())
            == (o.x.to_bits(), o.y.to_bits(), o.z.to_bits())
    }

    /// True when every coordinate is finite.
    pub fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite() && self.z.is_finite()
    }
}

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

/// An axis-aligned box `[min.x, max.x] x [min.y, max.y] x [min.z, max.z]` (m).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Obstacle {
    pub min: Point,
    pub max: Point,
    pub class: ObstacleClass,
}

impl Obstacle {
    /// A box from its ranges, in the order docs/model.md writes them (x; y; z).
    pub const fn new(x: (f64, f64), y: (f64, f64), z: (f64, f64), class: ObstacleClass) -> Self {
        Obstacle {
            min: Point::new(x.0, y.0, z.0),
            max: Point::new(x.1, y.1, z.1),
            class,
        }
    }

    /// Errors for non-finite or inverted ranges ("obstacle: x range 5..2 is inverted").
    pub fn validate(&self) -> Result<(), String> {
        if !self.min.is_finite() || !self.max.is_finite() {
            return Err("obstacle coordinates must be finite".into());
        }
        for (axis, lo, hi) in [
            ("x", self.min.x, self.max.x),
            ("y", self.min.y, self.max.y),
            ("z", self.min.z, self.max.z),
        ] {
            if lo > hi {
                return Err(format!(
                    "obstacle {axis} range {lo}..{hi}: min must be <= max"
                ));
            }
        }
        Ok(())
    }
}

/// `atan2(v - o)` in the xy plane: ns-3's `Angles (v, o).phi`
/// (`src/antenna/model/angles.cc`: `phi = atan2 (v.y - o.y, v.x - o.x)`).
#[inline]
fn phi(v: Point, o: Point) -> f64 {
    (v.y - o.y).atan2(v.x - o.x)
}

/// Which half of the ns-3 test applies: the azimuth of B seen from A is in `[0, pi/2)`
/// (`Upper`), in `[-pi/2, 0)` (`Lower`), or NaN (`Neither`: LoS, as in ns-3).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Branch {
    Upper,
    Lower,
    Neither,
}

/// The pair `(A, B)` the ns-3 test works with: the azimuth of B seen from A is
/// normalised into `[-pi/2, pi/2)` by swapping the ends (so the test is symmetric in
/// tx/rx). Without `atan2` when both coordinate differences are non-zero; otherwise
/// (vertical/horizontal links, signed zeros, NaN) exactly as ns-3 computes it.
#[inline]
fn ns3_oriented(a: Point, b: Point) -> (Point, Point, Branch) {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let sign_branch = |dy: f64| {
        if dy > 0.0 {
            Some(Branch::Upper)
        } else if dy < 0.0 {
            Some(Branch::Lower)
        } else {
            None
        }
    };
    if dx > 0.0
        && let Some(br) = sign_branch(dy)
    {
        return (a, b, br);
    }
    if dx < 0.0
        && let Some(br) = sign_branch(a.y - b.y)
    {
        return (b, a, br);
    }
    let angle = phi(b, a);
    let (a, b, angle) = if !(-FRAC_PI_2..FRAC_PI_2).contains(&angle) {
        (b, a, phi(a, b))
    } else {
        (a, b, angle)
    };
    let br = if (0.0..FRAC_PI_2).contains(&angle) {
        Branch::Upper
    } else if (-FRAC_PI_2..0.0).contains(&angle) {
        Branch::Lower
    } else {
        Branch::Neither
    };
    (a, b, br)
}

/// The ns-3 mmWave module's building LoS test for one box, given the oriented pair from
/// [`ns3_oriented`]. Source: `MmWaveLosTracker::UpdateLosNlosState` (ns3-mmwave,
/// `src/mmwave/model/mmwave-los-tracker.cc`), identical loop in
/// `BuildingsObstaclePropagationLossModel::GetLoss`, with `angle` = azimuth of B from A:
///
/// * angle in `[0, pi/2)`: blocked iff `phi(xMax, yMin) < angle < phi(xMin, yMax)`
///   (azimuths of those corners from A) and `B.x > xMin` and `B.y > yMin`;
/// * angle in `[-pi/2, 0)`: blocked iff `phi(xMin, yMin) < angle < phi(xMax, yMax)` and
///   `B.x > xMin` and `B.y < yMax`.
///
/// For ordinary layouts (box between the ends) this equals "the xy segment crosses the
/// footprint" with strict inequalities; it also blocks a UE standing inside a footprint
/// (the papers' fbtcp-2..4 walk through their buildings at y = 68) and, as in ns-3, a
/// box straddling the x of A can block links pointing away from it. The cheap corner
/// conditions are evaluated first, and the azimuth comparisons use [`azimuth_order`]
/// (cross products) instead of `atan2` wherever that gives the same answer (a test
/// checks this against a literal transcription on 400,000 random and grid cases).
#[inline]
fn ns3_blocks(a: Point, b: Point, branch: Branch, o: &Obstacle) -> bool {
    match branch {
        Branch::Upper => {
            b.x > o.min.x
                && b.y > o.min.y
                && angle_gt(a, b, o.max.x, o.min.y)
                && angle_lt(a, b, o.min.x, o.max.y)
        }
        Branch::Lower => {
            b.x > o.min.x
                && b.y < o.max.y
                && angle_gt(a, b, o.min.x, o.min.y)
                && angle_lt(a, b, o.max.x, o.max.y)
        }
        Branch::Neither => false,
    }
}

/// Order of the azimuth of `b - a` (in (-pi/2, pi/2) here) against the azimuth
/// of `(cx, cy) - a`, without `atan2`: when `b - a` is strictly inside the right half
/// plane and neither vector lies on the x axis, vectors in different half planes are
/// ordered by their half plane, and vectors in the same half plane (angles within pi of
/// each other) by the sign of the cross product. `None` (exact ties, axis-aligned
/// vectors, signed zeros) falls back to ns-3's `atan2` comparison.
#[inline]
fn azimuth_order(a: Point, b: Point, cx: f64, cy: f64) -> Option<std::cmp::Ordering> {
    use std::cmp::Ordering::{Greater, Less};
    let (vx, vy) = (b.x - a.x, b.y - a.y);
    let (wx, wy) = (cx - a.x, cy - a.y);
    if vx > 0.0 && vy != 0.0 && wy != 0.0 {
        if (vy > 0.0) != (wy > 0.0) {
            return Some(if vy > 0.0 { Greater } else { Less });
        }
        let cross = wx * vy - wy * vx;
        if cross != 0.0 {
            return Some(if cross > 0.0 { Greater } else { Less });
        }
    }
    None
}

/// `phi(b, a) > phi((cx, cy), a)`, as ns-3 computes it.
#[inline]
fn angle_gt(a: Point, b: Point, cx: f64, cy: f64) -> bool {
    match azimuth_order(a, b, cx, cy) {
        Some(o) => o == std::cmp::Ordering::Greater,
        None => phi(b, a) > phi(Point::new(cx, cy, 0.0), a),
    }
}

/// `phi(b, a) < phi((cx, cy), a)`, as ns-3 computes it.
#[inline]
fn angle_lt(a: Point, b: Point, cx: f64, cy: f64) -> bool {
    match azimuth_order(a, b, cx, cy) {
        Some(o) => o == std::cmp::Ordering::Less,
        None => phi(b, a) < phi(Point::new(cx, cy, 0.0), a),
    }
}

/// Whether the segment `p`-`q` passes through the closed box `o` over a positive length
/// (a segment that only touches an edge or corner is not blocked). Slab method
/// (Kay & Kajiya, "Ray tracing complex scenes", SIGGRAPH 1986): intersect the parameter
/// intervals `s in [0, 1]` in which the segment lies between each pair of planes.
/// A segment end inside the box (a UE inside a building) counts as blocked.
#[inline]
pub fn segment_intersects_box(p: Point, q: Point, o: &Obstacle) -> bool {
    let mut s0 = 0.0_f64;
    let mut s1 = 1.0_f64;
    for (pa, qa, lo, hi) in [
        (p.x, q.x, o.min.x, o.max.x),
        (p.y, q.y, o.min.y, o.max.y),
        (p.z, q.z, o.min.z, o.max.z),
    ] {
        let d = qa - pa;
        if d == 0.0 {
            if pa < lo || pa > hi {
                return false;
            }
        } else {
            let inv = 1.0 / d;
            let (mut t0, mut t1) = ((lo - pa) * inv, (hi - pa) * inv);
            if t0 > t1 {
                std::mem::swap(&mut t0, &mut t1);
            }
            s0 = s0.max(t0);
            s1 = s1.min(t1);
            if s0 >= s1 {
                return false;
            }
        }
    }
    s1 > s0
}

/// Appends to `out` the class of every obstacle blocking `tx`->`rx` (nothing appended =
/// LoS). Does not clear `out`; allocation-free once `out` has capacity.
pub fn blockers(
    test: LosTest,
    tx: Point,
    rx: Point,
    obstacles: &[Obstacle],
    out: &mut Vec<ObstacleClass>,
) {
    match test {
        LosTest::Ns32d => {
            let (a, b, branch) = ns3_oriented(tx, rx);
            for o in obstacles {
                if ns3_blocks(a, b, branch, o) {
                    out.push(o.class);
                }
            }
        }
        LosTest::Exact3d => {
            for o in obstacles {
                if segment_intersects_box(tx, rx, o) {
                    out.push(o.class);
                }
            }
        }
    }
}

/// True when any obstacle blocks `tx`->`rx` (early exit; no buffer needed).
pub fn is_blocked(test: LosTest, tx: Point, rx: Point, obstacles: &[Obstacle]) -> bool {
    match test {
        LosTest::Ns32d => {
            let (a, b, branch) = ns3_oriented(tx, rx);
            obstacles.iter().any(|o| ns3_blocks(a, b, branch, o))
        }
        LosTest::Exact3d => obstacles.iter().any(|o| segment_intersects_box(tx, rx, o)),
    }
}

/// The obstacles that may block a path from one fixed transmitter (a gNB), by the
/// receiver's bearing: [`blockers`] with the exact-3d test, without testing every
/// obstacle. A path can only cross a footprint whose bearings from the transmitter
/// (the cone of its corners) contain the path's, and only if the footprint is nearer
/// than the receiver; each of `BEARING_BINS` sectors lists, in obstacle order, the
/// obstacles whose cone reaches into it or a neighbouring sector (the spare sector
/// covers rounding), so the candidates are a superset of the blockers and the result,
/// order included, is that of the full scan. The ns3-2d test has its own angular rule,
/// so it scans every obstacle.
#[derive(Debug, Clone)]
pub struct BearingIndex {
    tx: Point,
    /// Sector `k`'s obstacles are `members[starts[k]..starts[k + 1]]`.
    starts: Vec<u32>,
    members: Vec<u32>,
    /// Each obstacle's smallest distance from `tx` in the xy plane.
    nearest_m: Vec<f64>,
}

/// Sectors of the bearing index: 1024, about 0.35 degrees each.
const BEARING_BINS: usize = 1024;

impl BearingIndex {
    pub fn new(tx: Point, obstacles: &[Obstacle]) -> Self {
        let mut sectors: Vec<Vec<u32>> = vec![Vec::new(); BEARING_BINS];
        for (i, o) in obstacles.iter().enumerate() {
            match sector_span(tx, o) {
                Some((first, last)) => {
                    for k in first..=last {
                        sectors[k.rem_euclid(BEARING_BINS as i64) as usize].push(i as u32);
                    }
                }
                None => sectors.iter_mut().for_each(|s| s.push(i as u32)),
            }
        }
        let mut starts = Vec::with_capacity(BEARING_BINS + 1);
        let mut members = Vec::new();
        for s in &sectors {
            starts.push(members.len() as u32);
            members.extend_from_slice(s);
        }
        starts.push(members.len() as u32);
        let nearest_m = obstacles
            .iter()
            .map(|o| {
                let dx = (o.min.x - tx.x).max(tx.x - o.max.x).max(0.0);
                let dy = (o.min.y - tx.y).max(tx.y - o.max.y).max(0.0);
                (dx * dx + dy * dy).sqrt()
            })
            .collect();
        BearingIndex {
            tx,
            starts,
            members,
            nearest_m,
        }
    }

    /// [`blockers`] of the path from this index's transmitter to `rx`.
    pub fn blockers(
        &self,
        test: LosTest,
        rx: Point,
        obstacles: &[Obstacle],
        out: &mut Vec<ObstacleClass>,
    ) {
        if test == LosTest::Ns32d {
            return blockers(test, self.tx, rx, obstacles, out);
        }
        let k = bearing_sector(self.tx, rx);
        // Obstacles beyond the receiver cannot be on the path (1 mm to spare).
        let reach = self.tx.distance_2d(rx) + 1e-3;
        let candidates = &self.members[self.starts[k] as usize..self.starts[k + 1] as usize];
        for &i in candidates {
            let o = &obstacles[i as usize];
            if self.nearest_m[i as usize] <= reach && segment_intersects_box(self.tx, rx, o) {
                out.push(o.class);
            }
        }
    }
}

/// The sector of `rx`'s bearing from `tx`, 0 to `BEARING_BINS - 1`. The bearing is
/// [`approx_atan2`]'s, within 1e-4 rad of `atan2`'s (a sector is 6.1e-3 rad): the
/// sector is then the exact one or a neighbour, which the spare sector of every
/// obstacle's span covers, so the candidates stay a superset of the blockers. Each
/// channel update measures a path, and `atan2` cost about 125 instructions of it.
fn bearing_sector(tx: Point, rx: Point) -> usize {
    let turn = approx_atan2(rx.y - tx.y, rx.x - tx.x) / std::f64::consts::TAU + 0.5;
    ((turn * BEARING_BINS as f64) as usize).min(BEARING_BINS - 1)
}

/// `y.atan2(x)` within 1e-4 rad (a test bounds it; 0 for the zero vector): the
/// octant's ratio in `[0, 1]` through an odd polynomial for `atan` (Hastings's
/// coefficients, error under 2e-6 rad), then the octant's reflections.
fn approx_atan2(y: f64, x: f64) -> f64 {
    use std::f64::consts::{FRAC_PI_2, PI};
    let (ax, ay) = (x.abs(), y.abs());
    let (num, den) = if ay > ax { (ax, ay) } else { (ay, ax) };
    if den == 0.0 {
        return 0.0;
    }
    let t = num / den;
    let t2 = t * t;
    let mut a = t
        * (0.999_977_26
            + t2 * (-0.332_623_47
                + t2 * (0.193_543_46
                    + t2 * (-0.116_432_87 + t2 * (0.052_653_32 + t2 * -0.011_721_20)))));
    if ay > ax {
        a = FRAC_PI_2 - a;
    }
    if x < 0.0 {
        a = PI - a;
    }
    if y < 0.0 { -a } else { a }
}

/// The sectors (first..=last, not reduced modulo the count) that `o`'s footprint covers
/// as seen from `tx`, one spare either side; `None` when it may cover them all (`tx`
/// within a millimetre of the footprint, or a cone wider than half the circle).
fn sector_span(tx: Point, o: &Obstacle) -> Option<(i64, i64)> {
    const MARGIN_M: f64 = 1e-3;
    let near = tx.x >= o.min.x - MARGIN_M
        && tx.x <= o.max.x + MARGIN_M
        && tx.y >= o.min.y - MARGIN_M
        && tx.y <= o.max.y + MARGIN_M;
    if near {
        return None;
    }
    let bearing = |x: f64, y: f64| (y - tx.y).atan2(x - tx.x);
    let centre = bearing((o.min.x + o.max.x) / 2.0, (o.min.y + o.max.y) / 2.0);
    let (mut lo, mut hi) = (0.0_f64, 0.0_f64);
    for (x, y) in [
        (o.min.x, o.min.y),
        (o.min.x, o.max.y),
        (o.max.x, o.min.y),
        (o.max.x, o.max.y),
    ] {
        let mut d = bearing(x, y) - centre;
        if d > std::f64::consts::PI {
            d -= std::f64::consts::TAU;
        } else if d < -std::f64::consts::PI {
            d += std::f64::consts::TAU;
        }
        lo = lo.min(d);
        hi = hi.max(d);
    }
    if hi - lo >= std::f64::consts::PI {
        return None;
    }
    let sector = |a: f64| ((a / std::f64::consts::TAU + 0.5) * BEARING_BINS as f64).floor() as i64;
    Some((sector(centre + lo) - 1, sector(centre + hi) + 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ObstacleClass::*;

    const GNB: Point = Point::new(0.0, 0.0, 15.0);

    fn ns3_2d_blocked(a: Point, b: Point, o: &Obstacle) -> bool {
        is_blocked(LosTest::Ns32d, a, b, std::slice::from_ref(o))
    }

    #[test]
    fn distances() {
        let a = Point::new(0.0, 0.0, 15.0);
        let b = Point::new(3.0, 4.0, 3.0);
        // 2D: 5; 3D: sqrt(9 + 16 + 144) = 13.
        assert_eq!(a.distance_2d(b), 5.0);
        assert_eq!(a.distance(b), 13.0);
    }

    #[test]
    fn class_names_round_trip() {
        for c in ObstacleClass::ALL {
            let json = serde_json::to_string(&c).unwrap();
            assert_eq!(json, format!("\"{}\"", c.as_str()));
            assert_eq!(serde_json::from_str::<ObstacleClass>(&json).unwrap(), c);
        }
        assert_eq!(
            serde_json::to_string(&LosTest::Ns32d).unwrap(),
            "\"ns3-2d\""
        );
        assert_eq!(
            serde_json::from_str::<LosTest>("\"exact-3d\"").unwrap(),
            LosTest::Exact3d
        );
    }

    #[test]
    fn ns3_test_on_a_hand_made_box() {
        // Box x [10, 12], y [10, 12]. From the origin the corners (12, 10) and (10, 12)
        // are at 39.8 deg and 50.2 deg.
        let o = Obstacle::new((10.0, 12.0), (10.0, 12.0), (0.0, 1.0), Building);
        let a = Point::new(0.0, 0.0, 0.0);
        // 45 deg, beyond the box: blocked.
        assert!(ns3_2d_blocked(a, Point::new(20.0, 20.0, 0.0), &o));
        // Symmetric in the ends.
        assert!(ns3_2d_blocked(Point::new(20.0, 20.0, 0.0), a, &o));
        // 45 deg but short of the box (B.x < xMin): LoS.
        assert!(!ns3_2d_blocked(a, Point::new(5.0, 5.0, 0.0), &o));
        // Inside the box: blocked (B.x > xMin, B.y > yMin, angle 45 deg).
        assert!(ns3_2d_blocked(a, Point::new(11.0, 11.0, 0.0), &o));
        // 30 deg, beyond: passes below the box.
        assert!(!ns3_2d_blocked(a, Point::new(20.0, 11.547, 0.0), &o));
        // Heights ignored: a 1 m tall box still blocks a link 100 m up.
        assert!(ns3_2d_blocked(
            Point::new(0.0, 0.0, 100.0),
            Point::new(20.0, 20.0, 100.0),
            &o
        ));
        // Negative-angle branch: box x [10, 12], y [-12, -10]; corners (10, -12) at
        // -50.2 deg and (12, -10) at -39.8 deg.
        let o2 = Obstacle::new((10.0, 12.0), (-12.0, -10.0), (0.0, 1.0), Tree);
        assert!(ns3_2d_blocked(a, Point::new(20.0, -20.0, 0.0), &o2));
        assert!(!ns3_2d_blocked(a, Point::new(20.0, -5.0, 0.0), &o2));
        assert!(!ns3_2d_blocked(a, Point::new(5.0, -5.0, 0.0), &o2));
    }

    /// ns-3's loop transcribed literally (atan2 everywhere, no reordering).
    #[allow(clippy::manual_range_contains)]
    fn ns3_literal(a0: Point, b0: Point, o: &Obstacle) -> bool {
        let (mut a, mut b) = (a0, b0);
        let mut angle = phi(b, a);
        if angle >= FRAC_PI_2 || angle < -FRAC_PI_2 {
            (a, b) = (b0, a0);
            angle = phi(b, a);
        }
        if angle >= 0.0 && angle < FRAC_PI_2 {
            let a1 = phi(Point::new(o.max.x, o.min.y, 0.0), a);
            let a2 = phi(Point::new(o.min.x, o.max.y, 0.0), a);
            angle > a1 && angle < a2 && b.x > o.min.x && b.y > o.min.y
        } else if angle >= -FRAC_PI_2 && angle < 0.0 {
            let a1 = phi(Point::new(o.min.x, o.min.y, 0.0), a);
            let a2 = phi(Point::new(o.max.x, o.max.y, 0.0), a);
            angle > a1 && angle < a2 && b.x > o.min.x && b.y < o.max.y
        } else {
            false
        }
    }

    #[test]
    fn fast_ns3_test_equals_the_literal_one() {
        use crate::engine::{Rng, RngExt};
        use rand::SeedableRng;
        let mut rng = Rng::seed_from_u64(42);
        let mut u = |lo: f64, hi: f64| lo + (hi - lo) * rng.random::<f64>();
        let mut blocked = 0;
        for i in 0..400_000 {
            // Half the cases on a coarse integer grid, so that ties, corners on the
            // axes through A and vertical/horizontal links occur.
            let grid = i % 2 == 0;
            let mut p = |lo: f64, hi: f64| if grid { u(lo, hi).round() } else { u(lo, hi) };
            let a = Point::new(p(-20.0, 20.0), p(-20.0, 20.0), 0.0);
            let b = Point::new(p(-20.0, 20.0), p(-20.0, 20.0), 0.0);
            let (x0, y0) = (p(-20.0, 20.0), p(-20.0, 20.0));
            let o = Obstacle::new(
                (x0, x0 + p(0.0, 10.0)),
                (y0, y0 + p(0.0, 10.0)),
                (0.0, 1.0),
                Building,
            );
            let want = ns3_literal(a, b, &o);
            assert_eq!(
                is_blocked(LosTest::Ns32d, a, b, &[o]),
                want,
                "{a:?} {b:?} {o:?}"
            );
            blocked += usize::from(want);
        }
        assert!(blocked > 20_000, "{blocked}");
    }

    #[test]
    fn exact_3d_on_hand_made_boxes() {
        let o = Obstacle::new((10.0, 12.0), (-1.0, 1.0), (0.0, 5.0), Vehicle);
        let a = Point::new(0.0, 0.0, 2.0);
        // Straight through at z = 2.
        assert!(segment_intersects_box(a, Point::new(20.0, 0.0, 2.0), &o));
        // Stops short of the box.
        assert!(!segment_intersects_box(a, Point::new(9.9, 0.0, 2.0), &o));
        // Ends inside the box.
        assert!(segment_intersects_box(a, Point::new(11.0, 0.0, 2.0), &o));
        // Passes beside it (y = 2).
        assert!(!segment_intersects_box(a, Point::new(20.0, 2.0, 2.0), &o));
        // Goes over it: from z = 2 to z = 12 over 20 m, at x = 10 z = 7 > 5.
        assert!(!segment_intersects_box(a, Point::new(20.0, 0.0, 12.0), &o));
        // Just clips the top: at x = 10, z = 2 + 10 * 0.25 = 4.5 < 5.
        assert!(segment_intersects_box(a, Point::new(20.0, 0.0, 7.0), &o));
        // Touching only the corner edge is not a blockage.
        assert!(!segment_intersects_box(
            Point::new(10.0, -3.0, 2.0),
            Point::new(10.0, -1.0, 2.0),
            &o
        ));
    }

    #[test]
    fn tests_disagree_when_heights_matter() {
        // A 1 m tall box between the gNB (15 m) and the UE (1.5 m): the 3D segment passes
        // over it (at x = 25 the segment is at z = 15 - 13.5 * 25/50 = 8.25 m), the 2D
        // test ignores heights and calls it blocked.
        let low = Obstacle::new((24.0, 26.0), (24.0, 26.0), (0.0, 1.0), Human);
        let ue = Point::new(50.0, 50.0, 1.5);
        let mut out = Vec::new();
        blockers(LosTest::Ns32d, GNB, ue, &[low], &mut out);
        assert_eq!(out, vec![Human]);
        out.clear();
        blockers(LosTest::Exact3d, GNB, ue, &[low], &mut out);
        assert!(out.is_empty());
        // A tall one blocks in both.
        let tall = Obstacle::new((24.0, 26.0), (24.0, 26.0), (0.0, 30.0), Building);
        assert!(is_blocked(LosTest::Exact3d, GNB, ue, &[low, tall]));
        assert!(is_blocked(LosTest::Ns32d, GNB, ue, &[tall]));
    }

    #[test]
    fn blockers_lists_every_class_and_appends() {
        let obs = [
            Obstacle::new((10.0, 11.0), (-1.0, 1.0), (0.0, 20.0), Tree),
            Obstacle::new((20.0, 21.0), (-1.0, 1.0), (0.0, 20.0), Lamppost),
            Obstacle::new((20.0, 21.0), (5.0, 6.0), (0.0, 20.0), Building),
        ];
        let mut out = vec![Vehicle];
        blockers(
            LosTest::Exact3d,
            GNB,
            Point::new(30.0, 0.0, 1.5),
            &obs,
            &mut out,
        );
        assert_eq!(out, vec![Vehicle, Tree, Lamppost]);
        let mut out2 = Vec::new();
        blockers(
            LosTest::Ns32d,
            GNB,
            Point::new(30.0, 0.1, 1.5),
            &obs,
            &mut out2,
        );
        assert_eq!(out2, vec![Tree, Lamppost]);
    }

    #[test]
    fn obstacle_validation() {
        assert!(
            Obstacle::new((0.0, 1.0), (0.0, 1.0), (0.0, 1.0), Tree)
                .validate()
                .is_ok()
        );
        let e = Obstacle::new((5.0, 2.0), (0.0, 1.0), (0.0, 1.0), Tree).validate();
        assert!(e.unwrap_err().contains("x range"));
    }

    /// The bearing index's angle stays within 1e-4 rad of `atan2` all round the circle,
    /// at every scale, on the axes and the diagonals.
    #[test]
    fn approx_atan2_is_within_its_bound() {
        let mut worst = 0.0_f64;
        for k in 0..=200_000 {
            let angle = -std::f64::consts::PI + std::f64::consts::TAU * f64::from(k) / 200_000.0;
            for r in [1e-3, 0.7, 1.0, 350.0, 1e5] {
                let (y, x) = (r * angle.sin(), r * angle.cos());
                let mut d = (approx_atan2(y, x) - y.atan2(x)).abs();
                // -pi and pi are the same bearing.
                d = d.min((d - std::f64::consts::TAU).abs());
                worst = worst.max(d);
            }
        }
        for (y, x) in [
            (0.0, 1.0),
            (1.0, 0.0),
            (0.0, -1.0),
            (-1.0, 0.0),
            (1.0, 1.0),
            (-1.0, -1.0),
        ] {
            let f64_atan2: f64 = f64::atan2(y, x);
            worst = worst.max((approx_atan2(y, x) - f64_atan2).abs());
        }
        assert!(worst < 1e-4, "{worst}");
        assert_eq!(approx_atan2(0.0, 0.0), 0.0);
    }

    /// The bearing index finds the blockers the full scan finds, in the same order, for
    /// receivers all over a street grid of boxes and on their edges and corners.
    #[test]
    fn bearing_index_agrees_with_the_full_scan() {
        let mut obstacles = Vec::new();
        for a in 0..6 {
            for b in 0..4 {
                let (x, y) = (100.0 * f64::from(a), 100.0 * f64::from(b));
                let h = 12.0 + 4.0 * f64::from((7 * a + 13 * b) % 8);
                obstacles.push(Obstacle::new(
                    (x + 12.0, x + 48.0),
                    (y + 12.0, y + 88.0),
                    (0.0, h),
                    Building,
                ));
                obstacles.push(Obstacle::new(
                    (x + 52.0, x + 88.0),
                    (y + 12.0, y + 88.0),
                    (0.0, 8.0),
                    Tree,
                ));
            }
        }
        // A lamppost right at a gNB: it covers every sector of that gNB.
        obstacles.push(Obstacle::new(
            (307.9, 308.1),
            (107.9, 108.1),
            (0.0, 8.0),
            Lamppost,
        ));
        let mut rng = crate::engine::RngStreams::new(7).stream("bearing-index-test");
        use crate::engine::RngExt;
        let (mut full, mut indexed) = (Vec::new(), Vec::new());
        let mut blocked = 0;
        for tx in [
            Point::new(108.0, 108.0, 10.0),
            Point::new(308.0, 108.0, 10.0),
            Point::new(-50.0, 450.0, 25.0),
        ] {
            let index = BearingIndex::new(tx, &obstacles);
            let corners = obstacles.iter().flat_map(|o| {
                [
                    Point::new(o.min.x, o.min.y, 1.5),
                    Point::new(o.max.x, o.max.y, 1.5),
                    Point::new(o.min.x, o.max.y, 1.5),
                ]
            });
            let random = (0..4000).map(|_| {
                Point::new(
                    rng.random::<f64>() * 700.0 - 50.0,
                    rng.random::<f64>() * 500.0 - 50.0,
                    1.5,
                )
            });
            for rx in corners.chain(random).collect::<Vec<_>>() {
                full.clear();
                indexed.clear();
                blockers(LosTest::Exact3d, tx, rx, &obstacles, &mut full);
                index.blockers(LosTest::Exact3d, rx, &obstacles, &mut indexed);
                assert_eq!(full, indexed, "tx {tx:?} rx {rx:?}");
                blocked += usize::from(!full.is_empty());
            }
        }
        // The test exercises both outcomes, and several blockers on one path.
        assert!(blocked > 1000, "{blocked}");
    }
}
