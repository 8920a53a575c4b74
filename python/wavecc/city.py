"""The city: one street grid, any number of UEs.

`generate(ues)` writes the TOML of the `city-<N>ue` scenarios: a 600 m x 400 m grid of
streets 100 m apart (20 m wide: two 3 m lanes each way and pavements), 24 blocks of two
box buildings each (12-40 m high), and ten gNBs on 10 m poles at street corners (the
TR 38.901 UMi street-canyon geometry, the `3gpp` profile's `umi` scenario). Only the UEs
and their flows depend on the count, and UE `i` with its flows is the same in every
member of the family: `city-10ue` is the first ten UEs of `city-1000ue`. Each UE draws
from a random stream of its own, seeded by its index, so the output is a pure function
of `ues` and `duration_s` (the built-in `city-100ue` is `generate(100)`, a test checks).

UEs walk (1.2-1.6 m/s on the pavements, pausing now and then), drive (10-14 m/s in
the right-hand lane, turning at random corners and stopping at some) or stand on a
pavement; each has one flow, three in ten a second: bulk TCP (15 %: CUBIC, NewReno, BBR
or YeAH), video-like constant rate (50 %: 5-25 Mb/s in frames at 30 per second) or
web-like on/off (35 %: 20-100 Mb/s bursts of about 0.5 s every few seconds).
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass

# The grid: streets every PITCH_M along x (0..WIDTH_M) and y (0..HEIGHT_M).
WIDTH_M = 600
HEIGHT_M = 400
PITCH_M = 100
# From a street's centre line: the lane cars drive on (right of it), the pavement
# people walk or stand on, and the fronts of the buildings.
LANE_M = 3.0
PAVEMENT_M = 8.0
SETBACK_M = 12.0
# Two buildings per block, this far apart.
GAP_M = 4.0
GNB_HEIGHT_M = 10.0
UE_HEIGHT_M = 1.5
# gNB street corners (intersections, in pitches): a staggered pattern of 3 + 4 + 3.
GNB_CORNERS = (
    (1, 1),
    (3, 1),
    (5, 1),
    (0, 2),
    (2, 2),
    (4, 2),
    (6, 2),
    (1, 3),
    (3, 3),
    (5, 3),
)
# What UE i does: KINDS[i % 10] (four walkers, two drivers, four standing in ten).
KINDS = ("walk", "stand", "drive", "walk", "stand", "walk", "stand", "drive", "walk", "stand")
BULK_CCAS = ("cubic", "newreno", "bbr", "yeah")
SEGMENT_BYTES = 1400
MAX_UES = 1000
ID_PATTERN = re.compile(r"city-(\d+)ue")
# The sampled trace rows the core allows over a run (docs/model.md, "Limits"), and at
# most how many rows one UE adds to each sample: its own, and two flows' of the
# algorithm with the most variables (BBR: 17 each, and the flow's own row), with room
# to spare; the path's links add a few more.
SAMPLED_ROWS_CAP = 5e6
ROWS_PER_UE = 40
PATH_ROWS = 10
TRACE_INTERVAL_S = 0.1

Point = tuple[float, float]


@dataclass(frozen=True)
class Waypoint:
    to: Point
    speed_mps: float
    pause_s: float


def generate(ues: int, duration_s: float = 60.0) -> str:
    """The TOML text of the city with `ues` UEs (1 to MAX_UES) over `duration_s`."""
    if not 1 <= ues <= MAX_UES:
        raise ValueError(f"ues must be 1 to {MAX_UES}, got {ues}")
    parts = [_header(ues, duration_s), _gnbs(), _buildings()]
    flows = []
    for i in range(ues):
        rng = random.Random(f"city/ue{i}")
        parts.append(_ue(i, rng, duration_s))
        flows.extend(_flows(i, rng))
    parts.extend(flows)
    return "".join(parts)


def ues_of(scenario_id: str) -> int | None:
    """N for an id of the family, `city-<N>ue`; None for any other id."""
    match = ID_PATTERN.fullmatch(scenario_id)
    return int(match.group(1)) if match else None


def _num(x: float) -> str:
    """A TOML float, rounded to the centimetre (or hundredth)."""
    return repr(round(float(x), 2) + 0.0)


def _point(p: Point, z: float) -> str:
    return f"[{_num(p[0])}, {_num(p[1])}, {_num(z)}]"


def _header(ues: int, duration_s: float) -> str:
    return f"""\
