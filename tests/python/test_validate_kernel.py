"""`wavecc validate kernel`: the grid, the same link on both sides, the statistics, the
refusals, and (as root, with the emulator) a short comparison end to end."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from wavecc import emulate
from wavecc._core import ConfigError
from wavecc.config import resolve
from wavecc.validate import kernel
from wavecc.validate.kernel import Row, Run

# System tests (root, the emulator): left out of the quick loop.
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


def _emulation_unavailable() -> str | None:
    """Why the end-to-end test cannot run here, None if it can."""
    if os.geteuid() != 0:
        return "needs root (the emulator creates network namespaces and TUN devices)"
    if shutil.which("ip") is None or not Path("/dev/net/tun").exists():
        return "needs iproute2 and /dev/net/tun"
    binary = os.environ.get("WAVECC_EMU") or str(REPO / "target" / "release" / "wavecc-emu")
    if not Path(binary).is_file():
        return "needs the emulator: cargo build --release -p wavecc-emu (or set WAVECC_EMU)"
    return None


UNAVAILABLE = _emulation_unavailable()


def test_the_grid_is_three_algorithms_on_two_rates_with_and_without_loss_and_urban():
    assert len(kernel.CASES) == 15
    assert {(c.kernel_cca, c.cca) for c in kernel.CASES} == {
        ("reno", "newreno"),
        ("cubic", "cubic"),
        ("bbr", "bbr"),
    }
    assert [c.name for c in kernel.select(["cubic-500m-*"])] == [
        "cubic-500m-0",
        "cubic-500m-1e-4",
    ]
    assert [c.name for c in kernel.select(["*-urban"])] == [
        "reno-urban",
        "cubic-urban",
        "bbr-urban",
    ]
    with pytest.raises(ConfigError, match="unknown kernel case 'vegas-1g'"):
        kernel.select(["vegas-1g"])


TRACE = """# wavecc link trace 1
# slot_s = 0.0001
# forward_delay_s = 0.011
# reverse_delay_s = 0.0116
# buffer_bytes = 20971520
t_s,bytes
0.0000,38556
0.0001,0
"""


def test_a_trace_case_runs_urbans_server_over_the_trace_on_both_sides(tmp_path):
    trace = tmp_path / "urban.csv"
    trace.write_text(TRACE)
    (case,) = kernel.select(["bbr-urban"])
    assert case.trace_of == "urban"
    case = case.with_trace(trace)
    emulated = emulate.effective_config(case.scenario, overrides=case.overrides())
    simulated = resolve(case.scenario, cca=case.cca, overrides=case.overrides())
    for config in (emulated, simulated):
        assert Path(config["path"]["trace"]).resolve() == trace
        assert config["tcp"]["mss_bytes"] == 1448 and config["tcp"]["min_rto_s"] == 0.2
    # The urban study's server on the kernel's side too: 1400-byte writes at 1 Gb/s.
    assert emulate._check_flows(emulated) == {"rate": {"bps": 1e9, "write_bytes": 1400}}
    assert simulated["flows"][0]["app"] == "rate"
    assert simulated["flows"][0]["cca"] == "bbr"
    # The kernel's socket memory: the emulator's namespaces allow up to 64 MiB.
    assert simulated["tcp"]["snd_buf_bytes"] == simulated["tcp"]["rcv_buf_bytes"] == 2**26


def test_the_trace_is_exported_once_into_the_comparison_and_its_runs_name_it(monkeypatch, tmp_path):
    # Without root: the kernel's side is played by the simulator, so that what is
    # checked is what the comparison gives both sides and what it keeps.
    exports: list[tuple[str, float]] = []
    export = kernel.traces.export

    def counted_export(scenario: str, **options: float) -> object:
        exports.append((scenario, options["duration_s"]))
        return export(scenario, **options)

    read: list[str] = []

    def stand_in(case: kernel.Case, run: int, duration_s: float) -> object:
        trace = dict(case.settings)["path.trace"]
        read.append(Path(trace).read_text())  # the file exists while the runs read it
        simulated = kernel.run_wavecc(case, run, duration_s)
        # What the emulator's summary says of its run.
        emulated = {"cca": case.kernel_cca, "trace": trace, "load_average": 0.0}
        return replace(simulated, summary={**simulated.summary, "emulated": emulated})

    monkeypatch.setattr(kernel, "check_can_run", lambda: None)
    monkeypatch.setattr(kernel.traces, "export", counted_export)
    monkeypatch.setattr(kernel, "run_kernel", stand_in)
    out = tmp_path / "cmp"
    cases = kernel.select(["cubic-urban", "bbr-urban"])
    kernel.compare(cases, out, runs=1, duration_s=0.5, figures=False)
    assert exports == [("urban", 0.5)], "one export, of the runs' duration, for both cases"
    kept = out / "traces" / "urban.csv"
    assert read == [kept.read_text()] * 2
    assert kept.read_text().startswith("# wavecc link trace 1\n")
    for case in ("cubic-urban", "bbr-urban"):
        for side in ("kernel-1", "wavecc-1"):
            run_dir = out / "runs" / case / side
            config = json.loads((run_dir / "config.json").read_text())
            # As a run's config.json does: the absolute path, here the comparison's copy.
            assert config["path"]["trace"] == str(kept.resolve())
            summary = json.loads((run_dir / "summary.json").read_text())
            if side == "kernel-1":
                assert summary["emulated"]["trace"] == str(kept.resolve())
    rows = list(csv.DictReader(open(out / "runs.csv", encoding="utf-8")))
    assert [(r["case"], r["side"]) for r in rows] == [
        ("cubic-urban", "kernel"),
        ("cubic-urban", "wavecc"),
        ("bbr-urban", "kernel"),
        ("bbr-urban", "wavecc"),
    ]
    assert all(float(r["goodput_mbps"]) > 0 for r in rows)


def test_both_sides_get_the_same_link_with_a_buffer_of_one_bdp():
    case = next(c for c in kernel.CASES if c.name == "bbr-500m-1e-4")
    emulated = emulate.link_spec(
        emulate.effective_config(case.scenario, overrides=case.overrides())
    )
    assert emulated["forward"] == {
        "rate_bps": 5e8,
        "delay_s": 0.01,
        "buffer_bytes": 1_250_000,  # 500 Mb/s x 20 ms
        "loss_per_packet": 1e-4,
        "loss_per_byte": 0.0,
    }
    assert emulated["reverse"]["loss_per_packet"] == 0.0, "the data is lost, not the ACKs"
    simulated = resolve(case.scenario, cca=case.cca, overrides=case.overrides())
    assert simulated["path"]["rate_bps"] == 5e8
    assert simulated["path"]["buffer_bytes"] == 1_250_000
    assert simulated["path"]["loss"]["per_packet"] == 1e-4
    # Aligned to the kernel: its MSS over a 1500-byte MTU, its minimum RTO.
    assert simulated["tcp"]["mss_bytes"] == 1448 and simulated["tcp"]["min_rto_s"] == 0.2


def _row(kernel_goodputs: list[float], wavecc_goodputs: list[float], rtt: float = 25.0) -> Row:
    return Row(
        "cubic-100m-0",
        tuple(Run(g, rtt, 3, load_average=2.0) for g in kernel_goodputs),
        tuple(Run(g, rtt, 5) for g in wavecc_goodputs),
    )


def test_a_case_compares_the_means_and_tells_noise_from_a_difference():
    close = _row([90.0, 92.0, 94.0], [95.0, 97.0, 99.0])
    assert close.mean("kernel", "goodput_mbps") == 92.0
    assert close.diff("goodput_mbps") == pytest.approx(5 / 92)
    assert close.spread("wavecc", "goodput_mbps") == pytest.approx(2.0)
    assert close.agrees and close.beyond_spread is None
    # 20 % apart with runs spread over 40 Mb/s: not shown to differ.
    noisy = _row([60.0, 100.0, 140.0], [80.0, 120.0, 160.0])
    assert not noisy.agrees and noisy.beyond_spread is False
    # 20 % apart with tight runs: a real difference.
    tight = _row([80.0, 80.5, 81.0], [96.0, 96.5, 97.0])
    assert not tight.agrees and tight.beyond_spread is True
    assert _row([80.0], [96.0]).beyond_spread is None, "one run a side cannot say"


def test_the_table_gives_means_with_their_spread():
    row = _row([90.0, 92.0, 94.0], [95.0, 97.0, 99.0])
    table = kernel.markdown([row])
    assert "| `cubic-100m-0` | 3 | 92.0 ± 2.0 | 97.0 ± 2.0 | +5.4% |" in table
    assert row.as_dict()["load_average"] == 2.0
    assert set(row.as_dict()) == set(kernel.COLUMNS)


def test_the_overlay_takes_settings_that_are_not_numbers(tmp_path):
    from types import SimpleNamespace

    import pandas as pd

    from wavecc.validate.kernel_plot import overlay, settings_line

    # A link trace's case names its file: the title must show it, not fail on it, and
    # by its name (the runs read it from the comparison's staging directory).
    staged = "/tmp/.cmp.1-ab.partial/traces/urban.csv"
    case = kernel.Case("cubic-trace", "cubic", "cubic", (("path.trace", staged),))
    assert settings_line(case) == "trace urban.csv"
    (bbr,) = kernel.select(["bbr-urban"])
    assert settings_line(bbr) == (
        "app rate, rate_bps 1e+09, write_bytes 1400, snd_buf_bytes 6.71089e+07, "
        "rcv_buf_bytes 6.71089e+07"
    )
    flows = pd.DataFrame(
        {
            "t_s": [0.1, 0.2],
            "goodput_mbps": [10.0, 20.0],
            "srtt_ms": [20.0, 21.0],
            "cwnd_segments": [10, 20],
        }
    )
    runs = [SimpleNamespace(flows=flows)]
    overlay(case, _row([15.0], [15.0]), runs, runs, tmp_path / "cubic-trace.png")
    assert (tmp_path / "cubic-trace.png").stat().st_size > 10_000


def test_without_root_it_refuses_in_one_line(monkeypatch, capsys, tmp_path):
    from wavecc import cli as wavecc_cli

    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    out = tmp_path / "unused"
    assert wavecc_cli.main(["validate", "kernel", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("wavecc: error: wavecc emulate needs root")
    assert not out.exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="the emulator is looked for only as root")
def test_without_the_emulator_it_refuses_in_one_line(tmp_path):
    out = tmp_path / "unused"
    done = subprocess.run(
        [sys.executable, "-m", "wavecc", "validate", "kernel", "--out", str(out)],
        env={**os.environ, "WAVECC_EMU": str(tmp_path / "missing")},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr == f"wavecc: error: WAVECC_EMU={tmp_path / 'missing'} is not a file\n"
    assert not out.exists()


@pytest.mark.skipif(UNAVAILABLE is not None, reason=str(UNAVAILABLE))
def test_a_short_comparison_writes_the_table_the_runs_and_a_figure(tmp_path):
    binary = os.environ.get("WAVECC_EMU") or str(REPO / "target" / "release" / "wavecc-emu")
    out = tmp_path / "cmp"
    before = _namespaces()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "wavecc",
            "validate",
            "kernel",
            "--cases",
            "reno-100m-0",
            "--runs",
            "2",
            "--duration",
            "1.5",
            "--out",
            str(out),
        ],
        env={**os.environ, "WAVECC_EMU": binary},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        ".wavecc-output.json",
        "comparison.csv",
        "comparison.md",
        "reno-100m-0.png",
        "runs",
        "runs.csv",
    ]
    saved = out / "runs" / "reno-100m-0"
    assert sorted(p.name for p in saved.iterdir()) == [
        "kernel-1",
        "kernel-2",
        "wavecc-1",
        "wavecc-2",
    ]
    assert (saved / "kernel-1" / "flows.parquet").is_file()
    with open(out / "runs.csv", encoding="utf-8") as f:
        runs = list(csv.DictReader(f))
    assert [(r["side"], r["run"]) for r in runs] == [
        ("kernel", "1"),
        ("kernel", "2"),
        ("wavecc", "1"),
        ("wavecc", "2"),
    ]
    for r in runs:
        # 100 Mb/s of 1500-byte packets carry at most 1448/1500 of it as payload.
        assert 10 < float(r["goodput_mbps"]) <= 96.6, r
        assert 20 <= float(r["mean_rtt_ms"]) < 45, r
    assert "reno-100m-0" in (out / "comparison.md").read_text()
    assert _namespaces() == before, "the emulator left a namespace behind"


def _namespaces() -> set[str]:
    listing = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True)
    return {line.split()[0] for line in listing.stdout.splitlines() if line.startswith("wavecc-")}


@pytest.mark.skipif(UNAVAILABLE is not None, reason=str(UNAVAILABLE))
def test_an_urban_case_runs_both_sides_over_urbans_exported_trace(tmp_path):
    binary = os.environ.get("WAVECC_EMU") or str(REPO / "target" / "release" / "wavecc-emu")
    out = tmp_path / "cmp"
    done = subprocess.run(
        [sys.executable, "-m", "wavecc", "validate", "kernel", "--cases", "bbr-urban"]
        + ["--runs", "1", "--duration", "2", "--no-figures", "--out", str(out)],
        env={**os.environ, "WAVECC_EMU": binary},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith(
        f"wrote {out}: comparison.csv, comparison.md, runs.csv, runs/, traces/\n"
    )
    kept = out / "traces" / "urban.csv"
    assert "# wavecc link trace 1" in kept.read_text()
    for side in ("kernel", "wavecc"):
        run_dir = out / "runs" / "bbr-urban" / f"{side}-1"
        config = json.loads((run_dir / "config.json").read_text())
        assert config["path"]["trace"] == str(kept.resolve())
        flow = json.loads((run_dir / "summary.json").read_text())["flows"][0]
        assert (flow["cca"], flow["app"]) == ("bbr", "rate")
        # urban's server writes at 1 Gb/s; the trace's delays are 11 ms and 11.6 ms.
        assert 100 < flow["goodput_mbps"] < 1000, (side, flow)
        assert 22.5 < flow["min_rtt_ms"] < 30, (side, flow)
