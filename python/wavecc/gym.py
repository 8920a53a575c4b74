"""A Gymnasium environment for learned congestion control (`pip install 'wavecc[gym]'`).

`CongestionControlEnv` lets an agent steer one TCP flow's congestion window while the
simulator runs the rest of the scenario (other flows on their own algorithms, the radio,
the traces). Each step applies the agent's action, advances the simulation by `step_s`
of simulated time (10 ms by default) and returns the observation and reward of that
interval. docs/learning.md documents the observation, action and reward in one table.
"""

from __future__ import annotations

import copy
import json
import math
from dataclasses import dataclass
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from . import _core
from .config import ConfigError, ConfigSource, resolve, to_json
from .result import Result

# The observation vector, in order (docs/learning.md gives units and meaning).
OBSERVATION = (
    "delivery_rate",  # goodput over the step / reference_rate_bps
    "rtt_ratio",  # mean RTT over the step / min RTT (1: no queueing)
    "min_rtt_s",  # the connection's minimum RTT, s
    "loss_rate",  # retransmitted / sent segments over the step
    "cwnd_bdp",  # cwnd / BDP (BDP = reference rate x min RTT)
    "inflight_bdp",  # bytes in flight / BDP
    "sinr_db",  # SINR of the serving mmWave link, dB (0 on wired paths)
)


@dataclass(frozen=True)
class Interval:
    """What one flow did over a step, in the observation's units."""

    goodput_bps: float
    mean_rtt_s: float
    min_rtt_s: float
    loss_rate: float


def reward(
    interval: Interval, reference_rate_bps: float, delay_weight: float, loss_weight: float
) -> float:
    """Throughput - a x delay - b x loss: the normalised goodput, less `delay_weight`
    times the queueing delay relative to the minimum RTT, less `loss_weight` times the
    fraction of segments retransmitted."""
    queueing = (
        max(interval.mean_rtt_s / interval.min_rtt_s - 1.0, 0.0)
        if interval.min_rtt_s > 0 and math.isfinite(interval.min_rtt_s)
        else 0.0
    )
    throughput = interval.goodput_bps / reference_rate_bps
    return throughput - delay_weight * queueing - loss_weight * interval.loss_rate


