"""Values the engine cannot represent, traces too large to hold and the smaller rules
of the schema: refused by the core's validation before anything runs, with one line
that names the key and the valid range (docs/model.md, "Limits")."""

from __future__ import annotations

import copy
import json
import tomllib
from typing import Any

import pytest

import wavecc
from test_cli import assert_one_error_line
from wavecc import _core, figures


def dumbbell(**changes: Any) -> dict[str, Any]:
    """The built-in dumbbell as a dict, shortened to 0.2 s, with `changes` applied
    (dotted keys; list indices as numbers)."""
    config = tomllib.loads(_core.builtin_scenario("dumbbell-1g"))
    config["duration_s"] = 0.2
    for key, value in changes.items():
        *parents, last = key.split(".")
        at: Any = config
        for part in parents:
            at = at[int(part)] if isinstance(at, list) else at.setdefault(part, {})
        at[last] = value
    return config


def rejection(config: dict[str, Any]) -> str:
    with pytest.raises(wavecc.ConfigError) as caught:
        wavecc.run(config)
    message = str(caught.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(
    ("setting", "fragment"),
    [
        ("path.one_way_delay_s=1e12", "path.one_way_delay_s: must be in [0, 1e6] s, got 1e12"),
        ("trace.interval_s=1e-9", "trace.interval_s: 1e-9 s gives 6e10 samples x 10 rows"),
        ("tcp.delayed_ack_timeout_s=1.9e10", "tcp.delayed_ack_timeout_s: must be in [1e-9, 1e6] s"),
        ("tcp.max_rto_s=1e10", "tcp.max_rto_s: must be in [1, 1e6] s"),
    ],
)
def test_values_beyond_the_engine_exit_2_with_one_line(cli, tmp_path, setting, fragment):
    proc = cli("run", "dumbbell-1g", "--set", setting, "--out", tmp_path / "out")
    assert_one_error_line(proc, fragment)
    assert not (tmp_path / "out").exists()


def test_the_sample_cap_names_the_count_and_a_fitting_interval():
    message = rejection(dumbbell(duration_s=60, **{"trace.interval_s": 1e-5}))
    assert message == (
        "trace.interval_s: 1e-5 s gives 6e6 samples x 10 rows = 6e7 trace rows over "
        "duration_s = 60, more than the 5e6 allowed: use a longer interval (at least 1.2e-4 s)"
    )
    assert wavecc.run(dumbbell(**{"trace.interval_s": 1.2e-4})).flows.shape[0] > 0


def test_two_thousand_flows_at_most():
    config = dumbbell()
    config["flows"] = [{"cca": "cubic"}] * 2001
    assert rejection(config) == "flows: at most 2000 flows, got 2001"


def test_both_buffer_limits_are_refused():
    message = rejection(dumbbell(**{"path.buffer_packets": 100}))
    assert message.startswith(
        "path.buffer_packets: set path.buffer_bytes (2500000) or path.buffer_packets (100), not both"
    )
    run = wavecc.run(dumbbell(**{"path.buffer_bytes": 0, "path.buffer_packets": 100}))
    assert run.config["path"]["buffer_packets"] == 100


def test_a_flow_starting_at_the_end_is_refused():
    message = rejection(dumbbell(**{"flows.0.start_s": 0.2}))
    assert message.startswith(
        "flows[0].start_s: must be before the end of the run (duration_s = 0.2), got 0.2"
    )


def radio(ue_position: list[float], **ue: Any) -> dict[str, Any]:
    """A gNB at the origin, a building over x 40-60 m, y 0-10 m, and one UE."""
    return {
        "duration_s": 0.05,
        "radio": {
            "gnbs": [{"position": [0, 0, 15]}],
            "obstacles": [{"class": "building", "x": [40, 60], "y": [0, 10], "z": [0, 20]}],
            "ues": [{"position": ue_position, **ue}],
        },
        "flows": [{}],
    }


def test_a_ue_inside_a_building_is_refused_and_a_path_through_one_is_not():
    message = rejection(radio([50, 5, 1.5]))
    assert (
        message == "radio.ues[0].position: [50, 5, 1.5] is inside a building (radio.obstacles[0])"
    )
    walk = {"waypoints": [{"to": [70, 5, 1.5], "speed_mps": 10}]}
    assert wavecc.run(radio([30, 5, 1.5], **walk)).summary["sim_time_s"] == pytest.approx(0.05)


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        (dumbbell(path=5), "path: invalid type: integer `5`, expected a table"),
        (dumbbell(**{"flows.0.cc": 5}), "flows[0].cc: invalid type: integer `5`, expected a table"),
        (dumbbell(flows={}), "flows: invalid type: table, expected a list"),
        (
            radio([0, 5, 1.5], legs=[{"at_s": 0, "velocity": [1, 0]}]),
            "radio.ues[0].legs[0].velocity: invalid length 2, expected an array of length 3",
        ),
        (
            dumbbell(**{"tcp.dupthresh": 1.5}),
            "tcp.dupthresh: invalid type: floating point `1.5`, expected a whole number from 0 to 4294967295",
        ),
    ],
)
def test_messages_use_plain_words_and_one_key_path_style(config, expected):
    message = rejection(config)
    assert message == expected
    assert "struct" not in message and ".0." not in message


def test_the_memory_estimate_counts_traces_events_and_flows():
    def estimate(config: dict[str, Any]) -> int:
        return _core.estimate_memory(json.dumps(config))

    base = estimate(dumbbell())
    assert base - estimate(dumbbell(**{"trace.events": False})) == 1_000_000 * 52
    two = dumbbell()
    two["flows"] = [{"cca": "cubic"}] * 2
    assert estimate(two) > base
    with pytest.raises(wavecc.ConfigError, match=r"^duration_s: must be in"):
        estimate(dumbbell(duration_s=-1))


def test_the_legend_lists_twelve_entries_at_most():
    config = dumbbell(duration_s=0.1, **{"path.rate_bps": 1e8})
    config["flows"] = [{"cca": "cubic"}] * 30
    result = wavecc.run(config)
    legend = figures.time_series(result).axes[0].get_legend()
    labels = [t.get_text() for t in legend.get_texts()]
    assert len(labels) == figures.LEGEND_MAX
    assert labels[0] == "flow 0 (cubic)" and labels[-1] == "+19 more"
    few = copy.deepcopy(config)
    few["flows"] = few["flows"][:3]
    labels = [
        t.get_text() for t in figures.time_series(wavecc.run(few)).axes[0].get_legend().get_texts()
    ]
    assert labels == ["flow 0 (cubic)", "flow 1 (cubic)", "flow 2 (cubic)"]


def test_odd_keys_are_refused_on_one_line():
    # Found by test_fuzz_config: a key holding a newline split the message.
    assert (
        rejection({**dumbbell(), "\n": None})
        == "'\\n': None is not a finite number, string, boolean, list or table, so it cannot be passed to the core"
    )
    assert rejection({**dumbbell(), "a\nb": 1}).startswith("a\\nb: unknown field `a\\nb`")
    assert (
        rejection({**dumbbell(), 5: 1})
        == "[5]: 5 is not a finite number, string, boolean, list or table, so it cannot be passed to the core"
    )
