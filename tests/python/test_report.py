"""`wavecc report DIR`: a self-contained HTML page from a sweep store, checked in a real
headless Chromium: it loads without console errors and its screenshot shows figures."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
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
    for text in [
        "Means over seeds",
        "Percentage improvement",
        "cubic: total goodput (Mb/s)",
        "Throughput-RTT ellipses",
        "Configs used",
        "Versions",
        "path.loss.per_byte",
        '"one_way_delay_s"',
        f"<td>{wavecc.__version__}</td>",
    ]:
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
        [
            chromium(),
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--no-first-run",
            f"--user-data-dir={profile}",
            "--enable-logging=stderr",
            "--v=0",
            "--hide-scrollbars",
            "--window-size=1200,2400",
            f"--screenshot={screenshot}",
            page.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
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
    bad.write_text(
        '<!DOCTYPE html><html><head><link rel="icon" href="data:,"></head>'
        "<body><script>console.error('oops'); missing();</script></body></html>"
    )
    console = browse(bad, tmp_path / "bad.png", tmp_path / "profile")
    assert console[0] == "oops" and "missing is not defined" in console[1]


def test_interval_samples_of_a_store(store):
    from wavecc import analysis

    rs = wavecc.ResultSet.open(store)
    samples = analysis.interval_samples(rs)
    assert list(samples.columns) == [
        "cca",
        "path.loss.per_byte",
        "seed",
        "key",
        "t_s",
        "flow",
        "goodput_mbps",
        "rtt_mean_ms",
    ]
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
    for caption in ("scenario map: obstacles, gNBs and UE paths", "cubic: SINR and RLC occupancy"):
        assert f'alt="{caption}"' in page


# --- the numbers ----------------------------------------------------------------------------


class _Tables(HTMLParser):
    """The page's tables in order, each a list of rows of cell texts (header row first)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None:
            self.tables[-1][-1].append("".join(self.cell).strip())
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def table_after(page: str, heading: str) -> list[dict[str, str]]:
    """The rows of the first table after `heading`, as {column: cell text}."""
    parser = _Tables()
    parser.feed(page[page.index(heading) :])
    header, *rows = parser.tables[0]
    return [dict(zip(header, row, strict=True)) for row in rows]


def mean_of(cell: str) -> float:
    """The mean of a `mean ± half-width` cell."""
    return float(cell.split(" ± ")[0])


def delivered_mbps(run: Path) -> float:
    """A run's throughput from its files, not from its summary: the per-interval goodput
    traces of all flows times each interval's length (bits delivered) over the
    configured duration."""
    flows = pd.read_parquet(run / "flows.parquet", columns=["t_s", "flow", "goodput_mbps"])
    bits = 0.0
    for _, trace in flows.groupby("flow"):
        seconds = trace["t_s"].diff().fillna(trace["t_s"].iloc[0])
        bits += float((trace["goodput_mbps"] * 1e6 * seconds).sum())
    duration = json.loads((run / "config.json").read_text())["duration_s"]
    return bits / duration / 1e6


def test_the_total_goodput_is_every_flows_bytes_over_the_run(cli, tmp_path):
    """Four BBR flows started 5 s apart: the total is what the bottleneck delivered, not
    the sum of the flows' goodputs over their own (shorter) active times."""
    base = wavecc.apply_overrides(wavecc.load_scenario("dumbbell-4flows"), ["duration_s=20"])
    out = tmp_path / "four"
    wavecc.sweep(base, {"cca": ["bbr"]}, seeds=2, jobs=2, out=out)
    assert cli("report", out).returncode == 0

    page = (out / "report.html").read_text()
    [row] = table_after(page, "Means over seeds")
    assert row["cca"] == "bbr" and row["flows per run"] == "4" and row["seeds"] == "2"
    runs = sorted((out / "runs").iterdir())
    truth = sum(delivered_mbps(run) for run in runs) / len(runs)
    assert mean_of(row["total goodput (Mb/s)"]) == pytest.approx(truth, rel=0.01)
    assert truth < 1000  # a 1 Gb/s bottleneck
    # The late flows' goodputs over their own active times add up to more than the
    # bottleneck delivered, so the check above tells the two apart.
    per_flow = [json.loads((run / "summary.json").read_text())["flows"] for run in runs]
    summed = sum(sum(f["goodput_mbps"] for f in flows) for flows in per_flow) / len(runs)
    assert summed > 1.1 * truth
    assert mean_of(row["per-flow goodput over its active time (Mb/s)"]) == pytest.approx(
        summed / 4, rel=1e-3
    )


def test_runs_of_different_flow_counts_each_get_their_row(tmp_path):
    base = wavecc.apply_overrides(wavecc.load_scenario("dumbbell-1g"), SHORT)
    one, two = [{"cca": "cubic"}], [{"cca": "cubic"}, {"cca": "newreno"}]
    wavecc.sweep(base, {"flows": [one, two]}, seeds=2, jobs=2, out=tmp_path / "mixed")
    page = write_report(tmp_path / "mixed").read_text()

    means = table_after(page, "Means over seeds")
    assert [(r["flows per run"], r["seeds"]) for r in means] == [("1", "2"), ("2", "2")]
    for row in means:
        assert "-" not in row.values(), row
        assert 0 < mean_of(row["total goodput (Mb/s)"]) <= 100  # a 100 Mb/s bottleneck
    jain = table_after(page, "fairness index over flows")
    assert [(r["flows per run"], r["seeds"]) for r in jain] == [("1", "2"), ("2", "2")]
    assert mean_of(jain[0]["jain"]) == 1.0 and 0.5 <= mean_of(jain[1]["jain"]) <= 1.0


def test_a_runs_numbers_combine_its_flows():
    from wavecc.report import run_metrics

    # Two TCP flows of a 10 s run, the second active for its last 5 s, and a UDP flow
    # (no RTT).
    flows = [
        {
            "bytes_delivered": 50_000_000,
            "goodput_mbps": 40.0,
            "mean_rtt_ms": 20.0,
            "p95_rtt_ms": 25.0,
            "retransmitted_segments": 3,
            "rto_events": 1,
        },
        {
            "bytes_delivered": 25_000_000,
            "goodput_mbps": 40.0,
            "mean_rtt_ms": 30.0,
            "p95_rtt_ms": 40.0,
            "retransmitted_segments": 2,
            "rto_events": 0,
        },
        {
            "bytes_delivered": 12_500_000,
            "goodput_mbps": 10.0,
            "mean_rtt_ms": None,
            "p95_rtt_ms": None,
            "retransmitted_segments": 0,
            "rto_events": 0,
        },
    ]
    got = run_metrics({"sim_time_s": 10.0, "flows": flows})
    assert got == {
        "total_goodput_mbps": 70.0,  # 87.5 MB x 8 / 10 s
        "goodput_mbps": 30.0,
        "mean_rtt_ms": 25.0,
        "p95_rtt_ms": 40.0,
        "retransmitted_segments": 5,
        "rto_events": 1,
        "flows per run": 3,
        "jain": pytest.approx(90.0**2 / (3 * (40.0**2 * 2 + 10.0**2))),
    }
