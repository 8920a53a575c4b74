"""The Gymnasium environment: Gymnasium's own checks, determinism per seed, the
observation and reward definitions, and the training example at a tiny size."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

import wavecc  # noqa: E402
from wavecc.gym import OBSERVATION, CongestionControlEnv, Interval, reward  # noqa: E402


def env(**kwargs: Any) -> CongestionControlEnv:
    return CongestionControlEnv("dumbbell-1g", overrides=["duration_s=0.5"], **kwargs)


def test_gymnasiums_env_checker_passes() -> None:
    from gymnasium.utils.env_checker import check_env

    check_env(env(), skip_render_check=True)


def episode(e: CongestionControlEnv, seed: int, actions: np.ndarray) -> np.ndarray:
    """Every observation and reward of an episode, as one array."""
    e.reset(seed=seed)
    rows = []
    for a in actions:
        observation, value, _, truncated, _ = e.step(np.array([a], np.float32))
        rows.append([*observation, value])
        if truncated:
            break
    return np.array(rows)


def test_the_same_seed_gives_the_same_episode() -> None:
    # Random loss makes the run depend on its seed.
    lossy = ["duration_s=0.5", "path.loss.per_byte=1e-6"]
    actions = np.random.default_rng(0).uniform(-1, 1, 50)
    first = episode(CongestionControlEnv("dumbbell-1g", overrides=lossy), 5, actions)
    again = episode(CongestionControlEnv("dumbbell-1g", overrides=lossy), 5, actions)
    other = episode(CongestionControlEnv("dumbbell-1g", overrides=lossy), 6, actions)
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)


def test_an_episode_lasts_the_scenarios_duration_in_steps() -> None:
    e = env(step_s=0.02)
    e.reset(seed=1)
    steps, truncated = 0, False
    while not truncated:
        _, _, terminated, truncated, info = e.step(np.zeros(1, np.float32))
        steps += 1
        assert not terminated
    assert steps == 25 and info["time_s"] == pytest.approx(0.5)


def test_actions_scale_the_window_within_its_bounds() -> None:
    e = env(max_cwnd=40)
    e.reset(seed=1)
    _, _, _, _, info = e.step(np.array([1.0], np.float32))
    assert info["cwnd"] == pytest.approx(20.0)  # the initial 10 segments, doubled, held
    for _ in range(3):
        _, _, _, _, info = e.step(np.array([1.0], np.float32))
    assert info["cwnd"] == 40.0
    _, _, _, _, info = e.step(np.array([-1.0], np.float32))
    assert info["cwnd"] == 20.0


def test_a_full_link_without_a_queue_observes_as_such() -> None:
    # 1.1 BDP of window: the 1 Gb/s link full, RTT near its minimum, nothing lost.
    e = env()
    e.reset(seed=1)
    observation, action = None, 1.0
    for _ in range(50):
        observation, value, _, _, info = e.step(np.array([action], np.float32))
        cwnd_bdp = observation[OBSERVATION.index("cwnd_bdp")]
        action = float(np.clip(np.log2(1.1 / cwnd_bdp), -1, 1)) if cwnd_bdp > 0 else 1.0
    named = dict(zip(OBSERVATION, observation, strict=True))
    assert named["delivery_rate"] == pytest.approx(0.964, abs=0.01)  # 1400 of 1452 bytes
    assert named["min_rtt_s"] == pytest.approx(0.02, abs=0.001)
    assert 1.0 <= named["rtt_ratio"] < 1.2 and named["loss_rate"] == 0.0
    bdp_segments = 1e9 * float(named["min_rtt_s"]) / 8 / 1400  # BDP at the minimum RTT
    assert named["cwnd_bdp"] == pytest.approx(info["cwnd"] / bdp_segments, rel=1e-5)
    assert value == pytest.approx(named["delivery_rate"] - 0.5 * (named["rtt_ratio"] - 1), abs=1e-3)


def test_the_reward_weighs_throughput_delay_and_loss() -> None:
    interval = Interval(goodput_bps=5e8, mean_rtt_s=0.03, min_rtt_s=0.02, loss_rate=0.1)
    assert reward(interval, 1e9, 0.5, 1.0) == pytest.approx(0.5 - 0.5 * 0.5 - 0.1)
    assert reward(interval, 1e9, 0.0, 0.0) == pytest.approx(0.5)


def test_a_baseline_runs_the_flow_on_its_algorithm_and_ignores_actions() -> None:
    e = env(baseline="cubic")
    e.reset(seed=1)
    for _ in range(50):
        _, _, _, truncated, info = e.step(np.array([-1.0], np.float32))
    assert info["cwnd"] > 100  # CUBIC's slow start, not 50 halvings
    result = e.result()
    assert result.summary["flows"][0]["cca"] == "cubic"
    assert result.summary["sim_time_s"] == pytest.approx(0.5)


def test_the_environment_refuses_a_missing_flow() -> None:
    with pytest.raises(wavecc.ConfigError, match="flow 3"):
        CongestionControlEnv("dumbbell-1g", flow=3)


def test_the_training_example_runs_at_a_tiny_size(tmp_path: Path) -> None:
    figure = tmp_path / "learning.png"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "wavecc.examples.learn_cwnd",
            "--duration=0.2",
            "--iterations=2",
            "--population=3",
            "--elite=2",
            f"--out={figure}",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "iteration 2:" in done.stdout and "bbr:" in done.stdout
    assert figure.stat().st_size > 10_000


def test_a_loss_leaves_the_agents_window_where_it_put_it() -> None:
    e = CongestionControlEnv(
        "dumbbell-1g", overrides=["duration_s=1", "path.loss.per_byte=1e-6"], max_cwnd=40
    )
    e.reset(seed=2)
    windows, losses = [], []
    for _ in range(100):
        _, _, _, _, info = e.step(np.array([1.0], np.float32))
        windows.append(info["cwnd"])
        losses.append(info["loss_rate"])
    assert sum(rate > 0 for rate in losses) >= 2  # segments were lost and retransmitted
    assert windows[2:] == [40.0] * 98  # and the window stayed at the agent's 40


class Crashing(wavecc.CongestionControl):
    def ssthresh(self, sock: wavecc.Socket) -> float:
        return 2.0

    def cong_avoid(self, sock: wavecc.Socket, acked: int) -> None:
        raise RuntimeError("crash in a step")


def test_a_python_algorithm_failing_in_a_step_raises_from_step() -> None:
    wavecc.register_cc("crashing", Crashing)
    e = env(baseline="crashing")
    e.reset(seed=1)
    with pytest.raises(wavecc.AlgorithmError, match="crashing .*crash in a step"):
        for _ in range(50):
            e.step(np.zeros(1, np.float32))