# City street grid (600 m x 400 m, ten gNBs, 3GPP UMi): {ues} UEs walking, driving and standing, with bulk TCP, video and web flows.
# Written by `wavecc scenarios generate city --ues {ues}` (python/wavecc/city.py, which
# describes the layout); every city-<N>ue has the same streets, buildings and gNBs, and
# its first UEs are those of any smaller one. Each UE has its own RLC buffers (the
# default 1 MiB) and moves with them at a handover; each gNB schedules its own UEs (pf).
name = "city-{ues}ue"
duration_s = {_num(duration_s)}
seed = 1
# The Internet link from the servers to the PGW: 100 Gb/s, 10 ms (an edge server).
[path]
rate_bps = 100e9
one_way_delay_s = 0.010
buffer_bytes = 100_000_000
mtu_bytes = 1500
[tcp]
mss_bytes = {SEGMENT_BYTES}
min_rto_s = 0.2
[radio]
profile = "3gpp"
scheduler = "pf"
[radio.3gpp]
scenario = "umi"
[trace]
interval_s = {_num(trace_interval_s(ues, duration_s))}
"""


def trace_interval_s(ues: int, duration_s: float) -> float:
    """The sampling interval: the default 0.1 s, or the shortest multiple of it that
    keeps the sampled rows under the core's cap for any mix of `ues` UEs' flows."""
    rows = ROWS_PER_UE * ues + PATH_ROWS
    steps = max(1, math.ceil(duration_s * rows / SAMPLED_ROWS_CAP / TRACE_INTERVAL_S))
    return steps * TRACE_INTERVAL_S


def _gnbs() -> str:
    out = []
    for a, b in GNB_CORNERS:
        # On the corner's pavement, inside the grid.
        x = a * PITCH_M + (-PAVEMENT_M if a * PITCH_M == WIDTH_M else PAVEMENT_M)
        y = b * PITCH_M + PAVEMENT_M
        out.append(f"[[radio.gnbs]]\nposition = {_point((x, y), GNB_HEIGHT_M)}\n")
    return "".join(out)


def _buildings() -> str:
    """Two boxes per block, split along x or y in turn, of heights 12-40 m."""
    out = []
    for a in range(WIDTH_M // PITCH_M):
        for b in range(HEIGHT_M // PITCH_M):
            x0, y0 = a * PITCH_M + SETBACK_M, b * PITCH_M + SETBACK_M
            x1, y1 = (a + 1) * PITCH_M - SETBACK_M, (b + 1) * PITCH_M - SETBACK_M
            for k, (xs, ys) in enumerate(_halves(x0, x1, y0, y1, along_x=(a + b) % 2 == 0)):
                height = 12 + 4 * ((7 * a + 13 * b + 5 * k) % 8)
                out.append(
                    '[[radio.obstacles]]\nclass = "building"\n'
                    f"x = [{_num(xs[0])}, {_num(xs[1])}]\n"
                    f"y = [{_num(ys[0])}, {_num(ys[1])}]\n"
                    f"z = [0.0, {_num(height)}]\n"
                )
    return "".join(out)


def _halves(
    x0: float, x1: float, y0: float, y1: float, *, along_x: bool
) -> tuple[tuple[Point, Point], tuple[Point, Point]]:
    if along_x:
        xm = (x0 + x1) / 2
        return ((x0, xm - GAP_M / 2), (y0, y1)), ((xm + GAP_M / 2, x1), (y0, y1))
    ym = (y0 + y1) / 2
    return ((x0, x1), (y0, ym - GAP_M / 2)), ((x0, x1), (ym + GAP_M / 2, y1))


# --- UEs ---------------------------------------------------------------------------------


def _ue(i: int, rng: random.Random, duration_s: float) -> str:
    kind = KINDS[i % len(KINDS)]
    start, waypoints, what = _movement(kind, rng, duration_s)
    text = f"# UE {i}: {what}\n[[radio.ues]]\nposition = {_point(start, UE_HEIGHT_M)}\n"
    if waypoints:
        rows = "".join(
            f"  {{ to = {_point(w.to, UE_HEIGHT_M)}, speed_mps = {_num(w.speed_mps)}"
            f", pause_s = {_num(w.pause_s)} }},\n"
            for w in waypoints
        )
        text += f"waypoints = [\n{rows}]\n"
    return text


def _movement(
    kind: str, rng: random.Random, duration_s: float
) -> tuple[Point, list[Waypoint], str]:
    """Start, waypoints and a description of one UE's movement."""
    if kind == "stand":
        node, direction = _random_street(rng)
        side = rng.choice((-1, 1))
        start = _on_street(node, direction, rng.uniform(0.15, 0.85), side * PAVEMENT_M)
        return start, [], "stands on a pavement"
    if kind == "walk":
        speed, offset, pause_p, pause_s = rng.uniform(1.2, 1.6), PAVEMENT_M, 0.3, (3.0, 15.0)
        offset *= rng.choice((-1, 1))
        what = f"walks on the pavements at {speed:.1f} m/s"
    else:
        speed, offset, pause_p, pause_s = rng.uniform(10.0, 14.0), LANE_M, 0.3, (2.0, 10.0)
        what = f"drives at {speed:.1f} m/s, stopping at some corners"
    node, direction = _random_street(rng)
    start = _on_street(node, direction, rng.uniform(0.1, 0.9), offset)
    waypoints = []
    position, travelled = start, 0.0
    # Enough of a route for the whole run, pauses not counted.
    for corner, new_direction in _route(rng, node, direction):
        if new_direction == direction:
            continue  # straight on: no waypoint needed
        turn = _corner(corner, direction, new_direction, offset)
        pause = round(rng.uniform(*pause_s), 1) if rng.random() < pause_p else 0.0
        waypoints.append(Waypoint(turn, speed, pause))
        travelled += abs(turn[0] - position[0]) + abs(turn[1] - position[1])
        position, direction = turn, new_direction
        if travelled >= speed * duration_s:
            break
    return start, waypoints, what


