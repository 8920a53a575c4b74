"""`tcp.stack`: one key choosing Linux's, ns-3 3.37's or ns-3 3.29's TCP, its table in the core only.

The stack fills the `[tcp]` switches and each algorithm's `flows[].cc` parameters the
config leaves out; keys the user sets still win; `config.json` shows the stack and the
effective switches; `--stack` on run, sweep, reproduce and validate, `stack=` in the
Python API; docs/validation.md's tables are the core's.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import wavecc
from wavecc import _core
from wavecc.config import resolve, to_json

REPO = Path(__file__).resolve().parents[2]
SHORT = ["duration_s=0.5"]


def run_cli(*args: str | Path, cwd: Path):
    return subprocess.run(
        [sys.executable, "-m", "wavecc", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )


def effective(config: dict) -> dict:
    return json.loads(_core.validate(to_json(config)))


def with_keys_set(config: dict, stack: dict) -> dict:
    """`config` with every key of `stack` written out by hand, as the validation
    harness once did."""
    config = json.loads(json.dumps(config))
    config["tcp"] = {**config.get("tcp", {}), **stack["tcp"]}
    for flow in config["flows"]:
        flow["cc"] = {**(flow.get("cc") or {}), **stack["cc"].get(flow.get("cca", "cubic"), {})}
    return config


def test_the_stacks_come_from_the_core():
    stacks = wavecc.stacks()
    assert list(stacks)[:2] == ["linux", "ns3-3.37"]
    assert stacks["linux"]["tcp"] == {} and stacks["linux"]["cc"] == {}
    ns3 = stacks["ns3-3.37"]
    assert ns3["tcp"]["receive_window"] == "ns3" and ns3["tcp"]["pacing_burst_s"] == 0.0
    assert ns3["cc"]["westwood"]["increase_per"] == "ack_bytes"
    assert effective(resolve("dumbbell-1g"))["tcp"]["stack"] == "linux"


NS3_STACKS = [name for name in wavecc.stacks() if name != "linux"]


@pytest.mark.parametrize("name", NS3_STACKS)
def test_a_stack_is_its_keys_written_out(name):
    stack = wavecc.stacks()[name]
    for cca in stack["cc"]:
        base = resolve("dumbbell-1g", cca=cca)
        by_stack = effective(resolve(base, stack=name))
        by_hand = effective(with_keys_set(base, stack))
        assert by_hand["tcp"].pop("stack") == "linux"
        assert by_stack["tcp"].pop("stack") == name
        assert by_stack == by_hand, cca


def test_keys_the_user_sets_beat_the_stack():
    config = resolve(
        "dumbbell-1g",
        cca="vegas",
        stack="ns3-3.37",
        overrides=["tcp.cc_rtt=sample", "flows.0.cc.integer_windows=false"],
    )
    got = effective(config)
    assert got["tcp"]["cc_rtt"] == "sample"  # the user's
    assert got["tcp"]["rtt_granularity_s"] == 0.001  # the stack's
    cc = got["flows"][0]["cc"]
    assert cc["integer_windows"] is False and cc["ssthresh_rule"] == "ns3"


def test_run_with_a_stack_is_the_harness_reading_and_config_json_shows_it(tmp_path):
    proc = run_cli(
        "run",
        "dumbbell-1g",
        "--stack",
        "ns3-3.37",
        "--cca",
        "vegas",
        "--set",
        "duration_s=2",
        "--out",
        "r",
        "--no-figure",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    config = json.loads((tmp_path / "r" / "config.json").read_text())
    ns3 = wavecc.stacks()["ns3-3.37"]
    assert config["tcp"]["stack"] == "ns3-3.37"
    assert {k: config["tcp"][k] for k in ns3["tcp"]} == ns3["tcp"]
    assert {k: config["flows"][0]["cc"][k] for k in ns3["cc"]["vegas"]} == ns3["cc"]["vegas"]
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    by_hand = wavecc.run(
        with_keys_set(resolve("dumbbell-1g", cca="vegas", overrides=["duration_s=2"]), ns3)
    )
    assert summary["flows"][0]["goodput_mbps"] == by_hand.summary["flows"][0]["goodput_mbps"]
    linux = wavecc.run("dumbbell-1g", cca="vegas", overrides=["duration_s=2"])
    # ns-3's Vegas never fills the path (docs/validation.md), Linux's does.
    assert summary["flows"][0]["goodput_mbps"] < 0.6 * linux.summary["flows"][0]["goodput_mbps"]


def test_sweep_takes_a_stack_and_sweeps_over_stacks(tmp_path):
    base = wavecc.apply_overrides(wavecc.load_scenario("dumbbell-1g"), SHORT)
    results = wavecc.sweep(base, {"cca": ["vegas"]}, jobs=0, out=tmp_path / "a", stack="ns3-3.37")
    [key] = results.summary["key"]
    assert results.load(key).config["flows"][0]["cc"]["integer_windows"] is True
    results = wavecc.sweep(base, {"tcp.stack": ["linux", "ns3-3.37"]}, jobs=0, out=tmp_path / "b")
    assert list(results.summary["tcp.stack"]) == ["linux", "ns3-3.37"]
    configs = [results.load(key).config for key in results.summary["key"]]
    assert [c["tcp"]["receive_window"] for c in configs] == ["linux", "ns3"]


def test_sweep_cli_stack_reaches_every_run(tmp_path):
    proc = run_cli(
        "sweep",
        "dumbbell-1g",
        "--set",
        "duration_s=0.3",
        "--grid",
        "cca=cubic,bbr",
        "--stack",
        "ns3-3.37",
        "--jobs",
        "0",
        "--out",
        "s",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    store = wavecc.ResultSet.open(tmp_path / "s")
    for key in store.summary["key"]:
        config = store.load(key).config
        assert config["tcp"]["stack"] == "ns3-3.37" and config["tcp"]["pipe"] == "ns3"


@pytest.mark.parametrize(
    "args",
    [
        ["run", "dumbbell-1g", "--stack", "bsd", "--out", "x"],
        [
            "sweep",
            "dumbbell-1g",
            "--grid",
            "cca=cubic",
            "--stack",
            "bsd",
            "--jobs",
            "0",
            "--out",
            "x",
        ],
        ["reproduce", "mateo-handover", "--quick", "--stack", "bsd", "--out", "x"],
        [
            "validate",
            "ns3",
            "--stack",
            "bsd",
            "--ns3-dir",
            REPO / "validation" / "ns3",
            "--out",
            "x",
        ],
    ],
    ids=["run", "sweep", "reproduce", "validate"],
)
def test_an_unknown_stack_is_one_line_naming_the_valid_ones(tmp_path, args):
    proc = run_cli(*args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("wavecc: error: "), proc.stderr
    assert "unknown stack 'bsd' (stacks: linux, ns3-3.37, ns3-3.29)" in lines[0]
    assert os.listdir(tmp_path) == []


def test_an_unknown_stack_in_the_api():
    with pytest.raises(wavecc.ConfigError, match=r"tcp.stack: unknown stack 'bsd' \(stacks: linux"):
        wavecc.run("dumbbell-1g", stack="bsd")


# docs/validation.md's switch tables, one per stack: "| where | switch (<stack> stack) | ... |".
DOC_ROWS = {
    "NewReno": "newreno",
    "CUBIC": "cubic",
    "HighSpeed": "highspeed",
    "BBR": "bbr",
    "Vegas": "vegas",
    "Scalable": "scalable",
    "YeAH": "yeah",
    "Westwood+": "westwood",
    "FB-TCP": "fbtcp",
}


def documented_switches(stack: str) -> tuple[dict, dict]:
    """The `[tcp]` and `flows[].cc` keys of `stack`'s table in docs/validation.md."""
    tcp: dict = {}
    cc: dict = {}
    text = (REPO / "docs" / "validation.md").read_text(encoding="utf-8")
    table = None
    for line in text.splitlines():
        header = re.search(r"\| switch \((\S+) stack\) \|", line)
        if header or not line.startswith("|"):
            table = header.group(1) if header else None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if table != stack or len(cells) != 3 or not (cells[0] == "socket" or cells[0] in DOC_ROWS):
            continue
        keys = dict(_key_value(item) for item in re.findall(r"`([^`]+ = [^`]+)`", cells[1]))
        if cells[0] == "socket":
            tcp |= {key.removeprefix("tcp."): value for key, value in keys.items()}
        else:
            cc[DOC_ROWS[cells[0]]] = keys
    return tcp, cc


def _key_value(item: str) -> tuple[str, object]:
    key, value = item.split(" = ", 1)
    return key, tomllib.loads(f"v = {value}")["v"]


@pytest.mark.parametrize("name", NS3_STACKS)
def test_the_documented_switches_are_the_cores(name):
    stack = wavecc.stacks()[name]
    tcp, cc = documented_switches(name)
    assert tcp == stack["tcp"]
    assert cc == stack["cc"]


def test_ns3_3_29_is_the_paper_simulators_socket():
    """ns3-mmwave's TCP: one-segment initial window, classic recovery, and the paper's
    FB-TCP reading the sink's goodput on the scripts' 100 ms grid."""
    stack = wavecc.stacks()["ns3-3.29"]
    assert stack["tcp"]["initial_cwnd_segments"] == 1 and stack["tcp"]["recovery"] == "classic"
    assert stack["cc"]["cubic"]["beta"] == 0.8
    assert stack["cc"]["fbtcp"]["rate_source"] == "sink"
    got = effective(resolve("fbtcp-2", cca="fbtcp", stack="ns3-3.29"))
    assert (
        got["tcp"]["recovery_sends"] == "ns3-3.29"
        and got["flows"][0]["cc"]["cycle_end"] == "reached"
    )
