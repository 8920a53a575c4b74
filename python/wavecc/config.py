"""Scenario configs on the Python side: loading, overrides, and the hand-over to the core.

A config is a plain dict shaped like the scenario TOML. Python never checks it against
the schema: the core does (`_core.validate`), so the schema lives in one place. What this
module does check is what only it can: that files exist and parse, that override strings
are well formed, and that the dict can become JSON at all.
"""

from __future__ import annotations

import copy
import json
import math
import os
import re
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Union

from . import _core, city
from ._core import ConfigError

Config = dict[str, Any]
ConfigSource = Union[Config, str, "os.PathLike[str]"]


def load_scenario(path_or_id: str | os.PathLike[str]) -> Config:
    """Loads a scenario from a TOML file, or a built-in scenario by its id.

    An existing file wins over a built-in of the same name; a name that looks like a
    path (it has a directory separator or a `.toml` suffix) is never taken for an id,
    so a mistyped file name reports the missing file rather than an unknown id.
    """
    path = Path(path_or_id)
    if path.is_file() or _looks_like_path(str(path_or_id)):
        return _load_file(path)
    return _load_builtin(str(path_or_id))


def _looks_like_path(text: str) -> bool:
    return len(Path(text).parts) > 1 or text.endswith(".toml")


def _load_file(path: Path) -> Config:
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such scenario file") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: not UTF-8 text (byte {e.start})") from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror}") from None
    try:
        config = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        # The message already ends with "(at line L, column C)".
        raise ConfigError(f"{path}: invalid TOML: {e}") from None
    _anchor_trace(config, path.parent)
    return config


def _anchor_trace(config: Config, directory: Path) -> None:
    """Makes a relative `path.trace` absolute, taken from `directory`: a scenario file's
    trace from the file's directory, any other (`--set`, a dict) from the working
    directory, so the core and the saved config.json hold a path that works anywhere."""
    path = config.get("path")
    if not isinstance(path, dict):
        return  # the core reports a malformed [path]
    trace = path.get("trace")
    if isinstance(trace, str) and trace and not os.path.isabs(trace):
        path["trace"] = os.path.abspath(os.path.join(directory, trace))


def _load_builtin(scenario_id: str) -> Config:
    return tomllib.loads(builtin_text(scenario_id))


def builtin_text(scenario_id: str) -> str:
    """The TOML of a built-in scenario: one the core ships, or a member of the city
    family, `city-<N>ue` for N = 1 to 1000 UEs, which `wavecc.city` writes."""
    ids = [sid for sid, _ in _core.builtin_scenarios()]
    if scenario_id in ids:
        return _core.builtin_scenario(scenario_id)
    ues = city.ues_of(scenario_id)
    if ues is not None and 1 <= ues <= city.MAX_UES:
        return city.generate(ues)
    raise ConfigError(
        f"unknown scenario '{scenario_id}': not a file, and not a built-in "
        f"(built-ins: {', '.join(ids)}, city-<N>ue for N = 1 to {city.MAX_UES})"
    )


def apply_overrides(config: Config, overrides: Iterable[str]) -> Config:
    """Returns a deep copy of `config` with each `dotted.key=value` override applied.

    The value is read as a TOML value (`5`, `1e-7`, `true`, `"text"`, `[1, 2]`,
    `{cca = "cubic"}`); anything that is not one is taken as a bare string, so
    `flows.0.cca=newreno` needs no quotes. Missing tables on the way are created; an
    integer path segment indexes a list (`flows.0.cca`, or `flows[0].cca` as the core's
    error messages write it) and must be in range.
    """
    result = copy.deepcopy(config)
    for text in overrides:
        dotted, sep, raw = text.partition("=")
        keys = split_key(dotted)
        if not sep or keys is None:
            raise ConfigError(f"bad override '{text}': expected dotted.key=value")
        set_key(result, keys, parse_value(raw), text)
    return result