def _random_street(rng: random.Random) -> tuple[tuple[int, int], tuple[int, int]]:
    """A street segment: the node it starts from and its direction (in pitches)."""
    while True:
        node = (rng.randrange(WIDTH_M // PITCH_M + 1), rng.randrange(HEIGHT_M // PITCH_M + 1))
        direction = rng.choice(((1, 0), (-1, 0), (0, 1), (0, -1)))
        if _inside(_step(node, direction)):
            return node, direction


def _route(
    rng: random.Random, node: tuple[int, int], direction: tuple[int, int]
) -> Iterator[tuple[tuple[int, int], tuple[int, int]]]:
    """The corners one reaches from `node` heading `direction`, each with the direction
    taken there: at random, never back and never off the grid."""
    while True:
        node = _step(node, direction)
        choices = [
            d
            for d in ((1, 0), (-1, 0), (0, 1), (0, -1))
            if d != (-direction[0], -direction[1]) and _inside(_step(node, d))
        ]
        direction = rng.choice(choices)
        yield node, direction


def _step(node: tuple[int, int], direction: tuple[int, int]) -> tuple[int, int]:
    return node[0] + direction[0], node[1] + direction[1]


def _inside(node: tuple[int, int]) -> bool:
    return 0 <= node[0] <= WIDTH_M // PITCH_M and 0 <= node[1] <= HEIGHT_M // PITCH_M


def _right(direction: tuple[int, int]) -> Point:
    """The unit vector to the right of `direction`."""
    return float(direction[1]), float(-direction[0])


def _on_street(
    node: tuple[int, int], direction: tuple[int, int], fraction: float, offset: float
) -> Point:
    """The point `fraction` of the way along a street, `offset` right of its centre."""
    r = _right(direction)
    return (
        (node[0] + fraction * direction[0]) * PITCH_M + offset * r[0],
        (node[1] + fraction * direction[1]) * PITCH_M + offset * r[1],
    )


def _corner(
    node: tuple[int, int], before: tuple[int, int], after: tuple[int, int], offset: float
) -> Point:
    """Where a line `offset` right of the street entered meets the one `offset` right of
    the street left: the turning point at corner `node`."""
    r1, r2 = _right(before), _right(after)
    return (
        node[0] * PITCH_M + offset * (r1[0] + r2[0]),
        node[1] * PITCH_M + offset * (r1[1] + r2[1]),
    )


# --- flows ---------------------------------------------------------------------------------


def _flows(i: int, rng: random.Random) -> list[str]:
    count = 2 if rng.random() < 0.3 else 1
    return [_flow(i, rng) for _ in range(count)]


def _flow(ue: int, rng: random.Random) -> str:
    draw = rng.random()
    start = _num(rng.uniform(0.0, 0.1))
    if draw < 0.15:
        cca = rng.choice(BULK_CCAS)
        return f'[[flows]]\n# bulk\ncca = "{cca}"\napp = "bulk"\nstart_s = {start}\nue = {ue}\n'
    if draw < 0.65:
        rate = rng.choice((5e6, 8e6, 12e6, 16e6, 25e6))
        frame = max(1, round(rate / 8 / 30 / SEGMENT_BYTES)) * SEGMENT_BYTES
        return (
            f'[[flows]]\n# video\ncca = "cubic"\napp = "rate"\nrate_bps = {rate / 1e6:g}e6\n'
            f"write_bytes = {frame}\nstart_s = {start}\nue = {ue}\n"
        )
    rate = rng.choice((20e6, 50e6, 100e6))
    return (
        f'[[flows]]\n# web\ncca = "cubic"\napp = "onoff"\nrate_bps = {rate / 1e6:g}e6\n'
        f"write_bytes = {10 * SEGMENT_BYTES}\non_s = 0.5\noff_s = {_num(rng.uniform(2.0, 6.0))}\n"
        f'period_distribution = "exponential"\nstart_s = {start}\nue = {ue}\n'
    )
