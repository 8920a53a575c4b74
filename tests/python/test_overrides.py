"""`apply_overrides`: dotted keys, TOML values, bare strings, and never a mutated input."""

from __future__ import annotations

import copy
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wavecc import ConfigError, apply_overrides


@pytest.fixture
def config() -> dict:
    return {
        "name": "base",
        "duration_s": 60,
        "path": {"rate_bps": 1e9, "loss": {"per_byte": 0.0}},
        "flows": [{"cca": "cubic", "app": "bulk"}, {"cca": "cubic"}],
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("5", 5),
        ("-3", -3),
        ("1e-7", 1e-7),
        ("2.5", 2.5),
        ("true", True),
        ('"123"', "123"),
        ("[1, 2, 3]", [1, 2, 3]),
        ('{cca = "bbr", app = "bulk"}', {"cca": "bbr", "app": "bulk"}),
        ("1_000_000", 1_000_000),
    ],
)
def test_values_are_read_as_toml(config, text, expected):
    assert apply_overrides(config, [f"path.x={text}"])["path"]["x"] == expected


@pytest.mark.parametrize("text", ["newreno", "bulk-rate", "a b", "", "[unclosed", "=b"])
def test_values_that_are_not_toml_are_bare_strings(config, text):
    assert apply_overrides(config, [f"name={text}"])["name"] == text


def test_only_the_first_equals_sign_splits_key_and_value(config):
    assert apply_overrides(config, ["name=a=b"])["name"] == "a=b"


def test_whitespace_around_key_and_bare_value_is_ignored(config):
    assert apply_overrides(config, [" path.rate_bps = 1e8"])["path"]["rate_bps"] == 1e8
    assert apply_overrides(config, ["name = new "])["name"] == "new"


def test_a_newline_cannot_smuggle_in_another_key(config):
    result = apply_overrides(config, ["name=x\nduration_s = 5"])
    assert result["duration_s"] == 60
    assert result["name"] == "x\nduration_s = 5"


def test_missing_tables_are_created(config):
    result = apply_overrides(config, ["path.loss.gilbert.p_bad=0.1", "tcp.mss_bytes=1000"])
    assert result["path"]["loss"] == {"per_byte": 0.0, "gilbert": {"p_bad": 0.1}}
    assert result["tcp"] == {"mss_bytes": 1000}


def test_integer_segments_index_lists(config):
    result = apply_overrides(config, ["flows.1.cca=newreno"])
    assert [flow["cca"] for flow in result["flows"]] == ["cubic", "newreno"]


def test_list_indices_may_be_written_as_the_core_writes_them(config):
    result = apply_overrides(config, ["flows[1].cca=newreno", "path.x[0]=1"])
    assert [flow["cca"] for flow in result["flows"]] == ["cubic", "newreno"]
    assert result["path"]["x"] == {"0": 1}


def test_a_whole_list_element_can_be_replaced(config):
    result = apply_overrides(config, ['flows.0={cca = "newreno"}'])
    assert result["flows"][0] == {"cca": "newreno"}


def test_later_overrides_win(config):
    assert apply_overrides(config, ["duration_s=1", "duration_s=2"])["duration_s"] == 2


def test_integer_keys_of_tables_are_strings():
    assert apply_overrides({}, ["a.0=1"]) == {"a": {"0": 1}}


@pytest.mark.parametrize(
    ("override", "reason"),
    [
        ("duration_s", "expected dotted.key=value"),
        ("=5", "expected dotted.key=value"),
        ("path..rate_bps=1", "expected dotted.key=value"),
        ("path.=1", "expected dotted.key=value"),
        ("flows.2.cca=bbr", "'flows.2' is not an index of a list of 2"),
        ("flows[2].cca=bbr", "'flows.2' is not an index of a list of 2"),
        ("flows.-1.cca=bbr", "'flows.-1' is not an index of a list of 2"),
        ("flows.first.cca=bbr", "'flows.first' is not an index of a list of 2"),
        ("duration_s.unit=s", "'duration_s' is a number, not a table"),
        ("name.first=x", "'name' is a string, not a table"),
        ("flows.0.cca.x=1", "'flows.0.cca' is a string, not a table"),
    ],
)
def test_bad_overrides_name_themselves_and_the_problem(config, override, reason):
    with pytest.raises(ConfigError) as info:
        apply_overrides(config, [override])
    message = str(info.value)
    assert message == f"bad override '{override}': {reason}"
    assert "\n" not in message


def test_the_input_is_deep_copied(config):
    before = copy.deepcopy(config)
    result = apply_overrides(config, ["flows.0.cca=newreno", "path.loss.per_byte=1e-7"])
    assert config == before
    result["flows"][1]["app"] = "onoff"
    result["path"]["rate_bps"] = 1
    assert config == before


def test_a_failed_override_leaves_the_input_alone(config):
    before = copy.deepcopy(config)
    with pytest.raises(ConfigError):
        apply_overrides(config, ["flows.0.cca=newreno", "flows.9.cca=bbr"])
    assert config == before


# --- properties -------------------------------------------------------------------------


def toml_string(text: str) -> str:
    """A TOML basic string; TOML forbids raw control characters and DEL in one."""
    escaped = []
    for ch in text:
        if ch in '"\\':
            escaped.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            escaped.append(f"\\u{ord(ch):04x}")
        else:
            escaped.append(ch)
    return '"' + "".join(escaped) + '"'


def toml_literal(value) -> str:
    """The TOML text of a value, the inverse of what `apply_overrides` parses."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(map(toml_literal, value)) + "]"
    return "{" + ", ".join(f"{toml_string(k)} = {toml_literal(v)}" for k, v in value.items()) + "}"


scalars = (
    st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.booleans()
    | st.text()
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=12,
)
bare_keys = st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,8}", fullmatch=True)
keys = st.lists(bare_keys, min_size=1, max_size=4)


@given(keys, values)
def test_any_toml_value_round_trips(path, value):
    result = apply_overrides({}, [f"{'.'.join(path)}={toml_literal(value)}"])
    node = result
    for key in path:
        node = node[key]
    assert node == value
    if isinstance(value, float):
        assert math.copysign(1, node) == math.copysign(1, value)


words = st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,12}", fullmatch=True).filter(
    lambda w: w not in {"true", "false", "inf", "nan"}
)


@given(words)
def test_plain_words_need_no_quotes(word):
    assert apply_overrides({"flows": [{"cca": "cubic"}]}, [f"flows.0.cca={word}"]) == {
        "flows": [{"cca": word}]
    }


configs = st.dictionaries(st.sampled_from(["a", "b", "0", "flows"]), values, max_size=4)
override_texts = st.lists(
    st.builds(
        "{}={}".format,
        st.lists(st.sampled_from(["a", "b", "0", "1", "flows", "x"]), min_size=1, max_size=3).map(
            ".".join
        ),
        st.text(max_size=8),
    )
    | st.text(max_size=12),
    max_size=4,
)


@given(configs, override_texts)
def test_the_input_is_never_mutated(config, overrides):
    before = copy.deepcopy(config)
    try:
        result = apply_overrides(config, overrides)
    except ConfigError:
        pass
    else:
        assert result is not config
    assert config == before