def split_key(dotted: str) -> list[str] | None:
    """`flows.0.cca` -> ["flows", "0", "cca"], None if a part is empty. The core's errors
    spell list indices `flows[0].cca`; that spelling is accepted too."""
    keys = [key.strip() for key in re.sub(r"\[(\d+)\]", r".\1", dotted).split(".")]
    return keys if all(keys) else None


def parse_value(raw: str) -> Any:
    """A `--set` value: a TOML value (`5`, `1e-7`, `true`, `"text"`, `[1, 2]`), else the
    text itself as a bare string."""
    try:
        parsed = tomllib.loads("v = " + raw)
    except tomllib.TOMLDecodeError:
        return raw.strip()
    # Text with a newline could smuggle in further keys; then it is no single value.
    return parsed["v"] if parsed.keys() == {"v"} else raw.strip()


def set_key(config: Config, keys: list[str], value: Any, text: str) -> None:
    """Sets `value` at the path `keys` of `config`, creating missing tables; `text` (what
    the user wrote) goes into the error when the path crosses a list or a value."""
    node: Any = config
    for depth, key in enumerate(keys):
        last = depth == len(keys) - 1
        where = ".".join(keys[: depth + 1])
        slot: int | str = key
        if isinstance(node, list):
            if not (key.isascii() and key.isdigit() and int(key) < len(node)):
                raise ConfigError(
                    f"bad override '{text}': '{where}' is not an index of a list of {len(node)}"
                )
            slot = int(key)
        elif not isinstance(node, dict):
            parent = ".".join(keys[:depth])
            raise ConfigError(f"bad override '{text}': '{parent}' is a {_kind(node)}, not a table")
        if last:
            node[slot] = value
        else:
            if isinstance(node, dict) and slot not in node:
                node[slot] = {}
            node = node[slot]


def _kind(value: Any) -> str:
    return {bool: "boolean", int: "number", float: "number", str: "string"}.get(
        type(value), type(value).__name__
    )


def resolve(
    config: ConfigSource,
    *,
    cca: str | None = None,
    seed: int | None = None,
    overrides: Iterable[str] = (),
    transport: str | None = None,
    stack: str | None = None,
) -> Config:
    """The config a run will use: loaded if it is a path or a built-in id, copied if it
    is a dict, then with `overrides` applied, `cca` set on every flow, `seed` and the
    TCP `stack` (`tcp.stack`, see `stacks`) set, and finally every flow moved to
    `transport` (see `with_transport`) if one is given.

    `cca`, `seed` and `stack` come after the overrides because they are the more
    specific requests; the transport comes last because it rewrites whole flows. The
    core fills in the stack's switches where the config sets none.
    """
    base = config if isinstance(config, dict) else load_scenario(config)
    result = apply_overrides(base, overrides)
    if cca is not None:
        set_cca(result, cca)
    if seed is not None:
        result["seed"] = seed
    if stack is not None:
        tcp = result.setdefault("tcp", {})
        if isinstance(tcp, dict):  # otherwise the core reports the malformed [tcp]
            tcp["stack"] = stack
    if transport is not None:
        result = with_transport(result, transport)
    _anchor_trace(result, Path.cwd())
    return result


def set_cca(config: Config, cca: Any) -> None:
    """Every flow's algorithm becomes `cca` (the `cca` of `--cca` and of a grid)."""
    flows = config.get("flows")
    for flow in flows if isinstance(flows, list) else []:
        if isinstance(flow, dict):
            flow["cca"] = cca


def check_minimum(
    option: str, value: float, minimum: float, *, exclusive: bool = False, note: str = ""
) -> None:
    """Refuses an option's value below `minimum` (or at it, if `exclusive`), with the one
    message every option check shares: "--jobs must be at least 1, not 0". `note` follows
    the limit: a unit, or what a special value means."""
    if not (value > minimum if exclusive else value >= minimum):  # NaN is refused too
        bound = "more than" if exclusive else "at least"
        raise ConfigError(f"{option} must be {bound} {minimum:g}{note}, not {value:g}")


