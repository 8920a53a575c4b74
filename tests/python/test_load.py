"""`load_scenario`: files and built-ins, and one-line errors for everything else."""

from __future__ import annotations

import json
import tomllib

import pytest

from wavecc import ConfigError, _core, load_scenario

TEXT = """\
name = "from-file"
duration_s = 3
[path]
rate_bps = 1e8
[[flows]]
cca = "newreno"
"""


def error_of(source) -> str:
    with pytest.raises(ConfigError) as info:
        load_scenario(source)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_a_file_is_parsed_as_toml(scenario_file):
    path = scenario_file(TEXT)
    assert load_scenario(path) == tomllib.loads(TEXT)
    assert load_scenario(str(path)) == tomllib.loads(TEXT)


def test_a_builtin_id_loads_the_builtin():
    assert load_scenario("dumbbell-1g") == tomllib.loads(_core.builtin_scenario("dumbbell-1g"))
    assert load_scenario("dumbbell-1g")["name"] == "dumbbell-1g"


@pytest.mark.parametrize("scenario_id", [sid for sid, _ in _core.builtin_scenarios()])
def test_every_builtin_is_valid(scenario_id):
    effective = json.loads(_core.validate(json.dumps(load_scenario(scenario_id))))
    assert effective["name"] == scenario_id


def test_an_existing_file_wins_over_a_builtin_of_the_same_name(tmp_path, monkeypatch):
    (tmp_path / "dumbbell-1g").write_text(TEXT)
    monkeypatch.chdir(tmp_path)
    assert load_scenario("dumbbell-1g")["name"] == "from-file"


def test_a_missing_file_is_reported_as_such(tmp_path):
    for missing in (tmp_path / "nope.toml", tmp_path / "sub" / "nope", "nope.toml"):
        assert error_of(missing) == f"{missing}: no such scenario file"


def test_an_unknown_id_lists_the_builtins():
    message = error_of("dumbell-1g")
    assert message.startswith("unknown scenario 'dumbell-1g'")
    for scenario_id, _ in _core.builtin_scenarios():
        assert scenario_id in message


def test_a_toml_syntax_error_names_the_file_and_line(scenario_file):
    path = scenario_file('name = "x"\nduration_s = 3\n[path\nrate_bps = 1\n')
    message = error_of(path)
    assert message.startswith(f"{path}: invalid TOML: ")
    assert "line 3" in message


def test_a_file_that_is_not_utf8_is_reported(scenario_file):
    path = scenario_file("")
    path.write_bytes(b'name = "caf\xe9"\n')
    assert error_of(path) == f"{path}: not UTF-8 text (byte 11)"


def test_a_directory_is_not_a_scenario(tmp_path):
    (tmp_path / "dir.toml").mkdir()
    assert error_of(tmp_path / "dir.toml").startswith(f"{tmp_path / 'dir.toml'}: cannot read: ")