class CongestionControlEnv(gymnasium.Env[np.ndarray, np.ndarray]):
    """One agent steering flow `flow`'s cwnd in `scenario` (a built-in id, a TOML path or
    a config dict, with `overrides` as `--set` strings).

    Action: a number `a` in [-1, 1]; the window becomes `cwnd x 2**a` (halved at most,
    doubled at most per step), kept within [1, `max_cwnd`] segments. The steered flow's
    algorithm is the core's `agent` window, held where the agent puts it between steps
    (a loss does not reduce it; a timeout restarts it from one segment).

    Observation: the float32 vector `OBSERVATION` over the last step. Reward: see
    `reward`. An episode is the scenario's `duration_s` (truncated at its end).
    `reference_rate_bps` normalises rates (default: the wired path's `path.rate_bps`;
    give it for a radio scenario, whose wired path is not the bottleneck).

    `baseline="cubic"` (any algorithm) runs the flow on that algorithm instead and
    ignores the actions: the same observations and rewards score a built-in.
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        scenario: ConfigSource = "dumbbell-1g",
        *,
        flow: int = 0,
        step_s: float = 0.01,
        overrides: list[str] | tuple[str, ...] = (),
        delay_weight: float = 0.5,
        loss_weight: float = 1.0,
        reference_rate_bps: float | None = None,
        max_cwnd: float = 1e5,
        baseline: str | None = None,
    ) -> None:
        config = resolve(scenario, overrides=overrides)
        flows = config.get("flows")
        if not isinstance(flows, list) or not 0 <= flow < len(flows):
            raise ConfigError(f"flow {flow}: the scenario has no such flow")
        if baseline is None:
            flows[flow] = {**flows[flow], "cca": _core.AGENT_ALGORITHM}
            flows[flow].pop("cc", None)
        else:
            flows[flow] = {**flows[flow], "cca": baseline}
        self.baseline = baseline
        self._config = json.loads(_core.validate(to_json(config)))
        if not step_s > 0:
            raise ConfigError(f"step_s must be more than 0, not {step_s}")
        if not max_cwnd >= 1:
            raise ConfigError(f"max_cwnd must be at least 1, not {max_cwnd}")
        self.flow = flow
        self.step_s = step_s
        self.delay_weight = delay_weight
        self.loss_weight = loss_weight
        self.reference_rate_bps = reference_rate_bps or float(self._config["path"]["rate_bps"])
        self.max_cwnd = max_cwnd
        self.action_space = spaces.Box(-1.0, 1.0, shape=(1,), dtype=np.float32)
        low = np.zeros(len(OBSERVATION), dtype=np.float32)
        low[-1] = -np.inf
        self.observation_space = spaces.Box(low, np.inf, dtype=np.float32)
        self._sim: Any = None
        self._steps = 0
        self._last: Any = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """A new episode. With `seed` the run's seed is `seed` (the same seed gives the
        same episode); without, it is drawn from the environment's generator."""
        super().reset(seed=seed)
        config = copy.deepcopy(self._config)
        config["seed"] = seed if seed is not None else int(self.np_random.integers(2**31))
        self._sim = _core.Simulation(json.dumps(config))
        self._steps = 0
        self._last = self._sim.flow_stats(self.flow)
        return np.zeros(len(OBSERVATION), dtype=np.float32), {"time_s": 0.0}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._sim is None:
            raise RuntimeError("call reset() before step()")
        if self.baseline is None:
            a = float(np.clip(np.asarray(action, dtype=np.float64).reshape(-1)[0], -1, 1))
            cwnd = min(max(self._last.cwnd * 2.0**a, 1.0), self.max_cwnd)
            self._sim.set_cwnd(self.flow, cwnd)
        self._steps += 1
        self._sim.advance(self._steps * self.step_s)
        stats = self._sim.flow_stats(self.flow)
        interval = self._interval(self._last, stats)
        self._last = stats
        value = reward(interval, self.reference_rate_bps, self.delay_weight, self.loss_weight)
        truncated = self._sim.now_s >= self._sim.duration_s
        info = {
            "time_s": self._sim.now_s,
            "goodput_bps": interval.goodput_bps,
            "mean_rtt_s": interval.mean_rtt_s,
            "loss_rate": interval.loss_rate,
            "cwnd": stats.cwnd,
        }
        return self._observe(interval, stats), value, False, truncated, info

    def result(self) -> Result:
        """The episode's run so far as a `Result` (traces and summary); ends the episode."""
        if self._sim is None:
            raise RuntimeError("call reset() before result()")
        sim, self._sim = self._sim, None
        return Result.from_core(sim.finish(), self._config)

    def close(self) -> None:
        self._sim = None

    def _interval(self, before: Any, after: Any) -> Interval:
        elapsed = self.step_s
        samples = after.rtt_samples - before.rtt_samples
        sent = after.segments_sent - before.segments_sent
        return Interval(
            goodput_bps=(after.delivered_bytes - before.delivered_bytes) * 8 / elapsed,
            mean_rtt_s=(
                (after.rtt_sum_s - before.rtt_sum_s) / samples if samples > 0 else after.srtt_s
            ),
            min_rtt_s=after.min_rtt_s,
            loss_rate=(
                (after.retransmitted_segments - before.retransmitted_segments) / sent
                if sent > 0
                else 0.0
            ),
        )

    def _observe(self, interval: Interval, stats: Any) -> np.ndarray:
        min_rtt = interval.min_rtt_s if math.isfinite(interval.min_rtt_s) else 0.0
        bdp_bytes = self.reference_rate_bps * min_rtt / 8
        per_bdp = 1.0 / bdp_bytes if bdp_bytes > 0 else 0.0
        return np.array(
            [
                interval.goodput_bps / self.reference_rate_bps,
                interval.mean_rtt_s / min_rtt if min_rtt > 0 else 1.0,
                min_rtt,
                min(max(interval.loss_rate, 0.0), 1.0),
                stats.cwnd * stats.mss * per_bdp,
                stats.inflight_bytes * per_bdp,
                stats.sinr_db if stats.sinr_db is not None else 0.0,
            ],
            dtype=np.float32,
        )


# The name the project's task list uses for the same class.
CongestionEnv = CongestionControlEnv