def stacks() -> dict[str, dict[str, Any]]:
    """The TCP stacks `tcp.stack` can name, from the core, the default ("linux") first:
    name -> {"name", "summary", "tcp": {key: value}, "cc": {algorithm: {key: value}}},
    the `[tcp]` and `flows[].cc` keys the stack sets where a config sets none."""
    return {stack["name"]: stack for stack in json.loads(_core.stacks())}


def check_stack(name: str) -> str:
    """`name` if it is a stack; otherwise the core's ConfigError, naming the valid ones."""
    _core.validate(json.dumps({"tcp": {"stack": name}, "flows": [{}]}))
    return name


# `transport` values of `resolve` (and `wavecc run --transport`).
TRANSPORTS = ("udp",)


def with_transport(config: Config, transport: str) -> Config:
    """A copy of `config` with every flow replaced by a `transport` source at its
    application rate. With "udp" each flow becomes UDP CBR (`app = "udp"`) keeping its
    `rate_bps`: the papers' "UDP saturated" reference for the same application. A bulk
    flow has no application rate, so it is refused, naming the flow; so is an on/off
    flow, which no constant-rate source reproduces. The algorithm settings (`cca`, `cc`)
    are dropped: UDP has no congestion control."""
    if transport not in TRANSPORTS:
        raise ConfigError(
            f"transport: unknown transport {transport!r}, expected one of {', '.join(TRANSPORTS)}"
        )
    result = copy.deepcopy(config)
    flows = result.get("flows")
    if not isinstance(flows, list) or not flows:
        raise ConfigError("transport: the config has no [[flows]] to carry over UDP")
    for i, flow in enumerate(flows):
        if not isinstance(flow, dict):
            continue  # the core reports the malformed flow
        app = flow.get("app", "bulk")
        if app == "onoff":
            raise ConfigError(
                f"flows[{i}]: an on/off source cannot be replaced by UDP CBR; "
                'give it app = "rate" with its rate_bps, or remove it'
            )
        if flow.get("rate_bps") is None:
            raise ConfigError(
                f'flows[{i}]: app = "{app}" has no application rate for UDP CBR; '
                f"set flows[{i}].rate_bps (e.g. --set flows.{i}.rate_bps=1e9)"
            )
        flow["app"] = "udp"
        flow.pop("cc", None)
    return result


def to_json(config: Config) -> str:
    """The JSON text the core reads. JSON has no inf or NaN, and TOML dates have no
    JSON form; such a value is reported by its key path instead of failing in json.
    A Python algorithm named by module path (`cca = "module:Class"`) is imported and
    registered here, so that the core knows every algorithm the config names."""
    from .algorithms import used

    used(config)
    bad = _first_unrepresentable(config, "")
    if bad is not None:
        path, value = bad
        raise ConfigError(
            f"{path or 'config'}: {value!r} is not a finite number, string, boolean, "
            "list or table, so it cannot be passed to the core"
        )
    return json.dumps(config, allow_nan=False)


def _first_unrepresentable(value: Any, path: str) -> tuple[str, Any] | None:
    if isinstance(value, dict):
        key = next((k for k in value if not isinstance(k, str)), None)
        if key is not None:
            return f"{path}[{key!r}]" if path else f"[{key!r}]", key
        children = ((f"{path}.{_key(k)}" if path else _key(k), v) for k, v in value.items())
    elif isinstance(value, list):
        children = ((f"{path}[{i}]", v) for i, v in enumerate(value))
    elif isinstance(value, (str, bool, int)) or (isinstance(value, float) and math.isfinite(value)):
        return None
    else:
        return path, value
    for child_path, child in children:
        bad = _first_unrepresentable(child, child_path)
        if bad is not None:
            return bad
    return None


def _key(key: str) -> str:
    """A key as a message shows it: quoted and escaped when it holds a newline or
    another character that does not print, so that the message stays one line."""
    return key if key.isprintable() else repr(key)
