"""`wavecc.run` through the real core: the summary, the traces and the effective config."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pandas as pd
import pytest

import wavecc
from wavecc import ConfigError

SUMMARY_KEYS = {
    "name",
    "seed",
    "sim_time_s",
    "wall_time_s",
    "events",
    "flows",
    "queues",
    "ues",
    "cells",
}
FLOW_SUMMARY_KEYS = {
    "flow",
    "cca",
    "app",
    "transport",
    "goodput_mbps",
    "bytes_delivered",
    "mean_rtt_ms",
    "p50_rtt_ms",
    "p95_rtt_ms",
    "min_rtt_ms",
    "rtt_samples",
    "segments_sent",
    "retransmitted_segments",
    "rto_events",
    "fast_recovery_episodes",
    "spurious_retransmissions",
    "losses",
}
COLUMNS = {
    "flows": [
        "t_s",
        "flow",
        "goodput_mbps",
        "cwnd_segments",
        "ssthresh_segments",
        "inflight_bytes",
        "srtt_ms",
        "min_rtt_ms",
        "rtt_samples",
        "rtt_mean_ms",
        "pacing_rate_mbps",
        "ca_state",
        "retransmits",
    ],
    "queues": ["t_s", "queue", "bytes", "packets", "drops_overflow", "drops_random"],
    "cc": ["t_s", "flow", "var", "value"],
    "events": ["t_s", "flow", "kind", "detail", "seq"],
    "ues": [
        "t_s",
        "ue",
        "x_m",
        "y_m",
        "cell",
        "sinr_db",
        "mcs",
        "los",
        "rlc_bytes",
        "rlc_packets",
        "rlc_drops",
        "harq_retx",
        "dl_tbs",
        "dl_tb_sinr_db",
    ],
    "radio_events": ["t_s", "ue", "kind", "cell", "from_cell"],
}


def test_the_summary_has_every_field(dumbbell):
    summary = dumbbell.summary
    assert set(summary) == SUMMARY_KEYS
    assert summary["name"] == "dumbbell-1g"
    assert summary["sim_time_s"] == pytest.approx(2.0)
    assert summary["events"] > 0 and summary["wall_time_s"] > 0
    [flow] = summary["flows"]
    assert set(flow) == FLOW_SUMMARY_KEYS
    identity = (flow["flow"], flow["cca"], flow["app"], flow["transport"])
    assert identity == (0, "cubic", "bulk", "tcp")
    assert isinstance(flow["losses"], dict)


def test_the_summary_is_physically_plausible(dumbbell):
    [flow] = dumbbell.summary["flows"]
    # A 1 Gb/s bottleneck, 20 ms base RTT: a bulk flow gets somewhere, and not past the line.
    assert 10 < flow["goodput_mbps"] <= 1000
    assert flow["bytes_delivered"] * 8 / 1e6 / 2.0 == pytest.approx(flow["goodput_mbps"], rel=0.01)
    # 20 ms of propagation; the histogram keeps 3 significant digits.
    assert 19.9 <= flow["min_rtt_ms"] <= flow["p50_rtt_ms"] <= flow["p95_rtt_ms"]
    assert flow["segments_sent"] >= flow["bytes_delivered"] / 1400


def test_the_traces_are_dataframes_with_the_core_columns(dumbbell):
    for table, columns in COLUMNS.items():
        frame = getattr(dumbbell, table)
        assert isinstance(frame, pd.DataFrame)
        assert list(frame.columns) == columns, table
    flows = dumbbell.flows
    assert len(flows) > 0 and set(flows["flow"]) == {0}
    assert flows["t_s"].between(0, 2.0 + 1e-9).all()
    assert flows["t_s"].is_monotonic_increasing
    for column in ("goodput_mbps", "cwnd_segments", "srtt_ms", "rtt_mean_ms", "ssthresh_segments"):
        assert flows[column].dtype == "float64", column
    assert set(flows["ca_state"]) <= {"open", "disorder", "recovery", "loss"}


def test_an_empty_trace_keeps_the_column_types_of_a_full_one(dumbbell):
    quiet = wavecc.run("dumbbell-1g", overrides=["duration_s=0.5", "trace.events=false"])
    assert len(quiet.events) == 0 and len(dumbbell.events) > 0
    assert dict(quiet.events.dtypes) == dict(dumbbell.events.dtypes)
    assert quiet.events["kind"].dtype == "str" and quiet.events["seq"].dtype == "int64"


def test_the_config_is_the_effective_one(dumbbell):
    config = dumbbell.config
    assert config["name"] == "dumbbell-1g"
    assert config["duration_s"] == 2
    assert config["flows"][0]["cca"] == "cubic"
    # Defaults are filled in: the effective config runs as is.
    assert json.loads(wavecc._core.validate(json.dumps(config))) == config


def test_cca_and_seed_apply_to_every_flow_and_the_run():
    result = wavecc.run(
        "dumbbell-4flows",
        cca="newreno",
        seed=7,
        # Flows must start before the end of the run (the built-in starts them 5 s apart).
        overrides=[
            "duration_s=0.5",
            "path.rate_bps=1e8",
            *(f"flows.{i}.start_s=0.1" for i in (1, 2, 3)),
        ],
    )
    assert [flow["cca"] for flow in result.config["flows"]] == ["newreno"] * 4
    assert [flow["cca"] for flow in result.summary["flows"]] == ["newreno"] * 4
    assert result.config["seed"] == 7 and result.summary["seed"] == 7


def test_same_config_and_seed_give_identical_results():
    config = wavecc.load_scenario("dumbbell-1g")
    overrides = ["duration_s=1", "path.loss.per_byte=1e-6"]
    a, b = [wavecc.run(config, overrides=overrides) for _ in range(2)]
    assert {**a.summary, "wall_time_s": 0} == {**b.summary, "wall_time_s": 0}
    for table in COLUMNS:
        pd.testing.assert_frame_equal(getattr(a, table), getattr(b, table))
    assert len(a.events) > 0  # the loss made something happen


def test_a_dict_config_is_not_modified():
    config = wavecc.load_scenario("dumbbell-1g")
    config["duration_s"] = 0.5
    before = copy.deepcopy(config)
    wavecc.run(config, cca="newreno", seed=3, overrides=["path.rate_bps=1e8"])
    assert config == before


@pytest.mark.parametrize(
    ("overrides", "named"),
    [
        (["path.rate_bsp=1e9"], "rate_bsp"),
        (["path.rate_bps=-1"], "rate_bps"),
        (["flows.0.cca=nosuch"], "nosuch"),
        (["seed=inf"], "seed"),
    ],
)
def test_a_bad_config_raises_config_error_naming_the_key(overrides, named):
    with pytest.raises(ConfigError) as info:
        wavecc.run("dumbbell-1g", overrides=overrides)
    assert named in str(info.value)
    assert "\n" not in str(info.value)


def test_a_run_and_its_result_leave_matplotlib_unloaded():
    """Figures are drawn on request only: running and keeping a Result, and sweeping,
    never pay for matplotlib's import."""
    code = (
        "import sys, wavecc; r = wavecc.run('dumbbell-1g', overrides=['duration_s=0.05']); "
        "import wavecc.sweeps; print('matplotlib' in sys.modules)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "False"
