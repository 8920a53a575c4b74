"""`flows[].cc.fixed_point` and `wavecc kernel twins`: the seeds' algorithms with the
integer arithmetic of their eBPF programs, against the floating-point versions. The
long comparison (60 s, three seeds) is not run here; this is its one-second smoke
form. The step-by-step comparison with the C is crates/wavecc-core/tests/kernel_twins.rs.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

import wavecc
from wavecc import kernel_twins


def _wavecc(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wavecc", *args], capture_output=True, text=True, check=False
    )


def _goodput(cca: str, *overrides: str) -> dict:
    result = wavecc.run("dumbbell-1g", cca=cca, overrides=["duration_s=1", *overrides])
    return result.summary["flows"][0]


def test_fixed_point_false_is_the_floating_point_version_bit_for_bit():
    for cca in kernel_twins.ALGORITHMS:
        assert _goodput(cca, "flows.0.cc.fixed_point=false") == _goodput(cca), cca


def test_fixed_point_true_runs_the_kernel_arithmetic():
    # Whole-segment windows and truncated Q16 growth move D-TCP's trajectory: after
    # one second on the 1 Gb/s dumbbell the runs differ (slightly).
    assert _goodput("dtcp", "flows.0.cc.fixed_point=true") != _goodput("dtcp")


def test_fixed_point_refuses_the_other_parameters():
    run = _wavecc(
        "run",
        "dumbbell-1g",
        "--cca",
        "mss",
        "--set",
        "duration_s=1",
        "--set",
        "flows.0.cc.fixed_point=true",
        "--set",
        "flows.0.cc.beta=0.5",
    )
    assert run.returncode == 2
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("wavecc: error: flows[0].cc"), run.stderr
    assert "fixed_point = true runs the kernel program" in lines[0] and "beta" in lines[0]


def test_twins_prints_the_comparison_table():
    out = _wavecc(
        "kernel",
        "twins",
        "--duration",
        "1",
        "--seeds",
        "1,2",
        "--scenarios",
        "dumbbell-1g",
        "--cca",
        "mss,dtcp",
    )
    assert out.returncode == 0, out.stderr
    rows = [line for line in out.stdout.splitlines() if line.startswith("| `dumbbell-1g`")]
    assert [row.split("|")[2].strip() for row in rows] == ["`mss`", "`dtcp`"]
    for row in rows:
        float_mbps, fixed_mbps, difference = (row.split("|")[i].strip() for i in (3, 4, 5))
        expected = 100 * (float(fixed_mbps) - float(float_mbps)) / float(float_mbps)
        assert float(difference.rstrip(" %")) == pytest.approx(expected, abs=0.02), row
    assert "[4/8] dumbbell-1g mss fixed seed 2" in out.stderr


def test_overrides_reach_every_run_or_the_float_runs_only():
    def compare(**kw):
        return kernel_twins.compare(0.5, [1], ["dumbbell-1g"], ["mss"], **kw)[0]

    plain = compare()
    lossy = compare(overrides=["path.loss.per_byte=1e-5"])
    assert lossy.float_mean < plain.float_mean and lossy.fixed_mean < plain.fixed_mean
    float_only = compare(float_overrides=["path.loss.per_byte=1e-5"])
    assert (float_only.float_mean, float_only.fixed_mean) == (lossy.float_mean, plain.fixed_mean)


def test_comparison_arithmetic():
    c = kernel_twins.Comparison("s", "mss", (1, 2), (100.0, 300.0), (99.0, 297.0))
    assert (c.float_mean, c.fixed_mean) == (200.0, 198.0)
    assert c.difference_pct == pytest.approx(-1.0)
    assert c.agrees
    assert not kernel_twins.Comparison("s", "mss", (1,), (100.0,), (97.9,)).agrees


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--duration", "0"], "--duration must be more than 0, not 0"),
        (["--seeds", "1,x"], "--seeds 1,x: must be integers"),
        (["--cca", "cubic"], "--cca cubic: valid: fbtcp, rttv, mss, mrvhs, dtcp"),
        (["--scenarios", "nowhere"], "unknown scenario 'nowhere'"),
        (["--float-set", "flows.5.cca=x"], "'flows.5' is not an index"),
        (["--set", "path.nothing=1"], "path.nothing: unknown field"),
        (["--float-set", "flows.0.cc.n_update=eq99"], "flows[0].cc"),
    ],
)
def test_twins_option_errors_are_one_line(args, message):
    out = _wavecc("kernel", "twins", "--duration", "1", "--cca", "mss", *args)
    assert out.returncode == 2
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("wavecc: error: "), out.stderr
    assert message in lines[0], out.stderr
    assert out.stdout == ""
