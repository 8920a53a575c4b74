"""Running one scenario through the core."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable

from . import _core
from .algorithms import check_importable, ensure_registered, used
from .config import ConfigError, ConfigSource, resolve, to_json
from .result import Result

# progress(sim_time_s, duration_s), called by the core about ten times per wall second.
ProgressCallback = Callable[[float, float], None]


def run(
    config: ConfigSource,
    *,
    cca: str | None = None,
    seed: int | None = None,
    overrides: Iterable[str] = (),
    transport: str | None = None,
    stack: str | None = None,
    progress: ProgressCallback | None = None,
    max_memory: int | str | None = None,
) -> Result:
    """Runs a scenario and returns its Result.

    `config` is a config dict, a path to a TOML file or a built-in scenario id;
    `overrides` are `dotted.key=value` strings; `cca` sets the algorithm of every flow
    and `seed` the top-level seed. `transport="udp"` replaces every flow by UDP CBR at
    its `rate_bps` (the UDP-saturated reference); a flow without a rate is refused.
    `stack` is the TCP stack to behave like (`tcp.stack`: "linux", the default,
    "ns3-3.37" or "ns3-3.29"; `wavecc.stacks()` lists them); keys the config sets still win.
    A config the core rejects raises `ConfigError`
    before anything runs. The input dict is never modified.

    `progress(sim_time_s, duration_s)` is called about ten times per wall second while
    the core runs; whatever it raises stops the run and is raised here. Ctrl-C stops a
    run within a fraction of a second (KeyboardInterrupt).

    `max_memory` (bytes, or a size such as `"2G"`) refuses a run that the core
    estimates to need more, with `ConfigError`, and runs the others in a worker process
    capped at that much (see `wavecc.workers`; no progress is reported from it); a run
    that still exceeds it raises `RunFailed`.
    """
    resolved = resolve(
        config, cca=cca, seed=seed, overrides=overrides, transport=transport, stack=stack
    )
    config_json = to_json(resolved)
    effective = json.loads(_core.validate(config_json))
    if max_memory is None:
        return Result.from_core(_core.run(config_json, progress=progress), effective)
    return Result.from_core(_run_capped(config_json, used(resolved), max_memory), effective)


def _run_capped(config_json: str, algorithms: dict[str, str], max_memory: int | str) -> str:
    from .workers import (
        RunFailed,
        WorkerDied,
        WorkerRaised,
        format_size,
        parse_size,
        run_in_workers,
    )

    cap = parse_size(max_memory, "max_memory")
    check_importable(algorithms)
    needed = _core.estimate_memory(config_json)
    if needed > cap:
        raise ConfigError(
            f"the core estimates this run needs {format_size(needed)} of memory, more than "
            f"max_memory {format_size(cap)}"
        )
    answers = []
    run_in_workers(
        _core_run,
        [(config_json, algorithms)],
        1,
        lambda _, answer: answers.append(answer),
        max_memory=cap,
    )
    if isinstance(answers[0], (WorkerRaised, WorkerDied)):
        raise RunFailed(f"the run failed within max_memory {format_size(cap)}: {answers[0].error}")
    return answers[0]


def _core_run(task: tuple[str, dict[str, str]]) -> str:
    """The core's run, by a name a worker process can be sent, with the Python
    algorithms it uses (name -> module path) registered there first."""
    config_json, algorithms = task
    ensure_registered(algorithms)
    return _core.run(config_json)
