"""wavecc: a fast simulator of TCP congestion control over 5G mmWave networks.

The simulation, the scenario schema and its validation live in the Rust core
(`wavecc._core`); this package loads scenarios, applies overrides, runs them and
turns the results into DataFrames, files and figures.

Only the core is imported eagerly. Everything else is imported on first use (PEP 562)
so that `wavecc.bench_child`, which imports `wavecc._core`, keeps pandas and matplotlib
out of the process whose peak memory the benchmark reports, and so that
`wavecc scenarios list` starts instantly.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from . import _cpu

_cpu.check()

from ._core import AlgorithmError, ConfigError, __version__  # noqa: E402 (only after the CPU check)

if TYPE_CHECKING:
    from .algorithms import AckSample, CongestionControl, Socket, register_cc
    from .config import apply_overrides, load_scenario, stacks
    from .result import Result
    from .runner import run
    from .sweeps import ResultSet, sweep

# Public name -> the submodule that defines it.
_LAZY = {
    "CongestionControl": "algorithms",
    "register_cc": "algorithms",
    "Socket": "algorithms",
    "AckSample": "algorithms",
    "load_scenario": "config",
    "apply_overrides": "config",
    "stacks": "config",
    "run": "runner",
    "Result": "result",
    "sweep": "sweeps",
    "ResultSet": "sweeps",
}

# Submodules reachable as attributes without an explicit import (`wavecc.analysis`).
_SUBMODULES = ("analysis", "figures", "report", "traces", "gym")

__all__ = [
    "AckSample",
    "AlgorithmError",
    "CongestionControl",
    "ConfigError",
    "Result",
    "ResultSet",
    "Socket",
    "__version__",
    "apply_overrides",
    "load_scenario",
    "register_cc",
    "run",
    "stacks",
    "sweep",
]


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    if name not in _LAZY:
        raise AttributeError(f"module 'wavecc' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | set(_SUBMODULES))
