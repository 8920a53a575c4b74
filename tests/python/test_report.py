"""`wavecc report DIR`: a self-contained HTML page from a sweep store, checked in a real
headless Chromium: it loads without console errors and its screenshot shows figures."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import wavecc
from wavecc import figures
from wavecc.report import write_report

SHORT = ["duration_s=1", "path.rate_bps=1e8"]


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report") / "store"
    base = wavecc.apply_overrides(wavecc.load_scenario("dumbbell-1g"), SHORT)
    grid = {"cca": ["cubic", "newreno"], "path.loss.per_byte": [0, 1e-6]}
    wavecc.sweep(base, grid, seeds=2, jobs=2, out=out)
    return out


def images(page: str) -> list[str]:
    return re.findall(r'<img src="([^"]*)"', page)


def test_the_report_is_one_self_contained_page(store):
    path = write_report(store)
    assert path == store / "report.html"
    page = path.read_text(encoding="utf-8")
    sources = images(page)
    # Bars (goodput, RTT), two CDFs, the ellipses and one time series per algorithm.
    assert len(sources) == 2 + 2 + 1 + 2
    assert all(src.startswith("data:image/png;base64,") for src in sources)
    # Nothing is fetched from anywhere: no links, scripts or styles by URL.
    assert not re.search(r'(src|href)="(?!data:)', page)
    for text in ["Means over seeds", "Percentage improvement", "cubic: goodput (Mb/s)",
                 "Throughput-RTT ellipses", "Configs used", "Versions", "path.loss.per_byte",
                 '"one_way_delay_s"', f"<td>{wavecc.__version__}</td>"]:  # fmt: skip
        assert text in page, text
    assert "Failed runs" not in page


def test_cli_report_and_its_errors(cli, store, tmp_path):
    target = tmp_path / "elsewhere" / "r.html"
    done = cli("report", store, "--out", target)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"wrote {target}"
    assert target.read_text().startswith("<!DOCTYPE html>")

    empty = tmp_path / "empty"
    empty.mkdir()
    bad = cli("report", empty)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "not a sweep result store" in bad.stderr
    assert not (empty / "report.html").exists()


def test_a_report_lists_failed_runs(store, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(store, copy)
    summary = wavecc.ResultSet.open(copy).summary
    key = summary["key"][0]
    shutil.rmtree(copy / "runs" / key)
    # Rewrite the summary as a sweep with that run failed would.
    summary.loc[0, ["status", "error"]] = ["failed", "RuntimeError: simulated crash"]
    summary.to_parquet(copy / "summary.parquet", index=False)
    page = write_report(copy).read_text()
    assert "Failed runs (1)" in page and "simulated crash" in page


# --- in a real browser --------------------------------------------------------------------


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed (scripts/test.sh installs it)")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return path


def browse(page: Path, screenshot: Path, profile: Path) -> list[str]:
    """Loads `page` in headless Chromium, saves a screenshot, returns the console lines."""
    done = subprocess.run(
        [chromium(), "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
         f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
         "--hide-scrollbars", "--window-size=1200,2400", f"--screenshot={screenshot}",
         page.resolve().as_uri()],  # fmt: skip
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    # Chromium writes every console message (log, error, uncaught exception) as
    # `...:CONSOLE:<line>] "<message>", source: <url> (<line>)`.
    return re.findall(r':CONSOLE[^\]]*\] "(.*)", source:', done.stderr)


def test_the_report_loads_in_chromium_and_shows_its_figures(store, tmp_path):
    page = write_report(store)
    shot = tmp_path / "report.png"
    console = browse(page, shot, tmp_path / "profile")
    count = len(images(page.read_text()))
    # The page's own check ran and found every figure decoded; nothing else was logged.
    assert console == [f"wavecc-report: {count} figures loaded"]

    from matplotlib.image import imread

    pixels = imread(shot)[:, :, :3]
    assert pixels.shape[:2] == (2400, 1200) and not figures.is_blank(shot)
    # The figures are drawn: the algorithm colours cover a good part of the page.
    for name in ("cubic", "newreno"):
        rgb = np.array([int(figures.color(name)[i : i + 2], 16) for i in (1, 3, 5)]) / 255
        share = np.mean(np.all(np.abs(pixels - rgb) < 0.02, axis=2))
        assert share > 0.002, (name, share)


def test_the_console_check_catches_errors(tmp_path):
    """The negative control: an error on a page shows up in what `browse` returns."""
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><html><head><link rel="icon" href="data:,"></head>'
                   "<body><script>console.error('oops'); missing();</script></body></html>")  # fmt: skip
    console = browse(bad, tmp_path / "bad.png", tmp_path / "profile")
    assert console[0] == "oops" and "missing is not defined" in console[1]


def test_interval_samples_of_a_store(store):
    from wavecc import analysis

    rs = wavecc.ResultSet.open(store)
    samples = analysis.interval_samples(rs)
    assert list(samples.columns) == ["cca", "path.loss.per_byte", "seed", "key", "t_s", "flow",
                                     "goodput_mbps", "rtt_mean_ms"]  # fmt: skip
    assert samples["key"].nunique() == 8
    first = rs.load(rs.summary["key"][0]).flows
    assert list(samples[samples["key"] == rs.summary["key"][0]]["goodput_mbps"]) == list(
        first["goodput_mbps"]
    )
    table = analysis.ellipses(samples, x="rtt_mean_ms", by=["cca"])
    assert list(table["cca"]) == ["cubic", "newreno"] and (table["n"] > 8).all()


def test_a_radio_sweep_gets_the_map_and_the_radio_traces(tmp_path):
    base = wavecc.apply_overrides(wavecc.load_scenario("fbtcp-2"), ["duration_s=3"])
    wavecc.sweep(base, {"cca": ["cubic"]}, jobs=0, out=tmp_path / "radio")
    page = write_report(tmp_path / "radio").read_text()
    for caption in ("scenario map: obstacles, gNBs and UE paths",
                    "cubic: SINR and RLC occupancy"):  # fmt: skip
        assert f'alt="{caption}"' in page


def test_multi_flow_runs_are_reported_as_aggregates_with_jain(tmp_path):
    from wavecc.report import _with_algorithm
    from wavecc.store import Store

    summary = pd.DataFrame({"seed": [1], "key": ["k"], "status": ["ok"], "cca": ["cubic"],
                            "goodput_mbps_f0": [30.0], "goodput_mbps_f1": [10.0],
                            "mean_rtt_ms_f0": [20.0], "mean_rtt_ms_f1": [30.0],
                            "p95_rtt_ms_f0": [25.0], "p95_rtt_ms_f1": [40.0]})  # fmt: skip
    frame = _with_algorithm(summary, Store(tmp_path))
    assert frame.loc[0, ["goodput_mbps", "mean_rtt_ms", "p95_rtt_ms"]].tolist() == [
        40.0,
        25.0,
        40.0,
    ]
