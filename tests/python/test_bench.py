"""`wavecc bench`: the standard cases, each measured in a child process of its own."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from wavecc import bench

MEASUREMENT_KEYS = {
    "case",
    "sim_time_s",
    "wall_time_s",
    "sim_s_per_wall_s",
    "events",
    "events_per_s",
    "peak_rss_mb",
    "runs",
    "sim_s_per_wall_s_min",
    "sim_s_per_wall_s_max",
}


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
    assert (len(multi["radio"]["ues"]), len(multi["radio"]["gnbs"]), multi["duration_s"]) == (
        10,
        4,
        40,
    )


def test_all_cases_run_by_default():
    assert [case.name for case in bench.select(None)] == [case.name for case in bench.CASES]
    assert len(bench.CASES) == 6


def test_bench_json_measures_a_short_case(cli):
    args = ("--cases", "cubic-1g-20ms-60s", "--duration", "1", "--repeat", "1")
    proc = cli("bench", "--json", *args)
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
    args = ("--cases", "newreno-1g-20ms-60s", "--duration", "0.5", "--repeat", "2")
    proc = cli("bench", *args)
    assert proc.returncode == 0, proc.stderr
    header, row = proc.stdout.splitlines()
    for column in ("case", "sim s", "wall s", "sim s/wall s", "min-max", "events/s", "peak MB"):
        assert column in header
    assert row.split()[:2] == ["newreno-1g-20ms-60s", "0.5"]
    # The range is printed in whole sim s/wall s.
    slowest, fastest = map(float, row.split()[4].split("-"))
    assert 0 < slowest - 0.5 <= float(row.split()[3]) <= fastest + 0.5


def run(wall_time_s: float, peak_rss_mb: float = 10.0) -> bench.Measurement:
    return bench.Measurement("c", 60.0, wall_time_s, 1000, peak_rss_mb)


def test_repeated_runs_report_the_median_run_the_range_and_the_highest_peak():
    r = bench.Repeated((run(0.9, 20.0), run(0.6), run(0.7), run(1.5, 30.0)))
    # median_low of four wall times: the slower of the middle two, an actual run.
    assert r.median.wall_time_s == 0.7
    assert (r.slowest, r.fastest) == (pytest.approx(40.0), pytest.approx(100.0))
    d = r.as_dict()
    assert d["sim_s_per_wall_s"] == pytest.approx(60 / 0.7)
    assert d["events_per_s"] == pytest.approx(1000 / 0.7)
    assert (d["peak_rss_mb"], d["runs"]) == (30.0, 4)
    assert set(d) == MEASUREMENT_KEYS


def test_repeat_below_one_is_rejected_before_anything_runs(cli):
    proc = cli("bench", "--cases", "newreno-1g-20ms-60s", "--repeat", "0")
    assert proc.returncode != 0
    assert "--repeat must be at least 1, not 0" in proc.stderr
    assert proc.stdout == ""


def test_the_child_imports_only_the_core():
    """Peak memory is only the simulator's if the child keeps the heavy libraries out."""
    heavy = ("pandas", "numpy", "matplotlib", "pyarrow")
    code = (
        "import sys, wavecc.bench_child; "
        f"print([m for m in sys.modules if m.split('.')[0] in {heavy!r}])"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[]"


def test_the_scaling_group_is_the_city_from_ten_to_a_thousand_ues():
    cases = bench.select(["scaling"])
    assert [case.name for case in cases] == [
        "city-10ue-5s",
        "city-30ue-5s",
        "city-100ue-5s",
        "city-300ue-5s",
        "city-1000ue-5s",
        "city-100ue-60s",
    ]
    small = json.loads(bench.config_json(cases[0]))
    assert (len(small["radio"]["ues"]), len(small["radio"]["gnbs"]), small["duration_s"]) == (
        10,
        10,
        5,
    )
    # The scenario's own mix of algorithms stays.
    assert len({flow["cca"] for flow in small["flows"]}) > 1
    assert bench.select(["city-100ue-60s", "cubic-urban-60s"])[1].scenario == "urban"


def test_the_peak_memory_is_the_childs_own_not_the_parents():
    """A spawned child's rusage keeps the peak of the process it came from; the
    child's own figure does not, however large the parent is."""
    ballast = b"\1" * (400 << 20)  # the parent holds 400 MB more
    case = bench.select(["cubic-1g-20ms-60s"])[0]
    measured = bench.measure(case, duration_s=0.1)
    assert len(ballast) == 400 << 20
    assert 5 < measured.peak_rss_mb < 200
