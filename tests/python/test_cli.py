"""The `wavecc` command line, run as a user runs it: in a child process."""

from __future__ import annotations

import json
import tomllib
from importlib.metadata import entry_points

import pytest

from wavecc import ConfigError, _core, load_scenario
from wavecc.config import check_minimum
from wavecc.outdir import MARKER

FILES = {
    "summary.json",
    "config.json",
    "flows.parquet",
    "queues.parquet",
    "cc.parquet",
    "events.parquet",
    "ues.parquet",
    "radio_events.parquet",
    "figure.png",
    MARKER,
}

VALID = """\
name = "tiny"
duration_s = 1
seed = 1
[path]
rate_bps = 1e8
one_way_delay_s = 0.010
buffer_bytes = 250_000
[[flows]]
cca = "cubic"
app = "bulk"
"""


def assert_one_error_line(proc, *fragments: str) -> str:
    """The contract for every user error: exit 2, one stderr line, nothing written."""
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("wavecc: error: ")
    for fragment in fragments:
        assert fragment in lines[0]
    return lines[0]


def test_run_writes_every_file_and_prints_a_summary(cli, tmp_path):
    proc = cli("run", "dumbbell-1g", "--set", "duration_s=2")
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "work" / "out" / "dumbbell-1g"
    assert set(p.name for p in out.iterdir()) == FILES
    lines = proc.stdout.splitlines()
    header = next(line for line in lines if line.startswith("flow"))
    for column in ("goodput Mb/s", "mean RTT ms", "p95 RTT ms", "retrans", "RTOs"):
        assert column in header
    summary = json.loads((out / "summary.json").read_text())
    [flow] = summary["flows"]
    row = lines[lines.index(header) + 1].split()
    assert row[:3] == ["0", "cubic", f"{flow['goodput_mbps']:.2f}"]
    assert lines[-1].startswith("wrote out/dumbbell-1g")


def test_run_options_reach_the_run(cli, tmp_path, scenario_file):
    path = scenario_file(VALID)
    proc = cli(
        "run",
        path,
        "--cca",
        "newreno",
        "--seed",
        "5",
        "--set",
        "path.rate_bps=5e7",
        "--out",
        "results/x",
        "--no-figure",
    )
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "work" / "results" / "x"
    assert set(p.name for p in out.iterdir()) == FILES - {"figure.png"}
    config = json.loads((out / "config.json").read_text())
    assert config["flows"][0]["cca"] == "newreno"
    assert config["seed"] == 5
    assert config["path"]["rate_bps"] == 5e7
    assert config["name"] == "tiny"


def malformed(text: str, replace: str, by: str) -> str:
    assert replace in text
    return text.replace(replace, by)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        (malformed(VALID, "rate_bps = 1e8", "rate_bsp = 1e8"), "rate_bsp"),
        (malformed(VALID, "rate_bps = 1e8", "rate_bps = -1e8"), "rate_bps"),
        (VALID[: VALID.index("[[flows]]")], "flows"),
        (malformed(VALID, "[path]", "[path"), "line 4"),
    ],
    ids=["unknown-key", "negative-rate", "missing-flows", "toml-syntax"],
)
def test_a_malformed_scenario_is_one_error_line(cli, tmp_path, scenario_file, text, named):
    path = scenario_file(text)
    assert_one_error_line(cli("run", path), named)
    assert list((tmp_path / "work").iterdir()) == []


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["run", "no/such.toml"], "no/such.toml: no such scenario file"),
        (["run", "dumbell-1g"], "unknown scenario 'dumbell-1g'"),
        (["run", "dumbbell-1g", "--set", "duration_s"], "bad override 'duration_s'"),
        (["run", "dumbbell-1g", "--set", "flows.3.cca=cubic"], "bad override 'flows.3.cca=cubic'"),
        (["run", "dumbbell-1g", "--cca", "nosuch"], "nosuch"),
        (["run", "dumbbell-1g", "--seed", "x"], "--seed"),
        (["run", "dumbbell-1g", "--bogus"], "--bogus"),
        (["run"], "missing SCENARIO"),
        (
            ["run", "dumbbell-1g", "--set", "duration_s=0.1", "--set", "name=.."],
            "'..' is not a directory name",
        ),
        (["frobnicate"], "frobnicate"),
        (["scenarios", "show", "nosuch"], "nosuch"),
        (["bench", "--cases", "nosuch"], "unknown bench case 'nosuch'"),
    ],
)
def test_every_user_error_is_one_line(cli, tmp_path, args, named):
    assert_one_error_line(cli(*args), named)
    assert list((tmp_path / "work").iterdir()) == []


def test_an_unwritable_output_is_one_error_line(cli, tmp_path):
    (tmp_path / "work" / "file").write_text("in the way")
    proc = cli("run", "dumbbell-1g", "--set", "duration_s=0.1", "--out", "file")
    assert_one_error_line(proc, "file exists and is not a directory")
    assert set(p.name for p in (tmp_path / "work").iterdir()) == {"file"}


def test_cca_list_prints_every_algorithm(cli):
    proc = cli("run", "--cca", "list")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    algorithms = _core.algorithms()
    assert len(lines) == len(algorithms)
    for line, (name, summary) in zip(lines, algorithms, strict=True):
        assert line.split()[0] == name and line.endswith(summary)


def test_scenarios_list_and_show(cli):
    listed = cli("scenarios", "list")
    assert listed.returncode == 0
    builtins = _core.builtin_scenarios()
    assert [line.split()[0] for line in listed.stdout.splitlines()] == [sid for sid, _ in builtins]
    shown = cli("scenarios", "show", "dumbbell-1g")
    assert shown.returncode == 0
    assert tomllib.loads(shown.stdout) == load_scenario("dumbbell-1g")


def test_scenarios_schema_describes_every_builtin(cli):
    printed = cli("scenarios", "schema")
    assert printed.returncode == 0
    schema = json.loads(printed.stdout)
    assert schema == json.loads(_core.config_schema())
    assert schema["additionalProperties"] is False
    for sid, _ in _core.builtin_scenarios():
        config = load_scenario(sid)
        assert set(config) <= set(schema["properties"]), sid
        for section in ("path", "tcp", "trace", "radio"):
            ref = (
                schema["properties"][section].get("$ref")
                or schema["properties"][section]["anyOf"][0]["$ref"]
            )
            known = schema["$defs"][ref.removeprefix("#/$defs/")]["properties"]
            assert set(config.get(section, {})) <= set(known), (sid, section)


def test_the_console_script_is_installed():
    [script] = entry_points(group="console_scripts", name="wavecc")
    assert script.value == "wavecc.cli:main"


@pytest.mark.parametrize(
    ("value", "minimum", "options", "message"),
    [
        (0, 1, {}, "--n must be at least 1, not 0"),
        (0, 0, {"exclusive": True}, "--n must be more than 0, not 0"),
        (-1, 0, {"note": " (0: none)"}, "--n must be at least 0 (0: none), not -1"),
        (0.05, 0.1, {"note": " s"}, "--n must be at least 0.1 s, not 0.05"),
        (float("nan"), 0, {}, "--n must be at least 0, not nan"),
    ],
)
def test_check_minimum_refuses_in_one_wording(value, minimum, options, message):
    with pytest.raises(ConfigError) as refused:
        check_minimum("--n", value, minimum, **options)
    assert str(refused.value) == message


@pytest.mark.parametrize(
    ("value", "minimum", "options"), [(1, 1, {}), (0.1, 0, {"exclusive": True})]
)
def test_check_minimum_accepts_the_limit_and_above(value, minimum, options):
    check_minimum("--n", value, minimum, **options)
