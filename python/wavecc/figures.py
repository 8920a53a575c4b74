"""Paper figures: time series with NLoS stretches shaded, goodput and RTT bars versus
error rate, CDFs, throughput-RTT ellipses, and radio traces (SINR, RLC occupancy).

Every figure function returns a matplotlib `Figure` (drawn, like `wavecc.plot`, on a
bare Figure with the Agg canvas: no pyplot state, no display); `save(fig, path)` writes
it as PNG and SVG. Sizes are for a paper: 7 in wide (two columns) or 3.5 in (one),
9-point text, so the figures stay readable when printed at that size.

Colours: one map keyed by algorithm name (`color`), the same in every figure, so CUBIC
is the same blue in a time series, a bar chart, a CDF and an ellipse plot.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterable, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Polygon, Rectangle

from . import analysis

if TYPE_CHECKING:
    from .result import Result

# Widths of a two-column paper's figures, in inches.
DOUBLE_COLUMN_IN = 7.0
SINGLE_COLUMN_IN = 3.5

# matplotlib's tab20, dark shades first.
_TAB20 = [
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
    "#aec7e8",
    "#ffbb78",
    "#98df8a",
    "#ff9896",
    "#c5b0d5",
    "#c49c94",
    "#f7b6d2",
    "#c7c7c7",
    "#dbdb8d",
    "#9edae5",
]

# One colour per algorithm, fixed by name so that it never depends on which algorithms
# a figure shows. The papers' usual comparisons (CUBIC, BBR, NewReno, FB-TCP, HighSpeed)
# get the most distinct colours; the UDP-saturated reference is black.
COLORS: dict[str, str] = {
    "cubic": "#1f77b4",
    "bbr": "#ff7f0e",
    "newreno": "#2ca02c",
    "fbtcp": "#d62728",
    "highspeed": "#9467bd",
    "scalable": "#8c564b",
    "vegas": "#e377c2",
    "westwood": "#bcbd22",
    "yeah": "#17becf",
    "bic": "#aec7e8",
    "reno": "#98df8a",
    "tahoe": "#c5b0d5",
    "mss": "#ff9896",
    "rttv": "#ffbb78",
    "mrvhs": "#c49c94",
    "dtcp": "#f7b6d2",
    "udp": "#000000",
}

# Line styles for several flows of one algorithm in one panel.
_STYLES = ["-", "--", ":", "-."]

_PAPER_RC = {
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "legend.fontsize": 8,
    "lines.linewidth": 1.2,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "svg.fonttype": "none",  # text stays text in SVG
    "savefig.dpi": 200,
}


def color(algorithm: str) -> str:
    """The colour of an algorithm in every figure. Names not in `COLORS` get a colour
    from their name's CRC, so they too are the same in every figure and every run."""
    name = str(algorithm).lower()
    if name in COLORS:
        return COLORS[name]
    return _TAB20[zlib.crc32(name.encode("utf-8")) % len(_TAB20)]


@contextmanager
def paper_style():
    """Draws inside it in the style of every wavecc figure (fonts, sizes, grid)."""
    with matplotlib.rc_context(_PAPER_RC):
        yield


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def save(
    fig: Figure, path: str | os.PathLike[str], formats: Sequence[str] = ("png", "svg")
) -> list[Path]:
    """Writes `fig` once per format, next to each other: `path` with its suffix
    replaced (`out/goodput` or `out/goodput.png` -> out/goodput.png, out/goodput.svg)."""
    path = Path(path)
    stem = path.with_suffix("") if path.suffix.lower() in {".png", ".svg", ".pdf"} else path
    stem.parent.mkdir(parents=True, exist_ok=True)
    written = []
    with paper_style():
        for fmt in formats:
            target = stem.with_name(f"{stem.name}.{fmt}")
            fig.savefig(target, format=fmt)
            written.append(target)
    return written


# --- time series --------------------------------------------------------------------------


# Legends list at most this many entries, the last saying how many more there are:
# a run of 1000 flows keeps a legend that fits above its axes.
LEGEND_MAX = 12


def _capped(handles: Sequence[Any], limit: int = LEGEND_MAX) -> list[Any]:
    """`handles` when they fit in a legend, else the first `limit - 1` and an entry
    "+N more" for the rest."""
    if len(handles) <= limit:
        return list(handles)
    more = Line2D([], [], linestyle="", label=f"+{len(handles) - limit + 1} more")
    return [*handles[: limit - 1], more]


