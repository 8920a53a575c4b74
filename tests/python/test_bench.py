"""`wavecc bench`: the standard cases, each measured in a child process of its own."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from wavecc import bench

MEASUREMENT_KEYS = {
    "case", "sim_time_s", "wall_time_s", "sim_s_per_wall_s", "events", "events_per_s",
    "peak_rss_mb",
}  # fmt: skip


@pytest.mark.parametrize(
    ("name", "cca", "per_byte"),
    [
        ("cubic-1g-20ms-60s", "cubic", 0.0),
        ("newreno-1g-20ms-60s", "newreno", 0.0),
        ("bbr-1g-20ms-60s", "bbr", 0.0),
        ("cubic-1g-20ms-60s-loss1e-7", "cubic", 1e-7),
    ],
)
def test_each_case_is_what_its_name_says(name, cca, per_byte):
    [case] = bench.select([name])
    config = json.loads(bench.config_json(case))
    assert config["duration_s"] == 60
    assert config["path"]["rate_bps"] == 1e9
    assert config["path"]["one_way_delay_s"] == 0.010
    assert config["path"]["loss"]["per_byte"] == per_byte
    assert [flow["cca"] for flow in config["flows"]] == [cca]


def test_the_mmwave_cases_are_the_seeds_scenarios():
    urban = json.loads(bench.config_json(*bench.select(["cubic-urban-60s"])))
    assert urban["duration_s"] == 60 and urban["radio"]["rlc_buffer_bytes"] == 20 * 2**20
    assert [(f["cca"], f["app"], f["rate_bps"]) for f in urban["flows"]] == [("cubic", "rate", 1e9)]
    multi = json.loads(bench.config_json(*bench.select(["cubic-multiuser-40s"])))
    assert (len(multi["radio"]["ues"]), len(multi["radio"]["gnbs"]), multi["duration_s"]) == (10, 4, 40)


def test_all_cases_run_by_default():
    assert [case.name for case in bench.select(None)] == [case.name for case in bench.CASES]
    assert len(bench.CASES) == 6


def test_bench_json_measures_a_short_case(cli):
    proc = cli("bench", "--json", "--cases", "cubic-1g-20ms-60s", "--duration", "1")
    assert proc.returncode == 0, proc.stderr
    [m] = json.loads(proc.stdout)
    assert set(m) == MEASUREMENT_KEYS
    assert m["case"] == "cubic-1g-20ms-60s"
    assert m["sim_time_s"] == pytest.approx(1.0)
    assert 0 < m["wall_time_s"] < 60
    assert m["sim_s_per_wall_s"] == pytest.approx(m["sim_time_s"] / m["wall_time_s"])
    assert m["events"] > 0
    assert m["events_per_s"] == pytest.approx(m["events"] / m["wall_time_s"])
    # A bare interpreter and the core: far less than an interpreter with pandas loaded.
    assert 5 < m["peak_rss_mb"] < 1000


def test_bench_prints_a_table(cli):
    proc = cli("bench", "--cases", "newreno-1g-20ms-60s", "--duration", "0.5")
    assert proc.returncode == 0, proc.stderr
    header, row = proc.stdout.splitlines()
    for column in ("case", "sim s", "wall s", "sim s/wall s", "events/s", "peak MB"):
        assert column in header
    assert row.split()[:2] == ["newreno-1g-20ms-60s", "0.5"]


def test_the_child_imports_only_the_core():
    """Peak memory is only the simulator's if the child keeps the heavy libraries out."""
    heavy = ("pandas", "numpy", "matplotlib", "pyarrow")
    code = (
        "import sys, wavecc.bench_child; "
        f"print([m for m in sys.modules if m.split('.')[0] in {heavy!r}])"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[]"
