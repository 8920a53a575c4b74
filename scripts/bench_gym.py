"""Wall time of one step of the Gymnasium environment on `dumbbell-1g` (1 Gb/s).

    python scripts/bench_gym.py [--step 0.01] [--duration 20]

The agent keeps the link full: it grows the window until the queue builds (RTT above
1.2 x the minimum) and then holds it, so every step simulates a saturated 1 Gb/s link.
Prints the median, the 95th percentile and the mean wall time per step, the same for
the CPU time of the stepping thread (which a busy machine does not inflate), and the
episode's goodput (docs/learning.md quotes its output).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from wavecc.gym import OBSERVATION, CongestionControlEnv

RTT_RATIO = OBSERVATION.index("rtt_ratio")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--step", type=float, default=0.01, help="step length, simulated s")
    parser.add_argument("--duration", type=float, default=20.0, help="episode, simulated s")
    args = parser.parse_args()
    env = CongestionControlEnv(
        "dumbbell-1g", step_s=args.step, overrides=[f"duration_s={args.duration}"]
    )
    observation, _ = env.reset(seed=1)
    walls, cpus, goodputs, done = [], [], [], False
    while not done:
        action = np.array([0.25 if observation[RTT_RATIO] < 1.2 else 0.0], np.float32)
        start, cpu = time.perf_counter(), time.thread_time()
        observation, _, terminated, truncated, info = env.step(action)
        walls.append(time.perf_counter() - start)
        cpus.append(time.thread_time() - cpu)
        goodputs.append(info["goodput_bps"])
        done = terminated or truncated
    print(f"{len(walls)} steps of {args.step * 1e3:g} ms on dumbbell-1g")
    for name, times in (("wall", walls), ("CPU", cpus)):
        ms = np.array(times) * 1e3
        print(
            f"{name} time per step: median {np.median(ms):.3f} ms, "
            f"p95 {np.percentile(ms, 95):.3f} ms, mean {ms.mean():.3f} ms"
        )
    print(f"goodput over the episode: {np.mean(goodputs) / 1e6:.0f} Mb/s")


if __name__ == "__main__":
    main()
