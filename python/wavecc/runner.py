"""Running one scenario through the core."""

from __future__ import annotations

import json
from collections.abc import Iterable

from . import _core
from .config import ConfigSource, resolve, to_json
from .result import Result


def run(
    config: ConfigSource,
    *,
    cca: str | None = None,
    seed: int | None = None,
    overrides: Iterable[str] = (),
    transport: str | None = None,
    stack: str | None = None,
) -> Result:
    """Runs a scenario and returns its Result.

    `config` is a config dict, a path to a TOML file or a built-in scenario id;
    `overrides` are `dotted.key=value` strings; `cca` sets the algorithm of every flow
    and `seed` the top-level seed. `transport="udp"` replaces every flow by UDP CBR at
    its `rate_bps` (the UDP-saturated reference); a flow without a rate is refused.
    `stack` is the TCP stack to behave like (`tcp.stack`: "linux", the default, or
    "ns3-3.37"; `wavecc.stacks()` lists them); keys the config sets still win.
    A config the core rejects raises `ConfigError`
    before anything runs. The input dict is never modified.
    """
    config_json = to_json(
        resolve(config, cca=cca, seed=seed, overrides=overrides, transport=transport, stack=stack)
    )
    effective = json.loads(_core.validate(config_json))
    return Result.from_core(_core.run(config_json), effective)
