"""`wavecc report DIR`: one self-contained HTML page from a sweep's result store.

The page has no external resources: figures are base64 PNG in `<img>` tags, styles are
inline, and one small script checks, once the page has loaded, that every figure decoded
(it logs `wavecc-report: N figures loaded`, or a console error naming the one that
did not), which the browser test reads.

Sections: the overview (runs, grid, seeds, failures), a table of means with 95% t
intervals over seeds per grid point (a run's total goodput is the bytes all its flows
delivered x 8 / the run's duration; per-flow goodput is each flow's own, over the time it
was active), bar charts of total goodput and RTT per algorithm versus
the error rate (or the first other swept key), percentage-improvement tables in the
papers' layout, Jain's index for multi-flow runs, CDFs of per-interval goodput and RTT,
the Mateo study's throughput-RTT ellipses, a time series of one run per algorithm (NLoS
shaded when the run has it), radio traces for mmWave runs, the configs used and the
versions of everything that produced the page.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import os
import platform
import statistics
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import pandas as pd

from . import analysis, figures, outdir
from ._core import ConfigError
from .atomic import atomic_file
from .store import MANIFEST, SUMMARY, Store

REPORT = "report.html"
# In the head of every page: how `write_report` recognises a report it may replace,
# within the first _HEAD_BYTES of the file.
GENERATOR = '<meta name="generator" content="wavecc">'
_HEAD_BYTES = 4096

# A run's numbers in the report, from its summary.json, with their labels. The total
# counts every byte any flow delivered over the whole run; the per-flow numbers start
# from each flow's own, whose goodput is averaged over the time that flow was active
# (its start to its stop or the run's end), so per-flow goodputs do not add up to the
# run's throughput when flows start late.
METRICS = {
    "total_goodput_mbps": "total goodput (Mb/s)",
    "goodput_mbps": "per-flow goodput over its active time (Mb/s)",
    "mean_rtt_ms": "mean RTT (ms)",
    "p95_rtt_ms": "p95 RTT (ms)",
    "retransmitted_segments": "retransmitted segments",
    "rto_events": "RTOs",
}
# The number of flows of a run: means are never taken over runs of different counts.
FLOW_COUNT = "flows per run"


def write_report(
    directory: str | os.PathLike[str], out: str | os.PathLike[str] | None = None
) -> Path:
    """Writes the report of the sweep store `directory` to `out` (default
    DIR/report.html), atomically, and returns its path. An existing file there is
    replaced only if it is a report wavecc wrote (`GENERATOR`); anything else raises
    `outdir.OutputRefused` before the page is built."""
    directory = Path(directory)
    if not (directory / SUMMARY).is_file():
        raise ConfigError(
            f"{directory}: not a sweep result store (no {SUMMARY}); run 'wavecc sweep ... --out {directory}' first"
        )
    path = Path(out) if out is not None else directory / REPORT
    if out is None:
        outdir.check(directory, outdir.SWEEP_STORE)
    _check_replaceable(path)
    page = build_report(directory)
    with atomic_file(path) as tmp:
        tmp.write_text(page, encoding="utf-8")
    if out is None:
        outdir.mark(directory, outdir.SWEEP_STORE, [REPORT])
    return path


def _check_replaceable(path: Path) -> None:
    """Refuses to replace anything at `path` but a report of ours."""
    if not path.exists() and not path.is_symlink():
        return
    if path.is_file() and not path.is_symlink():
        with open(path, "rb") as f:
            if GENERATOR.encode() in f.read(_HEAD_BYTES):
                return
    raise outdir.OutputRefused(
        f"{path} exists and is not a report wavecc wrote; choose a new file (--out FILE)"
    )


class _Page:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.figures = 0

    def h(self, level: int, text: str) -> None:
        self.parts.append(f"<h{level}>{html.escape(text)}</h{level}>")

    def p(self, text: str, cls: str = "") -> None:
        attr = f' class="{cls}"' if cls else ""
        self.parts.append(f"<p{attr}>{html.escape(text)}</p>")

    def raw(self, text: str) -> None:
        self.parts.append(text)

    def table(self, frame: pd.DataFrame, index: bool = False) -> None:
        self.parts.append(
            frame.to_html(index=index, na_rep="-", border=0, classes="data", escape=True)
        )

    def figure(self, fig: Any, caption: str) -> None:
        buffer = io.BytesIO()
        with figures.paper_style():
            fig.savefig(buffer, format="png", dpi=110)
        data = base64.b64encode(buffer.getvalue()).decode("ascii")
        self.figures += 1
        alt = html.escape(caption)
        self.parts.append(
            f'<figure><img src="data:image/png;base64,{data}" alt="{alt}">'
            f"<figcaption>{alt}</figcaption></figure>"
        )

    def pre(self, text: str) -> None:
        self.parts.append(f"<pre>{html.escape(text, quote=False)}</pre>")


def build_report(directory: Path) -> str:
    store = Store(directory)
    summary = store.read_summary()
    manifest = _read_json(directory / MANIFEST) or {}
    grid: dict[str, list[Any]] = manifest.get("grid", {})
    swept = (
        [c for c in summary.columns[: list(summary.columns).index("seed")]]
        if "seed" in summary
        else []
    )
    ok = summary[summary["status"] == "ok"] if "status" in summary else summary
    frame = _with_run_metrics(summary, store)
    name = _scenario_name(store, ok)

    page = _Page()
    page.h(1, f"wavecc sweep report: {name}")
    failed = len(summary) - len(ok)
    page.p(
        f"{len(summary)} runs ({len(ok)} complete, {failed} failed) from {directory.resolve()}, "
        f"{manifest.get('seeds', '?')} seed(s) per grid point; generated "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M UTC} by wavecc {_version('wavecc')}."
    )
    if grid:
        page.table(
            pd.DataFrame(
                {
                    "grid key": list(grid),
                    "values": [", ".join(map(_show, v)) for v in grid.values()],
                }
            )
        )

    if not ok.empty:
        _scenario(page, store, ok["key"].iloc[0])
        page.h(2, "Means over seeds (95% t confidence intervals)")
        page.p(
            "Total goodput: the bytes all of a run's flows delivered x 8 / the run's "
            "duration. Per-flow goodput: the mean over a run's flows of each flow's "
            "goodput over the time it was active (its start to its stop or the run's "
            "end), so it exceeds the total's share when flows start late. Mean RTT: "
            "the flows' mean of mean RTTs; p95 RTT: the largest flow's; "
            "retransmissions and RTOs: all flows'.",
            cls="note",
        )
        page.table(_means_table(frame, [*(swept or [analysis.CCA]), FLOW_COUNT], list(METRICS)))

    x = (
        analysis.LOSS
        if analysis.LOSS in swept
        else next((k for k in swept if k != analysis.CCA), None)
    )
    others = [k for k in swept if k not in (analysis.CCA, x)]
    if not ok.empty:
        _bars_and_tables(page, frame, x, others)
    _fairness(page, frame, swept)
    if not ok.empty:
        _distributions(page, store, frame, x)
    _configs(page, store, summary, grid)
    _failures(page, summary, swept)
    _versions(page)
    return _html(name, page)


def _bars_and_tables(page: _Page, frame: pd.DataFrame, x: str | None, others: list[str]) -> None:
    x_col = x if x is not None else "_all"
    data = frame if x is not None else frame.assign(_all="all runs")
    xlabel = "per-byte error rate" if x == analysis.LOSS else (x or "")
    groups = [((), data)] if not others else list(data.groupby(others, sort=False))
    for values, subset in groups:
        values = values if isinstance(values, tuple) else (values,)
        where = ", ".join(f"{k} = {_show(v)}" for k, v in zip(others, values, strict=True))
        page.h(2, "Average goodput and RTT" + (f" ({where})" if where else ""))
        ok = subset[subset["status"] == "ok"]
        for metric in ("total_goodput_mbps", "mean_rtt_ms"):
            if ok[metric].notna().any():
                fig = figures.bars(ok, metric, x=x_col, ylabel=METRICS[metric], xlabel=xlabel)
                page.figure(
                    fig,
                    f"{METRICS[metric]} per algorithm versus {xlabel or 'run'}"
                    + (f" ({where})" if where else ""),
                )
        algorithms = list(dict.fromkeys(ok[analysis.CCA]))
        if len(algorithms) < 2:
            continue
        page.h(3, "Percentage improvement" + (f" ({where})" if where else ""))
        page.p(
            "Rows: baselines; columns: " + (xlabel or "all runs") + ". Positive: the "
            "algorithm did better (higher goodput, lower RTT), from the means over seeds.",
            cls="note",
        )
        for algorithm in algorithms:
            for metric in ("total_goodput_mbps", "mean_rtt_ms"):
                table = analysis.improvement_table(ok, algorithm, metric, columns=x_col)
                table = table.rename(columns=_show).round(2)
                table.columns.name = None
                table = table.reset_index()
                page.raw(f"<h4>{html.escape(algorithm)}: {html.escape(METRICS[metric])}</h4>")
                page.table(table)


def _fairness(page: _Page, frame: pd.DataFrame, swept: list[str]) -> None:
    ok = frame[frame["status"] == "ok"]
    if not (ok[FLOW_COUNT] > 1).any():
        return
    page.h(2, "Jain's fairness index over flows (per-flow goodput)")
    page.table(_means_table(ok, [*(swept or [analysis.CCA]), FLOW_COUNT], ["jain"]))


def _scenario(page: _Page, store: Store, key: str) -> None:
    """The map of a radio scenario, with the UE paths of one run."""
    config = _read_json(store.run_dir(key) / "config.json") or {}
    if not config.get("radio"):
        return
    ues_file = store.run_dir(key) / "ues.parquet"
    ues = pd.read_parquet(ues_file) if ues_file.is_file() else None
    page.h(2, "Scenario")
    page.figure(figures.scenario_map(config, ues), "scenario map: obstacles, gNBs and UE paths")


def _distributions(page: _Page, store: Store, frame: pd.DataFrame, x: str | None) -> None:
    ok = frame[frame["status"] == "ok"]
    samples = _interval_samples(store, ok)
    page.h(2, "Distributions over all runs and intervals")
    for column, label in (
        ("goodput_mbps", "per-interval goodput (Mb/s)"),
        ("rtt_mean_ms", "per-interval mean RTT (ms)"),
    ):
        cdfs = analysis.cdfs(samples, column)
        if any(not c.empty for c in cdfs.values()):
            page.figure(figures.cdf_plot(cdfs, xlabel=label), f"CDF of {label} per algorithm")
    by = [analysis.CCA] + ([x] if x else [])
    points = ok.dropna(subset=["mean_rtt_ms", "total_goodput_mbps"])
    if not points.empty:
        table = analysis.ellipses(points, y="total_goodput_mbps", by=by)
        page.h(2, "Throughput-RTT ellipses (the Mateo study)")
        page.p(
            "Per algorithm and scenario: the 2-sigma contour of the maximum-likelihood "
            "2D Gaussian of the runs' (mean RTT, total goodput) over seeds.",
            cls="note",
        )
        page.figure(
            figures.ellipse_plot(table, scenario=x, ylabel=METRICS["total_goodput_mbps"]),
            "throughput-RTT 2-sigma ellipses",
        )
        shown = table.drop(columns=["ellipse"]).rename(
            columns={"x": "RTT ms", "y": "total goodput Mb/s"}
        )
        page.table(shown.round(3))

    page.h(2, "Time series: one run per algorithm")
    for algorithm, rows in ok.groupby(analysis.CCA, sort=False):
        row = rows.iloc[0]
        result = store.load(row["key"])
        label = " ".join(f"{k}={_show(row[k])}" for k in _swept(frame)) + f" seed={row['seed']}"
        page.figure(figures.time_series(result), f"{algorithm}: {label}")
        ues = getattr(result, "ues", None)
        rlc = getattr(result, "rlc", None)
        if (ues is not None and not ues.empty) or (rlc is not None and not rlc.empty):
            nlos = figures.nlos_intervals(result.summary)
            page.figure(
                figures.radio_traces(ues, rlc, nlos=nlos), f"{algorithm}: SINR and RLC occupancy"
            )


def _configs(page: _Page, store: Store, summary: pd.DataFrame, grid: dict[str, Any]) -> None:
    page.h(2, "Configs used")
    ok = summary[summary["status"] == "ok"]
    first = ok["key"].iloc[0] if not ok.empty else None
    if first is not None:
        config = _read_json(store.run_dir(first) / "config.json")
        page.p(
            f"The effective config of run {first} (the other runs differ only in the grid "
            f"keys {', '.join(grid) or '-'} and the seed):"
        )
        page.pre(json.dumps(config, indent=2))
    page.raw("<details><summary>every run: key, grid values, seed</summary>")
    swept = _swept(summary)
    page.table(summary[[*swept, "seed", "key", "status"]])
    page.raw("</details>")


def _failures(page: _Page, summary: pd.DataFrame, swept: list[str]) -> None:
    failed = summary[summary["status"] != "ok"]
    if failed.empty:
        return
    page.h(2, f"Failed runs ({len(failed)})")
    page.table(failed[[*swept, "seed", "key", "error"]])


def _versions(page: _Page) -> None:
    page.h(2, "Versions")
    rows = [("python", platform.python_version()), ("platform", platform.platform())]
    for package in (
        "wavecc",
        "numpy",
        "pandas",
        "pyarrow",
        "matplotlib",
        "scipy",
        "dask",
        "distributed",
    ):
        version = _version(package)
        if version is not None:
            rows.append((package, version))
    page.table(pd.DataFrame(rows, columns=["component", "version"]))


# --- helpers ----------------------------------------------------------------------------------


def _means_table(frame: pd.DataFrame, by: Sequence[str], metrics: Sequence[str]) -> pd.DataFrame:
    table = analysis.mean_ci(frame, by, metrics)
    shown = table[list(by)].copy()
    for column in by:
        shown[column] = shown[column].map(_show)
    for metric in metrics:
        mean, ci = table[f"{metric}_mean"], table[f"{metric}_ci"]
        shown[METRICS.get(metric, metric)] = [_pm(m, c) for m, c in zip(mean, ci, strict=True)]
    shown["seeds"] = table[f"{metrics[0]}_n"]
    return shown


def _pm(mean: float, ci: float) -> str:
    if pd.isna(mean):
        return "-"
    return f"{mean:.2f}" if pd.isna(ci) else f"{mean:.2f} ± {ci:.2f}"


def _with_run_metrics(summary: pd.DataFrame, store: Store) -> pd.DataFrame:
    """The summary with a `cca` column (from each run's config when it was not swept)
    and each complete run's `METRICS`, `FLOW_COUNT` and `jain`, read from its
    summary.json (NaN for failed runs), whatever its number of flows."""
    frame = summary.copy()
    if analysis.CCA not in frame.columns:
        frame[analysis.CCA] = [_run_algorithms(store, key) for key in frame["key"]]
    rows = [
        run_metrics(store.read_summary_json(key)) if status == "ok" else {}
        for key, status in zip(frame["key"], frame["status"], strict=True)
    ]
    measured = pd.DataFrame(rows, index=frame.index, columns=[*METRICS, FLOW_COUNT, "jain"])
    return frame.drop(columns=[c for c in measured.columns if c in frame.columns]).join(measured)


def run_metrics(run: dict[str, Any]) -> dict[str, float]:
    """One run's numbers from its summary.json: the total goodput (bytes delivered by
    all flows x 8 / the run's simulated duration), the mean of the flows' goodputs (each
    over its own active time) and of their mean RTTs, the largest p95 RTT, the
    retransmissions and RTOs of all flows, the flow count and Jain's index of the flows'
    goodputs."""
    flows = run["flows"]

    def present(metric: str) -> list[float]:
        """The flows' values of `metric`, leaving out missing ones (a UDP flow's RTT)."""
        values = (f.get(metric) for f in flows)
        return [float(v) for v in values if v is not None and not math.isnan(v)]

    delivered = sum(int(f["bytes_delivered"]) for f in flows)
    return {
        "total_goodput_mbps": delivered * 8 / float(run["sim_time_s"]) / 1e6,
        "goodput_mbps": _mean(present("goodput_mbps")),
        "mean_rtt_ms": _mean(present("mean_rtt_ms")),
        "p95_rtt_ms": max(present("p95_rtt_ms"), default=math.nan),
        "retransmitted_segments": sum(present("retransmitted_segments")),
        "rto_events": sum(present("rto_events")),
        FLOW_COUNT: len(flows),
        "jain": analysis.jain(present("goodput_mbps")),
    }


def _mean(values: list[float]) -> float:
    return statistics.fmean(values) if values else math.nan


def _run_algorithms(store: Store, key: str) -> str:
    config = _read_json(store.run_dir(key) / "config.json") or {}
    names = [f.get("cca", "?") for f in config.get("flows", []) if isinstance(f, dict)]
    return "+".join(dict.fromkeys(names)) or "?"


def _interval_samples(store: Store, ok: pd.DataFrame) -> pd.DataFrame:
    frames = []
    for _, row in ok.iterrows():
        flows = pd.read_parquet(
            store.run_dir(row["key"]) / "flows.parquet",
            columns=["t_s", "flow", "goodput_mbps", "rtt_mean_ms"],
        )
        frames.append(flows.assign(cca=row[analysis.CCA]))
    return (
        pd.concat(frames, ignore_index=True)
        if frames
        else pd.DataFrame(columns=["t_s", "flow", "goodput_mbps", "rtt_mean_ms", "cca"])
    )


def _scenario_name(store: Store, ok: pd.DataFrame) -> str:
    if ok.empty:
        return store.directory.name
    summary = _read_json(store.run_dir(ok["key"].iloc[0]) / "summary.json") or {}
    return str(summary.get("name", store.directory.name))


def _swept(summary: pd.DataFrame) -> list[str]:
    columns = list(summary.columns)
    return columns[: columns.index("seed")] if "seed" in columns else []


def _show(value: Any) -> str:
    if isinstance(value, float):
        return "0" if value == 0 else f"{value:g}"
    return str(value)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 2em auto;
       max-width: 1100px; padding: 0 1em; color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ddd; }
h4 { margin-bottom: 0.3em; }
table.data { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0 1em; }
table.data th, table.data td { border: 1px solid #ddd; padding: 0.2em 0.6em; text-align: right; }
table.data th { background: #f4f4f4; }
figure { margin: 1em 0; } figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { font-size: 0.85em; color: #555; }
pre { background: #f7f7f7; padding: 0.8em; font-size: 0.8em; overflow-x: auto; }
.note { font-size: 0.85em; color: #555; }
"""

# Runs once the page has loaded: every figure must have decoded. Logs one line (the
# browser test reads it); a figure that did not decode is a console error.
_SCRIPT = """
window.addEventListener("load", function () {
  var images = document.querySelectorAll("figure img");
  var bad = 0;
  images.forEach(function (img) {
    if (!img.complete || img.naturalWidth === 0) { bad++; console.error("figure did not load: " + img.alt); }
  });
  if (bad === 0) { console.log("wavecc-report: " + images.length + " figures loaded"); }
});
"""


def _html(name: str, page: _Page) -> str:
    body = "\n".join(page.parts)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"{GENERATOR}\n"
        # An empty icon: the browser asks for no favicon file.
        '<link rel="icon" href="data:,">\n'
        f"<title>wavecc report: {html.escape(name)}</title>\n<style>{_STYLE}</style>\n</head>\n"
        f"<body>\n{body}\n<script>{_SCRIPT}</script>\n</body>\n</html>\n"
    )


__all__ = ["REPORT", "build_report", "run_metrics", "write_report"]
