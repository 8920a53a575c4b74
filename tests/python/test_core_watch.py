"""`_core.run(config_json, progress)`: the core reports its progress to Python and stops
when Python says so (an exception from the callback or a signal handler)."""

from __future__ import annotations

import json
import os
import signal
import threading
import time

import pytest

import wavecc
from wavecc import _core


def _config(duration_s: float) -> str:
    """The dumbbell for `duration_s`, sampled every 10 s so that long runs stay within
    the core's cap on trace rows."""
    config = wavecc.load_scenario("dumbbell-1g")
    config["duration_s"] = duration_s
    config["trace"] = {"interval_s": 10.0}
    return json.dumps(config)


class _Stop(Exception):
    pass


def test_progress_reports_simulated_time_as_the_run_goes():
    seen: list[tuple[float, float]] = []
    output = json.loads(_core.run(_config(30.0), progress=lambda t, d: seen.append((t, d))))
    wall = output["summary"]["wall_time_s"]
    # Called about every 0.1 s of wall time, never more often.
    assert len(seen) <= wall / 0.1 + 1
    if wall > 0.5:
        assert len(seen) >= 2
    assert all(d == 30.0 and 0.0 <= t <= 30.0 for t, d in seen)
    assert [t for t, _ in seen] == sorted(t for t, _ in seen)


def test_a_progress_callback_that_raises_stops_the_run():
    calls = []

    def stop(t: float, d: float) -> None:
        calls.append(t)
        raise _Stop(f"stopped at {t}")

    start = time.perf_counter()
    with pytest.raises(_Stop):
        _core.run(_config(1e5), progress=stop)
    assert len(calls) == 1
    assert time.perf_counter() - start < 1.0


def test_sigint_interrupts_a_run_within_a_fraction_of_a_second():
    # A shell's background job (`pytest ... &`, nohup) starts with SIGINT ignored, and
    # then Python never raises KeyboardInterrupt: give the test Python's own handler.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    start = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            _core.run(_config(1e5))
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert time.perf_counter() - start < 0.3 + 0.5
