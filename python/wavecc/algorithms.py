"""Congestion control written in Python.

A subclass of `CongestionControl` overrides the hooks of the core's algorithm interface
(the Rust trait `wavecc_core::cc::CongestionControl`, which mirrors Linux's
`tcp_congestion_ops`); the core calls them on every ACK, loss and timeout of each
connection that runs it. `register_cc("mycc", MyCC)` makes it an algorithm that
configs, `wavecc.run`, `wavecc.sweep` and the command line can name, as `mycc`; a
config may also name a class by its module path, `"mypackage.module:MyCC"`, which is
imported and registered under that path the first time a config is handed to the core.

Sweep workers are separate processes: they import each algorithm a run uses from its
module path, so a class must live in an importable module (not in `__main__`) to run in
them. See docs/python-algorithms.md.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Mapping
from typing import Any

from . import _core
from ._core import AckSample, AlgorithmError, ConfigError, Socket

__all__ = [
    "AckSample",
    "AlgorithmError",
    "CongestionControl",
    "Socket",
    "register_cc",
    "registered",
]


class CongestionControl:
    """Base class of a congestion-control algorithm written in Python: one instance per
    connection, built as `cls(**flows[i].cc)`. Windows are in segments.

    `ssthresh` and `cong_avoid` must be overridden; every other hook defaults to the
    core's behaviour, and a hook that is not overridden costs no Python call. A hook
    writes `sock.cwnd`, `sock.ssthresh` and `sock.pacing_rate_bps`; the rest of `sock`
    (a `wavecc.Socket`) is read-only, and both `sock` and `ack` (a `wavecc.AckSample`)
    are valid only during the call.
    """

    #: True makes the socket pace its segments (at `sock.pacing_rate_bps`, or a rate it
    #: derives from cwnd and the RTT when that is 0).
    needs_pacing: bool = False
    #: How the socket recovers from a loss found by duplicate ACKs or SACK:
    #: "fast_recovery" (NewReno / SACK with PRR), "reno_recovery" or "slow_start" (Tahoe).
    loss_response: str = "fast_recovery"

    def init(self, sock: Socket) -> None:
        """Called once, before the first segment is sent."""

    def seed(self, seed: int) -> None:
        """The connection's random seed (from the run's seed), for an algorithm that
        draws random numbers."""

    def ssthresh(self, sock: Socket) -> float:
        """A loss was detected (by duplicate ACKs/SACK, or a timeout): return the new
        slow-start threshold in segments. Must not change `sock.cwnd`; the socket then
        recovers towards it."""
        raise NotImplementedError

    def cong_avoid(self, sock: Socket, acked: int) -> None:
        """Window growth on an ACK outside recovery, when the window limits sending;
        `acked` is the number of segments newly acknowledged."""
        raise NotImplementedError

    def on_ack(self, sock: Socket, ack: AckSample) -> None:
        """Every ACK, before any window change (Linux `pkts_acked`): the ACK's sample
        (acknowledged segments and bytes, RTT, delivery rate, losses)."""

    def cong_control(self, sock: Socket, ack: AckSample) -> bool:
        """Full control of the window on every ACK (Linux `cong_control`, BBR's hook):
        return True to take over, and the socket applies neither its recovery (PRR)
        nor `cong_avoid`."""
        return False

    def set_state(self, sock: Socket, new: str) -> None:
        """The congestion state changes to `new` ("open", "disorder", "recovery",
        "loss"); `sock.ca_state` is still the old one."""

    def cwnd_event(self, sock: Socket, event: str) -> None:
        """ "tx_start" (sending resumes after idle), "loss" (a retransmission timeout,
        after `ssthresh`) or "complete_recovery" (fast recovery ended)."""

    def loss_window(self, sock: Socket) -> float:
        """The window a timeout restarts from, segments (after `ssthresh` and
        `cwnd_event("loss")`)."""
        return 1.0

    def undo_cwnd(self, sock: Socket) -> float:
        """The window to restore when a reduction proves spurious (D-SACK)."""
        return max(sock.cwnd, sock.prior_cwnd)

    def state(self) -> dict[str, float]:
        """Internal variables for the traces (`cc.parquet`), read at every sample."""
        return {}


# Names registered in this process -> the module path workers import them by.
_REGISTERED: dict[str, str] = {}

_REQUIRED = ("ssthresh", "cong_avoid")


def register_cc(name: str, cls: type[CongestionControl]) -> None:
    """Registers `cls` as the algorithm `name` in this process (again: replaces it).
    A built-in's name is refused, and so is a class that does not override
    `ssthresh` and `cong_avoid`."""
    if not (isinstance(cls, type) and issubclass(cls, CongestionControl)):
        raise ConfigError(f"{name}: {cls!r} is not a subclass of wavecc.CongestionControl")
    missing = [hook for hook in _REQUIRED if getattr(cls, hook) is getattr(CongestionControl, hook)]
    if missing:
        raise ConfigError(f"{name}: {cls.__qualname__} must define {' and '.join(missing)}")
    hooks = [h for h in _core.HOOKS if getattr(cls, h) is not getattr(CongestionControl, h)]
    try:
        _core.host_algorithm(name, cls, hooks)
    except ValueError as e:
        raise ConfigError(f"register_cc: {e}") from None
    _REGISTERED[name] = f"{cls.__module__}:{cls.__qualname__}"


def registered() -> dict[str, str]:
    """The algorithms registered in this process: name -> `module:Class`."""
    return dict(_REGISTERED)


def load_class(path: str) -> type[CongestionControl]:
    """The class a `module:Class` path names, imported (the current directory is
    searched too, as for `python -m`)."""
    module_name, _, qualname = path.partition(":")
    if not module_name or not qualname:
        raise ConfigError(f"{path!r}: expected module:Class")
    if os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())
    try:
        target: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            target = getattr(target, part)
    except ImportError as e:
        raise ConfigError(f"{path}: cannot import {module_name}: {e}") from None
    except AttributeError:
        raise ConfigError(f"{path}: module {module_name} has no {qualname}") from None
    return target


def register_path(path: str) -> None:
    """Imports the class `module:Class` and registers it under that path."""
    if path not in _REGISTERED:
        register_cc(path, load_class(path))


def used(config: Mapping[str, Any]) -> dict[str, str]:
    """The Python algorithms `config`'s flows name, importing and registering each one
    named by module path: name -> the module path a worker process imports it by.
    Names that are neither registered nor paths are left for the core to report."""
    flows = config.get("flows")
    found: dict[str, str] = {}
    for flow in flows if isinstance(flows, list) else []:
        cca = flow.get("cca") if isinstance(flow, dict) else None
        if not isinstance(cca, str) or not (":" in cca or cca in _REGISTERED):
            continue
        register_path(cca)
        found[cca] = _REGISTERED[cca]
    return found


def ensure_registered(paths: Mapping[str, str]) -> None:
    """In a worker process: registers each name from its module path, unless it is
    registered already (by the forked parent, or an earlier run)."""
    for name, path in paths.items():
        if name not in _REGISTERED:
            register_cc(name, load_class(path))


def check_importable(paths: Mapping[str, str]) -> None:
    """Refuses, before a sweep starts, an algorithm that worker processes could not
    import: a class defined in the main script or inside a function."""
    for name, path in paths.items():
        module, _, qualname = path.partition(":")
        if module == "__main__" or "<locals>" in qualname:
            raise ConfigError(
                f"{name}: {path} cannot be imported by worker processes; define the class "
                "in an importable module (or run the sweep with jobs=0)"
            )
