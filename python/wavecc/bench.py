"""The standard benchmark: how fast the simulator runs and how much memory it needs.

Each case runs in a fresh child process (`wavecc.bench_child`) so that its peak
resident memory, which the child reports, belongs to that case alone: a process's
peak never goes down, so cases sharing one would hide each other.
"""

from __future__ import annotations

import contextlib
import json
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass

from . import _core
from ._core import ConfigError
from .config import check_minimum, resolve, to_json


class CaseFailed(RuntimeError):
    """A benchmark child process exited with an error."""


@dataclass(frozen=True)
class Case:
    name: str
    scenario: str
    # Every flow's algorithm; None keeps the scenario's own mix.
    cca: str | None
    overrides: tuple[str, ...] = ()


# The standard cases the project's speed target is stated for (docs/performance.md): a
# single bulk flow over the 1 Gb/s, 20 ms RTT dumbbell for 60 simulated seconds, and two
# mmWave scenarios.
CASES = (
    Case("cubic-1g-20ms-60s", "dumbbell-1g", "cubic", ("duration_s=60",)),
    Case("newreno-1g-20ms-60s", "dumbbell-1g", "newreno", ("duration_s=60",)),
    Case("bbr-1g-20ms-60s", "dumbbell-1g", "bbr", ("duration_s=60",)),
    Case(
        "cubic-1g-20ms-60s-loss1e-7",
        "dumbbell-1g",
        "cubic",
        ("duration_s=60", "path.loss.per_byte=1e-7"),
    ),
    # The mmWave cases: the source papers' 1 Gb/s server over the urban walk, and
    # the Mateo study's ten UEs with their application mix over four gNBs.
    Case("cubic-urban-60s", "urban", "cubic", ("duration_s=60",)),
    Case("cubic-multiuser-40s", "mateo-multiuser", "cubic", ("duration_s=40",)),
)

# The scaling cases (`--cases scaling`): the city grid with 10 to 1000 UEs for 5
# simulated seconds each, the same streets, gNBs and (first) UEs in every one, and the
# 100-UE city for the full minute. Not in the default run: the largest takes minutes.
SCALING_UES = (10, 30, 100, 300, 1000)
SCALING = (
    *(Case(f"city-{n}ue-5s", f"city-{n}ue", None, ("duration_s=5",)) for n in SCALING_UES),
    Case("city-100ue-60s", "city-100ue", None, ("duration_s=60",)),
)
# What `--cases` accepts besides case names: a group's name for all its cases.
GROUPS = {"scaling": SCALING}


@dataclass(frozen=True)
class Measurement:
    case: str
    sim_time_s: float
    # The core's own timing of the simulation, without interpreter start-up.
    wall_time_s: float
    events: int
    peak_rss_mb: float

    @property
    def sim_per_wall(self) -> float:
        return self.sim_time_s / self.wall_time_s

    @property
    def events_per_s(self) -> float:
        return self.events / self.wall_time_s

    def as_dict(self) -> dict[str, float | int | str]:
        return {
            "case": self.case,
            "sim_time_s": self.sim_time_s,
            "wall_time_s": self.wall_time_s,
            "sim_s_per_wall_s": self.sim_per_wall,
            "events": self.events,
            "events_per_s": self.events_per_s,
            "peak_rss_mb": self.peak_rss_mb,
        }


@dataclass(frozen=True)
class Repeated:
    """Several runs of one case. A shared machine slows single runs by tens of
    percent now and then, so the run of median wall time stands for the case and the
    fastest and slowest runs show the spread."""

    runs: tuple[Measurement, ...]

    @property
    def median(self) -> Measurement:
        wall = statistics.median_low(run.wall_time_s for run in self.runs)
        return next(run for run in self.runs if run.wall_time_s == wall)

    @property
    def slowest(self) -> float:
        return min(run.sim_per_wall for run in self.runs)

    @property
    def fastest(self) -> float:
        return max(run.sim_per_wall for run in self.runs)

    @property
    def peak_rss_mb(self) -> float:
        return max(run.peak_rss_mb for run in self.runs)

    def as_dict(self) -> dict[str, float | int | str]:
        return {
            **self.median.as_dict(),
            "peak_rss_mb": self.peak_rss_mb,
            "runs": len(self.runs),
            "sim_s_per_wall_s_min": self.slowest,
            "sim_s_per_wall_s_max": self.fastest,
        }


def select(names: Iterable[str] | None) -> list[Case]:
    """The cases called `names` (a group's name stands for its cases), in the order
    given; the standard cases for None."""
    if names is None:
        return list(CASES)
    names = list(names)
    by_name = {case.name: (case,) for case in (*CASES, *SCALING)} | GROUPS
    unknown = [name for name in names if name not in by_name]
    if unknown or not names:
        what = f"unknown bench case '{unknown[0]}'" if unknown else "no bench case named"
        raise ConfigError(f"{what} (cases: {', '.join(by_name)})")
    return [case for name in names for case in by_name[name]]


def config_json(case: Case, duration_s: float | None = None) -> str:
    """The validated config of a case, as JSON; `duration_s` shortens it (for tests).
    Validating here, in the parent, reports a bad config as a ConfigError rather than
    as a failed child."""
    config = resolve(case.scenario, cca=case.cca, overrides=case.overrides)
    if duration_s is not None:
        config["duration_s"] = duration_s
    text = to_json(config)
    _core.validate(text)
    return text


def measure(case: Case, duration_s: float | None = None) -> Measurement:
    """Runs one case in a child process and measures it."""
    text = config_json(case, duration_s)
    # -P keeps the working directory off the child's sys.path, so a `wavecc` folder
    # there (such as the source tree's, which has no compiled core) cannot shadow the
    # installed package.
    command = [sys.executable, "-P", "-m", "wavecc.bench_child"]
    with tempfile.TemporaryFile() as stderr:
        child = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr
        )
        assert child.stdin and child.stdout  # PIPE
        # A child that died early breaks the pipe; its exit status and stderr say why.
        with contextlib.suppress(BrokenPipeError):
            child.stdin.write(text.encode())
        with contextlib.suppress(BrokenPipeError):
            child.stdin.close()
        output = child.stdout.read()
        child.stdout.close()
        child.wait()
        stderr.seek(0)
        lines = stderr.read().decode(errors="replace").strip().splitlines()
        if child.returncode != 0:
            reason = lines[-1] if lines else f"exit code {child.returncode}"
            raise CaseFailed(f"bench case {case.name} failed: {reason}")
    summary = json.loads(output)["summary"]
    return Measurement(
        case=case.name,
        sim_time_s=summary["sim_time_s"],
        wall_time_s=summary["wall_time_s"],
        events=summary["events"],
        peak_rss_mb=_peak_kib(lines[-1]) / 1024,
    )


def _peak_kib(line: str) -> int:
    """The child's last stderr line, `VmHWM:   12345 kB`, as KiB."""
    name, value, unit = line.split()
    assert (name, unit) == ("VmHWM:", "kB"), line
    return int(value)


def check_runs(runs: int) -> None:
    check_minimum("--repeat", runs, 1)


def measure_repeated(case: Case, runs: int, duration_s: float | None = None) -> Repeated:
    """Runs one case `runs` times, each in a child process of its own."""
    check_runs(runs)
    return Repeated(tuple(measure(case, duration_s) for _ in range(runs)))
