"""What an algorithm written in Python costs: the Python NewReno example against the
built-in `newreno` on the dumbbell at 100 Mb/s and 1 Gb/s.

    python scripts/bench_python_cc.py [--duration 20] [--repeat 3]

For each rate it prints the median wall time of each, the simulated seconds per wall
second, the ACKs the sender processed (counted in a separate, untimed run) and the
extra wall time per ACK in nanoseconds. docs/python-algorithms.md quotes its output.
"""

from __future__ import annotations

import argparse
import statistics
import time

import wavecc
from wavecc.examples.newreno import NewReno

RATES_BPS = (1e8, 1e9)


class CountingNewReno(NewReno):
    """The example, counting the ACKs its connection processes."""

    acks = 0

    def on_ack(self, sock: wavecc.Socket, ack: wavecc.AckSample) -> None:
        CountingNewReno.acks += 1


def wall_time(cca: str, overrides: list[str]) -> float:
    start = time.perf_counter()
    wavecc.run("dumbbell-1g", cca=cca, overrides=overrides)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=20.0, help="simulated seconds")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each, median kept")
    args = parser.parse_args()
    wavecc.register_cc("python-newreno", NewReno)
    wavecc.register_cc("counting-newreno", CountingNewReno)
    print("rate_mbps algorithm wall_s sim_s_per_wall_s acks ns_per_ack")
    for rate in RATES_BPS:
        overrides = [f"duration_s={args.duration}", f"path.rate_bps={rate}"]
        CountingNewReno.acks = 0
        wavecc.run("dumbbell-1g", cca="counting-newreno", overrides=overrides)
        acks = CountingNewReno.acks
        walls = {
            cca: statistics.median(wall_time(cca, overrides) for _ in range(args.repeat))
            for cca in ("newreno", "python-newreno")
        }
        extra_ns = (walls["python-newreno"] - walls["newreno"]) / acks * 1e9
        for cca, wall in walls.items():
            per_ack = f"{extra_ns:.0f}" if cca == "python-newreno" else "-"
            speed = args.duration / wall
            print(f"{rate / 1e6:g} {cca} {wall:.2f} {speed:.1f} {acks} {per_ack}")


if __name__ == "__main__":
    main()
