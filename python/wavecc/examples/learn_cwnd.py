"""Learns a congestion window policy with the cross-entropy method, numpy only, in
`wavecc.gym.CongestionControlEnv`, and compares it with CUBIC and BBR under the same
reward.

    python -m wavecc.examples.learn_cwnd --out docs/learning.png

The policy is linear in the observation: the action (the window's log2 change per
step) is `tanh(w . [1, delivery_rate, rtt_ratio - 1, loss_rate, cwnd_bdp])`. Each
iteration draws `--population` weight vectors from a Gaussian, scores each by its
episode's mean reward, and refits the Gaussian to the best `--elite`. The figure shows
the mean reward of each iteration's elite and of its mean policy, and the reward of
CUBIC and BBR on the same episodes (docs/learning.md).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from wavecc.gym import OBSERVATION, CongestionControlEnv

FEATURES = ("delivery_rate", "rtt_ratio", "loss_rate", "cwnd_bdp")
_INDEX = [OBSERVATION.index(name) for name in FEATURES]


def features(observation: np.ndarray) -> np.ndarray:
    x = observation[_INDEX].astype(np.float64)
    x[1] -= 1.0  # queueing: rtt_ratio - 1
    return np.concatenate(([1.0], x))


def episode_reward(env: CongestionControlEnv, weights: np.ndarray | None, seed: int) -> float:
    """Mean reward per step of one episode; `weights=None` for a baseline environment."""
    observation, _ = env.reset(seed=seed)
    total, steps, done = 0.0, 0, False
    while not done:
        action = 0.0 if weights is None else float(np.tanh(weights @ features(observation)))
        observation, value, terminated, truncated, _ = env.step(np.array([action], np.float32))
        total += value
        steps += 1
        done = terminated or truncated
    return total / steps


def train(
    env: CongestionControlEnv,
    iterations: int,
    population: int,
    elite: int,
    seed: int,
) -> list[tuple[float, float]]:
    """The cross-entropy method; per iteration (elite mean reward, mean policy's reward)."""
    rng = np.random.default_rng(seed)
    mean = np.zeros(1 + len(FEATURES))
    std = np.ones_like(mean)
    history = []
    for iteration in range(iterations):
        candidates = mean + std * rng.standard_normal((population, mean.size))
        scores = np.array([episode_reward(env, w, seed + iteration) for w in candidates])
        best = candidates[np.argsort(scores)[-elite:]]
        mean, std = best.mean(axis=0), best.std(axis=0) + 0.05
        history.append((float(np.sort(scores)[-elite:].mean()), episode_reward(env, mean, seed)))
        print(
            f"iteration {iteration + 1}: elite {history[-1][0]:.3f}, mean policy {history[-1][1]:.3f}"
        )
    return history


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="dumbbell-1g")
    parser.add_argument("--duration", type=float, default=2.0, help="episode, simulated s")
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--population", type=int, default=12)
    parser.add_argument("--elite", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, help="the figure (PNG); none if not given")
    args = parser.parse_args()
    overrides = [f"duration_s={args.duration}"]
    env = CongestionControlEnv(args.scenario, overrides=overrides)
    history = train(env, args.iterations, args.population, args.elite, args.seed)
    baselines = {
        name: episode_reward(
            CongestionControlEnv(args.scenario, overrides=overrides, baseline=name),
            None,
            args.seed,
        )
        for name in ("cubic", "bbr")
    }
    for name, value in baselines.items():
        print(f"{name}: {value:.3f}")
    if args.out is not None:
        plot(history, baselines, args, args.out)


def plot(
    history: list[tuple[float, float]],
    baselines: dict[str, float],
    args: argparse.Namespace,
    out: Path,
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.6), layout="constrained")
    x = np.arange(1, len(history) + 1)
    ax.plot(x, [h[0] for h in history], "o-", label="elite of the iteration")
    ax.plot(x, [h[1] for h in history], "s-", label="mean policy")
    for (name, value), style in zip(baselines.items(), ("--", ":"), strict=True):
        ax.axhline(value, linestyle=style, color="grey", label=name)
    ax.set_xlabel("cross-entropy iteration")
    ax.set_ylabel("mean reward per 10 ms step")
    ax.set_title(f"{args.scenario}, {args.duration:g} s episodes", fontsize=10)
    ax.legend(fontsize=8)
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