def nlos_intervals(summary: Mapping[str, Any]) -> list[tuple[float, float]]:
    """The NLoS stretches of a run, merged over its UEs: each UE of an mmWave summary
    (`summary["ues"][i]["nlos_intervals_s"]`, a list of [start, end] seconds). Empty
    for a wired run or a summary without them."""
    spans = []
    for ue in summary.get("ues") or []:
        for span in (ue or {}).get("nlos_intervals_s") or []:
            start, end = float(span[0]), float(span[1])
            if end > start:
                spans.append((start, end))
    merged: list[tuple[float, float]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _shade(axes: Iterable[Any], spans: Sequence[tuple[float, float]]) -> None:
    for ax in axes:
        for start, end in spans:
            ax.axvspan(start, end, color="0.5", alpha=0.18, linewidth=0, zorder=0)


def _udp_mbps(udp: float | Result | None) -> float | None:
    if udp is None:
        return None
    if isinstance(udp, (int, float)):
        return float(udp)
    flows = udp.summary["flows"]
    return float(sum(f["goodput_mbps"] for f in flows))


def time_series(
    result: Result,
    *,
    udp: float | Result | None = None,
    nlos: Sequence[tuple[float, float]] | None = None,
    title: str | None = None,
) -> Figure:
    """Goodput, RTT and cwnd over time, one line per flow in its algorithm's colour,
    with the NLoS stretches shaded (`nlos`, default: from the run's summary, see
    `nlos_intervals`) and the UDP-saturated goodput as a dashed line (`udp`: Mb/s, or
    the Result of the same scenario run with transport="udp")."""
    spans = nlos_intervals(result.summary) if nlos is None else list(nlos)
    udp_mbps = _udp_mbps(udp)
    cca = {flow["flow"]: flow["cca"] for flow in result.summary["flows"]}
    with paper_style():
        fig = _figure(DOUBLE_COLUMN_IN, 5.2)
        goodput, rtt, cwnd = fig.subplots(3, 1, sharex=True)
        seen: dict[str, int] = {}
        handles = []
        for flow, rows in result.flows.groupby("flow", sort=True):
            name = cca.get(flow, "?")
            style = _STYLES[seen.get(name, 0) % len(_STYLES)]
            seen[name] = seen.get(name, 0) + 1
            kw = {"color": color(name), "linestyle": style}
            label = f"flow {flow} ({name})" if len(cca) > 1 else name
            handles += goodput.plot(rows["t_s"], rows["goodput_mbps"], label=label, **kw)
            rtt.plot(rows["t_s"], rows["rtt_mean_ms"], **kw)
            cwnd.plot(rows["t_s"], rows["cwnd_segments"], **kw)
        handles = _capped(handles)
        if udp_mbps is not None:
            handles.append(
                goodput.axhline(
                    udp_mbps,
                    color=color("udp"),
                    linestyle="--",
                    linewidth=1.0,
                    label="UDP saturated",
                )
            )
        if spans:
            _shade((goodput, rtt, cwnd), spans)
            handles.append(Patch(color="0.5", alpha=0.18, label="NLoS"))
        goodput.set_ylabel("goodput (Mb/s)")
        rtt.set_ylabel("RTT (ms)")
        cwnd.set_ylabel("cwnd (segments)")
        cwnd.set_xlabel("time (s)")
        for ax in (goodput, rtt, cwnd):
            ax.set_ylim(bottom=0)
        if result.flows.empty:
            goodput.text(0.5, 0.5, "no samples", transform=goodput.transAxes, ha="center")
        if handles:
            goodput.legend(
                handles=handles,
                loc="lower center",
                bbox_to_anchor=(0.5, 1.0),
                ncols=min(len(handles), 5),
                frameon=False,
            )
        if title is not None:
            fig.suptitle(title)
    return fig


# --- bars ---------------------------------------------------------------------------------


def _label(value: Any) -> str:
    if isinstance(value, float):
        return "0" if value == 0 else f"{value:g}"
    return str(value)


def bars(
    summary: pd.DataFrame,
    metric: str,
    *,
    x: str = analysis.LOSS,
    cca: str = analysis.CCA,
    confidence: float = 0.95,
    ylabel: str | None = None,
    xlabel: str | None = None,
) -> Figure:
    """Average `metric` per algorithm (bars, in the algorithm colours) at each value of
    `x` (groups; by default the per-byte error rate), with `confidence` t intervals
    over seeds as error bars (none where a bar has one seed)."""
    table = analysis.mean_ci(summary, [cca, x], [metric], confidence)
    algorithms = list(dict.fromkeys(table[cca]))
    groups = list(dict.fromkeys(table[x]))
    width = 0.8 / max(len(algorithms), 1)
    with paper_style():
        fig = _figure(DOUBLE_COLUMN_IN, 2.8)
        ax = fig.subplots()
        for i, name in enumerate(algorithms):
            rows = table[table[cca] == name].set_index(x).reindex(groups)
            positions = np.arange(len(groups)) + (i - (len(algorithms) - 1) / 2) * width
            errors = rows[f"{metric}_ci"].fillna(0).to_numpy()
            ax.bar(
                positions,
                rows[f"{metric}_mean"],
                width,
                yerr=errors,
                capsize=2,
                color=color(name),
                label=name,
                error_kw={"linewidth": 0.8},
            )
        ax.set_xticks(np.arange(len(groups)), [_label(g) for g in groups])
        ax.set_xlabel(xlabel or ("per-byte error rate" if x == analysis.LOSS else x))
        ax.set_ylabel(ylabel or metric)
        ax.grid(axis="x", visible=False)
        ax.legend(
            loc="lower center",
            bbox_to_anchor=(0.5, 1.0),
            ncols=min(len(algorithms), 6),
            frameon=False,
        )
        ax.text(
            1.0,
            1.0,
            f"error bars: {confidence:.0%} CI over seeds",
            transform=ax.transAxes,
            ha="right",
            va="bottom",
            fontsize=7,
            color="0.4",
        )
    return fig


# --- CDFs ---------------------------------------------------------------------------------


def cdf_plot(cdfs: Mapping[str, pd.DataFrame], *, xlabel: str, title: str | None = None) -> Figure:
    """Step CDFs, one per algorithm (`analysis.cdfs`: algorithm -> ECDF frame)."""
    with paper_style():
        fig = _figure(SINGLE_COLUMN_IN, 2.6)
        ax = fig.subplots()
        for name, cdf in cdfs.items():
            if cdf.empty:
                continue
            x = np.concatenate([[cdf["x"].iloc[0]], cdf["x"].to_numpy()])
            p = np.concatenate([[0.0], cdf["p"].to_numpy()])
            ax.step(x, p, where="post", color=color(name), label=str(name))
        ax.set_ylim(0, 1.02)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("CDF")
        if cdfs:
            ax.legend(loc="lower right", frameon=False)
        if title:
            ax.set_title(title)
    return fig


# --- ellipses -----------------------------------------------------------------------------

_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


def ellipse_plot(
    table: pd.DataFrame,
    *,
    cca: str = analysis.CCA,
    scenario: str | None = None,
    xlabel: str = "mean RTT (ms)",
    ylabel: str = "goodput (Mb/s)",
) -> Figure:
    """The Mateo study's throughput-RTT plot: each row of `analysis.ellipses` as its 2-sigma
    contour and center, coloured by algorithm, with one marker per `scenario` value.
    As in the seed the RTT axis is inverted (lower RTT to the right), so the best
    performers sit top right."""
    scenarios = list(dict.fromkeys(table[scenario])) if scenario else [None]
    with paper_style():
        fig = _figure(SINGLE_COLUMN_IN * 1.4, 3.4)
        ax = fig.subplots()
        for _, row in table.iterrows():
            e = row["ellipse"]
            c = color(row[cca])
            marker = _MARKERS[scenarios.index(row[scenario]) % len(_MARKERS)] if scenario else "o"
            if e.semi_axes[0] > 0:
                ax.add_patch(
                    Polygon(
                        e.contour(),
                        closed=True,
                        fill=True,
                        facecolor=c,
                        alpha=0.15,
                        edgecolor=c,
                        linewidth=1.0,
                    )
                )
            ax.plot([row["x"]], [row["y"]], marker=marker, color=c, markersize=5, linestyle="")
        ax.autoscale_view()
        ax.invert_xaxis()
        ax.set_xlabel(f"{xlabel}, lower to the right")
        ax.set_ylabel(ylabel)
        handles = [
            Line2D([], [], color=color(n), marker="o", linestyle="", label=str(n))
            for n in dict.fromkeys(table[cca])
        ]
        if scenario:
            handles += [
                Line2D(
                    [],
                    [],
                    color="0.3",
                    marker=_MARKERS[i % len(_MARKERS)],
                    linestyle="",
                    label=f"{scenario}={_label(s)}",
                )
                for i, s in enumerate(scenarios)
            ]
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
        ax.set_title("2-sigma contours of the ML Gaussian", fontsize=8)
    return fig


# --- radio traces ---------------------------------------------------------------------------


def _time(frame: pd.DataFrame) -> pd.Series:
    for column in ("time_s", "t_s"):
        if column in frame.columns:
            return frame[column]
    raise KeyError(f"no time column (time_s or t_s) in {list(frame.columns)}")


def radio_traces(
    ues: pd.DataFrame | None = None,
    rlc: pd.DataFrame | None = None,
    *,
    nlos: Sequence[tuple[float, float]] = (),
) -> Figure:
    """SINR per UE (from `ues`: time_s, ue, sinr_db, and los when present: NLoS samples
    are marked) and RLC buffer occupancy per UE (from `rlc`: time_s, ue, bytes, drops;
    or `ues`' rlc_bytes column when there is no `rlc`). Panels without data are left
    out; with neither, the figure says so."""
    panels = []
    if ues is not None and not ues.empty and "sinr_db" in ues.columns:
        panels.append("sinr")
    occupancy = None
    if rlc is not None and not rlc.empty and "bytes" in rlc.columns:
        occupancy = rlc.assign(_t=_time(rlc), _bytes=rlc["bytes"])
    elif ues is not None and not ues.empty and "rlc_bytes" in ues.columns:
        occupancy = ues.assign(_t=_time(ues), _bytes=ues["rlc_bytes"])
    if occupancy is not None:
        panels.append("rlc")
    with paper_style():
        fig = _figure(DOUBLE_COLUMN_IN, 1.2 + 1.6 * max(len(panels), 1))
        if not panels:
            ax = fig.subplots()
            ax.text(
                0.5, 0.5, "no radio traces (wired scenario)", ha="center", transform=ax.transAxes
            )
            ax.set_axis_off()
            return fig
        axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
        by_name = dict(zip(panels, axes, strict=True))
        if "sinr" in by_name:
            assert ues is not None  # the panel exists only with UE traces
            ax = by_name["sinr"]
            frame = ues.assign(_t=_time(ues))
            for i, (ue, rows) in enumerate(frame.groupby("ue", sort=True)):
                ax.plot(rows["_t"], rows["sinr_db"], color=f"C{i % 10}", label=f"UE {ue}")
                if "los" in rows.columns:
                    blocked = rows[~rows["los"].astype(bool)]
                    ax.plot(
                        blocked["_t"],
                        blocked["sinr_db"],
                        linestyle="",
                        marker=".",
                        markersize=2,
                        color="0.2",
                    )
            ax.set_ylabel("SINR (dB)")
            ax.legend(
                handles=_capped(ax.get_legend_handles_labels()[0]),
                loc="lower center",
                bbox_to_anchor=(0.5, 1.0),
                ncols=6,
                frameon=False,
            )
        if "rlc" in by_name:
            assert occupancy is not None  # the panel exists only with occupancy
            ax = by_name["rlc"]
            for i, (ue, rows) in enumerate(occupancy.groupby("ue", sort=True)):
                ax.plot(rows["_t"], rows["_bytes"] / 1e6, color=f"C{i % 10}", label=f"UE {ue}")
            ax.set_ylabel("RLC buffer (MB)")
            ax.set_ylim(bottom=0)
        _shade(axes, nlos)
        axes[-1].set_xlabel("time (s)")
    return fig


# --- scenario map -----------------------------------------------------------------------------

# Obstacle classes of the radio config (`radio.obstacles[].class`) and their fill colours.
OBSTACLE_COLORS = {
    "building": "#9e9e9e",
    "tree": "#7cb342",
    "vehicle": "#5c6bc0",
    "human": "#ffb74d",
    "lamppost": "#424242",
}


def ue_paths(config: Mapping[str, Any], duration_s: float | None = None) -> list[np.ndarray]:
    """Each UE's (x, y) path in the plane, from its start `position` and its `legs`
    (constant velocity from `at_s` until the next leg or the end of the run) or its
    `waypoints` (straight lines from point to point)."""
    radio = config.get("radio") or {}
    end = float(duration_s if duration_s is not None else config.get("duration_s", 0.0))
    paths = []
    for ue in radio.get("ues") or []:
        start = np.array(ue.get("position", [0.0, 0.0, 0.0])[:2], dtype=float)
        points = [start]
        legs = sorted(ue.get("legs") or [], key=lambda leg: leg["at_s"])
        for i, leg in enumerate(legs):
            until = legs[i + 1]["at_s"] if i + 1 < len(legs) else end
            span = max(0.0, min(until, end) - leg["at_s"])
            velocity = np.array(leg["velocity"][:2], dtype=float)
            points.append(points[-1] + velocity * span)
        for waypoint in ue.get("waypoints") or []:
            points.append(np.array(waypoint["to"][:2], dtype=float))
        paths.append(np.array(points))
    return paths


def scenario_map(config: Mapping[str, Any], ues: pd.DataFrame | None = None) -> Figure:
    """The plan view of a radio scenario: obstacles (filled by class), gNBs (triangles)
    and each UE's path from its start (circle). The path is the `ues` trace's x_m, y_m
    when given (where the UE really went in the run), else the one its config
    describes (`ue_paths`). A wired config gets a figure that says so."""
    radio = config.get("radio") or {}
    with paper_style():
        fig = _figure(SINGLE_COLUMN_IN * 1.6, 3.4)
        ax = fig.subplots()
        if not radio:
            ax.text(0.5, 0.5, "wired scenario: no radio map", ha="center", transform=ax.transAxes)
            ax.set_axis_off()
            return fig
        handles: dict[str, Any] = {}
        ue_handles: list[Any] = []
        for obstacle in radio.get("obstacles") or []:
            kind = str(obstacle.get("class", "building"))
            (x0, x1), (y0, y1) = obstacle["x"], obstacle["y"]
            fill = OBSTACLE_COLORS.get(kind, "#bdbdbd")
            ax.add_patch(
                Rectangle(
                    (x0, y0),
                    x1 - x0,
                    y1 - y0,
                    facecolor=fill,
                    edgecolor="0.3",
                    linewidth=0.5,
                    zorder=1,
                )
            )
            handles.setdefault(kind, Patch(facecolor=fill, edgecolor="0.3", label=kind))
        for i, gnb in enumerate(radio.get("gnbs") or []):
            x, y = gnb["position"][:2]
            ax.plot([x], [y], marker="^", color="black", markersize=7, linestyle="", zorder=3)
            ax.annotate(f"gNB {i}", (x, y), textcoords="offset points", xytext=(4, 4), fontsize=7)
        handles["gNB"] = Line2D([], [], marker="^", color="black", linestyle="", label="gNB")
        if ues is not None and not ues.empty and {"x_m", "y_m"} <= set(ues.columns):
            paths = [rows[["x_m", "y_m"]].to_numpy() for _, rows in ues.groupby("ue", sort=True)]
        else:
            paths = ue_paths(config)
        for i, path in enumerate(paths):
            c = f"C{i % 10}"
            ax.plot(path[:, 0], path[:, 1], color=c, zorder=2)
            ax.plot([path[0, 0]], [path[0, 1]], marker="o", color=c, markersize=5, zorder=3)
            ue_handles.append(Line2D([], [], color=c, marker="o", label=f"UE {i} path"))
        ax.set_aspect("equal", adjustable="datalim")
        ax.autoscale_view()
        ax.set_xlabel("x (m)")
        ax.set_ylabel("y (m)")
        ax.legend(
            handles=[*handles.values(), *_capped(ue_handles)],
            loc="upper left",
            bbox_to_anchor=(1.0, 1.0),
            frameon=False,
        )
    return fig


def is_blank(png: str | os.PathLike[str] | bytes) -> bool:
    """True if a PNG is one uniform colour (a figure that drew nothing visible)."""
    import io

    from matplotlib.image import imread

    source = io.BytesIO(png) if isinstance(png, bytes) else os.fspath(png)
    pixels = imread(source)
    return bool(np.all(pixels == pixels[0, 0]))


__all__ = [
    "COLORS",
    "bars",
    "cdf_plot",
    "color",
    "ellipse_plot",
    "is_blank",
    "nlos_intervals",
    "radio_traces",
    "save",
    "scenario_map",
    "time_series",
    "ue_paths",
]
