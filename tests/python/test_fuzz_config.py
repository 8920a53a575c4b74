"""Config dicts fuzzed through the Python API: every input either runs or raises
`wavecc.ConfigError` with a one-line message; never another exception, never a crash.

The strategy starts from a built-in scenario and applies a few mutations: a value
somewhere replaced by an edge number or a value of another type, a key removed, an
unknown key added, a list entry repeated. Runs are cut to `MAX_DURATION_S`. The test
here is short and seeded; `python tests/python/test_fuzz_config.py N` runs N examples
(the campaign of docs/model.md, "Limits")."""

from __future__ import annotations

import math
import sys
import tomllib
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wavecc
from wavecc import _core

MAX_DURATION_S = 0.05

BUILTINS = {sid: tomllib.loads(_core.builtin_scenario(sid)) for sid, _ in _core.builtin_scenarios()}

EDGE_NUMBERS = [
    0,
    -1,
    1,
    2,
    0.5,
    -0.0,
    1e-12,
    1e-9,
    1e-6,
    1e6,
    1e6 + 1,
    1.9e10,
    1e12,
    1e13,
    1e300,
    -1e300,
    2**32 - 1,
    2**32,
    2**53 + 1,
    2**64 - 1,
    2**64,
    -(2**63),
    math.nan,
    math.inf,
    -math.inf,
]

values = st.recursive(
    st.sampled_from(EDGE_NUMBERS)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.booleans()
    | st.none()
    | st.sampled_from(["", "bbr", "udp", "onoff", "ns3", "3gpp", "building", "x" * 100])
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    """Every key path of a nested dict/list, the root included."""
    found = [prefix]
    if isinstance(node, dict):
        for key, child in node.items():
            found += _paths(child, (*prefix, key))
    elif isinstance(node, list):
        for i, child in enumerate(node):
            found += _paths(child, (*prefix, i))
    return found


def _at(node: Any, path: tuple) -> Any:
    for part in path:
        node = node[part]
    return node


@st.composite
def configs(draw: st.DrawFn) -> Any:
    config = draw(st.sampled_from(sorted(BUILTINS)))
    config = _copy(BUILTINS[config])
    for _ in range(draw(st.integers(1, 4))):
        paths = _paths(config)
        path = draw(st.sampled_from(paths))
        kind = draw(st.sampled_from(["replace", "remove", "add", "repeat"]))
        if not path:
            continue
        parent, last = _at(config, path[:-1]), path[-1]
        if kind == "replace":
            parent[last] = draw(values)
        elif kind == "remove" and isinstance(parent, dict):
            del parent[last]
        elif kind == "add" and isinstance(parent, dict):
            parent[draw(st.text(min_size=1, max_size=12))] = draw(values)
        elif kind == "repeat" and isinstance(parent, list):
            parent.extend([parent[last]] * draw(st.integers(1, 3)))
    if isinstance(config, dict):
        duration = config.get("duration_s")
        if (
            isinstance(duration, (int, float))
            and not isinstance(duration, bool)
            and duration > MAX_DURATION_S
        ):
            config["duration_s"] = MAX_DURATION_S
    return config


def _copy(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _copy(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_copy(v) for v in node]
    return node


def runs_or_is_refused_in_one_line(config: Any) -> None:
    try:
        wavecc.run(config)
    except wavecc.ConfigError as e:
        message = str(e)
        assert message and "\n" not in message, repr(message)


@settings(max_examples=60, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(configs())
def test_every_config_runs_or_is_refused_in_one_line(config):
    runs_or_is_refused_in_one_line(config)


def campaign(examples: int) -> None:
    """Runs `examples` random examples, printing the count every 10,000."""
    done = 0

    def counted(config: Any) -> None:
        nonlocal done
        runs_or_is_refused_in_one_line(config)
        done += 1
        if done % 10_000 == 0:
            print(f"{done} examples", flush=True)

    options = settings(
        max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    given(configs())(options(counted))()
    print(f"{done} examples, no failure", flush=True)


if __name__ == "__main__":
    campaign(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
